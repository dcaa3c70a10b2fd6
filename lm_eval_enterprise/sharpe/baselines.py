"""The Sharpe score's "risk-free" term b of each dataset row and metric (docs/sharpe.md#baselines: the methods and
their precedence): :func:`row_baselines` takes a ``--baseline table:PATH`` entry, else a template's
``metadata.baseline``, else the formula that fits the metric (:func:`compute`, the formulas themselves are
:mod:`lm_eval_enterprise.scoring.chance`) on the label information of the row's cells (:func:`label_info`).
Entity F1, KPI adjusted F1, float-equivalence accuracy and ROUGE have b = 0 (an uninformed generator scores ~0),
ROUGE with ``--generation_baseline lead-K`` the ROUGE of the lead-K summary.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np

from .. import families
from ..configkeys import QUESTION_FIELD
from ..scoring import corpus
from ..scoring.chance import (
    ROUGE_METRICS,
    lead_baseline,
    majority_f1,
    majority_share,
    mean_expected_ranking,
    simulated_ranking,
    simulated_uniform,
    uniform_accuracy,
    uniform_f1,
)
from ..text import norm
from .cells import Cells
from .inputs import Options, SampleTable, SharpeInputError, parse_generation_baseline
from .rows import MetricSpec, Row


@dataclass
class Baseline:
    """b with the method that produced it (written to every output record)."""

    value: float | None
    method: str
    se: float | None = None  # Monte-Carlo standard error (simulated only)
    per_template: dict[str, float] | None = None
    note: str = ""

    def as_dict(self) -> dict:
        """value and method, then se, per_template and note when set."""
        return {k: v for k, v in asdict(self).items() if k in ("value", "method") or v not in (None, "")}


# ----------------------------------------------------------------------------------------------------- dispatch
@dataclass
class LabelInfo:
    """What a baseline needs to know about the documents of one template (on the shared doc set)."""

    kind: str  # "classification" | "choice" | "ranking" | "none"
    labels: list[str] | None = None  # label order (classification)
    gold_counts: list[int] | None = None
    # a dataset made of questions (gold_news): the gold counts of each question; its F1 is the mean over questions
    question_counts: list[list[int]] | None = None
    positive: int | None = None  # binary F1 positive class index
    n_options: int | None = None  # multiple choice
    queries: list[tuple[int, int]] | None = None  # ranking: (C, R) per query
    candidate_relevance: list[int] | None = None  # ranking: relevance of every candidate
    documents: list[str] | None = None  # generation: source texts
    references: list[str] | None = None  # generation: reference outputs


def _generation_baseline(metric: str, info: LabelInfo, generation: str) -> Baseline:
    k = parse_generation_baseline(generation)  # lead-K (``zero`` never gets here)
    if (
        info.kind != "generation"
        or not info.documents
        or any(not isinstance(x, str) for x in list(info.documents) + list(info.references or [None]))
    ):
        return Baseline(None, "unavailable", note=f"{generation}: document or reference texts unknown (no samples)")
    return Baseline(
        lead_baseline(info.documents, info.references, k, metric),
        generation,
        note=f"mean {metric} of the first {k} sentence(s) of each document",
    )


def helm_base_metric(metric: str) -> str:
    """The metric a HELM-reading metric re-reads (``accuracy_helm`` → ``accuracy``); others unchanged. Both have
    the same chance level, so the baseline rules of the base metric apply."""
    helm = {m for f in families.FAMILIES.values() for m in f.helm_metrics}
    return metric[: -len("_helm")] if metric in helm else metric


def compute(
    metric: str, family: str | None, agg: str, info: LabelInfo, method: str, seed: int = 0, generation: str = "zero"
) -> Baseline:
    """Auto baseline of ``metric`` (aggregation ``agg``) under ``method`` ∈ {uniform, majority, simulated, none};
    ROUGE metrics follow ``generation`` (``zero`` or ``lead-K``) instead.

    Returns ``Baseline(None, "unavailable", note=...)`` when the label information needed is missing (e.g. no
    samples): the caller then reports Sharpe as undefined instead of inventing a number.
    """
    if method == "none":
        return Baseline(0.0, "none")
    metric = helm_base_metric(metric)
    if metric in ROUGE_METRICS and generation != "zero":
        return _generation_baseline(metric, info, generation)
    if metric == "format_failure":
        return Baseline(0.0, "zero", note="format-failure rate: baseline 0")
    fam = families.find(family)
    st = corpus.STATISTICS.get(agg or "mean")
    if (st is not None and st.baseline == "zero") or (fam is not None and fam.zero_baseline):
        return Baseline(0.0, "zero", note="no-information generator scores 0 (docs/sharpe.md#generation-baseline)")
    f1_avg = st.average if st is not None else None
    if f1_avg and info.question_counts:
        return _question_baseline(f1_avg, info, method, seed)
    if f1_avg or (metric == "accuracy" and info.kind == "classification"):
        return _classification_baseline(f1_avg, info, method, seed)
    if metric == "accuracy" and info.kind == "choice":
        return _choice_baseline(info, method, seed)
    if st is not None and st.ranking is not None:
        return _ranking_baseline(st.ranking, info, method, seed)
    if metric == "yes_accuracy":
        return _yes_baseline(info, method)
    note = f"no baseline rule for metric {metric!r} (family {family!r}); use --baseline table:PATH or --baseline none"
    return Baseline(None, "unavailable", note=note)


def _classification_baseline(f1_avg: str | None, info: LabelInfo, method: str, seed: int) -> Baseline:
    """Weighted / macro / binary F1 (``f1_avg``) or, with ``f1_avg`` None, accuracy over the k gold labels."""
    if info.kind != "classification" or not info.gold_counts:
        return Baseline(None, "unavailable", note="gold label counts unknown (no samples)")
    counts, k = info.gold_counts, len(info.gold_counts)
    if f1_avg == "binary" and info.positive is None:
        return Baseline(None, "unavailable", note="positive class unknown")
    if method == "simulated":
        return _simulated(counts, k, f1_avg or "accuracy", info.positive, seed)
    if method == "majority":
        value = majority_share(counts) if f1_avg is None else majority_f1(counts, f1_avg, info.positive)
        return Baseline(value, "majority")
    return Baseline(uniform_accuracy(k) if f1_avg is None else uniform_f1(counts, f1_avg, info.positive), "uniform")


def _simulated(counts: list[int], k: int, metric: str, positive: int | None, seed: int) -> Baseline:
    """:func:`simulated_uniform` on gold labels with these counts (label j repeated ``counts[j]`` times)."""
    value, se = simulated_uniform(np.repeat(np.arange(len(counts)), counts), k, metric, positive, seed=seed)
    return Baseline(value, "simulated", se=se)


def _question_baseline(f1_avg: str, info: LabelInfo, method: str, seed: int) -> Baseline:
    """[QMEAN] the baseline of a metric that is the mean over questions: each question's own baseline (its gold
    counts), then their mean; a simulated one's Monte-Carlo error is sqrt(Σ se²)/n."""
    bs = [
        _classification_baseline(f1_avg, replace(info, gold_counts=c, question_counts=None), method, seed)
        for c in info.question_counts or []
    ]
    if not bs or any(b.value is None for b in bs):
        return Baseline(None, "unavailable", note="a question's gold label counts are unknown")
    se = math.sqrt(sum(b.se**2 for b in bs)) / len(bs) if all(b.se is not None for b in bs) else None
    return Baseline(float(np.mean([b.value for b in bs])), bs[0].method, se=se, note=f"mean over {len(bs)} questions")


