"""Pure metric functions (docs/metrics.md; no lm-eval import; formulas in each docstring).

The lm-eval adapters (``process_results`` and aggregations) are in :mod:`lm_eval_enterprise.scoring.hooks`; the
Sharpe tool calls these same functions to recompute per-template scores from logged samples.
Every function raises on malformed input (e.g. empty lists for a corpus metric) instead of returning 0.
"""

from __future__ import annotations

import math
import re
import statistics
import warnings
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache

from ..text import norm, norm_entity

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
# Classification: [WF1], [MF1], [BF1], accuracy


def _indicators(golds: Sequence[str], preds: Sequence[str], labels: Sequence[str]):
    import numpy as np

    lab = [norm(x) for x in labels]
    index = {x: j for j, x in enumerate(lab)}
    y_true = np.zeros((len(golds), len(lab)), dtype=int)
    y_pred = np.zeros((len(golds), len(lab)), dtype=int)
    for i, (g, p) in enumerate(zip(golds, preds)):
        gj = index.get(norm(g))
        if gj is None:
            raise MetricInputError(f"gold label {g!r} is not in the label set {list(labels)}")
        y_true[i, gj] = 1
        pj = index.get(norm(p))
        if pj is not None:
            y_pred[i, pj] = 1
    return y_true, y_pred


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
    (macro: restricted to the columns of G, ``labels=G``).
    """
    _require(golds, f"{average}_f1")
    if len(golds) != len(preds):
        raise MetricInputError(f"{len(golds)} golds but {len(preds)} predictions")
    if average not in ("weighted", "macro"):
        raise ValueError(f"average must be 'weighted' or 'macro', not {average!r}")
    from sklearn.metrics import f1_score

    y_true, y_pred = _indicators(golds, preds, labels)
    if average == "macro":
        present = y_true.sum(axis=0) > 0  # G: the classes with gold support
        y_true, y_pred = y_true[:, present], y_pred[:, present]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(f1_score(y_true, y_pred, average=average, zero_division=0))


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
    (scikit-learn ``precision_recall_fscore_support(average="weighted", zero_division=0)``)."""
    _require(golds, "weighted_precision")
    if len(golds) != len(preds):
        raise MetricInputError(f"{len(golds)} golds but {len(preds)} predictions")
    from sklearn.metrics import precision_recall_fscore_support

    y_true, y_pred = _indicators(golds, preds, labels)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p, r, _, _ = precision_recall_fscore_support(y_true, y_pred, average="weighted", zero_division=0)
    return float(p), float(r)


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
    item is a FN); F1 = 2TP / (2TP + FP + FN), 0 when the denominator is 0.
    """
    _require_pairs(golds, preds, "binary_f1")
    c = norm(positive)
    tp = fp = fn = 0
    for g, p in zip(golds, preds):
        g, p = norm(g), norm(p)
        tp += g == c and p == c
        fp += g != c and p == c
        fn += g == c and p != c
    den = 2 * tp + fp + fn
    return 2 * tp / den if den else 0.0


def exact_match(gold: str, pred: str) -> float:
    """1.0 iff norm(gold) == norm(pred) (accuracy after [NORM]); an unparsed prediction is wrong."""
    return float(pred != INVALID and norm(gold) == norm(pred))


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


def entity_prf(
    gold_lists: Sequence[Sequence[tuple[str, str]]], pred_lists: Sequence[Sequence[tuple[str, str]] | None]
) -> dict[str, float]:
    """Micro entity precision / recall / F1 over multisets of (phrase, type) keys ([EF1]).

    Per item: TP_i = |G_i ∩ P_i| (multiset intersection), FP_i = |P_i| − TP_i, FN_i = |G_i| − TP_i; a ``None``
    prediction (format failure) is the empty multiset. Summed over items: P = TP/(TP+FP), R = TP/(TP+FN),
    F1 = 2PR/(P+R), each 0 when undefined. Also per-type F1 (``f1_<type>``) from the same sums restricted to a type.
    """
    _require_pairs(gold_lists, pred_lists, "entity_f1")
    tp = fp = fn = 0
    per_type: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for gold, pred in zip(gold_lists, pred_lists):
        g, p = Counter(gold), Counter(pred or [])
        inter = g & p
        for key, n in inter.items():
            per_type[key[1]][0] += n
        for key, n in (p - inter).items():
            per_type[key[1]][1] += n
        for key, n in (g - inter).items():
            per_type[key[1]][2] += n
        t = sum(inter.values())
        tp += t
        fp += sum(p.values()) - t
        fn += sum(g.values()) - t
    out = _prf(tp, fp, fn)
    for etype, (t, f_p, f_n) in sorted(per_type.items()):
        out[f"f1_{etype}"] = _prf(t, f_p, f_n)["f1"]
    return out


def _prf(tp: float, fp: float, fn: float) -> dict[str, float]:
    """P = tp/(tp+fp), R = tp/(tp+fn), F1 = 2·P·R/(P+R), each 0 when undefined (this operation order is also
    IBM's ``compute_prrcf1``, so the KPI metrics below reproduce its floats exactly)."""
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return {"precision": p, "recall": r, "f1": f}


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


def kpi_word_counts(gold: str, pred: str, reader: str = "ibm") -> dict[str, tuple[int, int, int]]:
    """Per tag t: (O_t, P_t, G_t) for one item, where W_p(t), W_g(t) are the SETS of words of all predicted / gold
    phrases tagged t (case-sensitive, no positions), read with ``reader`` ("ibm" or "helm", :data:`KPI_READERS`):
    O = |W_p ∩ W_g|, P = |W_p|, G = |W_g|. ``pred`` = :data:`INVALID` or unreadable → no words.
    An unreadable gold string raises :class:`MetricInputError`."""
    parse, words = KPI_READERS[reader]
    gold_items = parse(gold)
    if gold_items is None:
        raise MetricInputError(f"unparsable gold KPI string {gold!r}")
    wp: dict[str, set[str]] = {t: set() for t in KPI_TAGS}
    wg: dict[str, set[str]] = {t: set() for t in KPI_TAGS}
    for phrase, tag in (parse(pred) or []) if pred != INVALID else []:
        wp[tag].update(words(phrase))
    for phrase, tag in gold_items:
        wg[tag].update(words(phrase))
    return {t: (len(wp[t] & wg[t]), len(wp[t]), len(wg[t])) for t in KPI_TAGS}


def kpi_adjusted_tag_f1(o: int, p: int, g: int) -> float:
    """IBM adjusted F1 of one tag from summed counts: rates tp = O/G (0 if G = 0), fn = 1 − tp,
    fp = (P − O)/P (0 if P = 0); then precision tp/(tp+fp), recall tp/(tp+fn), F1 = 2·Pr·R/(Pr+R) (0 when
    undefined) — i.e. 2r/(1 + r + q) with r = O/G, q = (P − O)/P, = 2R/(R + 2 − Pr) in precision Pr, recall R."""
    tp = o / g if g else 0.0
    fp = (p - o) / p if p else 0.0
    return _prf(tp, fp, 1.0 - tp)["f1"]


def kpi_word_tag_f1(o: int, p: int, g: int) -> float:
    """IBM word F1 of one tag ("modified adjusted": tp = O, fp = P − O, fn = G − O) = 2O/(P + G), 0 if O = 0."""
    return _prf(o, p - o, g - o)["f1"]


def _helm_f1(tp: float, fp: float, fn: float) -> float:
    return (2 * tp) / (2 * tp + fp + fn) if tp + fp + fn > 0 else 0.0


def kpi_adjusted_tag_f1_helm(o: int, p: int, g: int) -> float:
    """HELM's adjusted F1 of one tag. HELM passes (reference, completion) as (prediction, gold), so its rates are
    tp = O/P, fn = 1 − O/P (both 0 if P = 0), fp = (G − O)/G (0 if G = 0); F1 = 2tp/(2tp + fp + fn) (0 if
    tp + fp + fn = 0) — 2Pr/(Pr + 2 − R), IBM's formula with precision and recall swapped."""
    tp = o / p if p > 0 else 0.0
    fn = 1 - (o / p) if p > 0 else 0.0
    fp = (g - o) / g if g > 0 else 0.0
    return _helm_f1(tp, fp, fn)


def kpi_word_tag_f1_helm(o: int, p: int, g: int) -> float:
    """HELM word F1 of one tag: 2O/(2O + (G − O) + (P − O)), 0 if the denominator is 0."""
    return _helm_f1(o, g - o, p - o)


def _ibm_mean(values: Sequence[float]) -> float:
    return float(statistics.mean(values))  # IBM: statistics.mean (exact, correctly rounded)


def _helm_mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)  # HELM: np.mean (for 4 values the same sequential sum / n)


