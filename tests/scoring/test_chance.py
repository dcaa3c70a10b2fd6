"""docs/sharpe.md#baselines: every test vector of the chance-level formulas (lm_eval_enterprise/scoring/chance.py:
exact expectations, majority, simulation, the lead-K summary)."""

import numpy as np
import pytest

from lm_eval_enterprise.scoring import chance as C

TOL = 1e-6


def approx_f1_class(p_j: float, k: int) -> float:
    """Large-N approximation E[F1_j] ≈ 2p_j/(k·p_j + 1) of the exact expected F1 of a class under the uniform
    predictor (a sanity check of :func:`C.expected_f1_class`)."""
    return 2 * p_j / (k * p_j + 1)


def test_weighted_f1_50_30_20():
    per = [C.expected_f1_class(c, 100, 3) for c in (50, 30, 20)]
    assert per == pytest.approx([0.398069, 0.314197, 0.248808], abs=TOL)
    assert C.uniform_f1([50, 30, 20], "weighted") == pytest.approx(0.343055, abs=TOL)
    approx = sum(c / 100 * approx_f1_class(c / 100, 3) for c in (50, 30, 20))
    assert approx == pytest.approx(0.344737, abs=TOL)
    assert C.majority_f1([50, 30, 20], "weighted") == pytest.approx(0.333333, abs=TOL)


def test_macro_f1_50_30_20():
    assert C.uniform_f1([50, 30, 20], "macro") == pytest.approx(0.320358, abs=TOL)
    approx = np.mean([approx_f1_class(c / 100, 3) for c in (50, 30, 20)])
    assert approx == pytest.approx(0.321930, abs=TOL)
    assert C.majority_f1([50, 30, 20], "macro") == pytest.approx(0.222222, abs=TOL)


def test_simulated_matches_spec_and_exact():
    gold = np.repeat(np.arange(3), [50, 30, 20])
    w, w_se = C.simulated_uniform(gold, 3, "weighted", seed=0)
    m, m_se = C.simulated_uniform(gold, 3, "macro", seed=0)
    # the spec's simulated values (10 000 draws, default_rng(0).integers(0, k, N) per draw, sklearn f1_score)
    assert w == pytest.approx(0.342806, abs=TOL)
    assert m == pytest.approx(0.320248, abs=TOL)
    assert abs(w - C.uniform_f1([50, 30, 20], "weighted")) < 3 * w_se
    assert abs(m - C.uniform_f1([50, 30, 20], "macro")) < 3 * m_se


def test_simulation_equals_sklearn_per_draw():
    from sklearn.metrics import f1_score

    gold = np.repeat(np.arange(3), [5, 3, 2])
    v, _ = C.simulated_uniform(gold, 3, "weighted", draws=50, seed=3)
    rng = np.random.default_rng(3)
    ref = np.mean(
        [
            f1_score(gold, rng.integers(0, 3, 10), labels=range(3), average="weighted", zero_division=0)
            for _ in range(50)
        ]
    )
    assert v == pytest.approx(ref, abs=1e-12)


def test_small_n_effect_10_10_10():
    assert C.uniform_f1([10, 10, 10], "weighted") == pytest.approx(0.327590, abs=TOL)
    assert C.uniform_f1([10, 10, 10], "macro") == pytest.approx(0.327590, abs=TOL)
    assert C.majority_f1([10, 10, 10], "weighted") == pytest.approx(0.166667, abs=TOL)


def test_earnings_call_568_432():
    assert C.uniform_f1([568, 432], "weighted") == pytest.approx(0.502198, abs=TOL)
    assert C.majority_f1([568, 432], "weighted") == pytest.approx(0.411510, abs=TOL)


def test_binary_f1_two_documents_by_hand():
    # gold (pos, neg), uniform guesses: (pos,pos) F1 = 2·1/(2·1+1+0) = 2/3, (pos,neg) 1, (neg,·) 0 → (2/3 + 1)/4
    assert C.uniform_f1([1, 1], "binary", positive=0) == pytest.approx(5 / 12, abs=1e-12)
    assert C.uniform_f1([1, 1], "binary", positive=1) == pytest.approx(5 / 12, abs=1e-12)
    # gold (pos, pos, neg): P(TP = a) = C(2,a)/4, P(FP = c) = 1/2; F1 = 2a/(2 + a + c)
    # a=1,c=0: 2/3; a=1,c=1: 1/2; a=2,c=0: 1; a=2,c=1: 4/5 → (1/2)(2/3+1/2)/2 + (1/4)(1+4/5)/2 = 7/24 + 9/40
    assert C.uniform_f1([2, 1], "binary", positive=0) == pytest.approx(31 / 60, abs=1e-12)


def test_binary_f1_30_70():
    exact = C.uniform_f1([30, 70], "binary", positive=0)
    assert exact == pytest.approx(0.374111, abs=TOL)
    # the large-N approximation 2p/(k·p + 1) with k = 2, p = 0.3 is 0.6/1.6 = 0.375, just above the exact value
    assert approx_f1_class(0.3, 2) == pytest.approx(0.375, abs=1e-12)
    assert 0 < approx_f1_class(0.3, 2) - exact < 2e-3
    gold = np.repeat([0, 1], [30, 70])
    sim, se = C.simulated_uniform(gold, 2, "binary", positive=0, draws=4000, seed=2)
    assert abs(sim - exact) < 4 * se
    assert C.majority_f1([30, 70], "binary", positive=0) == 0.0
    # always-positive predictor: 2p/(1+p) with p = 0.3, checked with the project's metric
    from lm_eval_enterprise.scoring.metrics import binary_f1

    golds = ["pos"] * 30 + ["neg"] * 70
    assert binary_f1(golds, ["pos"] * 100, "pos") == pytest.approx(0.461538, abs=TOL)
    # majority = the positive class (70 of 100): TP 70, FP 30, FN 0 → F1 = 2·70/(2·70 + 30) = 14/17, the same as
    # the project's metric on the 100 predictions
    assert C.majority_f1([70, 30], "binary", positive=0) == pytest.approx(14 / 17, abs=1e-12)
    assert binary_f1(["pos"] * 70 + ["neg"] * 30, ["pos"] * 100, "pos") == pytest.approx(14 / 17, abs=1e-12)
    assert C.majority_f1([30, 30], "binary", positive=0) == pytest.approx(0.6667, abs=1e-4)  # tie → first label


