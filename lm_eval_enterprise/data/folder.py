"""One data folder → converted, checked splits and its :class:`~lm_eval_enterprise.data.checks.DataReport`.

:func:`inspect_folder` converts a folder in either layout with its Source and runs every shared check;
:func:`convert_folder` does the same through the on-disk converted-split cache
(:mod:`lm_eval_enterprise.data.diskcache`), so a large source is converted once, not on every lm-eval start.
"""

from __future__ import annotations

import logging
from pathlib import Path

from ..errors import DataError
from . import diskcache
from .checks import SAMPLE_NOTE, DataReport, check_gold, collecting, declared_copy, folder_hashes, utf8_error
from .fixtures import is_fixture_dir
from .readers import read_jsonl_lines
from .source import Source

log = logging.getLogger("lm_eval_enterprise.data")

PRESPLIT_FILES = {"train": "train.jsonl", "valid": "valid.jsonl", "test": "test.jsonl"}


def inspect_folder(src: Source, d: Path, defer_errors: bool = False) -> tuple[dict[str, list[dict]], DataReport]:
    """Convert one data folder (source or pre-split layout) and run every shared check of
    :mod:`lm_eval_enterprise.data.checks`: counts against the declarations (or the folder's ``MANIFEST.json``; a
    ``SOURCE.md`` folder is a partial copy), gold labels of every record, UTF-8 text, sha256 of every file.

    Returns the converted splits (an unlabelled eval split replaced by the Source's ``eval_fallback``) and the
    :class:`DataReport`. Problems raise one :class:`DataError` line; ``defer_errors`` (``verify``) records count
    errors in the report instead, so that every count is shown.
    """
    declared = declared_copy(d)
    with collecting(partial=declared == SAMPLE_NOTE, defer_errors=defer_errors) as col:
        try:
            if src.has_source_layout(d):
                layout = "source files"
                splits = src.convert(d)
                src.check_rows(splits, d)

                def locate(split: str, i: int) -> str:
                    return f"{d} [split '{split}', record {i}]"
            else:
                layout = "pre-split"
                present = {s: d / f for s, f in PRESPLIT_FILES.items() if (d / f).exists()}
                if not present:
                    raise DataError(
                        src.id,
                        d,
                        f"no data files: expected the source files "
                        f"{[f.name for f in src.files]} or pre-split {sorted(PRESPLIT_FILES.values())}",
                    )
                rows, lines = {}, {}
                for s, path in present.items():
                    rows[s], lines[s] = read_jsonl_lines(path, src.id)
                splits = src.convert_presplit(rows, d)
                src.check_rows(splits, d, provided=present)

                def locate(split: str, i: int) -> str:  # exact line when the rows map 1:1 onto the records
                    if split not in present:
                        return f"{d} [split '{split}', record {i}]"
                    if len(splits[split]) == len(lines[split]):
                        return f"{present[split]}:{lines[split][i]}"
                    return f"{present[split]} [record {i}]"
        except UnicodeDecodeError as exc:
            raise utf8_error(src.id, d, exc) from exc
        served, eval_split, note = check_gold(src, splits, locate, d)
    report = DataReport(
        src.id,
        d,
        layout,
        declared,
        list(col.checks),
        folder_hashes(d),
        eval_split,
        note,
        list(col.errors),
        toy_data=is_fixture_dir(d),
    )
    if report.partial_note:
        log.warning("[%s] %s: %s", src.id, d, report.partial_note)
    for split, recs in served.items():
        log.info("[%s] %s: %d records from %s", src.id, split, len(recs), d)
    return served, report


def convert_folder(src: Source, d: Path) -> tuple[dict[str, list[dict]], DataReport]:
    """:func:`inspect_folder` with the on-disk cache of converted splits: the entry is keyed by the sha256 of every
    file of the folder, the folder's path and the loader code version (:func:`diskcache.entry_path`); a hit skips
    the conversion and repeats the report's warnings. Problems are never cached (they raise)."""
    if not diskcache.enabled():
        return inspect_folder(src, d)
    path = diskcache.entry_path(src.id, d, folder_hashes(d))
    cached = diskcache.load(path)
    if cached is not None:
        served, report = cached
        for message in report.messages:
            log.warning("[%s] %s: %s", src.id, d, message)
        log.info("[%s] converted splits of %s read from %s", src.id, d, path)
        return served, report
    served, report = inspect_folder(src, d)
    diskcache.store(path, (served, report))
    return served, report
