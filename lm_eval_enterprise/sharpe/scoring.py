"""Per-template scores recomputed from logged samples, fast enough for thousands of bootstrap resamples.

Every metric of a task family (:mod:`lm_eval_enterprise.families`) is a function of **sums over documents** of
per-document statistics: a mean is (Σ y, Σ 1), weighted/macro/binary F1 are per-class (Σ TP, Σ gold, Σ pred),
entity F1 is (Σ TP, Σ FP, Σ FN), KPI adjusted F1 is (Σ O_t, Σ P_t, Σ G_t) per tag and RR@k / NDCG@k are means of
per-query values. A :class:`Scorer` therefore holds a feature matrix F (units × f) and a ``finalize`` that maps
sums to the score; a resample with document multiplicities W (B × units) scores as ``finalize(W @ F)`` — one
matrix product for all resamples, templates and models. The per-document statistics are computed with the
same functions the lm-eval aggregations use (``lm_eval_enterprise.scoring.metrics``), and ``tests/test_sharpe_scoring.py``
checks every fast path against the hook aggregation (``hooks.agg_*``) on random data and resamples.

A metric whose aggregation has no fast path falls back to calling the hook aggregation on the resampled item
list (exact, slower: :class:`ItemScorer`).

Units: documents, except for ranking families (one sample line per (query, candidate)), whose unit is the
query: candidate lines are grouped by qid, RR@k / NDCG@k are per-query values, and candidate-level means
(``yes_accuracy``, ``format_failure``) are carried as (Σ over candidates, #candidates) so the full-data value
equals lm-eval's candidate-level mean.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from .. import families
from ..scoring import hooks
from ..scoring import metrics as M
from ..text import norm


class ScoringError(ValueError):
    """Samples cannot be scored (malformed item, unknown aggregation)."""


class _UnitScorer:
    """What both scorers share: the per-unit values and the score of one weighting of the units.

    ``per_doc``: per-unit values in [0, 1] for PSS and permutation tests (mean metrics: the value; F1 metrics: the
    per-document correctness; ranking: the per-query value), or ``None`` when the metric has none.
    ``per_doc_is_metric``: True when the score is exactly the mean of ``per_doc`` (permutation test allowed).
    ``per_doc_kind``: what ``per_doc`` holds ("value", "correct") or ``None``.
    """

    def __init__(self, per_doc: np.ndarray | None, per_doc_is_metric: bool, per_doc_kind: str | None):
        self.per_doc = per_doc
        self.per_doc_is_metric = per_doc_is_metric
        self.per_doc_kind = per_doc_kind

    @property
    def n_units(self) -> int:
        raise NotImplementedError

    def scores(self, weights: np.ndarray) -> np.ndarray:
        """Scores for each row of ``weights`` (B × units document multiplicities; 0 = dropped)."""
        raise NotImplementedError

    def score(self, weights: np.ndarray | None = None) -> float:
        w = np.ones(self.n_units) if weights is None else weights
        return float(self.scores(w[None, :])[0])


class Scorer(_UnitScorer):
    """Linear-statistics scorer: ``score(w) = finalize(w @ features)`` (per-unit fields: :class:`_UnitScorer`)."""

    linear = True

    def __init__(
        self,
        features: np.ndarray,
        finalize: Callable[[np.ndarray], np.ndarray],
        per_doc: np.ndarray | None,
        per_doc_is_metric: bool,
        per_doc_kind: str | None,
    ):
        super().__init__(per_doc, per_doc_is_metric, per_doc_kind)
        self.features = np.ascontiguousarray(features, dtype=float)
        self._finalize = finalize

    @property
    def n_units(self) -> int:
        return self.features.shape[0]

    def finalize(self, sums: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            return self._finalize(np.atleast_2d(sums))

    def scores(self, weights: np.ndarray) -> np.ndarray:
        return self.finalize(np.atleast_2d(weights) @ self.features)

    def masked(self, keep: np.ndarray) -> Scorer:
        """The same metric on the units with ``keep`` (used for the parsed-only scoring mode)."""
        k = np.asarray(keep, dtype=float)[:, None]
        return Scorer(self.features * k, self._finalize, self.per_doc, self.per_doc_is_metric, self.per_doc_kind)


class ItemScorer(_UnitScorer):
    """Exact fallback: the hook aggregation called on the resampled list of items (no vectorisation)."""

    linear = False

    def __init__(
        self,
        items: Sequence[Any],
        agg: Callable[[Sequence[Any]], float],
        per_doc: np.ndarray | None,
        per_doc_is_metric: bool = False,
        per_doc_kind: str | None = None,
    ):
        super().__init__(per_doc, per_doc_is_metric, per_doc_kind)
        self.items = list(items)
        self.agg = agg

    @property
    def n_units(self) -> int:
        return len(self.items)

    def scores(self, weights: np.ndarray) -> np.ndarray:
        out = np.empty(np.atleast_2d(weights).shape[0])
        for b, w in enumerate(np.atleast_2d(weights)):
            rep = [it for it, n in zip(self.items, np.rint(w).astype(int)) if n > 0 for _ in range(n)]
            try:
                out[b] = self.agg(rep) if rep else np.nan
            except M.MetricInputError:
                out[b] = np.nan
        return out

    def masked(self, keep: np.ndarray) -> ItemScorer:
        items = self.items
        scorer = ItemScorer(items, self.agg, self.per_doc, self.per_doc_is_metric, self.per_doc_kind)
        keep = np.asarray(keep, dtype=bool)
        base = scorer.scores

        def scores(weights: np.ndarray) -> np.ndarray:
            return base(np.atleast_2d(weights) * keep[None, :])

        scorer.scores = scores  # type: ignore[method-assign]
        return scorer


# ------------------------------------------------------------------------------------------------ finalizers
def _ratio(sums: np.ndarray) -> np.ndarray:
    return np.where(sums[:, 1] > 0, sums[:, 0] / np.where(sums[:, 1] > 0, sums[:, 1], 1), np.nan)


def _class_f1(tp: np.ndarray, gold: np.ndarray, pred: np.ndarray) -> np.ndarray:
    den = gold + pred
    return np.where(den > 0, 2 * tp / np.where(den > 0, den, 1), 0.0)


def mean_scorer(values: Sequence[float]) -> Scorer:
    """Mean of per-document values (lm-eval ``aggregation: mean``)."""
    y = np.asarray(values, dtype=float)
    if y.ndim != 1 or not np.all(np.isfinite(y)):
        raise ScoringError("per-document values must be finite numbers")
    feats = np.column_stack([y, np.ones_like(y)])
    return Scorer(feats, _ratio, y, True, "value")


def grouped_mean_scorer(sums: Sequence[float], counts: Sequence[float], per_doc_is_metric: bool = False) -> Scorer:
    """Candidate-level mean carried per query as (Σ values, #candidates)."""
    s, c = np.asarray(sums, dtype=float), np.asarray(counts, dtype=float)
    return Scorer(np.column_stack([s, c]), _ratio, s / c, per_doc_is_metric, "value")


def classification_scorer(items: Sequence[dict], average: str) -> Scorer:
    """[WF1]/[MF1]/[BF1] from ``{"gold", "pred", "labels"|"positive"}`` items (the hooks' sample values).

    As in :func:`lm_eval_enterprise.scoring.metrics._indicators`: gold and prediction are compared after ``norm`` with the
    label list of the first item; a prediction equal to no label is an all-zero indicator row.
    """
    if not items:
        raise ScoringError("no items")
    try:
        if average == "binary":
            labels = [items[0]["positive"]]
        else:
            labels = list(items[0]["labels"])
        golds = [it["gold"] for it in items]
        preds = [it["pred"] for it in items]
    except (KeyError, TypeError) as exc:
        raise ScoringError(f"malformed {average} F1 sample value {items[0]!r}: {exc}") from None
    index = {norm(lab): j for j, lab in enumerate(labels)}
    k = len(labels)
    to_idx: dict[str, int] = {}  # raw string → label index (-1: no label); norm once per distinct string

    def indices(strings: list[str]) -> np.ndarray:
        for x in set(strings) - to_idx.keys():
            to_idx[x] = index.get(norm(x), -1)
        return np.fromiter((to_idx[x] for x in strings), dtype=np.int64, count=len(strings))

    g = indices(golds)
    p = indices(preds)
    if average != "binary" and (g < 0).any():
        bad = golds[int(np.argmax(g < 0))]
        raise ScoringError(f"gold label {bad!r} is not in the label set {labels}")
    n = len(g)
    gold_1h = np.zeros((n, k))
    pred_1h = np.zeros((n, k))
    rows = np.arange(n)
    gold_1h[rows[g >= 0], g[g >= 0]] = 1.0
    pred_1h[rows[p >= 0], p[p >= 0]] = 1.0
    tp = gold_1h * pred_1h
    feats = np.hstack([tp, gold_1h, pred_1h])
    # per-document correctness = hooks' accuracy (metrics.exact_match: an unparsed "[invalid]" is never correct)
    if average == "binary":  # needs the full label set, not just the positive class
        nmap = {x: norm(x) for x in set(golds) | set(preds)}
        correct = np.array([float(nmap[a] == nmap[b] and b != M.INVALID) for a, b in zip(golds, preds)])
    else:
        valid = np.fromiter((x != M.INVALID for x in preds), dtype=bool, count=len(preds))
        correct = ((g == p) & (p >= 0) & valid).astype(float)

    def finalize(s: np.ndarray) -> np.ndarray:
        return _f1_from_sums(s, k, average)

    questions = [it.get(hooks.QUESTION_FIELD) if isinstance(it, dict) else None for it in items]
    if any(q is not None for q in questions):  # documents = item × question: mean over questions ([QMEAN])
        return _per_question_scorer(feats, questions, finalize, correct)
    return Scorer(feats, finalize, correct, False, "correct")


def _f1_from_sums(s: np.ndarray, k: int, average: str) -> np.ndarray:
    """[WF1]/[MF1]/[BF1] from summed (TP, gold, pred) indicator columns (k labels each), one row per resample."""
    f1 = _class_f1(s[:, :k], s[:, k : 2 * k], s[:, 2 * k :])
    if average == "binary":
        return f1[:, 0]
    if average == "macro":
        return f1.mean(1)
    support = s[:, k : 2 * k]
    tot = support.sum(1)
    return np.where(tot > 0, (f1 * support).sum(1) / np.where(tot > 0, tot, 1), 0.0)


def _per_question_scorer(feats: np.ndarray, questions: list, finalize, correct: np.ndarray) -> Scorer:
    """The corpus metric of each question (``finalize`` on that question's summed features), then the mean over
    the questions present in the resample — :func:`lm_eval_enterprise.scoring.metrics.mean_over_questions` as sums:
    question q's documents carry their features (and a document count) in block q of the feature row."""
    if any(q is None for q in questions):
        raise ScoringError(f"{questions.count(None)} of {len(questions)} items lack {hooks.QUESTION_FIELD!r}")
    names = list(dict.fromkeys(str(q) for q in questions))
    col = {q: j for j, q in enumerate(names)}
    n, f = feats.shape
    width = f + 1
    block = np.zeros((n, len(names) * width))
    for i, q in enumerate(questions):
        j = col[str(q)] * width
        block[i, j : j + f] = feats[i]
        block[i, j + f] = 1.0

    def mean_over_questions(s: np.ndarray) -> np.ndarray:
        per = s.reshape(s.shape[0], len(names), width)
        present = per[:, :, f] > 0
        scores = finalize(per[:, :, :f].reshape(-1, f)).reshape(s.shape[0], len(names))
        n_present = present.sum(1)
        total = np.where(present, scores, 0.0).sum(1)
        return np.where(n_present > 0, total / np.where(n_present > 0, n_present, 1), np.nan)

    return Scorer(block, mean_over_questions, correct, False, "correct")


@lru_cache(maxsize=200_000)
def _entity_counter(text: str, types: tuple[str, ...]) -> Counter | None:
    """Multiset of (phrase, type) keys of :func:`metrics.parse_entities` (cached: gold strings recur for every model
    and template; the returned Counter is only read)."""
    ents = M.parse_entities(text, M.entity_type_table(list(types)))
    return None if ents is None else Counter(ents)


def entity_scorer(items: Sequence[dict], which: str) -> Scorer:
    """[EF1] micro precision / recall / F1 from per-document (TP, FP, FN) of :func:`metrics.entity_prf`."""
    if not items:
        raise ScoringError("no items")
    types = tuple(items[0]["types"])

    def parsed(text: str) -> Counter | None:
        return _entity_counter(text, types)

    rows = []
    for it in items:
        gc = parsed(it["gold"])
        if gc is None:
            raise ScoringError(f"unparsable gold entity string {it['gold']!r}")
        pc = (None if it["pred"] == M.INVALID else parsed(it["pred"])) or Counter()
        t = sum((gc & pc).values())
        rows.append((t, sum(pc.values()) - t, sum(gc.values()) - t))
    feats = np.array(rows, dtype=float).reshape(-1, 3)

    def finalize(s: np.ndarray) -> np.ndarray:
        tp, fp, fn = s[:, 0], s[:, 1], s[:, 2]
        p = np.where(tp + fp > 0, tp / np.where(tp + fp > 0, tp + fp, 1), 0.0)
        r = np.where(tp + fn > 0, tp / np.where(tp + fn > 0, tp + fn, 1), 0.0)
        f = np.where(p + r > 0, 2 * p * r / np.where(p + r > 0, p + r, 1), 0.0)
        return {"f1": f, "precision": p, "recall": r}[which]

    return Scorer(feats, finalize, None, False, None)


def _adjusted_vec(o: np.ndarray, p: np.ndarray, g: np.ndarray) -> np.ndarray:
    r = np.where(g > 0, o / np.where(g > 0, g, 1), 0.0)
    q = np.where(p > 0, (p - o) / np.where(p > 0, p, 1), 0.0)
    den = 2 * r + q + (1 - r)
    return np.where((g > 0) & (den != 0), 2 * r / np.where(den != 0, den, 1), 0.0)


def kpi_scorer(items: Sequence[dict], which: str) -> Scorer:
    """[KPIF1] from per-document (O, P, G) word counts per tag (:func:`metrics.kpi_word_counts`, read with the
    metric's own parser: ``metrics.KPI_METRICS[which][0]``)."""
    if not items:
        raise ScoringError("no items")
    tags = M.KPI_TAGS
    reader = M.KPI_METRICS[which][0] if which in M.KPI_METRICS else "ibm"
    rows = []
    for it in items:
        c = M.kpi_word_counts(it["gold"], it["pred"], reader)
        rows.append([v for t in tags for v in c[t]])
    feats = np.array(rows, dtype=float).reshape(-1, 3 * len(tags))

    def finalize(s: np.ndarray) -> np.ndarray:
        o, p, g = s[:, 0::3], s[:, 1::3], s[:, 2::3]
        if which in ("word_macro_f1", "word_macro_f1_helm"):
            den = 2 * o + (p - o) + (g - o)
            v = np.where(den > 0, 2 * o / np.where(den > 0, den, 1), 0.0)
        elif which == "adjusted_macro_f1":
            v = _adjusted_vec(o, p, g)
        elif which == "adjusted_macro_f1_helm":
            v = _adjusted_vec(o, g, p)
        else:
            raise ScoringError(which)
        return v.sum(1) / len(tags)

    return Scorer(feats, finalize, None, False, None)


def ranking_query_values(query_items: Sequence[Sequence], metric: str, k: int) -> float:
    """RR@k or NDCG@k of one query from its candidate items, with :func:`metrics.rank_queries` ordering."""
    ranked = M.rank_queries(query_items)
    if len(ranked) != 1:
        raise ScoringError("ranking unit must hold exactly one query")
    qid, rel = next(iter(ranked.items()))
    if metric == "rr":
        return M.reciprocal_rank(rel, k)
    # unretrieved candidates (key None: generation-based ranking) still count in the ideal DCG
    return M.ndcg(rel, k, M.relevant_counts(query_items)[qid])


def ranking_scorer(queries: Sequence[Sequence[Sequence]], metric: str, k: int) -> Scorer:
    """Mean over queries of per-query RR@k / NDCG@k (= ``hooks.agg_rr_at_k`` on the full item list)."""
    vals = np.array([ranking_query_values(q, metric, k) for q in queries], dtype=float)
    return Scorer(np.column_stack([vals, np.ones_like(vals)]), _ratio, vals, True, "value")


# ------------------------------------------------------------------------------------------------ dispatch
FAST_AGGREGATIONS = {
    "agg_weighted_f1": lambda items, m: classification_scorer(items, "weighted"),
    "agg_macro_f1": lambda items, m: classification_scorer(items, "macro"),
    "agg_binary_f1": lambda items, m: classification_scorer(items, "binary"),
    "agg_entity_f1": lambda items, m: entity_scorer(items, "f1"),
    "agg_entity_precision": lambda items, m: entity_scorer(items, "precision"),
    "agg_entity_recall": lambda items, m: entity_scorer(items, "recall"),
    "agg_adjusted_macro_f1": lambda items, m: kpi_scorer(items, "adjusted_macro_f1"),
    "agg_word_macro_f1": lambda items, m: kpi_scorer(items, "word_macro_f1"),
    "agg_adjusted_macro_f1_helm": lambda items, m: kpi_scorer(items, "adjusted_macro_f1_helm"),
    "agg_word_macro_f1_helm": lambda items, m: kpi_scorer(items, "word_macro_f1_helm"),
}


def ranking_aggregation(agg: str) -> tuple[str, int] | None:
    """("rr"|"ndcg", k) for ``agg_rr_at_<k>`` / ``agg_ndcg_at_<k>``, else None."""
    for prefix, name in (("agg_rr_at_", "rr"), ("agg_ndcg_at_", "ndcg")):
        if agg.startswith(prefix) and agg[len(prefix) :].isdigit():
            return name, int(agg[len(prefix) :])
    return None


def _metric_tables(family: str | None) -> list[Any]:
    """The metric tables of a family: its metrics and its HELM-reading metrics (e.g. ``weighted_f1_helm``), which
    the HELM-prompt template adds (its record in :mod:`lm_eval_enterprise.families`)."""
    fam = families.find(family)
    return [] if fam is None else [fam.metrics, fam.helm_metrics]


def aggregation_of(family: str | None, metric: str) -> str | None:
    """Aggregation name of ``metric`` (``"mean"`` or a ``hooks`` function): from the family's tables
    (:mod:`lm_eval_enterprise.families`), else the unique aggregation that metric has across all families, else
    None."""
    for table in _metric_tables(family):
        if metric in table:
            return table[metric][0]
    found = {t[metric][0] for f in families.FAMILIES.values() for t in (f.metrics, f.helm_metrics) if metric in t}
    return found.pop() if len(found) == 1 else None


def build_doc_scorer(agg: str, items: Sequence[Any], metric: str) -> Scorer | ItemScorer:
    """Scorer for document units: ``items[d]`` is the sample line's value of ``metric`` for document d."""
    if agg == "mean":
        try:
            return mean_scorer([float(v) for v in items])
        except (TypeError, ValueError):
            raise ScoringError(f"{metric}: per-document values are not numbers (e.g. {items[0]!r})") from None
    fast = FAST_AGGREGATIONS.get(agg)
    try:
        if fast is not None:
            return fast(items, metric)
    except (KeyError, TypeError, IndexError) as exc:
        raise ScoringError(f"{metric}: malformed sample value {items[0]!r} ({exc})") from None
    fn = getattr(hooks, agg, None)
    if fn is None or not callable(fn):
        raise ScoringError(f"{metric}: aggregation {agg!r} is not a function of lm_eval_enterprise.scoring.hooks")
    return ItemScorer(items, fn, None)


def build_query_scorer(agg: str, queries: Sequence[Sequence[Any]], metric: str) -> Scorer:
    """Scorer for query units (ranking families): ``queries[q]`` lists the candidate values of ``metric``."""
    rank = ranking_aggregation(agg)
    if rank is not None:
        try:
            return ranking_scorer(queries, *rank)
        except (KeyError, TypeError, IndexError, ValueError) as exc:
            raise ScoringError(f"{metric}: malformed ranking item ({exc})") from None
    if agg == "mean":
        try:
            sums = [sum(float(v) for v in q) for q in queries]
        except (TypeError, ValueError):
            raise ScoringError(f"{metric}: per-candidate values are not numbers") from None
        return grouped_mean_scorer(sums, [len(q) for q in queries])
    raise ScoringError(f"{metric}: aggregation {agg!r} is not supported for query units (ranking families)")
