"""Ranking machinery shared by fiqa_qa and insurance_qa: [RR]/NDCG metrics, HELM key, BM25, candidate lists,
flattening, the RankingSource base and the two process_results hooks. Hand-worked values throughout."""

import math
import random

import pytest

from lm_eval_enterprise.data.ranking import (
    BM25,
    RankingSource,
    candidate_ids,
    flatten,
    flatten_all,
    natural_id_key,
    ranking_record,
    tokenize,
)
from lm_eval_enterprise.scoring import hooks
from lm_eval_enterprise.scoring import metrics as M


# ------------------------------------------------------------------------------------------------ [RR] and NDCG
def test_reciprocal_rank_hand_values():
    assert M.reciprocal_rank([0, 0, 1], 10) == pytest.approx(1 / 3)
    assert M.reciprocal_rank([0, 0, 1], 2) == 0.0  # first hit beyond k
    assert M.reciprocal_rank([1, 0, 1], 10) == 1.0
    assert M.reciprocal_rank([0, 0, 0], 10) == 0.0  # no relevant candidate
    assert M.reciprocal_rank([0] * 4 + [1], 5) == pytest.approx(0.2)
    assert M.reciprocal_rank([0] * 5 + [1], 5) == 0.0


def test_ndcg_hand_values():
    # [0,0,1]: DCG = 1/log2(4) = 0.5; ideal (one relevant) = 1
    assert M.ndcg([0, 0, 1], 10) == pytest.approx(0.5)
    # [1,0,1]: DCG = 1 + 1/log2(4) = 1.5; ideal = 1 + 1/log2(3) = 1.630930 → 0.919721
    assert M.ndcg([1, 0, 1], 10) == pytest.approx(0.919721, abs=1e-6)
    assert M.ndcg([0, 0, 0], 10) == 0.0
    # an unretrieved relevant item still counts in the ideal DCG: [1] with R = 2 → 1 / (1 + 1/log2 3)
    assert M.ndcg([1], 10, n_relevant=2) == pytest.approx(0.613147, abs=1e-6)


def test_mean_rr_groups_by_query_and_breaks_ties_by_candidate_order():
    items = [
        # q1: keys put cand 2 (relevant) third → 1/3
        ("q1", 0, [0.9], 0),
        ("q1", 1, [0.5], 0),
        ("q1", 2, [0.1], 1),
        # q2: all tied → shuffled candidate order decides: cand 0 irrelevant, cand 1 relevant → 1/2
        ("q2", 1, [0.0], 1),
        ("q2", 0, [0.0], 0),
    ]
    assert M.mean_rr_at_k(items, 10) == pytest.approx((1 / 3 + 1 / 2) / 2)
    assert M.mean_rr_at_k(items, 2) == pytest.approx((0 + 1 / 2) / 2)
    with pytest.raises(M.MetricInputError):
        M.mean_rr_at_k([], 10)


def test_helm_key_orders_yes_before_no():
    # HELM: Yes answers (ℓY ≥ ℓN) first by ℓY; No answers after, by −ℓN (least confident No first)
    keys = {
        "yes_strong": M.helm_ranking_key(-0.1, -3.0),
        "yes_weak": M.helm_ranking_key(-0.6, -0.7),
        "no_weak": M.helm_ranking_key(-0.8, -0.6),
        "no_strong": M.helm_ranking_key(-5.0, -0.01),
    }
    assert keys["yes_strong"] == (1, -0.1) and keys["no_strong"] == (0, 0.01)
    order = sorted(keys, key=keys.get, reverse=True)
    assert order == ["yes_strong", "yes_weak", "no_weak", "no_strong"]
    assert M.helm_ranking_key(-1.0, -1.0)[0] == 1  # tie ℓY = ℓN → Yes


