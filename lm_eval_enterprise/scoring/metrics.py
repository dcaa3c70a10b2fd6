"""Pure metric functions (docs/metrics.md; no lm-eval import; formulas in each docstring).

The lm-eval adapters (``process_results`` and aggregations) are in :mod:`lm_eval_enterprise.scoring.hooks`; the
Sharpe tool calls these same functions to recompute per-template scores from logged samples.
Every function raises on malformed input (e.g. empty lists for a corpus metric) instead of returning 0.
"""

from __future__ import annotations

import math
import re
import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache

import numpy as np

from ..text import fold_width, norm, norm_entity

INVALID = "[invalid]"  # filter fallback: the answer regex did not match (a format failure)


class MetricInputError(ValueError):
    """A metric was given input it cannot score (e.g. no items); never silently scored as 0."""


def _require(items: Sequence, name: str) -> None:
    if len(items) == 0:
        raise MetricInputError(f"{name}: no items to score")


def _require_pairs(golds: Sequence, preds: Sequence, name: str) -> None:
    """Non-empty and one prediction per gold (``zip`` would silently drop the surplus)."""
    _require(golds, name)
    if len(golds) != len(preds):
        raise MetricInputError(f"{name}: {len(golds)} golds but {len(preds)} predictions")


# ---------------------------------------------------------------------------------------------------------------
# Sufficient statistics. A corpus metric is finalize(Σ_i stats_i): per-item statistics summed over the items,
# then a finalize step that maps each row of summed statistics (one row per resample) to a score. The scalar
# functions below are exactly that sum and finalize, so lm-eval's aggregation, the Sharpe tool's recomputation,
# its bootstrap (rows of resample weights W: finalize(W @ stats)), the sparse estimator and the baselines all
# evaluate one definition (lm_eval_enterprise.scoring.corpus holds the table of them).


def _safe_div(num: np.ndarray, den: np.ndarray, empty: float = 0.0) -> np.ndarray:
    """num / den elementwise, ``empty`` where den == 0 (IEEE division otherwise, as Python's)."""
    num, den = np.asarray(num, dtype=float), np.asarray(den, dtype=float)
    out = np.full(np.broadcast_shapes(num.shape, den.shape), float(empty))
    return np.divide(num, den, out=out, where=den != 0)


def _rows(sums: np.ndarray) -> np.ndarray:
    return np.atleast_2d(np.asarray(sums, dtype=float))


# ---------------------------------------------------------------------------------------------------------------
# Classification: [WF1], [MF1], [BF1], accuracy, MCC


def label_indices(values: Sequence[str], labels: Sequence[str]) -> np.ndarray:
    """Index of each value in ``labels`` compared after [NORM] (``norm(value) == norm(label)``), −1 for a value
    equal to no label and for :data:`INVALID` (a format failure predicts no label)."""
    index = {norm(x): j for j, x in enumerate(labels)}
    seen = {v: -1 if v == INVALID else index.get(norm(v), -1) for v in dict.fromkeys(values)}  # once per distinct
    return np.fromiter(map(seen.__getitem__, values), dtype=np.int64, count=len(values))


def gold_indices(golds: Sequence[str], labels: Sequence[str]) -> np.ndarray:
    """:func:`label_indices` of gold labels; a gold label outside ``labels`` raises :class:`MetricInputError`."""
    g = label_indices(golds, labels)
    if (g < 0).any():
        bad = golds[int(np.argmax(g < 0))]
        raise MetricInputError(f"gold label {bad!r} is not in the label set {list(labels)}")
    return g


def label_indicators(golds: Sequence[str], preds: Sequence[str], labels: Sequence[str]):
    """The indicator rows y_true[i, j] = [g_i == L_j], y_pred[i, j] = [p_i == L_j] (after [NORM]); a prediction
    equal to no label is an all-zero row."""
    g, p = gold_indices(golds, labels), label_indices(preds, labels)
    k = len(labels)
    eye = np.vstack([np.eye(k, dtype=int), np.zeros((1, k), dtype=int)])  # row k: no label
    return eye[g], eye[np.where(p < 0, k, p)]


def f1_stats(gold: np.ndarray, pred: np.ndarray, k: int) -> np.ndarray:
    """Per-item F1 statistics over k classes: [TP_1..k | gold_1..k | pred_1..k] one-hot indicators, from class
    indices (−1 = no class: an unmatched prediction, or a gold outside a binary task's positive class)."""
    g, p = np.asarray(gold, dtype=np.int64), np.asarray(pred, dtype=np.int64)
    eye = np.vstack([np.eye(k), np.zeros((1, k))])
    g1, p1 = eye[np.where(g < 0, k, g)], eye[np.where(p < 0, k, p)]
    return np.hstack([g1 * p1, g1, p1])


def average_f1(per_class: np.ndarray, support: np.ndarray, average: str) -> np.ndarray:
    """The average over classes of per-class values (B × k) with gold support n_j (B × k):
    ``weighted`` Σ_j n_j·F1_j / Σ_j n_j (0 without support); ``macro`` the mean over the classes present,
    G = {j : n_j > 0} (0 when none is); ``binary`` the single column. The one averaging rule of the F1 metrics and
    of their baselines (:mod:`lm_eval_enterprise.sharpe.baselines`)."""
    per_class, support = np.atleast_2d(per_class), np.atleast_2d(support)
    if average == "binary":
        return per_class[:, 0]
    if average == "weighted":
        return _safe_div((per_class * support).sum(1), support.sum(1))
    if average == "macro":
        present = support > 0
        return _safe_div(np.where(present, per_class, 0.0).sum(1), present.sum(1))
    raise ValueError(f"average must be 'weighted', 'macro' or 'binary', not {average!r}")


def f1_finalize(sums: np.ndarray, average: str) -> np.ndarray:
    """[WF1]/[MF1]/[BF1] from summed :func:`f1_stats` rows (B × 3k): per class F1_j = 2·TP_j / (n_j + P_j) =
    2·TP_j / (2·TP_j + FP_j + FN_j), 0 when undefined (n_j gold, P_j predicted), then :func:`average_f1`."""
    s = _rows(sums)
    k = s.shape[1] // 3
    tp, gold, pred = s[:, :k], s[:, k : 2 * k], s[:, 2 * k :]
    return average_f1(_safe_div(2 * tp, gold + pred), gold, average)


