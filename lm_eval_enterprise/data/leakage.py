"""[LEAK] Few-shot leakage: evaluation items whose prompt input equals an item of the few-shot pool are removed.

A shot shown to the model must never be the item it is asked about. Some published splits break that: LegalBench's
unfair_tos ships its 9 train clauses (the whole few-shot pool) inside the test file, and TRAM is split by sentence,
so the same sentence can sit in train and test. :func:`drop_fewshot_duplicates` — called once by
:func:`lm_eval_enterprise.data.load_records` for every dataset — removes every record of the evaluation split whose
**prompt input** is byte-identical to the prompt input of any record of the dataset's few-shot source split
(``Source.fewshot_source_split``, the whole split, not only the shots drawn from it), logs the count, and returns
facts for the task metadata:

* ``fewshot_dedup_fields`` — the record fields compared (below);
* ``eval_rows_before_dedup`` — evaluation records before the step;
* ``eval_fewshot_pool_duplicates`` — evaluation records whose prompt input occurs in the pool;
* ``eval_removed_fewshot_duplicates`` — records removed (the same number, except at 0 shots).

**Zero-shot datasets keep their evaluation split** (:data:`ZERO_SHOT_NOTE`): when the dataset's template table
(``tasks/<domain>/<id>/templates.py``, ``TASKS.num_fewshot``, as generated into ``_<id>_template_yaml``) configures
0 shots, no pool item is ever shown, so
nothing leaks into a prompt; the duplicates are counted, not removed, and the published evaluation set (e.g.
HELM's sumo_claims test set) stays intact. Running such a task with ``--num_fewshot`` > 0 can show a shot that
equals the evaluated item; the metadata count says how many items are exposed.

The prompt input is what the templates show of an item, per task family (``prompt_inputs`` of its record in
:mod:`lm_eval_enterprise.families`):
classification ``text`` (+ ``target``, the aspect a fiqa_sa sentence is judged on; absent elsewhere), NER and KPI
``text``, multiple choice ``question`` + ``choices``, numeric QA ``context`` + ``question``, summarization
``document``. Values are compared exactly as stored (no case or whitespace folding: "byte-identical"); a record
lacking a field compares it as missing on both sides.

**Ranking datasets are excluded** (:data:`RANKING_EXCLUSION`): their documents are (query, candidate) pairs whose
candidates come from one shared answer corpus by design, so a passage that also appears in a shot is not a leaked
item, and removing pair documents would break the fixed candidate list each query's RR@10 is computed on (one query
= 20 documents). Their evaluation and few-shot queries come from disjoint official question splits.

The removal is reported, not hidden: what remains of a dataset's leakage or imbalance (e.g. near-duplicates,
a few-shot pool that lacks the majority class) is documented in its README.
"""

from __future__ import annotations

import json
import logging
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from .. import families
from ..errors import warn_once

log = logging.getLogger("lm_eval_enterprise.data")

# task family → the record fields that make up an item's prompt input (None: the step does not apply); read from
# the family registry (lm_eval_enterprise.families, ``Family.prompt_inputs``)
PROMPT_INPUT_FIELDS: dict[str, tuple[str, ...] | None] = {n: f.prompt_inputs for n, f in families.FAMILIES.items()}
ZERO_SHOT_NOTE = (
    "not removed: the dataset is evaluated with 0 shots, so no pool item is shown; with --num_fewshot "
    "> 0, eval_fewshot_pool_duplicates items could meet themselves as a shot"
)
RANKING_EXCLUSION = (
    "not applied to ranking datasets: candidates are drawn from one shared answer corpus by design "
    "and each query's RR@10 needs its full candidate list; eval and few-shot queries come from "
    "disjoint official splits"
)


def prompt_input(record: dict, fields: tuple[str, ...]) -> str:
    """The compared prompt input of ``record``: the ``fields`` values as one exact JSON string (lists such as
    ``choices`` keep their order; a missing field is ``null``)."""
    return json.dumps([record.get(f) for f in fields], ensure_ascii=False, sort_keys=True)


