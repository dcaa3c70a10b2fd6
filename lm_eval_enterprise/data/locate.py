"""Where a dataset's files are, and getting them there (:func:`prepare`).

Search order of :func:`resolve_data_dir`: an explicit ``data_root`` (``--metadata '{"data_root": DIR}'``,
``lm-eval-enterprise run --data_root DIR``) or ``$LM_EVAL_ENTERPRISE_DATA`` → ``DIR/<id>/`` (``embedded`` → the
dataset's ``fixture/`` folder, with a warning that it is toy data); else the cache ``$LM_EVAL_ENTERPRISE_CACHE``
→ ``<cache>/<id>/``, filled by ``lm-eval-enterprise prepare`` or on first use; offline with nothing there → one
:class:`DataError` line saying how to provide the files.

A data folder holds either the **source layout** (the files exactly as published) or the **pre-split layout**
(:data:`PRESPLIT_FILES` of source rows already split).
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile
import threading
from pathlib import Path

from ..errors import DataError, warn_once
from .config import EMBEDDED, ENV_DATA, cache_root, is_offline, offline_flags
from .fixtures import fixture_dir
from .folder import PRESPLIT_FILES, convert_folder, inspect_folder
from .source import Source

log = logging.getLogger("lm_eval_enterprise.data")

COMPLETE_MARKER = ".complete"  # written into a cache folder once its download was converted and checked
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
            f"prepare --dataset {src.id}` with internet, or set ${ENV_DATA}=DIR with DIR/{src.id}/ "
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
            src.id, d, f"offline ({flags}): nothing is downloaded; {data_hint(src, d)}, or unset {flags} to download"
        )
    with _prepare_lock:
        if not force and ((d / COMPLETE_MARKER).exists() or (root and has_data(src, d))):
            return d  # another thread finished it meanwhile
        d.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{src.id}-", dir=d.parent))
        try:
            src.download(tmp, progress=progress)
            splits, _ = inspect_folder(src, tmp)
            (tmp / COMPLETE_MARKER).write_text(json.dumps({k: len(v) for k, v in splits.items()}))
            if d.exists():
                shutil.rmtree(d)
            tmp.rename(d)
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)
    return d
