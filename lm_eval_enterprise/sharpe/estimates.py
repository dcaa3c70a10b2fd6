"""Estimates from a partial cell table (docs/sharpe.md#sparse-runs, docs/sparse.md, docs/populations.md): the runs
of a sparse design (``lm-eval-enterprise run --cell_budget F``) and template populations (``lm-eval-enterprise
population``), beside the full tool and never pooled with it.

Per model × variant group: the union of the units the templates logged (:func:`.cells.union_cells`; a dataset made
of questions: one table per question, averaged per template, [QMEAN]), whose missing cells the estimator
(:mod:`lm_eval_enterprise.estimator`) imputes; the baseline on all units of the group with :mod:`.baselines`; the
cell plan a ``--cell_budget`` run records in its metadata checked against the observed cells (a mismatch is a
message). A full run can be read too (every cell observed: the estimates are the exact scores). Population groups
(``metadata.template_set: population``) use the templates' axis values (``metadata.population_axes``) as
covariates and each group's own primary metric (``--metric`` applies to the core set).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field, replace

import numpy as np

from .. import __version__, families
from ..estimator import CellMatrix, SparseError, axis_covariates, estimate_population, estimate_row
from ..scoring import corpus
from ..text import natural_key
from . import baselines as BL
from .cells import Cells, question_cells, union_cells
from .inputs import (
    Diagnostics,
    Inputs,
    Options,
    RunSet,
    SampleTable,
    SharpeInputError,
    TaskRun,
    read_samples,
    select_runs,
)
from .rows import MetricSpec


@dataclass(frozen=True)
class SparseGroup:
    """One model × variant group of a sparse run (or one question of it)."""

    model: str
    name: str
    dataset: str
    domain: str
    metric: str
    cells: CellMatrix
    baseline: BL.Baseline
    plan: dict
    messages: list[str]
    question: str | None = None  # a dataset made of questions: this question's documents of the variant group
    axes: dict = field(default_factory=dict)  # template id → population axis values (population groups)


def cell_matrix(c: Cells, metric: str, agg: str, name: str, label: str) -> CellMatrix:
    """The estimator's :class:`~lm_eval_enterprise.estimator.CellMatrix` of one metric of a cell table (a metric without a cell model:
    :class:`~lm_eval_enterprise.estimator.SparseError`)."""
    scs = c.stats[metric]
    if any(not sc.linear or sc.layout is None for sc in scs):
        raise SparseError(
            f"group {name}: metric {metric} (aggregation {agg}) has no cell model; the sparse estimator cannot "
            "impute it (run every cell, or estimate the family's primary metric)"
        )
    if len({sc.features.shape[1] for sc in scs}) > 1:
        raise SharpeInputError(f"group {name}: templates disagree on the label set of {metric}")
    layout = scs[0].layout
    return CellMatrix(
        [str(t) for t in c.templates],
        [str(u) for u in c.units],
        c.features(metric),
        c.observed,
        scs[0].finalize,
        layout,
        correct=c.correct(metric) if layout[0] == "classification" else None,
        name=label,
        metric=metric,
    )


def _baseline(c: Cells, family: str | None, unit: str, metric: str, agg: str, method: str, seed: int):
    """Baseline on all units of the cell table: one merged table with each unit's first logged line(s)."""
    at = [dict(zip(c.observed_units(t), ls)) for t, ls in enumerate(c.lines)]
    merged_docs, values, idx = [], [], []
    for u in c.units:
        t = next(t for t in range(len(at)) if u in at[t])
        tab, li = c.tables[t], at[t][u]
        if unit == "doc":
            idx.append(len(merged_docs))
            merged_docs.append(tab.docs[li])
            values.append(tab.values[metric][li])
        else:
            idx.append(list(range(len(merged_docs), len(merged_docs) + len(li))))
            merged_docs.extend(tab.docs[i] for i in li)
            values.extend(tab.values[metric][i] for i in li)
    n = len(merged_docs)
    merged = SampleTable(c.tables[0].path, merged_docs, [None] * n, [None] * n, {metric: values}, None)
    info = BL.label_info(family, unit, merged, idx, MetricSpec(metric, "", agg, True))
    return BL.compute(metric, family, agg, info, method, seed)