# metric → (reader, per-tag F1 from summed (O, P, G), macro mean over tags); all four are reported for kpi_edgar
KPI_METRICS = {
    "adjusted_macro_f1": ("ibm", kpi_adjusted_tag_f1, _ibm_mean),
    "word_macro_f1": ("ibm", kpi_word_tag_f1, _ibm_mean),
    "adjusted_macro_f1_helm": ("helm", kpi_adjusted_tag_f1_helm, _helm_mean),
    "word_macro_f1_helm": ("helm", kpi_word_tag_f1_helm, _helm_mean),
}


def kpi_macro(counts: Mapping[str, Sequence[int]], metric: str, tags: Sequence[str] = KPI_TAGS) -> float:
    """Macro average over ``tags`` (always the 4 KPI tags in the task; a tag without counts is (0, 0, 0) → 0) of
    the per-tag F1 of ``metric`` (:data:`KPI_METRICS`) on summed counts {tag: (O, P, G)}."""
    _reader, tag_f1, mean = KPI_METRICS[metric]
    return mean([tag_f1(*counts.get(t, (0, 0, 0))) for t in tags])


def kpi_adjusted_f1(golds: Sequence[str], preds: Sequence[str]) -> dict[str, float]:
    """[KPIF1] corpus scores: for each reader, :func:`kpi_word_counts` summed over items (micro counts; never
    averaged per item), then :func:`kpi_macro` for every metric of :data:`KPI_METRICS`."""
    _require_pairs(golds, preds, "adjusted_macro_f1")
    totals = {}
    for reader in KPI_READERS:
        total = {t: [0, 0, 0] for t in KPI_TAGS}
        for g, p in zip(golds, preds):
            for t, c in kpi_word_counts(g, p, reader).items():
                for j in range(3):
                    total[t][j] += c[j]
        totals[reader] = total
    return {m: kpi_macro(totals[spec[0]], m) for m, spec in KPI_METRICS.items()}


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


def mean_rr_at_k(items: Iterable[Sequence], k: int) -> float:
    """[RR]: mean over queries of RR@k (queries scored on the candidates present)."""
    ranked = rank_queries(items)
    _require(list(ranked), f"rr_at_{k}")
    return sum(reciprocal_rank(r, k) for r in ranked.values()) / len(ranked)


def mean_ndcg_at_k(items: Iterable[Sequence], k: int) -> float:
    """Mean over queries of :func:`ndcg`."""
    items = list(items)
    ranked = rank_queries(items)
    _require(list(ranked), f"ndcg_at_{k}")
    n_rel = relevant_counts(items)
    return sum(ndcg(r, k, n_rel[q]) for q, r in ranked.items()) / len(ranked)


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