def precision_recall_finalize(sums: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Weighted precision and recall from summed :func:`f1_stats` rows: P_j = TP_j/P_j, R_j = TP_j/n_j (0 when
    undefined), each averaged with weights n_j (scikit-learn ``precision_recall_fscore_support(average=
    "weighted", zero_division=0)``)."""
    s = _rows(sums)
    k = s.shape[1] // 3
    tp, gold, pred = s[:, :k], s[:, k : 2 * k], s[:, 2 * k :]
    return (average_f1(_safe_div(tp, pred), gold, "weighted"), average_f1(_safe_div(tp, gold), gold, "weighted"))


def classification_f1(
    golds: Sequence[str], preds: Sequence[str], labels: Sequence[str], average: str = "weighted"
) -> float:
    """Weighted ([WF1]) or macro ([MF1]) F1 over indicator rows, HELM's ``ClassificationMetric``.

    g = norm(gold), p = norm(prediction); y_true[i, j] = [g_i == L_j], y_pred[i, j] = [p_i == L_j]. A prediction
    equal to no label is an all-zero row: a false negative for the gold class, a false positive for nothing.
    Per class: F1_j = 2·TP_j / (2·TP_j + FP_j + FN_j) (0 when undefined); support n_j = #gold of class j.
    weighted = Σ_j n_j·F1_j / Σ_j n_j;  macro = (1/|G|)·Σ_{j∈G} F1_j over the classes present in the gold answers,
    G = {j : n_j > 0} (HELM fits its label binarizer on the gold references). A class of L absent from the gold
    answers is not averaged (a perfect model scores 1.0 on any subset); a prediction of such a class still costs
    the gold class of that item a false negative. On a split holding every class of L (every full run of our
    datasets) this is the mean over L. weighted F1 is unaffected (an absent class has weight n_j = 0).
    Equals scikit-learn ``f1_score(y_true, y_pred, average=..., zero_division=0)`` on the indicator matrices
    (macro: restricted to the columns of G, ``labels=G``). Computed as :func:`f1_finalize` of the summed
    :func:`f1_stats`.
    """
    _require_pairs(golds, preds, f"{average}_f1")
    if average not in ("weighted", "macro"):
        raise ValueError(f"average must be 'weighted' or 'macro', not {average!r}")
    stats = f1_stats(gold_indices(golds, labels), label_indices(preds, labels), len(labels))
    return float(f1_finalize(stats.sum(0), average)[0])


def weighted_f1(golds, preds, labels) -> float:
    """[WF1]: see :func:`classification_f1` (``average="weighted"``)."""
    return classification_f1(golds, preds, labels, "weighted")


def macro_f1(golds, preds, labels) -> float:
    """[MF1]: (1/|G|)·Σ_{j∈G} F1_j over the classes G of ``labels`` present in ``golds`` (HELM fits its label
    binarizer on the gold references), so classes absent from a ``--limit`` subset do not punish a perfect model;
    see :func:`classification_f1` (``average="macro"``)."""
    return classification_f1(golds, preds, labels, "macro")


def weighted_precision_recall(golds: Sequence[str], preds: Sequence[str], labels: Sequence[str]) -> tuple[float, float]:
    """[WF1] "also report weighted precision/recall": on the same indicator rows as :func:`classification_f1`,
    P_j = TP_j/(TP_j+FP_j), R_j = TP_j/(TP_j+FN_j) (0 when undefined), each averaged with weights n_j/Σn
    (:func:`precision_recall_finalize` of the summed :func:`f1_stats`)."""
    _require_pairs(golds, preds, "weighted_precision")
    stats = f1_stats(gold_indices(golds, labels), label_indices(preds, labels), len(labels))
    p, r = precision_recall_finalize(stats.sum(0))
    return float(p[0]), float(r[0])


def mean_over_questions(items: Sequence[Mapping], score, key: str = "question_id") -> float:
    """[QMEAN] the score of a task whose documents are (item, question) pairs: ``score`` (a corpus metric of a list
    of items) computed separately on the items of each question (``item[key]``), then the unweighted mean over
    the questions present. Items without ``key`` (a dataset without questions) are scored as one corpus.

    Example: questions a (golds Yes, No; preds Yes, Yes) and b (golds Yes, Yes; preds Yes, No) with weighted F1:
    a = 0.5·(2/3) + 0.5·0 = 1/3, b = 1.0·(2/3) = 2/3 (only Yes has support), mean = 0.5.
    Raises :class:`MetricInputError` for no items or a mix of items with and without ``key``."""
    _require(items, "mean_over_questions")
    has = [key in i for i in items]
    if not any(has):
        return float(score(items))
    if not all(has):
        raise MetricInputError(f"mean_over_questions: {has.count(False)} of {len(items)} items lack {key!r}")
    groups: dict[str, list] = {}
    for i in items:
        groups.setdefault(str(i[key]), []).append(i)
    return float(statistics.fmean(score(g) for g in groups.values()))


def binary_f1(golds: Sequence[str], preds: Sequence[str], positive: str) -> float:
    """[BF1]: F1 of the positive class c (compared after norm).

    TP = #(g = c ∧ p = c), FP = #(g ≠ c ∧ p = c), FN = #(g = c ∧ p ≠ c) (an unmatched completion on a positive
    item is a FN); F1 = 2TP / (2TP + FP + FN), 0 when the denominator is 0 (:func:`f1_finalize` with the one
    class c: golds and predictions other than c are "no class").
    """
    _require_pairs(golds, preds, "binary_f1")
    stats = f1_stats(label_indices(golds, [positive]), label_indices(preds, [positive]), 1)
    return float(f1_finalize(stats.sum(0), "binary")[0])


def exact_match(gold: str, pred: str) -> float:
    """1.0 iff norm(gold) == norm(pred) (accuracy after [NORM]); an unparsed prediction is wrong."""
    return float(pred != INVALID and norm(gold) == norm(pred))


def confusion_stats(gold: np.ndarray, pred: np.ndarray, k: int) -> np.ndarray:
    """Per-item MCC statistics: the one-hot cell (gold class, predicted class) of the k × (k + 1) confusion
    matrix, flattened row by row; predicted class k is "no label" (a format failure or an answer equal to no
    label: its own predicted class, never a gold one)."""
    g, p = np.asarray(gold, dtype=np.int64), np.asarray(pred, dtype=np.int64)
    if (g < 0).any():
        raise MetricInputError("confusion_stats: a gold class index is −1")
    cell = g * (k + 1) + np.where(p < 0, k, p)
    out = np.zeros((len(g), k * (k + 1)))
    out[np.arange(len(g)), cell] = 1.0
    return out


def mcc_finalize(sums: np.ndarray, k: int) -> np.ndarray:
    """Matthews correlation (the multiclass form, Gorodkin 2004; scikit-learn ``matthews_corrcoef``) from summed
    :func:`confusion_stats` rows: with the confusion matrix C (k gold rows × k + 1 predicted columns), t_j = Σ
    of row j (gold count), p_j = Σ of column j (predicted count; p_{k+1} the unreadable answers, whose gold row
    is empty), c = Σ_j C_jj (correct), s = Σ C (items):

        MCC = (c·s − Σ_j t_j·p_j) / sqrt((s² − Σ_j p_j²)·(s² − Σ_j t_j²)),

    0 when the denominator is 0 (a constant prediction, or a single gold class)."""
    s = _rows(sums)
    cm = s.reshape(s.shape[0], k, k + 1)
    t = cm.sum(2)  # B × k gold counts
    p = cm.sum(1)  # B × (k + 1) predicted counts
    c = np.trace(cm[:, :, :k], axis1=1, axis2=2)
    n = t.sum(1)
    cov = c * n - (t * p[:, :k]).sum(1)
    den = (n**2 - (p**2).sum(1)) * (n**2 - (t**2).sum(1))
    return _safe_div(cov, np.sqrt(np.maximum(den, 0.0)))


def matthews_corrcoef(golds: Sequence[str], preds: Sequence[str], labels: Sequence[str]) -> float:
    """[MCC] (CoLA, JCoLA): Matthews correlation of gold and predicted labels (after [NORM]) where an unreadable
    answer (:data:`INVALID`, or an answer equal to no label) is a predicted class of its own, never a gold one;
    0 when undefined (a constant prediction). :func:`mcc_finalize` of the summed :func:`confusion_stats`; equals
    scikit-learn ``matthews_corrcoef(golds, preds)`` on the label strings with unreadable answers as one more
    label."""
    _require_pairs(golds, preds, "mcc")
    k = len(labels)
    stats = confusion_stats(gold_indices(golds, labels), label_indices(preds, labels), k)
    return float(mcc_finalize(stats.sum(0), k)[0])


# ---------------------------------------------------------------------------------------------------------------
# Answer lists (NER, KPI): the [PARSE] rules for lists, shared by parse_entities and parse_kpi

EMPTY_LIST_ANSWERS = frozenset({"", "none", "no entities", "na"})


def is_empty_list_answer(text: str) -> bool:
    """[PARSE] lists: the completion says "no entities". True iff norm(text) ∈ {"", "none", "no entities", "na"}:
    any case, an optional trailing period, ``n/a`` ([NORM] deletes the slash) and wrapping quotes or markdown
    (``**None**``) included; ``"None found"`` is not empty-like."""
    return norm(text) in EMPTY_LIST_ANSWERS


# ---------------------------------------------------------------------------------------------------------------
# NER: [EF1] entity F1 over "phrase (type), ..." lists, phrases keyed by [NORM-E]

TYPE_ALIASES = {
    "per": "person",
    "org": "organization",
    "organisation": "organization",
    "loc": "location",
    "misc": "miscellaneous",
}
_ITEM_SPLIT = re.compile(r"\)\s*,")
_ITEM = re.compile(r"^\s*(.+?)\s*\(([^()]*)\)\s*$", re.S)


@lru_cache(maxsize=64)
def _type_table(types: tuple[str, ...]) -> dict[str, str]:
    table = {norm(t): t for t in types}
    for alias, canonical in TYPE_ALIASES.items():
        if canonical in types:
            table.setdefault(alias, canonical)
    return table


def entity_type_table(types: Sequence[str]) -> dict[str, str]:
    """norm(type or alias) → canonical type, for the task's types and the [EF1] aliases of those types only."""
    return dict(_type_table(tuple(types)))