def test_unretrieved_candidates_never_hit():
    items = [
        ("a", 0, None, 1),
        ("a", 1, [0], 0),
        ("a", 2, [1], 0),  # only relevant one unretrieved → 0
        ("b", 0, None, 0),
        ("b", 1, [0], 1),  # → rank 1
        ("c", 0, None, 1),
        ("c", 1, [1], 1),
        ("c", 2, [0], 0),  # hit at 1; ideal counts 2 relevant
        ("d", 0, None, 1),
        ("d", 1, None, 0),  # nothing retrieved → 0
    ]
    assert M.rank_queries(items) == {"a": [0, 0], "b": [1], "c": [1, 0], "d": []}
    assert M.relevant_counts(items) == {"a": 1, "b": 1, "c": 2, "d": 1}
    assert M.mean_rr_at_k(items, 10) == pytest.approx((0 + 1 + 1 + 0) / 4)
    expected_ndcg = (0 + 1 + 1 / (1 + 1 / math.log2(3)) + 0) / 4
    assert M.mean_ndcg_at_k(iter(items), 10) == pytest.approx(expected_ndcg)


# ------------------------------------------------------------------------------------------------ hooks
def _doc(label, cand=0, qid="q"):
    return {"qid": qid, "cand_index": cand, "label": label}


def test_ranking_hook_uses_both_loglikelihoods():
    out = hooks.ranking(_doc("Yes", 3), [(-2.0, False), (-0.5, True)])  # [ℓN, ℓY]
    assert out["rr_at_10"] == ["q", 3, [1, -0.5], 1]
    assert out["yes_accuracy"] == 1.0
    out = hooks.ranking(_doc("Yes", 4), [(-0.2, True), (-1.5, False)])
    assert out["rr_at_10"] == ["q", 4, [0, 0.2], 1] and out["yes_accuracy"] == 0.0


def test_ranking_generate_hook():
    assert hooks.ranking_generate(_doc("Yes"), ["Yes"])["rr_at_10"] == ["q", 0, [1], 1]
    no = hooks.ranking_generate(_doc("No", 2), ["No"])
    assert no["rr_at_10"] == ["q", 2, [0], 0] and no["yes_accuracy"] == 1.0 and no["format_failure"] == 0.0
    bad = hooks.ranking_generate(_doc("No", 5), [M.INVALID])
    assert bad["rr_at_10"] == ["q", 5, None, 0]
    assert bad["yes_accuracy"] == 0.0 and bad["format_failure"] == 1.0  # a failure is never a correct "No"


def test_generate_ranking_of_all_no_answers_is_the_shuffled_order():
    # every candidate answered No → ties → the shuffled candidate order: relevant at cand 2 → RR 1/3
    items = [hooks.ranking_generate(_doc("Yes" if i == 2 else "No", i), ["No"])["rr_at_10"] for i in range(5)]
    assert hooks.agg_rr_at_10(items) == pytest.approx(1 / 3)


# ------------------------------------------------------------------------------------------------ BM25
def test_tokenize():
    assert tokenize("Roth-IRA's 2024 limit? Über") == ["roth", "ira", "s", "2024", "limit", "ber"]


def test_bm25_hand_worked_three_documents():
    # N = 3, lengths 3, 2, 4 → avgdl = 3; k1 = 0.9, b = 0.4; query tokens "apple", "cherry"
    # idf(apple) = ln(1 + (3−1+0.5)/(1+0.5)) = ln(8/3) = 0.980829; idf(cherry) = ln(1 + 1.5/2.5) = ln 1.6 = 0.470004
    # d0: tf(apple)=2, K = 0.9·(0.6 + 0.4·3/3) = 0.9   → 0.980829 · 2·1.9/(2+0.9)  = 1.285225
    # d1: tf(cherry)=1, K = 0.9·(0.6 + 0.4·2/3) = 0.78 → 0.470004 · 1·1.9/(1+0.78) = 0.501689
    # d2: tf(cherry)=3, K = 0.9·(0.6 + 0.4·4/3) = 1.02 → 0.470004 · 3·1.9/(3+1.02) = 0.666423
    bm = BM25(["apple banana apple", "banana cherry", "cherry cherry cherry date"])
    assert list(bm.scores("Apple, cherry!")) == pytest.approx([1.285225, 0.501689, 0.666423], abs=1e-6)
    assert bm.top("apple cherry", 3) == [0, 2, 1]
    assert bm.top("apple cherry", 2, exclude=[0]) == [2, 1]
    assert list(bm.scores("kiwi")) == [0.0, 0.0, 0.0]
    # a repeated query token counts twice
    assert bm.scores("apple apple")[0] == pytest.approx(2 * 1.285225, abs=1e-6)


