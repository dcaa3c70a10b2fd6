"""Plain HTTP downloads (GitHub raw files, archives, JSON APIs); every failure is one :class:`DataError` line.

Hugging Face hub repositories are fetched with ``huggingface_hub`` instead (:mod:`lm_eval_enterprise.data.hub`).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
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


def from_route(dataset: str) -> str:
    """The route when a download cannot work: import a file or folder obtained elsewhere (:func:`~lm_eval_enterprise
    .data.locate.import_from`), checked exactly like a download."""
    return f"obtain the files elsewhere and run `lm-eval-enterprise prepare --dataset {dataset} --from PATH`"


def manual_hint(dataset: str, path: str = "") -> str:
    """How to supply the files by hand after a failed download: ``prepare --from`` (:func:`from_route`), or into the
    data root when one is set (never "set the variable" when it is already set), else by pointing
    ``$LM_EVAL_ENTERPRISE_DATA`` at a folder."""
    root = os.environ.get(ENV_DATA)
    if root and root != EMBEDDED:
        return f"{from_route(dataset)}, or put them into {Path(root).expanduser() / dataset}/{path}"
    return f"{from_route(dataset)}, or point ${ENV_DATA} (or --data_root) at a folder holding {dataset}/{path}"


def exc_line(exc: BaseException) -> str:
    """``Type: first line of the message`` (DataError messages stay one line)."""
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text.splitlines()[0]}" if text else type(exc).__name__


# ------------------------------------------------------------------------------------------------ why a download failed
_DNS_WORDS = (
    "name or service not known",
    "temporary failure in name resolution",
    "nodename nor servname",
    "getaddrinfo failed",
    "no address associated with hostname",
    "nameresolutionerror",
    "failed to resolve",
)


def _chain(exc: BaseException) -> list[BaseException]:
    """``exc`` and the exceptions it wraps (``__cause__``/``__context__``, ``URLError.reason``), outermost first."""
    out: list[BaseException] = []
    todo: list[BaseException | None] = [exc]
    while todo:
        e = todo.pop(0)
        if e is None or any(e is seen for seen in out):
            continue
        out.append(e)
        reason = getattr(e, "reason", None)
        todo += [reason if isinstance(reason, BaseException) else None, e.__cause__, e.__context__]
    return out


def _http_status(exc: BaseException) -> int | None:
    """The HTTP status of an ``urllib`` ``HTTPError`` (``code``) or a ``requests``/``huggingface_hub`` error
    (``response.status_code``)."""
    code = getattr(exc, "code", None)
    if isinstance(code, int) and 100 <= code < 600:
        return code
    status = getattr(getattr(exc, "response", None), "status_code", None)
    return status if isinstance(status, int) else None


_STATUS_REASONS = {
    401: "HTTP 401: the server wants a login (a token)",
    403: "HTTP 403: access refused (a login, accepted terms or permission is needed)",
    404: "HTTP 404: the file or repository is missing at that address",
    429: "HTTP 429: too many requests (rate limited); try again later",
}


def _hub_reason(exc: BaseException, repo_id: str | None) -> str | None:
    """The reason of a ``huggingface_hub`` error class (by name: gated is a kind of not-found there)."""
    names = {c.__name__ for c in type(exc).__mro__}
    page = f"https://huggingface.co/datasets/{repo_id}" if repo_id else "the repository's hub page"
    if "GatedRepoError" in names:
        return (
            f"gated repository: accept its terms on {page} while logged in, then log in here with a token "
            "(`hf auth login` or $HF_TOKEN)"
        )
    if "RepositoryNotFoundError" in names:
        return "repository not found, or private and no valid token was sent (HTTP 401/404)"
    if "RevisionNotFoundError" in names:
        return "the pinned revision is not in the repository"
    if "LocalEntryNotFoundError" in names:
        return "the hub could not be reached and the file is not in the local hub cache"
    if "EntryNotFoundError" in names:
        return "missing file: the repository has no such file at that revision (HTTP 404)"
    if "OfflineModeIsEnabled" in names:
        return "huggingface_hub is in offline mode (HF_HUB_OFFLINE)"
    return None


def _network_reason(chain: list[BaseException]) -> str | None:
    """DNS failure, timeout or no connection, when one of the exceptions says so (class or wording)."""
    import socket

    texts = " ".join(f"{type(e).__name__} {e}" for e in chain).lower()
    if any(isinstance(e, socket.gaierror) for e in chain) or any(w in texts for w in _DNS_WORDS):
        return "unreachable host: DNS failure (the host name does not resolve)"
    if any(isinstance(e, (TimeoutError, socket.timeout)) for e in chain) or "timed out" in texts:
        return "unreachable host: the connection timed out"
    if any(isinstance(e, ConnectionError) for e in chain) or "connection" in texts:
        return "unreachable host: no connection"
    return None


def _status_reason(chain: list[BaseException]) -> str | None:
    """The reason of an HTTP status carried by an exception (``code`` / ``response.status_code``) or written in its
    message the way ``requests`` words it (``404 Client Error: ...``)."""
    status = next((s for s in map(_http_status, chain) if s is not None), None)
    if status is None:
        said = re.search(r"\b([45]\d\d) (?:client|server) error", " ".join(str(e) for e in chain).lower())
        status = int(said.group(1)) if said else None
    if status is None:
        return None
    return _STATUS_REASONS.get(status, f"HTTP {status}: the server refused or failed the request")


def failure_reason(exc: BaseException, repo_id: str | None = None) -> str:
    """Why a download failed, in words a user can act on, from the real exception classes of ``huggingface_hub``,
    ``requests`` and ``urllib`` (walking the exceptions they wrap): gated repository (token + accepted terms),
    repository / revision / file not found, unreachable host (DNS failure, refused or timed-out connection), HTTP
    401/403/404/429/5xx. ``repo_id``: the hub repository (names its page in the gated message). A hub that could not
    be reached (``LocalEntryNotFoundError``) is reported by its network cause when the wrapped exceptions name one."""
    chain = _chain(exc)
    hub = next((r for r in (_hub_reason(e, repo_id) for e in chain) if r), None)
    if hub and hub.startswith("the hub could not be reached"):
        return _network_reason(chain[1:]) or hub
    if hub:
        return hub
    reason = _status_reason(chain) or _network_reason(chain)
    if reason:
        return reason
    return "missing file" if any(isinstance(e, FileNotFoundError) for e in chain) else "unexpected error"


def download_failure(
    dataset: str, where: str, exc: BaseException, *, repo_id: str | None = None, path: str = "", note: str = ""
) -> DataError:
    """The one :class:`DataError` line of a failed download: the dataset, where, :func:`failure_reason`, the
    exception's own first line, ``note`` (a known fact about this source, e.g. a host gone for good) and the
    ``prepare --from`` route (:func:`manual_hint`)."""
    known = f"; {note}" if note else ""
    return DataError(
        dataset,
        where,
        f"download failed: {failure_reason(exc, repo_id)} ({exc_line(exc)}){known}; {manual_hint(dataset, path)}",
    )


def download_url(
    url: str, dest: Path, dataset: str, sha256: str | None = None, progress: bool = True, note: str = ""
) -> Path:
    """Fetch ``url`` to ``dest`` atomically with a progress bar; verify ``sha256`` when given. A failure is one
    :func:`download_failure` line (``note``: a known fact about the source, added to it)."""
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
        raise download_failure(dataset, url, exc, note=note) from exc
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
    except OSError as exc:
        raise download_failure(dataset, url.split("?")[0], exc, note=hint) from exc
    except ValueError as exc:
        raise DataError(
            dataset,
            url,
            f"cannot read {url.split('?')[0].rsplit('/', 1)[-1] or 'the response'} "
            f"({exc}){'; ' + hint if hint else ''}",
        ) from exc
