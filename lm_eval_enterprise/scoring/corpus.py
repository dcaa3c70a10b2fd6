"""Corpus metrics as sufficient statistics: the one table from an aggregation name to how its score is computed.

Every aggregation a task family names (its record in :mod:`lm_eval_enterprise.families`: ``"mean"`` or a hooks
function such as ``agg_macro_f1``) has one :class:`Statistic` in :data:`STATISTICS`: how the per-document items
that ``process_results`` logs become per-unit statistics, the finalize step of
:mod:`lm_eval_enterprise.scoring.metrics` that turns summed statistics into the score, the unit (document or
query) and the rule of its no-information baseline. lm-eval's aggregations (``hooks.agg_*``), the Sharpe tool's
recomputation and bootstrap, parsed-only scoring, the sparse and population estimators and the baselines all go
through it, so a metric is defined once and no other module maps aggregation names to kinds.

A :class:`Stats` is one metric on one list of units: ``scores(W)`` scores each row of unit weights (B × n;
multiplicities of a bootstrap resample, 0 = left out) — for a linear statistic ``finalize(W @ features)``, one
matrix product for every resample. ``per_doc`` holds the per-unit values behind PSS and the permutation tests
(the value of a mean metric, the correctness of a classification, the per-query value of a ranking metric).
Spearman ρ is the one statistic that is not linear in the weights (ranks change with the resample): it ranks
each resample itself (:func:`~lm_eval_enterprise.scoring.metrics.spearman_scores`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache, partial
from typing import Any

import numpy as np

from ..configkeys import QUESTION_FIELD
from . import metrics as M


class Stats:
    """One metric's per-unit statistics on one list of units (see the module docstring).

    ``per_doc``: per-unit values for PSS and permutation tests, or ``None``; ``per_doc_is_metric``: the score is
    exactly the mean of ``per_doc``; ``per_doc_kind``: ``"value"``, ``"correct"`` or ``None``; ``layout``: the
    feature layout the sparse estimator's cell models know (``None``: no cell model).
    """

    linear = False
    layout: tuple | None = None

    def __init__(self, per_doc: np.ndarray | None, per_doc_is_metric: bool, per_doc_kind: str | None):
        self.per_doc = per_doc
        self.per_doc_is_metric = per_doc_is_metric
        self.per_doc_kind = per_doc_kind

    @property
    def n_units(self) -> int:
        raise NotImplementedError

    def scores(self, weights: np.ndarray) -> np.ndarray:
        """Scores for each row of ``weights`` (B × units unit multiplicities; 0 = left out)."""
        raise NotImplementedError

    def score(self, weights: np.ndarray | None = None) -> float:
        w = np.ones(self.n_units) if weights is None else weights
        return float(self.scores(np.asarray(w, dtype=float)[None, :])[0])

    def masked(self, keep: np.ndarray) -> Stats:
        """The same metric on the units with ``keep`` (parsed-only scoring)."""
        raise NotImplementedError


class LinearStats(Stats):
    """``score(w) = finalize(w @ features)``."""

    linear = True

    def __init__(
        self,
        features: np.ndarray,
        finalize: Callable[[np.ndarray], np.ndarray],
        per_doc: np.ndarray | None = None,
        per_doc_is_metric: bool = False,
        per_doc_kind: str | None = None,
        layout: tuple | None = None,
    ):
        super().__init__(per_doc, per_doc_is_metric, per_doc_kind)
        self.features = np.ascontiguousarray(features, dtype=float)
        self._finalize = finalize
        self.layout = layout

    @property
    def n_units(self) -> int:
        return self.features.shape[0]

    def finalize(self, sums: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            return self._finalize(np.atleast_2d(sums))

    def scores(self, weights: np.ndarray) -> np.ndarray:
        return self.finalize(np.atleast_2d(weights) @ self.features)

    def masked(self, keep: np.ndarray) -> LinearStats:
        k = np.asarray(keep, dtype=float)[:, None]
        return LinearStats(
            self.features * k, self._finalize, self.per_doc, self.per_doc_is_metric, self.per_doc_kind, self.layout
        )


class RankStats(Stats):
    """Spearman ρ of (prediction, gold) pairs, ranked within each resample."""

    def __init__(self, pred: np.ndarray, gold: np.ndarray, keep: np.ndarray | None = None):
        super().__init__(None, False, None)
        self.pred, self.gold = np.asarray(pred, dtype=float), np.asarray(gold, dtype=float)
        self.keep = np.ones(len(self.pred)) if keep is None else np.asarray(keep, dtype=float)

    @property
    def n_units(self) -> int:
        return len(self.pred)

    def scores(self, weights: np.ndarray) -> np.ndarray:
        return M.spearman_scores(self.pred, self.gold, np.atleast_2d(weights) * self.keep[None, :])

    def masked(self, keep: np.ndarray) -> RankStats:
        return RankStats(self.pred, self.gold, self.keep * np.asarray(keep, dtype=float))


# ============================================================================================ the statistics
def _field(items: Sequence[Any], key: str, metric: str) -> list:
    try:
        return [it[key] for it in items]
    except (KeyError, TypeError, IndexError):
        bad = next(it for it in items if not isinstance(it, dict) or key not in it)
        raise M.MetricInputError(f"{metric}: malformed sample value {bad!r} (no {key!r})") from None


def _require_items(items: Sequence[Any], metric: str) -> None:
    if len(items) == 0:
        raise M.MetricInputError(f"{metric}: no items to score")


def mean_values(values: Sequence[Any], metric: str = "mean") -> LinearStats:
    """A mean of per-unit values (lm-eval's ``aggregation: mean``)."""
    try:
        y = np.array([float(v) for v in values], dtype=float)
    except (TypeError, ValueError):
        raise M.MetricInputError(f"{metric}: per-document values are not numbers (e.g. {values[0]!r})") from None
    if not np.all(np.isfinite(y)):
        raise M.MetricInputError(f"{metric}: per-document values must be finite numbers")
    return LinearStats(M.mean_stats(y), M.mean_finalize, y, True, "value", ("mean",))


def _per_question(stats: LinearStats, questions: list) -> LinearStats:
    """[QMEAN] the metric of each question (``finalize`` on that question's summed statistics), then the mean
    over the questions present in the resample (:func:`metrics.mean_over_questions` as sums): question q's
    units carry their statistics, and a unit count, in block q of the feature row."""
    if any(q is None for q in questions):
        raise M.MetricInputError(f"{questions.count(None)} of {len(questions)} items lack {QUESTION_FIELD!r}")
    names = list(dict.fromkeys(str(q) for q in questions))
    col = {q: j for j, q in enumerate(names)}
    n, f = stats.features.shape
    width = f + 1
    block = np.zeros((n, len(names) * width))
    for i, q in enumerate(questions):
        j = col[str(q)] * width
        block[i, j : j + f] = stats.features[i]
        block[i, j + f] = 1.0

    def mean_over_questions(s: np.ndarray) -> np.ndarray:
        per = s.reshape(s.shape[0], len(names), width)
        present = per[:, :, f] > 0
        scores = stats.finalize(per[:, :, :f].reshape(-1, f)).reshape(s.shape[0], len(names))
        return M._safe_div(np.where(present, scores, 0.0).sum(1), present.sum(1), np.nan)

    return LinearStats(block, mean_over_questions, stats.per_doc, False, stats.per_doc_kind, None)


def _questions(items: Sequence[Any]) -> list | None:
    """The items' question ids, or ``None`` when no item names one."""
    if not any(QUESTION_FIELD in it for it in items if isinstance(it, dict)):  # most datasets: one cheap pass
        return None
    qs = [it.get(QUESTION_FIELD) if isinstance(it, dict) else None for it in items]
    return qs if any(q is not None for q in qs) else None


def _label_items(items: Sequence[Any], metric: str, binary: bool = False):
    """(gold indices, predicted indices, labels) of classification sample items ``{gold, pred, labels}`` (binary:
    ``{gold, pred, positive}``; its one class is the positive one); the label list is the first item's."""
    _require_items(items, metric)
    first = items[0]
    if not isinstance(first, dict) or ("positive" if binary else "labels") not in first:
        raise M.MetricInputError(f"{metric}: malformed sample value {first!r}")
    labels = [first["positive"]] if binary else list(first["labels"])
    golds, preds = _field(items, "gold", metric), _field(items, "pred", metric)
    g = M.label_indices(golds, labels) if binary else M.gold_indices(golds, labels)
    return g, M.label_indices(preds, labels), labels, golds, preds


def _correct(golds: list, preds: list) -> np.ndarray:
    """Per-document correctness: :func:`metrics.exact_match` (an unparsed answer is never correct), evaluated once
    per distinct (gold, prediction) pair (a label task has few)."""
    seen = {pair: M.exact_match(*pair) for pair in dict.fromkeys(zip(golds, preds))}
    return np.fromiter(map(seen.__getitem__, zip(golds, preds)), dtype=float, count=len(golds))


def f1_items(items: Sequence[Any], average: str, metric: str = "f1") -> LinearStats:
    """[WF1]/[MF1]/[BF1] of classification items; a dataset made of questions scores the mean over questions."""
    g, p, labels, golds, preds = _label_items(items, metric, average == "binary")
    k = len(labels)
    stats = LinearStats(
        M.f1_stats(g, p, k), partial(M.f1_finalize, average=average), _correct(golds, preds), False, "correct"
    )
    stats.layout = ("classification", k)
    qs = _questions(items)
    return _per_question(stats, qs) if qs else stats


def precision_recall_items(items: Sequence[Any], which: str, metric: str = "weighted_precision") -> LinearStats:
    """Weighted precision or recall (``which``) of classification items, on the F1 statistics (mean over
    questions)."""
    g, p, labels, golds, preds = _label_items(items, metric)
    index = {"precision": 0, "recall": 1}[which]
    stats = LinearStats(
        M.f1_stats(g, p, len(labels)),
        lambda s: M.precision_recall_finalize(s)[index],
        _correct(golds, preds),
        False,
        "correct",
        ("classification", len(labels)),
    )
    qs = _questions(items)
    return _per_question(stats, qs) if qs else stats


def mcc_items(items: Sequence[Any], metric: str = "mcc") -> LinearStats:
    """[MCC] of classification items ``{gold, pred, labels}``."""
    g, p, labels, golds, preds = _label_items(items, metric)
    k = len(labels)
    return LinearStats(
        M.confusion_stats(g, p, k), partial(M.mcc_finalize, k=k), _correct(golds, preds), False, "correct"
    )


def _pairs(items: Sequence[Any], metric: str) -> tuple[np.ndarray, np.ndarray]:
    _require_items(items, metric)
    try:
        x = np.array([float(v) for v in _field(items, "pred", metric)])
        y = np.array([float(v) for v in _field(items, "gold", metric)])
    except (TypeError, ValueError):
        raise M.MetricInputError(f"{metric}: sample values are not numbers (e.g. {items[0]!r})") from None
    return x, y


def pearson_items(items: Sequence[Any], metric: str = "pearson") -> LinearStats:
    """[PEARSON] Pearson r of similarity items ``{pred, gold}`` (pred: the clipped reading, 2.5 if unreadable)."""
    x, y = _pairs(items, metric)
    return LinearStats(M.pearson_stats(x, y), M.pearson_finalize)


def spearman_items(items: Sequence[Any], metric: str = "spearman") -> RankStats:
    """[PEARSON] Spearman ρ of similarity items ``{pred, gold}``."""
    return RankStats(*_pairs(items, metric))


@lru_cache(maxsize=1 << 16)
def _entities(text: str, types: tuple[str, ...]) -> tuple[tuple[str, str], ...] | None:
    """:func:`metrics.parse_entities` of ``text`` with the task's ``types`` (``None``: unreadable), cached across
    calls: a gold string recurs under every template and model, and precision, recall and F1 read the same
    answers."""
    entities = M.parse_entities(text, types)
    return None if entities is None else tuple(entities)


@lru_cache(maxsize=1 << 16)
def _entity_row(gold: str, pred: str, types: tuple[str, ...]) -> tuple[int, int, int] | None:
    """:func:`metrics.entity_counts` (TP, FP, FN) of one item, ``None`` when the gold string is unreadable; cached:
    the same answer to the same document recurs across templates and models."""
    entities = _entities(gold, types)
    if entities is None:
        return None
    return M.entity_counts(entities, None if pred == M.INVALID else _entities(pred, types))


def entity_items(items: Sequence[Any], which: str, metric: str = "entity_f1") -> LinearStats:
    """[EF1] micro precision / recall / F1 of entity items ``{gold, pred, types}`` (both read with
    :func:`metrics.parse_entities`; an unparsable gold string raises)."""
    _require_items(items, metric)
    types = tuple(_field(items[:1], "types", metric)[0])
    rows = []
    for it in items:
        row = _entity_row(it["gold"], it["pred"], types)
        if row is None:
            raise M.MetricInputError(f"{metric}: unparsable gold entity string {it['gold']!r}")
        rows.append(row)
    return LinearStats(
        np.array(rows, dtype=float).reshape(-1, 3),
        lambda s: M.prf_finalize(s)[which],
        layout=("counts", [("tp_fp_fn", 0)]),
    )


def kpi_items(items: Sequence[Any], kpi_metric: str) -> LinearStats:
    """[KPIF1] of KPI items ``{gold, pred}`` read with the metric's own parser."""
    _require_items(items, kpi_metric)
    reader = M.KPI_METRICS[kpi_metric][0]
    feats = M.kpi_stats(_field(items, "gold", kpi_metric), _field(items, "pred", kpi_metric), reader)
    return LinearStats(
        feats,
        partial(M.kpi_finalize, metric=kpi_metric),
        layout=("counts", [("o_p_g", 3 * i) for i in range(len(M.KPI_TAGS))]),
    )


def ranking_queries(queries: Sequence[Sequence[Any]], rank_metric: str, k: int, metric: str = "") -> LinearStats:
    """[RR] RR@k / NDCG@k: the mean over queries of the per-query value (``queries[q]``: the candidate items
    ``[qid, cand_index, key, relevant]`` of query q)."""
    _require_items(queries, metric or f"{rank_metric}_at_{k}")
    try:
        vals = np.array([M.query_value(q, rank_metric, k) for q in queries], dtype=float)
    except (KeyError, TypeError, IndexError, ValueError) as exc:
        raise M.MetricInputError(f"{metric or rank_metric}: malformed ranking item ({exc})") from None
    return LinearStats(M.mean_stats(vals), M.mean_finalize, vals, True, "value", ("mean",))


def query_mean(queries: Sequence[Sequence[Any]], metric: str = "mean") -> LinearStats:
    """A candidate-level mean (``yes_accuracy``, ``format_failure`` of a ranking family) carried per query as
    (Σ over its candidates, #candidates), so the full-data value is lm-eval's candidate-level mean."""
    try:
        s = np.array([sum(float(v) for v in q) for q in queries], dtype=float)
    except (TypeError, ValueError):
        raise M.MetricInputError(f"{metric}: per-candidate values are not numbers") from None
    c = np.array([len(q) for q in queries], dtype=float)
    return LinearStats(np.column_stack([s, c]), M.mean_finalize, s / c, False, "value", ("mean",))


@dataclass(frozen=True)
class Statistic:
    """How one aggregation scores: ``build(items)`` gives the :class:`Stats` of document units (``unit="doc"``)
    or of query units (``unit="query"``: ``items`` is one candidate list per query); ``baseline`` is the rule of
    the no-information baseline (:func:`lm_eval_enterprise.sharpe.baselines.compute`): ``f1:<average>``,
    ``ranking:<rr|ndcg>:<k>``, ``zero``, ``mean`` (decided by the metric and the family: chance accuracy,
    0 for a failure rate, ROUGE's generation baseline …) or ``none`` (no rule: the baseline is unavailable
    unless a table gives one)."""

    name: str
    build: Callable[..., Stats]
    baseline: str
    unit: str = "doc"
    average: str | None = None  # F1 statistics: the averaging rule (baselines average the same way)
    ranking: tuple[str, int] | None = None  # ranking statistics: ("rr" | "ndcg", k)


def _ranking(name: str, rank_metric: str, k: int) -> Statistic:
    return Statistic(
        name,
        lambda queries, metric="": ranking_queries(queries, rank_metric, k, metric),
        f"ranking:{rank_metric}:{k}",
        unit="query",
        ranking=(rank_metric, k),
    )


def _f1(name: str, average: str) -> Statistic:
    return Statistic(
        name, lambda items, metric="": f1_items(items, average, metric or name), f"f1:{average}", average=average
    )


STATISTICS: dict[str, Statistic] = {
    s.name: s
    for s in (
        Statistic("mean", lambda values, metric="": mean_values(values, metric or "mean"), "mean"),
        _f1("agg_weighted_f1", "weighted"),
        _f1("agg_macro_f1", "macro"),
        _f1("agg_binary_f1", "binary"),
        Statistic(
            "agg_weighted_precision", lambda items, metric="": precision_recall_items(items, "precision"), "mean"
        ),
        Statistic("agg_weighted_recall", lambda items, metric="": precision_recall_items(items, "recall"), "mean"),
        Statistic("agg_mcc", lambda items, metric="": mcc_items(items), "zero"),
        Statistic("agg_pearson", lambda items, metric="": pearson_items(items), "zero"),
        Statistic("agg_spearman", lambda items, metric="": spearman_items(items), "zero"),
        Statistic("agg_entity_f1", lambda items, metric="": entity_items(items, "f1"), "zero"),
        Statistic("agg_entity_precision", lambda items, metric="": entity_items(items, "precision"), "zero"),
        Statistic("agg_entity_recall", lambda items, metric="": entity_items(items, "recall"), "zero"),
        *(
            Statistic(f"agg_{m}", partial(lambda items, metric="", m=m: kpi_items(items, m)), "zero")
            for m in M.KPI_METRICS
        ),
        _ranking("agg_rr_at_10", "rr", 10),
        _ranking("agg_rr_at_5", "rr", 5),
        _ranking("agg_ndcg_at_10", "ndcg", 10),
    )
}


class UnknownAggregation(KeyError):
    """An aggregation name :data:`STATISTICS` does not hold."""

    def __str__(self) -> str:
        return str(self.args[0])


def statistic(agg: str) -> Statistic:
    """The :class:`Statistic` of an aggregation name (``"mean"`` or a hooks function name)."""
    found = STATISTICS.get(agg)
    if found is None:
        raise UnknownAggregation(f"aggregation {agg!r} has no statistic in lm_eval_enterprise.scoring.corpus")
    return found


def per_query(agg: str | None) -> bool:
    """The aggregation's unit is the query (ranking metrics); False for an unknown name."""
    return agg in STATISTICS and STATISTICS[agg].unit == "query"


def doc_stats(agg: str, items: Sequence[Any], metric: str = "") -> Stats:
    """:class:`Stats` of document units: ``items[d]`` is document d's sample value of the metric."""
    st = statistic(agg)
    if st.unit != "doc":
        raise M.MetricInputError(f"{metric or agg}: a per-query metric needs query units")
    return st.build(items, metric)


def query_stats(agg: str, queries: Sequence[Sequence[Any]], metric: str = "") -> Stats:
    """:class:`Stats` of query units (ranking families): ``queries[q]`` lists the candidate values of query q;
    a mean metric is the candidate-level mean."""
    st = statistic(agg)
    if st.unit == "query":
        return st.build(queries, metric)
    if agg == "mean":
        return query_mean(queries, metric)
    raise M.MetricInputError(f"{metric or agg}: aggregation {agg!r} is not supported for query units")


def aggregate(agg: str, items: Sequence[Any]) -> float:
    """The corpus score of lm-eval's logged items of one task (what ``hooks.agg_*`` return): document units, or
    for a ranking statistic the candidate items grouped by query. Raises :class:`MetricInputError` for no
    items, never scores them 0."""
    _require_items(items, agg)
    st = statistic(agg)
    stats = st.build(M.group_queries(items)) if st.unit == "query" else st.build(items)
    value = stats.score()
    if not np.isfinite(value):
        raise M.MetricInputError(f"{agg}: the score of {len(items)} items is not finite")
    return value