def _plan(runs: dict[str, TaskRun], tids: list[str], name: str, cm: CellMatrix, n_units: int):
    """(the recorded cell plan, messages where the run departs from it) of one variant group."""
    meta = runs[tids[0]].taskmeta
    if meta.cell_budget is None:
        if cm.mask.all():
            return {}, []
        return {}, [
            f"{cm.name}: {int(cm.mask.sum())} of {cm.mask.size} cells observed "
            "but no cell plan recorded (cell_budget) in the task metadata"
        ]
    plan = {"cell_budget": meta.cell_budget, "cell_seed": meta.cell_seed, "design": meta.cell_design.get(name)}
    messages = []
    planned = meta.cells_planned
    for t in tids:
        task = runs[t].task
        want = planned.get(task)
        got = int(runs[t].n_samples.get("effective") or 0) if runs[t].n_samples else None
        if want is not None and got is not None and want != got:
            messages.append(f"{cm.name}: {task} planned {want} documents, {got} evaluated")
    design = plan["design"] or {}
    if design.get("units") is not None and design["units"] != n_units:
        messages.append(
            f"{cm.name}: the plan covers {design['units']} units but {n_units} were "
            "logged (a template was not run or the run was cut short)"
        )
    return plan, messages


def _group_cells(
    model: str, name: str, runs: dict[str, TaskRun], metric: str | None, method: str, seed: int
) -> list[SparseGroup]:
    """The cell matrix of one model × variant group; for a dataset made of questions (gold_news: documents =
    headline × question) one per question, whose per-template scores the row averages ([QMEAN])."""
    tids = sorted(runs, key=natural_key)
    first = runs[tids[0]]
    family = first.taskmeta.task_family
    metric = metric or first.taskmeta.primary_metric
    if not metric:
        raise SharpeInputError(f"group {name}: no metadata.primary_metric; pass --metric NAME")
    agg = families.aggregation_of(family, metric) or "mean"
    unit = "query" if families.uses_query_units(family) or corpus.per_query(agg) else "doc"
    tables = []
    for t in tids:
        run = runs[t]
        if run.samples_path is None:
            raise SharpeInputError(
                f"{run.source.path}: no samples_{run.task}_{run.source.timestamp}.jsonl; a sparse "
                "run must be made with --log_samples"
            )
        tab = read_samples(run.samples_path, first.taskmeta.primary_filter, [metric], keep_docs=True)
        if len(tab) == 0:
            raise SharpeInputError(f"{run.samples_path}: no sample lines")
        tables.append(tab)
    whole = union_cells(model, tids, tables, unit, metric, agg)
    parts = question_cells(whole, metric, agg) if unit == "doc" else []
    out = []
    for question, c in parts or [(None, whole)]:
        cm = cell_matrix(c, metric, agg, name, f"{model} / {name}" + (f" / {question}" if question else ""))
        base = _baseline(c, family, unit, metric, agg, method, seed)
        out.append((question, cm, base))
    plan, messages = _plan(runs, tids, name, out[0][1], len(whole.units))
    axes = {t: r.taskmeta.population_axes for t, r in runs.items()}
    shared = dict(model=model, name=name, dataset=first.dataset, domain=first.domain, metric=metric, plan=plan)
    return [
        SparseGroup(**shared, cells=cm, baseline=b, messages=[] if i else messages, question=q, axes=axes)
        for i, (q, cm, b) in enumerate(out)
    ]


def sparse_groups(rs: RunSet, opts: Options, diag: Diagnostics) -> list[SparseGroup]:
    """Cell matrices of every model × variant group of the selected runs (the full tool's checks that a sparse run
    fails by design — documents differ across templates — are not applied). Metric:
    :attr:`.Options.estimate_metric`."""
    by: dict[tuple[str, str], dict[str, TaskRun]] = defaultdict(dict)
    for r in rs.selected:
        by[(r.model, r.variant_group)][r.template_id] = r
    groups = []
    for (model, name), runs in sorted(by.items()):
        if len(runs) < 2:
            diag.note(f"group {name}, model {model}: a single template; skipped")
            continue
        for g in _group_cells(model, name, runs, opts.estimate_metric, opts.baseline, opts.seed):
            for msg in g.messages:
                diag.note(msg)
            groups.append(g)
    if not groups:
        raise SharpeInputError("no variant group with at least two templates")
    return groups


def estimate_result(what: str, records: list[dict], messages: list[str]) -> dict:
    """The JSON-ready result of an estimator, marked as estimates: ``estimate`` true and ``share_observed``, the
    share of (template, document) cells observed over all records (each record keeps its own share; a record
    whose cells were all observed has ``estimate`` false: its numbers are the exact scores)."""
    total = sum(r["cells_total"] for r in records)
    return {
        "tool": f"lm-eval-enterprise {__version__} sharpe ({what})",
        "estimate": True,
        "share_observed": sum(r["cells_observed"] for r in records) / total if total else None,
        "records": records,
        "messages": messages,
    }


