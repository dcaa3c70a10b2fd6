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
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import families
from ..scoring import corpus
from . import baselines as BL
from .cells import Cells
from .grouping import MetricSpec, Row
from .io import SampleTable, SharpeInputError, TaskRun
from .options import Options

RECOMPUTE_TOL = 1e-9


# ============================================================================================== scores
@dataclass(frozen=True)
class TemplateScores:
    """s_t per (model, template, metric, scoring mode) with the statistics behind it (models with samples), the
    format-failure rate per (model, template), the units scored per model, and the model flags scoring raised."""

    scores: dict[tuple, float]
    scorers: dict[tuple, corpus.Stats]
    fail_rate: dict[tuple[str, str], float | None]
    n_docs: dict[str, int | None]
    model_flags: dict[str, dict]


def _recompute_target(run: TaskRun, spec: MetricSpec):
    v = run.row.get(f"{spec.name},{spec.filter}")
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def _from_results(row: Row, model: str, tid: str, out: dict) -> None:
    """A model without samples: s_t straight from the results file (strict mode only)."""
    run = row.runs[model][tid]
    for spec in row.metrics:
        v = _recompute_target(run, spec)
        if v is None:
            raise SharpeInputError(
                f"{run.source.path}: results[{run.task}][{spec.name},{spec.filter}] "
                f"is not a number ({run.row.get(f'{spec.name},{spec.filter}')!r})"
            )
        out[(model, tid, spec.name, "strict")] = float(v)


def _recomputed(row: Row, model: str, tid: str, spec: MetricSpec, s: float, flags: dict, messages: list[str]):
    """Check s_t recomputed from the samples against the results file (flag ``recompute_mismatch``)."""
    target = _recompute_target(row.runs[model][tid], spec)
    if target is not None and abs(target - s) > RECOMPUTE_TOL:
        messages.append(
            f"group {row.name}, model {model}, {tid}: {spec.name} recomputed from samples = "
            f"{s:.10g} but the results file says {target:.10g} (flag recompute_mismatch); "
            "the recomputed value is used"
        )
        flags.setdefault(model, {}).setdefault("recompute_mismatch", []).append(f"{tid}:{spec.name}")


def _from_cells(row: Row, c: Cells, ti: int, opts: Options, out: TemplateScores, messages: list[str]) -> None:
    """s_t of one template from its cells: strict, and parsed-only on the parsed units."""
    model, tid = c.model, row.templates[ti]
    if c.fail_rates[ti] is not None:
        out.fail_rate[(model, tid)] = c.fail_rates[ti]
    ok = c.parsed(ti)
    for spec in row.metrics:
        sc = c.stats[spec.name][ti]
        s = sc.score()
        if not math.isfinite(s):
            raise SharpeInputError(f"{c.tables[ti].path}: {spec.name} is undefined on the shared documents")
        out.scorers[(model, tid, spec.name, "strict")] = sc
        out.scores[(model, tid, spec.name, "strict")] = s
        if c.complete[ti]:
            _recomputed(row, model, tid, spec, s, out.model_flags, messages)
        if "parsed_only" in opts.modes and ok is not None:
            msc = sc.masked(ok)
            out.scorers[(model, tid, spec.name, "parsed_only")] = msc
            out.scores[(model, tid, spec.name, "parsed_only")] = msc.score() if ok.any() else math.nan


def template_scores(row: Row, cells: dict[str, Cells], opts: Options, messages: list[str]) -> TemplateScores:
    """Every s_t of the row: recomputed from the cells of a model with samples, else read from the results file."""
    out = TemplateScores({}, {}, {}, {}, {})
    for model in row.models:
        c = cells.get(model)
        for ti, tid in enumerate(row.templates):
            run = row.runs[model][tid]
            ff_res = run.row.get(f"format_failure,{row.metrics[0].filter}")
            out.fail_rate[(model, tid)] = float(ff_res) if isinstance(ff_res, (int, float)) else None
            if c is not None:
                out.n_docs[model] = len(c.units)
                _from_cells(row, c, ti, opts, out, messages)
            else:
                out.n_docs[model] = (run.n_samples or {}).get("effective")
                _from_results(row, model, tid, out.scores)
    return out


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


def label_info(family: str | None, unit: str, tab: SampleTable, idx, spec: MetricSpec) -> BL.LabelInfo:
    """What the baseline formulas need about the units of one template (their line(s) ``idx`` in ``tab``)."""
    fam = families.find(family)
    kind = fam.baseline if fam is not None else "none"
    if unit == "query":
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


def _metadata_baseline(row: Row, spec: MetricSpec) -> BL.Baseline | None:
    vals = set()
    for by_t in row.runs.values():
        for t in row.templates:
            b = by_t[t].meta.get("baseline")
            if isinstance(b, dict) and spec.name in b:
                b = b[spec.name]
            if isinstance(b, dict):
                vals.add((float(b["value"]), str(b.get("method", "metadata"))))
            elif isinstance(b, (int, float)):
                vals.add((float(b), "metadata"))
            elif b is not None:
                raise SharpeInputError(
                    f"group {row.name}: metadata.baseline {b!r} is neither a number nor {{value, method}}"
                )
    if not vals:
        return None
    if len(vals) > 1:
        raise SharpeInputError(f"group {row.name}: templates carry different metadata.baseline values {sorted(vals)}")
    v, m = vals.pop()
    return BL.Baseline(v, f"metadata:{m}")


def _computed_baseline(row: Row, cells: Cells | None, spec: MetricSpec, method: str, opts: Options) -> BL.Baseline:
    """The formula baseline per template on the shared units (label information from ``cells``, the first model
    with samples); per-template values b_t when the templates differ in label set."""
    per_t = {}
    for ti, tid in enumerate(row.templates):
        info = (
            label_info(row.family, row.unit, cells.tables[ti], cells.lines[ti], spec)
            if cells is not None
            else BL.LabelInfo("none")
        )
        per_t[tid] = BL.compute(
            spec.name, row.family, spec.agg or "mean", info, method, opts.seed, opts.generation_baseline
        )
    vals = {None if b.value is None else round(b.value, 12) for b in per_t.values()}
    first = per_t[row.templates[0]]
    if len(vals) == 1:
        return first
    if None in vals:
        return BL.Baseline(None, "unavailable", note="label information missing for some templates")
    return BL.Baseline(
        float(np.mean([per_t[t].value for t in row.templates])),
        first.method,
        per_template={t: per_t[t].value for t in row.templates},
        note="templates differ in label set: per-template baselines b_t",
    )


def row_baselines(row: Row, cells: dict[str, Cells], opts: Options, table: dict) -> dict[str, BL.Baseline]:
    """metric → b: a ``--baseline table:PATH`` entry (group or dataset name) > ``metadata.baseline`` > formula."""
    method = opts.baseline if not opts.baseline.startswith("table:") else "uniform"
    first = next((cells[m] for m in row.models if m in cells), None)
    out = {}
    for spec in row.metrics:
        if (row.name, spec.name) in table or (row.dataset, spec.name) in table:
            b = table.get((row.name, spec.name)) or table[(row.dataset, spec.name)]
            out[spec.name] = BL.Baseline(b.value, f"table:{b.method}")
            continue
        meta = _metadata_baseline(row, spec) if method != "none" else None
        out[spec.name] = meta if meta is not None else _computed_baseline(row, first, spec, method, opts)
    return out