def _choice_baseline(info: LabelInfo, method: str, seed: int) -> Baseline:
    """Accuracy of a multiple-choice task over ``info.n_options`` options."""
    if not info.n_options:
        return Baseline(None, "unavailable", note="number of options unknown")
    if method == "majority":
        if not info.gold_counts:
            return Baseline(None, "unavailable", note="gold answers unknown")
        return Baseline(majority_share(info.gold_counts), "majority")
    if method == "simulated" and info.gold_counts:  # accuracy is label-symmetric: the answers' counts suffice
        return _simulated(info.gold_counts, info.n_options, "accuracy", None, seed)
    return Baseline(uniform_accuracy(info.n_options), "uniform")


def _ranking_baseline(rank: tuple[str, int], info: LabelInfo, method: str, seed: int) -> Baseline:
    """RR@k / NDCG@k of a random order of each query's candidates (majority has no meaning here → uniform)."""
    if info.kind != "ranking" or not info.queries:
        return Baseline(None, "unavailable", note="query candidate counts unknown (no samples)")
    name, k = rank
    if method == "simulated":
        v, se = simulated_ranking(info.queries, name, k, seed=seed)
        return Baseline(v, "simulated", se=se)
    note = "majority n/a for ranking → uniform" if method == "majority" else ""
    return Baseline(mean_expected_ranking(info.queries, name, k), "uniform", note=note)