def test_rr_vectors():
    assert C.expected_rr_at_k(20, 1, 10) == pytest.approx(0.146448, abs=TOL)
    assert C.expected_rr_at_k(20, 1, 10) == pytest.approx(sum(1 / r for r in range(1, 11)) / 20)
    assert C.expected_rr_at_k(20, 2, 10) == pytest.approx(0.255681, abs=TOL)
    assert C.expected_rr_at_k(20, 1, 5) == pytest.approx(0.114167, abs=TOL)
    assert C.expected_rr_at_k(20, 0, 10) == 0.0
    v, se = C.simulated_ranking([(20, 2)], "rr", 10, draws=4000, seed=0)
    assert abs(v - 0.255681) < 4 * se  # spec: simulation 0.255726


def test_ndcg_expectation_by_simulation():
    exact = C.expected_ndcg_at_k(20, 2, 10)
    v, se = C.simulated_ranking([(20, 2)], "ndcg", 10, draws=3000, seed=1)
    assert abs(v - exact) < 4 * se


def test_accuracy_vectors():
    assert [C.uniform_accuracy(k) for k in (5, 10, 2)] == [0.2, 0.1, 0.5]
    assert C.majority_share([7, 2, 1]) == 0.7


def test_exact_f1_matches_brute_force_enumeration():
    # tiny case enumerated over all 3^4 prediction vectors
    from itertools import product

    gold = [0, 0, 1, 2]
    vals = []
    for pred in product(range(3), repeat=4):
        f = []
        for j in range(3):
            tp = sum(g == j and p == j for g, p in zip(gold, pred))
            den = sum(g == j for g in gold) + sum(p == j for p in pred)
            f.append(2 * tp / den if den else 0.0)
        vals.append(f)
    per = np.mean(vals, axis=0)
    assert [C.expected_f1_class(c, 4, 3) for c in (2, 1, 1)] == pytest.approx(list(per), abs=1e-12)


def test_large_n_truncation_is_accurate():
    exact = C.uniform_f1([3000, 1500], "weighted")
    approx = sum(c / 4500 * approx_f1_class(c / 4500, 2) for c in (3000, 1500))
    assert exact == pytest.approx(approx, abs=2e-3)


DOCS = ["Rates rose. Stocks fell sharply.", "Bonds rallied. Yields fell."]
REFS = ["stocks fell", "bonds rallied"]


def test_lead_sentences():
    assert (
        C.lead_sentences("Rates rose. Stocks fell sharply! Bonds rallied? Done.", 2)
        == "Rates rose. Stocks fell sharply!"
    )
    assert C.lead_sentences("Title line\n\nBody starts here. More.", 1) == "Title line"
    assert C.lead_sentences("One sentence only", 3) == "One sentence only"


def test_lead_baseline_by_hand():
    # lead-1: "Rates rose." shares no token with "stocks fell" → 0; "Bonds rallied." is the reference → 1
    assert C.lead_baseline(DOCS, REFS, 1, "rouge_l") == pytest.approx(0.5, abs=1e-12)
    # lead-2, doc 1: LCS 2 of 5 predicted tokens, 2 of 2 reference tokens: F = 2·(2/5)·1/(2/5 + 1) = 4/7;
    # doc 2: 2 of 4 and 2 of 2: F = 2·(1/2)·1/(3/2) = 2/3
    assert C.lead_baseline(DOCS, REFS, 2, "rouge_l") == pytest.approx((4 / 7 + 2 / 3) / 2, abs=1e-12)
    # ROUGE-2, doc 1, lead-2: 1 of 4 predicted bigrams ("stock fell") and 1 of 1 reference bigram → 2·(1/4)/(5/4)
    assert C.lead_baseline(DOCS[:1], REFS[:1], 2, "rouge_2") == pytest.approx(0.4, abs=1e-12)


def test_baselines_average_over_the_present_classes_like_the_metric():
    """uniform and majority macro-F1 baselines of counts (2, 2, 0): class c has no gold support, so the average
    is over a and b only, as the metric's (the old copy divided by 3)."""
    per = C.expected_f1_class(2, 4, 3)  # E[F1] of a class with 2 of 4 golds, k = 3 labels
    assert C.uniform_f1([2, 2, 0], "macro") == pytest.approx(per, abs=1e-12)  # (per + per) / 2
    # majority: always "a" (ties → first): F1_a = 2p/(1+p) with p = 1/2 → 2/3; F1_b = 0; macro (2/3 + 0)/2 = 1/3
    assert C.majority_f1([2, 2, 0], "macro") == pytest.approx(1 / 3, abs=1e-12)
    v, _ = C.simulated_uniform([0, 0, 1, 1], 3, "macro", draws=4000, seed=0)
    assert v == pytest.approx(per, abs=0.02)
