"""Reading a sparse run (``lm-eval-enterprise run --cell_budget F``) into cell matrices, and the estimates per
model × dataset (:func:`aggregate_sparse`; CLI: ``lm-eval-enterprise sharpe``, which detects such runs).

A stage of the one Sharpe pipeline: the tool's :class:`.options.Options`, the grouping stage's reading
(:func:`.grouping.read_runs`: results files, template metadata, ``--run``, model names, newest run per model and
task) and the tool's writers (:mod:`.outputs`); samples of the primary filter are read with :mod:`.io`. Per model × variant group, the documents are the union over templates of the logged documents
(keyed like the full tool: ``doc.id``, else ``doc_hash``, else ``doc_id``; ranking families by query), sorted in
the full tool's order; each template's logged lines become the observed cells, with the per-document sufficient
statistics of :mod:`lm_eval_enterprise.scoring.corpus`. The baseline is computed on all documents of the group with :mod:`.baselines`
(label information from the logged documents), as the full tool does.

A run made with ``--cell_budget`` records ``cell_budget``, ``cell_seed``, ``cells_planned`` and ``cell_design`` in
every task's metadata; the reader checks the observed cells against them (a mismatch is a message, e.g. a run
that was cut short). A full run can be read too (every cell observed: the estimates are then the exact scores).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from types import SimpleNamespace

import numpy as np

from .. import __version__, families
from ..configkeys import QUESTION_FIELD
from ..scoring import corpus
from ..scoring import metrics as M
from ..taskmeta import TaskMeta
from . import baselines as BL
from .grouping import MetricSpec, read_runs
from .io import SampleTable, SharpeInputError, TaskRun, read_samples, task_metadata
from .options import Options, Progress, natural_key
from .pairing import _unit_keys
from .sparse import CellMatrix, RowEstimate, SparseError, estimate_row
from .template_scores import label_info as _label_info


@dataclass
class SparseGroup:
    """One model × variant group of a sparse run."""

    model: str
    name: str
    dataset: str
    domain: str
    subtask: str | None
    family: str | None
    metric: str
    cells: CellMatrix
    baseline: BL.Baseline
    plan: dict = field(default_factory=dict)
    messages: list[str] = field(default_factory=list)
    question: str | None = None  # a dataset made of questions: this question's documents of the variant group
    axes: dict = field(default_factory=dict)  # template id → population axis values (population groups)


def _doc_keys(tab: SampleTable, unit: str, path) -> list:
    for source in ("id",) if unit == "query" else ("id", "doc_hash", "doc_id"):
        keys = _unit_keys(tab, unit, source)
        if keys is not None and len(set(keys)) == len(keys):
            return keys
    raise SharpeInputError(
        f"{path}: no unique document key (doc.id / doc_hash / doc_id; ranking: doc.qid + "
        "doc.cand_index) to pair documents across templates"
    )


def _group_cells(
    model: str, name: str, runs: dict[str, TaskRun], metric: str | None, method: str, seed: int
) -> list[SparseGroup]:
    """The cell matrix of one model × variant group; for a dataset made of questions (gold_news: documents =
    headline × question) one per question, whose per-template scores the row averages ([QMEAN])."""
    tids = sorted(runs, key=natural_key)
    first = runs[tids[0]]
    family = first.family
    metric = metric or first.primary_metric
    if not metric:
        raise SharpeInputError(f"group {name}: no metadata.primary_metric; pass --metric NAME")
    filt = first.primary_filter
    agg = families.aggregation_of(family, metric) or "mean"
    unit = "query" if families.uses_query_units(family) or corpus.per_query(agg) else "doc"
    tables, keys = {}, {}
    for t in tids:
        run = runs[t]
        if run.samples_path is None:
            raise SharpeInputError(
                f"{run.source.path}: no samples_{run.task}_{run.source.timestamp}.jsonl; a sparse "
                "run must be made with --log_samples"
            )
        tab = read_samples(run.samples_path, filt, [metric], keep_docs=True)
        if len(tab) == 0:
            raise SharpeInputError(f"{run.samples_path}: no sample lines")
        tables[t], keys[t] = tab, _doc_keys(tab, unit, run.samples_path)
    # units: documents, or queries (all candidate lines of a qid)
    lines: dict[str, dict] = {}
    for t in tids:
        if unit == "doc":
            lines[t] = {k: i for i, k in enumerate(keys[t])}
        else:
            by_q: dict = defaultdict(list)
            for i, (q, c) in enumerate(keys[t]):
                by_q[q].append((c, i))
            lines[t] = {q: [i for _, i in sorted(v)] for q, v in by_q.items()}
    ctx = (model, name, runs, tids, tables, metric, agg, unit, family, method, seed)
    questions = _doc_questions(tables, lines, metric) if unit == "doc" else {}
    if not questions:
        g = _cells(ctx, lines)
        _check_plan(g, runs, tids)
        return [g]
    out = []
    for q in dict.fromkeys(questions[k] for k in sorted(questions, key=natural_key)):
        g = _cells(ctx, {t: {k: i for k, i in ls.items() if questions[k] == q} for t, ls in lines.items()}, q)
        out.append(g)
    _check_plan(out[0], runs, tids, len(questions))
    for g in out[1:]:
        g.plan = out[0].plan
    return out


def _doc_questions(tables: dict, lines: dict, metric: str) -> dict:
    """document key → its question (``question_id`` of the metric's sample item), or {} without questions."""
    out = {}
    for t, ls in lines.items():
        vals = tables[t].values[metric]
        for k, i in ls.items():
            q = vals[i].get(QUESTION_FIELD) if isinstance(vals[i], dict) else None
            if q is not None:
                out[k] = str(q)
    if out and len(out) != len(set().union(*(set(ls) for ls in lines.values()))):
        raise SharpeInputError(f"some documents of the group carry a {QUESTION_FIELD} and others none")
    return out


def _cells(ctx: tuple, lines: dict, question: str | None = None) -> SparseGroup:
    """The :class:`SparseGroup` of the documents in ``lines`` (template → document key → sample line)."""
    model, name, runs, tids, tables, metric, agg, unit, family, method, seed = ctx
    first = runs[tids[0]]
    docs = sorted(set().union(*(set(v) for v in lines.values())), key=natural_key)
    pos = {k: j for j, k in enumerate(docs)}
    feats, mask, correct, finalize, width = None, np.zeros((len(tids), len(docs)), bool), None, None, None
    layout: tuple = ("mean",)
    for ti, t in enumerate(tids):
        tab = tables[t]
        ks = list(lines[t])
        vals = tab.values[metric]
        try:
            if unit == "doc":
                items = [vals[lines[t][k]] for k in ks]
                if question is not None:  # one question's documents: its own corpus metric
                    items = [{f: v for f, v in it.items() if f != QUESTION_FIELD} for it in items]
                sc = corpus.doc_stats(agg, items, metric)
            else:
                sc = corpus.query_stats(agg, [[vals[i] for i in lines[t][k]] for k in ks], metric)
        except (M.MetricInputError, corpus.UnknownAggregation) as exc:
            raise SharpeInputError(f"{tab.path}: {exc}") from None
        if not sc.linear or sc.layout is None:
            raise SparseError(
                f"group {name}: metric {metric} (aggregation {agg}) has no cell model; the sparse estimator "
                "cannot impute it (run every cell, or estimate the family's primary metric)"
            )
        if feats is None:
            width = sc.features.shape[1]
            feats = np.zeros((len(tids), len(docs), width))
            correct = np.zeros((len(tids), len(docs)))
            finalize, layout = sc.finalize, sc.layout
        elif sc.features.shape[1] != width:
            raise SharpeInputError(f"group {name}: templates disagree on the label set of {metric}")
        cols = np.array([pos[k] for k in ks])
        feats[ti, cols] = sc.features
        mask[ti, cols] = True
        if sc.per_doc is not None:
            correct[ti, cols] = sc.per_doc
    cm = CellMatrix(
        [str(t) for t in tids],
        [str(d) for d in docs],
        feats,
        mask,
        finalize,
        layout,
        correct=correct if layout[0] == "classification" else None,
        name=f"{model} / {name}" + (f" / {question}" if question else ""),
        metric=metric,
    )
    baseline = _baseline(name, family, unit, metric, agg, tables, lines, tids, docs, method, seed)
    return SparseGroup(
        model, name, first.dataset, first.domain, first.subtask, family, metric, cm, baseline, question=question
    )


def _baseline(name, family, unit, metric, agg, tables, lines, tids, docs, method, seed) -> BL.Baseline:
    """Baseline on all documents of the group: one merged table with each document's first logged line."""
    src = {}
    for d in docs:
        t = next(t for t in tids if d in lines[t])
        src[d] = (t, lines[t][d])
    merged_docs, values, idx = [], [], []
    for d in docs:
        t, li = src[d]
        tab = tables[t]
        if unit == "doc":
            idx.append(len(merged_docs))
            merged_docs.append(tab.docs[li])
            values.append(tab.values[metric][li])
        else:
            idx.append(list(range(len(merged_docs), len(merged_docs) + len(li))))
            merged_docs.extend(tab.docs[i] for i in li)
            values.extend(tab.values[metric][i] for i in li)
    merged = SampleTable(
        tables[tids[0]].path, merged_docs, [None] * len(merged_docs), [None] * len(merged_docs), {metric: values}, None
    )
    info = _label_info(SimpleNamespace(family=family, unit=unit), merged, idx, MetricSpec(metric, "", agg, True))
    return BL.compute(metric, family, agg, info, method, seed)


def _check_plan(g: SparseGroup, runs: dict[str, TaskRun], tids: list[str], n_units: int | None = None) -> None:
    """The recorded cell plan against the run (``n_units``: the group's documents, default those of ``g``)."""
    meta = runs[tids[0]].meta
    if "cell_budget" not in meta:
        if not g.cells.mask.all():
            g.messages.append(
                f"{g.cells.name}: {int(g.cells.mask.sum())} of {g.cells.mask.size} cells observed "
                "but no cell plan recorded (cell_budget) in the task metadata"
            )
        return
    g.plan = {
        "cell_budget": meta.get("cell_budget"),
        "cell_seed": meta.get("cell_seed"),
        "design": (meta.get("cell_design") or {}).get(g.name),
    }
    planned = meta.get("cells_planned") or {}
    for t in tids:
        task = runs[t].task
        want = planned.get(task)
        got = int(runs[t].n_samples.get("effective") or 0) if runs[t].n_samples else None
        if want is not None and got is not None and want != got:
            g.messages.append(f"{g.cells.name}: {task} planned {want} documents, {got} evaluated")
    design = g.plan["design"] or {}
    n_units = len(g.cells.docs) if n_units is None else n_units
    if design.get("units") is not None and design["units"] != n_units:
        g.messages.append(
            f"{g.cells.name}: the plan covers {design['units']} units but {n_units} were "
            "logged (a template was not run or the run was cut short)"
        )


def read_sparse(paths: Sequence[str], opts: Options, template_set: str = "core") -> tuple[list[SparseGroup], list[str]]:
    """Cell matrices of every model × variant group of ``template_set`` under ``paths`` (and messages). The inputs
    are read by the grouping stage's :func:`.grouping.read_runs`, as for full runs (``--run``, ``--model_names``,
    ``--variant_pattern``, newest run per model and task); the full tool's checks that a sparse run fails by design
    (documents differ across templates) are not applied. Metric: :attr:`.Options.estimate_metric`."""
    messages: list[str] = []
    _, _, selected = read_runs(paths, opts, messages, Progress(opts.progress), template_set)
    by: dict[tuple[str, str], dict[str, TaskRun]] = defaultdict(dict)
    for r in selected:
        by[(r.model, r.variant_group)][r.template_id] = r
    groups = []
    for (model, name), rs in sorted(by.items()):
        if len(rs) < 2:
            messages.append(f"group {name}, model {model}: a single template; skipped")
            continue
        for g in _group_cells(model, name, rs, opts.estimate_metric, opts.baseline, opts.seed):
            g.axes = {t: TaskMeta.from_metadata(r.meta).population_axes for t, r in rs.items()}
            messages.extend(g.messages)
            groups.append(g)
    if not groups:
        raise SharpeInputError("no variant group with at least two templates")
    return groups, messages


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


def row_baseline(gs: list[SparseGroup]) -> tuple[float | None, str]:
    """The baseline of a row of several groups (subtasks, or the questions of a dataset made of questions): the
    mean of theirs, unavailable when one is."""
    vals = [g.baseline.value for g in gs]
    if any(v is None for v in vals):
        return None, "unavailable"
    return float(np.mean(vals)), gs[0].baseline.method


def aggregate_sparse(paths: Sequence[str], opts: Options, keep_boot: bool = False) -> dict:
    """Estimates per model × dataset row (subtask groups of a dataset, or the questions of a dataset made of
    questions: s_t = mean over them), with the tool's :class:`.Options` (:meth:`.Options.validate_estimate`).
    Returns a JSON-ready dict marked as estimates (:func:`estimate_result`): ``records`` (see
    :meth:`.sparse.RowEstimate.as_dict`, plus model, dataset, domain, metric, baseline method, plan) and
    ``messages``."""
    opts.validate_estimate()
    floor_mode = opts.floor_mode()
    groups, messages = read_sparse(paths, opts)
    rows: dict[tuple[str, str], list[SparseGroup]] = defaultdict(list)
    for g in groups:
        key = g.dataset if g.subtask else g.name
        rows[(g.model, key)].append(g)
    records, estimates = [], {}
    for (model, name), gs in sorted(rows.items()):
        tsets = {tuple(g.cells.templates) for g in gs}
        if len(tsets) > 1:
            common = sorted(set.intersection(*(set(t) for t in tsets)), key=natural_key)
            raise SharpeInputError(
                f"dataset {name}, model {model}: subtasks have different templates (shared: {common})"
            )
        b, method = row_baseline(gs)
        try:
            est: RowEstimate = estimate_row(
                [g.cells for g in gs],
                b,
                ddof=opts.ddof,
                alpha=opts.alpha,
                floor_mode=floor_mode,
                n_boot=opts.bootstrap,
                seed=opts.seed,
                name=name,
                keep_boot=keep_boot,
            )
        except SparseError as exc:
            raise SharpeInputError(str(exc)) from None
        rec = {
            "model": model,
            "dataset": gs[0].dataset,
            "domain": gs[0].domain,
            "metric": gs[0].metric,
            "subtasks": [g.subtask for g in gs] if gs[0].subtask else None,
            **({"questions": [g.question for g in gs]} if gs[0].question else {}),
            "baseline_method": method,
            "plan": gs[0].plan,
            "ddof": opts.ddof,
            **est.as_dict(),
        }
        records.append(rec)
        estimates[(model, name)] = est
    out = estimate_result("estimates of a --cell_budget run", records, messages)
    if keep_boot:
        out["_estimates"] = estimates
    return out


def sparse_inputs(paths: Sequence[str]) -> bool:
    """Do the inputs hold a sparse run, i.e. a results file with a task whose metadata records ``cell_budget`` < 1?
    Unreadable inputs answer False (the full tool then reports them as it always did)."""
    return any(isinstance(m.get("cell_budget"), (int, float)) and m["cell_budget"] < 1 for m in task_metadata(paths))