def parse_entities(text: str, types: Sequence[str] | Mapping[str, str]) -> list[tuple[str, str]] | None:
    """Read a ``"<phrase> (<type>), <phrase> (<type>), ..."`` answer into [(norm_entity(phrase), type), ...].

    ``types``: the task's canonical entity types (``doc["entity_types"]``; the [EF1] aliases of those types are
    accepted too) or a ready table norm(type or alias) → canonical type (:func:`entity_type_table`).
    Used for completions and references alike ([EF1]), on the stop-cut completion:

    1. strip; an empty-like answer (:func:`is_empty_list_answer`: "", none, no entities, na, n/a) → ``[]``;
    2. one trailing period is removed ([PARSE]), so ``"a (x), b (y)."`` keeps ``b``;
    3. split on ``\\)\\s*,`` (re-appending the ``)``): a comma inside a phrase is no separator;
    4. each item must match ``^\\s*(.+?)\\s*\\(([^()]*)\\)\\s*$``; its type is looked up after [NORM]; an item with
       an unknown type, or without parentheses, is dropped;
    5. the phrase is keyed by [NORM-E] (:func:`~lm_eval_enterprise.text.norm_entity`): ``$1.5`` → ``1.5``,
       ``1.5`` ≠ ``15``, ``Acme, Inc.`` → ``acme, inc``.

    Returns ``None`` — nothing readable, a format failure — when the answer is not empty-like and no item
    matches step 4 (unknown types still count as read: ``"Acme (company)"`` → ``[]``, a wrong answer).
    """
    table = types if isinstance(types, Mapping) else _type_table(tuple(types))
    text = str(text).strip()
    if is_empty_list_answer(text):
        return []
    if text.endswith("."):
        text = text[:-1]
    pieces = _ITEM_SPLIT.split(text)
    out, read = [], False
    for item in [p + ")" for p in pieces[:-1]] + [pieces[-1]]:
        m = _ITEM.match(item)
        if not m:
            continue
        read = True
        etype = table.get(norm(m.group(2)))
        if etype is not None:
            out.append((norm_entity(m.group(1)), etype))
    return out if read else None


