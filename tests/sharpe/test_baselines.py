"""docs/sharpe.md#baselines: which formula the Sharpe tool applies to a metric (:func:`compute`), and when b is
unavailable; the formulas' own test vectors are tests/scoring/test_chance.py."""

import pytest

from lm_eval_enterprise.sharpe import baselines as B

TOL = 1e-6


def test_compute_dispatch_and_unavailable():
    info = B.LabelInfo("classification", labels=["a", "b", "c"], gold_counts=[50, 30, 20])
    assert B.compute(
        "weighted_f1", "classification_weighted", "agg_weighted_f1", info, "uniform"
    ).value == pytest.approx(0.343055, abs=TOL)
    assert B.compute("accuracy", "classification_weighted", "mean", info, "majority").value == 0.5
    assert B.compute("entity_f1", "entity", "agg_entity_f1", B.LabelInfo("none"), "uniform").value == 0.0
    assert B.compute("rouge_l", "summarization", "mean", B.LabelInfo("none"), "majority").value == 0.0
    un = B.compute("weighted_f1", "classification_weighted", "agg_weighted_f1", B.LabelInfo("none"), "uniform")
    assert un.value is None and un.method == "unavailable"
    rr = B.compute("rr_at_10", "ranking", "agg_rr_at_10", B.LabelInfo("ranking", queries=[(20, 1)]), "majority")
    assert rr.value == pytest.approx(0.146448, abs=TOL) and "uniform" in rr.note
    assert B.compute("accuracy", "multiple_choice", "mean", B.LabelInfo("choice", n_options=5), "uniform").value == 0.2
    assert B.compute("x", None, "mean", B.LabelInfo("none"), "uniform").value is None
    assert B.compute("weighted_f1", "classification_weighted", "agg_weighted_f1", info, "none").value == 0.0


def test_generation_baseline_dispatch():
    # the lead-1 summary "Bonds rallied." is the reference up to case and punctuation: ROUGE-L 1
    info = B.LabelInfo("generation", documents=["Bonds rallied. Yields fell."], references=["bonds rallied"])
    lead = B.compute("rouge_l", "summarization", "mean", info, "uniform", generation="lead-1")
    assert (lead.value, lead.method) == (pytest.approx(1.0), "lead-1") and "first 1 sentence" in lead.note
    assert B.compute("rouge_l", "summarization", "mean", info, "uniform").value == 0.0  # default: zero
    assert B.compute("rouge_l", "summarization", "mean", info, "none", generation="lead-1").method == "none"
    missing = B.compute("rouge_l", "summarization", "mean", B.LabelInfo("none"), "uniform", generation="lead-2")
    assert missing.value is None and missing.method == "unavailable"
    assert B.compute("entity_f1", "entity", "agg_entity_f1", info, "uniform", generation="lead-1").value == 0.0
    assert [B.parse_generation_baseline(s) for s in ("zero", "lead-1", "lead-12")] == [None, 1, 12]
    for bad in ("lead-0", "lead", "first-3", "lead-x"):
        with pytest.raises(ValueError):
            B.parse_generation_baseline(bad)
