"""The order of every evaluation split: a seeded order in which every prefix is a fair sample (``--limit N``).

lm-eval's ``--limit N`` evaluates the first N documents of the evaluation split, and the sparse planner
(:mod:`lm_eval_enterprise.harness.cellplan`) plans over the same first N. A file's own order is no sample (a file sorted by
label gives a one-class prefix), so the data layer (:func:`lm_eval_enterprise.data.load.load_checked`, the one
place every dataset passes through) puts every evaluation split in the order of :func:`fair_order`:

* **units**: one document, or for ranking datasets one query with all its candidates (``group`` = the query id),
  the candidates kept together in their own order — queries are ordered, never candidates;
* **stratified by gold label** where there is one (``stratum`` = the record's gold label): the units of each class
  are shuffled with a seeded ``random.Random``, then interleaved proportionally by earliest deadline
  (:func:`interleave`). Every prefix of i units then holds each class within one unit of its share,
  ``|taken_c − i·n_c/n| < 1``, so each class c is present in every prefix of at least ``n/n_c`` units;
* a **seeded shuffle** of the units otherwise.

The seed is :data:`EVAL_ORDER_SEED` (a fixed number: the order is a property of the data, the same in every run);
the rng of a split is ``random.Random(f"eval-order|{seed}")`` (string seeds are hashed with SHA-512 by Python, so
the order does not depend on ``PYTHONHASHSEED``). Only the order changes: the same records, each once.
:func:`order_metadata` is what a task records (``eval_order`` in its metadata, so in ``results.configs``).
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable, Hashable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")

log = logging.getLogger("lm_eval_enterprise.data")

EVAL_ORDER_SEED = 0
STRATIFIED = "stratified by gold label: per-class seeded shuffles interleaved proportionally"
SHUFFLED = "seeded shuffle"


def _units(records: Sequence[T], group: Callable[[T], Hashable] | None) -> list[list[T]]:
    if group is None:
        return [[r] for r in records]
    units: dict[Hashable, list[T]] = {}
    for i, r in enumerate(records):
        key = group(r)
        units.setdefault(("unit", key) if key is not None else ("record", i), []).append(r)
    return list(units.values())


def interleave(strata: dict[Hashable, list[T]]) -> list[T]:
    """The units of every stratum (each list already in its own order) merged by earliest deadline (Tijdeman's
    rule for the chairman assignment problem): position i (1-based) may take a unit of a stratum c only while
    ``taken_c < i·n_c/n`` (else c would run ahead of its share), and of those takes the one whose next unit is due
    first, ``(taken_c + 1)·n/n_c`` (ties: the larger stratum, then ``str`` of the key). Every prefix of i units
    then holds ``|taken_c − i·n_c/n| < 1`` units of each stratum."""
    n = sum(len(units) for units in strata.values())
    taken = dict.fromkeys(strata, 0)
    tie = {key: rank for rank, key in enumerate(sorted(strata, key=lambda k: (-len(strata[k]), str(k))))}
    out: list[T] = []
    for i in range(1, n + 1):
        # Σ_c (i·n_c/n − taken_c) = 1 > 0, so some stratum is always eligible; exact integer comparisons
        eligible = [k for k in strata if taken[k] * n < i * len(strata[k])]
        best = min(eligible, key=lambda k: ((taken[k] + 1) * n / len(strata[k]), tie[k]))
        out.append(strata[best][taken[best]])
        taken[best] += 1
    return out


def fair_order(
    records: Sequence[T],
    *,
    stratum: Callable[[T], Hashable | None] | None = None,
    group: Callable[[T], Hashable] | None = None,
    seed: int = EVAL_ORDER_SEED,
) -> tuple[list[T], str]:
    """``records`` in the seeded fair order (module docstring) and the method used (:data:`STRATIFIED` or
    :data:`SHUFFLED`). ``stratum(record)``: the gold label (a unit's stratum is its first record's; ``None`` for
    any unit → no stratification); ``group(record)``: the unit a record belongs to (ranking: the query id; ``None``: a unit of its own)."""
    rng = random.Random(f"eval-order|{seed}")
    units = _units(records, group)
    labels = [stratum(u[0]) for u in units] if stratum is not None else None
    if labels is None or any(label is None for label in labels):
        rng.shuffle(units)
        return [r for u in units for r in u], SHUFFLED
    strata: dict[Hashable, list[list[T]]] = {}
    for label, unit in zip(labels, units):
        strata.setdefault(label, []).append(unit)
    for key in sorted(strata, key=str):  # one rng, strata in a fixed order
        rng.shuffle(strata[key])
    return [r for u in interleave(strata) for r in u], STRATIFIED


def order_metadata(method: str, seed: int = EVAL_ORDER_SEED, **facts: Any) -> dict[str, Any]:
    """``{"eval_order": {"seed", "method", ...}}``: what every task records about its evaluation order."""
    return {"eval_order": {"seed": seed, "method": method, **facts}}


def missing_classes(docs: Sequence[dict], label_set: Sequence[str]) -> list[str]:
    """Labels of ``label_set`` that no document of ``docs`` has as its gold ``label`` (label-set order)."""
    present = {d.get("label") for d in docs}
    return [label for label in label_set if label not in present]


_NOTED: set[tuple] = set()  # the limited-run notices already logged in this process (one line per dataset subset)


def subset_notice(dataset: str, docs: Sequence[dict], label_set: Sequence[str], total: int) -> dict[str, Any]:
    """For a limited run (``docs``: the evaluated documents of ``total``): the classes of ``label_set`` no document
    has as gold, logged ONCE per (dataset, subset) however many template variants evaluate it, and returned as
    ``{"eval_subset": {"docs", "of", "missing_classes"}}`` for the task metadata (``{}`` when none is missing)."""
    missing = missing_classes(docs, label_set)
    if not missing:
        return {}
    key = (dataset, len(docs), total, tuple(missing))
    if key not in _NOTED:
        _NOTED.add(key)
        log.warning(
            "[%s] the limited run evaluates %d of %d documents, which lack %d of the %d gold classes: %s "
            "(macro F1 averages over the classes present; docs/data.md#evaluation-order)",
            dataset,
            len(docs),
            total,
            len(missing),
            len(label_set),
            ", ".join(missing),
        )
    return {"eval_subset": {"docs": len(docs), "of": total, "missing_classes": missing}}


def forget_notices() -> None:
    """Log the limited-run notices again (:func:`~lm_eval_enterprise.data.clear_caches` calls this)."""
    _NOTED.clear()