def entity_counts(gold: Sequence[tuple[str, str]], pred: Sequence[tuple[str, str]] | None) -> tuple[int, int, int]:
    """[EF1] per-item statistics (TP, FP, FN) over multisets of (phrase, type) keys: TP = |G ∩ P| (multiset
    intersection), FP = |P| − TP, FN = |G| − TP; a ``None`` prediction (format failure) is the empty multiset."""
    g, p = Counter(gold), Counter(pred or [])
    t = sum((g & p).values())
    return t, sum(p.values()) - t, sum(g.values()) - t


def prf_finalize(sums: np.ndarray) -> dict[str, np.ndarray]:
    """Micro precision, recall and F1 from summed (TP, FP, FN) rows: P = TP/(TP+FP), R = TP/(TP+FN),
    F1 = 2·P·R/(P+R), each 0 when undefined (IBM's ``compute_prrcf1`` operation order, so the KPI metrics
    reproduce its floats exactly)."""
    s = _rows(sums)
    tp, fp, fn = s[:, 0], s[:, 1], s[:, 2]
    p = _safe_div(tp, tp + fp)
    r = _safe_div(tp, tp + fn)
    return {"precision": p, "recall": r, "f1": _safe_div(2 * p * r, p + r)}


def entity_prf(
    gold_lists: Sequence[Sequence[tuple[str, str]]], pred_lists: Sequence[Sequence[tuple[str, str]] | None]
) -> dict[str, float]:
    """Micro entity precision / recall / F1 over multisets of (phrase, type) keys ([EF1]): :func:`prf_finalize`
    of the summed :func:`entity_counts`; also per-type F1 (``f1_<type>``) from the same sums restricted to a
    type."""
    _require_pairs(gold_lists, pred_lists, "entity_f1")
    counts = np.array([entity_counts(g, p) for g, p in zip(gold_lists, pred_lists)], dtype=float).reshape(-1, 3)
    out = {k: float(v[0]) for k, v in prf_finalize(counts.sum(0)).items()}
    per_type: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for gold, pred in zip(gold_lists, pred_lists):
        for etype in {t for _, t in gold} | {t for _, t in pred or []}:
            for j, c in enumerate(
                entity_counts([e for e in gold if e[1] == etype], [e for e in pred or [] if e[1] == etype])
            ):
                per_type[etype][j] += c
    for etype, sums in sorted(per_type.items()):
        out[f"f1_{etype}"] = float(prf_finalize(np.array(sums, dtype=float))["f1"][0])
    return out


# ---------------------------------------------------------------------------------------------------------------
# KPI-Edgar: [KPIF1]. Primary = the authors' metric code (IBM's HELM fork, kpi_edgar_metrics.py), parser included;
# *_helm = HELM's strict regex parser and HELM's formulas (paper parity).

KPI_TAGS = ("kpi", "cy", "py", "py1")
_KPI_SPLIT = re.compile(r"(?<=\]),")  # IBM: split on "]," keeping the "]"
_KPI_HELM_ITEM = re.compile(r"(?:^|(?<=\],))([^\[\]]+)\[([0-9a-z]+)\](?:$|(?=,))")


def parse_kpi(text: str) -> list[tuple[str, str]] | None:
    """[KPIF1] primary reading of ``"phrase [tag], phrase [tag]"`` — IBM's parser (our implementation):

    1. strip; an empty-like answer (:func:`is_empty_list_answer`) → ``[]``;
    2. split at every comma that directly follows ``]`` (``"],"``; ``"] ,"`` does not split); strip each piece;
    3. in each piece, on its first line only, take the last ``]`` and the last ``[`` before it: the tag is the
       text between them, stripped, the phrase everything before that ``[``, stripped (a prefix match: text after
       the last ``]`` — a trailing period, an explanation — is ignored; leading prose stays in the phrase);
       a piece without such a pair, or with an empty tag, reads nothing;
    4. tags other than kpi, cy, py, py1 (case-sensitive) are dropped.

    Returns the (phrase, tag) list, or ``None`` when the answer is not empty-like and no piece has a bracketed,
    non-empty tag (nothing readable: a format failure; IBM's code scores such a completion as no entities, so
    the score is the same either way). A piece with an unknown tag only (``"5 [revenue]"``) is read, then
    dropped: ``[]``, a wrong answer, not a format failure. No trailing-period handling is needed (step 3).
    """
    s = str(text).strip()
    if is_empty_list_answer(s):
        return []
    out, read = [], False
    for piece in _KPI_SPLIT.split(s):
        line = piece.strip().split("\n", 1)[0]
        close = line.rfind("]")
        start = line.rfind("[", 0, close) if close > 0 else -1
        tag = line[start + 1 : close].strip() if start >= 0 else ""
        if not tag:
            continue
        read = True
        if tag in KPI_TAGS:
            out.append((line[:start].strip(), tag))
    return out if read else None


def parse_kpi_helm(text: str) -> list[tuple[str, str]]:
    """HELM's strict reading (``*_helm`` metrics): ``re.findall`` of
    ``(?:^|(?<=\\],))([^\\[\\]]+)\\[([0-9a-z]+)\\](?:$|(?=,))`` on ``text.strip()`` → (phrase.strip(), tag); tags
    other than kpi, cy, py, py1 are dropped (HELM itself would raise on them). An item followed by anything but
    ``,`` or the end (``"5 [cy]."``, ``"5 [cy] , 6 [py]"``) is not read. Never ``None``."""
    return [
        (m.group(1).strip(), m.group(2)) for m in _KPI_HELM_ITEM.finditer(str(text).strip()) if m.group(2) in KPI_TAGS
    ]


# reader → (parse function, phrase → words): IBM splits on single spaces (so "a  b" has an empty word), HELM on
# whitespace runs
KPI_READERS = {"ibm": (parse_kpi, lambda phrase: phrase.split(" ")), "helm": (parse_kpi_helm, str.split)}


