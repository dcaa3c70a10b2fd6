"""Serving a dataset to lm-eval: :func:`load_task_dataset`, the ``custom_dataset`` hook of every task YAML.

:func:`load_checked` = the data folder (:mod:`~lm_eval_enterprise.data.locate`) → converted and checked splits
(:mod:`~lm_eval_enterprise.data.folder`, through the on-disk cache) → one subtask → [LEAK] removal of evaluation
items equal to a pool item (:mod:`lm_eval_enterprise.data.leakage`) → the fields of the task type
(:meth:`Source.finalize`) → the [BAL]-ordered ``fewshot`` split (:mod:`lm_eval_enterprise.data.fewshot`) → the
evaluated split in its seeded fair order (:mod:`lm_eval_enterprise.data.order`: every prefix a fair sample for
``--limit``; stratified by gold label where there is one, a ranking query's candidates kept together). Conversions
and ``datasets`` objects are also cached in memory per process, so the five-plus template variants of a dataset
share one load.
"""

from __future__ import annotations

import hashlib
import json
import logging
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..configkeys import QUESTION_FIELD
from ..errors import DataError, forget_warnings, warn_once
from .checks import DataReport, repeated_ids, require_splits
from .fewshot import helm_balanced
from .folder import convert_folder
from .leakage import drop_fewshot_duplicates
from .locate import resolve_data_dir
from .order import EVAL_ORDER_SEED, fair_order, forget_notices, order_metadata
from .tasktree import get_source

log = logging.getLogger("lm_eval_enterprise.data")

FEWSHOT_POOL_MAX = 256  # length of the [BAL]-ordered fewshot split (any --num_fewshot up to this is exact)


@lru_cache(maxsize=64)
def _converted(dataset: str, data_dir: str, mtime: float) -> tuple[dict[str, list[dict]], DataReport]:
    return convert_folder(get_source(dataset), Path(data_dir))


def _dir_mtime(d: Path) -> float:
    return max([d.stat().st_mtime] + [p.stat().st_mtime for p in d.iterdir()])


def load_checked(
    dataset: str, subtask: str | None = None, data_root: str | None = None, download: bool = True
) -> tuple[dict[str, list[dict]], DataReport]:
    """:func:`load_records` plus the :class:`DataReport` of the data folder (counts, hashes, eval split).
    A dataset made of subtasks (questions) without ``subtask``: every question, see :func:`_all_questions`."""
    out, report, _ = _load(dataset, subtask, data_root, download)
    return out, report


def _load(
    dataset: str, subtask: str | None, data_root: str | None, download: bool
) -> tuple[dict[str, list[dict]], DataReport, dict[str, Any]]:
    """:func:`load_checked` plus the facts of the loading for the task metadata: those of the [LEAK] few-shot
    de-duplication (:mod:`lm_eval_enterprise.data.leakage`), then the evaluation order's (:mod:`.order`)."""
    src = get_source(dataset)
    if src.subtasks and not subtask:
        return _all_questions(src, data_root, download)
    d = resolve_data_dir(src, data_root, download=download)
    converted, report = _converted(dataset, str(d), _dir_mtime(d))
    splits = src.select(converted, subtask)
    eval_split = report.eval_split
    splits, dedup_facts = drop_fewshot_duplicates(src, splits, d, eval_split)  # [LEAK]
    require_splits(src, d, splits, eval_split)  # per subtask, after the few-shot de-duplication
    out = {name: [src.finalize(r) for r in recs] for name, recs in splits.items()}
    if src.eval_fallback:
        out["eval"] = out[eval_split]  # the split the task YAML reads (test_split: eval)
    pool = out.get(src.fewshot_source_split, [])  # absent only for a Source with fewshot_optional
    ordered = (
        pool[:FEWSHOT_POOL_MAX]
        if src.fewshot_preordered
        else helm_balanced(pool, src.fewshot_key, min(len(pool), FEWSHOT_POOL_MAX))
    )
    out["fewshot"] = [src.fewshot_transform(r) for r in ordered]
    # the evaluated split in its seeded fair order (after the pool is taken: the shots never depend on it)
    out[eval_split], order_facts = _fair_eval_order(src, out[eval_split])
    if src.eval_fallback:
        out["eval"] = out[eval_split]
    return out, report, {**dedup_facts, **order_facts}