def _yes_baseline(info: LabelInfo, method: str) -> Baseline:
    """Accuracy of the Yes/No answers of the pointwise ranking documents."""
    if info.kind != "ranking" or not info.candidate_relevance:
        return Baseline(None, "unavailable", note="candidate relevance unknown (no samples)")
    if method == "majority":
        c = Counter(info.candidate_relevance)
        return Baseline(majority_share([c.get(1, 0), c.get(0, 0)]), "majority")
    return Baseline(0.5, "uniform", note="random Yes/No per candidate")


# ----------------------------------------------------------------------------------------------------- label information
def _classification_info(tab: SampleTable, idx, spec: MetricSpec) -> LabelInfo:

    first = tab.values[spec.name][idx[0]] if spec.name in tab.values else None
    labels = tab.label_names or (list(first["labels"]) if isinstance(first, dict) and "labels" in first else None)
    golds = [tab.gold[i] for i in idx]
    if any(x is None for x in golds) and isinstance(first, dict):
        golds = [tab.values[spec.name][i]["gold"] for i in idx]
    if not labels or any(x is None for x in golds):
        return LabelInfo("none")
    index = {norm(x): j for j, x in enumerate(labels)}
    label_of = [index.get(norm(x)) for x in golds]
    if None in label_of:
        return LabelInfo("none")
    counts = np.bincount(label_of, minlength=len(labels)).tolist()
    positive = index.get(norm(first["positive"])) if isinstance(first, dict) and "positive" in first else None
    return LabelInfo(
        "classification",
        labels=list(labels),
        gold_counts=counts,
        question_counts=_question_counts(tab, idx, spec, golds, index),
        positive=positive,
    )


def _question_counts(tab: SampleTable, idx, spec: MetricSpec, golds: list, index: dict) -> list[list[int]] | None:
    """Gold counts per question of a dataset made of questions (items with ``question_id``), else None."""

    values = tab.values.get(spec.name)
    questions = [values[i].get(QUESTION_FIELD) if values and isinstance(values[i], dict) else None for i in idx]
    if all(q is None for q in questions):
        return None
    per: dict[str, list[int]] = {}
    for q, x in zip(questions, golds):
        per.setdefault(str(q), [0] * len(index))[index[norm(x)]] += 1
    return list(per.values())


def _ranking_info(tab: SampleTable, idx, spec: MetricSpec) -> LabelInfo:
    lines = [i for q in idx for i in q]
    rel = [int(tab.gold[i] == "Yes") for i in lines]
    if corpus.per_query(spec.agg) and isinstance(tab.values[spec.name][0], list):
        rel = [int(tab.values[spec.name][i][3]) for i in lines]
    ends = np.cumsum([len(q) for q in idx])
    queries = [(len(q), int(sum(rel[end - len(q) : end]))) for q, end in zip(idx, ends)]
    return LabelInfo("ranking", queries=queries, candidate_relevance=rel)