@lru_cache(maxsize=1 << 16)
def _kpi_word_sets(text: str, reader: str) -> tuple[frozenset[str], ...] | None:
    """Per tag of :data:`KPI_TAGS` (in order), the set of words of the phrases ``text`` tags with it, read with
    ``reader``; ``None`` when the reader reads nothing. Cached: a gold string recurs under every template and
    model, and two metrics share each reader."""
    parse, words = KPI_READERS[reader]
    items = parse(text)
    if items is None:
        return None
    sets: dict[str, set[str]] = {t: set() for t in KPI_TAGS}
    for phrase, tag in items:
        sets[tag].update(words(phrase))
    return tuple(frozenset(sets[t]) for t in KPI_TAGS)


def kpi_word_counts(gold: str, pred: str, reader: str = "ibm") -> dict[str, tuple[int, int, int]]:
    """Per tag t: (O_t, P_t, G_t) for one item, where W_p(t), W_g(t) are the SETS of words of all predicted / gold
    phrases tagged t (case-sensitive, no positions), read with ``reader`` ("ibm" or "helm", :data:`KPI_READERS`):
    O = |W_p ∩ W_g|, P = |W_p|, G = |W_g|. ``pred`` = :data:`INVALID` or unreadable → no words.
    An unreadable gold string raises :class:`MetricInputError`."""
    wg = _kpi_word_sets(str(gold), reader)
    if wg is None:
        raise MetricInputError(f"unparsable gold KPI string {gold!r}")
    wp = (_kpi_word_sets(str(pred), reader) if pred != INVALID else None) or (frozenset(),) * len(KPI_TAGS)
    return {t: (len(p & g), len(p), len(g)) for t, p, g in zip(KPI_TAGS, wp, wg)}


def kpi_tag_f1(o: np.ndarray, p: np.ndarray, g: np.ndarray, metric: str) -> np.ndarray:
    """Per-tag F1 of a [KPIF1] metric from summed word counts (O, P, G), elementwise over arrays, in the operation
    order of the authors' and HELM's code (so the floats are theirs):

    * ``adjusted_macro_f1`` (IBM): rates tp = O/G (0 if G = 0), fn = 1 − tp, fp = (P − O)/P (0 if P = 0); then
      :func:`prf_finalize` on (tp, fp, fn) — i.e. 2r/(1 + r + q) with r = O/G, q = (P − O)/P;
    * ``word_macro_f1`` (IBM, "modified adjusted"): :func:`prf_finalize` on (O, P − O, G − O) = 2O/(P + G);
    * ``adjusted_macro_f1_helm``: HELM passes (reference, completion) as (prediction, gold), so tp = O/P,
      fn = 1 − O/P (both 0 if P = 0), fp = (G − O)/G (0 if G = 0); F1 = 2tp/(2tp + fp + fn), 0 if
      tp + fp + fn = 0 — IBM's formula with precision and recall swapped;
    * ``word_macro_f1_helm``: 2O/(2O + (G − O) + (P − O)), 0 if the denominator is 0.
    """
    o, p, g = (np.asarray(x, dtype=float) for x in (o, p, g))
    if metric == "adjusted_macro_f1":
        tp = _safe_div(o, g)
        return _prf_f1(tp, _safe_div(p - o, p), 1.0 - tp)
    if metric == "word_macro_f1":
        return _prf_f1(o, p - o, g - o)
    if metric == "adjusted_macro_f1_helm":
        tp = _safe_div(o, p)
        fn = np.where(p > 0, 1 - tp, 0.0)
        return _helm_f1(tp, _safe_div(g - o, g), fn)
    if metric == "word_macro_f1_helm":
        return _helm_f1(o, g - o, p - o)
    raise ValueError(f"unknown KPI metric {metric!r} (one of {', '.join(KPI_METRICS)})")


def _prf_f1(tp: np.ndarray, fp: np.ndarray, fn: np.ndarray) -> np.ndarray:
    shape = np.shape(tp)
    return prf_finalize(np.stack([np.ravel(tp), np.ravel(fp), np.ravel(fn)], 1))["f1"].reshape(shape)


def _helm_f1(tp: np.ndarray, fp: np.ndarray, fn: np.ndarray) -> np.ndarray:
    return np.where(tp + fp + fn > 0, _safe_div(2 * tp, 2 * tp + fp + fn), 0.0)


def kpi_adjusted_tag_f1(o: int, p: int, g: int) -> float:
    """IBM adjusted F1 of one tag (:func:`kpi_tag_f1`, ``adjusted_macro_f1``)."""
    return float(kpi_tag_f1(o, p, g, "adjusted_macro_f1"))


def kpi_word_tag_f1(o: int, p: int, g: int) -> float:
    """IBM word F1 of one tag (:func:`kpi_tag_f1`, ``word_macro_f1``): 2O/(P + G), 0 if O = 0."""
    return float(kpi_tag_f1(o, p, g, "word_macro_f1"))


def kpi_adjusted_tag_f1_helm(o: int, p: int, g: int) -> float:
    """HELM's adjusted F1 of one tag (:func:`kpi_tag_f1`, ``adjusted_macro_f1_helm``)."""
    return float(kpi_tag_f1(o, p, g, "adjusted_macro_f1_helm"))


def kpi_word_tag_f1_helm(o: int, p: int, g: int) -> float:
    """HELM word F1 of one tag (:func:`kpi_tag_f1`, ``word_macro_f1_helm``)."""
    return float(kpi_tag_f1(o, p, g, "word_macro_f1_helm"))


# metric → (reader, macro mean over tags: IBM "exact" — statistics.mean, correctly rounded; HELM "sequential"
# — np.mean of 4 values, the left-to-right sum / n); all four are reported for kpi_edgar
KPI_METRICS = {
    "adjusted_macro_f1": ("ibm", "exact"),
    "word_macro_f1": ("ibm", "exact"),
    "adjusted_macro_f1_helm": ("helm", "sequential"),
    "word_macro_f1_helm": ("helm", "sequential"),
}


def kpi_stats(golds: Sequence[str], preds: Sequence[str], reader: str = "ibm") -> np.ndarray:
    """Per-item [KPIF1] statistics: (O_t, P_t, G_t) of :func:`kpi_word_counts` for each tag of :data:`KPI_TAGS`
    in order, read with ``reader`` (n × 12)."""
    rows = []
    for g, p in zip(golds, preds):
        counts = kpi_word_counts(g, p, reader)  # once per item, not once per tag
        rows.append([v for t in KPI_TAGS for v in counts[t]])
    return np.array(rows, dtype=float).reshape(-1, 3 * len(KPI_TAGS))


