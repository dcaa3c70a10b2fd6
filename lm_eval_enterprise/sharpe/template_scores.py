"""Stage 3 — per-template scores and baselines.

For every (model, template, metric, scoring mode) a :class:`~lm_eval_enterprise.scoring.corpus.Stats` recomputes s_t from the paired
samples (checked against the results file: flag ``recompute_mismatch``), plus the format-failure rate per
template; ``parsed_only`` scorers keep the parsed documents only. The baseline b of each group and metric comes
from ``--baseline table:PATH``, a template's ``metadata.baseline``, or the exact formulas of :mod:`.baselines`
computed on the same documents.
"""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import numpy as np

from .. import families
from ..scoring import corpus
from ..scoring import metrics as M
from . import baselines as BL
from .grouping import Group, MetricSpec
from .io import SampleTable, SharpeInputError, TaskRun
from .options import Options

RECOMPUTE_TOL = 1e-9


# ============================================================================================== scores
def _recompute_target(run: TaskRun, spec: MetricSpec):
    v = run.row.get(f"{spec.name},{spec.filter}")
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def _scores_from_results(g: Group, model: str, tid: str, run: TaskRun) -> None:
    """A model without samples: s_t straight from the results file (strict mode only)."""
    g.n_docs[model] = (run.n_samples or {}).get("effective")
    for spec in g.metrics:
        v = _recompute_target(run, spec)
        if v is None:
            raise SharpeInputError(
                f"{run.source.path}: results[{run.task}][{spec.name},{spec.filter}] "
                f"is not a number ({run.row.get(f'{spec.name},{spec.filter}')!r})"
            )
        g.scores[(model, tid, spec.name, "strict")] = float(v)


def _failure_rates(g: Group, model: str, tid: str, tab: SampleTable, idx) -> None:
    """Per-unit failure rate and parse success (a query is parsed when none of its candidate lines failed)."""
    if tab.failure is None:
        return
    f = np.asarray(tab.failure, dtype=float)
    if g.unit == "doc":
        unit_fail = f[idx]
        ok = unit_fail == 0
        fail_sum, fail_cnt = unit_fail, np.ones(len(idx))
    else:
        fail_sum = np.array([f[q].sum() for q in idx])
        fail_cnt = np.array([len(q) for q in idx], dtype=float)
        ok = fail_sum == 0
    g.failure[(model, tid)] = fail_sum / fail_cnt
    g.parse_ok[(model, tid)] = ok
    g.fail_rate[(model, tid)] = float(fail_sum.sum() / fail_cnt.sum())


def _scorer(g: Group, spec: MetricSpec, tab: SampleTable, idx):
    agg = spec.agg
    vals = tab.values[spec.name]
    if agg is None:
        if not all(isinstance(v, (int, float)) for v in vals[:50]):
            raise SharpeInputError(
                f"group {g.name}: unknown aggregation for metric {spec.name!r} "
                f"(task_family {g.family!r} not in lm_eval_enterprise.families)"
            )
        agg = spec.agg = "mean"
    try:
        if g.unit == "doc":
            return corpus.doc_stats(agg, [vals[i] for i in idx], spec.name)
        return corpus.query_stats(agg, [[vals[i] for i in q] for q in idx], spec.name)
    except (M.MetricInputError, corpus.UnknownAggregation) as exc:
        raise SharpeInputError(f"{tab.path}: {exc}") from None


def _check_recomputed(
    g: Group, model: str, tid: str, spec: MetricSpec, run: TaskRun, s: float, messages: list[str]
) -> None:
    target = _recompute_target(run, spec)
    if target is not None and abs(target - s) > RECOMPUTE_TOL:
        messages.append(
            f"group {g.name}, model {model}, {tid}: {spec.name} recomputed from samples = "
            f"{s:.10g} but the results file says {target:.10g} (flag recompute_mismatch); "
            "the recomputed value is used"
        )
        mf = g.model_flags.setdefault(model, {})
        mf.setdefault("recompute_mismatch", []).append(f"{tid}:{spec.name}")


