"""Pure metric functions of DATASETS.md (no lm-eval import; formulas in each docstring).

The lm-eval adapters (``process_results`` and aggregations) are in :mod:`lm_eval_enterprise.hooks`; the
Sharpe tool calls these same functions to recompute per-template scores from logged samples.
Every function raises on malformed input (e.g. empty lists for a corpus metric) instead of returning 0.
"""
from __future__ import annotations

import math
import re
import warnings
from collections import Counter, defaultdict
from functools import lru_cache
from typing import Iterable, Mapping, Sequence

from .text import norm

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


def classification_f1(golds: Sequence[str], preds: Sequence[str], labels: Sequence[str],
                      average: str = "weighted") -> float:
    """Weighted ([WF1]) or macro ([MF1]) F1 over indicator rows, HELM's ``ClassificationMetric``.

    g = norm(gold), p = norm(prediction); y_true[i, j] = [g_i == L_j], y_pred[i, j] = [p_i == L_j]. A prediction
    equal to no label is an all-zero row: a false negative for the gold class, a false positive for nothing.
    Per class: F1_j = 2·TP_j / (2·TP_j + FP_j + FN_j) (0 when undefined); support n_j = #gold of class j.
    weighted = Σ_j n_j·F1_j / Σ_j n_j;  macro = (1/|L|)·Σ_j F1_j over every label in L (unsupported labels count).
    Equals scikit-learn ``f1_score(y_true, y_pred, average=..., zero_division=0)`` on the indicator matrices.
    """
    _require(golds, f"{average}_f1")
    if len(golds) != len(preds):
        raise MetricInputError(f"{len(golds)} golds but {len(preds)} predictions")
    if average not in ("weighted", "macro"):
        raise ValueError(f"average must be 'weighted' or 'macro', not {average!r}")
    from sklearn.metrics import f1_score

    y_true, y_pred = _indicators(golds, preds, labels)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(f1_score(y_true, y_pred, average=average, zero_division=0))


def weighted_f1(golds, preds, labels) -> float:
    """[WF1]: see :func:`classification_f1` (``average="weighted"``)."""
    return classification_f1(golds, preds, labels, "weighted")


def macro_f1(golds, preds, labels) -> float:
    """[MF1]: see :func:`classification_f1` (``average="macro"``)."""
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
# NER: [EF1] entity F1 over "phrase (type), ..." lists

EMPTY_ENTITY_ANSWERS = {"", "none", "no entities", "na"}
_ITEM_SPLIT = re.compile(r"\)\s*,")
_ITEM = re.compile(r"^\s*(.+?)\s*\(([^()]*)\)\s*$", re.S)


def parse_entities(text: str, type_names: Mapping[str, str]) -> list[tuple[str, str]] | None:
    """Parse ``"<phrase> (<type>), <phrase> (<type>), ..."`` into [(norm(phrase), type), ...] ([EF1]).

    ``type_names`` maps norm(type or alias) → canonical type. If norm(text) is one of "", "none", "no entities",
    "na" the list is empty. Otherwise split on ``\\)\\s*,`` (re-appending the ``)``) and match each item with
    ``^\\s*(.+?)\\s*\\(([^()]*)\\)\\s*$``; items with an unknown type or without parentheses are dropped.
    Returns ``None`` when the text is not empty-like and no item parses (a format failure).
    """
    if norm(text) in EMPTY_ENTITY_ANSWERS:
        return []
    pieces = _ITEM_SPLIT.split(text)
    items = [p + ")" for p in pieces[:-1]] + [pieces[-1]]
    out, parsed_any = [], False
    for item in items:
        m = _ITEM.match(item)
        if not m:
            continue
        parsed_any = True
        etype = type_names.get(norm(m.group(2)))
        if etype is None:
            continue
        out.append((norm(m.group(1)), etype))
    return out if parsed_any else None


def entity_prf(gold_lists: Sequence[Sequence[tuple[str, str]]],
               pred_lists: Sequence[Sequence[tuple[str, str]] | None]) -> dict[str, float]:
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