def kpi_finalize(sums: np.ndarray, metric: str) -> np.ndarray:
    """[KPIF1] macro average over the tags (the 4 of :data:`KPI_TAGS`; a tag without counts scores 0) of
    :func:`kpi_tag_f1` on summed :func:`kpi_stats` rows (3 columns O, P, G per tag). IBM's mean is
    ``statistics.mean`` (correctly rounded): ``math.fsum`` / n is the same float for n = 4 or 2 (a power-of-two
    division is exact); HELM's is the left-to-right sum / n."""
    s = _rows(sums)
    per_tag = kpi_tag_f1(s[:, 0::3], s[:, 1::3], s[:, 2::3], metric)
    if KPI_METRICS[metric][1] == "exact":
        return np.array([math.fsum(row) for row in per_tag]) / per_tag.shape[1]
    total = per_tag[:, 0]
    for j in range(1, per_tag.shape[1]):
        total = total + per_tag[:, j]
    return total / per_tag.shape[1]


def kpi_macro(counts: Mapping[str, Sequence[int]], metric: str, tags: Sequence[str] = KPI_TAGS) -> float:
    """[KPIF1] of one metric from summed counts {tag: (O, P, G)} over ``tags`` (always the 4 KPI tags in the task;
    a missing tag is (0, 0, 0) and scores 0)."""
    row = np.array([v for t in tags for v in counts.get(t, (0, 0, 0))], dtype=float)
    return float(kpi_finalize(row, metric)[0])


def kpi_adjusted_f1(golds: Sequence[str], preds: Sequence[str]) -> dict[str, float]:
    """[KPIF1] corpus scores: for each reader, :func:`kpi_stats` summed over items (micro counts; never averaged
    per item), then :func:`kpi_finalize` for every metric of :data:`KPI_METRICS`."""
    _require_pairs(golds, preds, "adjusted_macro_f1")
    sums = {reader: kpi_stats(golds, preds, reader).sum(0) for reader in KPI_READERS}
    return {m: float(kpi_finalize(sums[reader], m)[0]) for m, (reader, _) in KPI_METRICS.items()}


# ---------------------------------------------------------------------------------------------------------------
# Ranking: [RR] reciprocal rank at k (+ NDCG@k with binary gains)


def helm_ranking_key(ll_yes: float, ll_no: float) -> tuple[int, float]:
    """HELM ``object_to_score_binary_ranking``: answer b = Yes iff ℓY ≥ ℓN; key (1, ℓY) if Yes else (0, −ℓN)."""
    return (1, float(ll_yes)) if ll_yes >= ll_no else (0, -float(ll_no))


def rank_queries(items: Iterable[Sequence]) -> dict[str, list[int]]:
    """Group (qid, cand_index, key, relevant) items by qid and return, per query, the relevance flags of its
    candidates sorted by key descending; ties keep candidate order (stable sort on cand_index first).

    A candidate whose key is ``None`` was not retrieved (generation-based ranking: the answer was a format
    failure): it has no rank, so it never counts as a hit; a query whose candidates all have key ``None`` gets an
    empty list (RR@k = 0). :func:`relevant_counts` still counts it for the ideal DCG of NDCG.
    """
    by_q: dict[str, list] = defaultdict(list)
    for qid, cand, key, rel in items:
        cands = by_q[str(qid)]
        if key is not None:
            cands.append((int(cand), tuple(key) if isinstance(key, (list, tuple)) else (key,), int(rel)))
    ranked = {}
    for qid, cands in by_q.items():
        cands.sort(key=lambda c: c[0])
        cands.sort(key=lambda c: c[1], reverse=True)
        ranked[qid] = [rel for _, _, rel in cands]
    return ranked


def relevant_counts(items: Iterable[Sequence]) -> dict[str, int]:
    """Number of relevant candidates per qid, retrieved or not (the R of the ideal DCG)."""
    out: dict[str, int] = defaultdict(int)
    for qid, _cand, _key, rel in items:
        out[str(qid)] += int(bool(int(rel)))
    return dict(out)


def reciprocal_rank(relevance: Sequence[int], k: int) -> float:
    """RR@k of one ranked list: 1/rank₁ for the first relevant position rank₁ ≤ k, else 0 (0 if none relevant)."""
    for pos, rel in enumerate(relevance[:k], start=1):
        if rel:
            return 1.0 / pos
    return 0.0


def ndcg(relevance: Sequence[int], k: int, n_relevant: int | None = None) -> float:
    """NDCG@k with binary gains: DCG = Σ_{i≤k} rel_i / log2(i + 1), divided by the ideal DCG (0 if no relevant).

    The ideal DCG puts ``n_relevant`` relevant items first (default: the relevant items of ``relevance``; pass the
    query's full count when unretrieved candidates are left out of ``relevance``).
    """
    dcg = sum(rel / math.log2(i + 1) for i, rel in enumerate(relevance[:k], start=1))
    n_rel = sum(1 for r in relevance if r) if n_relevant is None else n_relevant
    ideal = sum(1 / math.log2(i + 1) for i in range(1, min(n_rel, k) + 1))
    return dcg / ideal if ideal else 0.0


def query_value(query_items: Sequence[Sequence], metric: str, k: int) -> float:
    """RR@k (``metric="rr"``) or NDCG@k (``"ndcg"``) of one query from its candidate items, ranked with
    :func:`rank_queries`; unretrieved candidates (key ``None``) still count in the ideal DCG."""
    ranked = rank_queries(query_items)
    if len(ranked) != 1:
        raise MetricInputError(f"query_value: items of {len(ranked)} queries, expected one")
    qid, rel = next(iter(ranked.items()))
    if metric == "rr":
        return reciprocal_rank(rel, k)
    if metric == "ndcg":
        return ndcg(rel, k, relevant_counts(query_items)[qid])
    raise ValueError(f"unknown ranking metric {metric!r}")


def group_queries(items: Iterable[Sequence]) -> list[list[Sequence]]:
    """Candidate items grouped by qid (first appearance order): the units of the ranking metrics."""
    by_q: dict[str, list] = {}
    for it in items:
        by_q.setdefault(str(it[0]), []).append(it)
    return list(by_q.values())


