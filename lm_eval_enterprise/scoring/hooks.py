"""Thin lm-eval adapters around :mod:`lm_eval_enterprise.scoring.metrics`.

Task YAMLs reference these with ``!function lm_eval_enterprise.scoring.hooks.<name>``:

* ``process_results`` functions (one per task family) return, per document, a self-contained item for every
  corpus-level metric (so the Sharpe tool can recompute scores from ``samples_*.jsonl`` alone) and floats for
  per-document metrics, plus, for generate families, ``format_failure`` (1.0 when the [PARSE] reading of
  :class:`~lm_eval_enterprise.scoring.filters.AnswerFilter` is ``[invalid]``) and ``format_adherence`` (1.0 when the
  completion fully matches the template's own answer regex; see :mod:`lm_eval_enterprise.scoring.filters`).
* ``<family>_helm`` functions (families with ``helm_metrics`` in their registry record) are the ``process_results`` of a template that
  is HELM's own prompt: the family's metrics plus the primary metric under HELM's reading rule
  (``<primary>_helm``), for parity with the paper's numbers.
* ``agg_*`` functions are the corpus-level aggregations named in ``metric_list``.

The metric key names returned here must match the base YAML's ``metric_list`` exactly (lm-eval aggregates
only declared metrics); the generator in :mod:`lm_eval_enterprise.prompting.templating` writes the ``metric_list`` from the
family's record in :mod:`lm_eval_enterprise.families`, which also lists the aggregation functions defined here.
This module imports nothing of lm-eval (the Sharpe tool recomputes scores with these functions).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import families
from . import metrics as M
from .answers import ParsedAnswer, helm_label

# the document field naming its question in a dataset made of questions (gold_news: documents = headline ×
# question, see lm_eval_enterprise.data.load); corpus metrics of such a task are means over questions ([QMEAN])
QUESTION_FIELD = "question_id"

# The per-family tables, read from the family registry (kept under these names for existing callers)
FAMILY_METRICS: dict[str, dict[str, tuple[str, bool]]] = families.metric_tables()
# the HELM reading as a secondary metric of the template that is HELM's prompt ("helm" in its axes)
HELM_METRICS: dict[str, dict[str, tuple[str, bool]]] = families.helm_tables()


def _answer(results: Sequence[Any]) -> ParsedAnswer:
    value = results[0]
    if isinstance(value, (list, tuple)):  # no take_first in the pipeline
        value = value[0]
    return ParsedAnswer.of(value)


def _failure(pred: str) -> float:
    return float(pred == M.INVALID)


def _format(pred: ParsedAnswer) -> dict[str, float]:
    """``format_failure`` (the reading is [invalid]) and ``format_adherence`` (the completion is in the template's
    exact answer format) of one document."""
    return {"format_failure": _failure(pred), "format_adherence": float(pred.adherent)}


# ------------------------------------------------------------------------------------------------ classification
def _classification(doc: dict, results: Sequence[Any]) -> tuple[str, str, dict]:
    pred = _answer(results)
    common = {"accuracy": M.exact_match(doc["label"], pred), **_format(pred)}
    return doc["label"], pred, common


def classification_weighted(doc: dict, results: Sequence[Any]) -> dict:
    gold, pred, common = _classification(doc, results)
    item = {"gold": gold, "pred": pred, "labels": list(doc["label_names"])}
    if QUESTION_FIELD in doc:  # a document of a dataset made of questions: its corpus metrics average per question
        item[QUESTION_FIELD] = doc[QUESTION_FIELD]
    return {"weighted_f1": item, **common, "weighted_precision": item, "weighted_recall": item}


def classification_macro(doc: dict, results: Sequence[Any]) -> dict:
    gold, pred, common = _classification(doc, results)
    return {"macro_f1": {"gold": gold, "pred": pred, "labels": list(doc["label_names"])}, **common}


def classification_binary(doc: dict, results: Sequence[Any]) -> dict:
    gold, pred, common = _classification(doc, results)
    return {"binary_f1": {"gold": gold, "pred": pred, "positive": doc["positive_label"]}, **common}


def _weighted_f1(items: Sequence[dict]) -> float:
    return M.weighted_f1([i["gold"] for i in items], [i["pred"] for i in items], _labels(items))


def _weighted_pr(items: Sequence[dict]) -> tuple[float, float]:
    return M.weighted_precision_recall([i["gold"] for i in items], [i["pred"] for i in items], _labels(items))


def agg_weighted_f1(items: Sequence[dict]) -> float:
    """[WF1] of the items; for documents that are (item, question) pairs the mean over questions ([QMEAN])."""
    return M.mean_over_questions(items, _weighted_f1, QUESTION_FIELD)


def agg_weighted_precision(items: Sequence[dict]) -> float:
    return M.mean_over_questions(items, lambda g: _weighted_pr(g)[0], QUESTION_FIELD)


def agg_weighted_recall(items: Sequence[dict]) -> float:
    return M.mean_over_questions(items, lambda g: _weighted_pr(g)[1], QUESTION_FIELD)


def agg_macro_f1(items: Sequence[dict]) -> float:
    return M.macro_f1([i["gold"] for i in items], [i["pred"] for i in items], _labels(items))


def agg_binary_f1(items: Sequence[dict]) -> float:
    M._require(items, "binary_f1")
    return M.binary_f1([i["gold"] for i in items], [i["pred"] for i in items], items[0]["positive"])


def _labels(items: Sequence[dict]) -> list[str]:
    M._require(items, "f1")
    return list(items[0]["labels"])


# ------------------------------------------------------------------------------------------------ NER
def entity(doc: dict, results: Sequence[Any]) -> dict:
    pred = _answer(results)
    item = {"gold": doc["target"], "pred": pred, "types": list(doc["entity_types"])}
    return {"entity_f1": item, "entity_precision": item, "entity_recall": item, **_format(pred)}


def entity_scores(items: Sequence[dict]) -> dict[str, float]:
    """Parse gold and predicted phrase lists with the same code ([EF1]) and score them (micro)."""
    M._require(items, "entity_f1")
    table = entity_type_table(items[0]["types"])
    golds, preds = [], []
    for it in items:
        gold = M.parse_entities(it["gold"], table)
        if gold is None:
            raise M.MetricInputError(f"unparsable gold entity string {it['gold']!r}")
        golds.append(gold)
        preds.append(None if it["pred"] == M.INVALID else M.parse_entities(it["pred"], table))
    return M.entity_prf(golds, preds)


TYPE_ALIASES = M.TYPE_ALIASES
entity_type_table = M.entity_type_table  # norm(type or alias) → canonical type (kept here for existing callers)


def agg_entity_f1(items):
    return entity_scores(items)["f1"]


def agg_entity_precision(items):
    return entity_scores(items)["precision"]


def agg_entity_recall(items):
    return entity_scores(items)["recall"]


# ------------------------------------------------------------------------------------------------ KPI-Edgar
def kpi(doc: dict, results: Sequence[Any]) -> dict:
    """[KPIF1]: the item keeps the completion text (or ``[invalid]``); every metric of ``metrics.KPI_METRICS``
    reads it with its own parser (IBM's for the primary, HELM's strict regex for ``*_helm``)."""
    pred = _answer(results)
    item = {"gold": doc["target"], "pred": pred}
    return {**{m: item for m in M.KPI_METRICS}, **_format(pred)}


def _kpi(items):
    return M.kpi_adjusted_f1([i["gold"] for i in items], [i["pred"] for i in items])


def agg_adjusted_macro_f1(items):
    return _kpi(items)["adjusted_macro_f1"]


def agg_word_macro_f1(items):
    return _kpi(items)["word_macro_f1"]


def agg_adjusted_macro_f1_helm(items):
    return _kpi(items)["adjusted_macro_f1_helm"]


def agg_word_macro_f1_helm(items):
    return _kpi(items)["word_macro_f1_helm"]


# ------------------------------------------------------------------------------------------------ ranking
def ranking(doc: dict, results: Sequence[Any]) -> dict:
    """Pointwise yes/no ranking by log-probability (design 1: one doc per (query, candidate)).

    ``doc_to_choice`` is [no-verbaliser, yes-verbaliser], so ``results = [(ℓN, greedy), (ℓY, greedy)]``; the
    ranking key is HELM's :func:`~lm_eval_enterprise.scoring.metrics.helm_ranking_key`.
    """
    ll_no, ll_yes = float(results[0][0]), float(results[1][0])
    key = M.helm_ranking_key(ll_yes, ll_no)
    rel = int(doc["label"] == "Yes")
    item = [doc["qid"], int(doc["cand_index"]), list(key), rel]
    return {"rr_at_10": item, "rr_at_5": item, "ndcg_at_10": item, "yes_accuracy": float(key[0] == rel)}


def ranking_generate(doc: dict, results: Sequence[Any]) -> dict:
    """Generation-based pointwise ranking for backends without log-probabilities.

    The [PARSE] reading gives the key: 1 for Yes, 0 for No; ties are broken deterministically by the shuffled
    candidate order (stable sort on ``cand_index``). A format failure (no yes/no answer) gets key ``None``: the
    candidate is not retrieved, so it can never be a hit (like a wrong answer in classification, never a free
    guess); ``yes_accuracy`` counts it as wrong. The answer filter reads with the label rule (``label_names`` Yes/No).
    """
    pred = _answer(results)
    rel = int(doc["label"] == "Yes")
    if pred == M.INVALID:
        key, correct = None, 0.0
    else:
        yes = int(pred == "Yes")
        key, correct = [yes], float(yes == rel)
    item = [doc["qid"], int(doc["cand_index"]), key, rel]
    return {"rr_at_10": item, "rr_at_5": item, "ndcg_at_10": item, "yes_accuracy": correct, **_format(pred)}


def agg_rr_at_10(items):
    return M.mean_rr_at_k(items, 10)


def agg_rr_at_5(items):
    return M.mean_rr_at_k(items, 5)


def agg_ndcg_at_10(items):
    return M.mean_ndcg_at_k(items, 10)


# ------------------------------------------------------------------------------------------------ numeric QA
def numeric(doc: dict, results: Sequence[Any]) -> dict:
    pred = _answer(results)
    score = 0.0 if pred == M.INVALID else M.float_equivalence(doc["answer"], pred)
    return {"accuracy": score, **_format(pred)}


# ------------------------------------------------------------------------------------------------ summarization
def summarization(doc: dict, results: Sequence[Any]) -> dict:
    pred = _answer(results)
    if pred == M.INVALID:
        scores = {"rouge_l": 0.0, "rouge_1": 0.0, "rouge_2": 0.0}
    else:
        scores = M.rouge(doc["summary"], pred)
    return {**scores, **_format(pred)}


# ------------------------------------------------------------------------------------------------ multiple choice
def multiple_choice(doc: dict, results: Sequence[Any]) -> dict:
    """[ACC] on a generated letter: correct iff the [PARSE] reading equals ``doc["answer_letter"]``.

    The record needs ``answer_letter`` and ``label_names`` = the option letters (``data.mc_fields``, added for every
    ``multiple_choice`` source); the filter reads the letter with the label rule (``(B)``, ``B.``, ``Answer: B``,
    ``**B**`` → B). A wrong letter is wrong; no letter is wrong and a format failure.
    """
    pred = _answer(results)
    return {"accuracy": float(pred != M.INVALID and pred == doc["answer_letter"]), **_format(pred)}


# ------------------------------------------------------------------------------------------------ HELM parity
def _helm_classification(family_fn, primary: str):
    """``family_fn`` plus ``<primary>_helm``: the same corpus item with HELM's prediction — the label whose [NORM]
    equals the [NORM] of the whole completion ([WF1] as HELM's ``ClassificationMetric`` computes it)."""

    def process_results(doc: dict, results: Sequence[Any]) -> dict:
        out = family_fn(doc, results)
        helm_pred = helm_label(_answer(results).completion, doc["label_names"])
        out[f"{primary}_helm"] = {**out[primary], "pred": helm_pred}
        return out

    process_results.__name__ = process_results.__qualname__ = f"{family_fn.__name__}_helm"
    process_results.__doc__ = f"``{family_fn.__name__}`` plus ``{primary}_helm`` (HELM: whole completion = label)."
    return process_results


classification_weighted_helm = _helm_classification(classification_weighted, "weighted_f1")
classification_macro_helm = _helm_classification(classification_macro, "macro_f1")
classification_binary_helm = _helm_classification(classification_binary, "binary_f1")


def multiple_choice_helm(doc: dict, results: Sequence[Any]) -> dict:
    """``multiple_choice`` plus ``accuracy_helm``: HELM's multiple-choice-joint rule, 1 iff the whole stripped
    completion is exactly the gold letter (HELM maps the completion through its letter → option table and
    compares exactly; case-sensitive, nothing else may follow)."""
    out = multiple_choice(doc, results)
    out["accuracy_helm"] = float(_answer(results).completion == doc["answer_letter"])
    return out
