"""On-disk cache of converted splits, so that a large source (a full-size FiNER-139 zip: ~80 s) is converted once,
not on every lm-eval start.

An entry is the output of :func:`lm_eval_enterprise.data.folder.inspect_folder` — the served splits and the
:class:`~lm_eval_enterprise.data.checks.DataReport` — pickled under ``<cache>/.converted/`` (``<cache>`` =
``$LM_EVAL_ENTERPRISE_CACHE``, default ``~/.cache/lm-eval-enterprise/data``). Its name is a sha256 over

* the sha256 of every file of the data folder (the same hashes the report records, themselves cached by path,
  size and mtime), so any change to the data — a file edited, added or removed, a ``MANIFEST.json`` — misses;
* the folder's resolved path (the report and its messages name it);
* :func:`code_version`: the sha256 of every Python file of the package and of the task roots (the package's tree
  and ``$LM_EVAL_ENTERPRISE_TASK_PATH``'s folders; tests excluded), so any change to a loader or to the shared code
  a conversion may call misses too;
* :data:`FORMAT`, bumped if the entry layout changes.

Only successful conversions are stored (a problem raises before). Writing is atomic; the entries of older
versions of the same folder are removed when a new one is written; an unreadable entry is ignored (converted
again and replaced). ``LM_EVAL_ENTERPRISE_CONVERTED_CACHE=0`` switches the cache off. Pickle is used because it
returns the records exactly as converted (tuples stay tuples, the report stays a DataReport) and is the fastest
format for them; the cache folder is the user's own, like the downloads beside it.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import pickle
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Any

from .checks import combined_sha256
from .config import cache_root
from .tasktree import task_roots

log = logging.getLogger("lm_eval_enterprise.data")

ENV_SWITCH = "LM_EVAL_ENTERPRISE_CONVERTED_CACHE"
FOLDER = ".converted"
FORMAT = 1


def enabled() -> bool:
    return os.environ.get(ENV_SWITCH, "1").lower() not in ("0", "false", "no", "off")


def _code_files(root: Path) -> list[Path]:
    return sorted(
        p
        for p in root.rglob("*.py")
        if not p.name.startswith("test_") and not any(part.startswith(".") for part in p.relative_to(root).parts)
    )


def code_version() -> str:
    """sha256 over the relative path and bytes of every ``*.py`` of the package and the task roots, tests excluded."""
    return _code_version(task_roots())


@lru_cache(maxsize=8)
def _code_version(roots: tuple[Path, ...]) -> str:
    digest = hashlib.sha256()
    for root in (Path(__file__).resolve().parents[1], *roots):
        for p in _code_files(root):
            digest.update(p.relative_to(root).as_posix().encode() + b"\0" + p.read_bytes() + b"\0")
    return digest.hexdigest()


def entry_path(dataset: str, d: Path, files: dict[str, str]) -> Path:
    """Where the entry of data folder ``d`` with these file hashes (relative path → sha256) is stored."""
    place = str(Path(d).resolve())
    key = json.dumps([FORMAT, dataset, place, combined_sha256(files), code_version()])
    digest = hashlib.sha256(key.encode()).hexdigest()[:32]
    return cache_root() / FOLDER / f"{dataset}-{hashlib.sha256(place.encode()).hexdigest()[:12]}-{digest}.pickle"


def load(path: Path) -> Any | None:
    """The stored entry, or ``None`` when there is none or it cannot be read (then it is converted again)."""
    try:
        with open(path, "rb") as f:
            return pickle.load(f)
    except FileNotFoundError:
        return None
    except Exception as exc:  # truncated, corrupt, or written by an incompatible version
        log.warning(
            "ignoring unreadable converted-split cache entry %s (%s); converting again", path, type(exc).__name__
        )
        return None


def store(path: Path, value: Any) -> None:
    """Write the entry atomically and drop older entries of the same dataset folder; a failure only costs a
    conversion next time."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as f:
                pickle.dump(value, f, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
        prefix = path.name.rsplit("-", 1)[0] + "-"
        for old in path.parent.glob(prefix + "*.pickle"):
            if old != path:
                old.unlink(missing_ok=True)
    except OSError as exc:
        log.debug("converted-split cache not written (%s)", exc)
