"""Expected score of an uninformative predictor (docs/sharpe.md#baselines: the methods, the formulas and their
precedence): the Sharpe score's "risk-free" term b, and the baseline of each dataset row and metric
(:func:`row_baselines`: ``--baseline table:PATH``, a template's ``metadata.baseline``, else the formulas on the label
information of the row's cells).

``uniform``: a uniformly random valid label per document (never an invalid string); ``majority``: always the most
frequent gold label (ties → first in the label list). Every function is exact (no Monte-Carlo) and states its
formula unless its name says ``simulated``; the simulated versions check the exact ones (``--baseline simulated``).
Entity F1, KPI adjusted F1, float-equivalence accuracy and ROUGE have b = 0 (an uninformed generator scores ~0),
ROUGE with ``--generation_baseline lead-K`` the ROUGE of the lead-K summary (:func:`lead_baseline`).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from functools import lru_cache
from pathlib import Path

import numpy as np

from .. import families
from ..configkeys import QUESTION_FIELD
from ..scoring import corpus
from ..scoring.metrics import average_f1, f1_finalize
from ..text import norm
from .cells import Cells
from .inputs import Options, SampleTable, SharpeInputError, parse_generation_baseline
from .rows import MetricSpec, Row

SIMULATION_DRAWS = 10_000


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


# ----------------------------------------------------------------------------------------------------- accuracy
def uniform_accuracy(k: int) -> float:
    """Exactly 1/k for k valid labels/options."""
    if k < 1:
        raise ValueError("uniform_accuracy: need at least one option")
    return 1.0 / k


def majority_share(counts: Sequence[int]) -> float:
    """p_max = max_j n_j / N (accuracy of always predicting the majority class)."""
    n = sum(counts)
    if n <= 0:
        raise ValueError("majority baseline: no gold labels")
    return max(counts) / n


def majority_index(counts: Sequence[int]) -> int:
    """Index of the most frequent class; ties → the first in label order."""
    return list(counts).index(max(counts))


# ----------------------------------------------------------------------------------------------------- F1
def _binom_pmf_range(n: int, q: float) -> tuple[np.ndarray, np.ndarray]:
    """(values, pmf) of Bin(n, q), restricted to mean ± 12 sd (+10) when n is large (outside mass < 1e-30)."""
    from scipy.stats import binom

    if n <= 2000:
        lo, hi = 0, n
    else:
        m, sd = n * q, math.sqrt(n * q * (1 - q))
        lo, hi = max(0, int(m - 12 * sd - 10)), min(n, int(m + 12 * sd + 10))
    x = np.arange(lo, hi + 1)
    return x, binom.pmf(x, n, q)


@lru_cache(maxsize=4096)
def expected_f1_class(n_j: int, n_total: int, k: int) -> float:
    """Exact E[F1_j] of class j (n_j gold of N = n_total) under the uniform predictor over k labels, q = 1/k:
    TP_j ~ Bin(n_j, q), FP_j ~ Bin(N − n_j, q) independent,
    E[F1_j] = Σ_a Σ_c Bin(a; n_j, q)·Bin(c; N − n_j, q)·2a/(n_j + a + c) (a term with a zero denominator is 0)."""
    if not 0 <= n_j <= n_total or k < 1:
        raise ValueError(f"expected_f1_class: bad counts n_j={n_j}, N={n_total}, k={k}")
    if n_j == 0:
        return 0.0  # F1 = 2TP/(2TP+FP+FN) with TP = 0
    q = 1.0 / k
    a, pa = _binom_pmf_range(n_j, q)
    c, pc = _binom_pmf_range(n_total - n_j, q)
    den = n_j + a[:, None] + c[None, :]
    f1 = np.where(den > 0, 2.0 * a[:, None] / np.maximum(den, 1), 0.0)
    return float(pa @ f1 @ pc)


def _average(per: np.ndarray, counts: list[int], average: str, positive: int | None) -> float:
    """The F1 of per-class values ``per``: the positive class's for ``binary``, else their ``average``
    (:func:`lm_eval_enterprise.scoring.metrics.average_f1` with the gold counts as support)."""
    if average != "binary":
        return float(average_f1(per, np.array(counts, dtype=float), average)[0])
    if positive is None:
        raise ValueError("binary F1 baseline needs the positive class index")
    return float(per[positive])


def uniform_f1(counts: Sequence[int], average: str, positive: int | None = None) -> float:
    """Exact expected F1 of the uniform predictor, k = len(counts) labels: weighted Σ_j (n_j/N)·E[F1_j], macro the
    mean of E[F1_j] over the classes present in the gold answers, binary E[F1_c] (:func:`expected_f1_class`)."""
    counts = [int(c) for c in counts]
    n, k = sum(counts), len(counts)
    if n <= 0:
        raise ValueError("uniform F1 baseline: no gold labels")
    return _average(np.array([expected_f1_class(c, n, k) for c in counts]), counts, average, positive)


def majority_f1(counts: Sequence[int], average: str, positive: int | None = None) -> float:
    """Expected F1 of always predicting the majority class m (share p; ties → first label): F1_m = 2p/(1 + p), the
    other classes 0, so weighted p·2p/(1 + p), macro (1/|G|)·2p/(1 + p) (G: the classes present), binary
    2p_c/(1 + p_c) if c is the majority class, else 0."""
    counts = [int(c) for c in counts]
    p = majority_share(counts)
    per = np.zeros(len(counts))
    per[majority_index(counts)] = 2 * p / (1 + p)
    return _average(per, counts, average, positive)


# ----------------------------------------------------------------------------------------------------- ranking
def expected_rr_at_k(n_cand: int, n_rel: int, k: int) -> float:
    """Exact E[RR@k] of a random permutation of C = ``n_cand`` candidates with R = ``n_rel`` relevant:
    E = Σ_{r=1}^{min(k, C−R+1)} (1/r)·C(C−r, R−1)/C(C, R); R = 0 → 0 (H_k/C for R = 1, k ≤ C)."""
    if n_rel <= 0:
        return 0.0
    if n_rel > n_cand:
        raise ValueError(f"RR baseline: {n_rel} relevant of {n_cand} candidates")
    total = math.comb(n_cand, n_rel)
    return sum(math.comb(n_cand - r, n_rel - 1) / total / r for r in range(1, min(k, n_cand - n_rel + 1) + 1))


def expected_ndcg_at_k(n_cand: int, n_rel: int, k: int) -> float:
    """Exact E[NDCG@k] (binary gains) of a random permutation: each position is relevant with probability R/C, so
    E = (R/C)·Σ_{i≤min(k,C)} 1/log2(i+1) / IDCG(R, k) (the ideal DCG is constant); R = 0 → 0."""
    if n_rel <= 0:
        return 0.0
    dcg = n_rel / n_cand * sum(1 / math.log2(i + 1) for i in range(1, min(k, n_cand) + 1))
    ideal = sum(1 / math.log2(i + 1) for i in range(1, min(n_rel, k) + 1))
    return dcg / ideal


def mean_expected_ranking(queries: Sequence[tuple[int, int]], metric: str, k: int) -> float:
    """Mean over queries (C, R) of the expected RR@k or NDCG@k."""
    if not queries:
        raise ValueError("ranking baseline: no queries")
    fn = expected_rr_at_k if metric == "rr" else expected_ndcg_at_k
    return float(sum(fn(c, r, k) for c, r in queries) / len(queries))


# ----------------------------------------------------------------------------------------------------- simulation
def simulated_uniform(
    gold: Sequence[int], k: int, metric: str, positive: int | None = None, draws: int = SIMULATION_DRAWS, seed: int = 0
) -> tuple[float, float]:
    """Monte-Carlo (mean, standard error) of accuracy / weighted / macro / binary F1 of the uniform predictor.

    ``np.random.default_rng(seed)``; draw i is ``rng.integers(0, k, N)`` (the same stream as one (draws, N) call).
    """
    g = np.asarray(gold, dtype=int)
    rng = np.random.default_rng(seed)
    values = np.empty(draws)
    chunk = max(1, 2_000_000 // max(len(g), 1))
    for s in range(0, draws, chunk):
        preds = rng.integers(0, k, (min(chunk, draws - s), len(g)))
        if metric == "accuracy":
            v = (preds == g[None, :]).mean(1)
        elif metric in ("weighted", "macro", "binary"):  # the metric's own F1: summed f1_stats, then f1_finalize
            hit = preds[:, :, None] == np.arange(k)  # draws × N × k
            tp = (hit & (g[:, None] == np.arange(k))).sum(1)
            sums = np.hstack([tp, np.broadcast_to(np.bincount(g, minlength=k), tp.shape), hit.sum(1)])
            v = f1_finalize(sums[:, [positive, k + positive, 2 * k + positive]] if metric == "binary" else sums, metric)
        else:
            raise ValueError(metric)
        values[s : s + len(v)] = v
    return float(values.mean()), float(values.std(ddof=1) / math.sqrt(draws))


def simulated_ranking(
    queries: Sequence[tuple[int, int]], metric: str, k: int, draws: int = SIMULATION_DRAWS, seed: int = 0
) -> tuple[float, float]:
    """Monte-Carlo (mean, se) of mean RR@k / NDCG@k under random permutations (relevant items placed first
    in the candidate list, then permuted: rng.permutation per query per draw)."""
    from ..scoring.metrics import ndcg, reciprocal_rank

    rng = np.random.default_rng(seed)
    values = np.empty(draws)
    for i in range(draws):
        tot = 0.0
        for c, r in queries:
            rel = np.zeros(c, dtype=int)
            rel[:r] = 1
            order = rel[rng.permutation(c)]
            tot += reciprocal_rank(order, k) if metric == "rr" else ndcg(order, k)
        values[i] = tot / len(queries)
    return float(values.mean()), float(values.std(ddof=1) / math.sqrt(draws))


# ----------------------------------------------------------------------------------------------------- generation
ROUGE_METRICS = ("rouge_l", "rouge_1", "rouge_2")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\s*\n+\s*")


def lead_sentences(text: str, k: int) -> str:
    """The first ``k`` sentences of ``text`` (a sentence ends at ``.``, ``!`` or ``?`` followed by whitespace, or at
    a line break; a simple rule: abbreviations such as "U.S. " also end a sentence)."""
    parts = [p for p in _SENTENCE_END.split(str(text).strip()) if p]
    return " ".join(parts[:k])


def lead_baseline(documents: Sequence[str], references: Sequence[str], k: int, metric: str) -> float:
    """Mean ``metric`` (rouge_l / rouge_1 / rouge_2) of the lead-``k`` summary of each document against its
    reference."""
    from ..scoring.metrics import rouge

    if not documents:
        raise ValueError("lead baseline: no documents")
    return float(np.mean([rouge(ref, lead_sentences(doc, k))[metric] for doc, ref in zip(documents, references)]))


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