def mean_baseline(gs: list[SparseGroup]) -> tuple[float | None, str]:
    """(value, method) of the baseline of several groups of one row (the questions of a dataset made of
    questions): the mean of theirs, unavailable when one is."""
    vals = [g.baseline.value for g in gs]
    if any(v is None for v in vals):
        return None, "unavailable"
    return float(np.mean(vals)), gs[0].baseline.method


def _by_row(groups: list[SparseGroup]) -> dict[tuple[str, str], list[SparseGroup]]:
    rows: dict[tuple[str, str], list[SparseGroup]] = defaultdict(list)
    for g in groups:
        rows[(g.model, g.name)].append(g)
    return rows


def _estimated(estimator, cells: list[CellMatrix], baseline, opts: Options, **kwargs):
    """``estimator`` (:func:`~lm_eval_enterprise.estimator.estimate_row` or ``estimate_population``) of a row's
    cell matrices with the tool's settings (ddof, α, σ floor, B, seed); its :class:`SparseError` is an input
    error."""
    settings = {"ddof": opts.ddof, "alpha": opts.alpha, "floor_mode": opts.floor_mode(), "seed": opts.seed}
    try:
        return estimator(cells, baseline, n_boot=opts.bootstrap, **settings, **kwargs)
    except SparseError as exc:
        raise SharpeInputError(str(exc)) from None


def sparse_estimates(inputs: Inputs, opts: Options) -> dict:
    """Estimates per model × dataset row of a sparse run (a dataset made of questions: s_t = mean over them), with
    the tool's :class:`.Options` (``validate(estimate=True)``): ``records`` (:meth:`~lm_eval_enterprise.estimator.RowEstimate.as_dict`
    plus model, dataset, domain, metric, baseline method, plan) and ``messages``, marked as estimates
    (:func:`estimate_result`)."""
    opts.validate(estimate=True)
    diag = Diagnostics(opts.strict_inputs)
    groups = sparse_groups(select_runs(inputs, "core", opts, diag), opts, diag)
    records = []
    for (model, name), gs in sorted(_by_row(groups).items()):
        b, method = mean_baseline(gs)
        est = _estimated(estimate_row, [g.cells for g in gs], b, opts, name=name)
        records.append(
            {
                "model": model,
                "dataset": gs[0].dataset,
                "domain": gs[0].domain,
                "metric": gs[0].metric,
                "subtasks": None,  # kept in the output layout (metric version ≤ 1.2 had subtask groups)
                **({"questions": [g.question for g in gs]} if gs[0].question else {}),
                "baseline_method": method,
                "plan": gs[0].plan,
                "ddof": opts.ddof,
                **est.as_dict(),
            }
        )
    return estimate_result("estimates of a --cell_budget run", records, diag.notes)


def population_estimates(inputs: Inputs, opts: Options) -> dict:
    """The estimates of the population groups of the inputs (:func:`estimate_result`; without a usable population
    group: no records and a message saying why). :class:`.inputs.SharpeUsageError` for settings the tool cannot
    use."""
    opts.validate()
    diag = Diagnostics(opts.strict_inputs)
    try:
        pop_opts = replace(opts, metrics=None)
        groups = sparse_groups(select_runs(inputs, "population", pop_opts, diag), pop_opts, diag)
    except SharpeInputError as exc:  # no usable population group: said, not silently skipped
        return estimate_result("estimates of template populations", [], [f"template populations: {exc}; no section"])
    records = [_population_record(gs, opts) for gs in _by_row(groups).values()]
    return estimate_result("estimates of template populations", records, diag.notes)


def _population_record(gs: list[SparseGroup], opts: Options) -> dict:
    """One model × population group: its cell matrix, or one per question whose per-template scores are averaged
    ([QMEAN], as the dataset's own score is)."""
    g = gs[0]
    axes = [g.axes.get(t) for t in g.cells.templates]
    x = axis_covariates(axes) if all(isinstance(a, dict) for a in axes) else None
    base, method = mean_baseline(gs)
    est = _estimated(estimate_population, [q.cells for q in gs], base, opts, covariates=x)
    return {
        "model": g.model,
        "group": g.name,
        "dataset": g.dataset,
        "domain": g.domain,
        "subtask": None,  # kept in the output layout (metric version ≤ 1.2 had subtask groups)
        **({"questions": [q.question for q in gs]} if g.question else {}),
        "metric": g.metric,
        "baseline_method": method,
        "plan": g.plan,
        **est,
    }