class _GeneratedYaml(yaml.SafeLoader):
    """Reads a generated task YAML as data: ``!function`` references stay strings (nothing is imported)."""


_GeneratedYaml.add_constructor("!function", lambda loader, node: loader.construct_scalar(node))


@lru_cache(maxsize=128)
def _generated_shots(path: str) -> int | None:
    with open(path, encoding="utf-8") as fh:
        shots = (yaml.load(fh, Loader=_GeneratedYaml) or {}).get("num_fewshot")  # noqa: S506 (safe loader)
    return shots if isinstance(shots, int) else None


def configured_shots(src: Any) -> int | None:
    """``num_fewshot`` of the dataset's template table, read from its generated base configuration
    (``_<id>_template_yaml`` beside the dataset's ``source.py``, written by ``make tasks``; no ``templates.py`` is
    imported at run time). ``None``: no such file, e.g. a ``Source`` defined elsewhere."""
    module = sys.modules.get(type(src).__module__)
    folder = Path(module.__file__).parent if getattr(module, "__file__", None) else None
    base = folder / f"_{src.id}_template_yaml" if folder else None
    return _generated_shots(str(base)) if base is not None and base.is_file() else None


def drop_fewshot_duplicates(
    src: Any, splits: dict[str, list[dict]], where: Any = None, eval_split: str | None = None
) -> tuple[dict[str, list[dict]], dict[str, Any]]:
    """``splits`` without the evaluation records whose prompt input equals a few-shot pool record's, and the facts
    for the task metadata (see the module docstring). ``src`` is the dataset's ``Source`` (``id``, ``task_type``,
    ``eval_split``, ``fewshot_source_split``); ``eval_split`` overrides the evaluated split (e.g. a fallback to
    validation when test is unlabelled); ``where`` (the data folder) is named in the log line. Order is kept;
    the input dict is not modified. Raises ``ValueError`` for a task type without a prompt-input definition."""
    try:
        fields = families.get(src.task_type).prompt_inputs
    except families.UnknownFamily as exc:
        raise ValueError(f"[{src.id}] no prompt-input definition: {exc}") from None
    ev = eval_split or src.eval_split
    if fields is None:
        return splits, {"fewshot_dedup_fields": None, "fewshot_dedup_note": RANKING_EXCLUSION}
    if ev == src.fewshot_source_split:
        raise ValueError(f"[{src.id}] evaluation split and few-shot pool are the same split {ev!r}")
    eval_recs = splits.get(ev) or []
    pool = {prompt_input(r, fields) for r in splits.get(src.fewshot_source_split) or []}
    kept = [r for r in eval_recs if prompt_input(r, fields) not in pool]
    found = len(eval_recs) - len(kept)
    zero_shot = configured_shots(src) == 0
    removed = 0 if zero_shot else found
    facts: dict[str, Any] = {
        "fewshot_dedup_fields": list(fields),
        "eval_rows_before_dedup": len(eval_recs),
        "eval_fewshot_pool_duplicates": found,
        "eval_removed_fewshot_duplicates": removed,
    }
    if zero_shot:
        facts["fewshot_dedup_note"] = ZERO_SHOT_NOTE
        if found:
            log.info(
                "[%s] %d of %d '%s' records also occur in the few-shot pool; kept (0 shots)",
                src.id,
                found,
                len(eval_recs),
                ev,
            )
        return splits, facts
    if removed:
        warn_once(
            log,
            "[%s] %s: removed %d of %d '%s' records whose prompt input (%s) also occurs in the "
            "few-shot pool '%s' (metadata eval_removed_fewshot_duplicates)",
            src.id,
            where or "",
            removed,
            len(eval_recs),
            ev,
            "+".join(fields),
            src.fewshot_source_split,
        )
        return {**splits, ev: kept}, facts
    log.info("[%s] no '%s' record repeats a few-shot pool record (%s)", src.id, ev, "+".join(fields))
    return splits, facts