def _all_questions(
    src, data_root: str | None, download: bool
) -> tuple[dict[str, list[dict]], DataReport, dict[str, Any]]:
    """The splits of a dataset made of questions (``Source.subtasks``, e.g. gold_news' nine yes/no questions) as
    ONE task's documents: one document per (item, question), each question's records loaded exactly as for that
    question alone (:func:`_load` with the subtask: [LEAK], fields, [BAL]-ordered shots, fair order); with the
    loading facts of :func:`_load` for the task (:func:`_merged_facts`).

    * evaluation and other splits: the documents of item 1 (one per question, in ``Source.subtasks`` order), then
      item 2, …, items in the order of the question's own split (any order the data layer gives the records
      applies to all questions alike); ``id`` = ``<item id>/<question>``, ``question_id`` = the question
      (:data:`lm_eval_enterprise.configkeys.QUESTION_FIELD`);
    * ``fewshot``: each question's [BAL]-ordered pool, question after question, each record with its
      ``question_id``; the task draws a document's shots from its own question's pool
      (:class:`lm_eval_enterprise.harness.task.EnterpriseTask`), so every prompt is the one the question alone gives.

    Questions this copy of the data has no labels for (``Source.subtasks_present``) are left out with one warning
    and listed in the task metadata (``questions_missing``); none present is an error."""
    d = resolve_data_dir(src, data_root, download=download)
    converted, report = _converted(src.id, str(d), _dir_mtime(d))
    present = [q for q in src.subtasks if q in set(src.subtasks_present(converted))]
    missing = [q for q in src.subtasks if q not in present]
    if not present:
        raise DataError(src.id, d, f"no labels for any of its questions {list(src.subtasks)}")
    facts: dict[str, Any] = {"questions": present}
    if missing:
        warn_once(
            log,
            "[%s] %s: this copy of the data has no labels for the questions %s; the task evaluates the other %d "
            "(metadata questions_missing)",
            src.id,
            d,
            ", ".join(missing),
            len(present),
        )
        facts["questions_missing"] = missing
    loads = {q: _load(src.id, q, data_root, download) for q in present}
    parts = {q: loads[q][0] for q in present}
    out: dict[str, list[dict]] = {}
    for split in parts[present[0]]:
        tagged = {q: [{**r, QUESTION_FIELD: q} for r in parts[q].get(split, [])] for q in present}
        if split == "fewshot":
            out[split] = [r for q in present for r in tagged[q]]
            continue
        rank: dict[str, int] = {}
        for q in present:
            for r in tagged[q]:
                rank.setdefault(r["id"], len(rank))
        docs = sorted((r for q in present for r in tagged[q]), key=lambda r: rank[r["id"]])  # stable: question order
        out[split] = [{**r, "id": f"{r['id']}/{r[QUESTION_FIELD]}"} for r in docs]
    return out, report, {**_merged_facts([loads[q][2] for q in present]), **facts}


def _merged_facts(per: list[dict[str, Any]]) -> dict[str, Any]:
    """The loading facts of the questions' loads as one task's: the [LEAK] counts summed, the rest from the first
    question (its ``eval_order`` included: every question's split is in the one headline order, the Source's
    shared key, so the first question's order facts are the task's)."""
    out = dict(per[0])
    for k, v in per[0].items():
        if isinstance(v, int) and not isinstance(v, bool):
            out[k] = sum(int(p.get(k, 0)) for p in per)
    return out


def _fair_eval_order(src, records: list[dict]) -> tuple[list[dict], dict]:
    """:func:`~lm_eval_enterprise.data.order.fair_order` of one evaluation split with the Source's stratum and
    unit keys, and the ``eval_order`` metadata (seed, method) every task of the dataset records."""
    ordered, method = fair_order(records, stratum=src.eval_stratum, group=src.eval_group, seed=EVAL_ORDER_SEED)
    return ordered, order_metadata(method, EVAL_ORDER_SEED, unit=src.eval_unit)


def load_records(
    dataset: str, subtask: str | None = None, data_root: str | None = None, download: bool = True
) -> dict[str, list[dict]]:
    """All splits of a dataset (one subtask) as lists of records, plus the [BAL]-ordered ``fewshot`` split (and
    ``eval``, the evaluated split, for a Source with an ``eval_fallback``)."""
    return load_checked(dataset, subtask, data_root, download)[0]


@lru_cache(maxsize=256)
def _dataset_dict(dataset: str, subtask: str | None, data_root: str | None) -> tuple[Any, dict[str, Any]]:
    """(``datasets.DatasetDict``, the data facts for the task metadata), cached per process: the data report
    (counts, verified?, sha256 of every file, eval split) + [LEAK] facts + the evaluation order + the Source's own
    facts + the repeated record ids (:func:`~.checks.repeated_ids`)."""
    import datasets

    recs, report, load_facts = _load(dataset, subtask, data_root, True)
    src = get_source(dataset)
    facts = {
        **report.metadata(),
        **load_facts,
        **src.task_metadata(recs),
        **repeated_ids(dataset, recs, getattr(src, "repeated_ids_note", None)),
    }
    return datasets.DatasetDict({k: _from_records(v) for k, v in recs.items()}), facts


def _from_records(records: list[dict]):
    """``datasets.Dataset.from_list(records)`` with a content fingerprint (sha256 of the records' JSON) passed to
    ``datasets.Dataset(table, fingerprint=...)`` instead of ``datasets``' dill hash of the whole Arrow table, which
    costs ~5x the conversion itself. The fingerprint only names the in-memory dataset (cache keys of ``.map``); it
    still changes whenever the content changes. Columns and types: those of the first record's keys, inferred by
    Arrow, as ``from_list`` does (``tests/data/test_data_layer.py`` checks both give the same dataset)."""
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
    data report, the [LEAK] facts, the evaluation order, :meth:`Source.task_metadata` and the repeated ids, a fresh
    dict). The task class
    (:class:`lm_eval_enterprise.harness.task.EnterpriseTask`) merges them into the task's metadata right after loading, so
    they reach ``results["configs"][task]["metadata"]``."""
    if not dataset_id:
        raise DataError("?", None, "task YAML has no dataset_kwargs.dataset_id")
    dataset_dict, facts = _dataset_dict(*_dataset_key(dataset_id, subtask_id, data_root))
    return dataset_dict, dict(facts)


def clear_caches() -> None:
    """Forget the in-process caches (conversions, ``datasets`` objects, metadata, the warnings and limited-run
    notices already logged); the on-disk cache stays."""
    _converted.cache_clear()
    _dataset_dict.cache_clear()
    forget_notices()
    forget_warnings()
