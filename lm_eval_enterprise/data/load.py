"""Serving a dataset to lm-eval: :func:`load_task_dataset`, the ``custom_dataset`` hook of every task YAML.

:func:`load_checked` = the data folder (:mod:`~lm_eval_enterprise.data.locate`) → converted and checked splits
(:mod:`~lm_eval_enterprise.data.folder`, through the on-disk cache) → one subtask → [LEAK] removal of evaluation
items equal to a pool item (:mod:`lm_eval_enterprise.leakage`) → the fields of the task type
(:meth:`Source.finalize`) → the [BAL]-ordered ``fewshot`` split (:mod:`lm_eval_enterprise.fewshot`). Conversions
and ``datasets`` objects are also cached in memory per process, so the five-plus template variants of a dataset
share one load.
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..errors import DataError
from ..fewshot import helm_balanced
from ..leakage import drop_fewshot_duplicates
from .checks import DataReport
from .folder import convert_folder
from .locate import resolve_data_dir
from .tasktree import get_source

FEWSHOT_POOL_MAX = 256  # length of the [BAL]-ordered fewshot split (any --num_fewshot up to this is exact)


@lru_cache(maxsize=64)
def _converted(dataset: str, data_dir: str, mtime: float) -> tuple[dict[str, list[dict]], DataReport]:
    return convert_folder(get_source(dataset), Path(data_dir))


def _dir_mtime(d: Path) -> float:
    return max([d.stat().st_mtime] + [p.stat().st_mtime for p in d.iterdir()])


def load_checked(
    dataset: str, subtask: str | None = None, data_root: str | None = None, download: bool = True
) -> tuple[dict[str, list[dict]], DataReport]:
    """:func:`load_records` plus the :class:`DataReport` of the data folder (counts, hashes, eval split)."""
    out, report, _ = _load(dataset, subtask, data_root, download)
    return out, report


def _load(
    dataset: str, subtask: str | None, data_root: str | None, download: bool
) -> tuple[dict[str, list[dict]], DataReport, dict[str, Any]]:
    """:func:`load_checked` plus the facts of the [LEAK] few-shot de-duplication (:mod:`lm_eval_enterprise.leakage`)."""
    src = get_source(dataset)
    d = resolve_data_dir(src, data_root, download=download)
    converted, report = _converted(dataset, str(d), _dir_mtime(d))
    splits = src.select(converted, subtask)
    eval_split = report.eval_split
    splits, dedup_facts = drop_fewshot_duplicates(src, splits, d, eval_split)  # [LEAK]
    if eval_split not in splits or not splits[eval_split]:
        raise DataError(dataset, d, f"evaluation split '{eval_split}' is empty or missing")
    out = {name: [src.finalize(r) for r in recs] for name, recs in splits.items()}
    if src.eval_fallback:
        out["eval"] = out[eval_split]  # the split the task YAML reads (test_split: eval)
    pool = out.get(src.fewshot_source_split, [])
    if not pool:
        raise DataError(dataset, d, f"few-shot pool split '{src.fewshot_source_split}' is empty or missing")
    ordered = (
        pool[:FEWSHOT_POOL_MAX]
        if src.fewshot_preordered
        else helm_balanced(pool, src.fewshot_key, min(len(pool), FEWSHOT_POOL_MAX))
    )
    out["fewshot"] = [src.fewshot_transform(r) for r in ordered]
    return out, report, dedup_facts


def load_records(
    dataset: str, subtask: str | None = None, data_root: str | None = None, download: bool = True
) -> dict[str, list[dict]]:
    """All splits of a dataset (one subtask) as lists of records, plus the [BAL]-ordered ``fewshot`` split (and
    ``eval``, the evaluated split, for a Source with an ``eval_fallback``)."""
    return load_checked(dataset, subtask, data_root, download)[0]


@lru_cache(maxsize=256)
def _dataset_dict(dataset: str, subtask: str | None, data_root: str | None) -> tuple[Any, dict[str, Any]]:
    """(``datasets.DatasetDict``, the data facts for the task metadata), cached per process: the data report
    (counts, verified?, sha256 of every file, eval split) + [LEAK] facts + the Source's own facts."""
    import datasets

    recs, report, dedup_facts = _load(dataset, subtask, data_root, True)
    facts = {**report.metadata(), **dedup_facts, **get_source(dataset).task_metadata(recs)}
    return datasets.DatasetDict({k: _from_records(v) for k, v in recs.items()}), facts


def _from_records(records: list[dict]):
    """``datasets.Dataset.from_list(records)`` with a content fingerprint (sha256 of the records' JSON) passed to
    ``datasets.Dataset(table, fingerprint=...)`` instead of ``datasets``' dill hash of the whole Arrow table, which
    costs ~5x the conversion itself. The fingerprint only names the in-memory dataset (cache keys of ``.map``); it
    still changes whenever the content changes. Columns and types: those of the first record's keys, inferred by
    Arrow, as ``from_list`` does (``tests/test_data_layer.py`` checks both give the same dataset)."""
    import datasets
    import pyarrow as pa

    digest = hashlib.sha256(json.dumps(records, sort_keys=True, default=str).encode()).hexdigest()[:16]
    return datasets.Dataset(pa.Table.from_pylist(records), fingerprint=digest)


def _dataset_key(dataset_id: str | None, subtask_id: str | None, data_root: str | None) -> tuple:
    return dataset_id, subtask_id or None, str(data_root) if data_root else None


def load_task_dataset(
    dataset_id: str | None = None, subtask_id: str | None = None, data_root: str | None = None, **_metadata: Any
):
    """``custom_dataset`` hook of every task YAML: ``dataset_kwargs: {dataset_id: <id>, subtask_id: <name>}``.

    lm-eval calls it as ``loader(**metadata, **dataset_kwargs)`` (so these keys must differ from the metadata
    keys ``dataset``/``subtask``); ``data_root`` may come from ``--metadata``.
    Returns a ``datasets.DatasetDict`` with the dataset's splits and ``fewshot``. Cached per process, so the
    five-plus template variants of a dataset share one conversion. :func:`load_task_data` returns the data facts
    with it.
    """
    return load_task_data(dataset_id, subtask_id, data_root)[0]


def load_task_data(
    dataset_id: str | None = None, subtask_id: str | None = None, data_root: str | None = None, **_metadata: Any
) -> tuple[Any, dict[str, Any]]:
    """:func:`load_task_dataset` (same arguments) and the facts computed from the data for the task metadata (the
    data report, the [LEAK] facts and :meth:`Source.task_metadata`, a fresh dict). The task class
    (:class:`lm_eval_enterprise.task.EnterpriseTask`) merges them into the task's metadata right after loading, so
    they reach ``results["configs"][task]["metadata"]``."""
    if not dataset_id:
        raise DataError("?", None, "task YAML has no dataset_kwargs.dataset_id")
    dataset_dict, facts = _dataset_dict(*_dataset_key(dataset_id, subtask_id, data_root))
    return dataset_dict, dict(facts)


def clear_caches() -> None:
    """Forget the in-process caches (conversions, ``datasets`` objects, metadata); the on-disk cache stays."""
    _converted.cache_clear()
    _dataset_dict.cache_clear()