def mean_stats(values: Sequence[float]) -> np.ndarray:
    """Per-unit statistics of a mean: [y_i, 1]."""
    y = np.asarray(values, dtype=float).reshape(-1)
    return np.column_stack([y, np.ones_like(y)])


def mean_finalize(sums: np.ndarray) -> np.ndarray:
    """Σ y / n from summed :func:`mean_stats` rows (NaN for an empty resample)."""
    s = _rows(sums)
    return _safe_div(s[:, 0], s[:, 1], np.nan)


def mean_query_metric(items: Iterable[Sequence], metric: str, k: int) -> float:
    """[RR] / NDCG@k: the mean over queries of :func:`query_value` (queries scored on the candidates present)."""
    queries = group_queries(items)
    _require(queries, f"{metric}_at_{k}")
    return float(mean_finalize(mean_stats([query_value(q, metric, k) for q in queries]).sum(0))[0])


def mean_rr_at_k(items: Iterable[Sequence], k: int) -> float:
    """[RR]: mean over queries of RR@k (:func:`mean_query_metric`)."""
    return mean_query_metric(items, "rr", k)


def mean_ndcg_at_k(items: Iterable[Sequence], k: int) -> float:
    """Mean over queries of :func:`ndcg` (:func:`mean_query_metric`)."""
    return mean_query_metric(items, "ndcg", k)


# ---------------------------------------------------------------------------------------------------------------
# Numeric QA: [FEQ] ConvFinQA float equivalence

_NUMBER = re.compile(r"[-+]?(?:(?:\d*\.\d+)|(?:\d+\.?))(?:[Ee][+-]?\d+)?")


def first_number(text: str) -> str | None:
    """The first match of ``[-+]?(?:(?:\\d*\\.\\d+)|(?:\\d+\\.?))(?:[Ee][+-]?\\d+)?`` in the stripped text."""
    m = _NUMBER.search(str(text).strip())
    return m.group(0) if m else None


def float_equivalence(gold: str, pred: str) -> float:
    """[FEQ] (HELM ConvFinQA): first number a in the completion and b in the gold; 1 if |a − b| < 1e-6 else 0;
    0 if either has no number; if float() fails, exact string equality. No percent/thousands handling."""
    a, b = first_number(pred), first_number(gold)
    if a is None or b is None:
        return 0.0
    try:
        return float(abs(float(a) - float(b)) < 1e-6)
    except ValueError:
        return float(a == b)


# ---------------------------------------------------------------------------------------------------------------
# Summarization: [RL] ROUGE-L (rouge-score, Porter stemming, F-measure)


@lru_cache(maxsize=1)
def _rouge_scorer():
    from rouge_score import rouge_scorer

    return rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=True)


def rouge(reference: str, prediction: str) -> dict[str, float]:
    """[RL]: ``RougeScorer(["rougeL"], use_stemmer=True).score(target=reference, prediction=completion)`` F-measures
    (LCS-based sentence-level ROUGE-L, not rougeLsum), plus rouge1 / rouge2. F = 2PR/(P+R) over (stemmed) tokens."""
    s = _rouge_scorer().score(str(reference), str(prediction))
    return {"rouge_l": s["rougeL"].fmeasure, "rouge_1": s["rouge1"].fmeasure, "rouge_2": s["rouge2"].fmeasure}


# ---------------------------------------------------------------------------------------------------------------
# Similarity (STS-B, JSTS): [PEARSON] Pearson r and Spearman ρ of the parsed scores against the gold scores

SCORE_MIN, SCORE_MAX = 0.0, 5.0
SCORE_MIDPOINT = (SCORE_MIN + SCORE_MAX) / 2  # what an unreadable answer enters the correlation as
# a variance below this share of Σx² (times n) is rounding, not spread: the vector is constant
_CONSTANT_RTOL = 1e-12


def similarity_prediction(reading: str) -> float:
    """The number a similarity answer contributes: the reading (the first number of the answer,
    :func:`lm_eval_enterprise.scoring.filters.read_score`) clipped to [0, 5]; a format failure (:data:`INVALID`)
    enters as the scale's midpoint 2.5, so every document stays in the correlation."""
    if reading == INVALID:
        return SCORE_MIDPOINT
    try:
        value = float(reading)
    except (TypeError, ValueError):
        raise MetricInputError(f"similarity answer {reading!r} is not a number") from None
    if not math.isfinite(value):
        raise MetricInputError(f"similarity answer {reading!r} is not a finite number")
    return min(max(value, SCORE_MIN), SCORE_MAX)


def pearson_stats(pred: Sequence[float], gold: Sequence[float]) -> np.ndarray:
    """Per-item Pearson statistics [x, y, x², y², x·y, 1] (x the prediction, y the gold score)."""
    x, y = np.asarray(pred, dtype=float).reshape(-1), np.asarray(gold, dtype=float).reshape(-1)
    if x.shape != y.shape:
        raise MetricInputError(f"pearson: {len(x)} predictions but {len(y)} gold scores")
    return np.column_stack([x, y, x * x, y * y, x * y, np.ones_like(x)])


def pearson_finalize(sums: np.ndarray) -> np.ndarray:
    """Pearson r from summed :func:`pearson_stats` rows: with n items,

        r = (n·Σxy − Σx·Σy) / sqrt((n·Σx² − (Σx)²)·(n·Σy² − (Σy)²)),

    0 when either side is constant (its n·Σx² − (Σx)² is 0, or within 1e-12 of n·Σx² — rounding) or n < 2."""
    s = _rows(sums)
    sx, sy, sxx, syy, sxy, n = (s[:, j] for j in range(6))
    vx, vy = n * sxx - sx * sx, n * syy - sy * sy
    flat = (vx <= _CONSTANT_RTOL * n * sxx) | (vy <= _CONSTANT_RTOL * n * syy) | (n < 2)
    r = _safe_div(n * sxy - sx * sy, np.sqrt(np.maximum(vx, 0.0) * np.maximum(vy, 0.0)))
    return np.where(flat, 0.0, np.clip(r, -1.0, 1.0))


