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
* ``agg_*`` functions are the corpus-level aggregations named in ``metric_list``: each is
  :func:`lm_eval_enterprise.scoring.corpus.aggregate` of its own name — the statistic of the one table
  :data:`~lm_eval_enterprise.scoring.corpus.STATISTICS`, which the Sharpe tool reads too.

The metric key names returned here must match the base YAML's ``metric_list`` exactly (lm-eval aggregates
only declared metrics); the generator in :mod:`lm_eval_enterprise.prompting.templating` writes the ``metric_list`` from the
family's record in :mod:`lm_eval_enterprise.families`, which also lists the aggregation functions defined here.
This module imports nothing of lm-eval (the Sharpe tool recomputes scores with these functions).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..configkeys import QUESTION_FIELD
from . import corpus
from . import metrics as M
from .answers import ParsedAnswer, helm_label


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


def _aggregation(agg: str):
    """lm-eval's aggregation ``agg``: :func:`corpus.aggregate` of that statistic (one definition per metric)."""

    def aggregation(items: Sequence[Any]) -> float:
        return corpus.aggregate(agg, items)

    aggregation.__name__ = aggregation.__qualname__ = agg
    aggregation.__doc__ = f"``corpus.aggregate({agg!r}, items)``: {corpus.statistic(agg).baseline} baseline rule."
    return aggregation


agg_weighted_f1 = _aggregation("agg_weighted_f1")  # [WF1]; documents = item × question: the mean over questions
agg_weighted_precision = _aggregation("agg_weighted_precision")
agg_weighted_recall = _aggregation("agg_weighted_recall")
agg_macro_f1 = _aggregation("agg_macro_f1")  # [MF1] over the gold classes present
agg_binary_f1 = _aggregation("agg_binary_f1")  # [BF1]
agg_mcc = _aggregation("agg_mcc")  # [MCC]
agg_pearson = _aggregation("agg_pearson")  # [PEARSON]
agg_spearman = _aggregation("agg_spearman")


def classification_mcc(doc: dict, results: Sequence[Any]) -> dict:
    """[MCC] (CoLA, JCoLA): the corpus item of the confusion matrix, accuracy and the format metrics."""
    gold, pred, common = _classification(doc, results)
    return {"mcc": {"gold": gold, "pred": pred, "labels": list(doc["label_names"])}, **common}


def classification_accuracy(doc: dict, results: Sequence[Any]) -> dict:
    """Accuracy of a label (MNLI, JNLI), with macro F1 over the classes as a secondary corpus metric."""
    gold, pred, common = _classification(doc, results)
    return {**common, "macro_f1": {"gold": gold, "pred": pred, "labels": list(doc["label_names"])}}


def similarity(doc: dict, results: Sequence[Any]) -> dict:
    """[PEARSON] (STS-B, JSTS): the answer's number clipped to [0, 5] (2.5 when unreadable: a format failure that
    stays in the correlation, :func:`metrics.similarity_prediction`) paired with the gold score."""
    pred = _answer(results)
    item = {"pred": M.similarity_prediction(pred), "gold": float(doc["score"])}
    return {"pearson": item, "spearman": item, **_format(pred)}


def extractive_qa(doc: dict, results: Sequence[Any]) -> dict:
    """[SQUAD] token F1 and exact match of the answer span against every reference (the maximum)."""
    pred = _answer(results)
    return {
        "squad_f1": M.squad_f1(pred, doc["answers"]),
        "squad_em": M.squad_exact_match(pred, doc["answers"]),
        **_format(pred),
    }


def extractive_qa_chars(doc: dict, results: Sequence[Any]) -> dict:
    """[CHARF1] character F1 and exact match of the answer span against every reference (the maximum)."""
    pred = _answer(results)
    return {
        "char_f1": M.char_f1(pred, doc["answers"]),
        "char_em": M.char_exact_match(pred, doc["answers"]),
        **_format(pred),
    }


def choice_text(doc: dict, results: Sequence[Any]) -> dict:
    """Accuracy of a multiple-choice answer given as the option's text (CommonsenseQA, JCommonsenseQA): the
    [PARSE] reading (an option's text, or its letter / number through the document's ``label_aliases``) must
    equal ``doc["answer_text"]``; no option is wrong and a format failure."""
    pred = _answer(results)
    return {"accuracy": M.exact_match(doc["answer_text"], pred), **_format(pred)}


# ------------------------------------------------------------------------------------------------ NER
def entity(doc: dict, results: Sequence[Any]) -> dict:
    pred = _answer(results)
    item = {"gold": doc["target"], "pred": pred, "types": list(doc["entity_types"])}
    return {"entity_f1": item, "entity_precision": item, "entity_recall": item, **_format(pred)}


agg_entity_f1 = _aggregation("agg_entity_f1")  # [EF1] micro F1 (gold and prediction read by one parser)
agg_entity_precision = _aggregation("agg_entity_precision")
agg_entity_recall = _aggregation("agg_entity_recall")


# ------------------------------------------------------------------------------------------------ KPI-Edgar
def kpi(doc: dict, results: Sequence[Any]) -> dict:
    """[KPIF1]: the item keeps the completion text (or ``[invalid]``); every metric of ``metrics.KPI_METRICS``
    reads it with its own parser (IBM's for the primary, HELM's strict regex for ``*_helm``)."""
    pred = _answer(results)
    item = {"gold": doc["target"], "pred": pred}
    return {**{m: item for m in M.KPI_METRICS}, **_format(pred)}


agg_adjusted_macro_f1 = _aggregation("agg_adjusted_macro_f1")  # [KPIF1] IBM's metric and parser
agg_word_macro_f1 = _aggregation("agg_word_macro_f1")
agg_adjusted_macro_f1_helm = _aggregation("agg_adjusted_macro_f1_helm")  # HELM's formulas and strict parser
agg_word_macro_f1_helm = _aggregation("agg_word_macro_f1_helm")


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


agg_rr_at_10 = _aggregation("agg_rr_at_10")  # [RR] mean over queries of each query's RR@10
agg_rr_at_5 = _aggregation("agg_rr_at_5")
agg_ndcg_at_10 = _aggregation("agg_ndcg_at_10")


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
