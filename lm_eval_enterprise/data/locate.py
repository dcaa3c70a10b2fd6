"""Where a dataset's files are, and getting them there (:func:`prepare`).

Search order of :func:`resolve_data_dir`: an explicit ``data_root`` (``--metadata '{"data_root": DIR}'``,
``lm-eval-enterprise run --data_root DIR``) or ``$LM_EVAL_ENTERPRISE_DATA`` → ``DIR/<id>/`` (``embedded`` → the
dataset's ``fixture/`` folder, with a warning that it is toy data); else the cache ``$LM_EVAL_ENTERPRISE_CACHE``
→ ``<cache>/<id>/``, filled by ``lm-eval-enterprise prepare`` or on first use; offline with nothing there → one
:class:`DataError` line saying how to provide the files.

A data folder holds either the **source layout** (the files exactly as published) or the **pre-split layout**
(:data:`PRESPLIT_FILES` of source rows already split).

When a download cannot work (host gone, gated repository, no internet), :func:`import_from`
(``lm-eval-enterprise prepare --dataset ID --from PATH``) copies a file or folder obtained elsewhere into the
same place a download would fill and checks it exactly like a download; what was imported (origin, files with
their sha256, rows per split) is recorded in :data:`IMPORT_RECORD` beside the data.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import DataError, warn_once
from .checks import DataReport
from .config import EMBEDDED, ENV_DATA, cache_root, is_offline, offline_flags
from .fixtures import fixture_dir
from .folder import PRESPLIT_FILES, convert_folder, inspect_folder
from .source import Source

log = logging.getLogger("lm_eval_enterprise.data")

COMPLETE_MARKER = ".complete"  # written into a cache folder once its download was converted and checked
IMPORT_RECORD = ".imported.json"  # written by import_from: origin, sha256 of every file, rows per split, checks
_prepare_lock = threading.Lock()


def data_folder(dataset: str, root: str | os.PathLike) -> Path:
    """``root/<id>/``, or the dataset's ``fixture/`` folder for the data root ``embedded``."""
    if str(root) == EMBEDDED:
        return fixture_dir(dataset)
    return Path(root).expanduser() / dataset


def resolve_data_dir(
    src: Source, data_root: str | os.PathLike | None = None, download: bool = True, progress: bool = True
) -> Path:
    """Folder with this dataset's files (search order in the module docstring)."""
    root = data_root or os.environ.get(ENV_DATA)
    if root and str(root) == EMBEDDED:
        warn_once(
            log,
            "[%s] using the embedded fixture data (a few synthetic rows for demos and tests, not the benchmark)",
            src.id,
        )
    if root:
        d = data_folder(src.id, root)
        if not d.is_dir():
            raise DataError(
                src.id,
                d,
                f"data root {root} has no folder '{src.id}/'; put the source files "
                f"{[f.name for f in src.files]} (or train/test.jsonl) there",
            )
        return d
    d = cache_root() / src.id
    if (d / COMPLETE_MARKER).exists():
        return d
    if not download or is_offline():
        raise DataError(
            src.id,
            d,
            "not in the cache and downloads are off (offline); run `lm-eval-enterprise "
            f"prepare --dataset {src.id}` with internet, or `prepare --dataset {src.id} --from PATH` with files "
            f"obtained elsewhere, or set ${ENV_DATA}=DIR with DIR/{src.id}/ "
            f'holding {[f.name for f in src.files]}, or pass --metadata \'{{"data_root": "DIR"}}\'',
        )
    return prepare(src, progress=progress)


def data_hint(src: Source, d: Path) -> str:
    """How to provide a dataset by hand (messages)."""
    return (
        f"put the source files {[f.name for f in src.files]} (or pre-split "
        f"{'/'.join(sorted(PRESPLIT_FILES.values()))}) into {d}"
    )


def has_data(src: Source, d: Path) -> bool:
    """``d`` holds the source layout or at least one pre-split file."""
    return d.is_dir() and (src.has_source_layout(d) or any((d / f).exists() for f in PRESPLIT_FILES.values()))