def _prf(tp: int, fp: int, fn: int) -> dict[str, float]:
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return {"precision": p, "recall": r, "f1": f}


# ---------------------------------------------------------------------------------------------------------------
# KPI-Edgar: [KPIF1] adjusted F1 in IBM's orientation

KPI_TAGS = ("kpi", "cy", "py", "py1")
_KPI_ITEM = re.compile(r"(?:^|(?<=\],))([^\[\]]+)\[([0-9a-z]+)\](?:$|(?=,))")


def parse_kpi(text: str) -> list[tuple[str, str]]:
    """Parse ``"phrase [tag], phrase [tag]"`` with the [KPIF1] regex on ``text.strip()``; unknown tags dropped."""
    return [(m.group(1).strip(), m.group(2)) for m in _KPI_ITEM.finditer(str(text).strip())
            if m.group(2) in KPI_TAGS]


def kpi_word_counts(gold: str, pred: str) -> dict[str, tuple[int, int, int]]:
    """Per tag t: (O_t, P_t, G_t) for one item, with W_p(t), W_g(t) the sets of whitespace words of all
    predicted / gold phrases tagged t (case-sensitive): O = |W_p ∩ W_g|, P = |W_p|, G = |W_g|."""
    wp: dict[str, set[str]] = {t: set() for t in KPI_TAGS}
    wg: dict[str, set[str]] = {t: set() for t in KPI_TAGS}
    for phrase, tag in parse_kpi(pred):
        wp[tag].update(phrase.split())
    for phrase, tag in parse_kpi(gold):
        wg[tag].update(phrase.split())
    return {t: (len(wp[t] & wg[t]), len(wp[t]), len(wg[t])) for t in KPI_TAGS}


def kpi_f1_from_counts(counts: Mapping[str, tuple[int, int, int]]) -> dict[str, float]:
    """[KPIF1] from summed counts {tag: (O, P, G)}; always averaged over the 4 tags kpi, cy, py, py1.

    word F1_t = 2O / (2O + (P − O) + (G − O)) (0 if the denominator is 0).
    adjusted (IBM): r = O/G (0 if G = 0), q = (P − O)/P (0 if P = 0); F1adj_t = 2r / (2r + q + (1 − r)), 0 if G = 0
    or the denominator is 0 — i.e. 2R/(R + 2 − Pr) with recall R and precision Pr.
    HELM parity variant swaps the roles (2Pr/(Pr + 2 − R)): ``adjusted_macro_f1_helm``.
    """
    word, adj, helm = [], [], []
    for t in KPI_TAGS:
        o, p, g = counts.get(t, (0, 0, 0))
        den = 2 * o + (p - o) + (g - o)
        word.append(2 * o / den if den else 0.0)
        adj.append(_adjusted(o, p, g))
        helm.append(_adjusted(o, g, p))  # HELM passes (reference, completion) as (prediction, gold)
    return {"adjusted_macro_f1": sum(adj) / 4, "word_macro_f1": sum(word) / 4,
            "adjusted_macro_f1_helm": sum(helm) / 4}


def _adjusted(o: int, p: int, g: int) -> float:
    if g == 0:
        return 0.0
    r = o / g
    q = (p - o) / p if p else 0.0
    den = 2 * r + q + (1 - r)
    return 2 * r / den if den else 0.0


def kpi_adjusted_f1(golds: Sequence[str], preds: Sequence[str]) -> dict[str, float]:
    """Sum :func:`kpi_word_counts` over items, then :func:`kpi_f1_from_counts`."""
    _require_pairs(golds, preds, "adjusted_macro_f1")
    total = {t: [0, 0, 0] for t in KPI_TAGS}
    for g, p in zip(golds, preds):
        for t, c in kpi_word_counts(g, "" if p == INVALID else p).items():
            for j in range(3):
                total[t][j] += c[j]
    return kpi_f1_from_counts({t: tuple(v) for t, v in total.items()})


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