def _choice_info(tab: SampleTable, idx) -> LabelInfo:
    ks = {tab.n_choices[i] for i in idx}
    golds = [tab.gold[i] for i in idx]
    counts = list(Counter(map(str, golds)).values()) if all(x is not None for x in golds) else None
    return LabelInfo("choice", n_options=ks.pop() if len(ks) == 1 and None not in ks else None, gold_counts=counts)


def label_info(family: str | None, unit: str, tab: SampleTable, idx, spec: MetricSpec) -> LabelInfo:
    """What the baseline formulas need about the units of one template (their line(s) ``idx`` in ``tab``)."""
    fam = families.find(family)
    kind = fam.baseline if fam is not None else "none"
    if unit == "query":
        return _ranking_info(tab, idx, spec)
    if kind == "classification" or (spec.agg in corpus.STATISTICS and corpus.statistic(spec.agg).average):
        return _classification_info(tab, idx, spec)
    if kind == "choice":
        return _choice_info(tab, idx)
    if kind == "generation" or spec.name in ROUGE_METRICS:
        docs, refs = tab.column("document"), tab.column("summary")
        return LabelInfo("generation", documents=[docs[i] for i in idx], references=[refs[i] for i in idx])
    return LabelInfo("none")


def table_baselines(spec_str: str) -> dict[tuple[str, str], Baseline]:
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
            out[(str(r["group"]), str(r["metric"]))] = Baseline(float(r["baseline"]), str(r.get("method") or "table"))
        except (KeyError, TypeError, ValueError):
            raise SharpeInputError(
                f"{path}: each row needs group, metric, baseline (number), method; got {r}"
            ) from None
    return out


def _metadata_baseline(row: Row, spec: MetricSpec) -> Baseline | None:
    vals = set()
    for by_t in row.runs.values():
        for t in row.templates:
            b = by_t[t].taskmeta.baseline
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
    return Baseline(v, f"metadata:{m}")


def _computed_baseline(row: Row, cells: Cells | None, spec: MetricSpec, method: str, opts: Options) -> Baseline:
    """The formula baseline per template on the shared units (label information from ``cells``, the first model
    with samples); per-template values b_t when the templates differ in label set."""
    per_t = {}
    for ti, tid in enumerate(row.templates):
        info = (
            label_info(row.family, row.unit, cells.tables[ti], cells.lines[ti], spec)
            if cells is not None
            else LabelInfo("none")
        )
        per_t[tid] = compute(
            spec.name, row.family, spec.agg or "mean", info, method, opts.seed, opts.generation_baseline
        )
    vals = {None if b.value is None else round(b.value, 12) for b in per_t.values()}
    first = per_t[row.templates[0]]
    if len(vals) == 1:
        return first
    if None in vals:
        return Baseline(None, "unavailable", note="label information missing for some templates")
    return Baseline(
        float(np.mean([per_t[t].value for t in row.templates])),
        first.method,
        per_template={t: per_t[t].value for t in row.templates},
        note="templates differ in label set: per-template baselines b_t",
    )


def row_baselines(row: Row, cells: dict[str, Cells], opts: Options, table: dict) -> dict[str, Baseline]:
    """metric → b: a ``--baseline table:PATH`` entry (group or dataset name) > ``metadata.baseline`` > formula."""
    method = opts.baseline if not opts.baseline.startswith("table:") else "uniform"
    first = next((cells[m] for m in row.models if m in cells), None)
    out = {}
    for spec in row.metrics:
        if (row.name, spec.name) in table or (row.dataset, spec.name) in table:
            b = table.get((row.name, spec.name)) or table[(row.dataset, spec.name)]
            out[spec.name] = Baseline(b.value, f"table:{b.method}")
            continue
        meta = _metadata_baseline(row, spec) if method != "none" else None
        out[spec.name] = meta if meta is not None else _computed_baseline(row, first, spec, method, opts)
    return out