def _scores_from_samples(g: Group, model: str, tid: str, run: TaskRun, opts: Options, messages: list[str]) -> None:
    tab = g.tables[model][tid]
    idx = g.lines[(model, tid)]
    g.n_docs[model] = len(g.keys)
    full = len(tab) == (len(idx) if g.unit == "doc" else sum(map(len, idx)))
    _failure_rates(g, model, tid, tab, idx)
    for spec in g.metrics:
        sc = _scorer(g, spec, tab, idx)
        s = sc.score()
        if not math.isfinite(s):
            raise SharpeInputError(f"{tab.path}: {spec.name} is undefined on the shared documents")
        g.scorers[(model, tid, spec.name, "strict")] = sc
        g.scores[(model, tid, spec.name, "strict")] = s
        if full:
            _check_recomputed(g, model, tid, spec, run, s, messages)
        if "parsed_only" in opts.modes and (model, tid) in g.parse_ok:
            ok = g.parse_ok[(model, tid)]
            msc = sc.masked(ok)
            g.scorers[(model, tid, spec.name, "parsed_only")] = msc
            g.scores[(model, tid, spec.name, "parsed_only")] = msc.score() if ok.any() else math.nan


def build_scorers(g: Group, opts: Options, messages: list[str]) -> None:
    """Fill ``g.scores``, ``g.scorers``, ``g.fail_rate`` (and per-unit failure / parse masks) for every model and
    template of the group."""
    for model in g.models:
        for tid in g.templates:
            run = g.runs[model][tid]
            ff_res = run.row.get(f"format_failure,{g.metrics[0].filter}")
            g.fail_rate[(model, tid)] = float(ff_res) if isinstance(ff_res, (int, float)) else None
            if g.has_samples(model):
                _scores_from_samples(g, model, tid, run, opts, messages)
            else:
                _scores_from_results(g, model, tid, run)


# ============================================================================================== baselines
def _classification_info(tab: SampleTable, idx, spec: MetricSpec) -> BL.LabelInfo:
    from ..text import norm

    first = tab.values[spec.name][idx[0]] if spec.name in tab.values else None
    labels = tab.label_names or (list(first["labels"]) if isinstance(first, dict) and "labels" in first else None)
    golds = [tab.gold[i] for i in idx]
    if any(x is None for x in golds) and isinstance(first, dict):
        golds = [tab.values[spec.name][i]["gold"] for i in idx]
    if not labels or any(x is None for x in golds):
        return BL.LabelInfo("none")
    index = {norm(x): j for j, x in enumerate(labels)}
    counts = [0] * len(labels)
    for x in golds:
        j = index.get(norm(x))
        if j is None:
            return BL.LabelInfo("none")
        counts[j] += 1
    positive = None
    if isinstance(first, dict) and "positive" in first:
        positive = index.get(norm(first["positive"]))
    return BL.LabelInfo(
        "classification",
        labels=list(labels),
        gold_counts=counts,
        question_counts=_question_counts(tab, idx, spec, golds, index),
        positive=positive,
    )


def _question_counts(tab: SampleTable, idx, spec: MetricSpec, golds: list, index: dict) -> list[list[int]] | None:
    """Gold counts per question of a dataset made of questions (items with ``question_id``), else None."""
    from ..configkeys import QUESTION_FIELD
    from ..text import norm

    values = tab.values.get(spec.name)
    questions = [values[i].get(QUESTION_FIELD) if values and isinstance(values[i], dict) else None for i in idx]
    if all(q is None for q in questions):
        return None
    per: dict[str, list[int]] = {}
    for q, x in zip(questions, golds):
        per.setdefault(str(q), [0] * len(index))[index[norm(x)]] += 1
    return list(per.values())


def _ranking_info(tab: SampleTable, idx, spec: MetricSpec) -> BL.LabelInfo:
    lines = [i for q in idx for i in q]
    rel = [int(tab.gold[i] == "Yes") for i in lines]
    if corpus.per_query(spec.agg) and isinstance(tab.values[spec.name][0], list):
        rel = [int(tab.values[spec.name][i][3]) for i in lines]
    pos = 0
    queries = []
    for q in idx:
        r = rel[pos : pos + len(q)]
        queries.append((len(q), int(sum(r))))
        pos += len(q)
    return BL.LabelInfo("ranking", queries=queries, candidate_relevance=rel)


def _choice_info(tab: SampleTable, idx) -> BL.LabelInfo:
    ks = {tab.n_choices[i] for i in idx}
    golds = [tab.gold[i] for i in idx]
    counts = list(Counter(map(str, golds)).values()) if all(x is not None for x in golds) else None
    if len(ks) == 1 and None not in ks:
        return BL.LabelInfo("choice", n_options=ks.pop(), gold_counts=counts)
    return BL.LabelInfo("choice", gold_counts=counts)


