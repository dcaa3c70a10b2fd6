"""Plain HTTP downloads (GitHub raw files, archives, JSON APIs); every failure is one :class:`DataError` line.

Hugging Face hub repositories are fetched with ``huggingface_hub`` instead (:mod:`lm_eval_enterprise.data.hub`).
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import DataError
from .config import EMBEDDED, ENV_DATA


@dataclass(frozen=True)
class RemoteFile:
    """One file a dataset downloads: ``name`` in the data folder, ``url`` to fetch, optional ``sha256``."""

    name: str
    url: str
    sha256: str | None = None


def manual_hint(dataset: str, path: str = "") -> str:
    """How to supply a file by hand after a failed download: into the data root when one is set (never "set the
    variable" when it is already set), else by pointing ``$LM_EVAL_ENTERPRISE_DATA`` at a folder."""
    root = os.environ.get(ENV_DATA)
    if root and root != EMBEDDED:
        return f"obtain the source files by hand and put them into {Path(root).expanduser() / dataset}/{path}"
    return (
        f"obtain the source files by hand and point ${ENV_DATA} (or --data_root) at a folder holding {dataset}/{path}"
    )


def exc_line(exc: BaseException) -> str:
    """``Type: first line of the message`` (DataError messages stay one line)."""
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text.splitlines()[0]}" if text else type(exc).__name__


def download_url(url: str, dest: Path, dataset: str, sha256: str | None = None, progress: bool = True) -> Path:
    """Fetch ``url`` to ``dest`` atomically with a progress bar; verify ``sha256`` when given."""
    import urllib.request

    from tqdm.auto import tqdm

    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(dest.name + ".part")
    try:
        req = urllib.request.Request(url, headers={"User-Agent": "lm-eval-enterprise"})
        with urllib.request.urlopen(req, timeout=60) as resp, open(tmp, "wb") as out:
            total = int(resp.headers.get("Content-Length") or 0) or None
            digest = hashlib.sha256()
            with tqdm(
                total=total, unit="B", unit_scale=True, desc=f"{dataset}: {dest.name}", disable=not progress
            ) as bar:
                while chunk := resp.read(1 << 20):
                    out.write(chunk)
                    digest.update(chunk)
                    bar.update(len(chunk))
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise DataError(dataset, url, f"download failed ({exc}); {manual_hint(dataset)}") from exc
    if sha256 and digest.hexdigest() != sha256:
        tmp.unlink(missing_ok=True)
        raise DataError(dataset, url, f"sha256 {digest.hexdigest()} != expected {sha256}")
    tmp.replace(dest)
    return dest


def fetch_json(url: str, dataset: str, headers: dict[str, str] | None = None, hint: str = "") -> Any:
    """GET ``url`` and parse its JSON body (API listings, dataset info); any failure is one :class:`DataError`
    line naming the dataset and URL, with ``hint`` saying how to provide the data by hand."""
    import urllib.request

    req = urllib.request.Request(url, headers={"User-Agent": "lm-eval-enterprise", **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            return json.loads(resp.read())
    except (OSError, ValueError) as exc:
        raise DataError(
            dataset,
            url,
            f"cannot read {url.split('?')[0].rsplit('/', 1)[-1] or 'the response'} "
            f"({exc}){'; ' + hint if hint else ''}",
        ) from exc