def pearson(pred: Sequence[float], gold: Sequence[float]) -> float:
    """[PEARSON] Pearson r of predictions and gold scores (:func:`pearson_finalize` of the summed
    :func:`pearson_stats`); 0 for a constant prediction (no information), not NaN. Equals
    ``scipy.stats.pearsonr`` otherwise (to rounding)."""
    _require(pred, "pearson")
    return float(pearson_finalize(pearson_stats(pred, gold).sum(0))[0])


def weighted_average_ranks(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Average ranks (1-based, ties share the mean of their positions) of ``values`` (n) in resamples where
    item i appears ``weights[b, i]`` times (B × n): rank_b(i) = #{copies with a smaller value} + (#{copies
    tied with it} + 1)/2. With all weights 1 this is ``scipy.stats.rankdata(values)``."""
    v = np.asarray(values, dtype=float)
    w = np.atleast_2d(np.asarray(weights, dtype=float))
    uniq, inv = np.unique(v, return_inverse=True)
    per_value = np.zeros((w.shape[0], len(uniq)))
    np.add.at(per_value.T, inv, w.T)  # B × U: copies of each distinct value
    below = np.cumsum(per_value, axis=1) - per_value
    return (below + (per_value + 1) / 2)[:, inv]


def spearman_scores(pred: Sequence[float], gold: Sequence[float], weights: np.ndarray) -> np.ndarray:
    """Spearman ρ of each resample (rows of item multiplicities, B × n): the Pearson r (:func:`pearson_finalize`)
    of the average ranks (:func:`weighted_average_ranks`) of predictions and gold scores within the resample,
    each item counted ``weights[b, i]`` times; 0 when either side is constant."""
    w = np.atleast_2d(np.asarray(weights, dtype=float))
    rx, ry = weighted_average_ranks(pred, w), weighted_average_ranks(gold, w)
    sums = np.stack(
        [(w * rx).sum(1), (w * ry).sum(1), (w * rx * rx).sum(1), (w * ry * ry).sum(1), (w * rx * ry).sum(1), w.sum(1)],
        1,
    )
    return pearson_finalize(sums)


def spearman(pred: Sequence[float], gold: Sequence[float]) -> float:
    """[PEARSON] Spearman ρ: the Pearson r of the average ranks of predictions and gold scores (ties share their
    mean rank; ``scipy.stats.spearmanr``), 0 for a constant prediction — :func:`spearman_scores` with every item
    once."""
    _require(pred, "spearman")
    if len(pred) != len(gold):
        raise MetricInputError(f"spearman: {len(pred)} predictions but {len(gold)} gold scores")
    return float(spearman_scores(pred, gold, np.ones((1, len(pred))))[0])


# ---------------------------------------------------------------------------------------------------------------
# Extractive QA: [SQUAD] SQuAD v1.1 exact match and token F1; [CHARF1] JSQuAD exact match and character F1

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_SQUAD_PUNCT = set(__import__("string").punctuation)


def squad_normalize(text: str) -> str:
    """SQuAD v1.1's official ``normalize_answer``: lower case, remove punctuation (``string.punctuation``), remove
    the articles a / an / the, collapse whitespace — in that order."""
    text = "".join(ch for ch in str(text).lower() if ch not in _SQUAD_PUNCT)
    return " ".join(_ARTICLES.sub(" ", text).split())


def _token_f1(pred_tokens: Sequence[str], gold_tokens: Sequence[str]) -> float:
    """F1 over token multisets: common = |P ∩ G|; 0 if common = 0, else 2·prec·rec/(prec + rec) with
    prec = common/|P|, rec = common/|G| (the official script's order of operations)."""
    common = sum((Counter(pred_tokens) & Counter(gold_tokens)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(pred_tokens), common / len(gold_tokens)
    return (2 * precision * recall) / (precision + recall)


def _max_over_golds(fn, pred: str, golds: Sequence[str], name: str) -> float:
    if not golds:
        raise MetricInputError(f"{name}: no reference answers")
    if pred == INVALID:
        return 0.0
    return max(fn(pred, g) for g in golds)


def squad_exact_match(pred: str, golds: Sequence[str]) -> float:
    """[SQUAD] 1 iff the normalised answer equals a normalised reference (:func:`squad_normalize`), the maximum
    over the references; a format failure scores 0."""
    return _max_over_golds(lambda p, g: float(squad_normalize(p) == squad_normalize(g)), pred, golds, "squad_em")


def squad_f1(pred: str, golds: Sequence[str]) -> float:
    """[SQUAD] token F1 of the normalised answer against each normalised reference (whitespace tokens,
    :func:`_token_f1`), the maximum over the references; a format failure scores 0."""
    return _max_over_golds(
        lambda p, g: _token_f1(squad_normalize(p).split(), squad_normalize(g).split()), pred, golds, "squad_f1"
    )


_QUOTE_PAIRS = ("「」", "『』", '""', "“”")
_SENTENCE_END = "。.!?"


def char_normalize(text: str) -> str:
    """[CHARF1] NFKC normalisation (:func:`~lm_eval_enterprise.text.fold_width`: full-width letters and digits →
    ASCII, half-width katakana → full-width), every whitespace character removed (Japanese has no word boundaries
    to keep), then — the project's addition, applied to reference and answer alike — sentence-final punctuation
    (``。 . ! ?`` after NFKC) and one pair of enclosing quotes (``「…」``, ``『…』``, ``"…"``) removed from the ends,
    as Japanese answers are often quoted or end a sentence."""
    s = "".join(fold_width(text).split()).rstrip(_SENTENCE_END)
    for open_, close in _QUOTE_PAIRS:
        if len(s) >= 2 and s[0] == open_ and s[-1] == close:
            s = s[1:-1]
            break
    return s


def char_exact_match(pred: str, golds: Sequence[str]) -> float:
    """[CHARF1] 1 iff the normalised answer equals a normalised reference (:func:`char_normalize`), the maximum
    over the references; a format failure scores 0."""
    return _max_over_golds(lambda p, g: float(char_normalize(p) == char_normalize(g)), pred, golds, "char_em")


def char_f1(pred: str, golds: Sequence[str]) -> float:
    """[CHARF1] F1 over the multisets of characters of the normalised answer and each normalised reference
    (:func:`_token_f1` on characters), the maximum over the references; a format failure scores 0."""
    return _max_over_golds(
        lambda p, g: _token_f1(list(char_normalize(p)), list(char_normalize(g))), pred, golds, "char_f1"
    )