def test_bm25_ties_keep_corpus_order():
    bm = BM25(["x y", "y x", "z", "x y"])
    assert bm.top("x", 4) == [0, 1, 3, 2]  # three equal scores, then the zero-score document
    assert bm.top("nothing", 2) == [0, 1]


# ------------------------------------------------------------------------------------------------ candidates
def test_natural_id_order():
    assert sorted(["10", "9", "100", "a2", "a10"], key=natural_id_key) == ["9", "10", "100", "a10", "a2"]


def test_candidate_ids_cap_fill_exclusion_and_shuffle():
    relevant = [f"r{i}" for i in range(12)]
    ranked = ["r11", "n0", "r3", "n1"] + [f"n{i}" for i in range(2, 30)]
    cands = candidate_ids("q7", relevant, ranked)
    assert len(cands) == 20
    kept = {d for d, rel in cands if rel}
    assert kept == {f"r{i}" for i in range(10)}  # first 10 relevant only
    assert [d for d, rel in cands if not rel] == [d for d, _ in cands if d.startswith("n")]
    assert {d for d, rel in cands if not rel} == {f"n{i}" for i in range(10)}  # r10/r11 never as negatives
    unshuffled = [(f"r{i}", True) for i in range(10)] + [(f"n{i}", False) for i in range(10)]
    random.Random("q7").shuffle(unshuffled)
    assert cands == unshuffled
    assert candidate_ids("q7", relevant, ranked) == cands  # deterministic
    assert len(candidate_ids("q8", ["a"], ["b", "c"])) == 3  # short pool → fewer candidates


def test_flatten_query_major():
    texts = {"a": "A text", "b": "B text", "c": "C text"}
    r1 = ranking_record("1", "Q1?", [("b", False), ("a", True)], texts)
    r2 = ranking_record("2", "Q2?", [("c", True)], texts)
    assert r1 == {
        "qid": "1",
        "question": "Q1?",
        "candidates": [{"docid": "b", "text": "B text"}, {"docid": "a", "text": "A text"}],
        "relevant": ["a"],
    }
    assert flatten(r1)[1] == {
        "qid": "1",
        "docid": "a",
        "question": "Q1?",
        "passage": "A text",
        "label": "Yes",
        "cand_index": 1,
    }
    assert [(p["qid"], p["cand_index"], p["label"]) for p in flatten_all([r1, r2])] == [
        ("1", 0, "No"),
        ("1", 1, "Yes"),
        ("2", 0, "Yes"),
    ]


def test_ranking_source_truncates_shots_and_flattens():
    src = RankingSource()
    long_passage = " ".join(f"w{i}" for i in range(250))
    shot = src.fewshot_transform({"passage": long_passage, "label": "Yes"})
    assert shot["passage"].split() == [f"w{i}" for i in range(200)]
    assert src.fewshot_key(shot) == "Yes"
    assert src.finalize({"label": "No"})["label_names"] == ["Yes", "No"]
    rec = ranking_record("1", "Q?", [("a", True), ("b", False)], {"a": "x", "b": "y"})
    assert [p["label"] for p in src.select({"test": [rec]}, None)["test"]] == ["Yes", "No"]


def test_sharpe_recompute_matches_hooks_with_unretrieved_candidates():
    from lm_eval_enterprise.scoring.metrics import query_value as ranking_query_values

    queries = [[("c", 0, None, 1), ("c", 1, [1], 1), ("c", 2, [0], 0)], [("d", 0, None, 1), ("d", 1, None, 0)]]
    for metric, k, agg in (
        ("rr", 10, hooks.agg_rr_at_10),
        ("rr", 5, hooks.agg_rr_at_5),
        ("ndcg", 10, hooks.agg_ndcg_at_10),
    ):
        per_query = [ranking_query_values(q, metric, k) for q in queries]
        assert sum(per_query) / len(per_query) == pytest.approx(agg([i for q in queries for i in q]))