def label_info(g: Group, tab: SampleTable, idx, spec: MetricSpec) -> BL.LabelInfo:
    """What the baseline formulas need about the shared documents of one template."""
    fam = families.find(g.family)
    kind = fam.baseline if fam is not None else "none"
    if g.unit == "query":
        return _ranking_info(tab, idx, spec)
    if kind == "classification" or (spec.agg in corpus.STATISTICS and corpus.statistic(spec.agg).average):
        return _classification_info(tab, idx, spec)
    if kind == "choice":
        return _choice_info(tab, idx)
    if kind == "generation" or spec.name in BL.ROUGE_METRICS:
        return BL.LabelInfo(
            "generation", documents=[tab.documents[i] for i in idx], references=[tab.references[i] for i in idx]
        )
    return BL.LabelInfo("none")


def table_baselines(spec_str: str) -> dict[tuple[str, str], BL.Baseline]:
    """``--baseline table:PATH``: CSV or YAML/JSON rows ``group, metric, baseline, method``."""
    path = Path(spec_str)
    if not path.exists():
        raise SharpeInputError(f"--baseline table:{path}: file not found")
    text = path.read_text(encoding="utf-8")
    rows: list[dict] = []
    if path.suffix in (".yaml", ".yml", ".json"):
        import yaml

        try:
            data = yaml.safe_load(text)
        except Exception as exc:  # noqa: BLE001
            raise SharpeInputError(f"{path}: cannot parse baseline table ({exc})") from None
        rows = data if isinstance(data, list) else [dict(group=k, **v) for k, v in (data or {}).items()]
    else:
        import csv

        rows = list(csv.DictReader(text.splitlines()))
    out = {}
    for r in rows:
        try:
            out[(str(r["group"]), str(r["metric"]))] = BL.Baseline(
                float(r["baseline"]), str(r.get("method") or "table")
            )
        except (KeyError, TypeError, ValueError):
            raise SharpeInputError(
                f"{path}: each row needs group, metric, baseline (number), method; got {r}"
            ) from None
    return out


def _metadata_baseline(g: Group, spec: MetricSpec) -> BL.Baseline | None:
    vals = set()
    for by_t in g.runs.values():
        for t in g.templates:
            b = by_t[t].meta.get("baseline")
            if isinstance(b, dict) and spec.name in b:
                b = b[spec.name]
            if isinstance(b, dict):
                vals.add((float(b["value"]), str(b.get("method", "metadata"))))
            elif isinstance(b, (int, float)):
                vals.add((float(b), "metadata"))
            elif b is not None:
                raise SharpeInputError(
                    f"group {g.name}: metadata.baseline {b!r} is neither a number nor {{value, method}}"
                )
    if not vals:
        return None
    if len(vals) > 1:
        raise SharpeInputError(f"group {g.name}: templates carry different metadata.baseline values {sorted(vals)}")
    v, m = vals.pop()
    return BL.Baseline(v, f"metadata:{m}")


def _computed_baseline(g: Group, spec: MetricSpec, method: str, opts: Options) -> BL.Baseline:
    """The formula baseline per template on the shared documents; per-template values b_t when the templates
    differ in label set."""
    sample_models = [m for m in g.models if g.has_samples(m)]
    per_t = {}
    for tid in g.templates:
        if sample_models:
            m = sample_models[0]
            info = label_info(g, g.tables[m][tid], g.lines[(m, tid)], spec)
        else:
            info = BL.LabelInfo("none")
        per_t[tid] = BL.compute(
            spec.name, g.family, spec.agg or "mean", info, method, opts.seed, opts.generation_baseline
        )
    vals = {None if b.value is None else round(b.value, 12) for b in per_t.values()}
    first = per_t[g.templates[0]]
    if len(vals) == 1:
        return first
    if None in vals:
        return BL.Baseline(None, "unavailable", note="label information missing for some templates")
    return BL.Baseline(
        float(np.mean([per_t[t].value for t in g.templates])),
        first.method,
        per_template={t: per_t[t].value for t in g.templates},
        note="templates differ in label set: per-template baselines b_t",
    )


def assign_baselines(g: Group, opts: Options, table: dict) -> None:
    """``g.baseline[metric]``: table entry (group or dataset name) > ``metadata.baseline`` > formula."""
    method = opts.baseline if not opts.baseline.startswith("table:") else "uniform"
    for spec in g.metrics:
        if (g.name, spec.name) in table or (g.dataset, spec.name) in table:
            b = table.get((g.name, spec.name)) or table[(g.dataset, spec.name)]
            g.baseline[spec.name] = BL.Baseline(b.value, f"table:{b.method}")
            continue
        meta = _metadata_baseline(g, spec) if method != "none" else None
        g.baseline[spec.name] = meta if meta is not None else _computed_baseline(g, spec, method, opts)