def prepare(
    src: Source,
    progress: bool = True,
    force: bool = False,
    data_root: str | os.PathLike | None = None,
) -> Path:
    """Make ``src`` ready to load, and check it (conversion, counts, gold labels); returns its folder.

    * With a data root (``data_root``, else ``$LM_EVAL_ENTERPRISE_DATA``): ``<root>/<id>/`` already holding data
      is loaded and checked, never downloaded again (``force``: download and replace it); a missing or empty
      folder is downloaded into. ``embedded``: the fixture folder is checked.
    * Without one: the cache (``$LM_EVAL_ENTERPRISE_CACHE``), filled once (``force``: again).
    * Offline (``HF_DATASETS_OFFLINE``/``HF_HUB_OFFLINE``/``LM_EVAL_ENTERPRISE_OFFLINE``): nothing is ever
      downloaded; a dataset without data is one :class:`DataError` line saying where to put the files.

    A download goes to a temp folder next to the target, is converted and checked there, then renamed into place,
    so a failure never leaves a half-written folder or replaces a good one. The check's conversion of a folder in
    place is kept in the converted-split cache, so the first run after ``prepare`` does not convert again.
    """
    root = data_root or os.environ.get(ENV_DATA)
    if root and str(root) == EMBEDDED:
        d = resolve_data_dir(src, EMBEDDED)
        convert_folder(src, d)
        return d
    if root:
        d = Path(root).expanduser() / src.id
        if has_data(src, d) and not force:
            convert_folder(src, d)
            return d
        if d.is_dir() and any(d.iterdir()) and not force:
            raise DataError(
                src.id,
                d,
                f"the folder holds neither the source files nor pre-split files; "
                f"{data_hint(src, d)}, or pass --force to download into it",
            )
    else:
        d = cache_root() / src.id
        if (d / COMPLETE_MARKER).exists() and not force:
            return d
    if is_offline():
        flags = ", ".join(offline_flags())
        raise DataError(
            src.id,
            d,
            f"offline ({flags}): nothing is downloaded; {data_hint(src, d)}, or import them with "
            f"`lm-eval-enterprise prepare --dataset {src.id} --from PATH`, or unset {flags} to download",
        )
    with _prepare_lock:
        if not force and ((d / COMPLETE_MARKER).exists() or (root and has_data(src, d))):
            return d  # another thread finished it meanwhile
        with _staged(src, d) as tmp:
            src.download(tmp, progress=progress)
            _check_staged(src, tmp)
    return d


@contextmanager
def _staged(src: Source, d: Path) -> Iterator[Path]:
    """A temp folder next to ``d`` to fill and check; renamed to ``d`` (replacing it) when the block succeeds,
    removed in every case, so a failure never leaves a half-written folder or replaces a good one."""
    d.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{src.id}-", dir=d.parent))
    try:
        yield tmp
        if d.exists():
            shutil.rmtree(d)
        tmp.rename(d)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


def _check_staged(src: Source, tmp: Path) -> tuple[dict[str, list[dict]], DataReport]:
    """Every load-time check on a filled temp folder (as on any load), then the :data:`COMPLETE_MARKER`."""
    splits, report = inspect_folder(src, tmp)
    (tmp / COMPLETE_MARKER).write_text(json.dumps({k: len(v) for k, v in splits.items()}))
    return splits, report


def _target(src: Source, data_root: str | os.PathLike | None) -> tuple[Path, bool]:
    """Where a download or an import of ``src`` goes: ``(<root>/<id>, True)`` with a data root, else
    ``(<cache>/<id>, False)``."""
    root = data_root or os.environ.get(ENV_DATA)
    if root and str(root) == EMBEDDED:
        raise DataError(
            src.id, fixture_dir(src.id), "cannot import into the embedded fixture data; unset the data root"
        )
    if root:
        return Path(root).expanduser() / src.id, True
    return cache_root() / src.id, False


def _relocated(exc: DataError, tmp: Path, origin: Path) -> DataError:
    """The check's error with the temporary folder's path replaced by the user's own file or folder."""

    def fix(text: str | None) -> str | None:
        if not text:
            return text
        if origin.is_file():
            text = text.replace(str(tmp / origin.name), str(origin))
        return text.replace(str(tmp), str(origin))

    return DataError(exc.dataset, fix(exc.where), fix(exc.problem) or "")


def import_from(
    src: Source, origin: str | os.PathLike, force: bool = False, data_root: str | os.PathLike | None = None
) -> Path:
    """``prepare --dataset ID --from PATH``: import a file (e.g. the comments zip) or a folder (its files, in the
    source or pre-split layout) obtained elsewhere into the folder a download fills — ``<root>/<id>/`` with a data
    root, else the cache — and check it exactly like a download (layout, columns, counts, gold labels, UTF-8;
    :func:`~lm_eval_enterprise.data.folder.inspect_folder`). The copy is checked in a temp folder next to the
    target and renamed into place only when it passes, so a rejected import leaves nothing behind; errors name
    the user's own ``PATH``. The origin, the sha256 of every imported file and the rows per split are written to
    :data:`IMPORT_RECORD`. A target folder already holding files (a checked download, in the cache) is replaced only with ``force``."""
    origin = Path(origin).expanduser()
    if not origin.exists():
        raise DataError(src.id, origin, "no such file or folder to import (--from)")
    d, in_root = _target(src, data_root)
    held = (d.is_dir() and any(d.iterdir())) if in_root else (d / COMPLETE_MARKER).exists()
    if held and not force:  # never delete a user's files (or a checked download) unasked
        raise DataError(src.id, d, "already holds files of this dataset; pass --force to replace them with the import")
    with _prepare_lock, _staged(src, d) as tmp:
        if origin.is_dir():
            shutil.copytree(origin, tmp, dirs_exist_ok=True, ignore=shutil.ignore_patterns(COMPLETE_MARKER))
        else:
            shutil.copy2(origin, tmp / origin.name)
        try:
            splits, report = _check_staged(src, tmp)
        except DataError as exc:
            raise _relocated(exc, tmp, origin) from exc
        record = {
            "dataset": src.id,
            "from": str(origin.resolve()),
            "layout": report.layout,
            "files": report.files,
            "sha256": report.sha256,
            "rows": {k: len(v) for k, v in splits.items()},
            "checks": {c.key: c.to_json() for c in report.checks},
        }
        (tmp / IMPORT_RECORD).write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return d
