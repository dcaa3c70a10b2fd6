"""Metric functions (lm_eval_enterprise/scoring/metrics.py) and their lm-eval adapters (hooks.py) against
docs/metrics.md and docs/conventions.md. Every expected value is worked out by hand from the formula; the
working is in the comments next to each assertion (no expected value is produced by the code under test).
"""

import math

import pytest

from lm_eval_enterprise import families
from lm_eval_enterprise.scoring import hooks as H
from lm_eval_enterprise.scoring import metrics as M
from lm_eval_enterprise.scoring.metrics import INVALID, MetricInputError

FAMILY_METRICS = {name: dict(f.metrics) for name, f in families.FAMILIES.items()}

approx = pytest.approx


# =============================================================================================================
# [WF1] weighted F1 / [MF1] macro F1 — indicator rows over the label list, unmatched completion = all-zero row

SENT = ["positive", "neutral", "negative"]
# item:     1            2           3                   4          5           6
WF1_GOLD = ["positive", "positive", "positive", "neutral", "negative", "negative"]
WF1_PRED = ["Positive.", "neutral", "I think positive", " NEUTRAL ", "negative", "positive"]
# norm(pred): "positive" (hit), "neutral", "i think positive" (no label → all-zero row), "neutral", "negative",
# "positive".
# positive: TP = {1} = 1; FP = {6} = 1; FN = {2 (said neutral), 3 (all-zero row)} = 2 → F1 = 2/(2+1+2) = 0.4; n = 3
# neutral : TP = {4} = 1; FP = {2} = 1; FN = 0                                     → F1 = 2/(2+1)   = 2/3; n = 1
# negative: TP = {5} = 1; FP = 0;       FN = {6} = 1                               → F1 = 2/(2+1)   = 2/3; n = 2
# weighted = (3·0.4 + 1·2/3 + 2·2/3) / 6 = (1.2 + 2) / 6 = 3.2/6 = 0.5333…
# macro    = (0.4 + 2/3 + 2/3) / 3 = 1.7333…/3 = 0.5777…
WF1_EXPECTED = 3.2 / 6
MF1_EXPECTED = (0.4 + 4 / 3) / 3


def test_weighted_f1_hand_worked():
    assert M.weighted_f1(WF1_GOLD, WF1_PRED, SENT) == approx(WF1_EXPECTED)
    assert M.classification_f1(WF1_GOLD, WF1_PRED, SENT, "weighted") == approx(WF1_EXPECTED)


def test_macro_f1_hand_worked():
    assert M.macro_f1(WF1_GOLD, WF1_PRED, SENT) == approx(MF1_EXPECTED)


def test_unmatched_completion_is_an_all_zero_row_not_a_false_positive():
    # golds [yes, no], preds [yes, "maybe"]. "maybe" matches no label → all-zero row:
    # yes: TP 1, FP 0, FN 0 → F1 1;  no: TP 0, FP 0, FN 1 → F1 0;  weighted = (1·1 + 1·0)/2 = 0.5.
    # (Had "maybe" been counted as predicting "yes": yes F1 = 2/(2+1) = 2/3, weighted = 1/3 — the wrong rule.)
    assert M.weighted_f1(["Yes", "No"], ["yes", "maybe"], ["Yes", "No"]) == approx(0.5)
    # the format-failure marker is an unmatched completion too
    assert M.weighted_f1(["Yes", "No"], ["yes", INVALID], ["Yes", "No"]) == approx(0.5)
    y_true, y_pred = M.label_indicators(["Yes", "No"], ["yes", "maybe"], ["Yes", "No"])
    assert y_true.tolist() == [[1, 0], [0, 1]]
    assert y_pred.tolist() == [[1, 0], [0, 0]]  # row 2: all zeros, no extra class column


def test_all_unmatched_scores_zero():
    # every row all-zero → every TP = 0 → every F1 = 0 → weighted 0 and macro 0
    assert M.weighted_f1(["Yes", "No", "No"], ["x", "y", "z"], ["Yes", "No"]) == 0.0
    assert M.macro_f1(["Yes", "No", "No"], ["x", "y", "z"], ["Yes", "No"]) == 0.0


def test_labels_without_support():
    labels = ["a", "b", "c"]
    golds, preds = ["a", "a", "b"], ["a", "c", "b"]
    # a: TP 1, FP 0, FN 1 → 2/3, n 2;  b: TP 1 → 1, n 1;  c (no gold support): TP 0, FP 1 → 0, n 0
    # weighted = (2·2/3 + 1·1 + 0·0)/3 = (4/3 + 1)/3 = 7/9
    # macro over the gold classes G = {a, b} ([MF1]): c is predicted but absent from gold, so it is not averaged;
    # its false positive is item 2's false negative for a: (2/3 + 1)/2 = 5/6
    assert M.weighted_f1(golds, preds, labels) == approx(7 / 9)
    assert M.macro_f1(golds, preds, labels) == approx(5 / 6)
    # a fourth label never gold and never predicted changes neither: macro still (2/3 + 1)/2, weighted 7/9
    assert M.macro_f1(golds, preds, labels + ["d"]) == approx(5 / 6)
    assert M.weighted_f1(golds, preds, labels + ["d"]) == approx(7 / 9)


def test_macro_f1_averages_over_gold_classes_only():
    labels = ["a", "b", "c", "d"]
    # a perfect model on a subset lacking c and d: every gold class has F1 1 → 1.0 (over L it would be 2/4)
    assert M.macro_f1(["a", "b", "a"], ["a", "b", "a"], labels) == approx(1.0)
    # a gold class never predicted counts 0: golds [a, a, b, c], preds [a, a, b, a]
    # a: TP 2, FP 1 (item 4), FN 0 → 4/5;  b: TP 1 → 1;  c: TP 0, FN 1 → 0;  d: absent from gold, not averaged
    # macro = (4/5 + 1 + 0)/3 = 0.6;  weighted = (2·4/5 + 1·1 + 1·0)/4 = 2.6/4 = 0.65
    golds, preds = ["a", "a", "b", "c"], ["a", "a", "b", "a"]
    assert M.macro_f1(golds, preds, labels) == approx(0.6)
    assert M.weighted_f1(golds, preds, labels) == approx(0.65)
    # a predicted class absent from gold (d): golds [a, b], preds [d, b] → a: FN 1 → 0; b: 1 → macro 1/2
    assert M.macro_f1(["a", "b"], ["d", "b"], labels) == approx(0.5)
    # every class of L present: the mean over L, as before (the hand-worked WF1 example above)
    assert M.macro_f1(WF1_GOLD, WF1_PRED, SENT) == approx((0.4 + 2 / 3 + 2 / 3) / 3)


def test_classification_f1_normalises_labels_and_golds():
    # [NORM] on both sides: "Yes." / " yes " / "YES" are all the label "Yes"; perfect → 1
    assert M.weighted_f1(["Yes.", "no"], [" yes ", "NO!"], ["Yes", "No"]) == approx(1.0)


def test_classification_f1_bad_input_raises():
    with pytest.raises(MetricInputError, match="not in the label set"):
        M.weighted_f1(["maybe"], ["yes"], ["yes", "no"])
    with pytest.raises(MetricInputError, match="2 golds but 1 predictions"):
        M.weighted_f1(["yes", "no"], ["yes"], ["yes", "no"])
    with pytest.raises(ValueError):
        M.classification_f1(["yes"], ["yes"], ["yes", "no"], average="micro")


def test_exact_match_accuracy():
    assert M.exact_match("Yes", " yes.") == 1.0  # norm("Yes") == norm(" yes.") == "yes"
    assert M.exact_match("Yes", "yes sir") == 0.0  # full completion, not a substring
    assert M.exact_match("invalid", INVALID) == 0.0  # the failure marker is never correct


# =============================================================================================================
# [BF1] binary F1 of a positive class (cyber tasks: "relevant" vs "irrelevant")


def test_binary_f1_hand_worked():
    golds = ["relevant", "relevant", "relevant", "irrelevant", "irrelevant"]
    preds = ["Relevant", "irrelevant", INVALID, "relevant", "irrelevant"]
    # TP = item 1 = 1; FN = item 2 ("irrelevant" is not "relevant": no substring matching) + item 3 (unmatched
    # completion on a positive item is a FN) = 2; FP = item 4 = 1; item 5 is a TN.
    # F1 = 2·1 / (2·1 + 1 + 2) = 2/5 = 0.4
    assert M.binary_f1(golds, preds, "relevant") == approx(0.4)


def test_binary_f1_zero_denominator_is_zero():
    # no positive gold and no positive prediction: 2TP + FP + FN = 0 → 0 (defined, not an error)
    assert M.binary_f1(["no", "no"], ["no", "junk"], "yes") == 0.0


def test_binary_f1_length_mismatch_raises():
    with pytest.raises(MetricInputError):
        M.binary_f1(["yes", "no"], ["yes"], "yes")


# [EF1] entity F1 and [KPIF1] KPI-Edgar F1: tests/scoring/test_list_metrics.py


# =============================================================================================================
# [RR] reciprocal rank at k, NDCG@k, HELM's binary ranking key


def test_helm_ranking_key_quirks():
    # b = Yes iff ℓY ≥ ℓN; key (1, ℓY) for Yes, (0, −ℓN) for No
    assert M.helm_ranking_key(-0.5, -1.0) == (1, -0.5)
    assert M.helm_ranking_key(-2.0, -1.0) == (0, 1.0)
    assert M.helm_ranking_key(-1.0, -1.0) == (1, -1.0)  # tie → Yes
    # HELM quirk 1: every Yes outranks every No, however likely the No-candidate's Yes was
    assert M.helm_ranking_key(-9.0, -9.5) > M.helm_ranking_key(-0.70, -0.69)
    # HELM quirk 2: among No answers, the LESS confident No (ℓN lower) ranks higher: −ℓN larger
    assert M.helm_ranking_key(-3.0, -0.7) > M.helm_ranking_key(-3.0, -0.01)


# five queries; items (qid, cand_index, key, relevant), deliberately not in candidate order
RANK_ITEMS = [
    # q1: keys → order c2 (1,−0.1), c1 (1,−0.3), then c3/c4 tie at (0,0.5) broken by cand_index (c3 first),
    #     then c0 (0,0.2). Relevance in rank order [0, 0, 1, 0, 0] → rank₁ = 3 → RR@10 = RR@5 = 1/3.
    #     (with the tie broken the other way rank₁ would be 4)
    ("q1", 4, (0, 0.5), 0),
    ("q1", 3, (0, 0.5), 1),
    ("q1", 0, (0, 0.2), 0),
    ("q1", 2, (1, -0.1), 0),
    ("q1", 1, (1, -0.3), 0),
    # q2: 8 candidates, key = −cand, relevant c6 → rank 7 → RR@10 = 1/7, RR@5 = 0
    *[("q2", c, (-c,), int(c == 6)) for c in range(8)],
    # q3: no relevant candidate → 0
    *[("q3", c, (-c,), 0) for c in range(3)],
    # q4: relevant ranked first → 1
    ("q4", 0, [1, -0.2], 1),
    ("q4", 1, [0, 0.3], 0),  # keys as lists (as read back from samples JSON)
    # q5: 12 candidates, relevant at rank 11 → RR@10 = RR@5 = 0
    *[("q5", c, (-c,), int(c == 10)) for c in range(12)],
]


def test_rank_queries_stable_ties_and_order():
    ranked = M.rank_queries(RANK_ITEMS)
    assert ranked["q1"] == [0, 0, 1, 0, 0]
    assert ranked["q4"] == [1, 0]
    assert ranked["q2"].index(1) == 6


def test_reciprocal_rank():
    assert M.reciprocal_rank([0, 0, 1, 1], 10) == approx(1 / 3)
    assert M.reciprocal_rank([0, 0, 1], 2) == 0.0  # first relevant at 3 > k
    assert M.reciprocal_rank([0, 0, 0], 10) == 0.0  # none relevant
    assert M.reciprocal_rank([1], 1) == 1.0


def test_mean_rr_at_k_hand_worked():
    # RR@10: (1/3 + 1/7 + 0 + 1 + 0)/5 = (7/21 + 3/21 + 21/21)/5 = (31/21)/5 = 31/105
    # RR@5:  (1/3 + 0 + 0 + 1 + 0)/5 = (4/3)/5 = 4/15
    assert M.mean_rr_at_k(RANK_ITEMS, 10) == approx(31 / 105)
    assert M.mean_rr_at_k(RANK_ITEMS, 5) == approx(4 / 15)
    assert H.agg_rr_at_10(RANK_ITEMS) == approx(31 / 105)
    assert H.agg_rr_at_5(RANK_ITEMS) == approx(4 / 15)


def test_ndcg_hand_worked():
    # relevance [0, 1, 0, 1], k 10: DCG = 1/log2(3) + 1/log2(5) = 0.630930 + 0.430677 = 1.061606
    # ideal (2 relevant) = 1/log2(2) + 1/log2(3) = 1 + 0.630930 = 1.630930 → NDCG = 0.650921
    assert M.ndcg([0, 1, 0, 1], 10) == approx(0.650921, abs=1e-6)
    # cut-off: relevant only at 3 with k 2 → DCG 0; ideal = 1 → 0
    assert M.ndcg([0, 0, 1], 2) == 0.0
    # relevant items beyond k still count in the ideal (min(n_rel, k) = 1): [1, 0, 1] k 1 → 1/1
    assert M.ndcg([1, 0, 1], 1) == 1.0
    assert M.ndcg([0, 0], 10) == 0.0  # no relevant → 0
    # mean over the five queries of RANK_ITEMS, NDCG@10 (binary gains, one relevant each where present):
    # q1 rank 3 → 1/log2(4) = 0.5; q2 rank 7 → 1/log2(8) = 1/3; q3 → 0; q4 rank 1 → 1; q5 rank 11 > 10 → 0
    # mean = (0.5 + 1/3 + 0 + 1 + 0)/5 = (11/6)/5 = 11/30
    assert M.mean_ndcg_at_k(RANK_ITEMS, 10) == approx(11 / 30)
    assert H.agg_ndcg_at_10(RANK_ITEMS) == approx(11 / 30)


def test_ranking_hooks():
    doc = {"qid": "q9", "cand_index": 3, "label": "Yes"}
    # results = [(ℓN, greedy), (ℓY, greedy)] (doc_to_choice = [No, Yes])
    res = H.ranking(doc, [(-1.0, False), (-0.5, True)])
    assert set(res) == set(FAMILY_METRICS["ranking"])
    assert res["rr_at_10"] == ["q9", 3, [1, -0.5], 1]
    assert res["yes_accuracy"] == 1.0  # said Yes (ℓY ≥ ℓN) on a relevant pair
    res = H.ranking({**doc, "label": "No"}, [(-0.1, True), (-2.0, False)])
    assert res["rr_at_10"] == ["q9", 3, [0, 0.1], 0]
    assert res["yes_accuracy"] == 1.0  # said No on an irrelevant pair
    gen = H.ranking_generate(doc, ["Yes"])
    assert set(gen) == set(FAMILY_METRICS["ranking_generate"])
    assert gen["rr_at_10"] == ["q9", 3, [1], 1] and gen["format_failure"] == 0.0
    gen = H.ranking_generate({**doc, "label": "No"}, ["No"])
    assert gen["rr_at_10"] == ["q9", 3, [0], 0] and gen["yes_accuracy"] == 1.0
    # a format failure is not retrieved (key None) and counts as a wrong yes/no answer
    gen = H.ranking_generate(doc, [INVALID])
    assert gen["rr_at_10"] == ["q9", 3, None, 1] and gen["format_failure"] == 1.0 and gen["yes_accuracy"] == 0.0


def test_unretrieved_candidates_key_none():
    # generation-based ranking: a format failure has key None → no rank, never a hit
    # qa: c0 None (relevant), c1 [0], c2 [1] → ranked c2, c1 → relevance [0, 0] → RR 0, NDCG 0
    # qb: c0 None (relevant), c1 [1] (relevant), c2 [0] → ranked c1, c2 → [1, 0] → RR 1;
    #     NDCG: DCG = 1/log2(2) = 1; ideal counts BOTH relevant candidates (retrieved or not):
    #     1 + 1/log2(3) = 1.630930 → 1/1.630930 = 0.613147
    # qc: every candidate None → empty ranking → RR 0, NDCG 0 (still one of the queries in the mean)
    items = [
        ("qa", 0, None, 1),
        ("qa", 1, [0], 0),
        ("qa", 2, [1], 0),
        ("qb", 0, None, 1),
        ("qb", 1, [1], 1),
        ("qb", 2, [0], 0),
        ("qc", 0, None, 1),
        ("qc", 1, None, 0),
    ]
    ranked = M.rank_queries(items)
    assert ranked == {"qa": [0, 0], "qb": [1, 0], "qc": []}
    assert M.relevant_counts(items) == {"qa": 1, "qb": 2, "qc": 1}
    # RR@10 mean = (0 + 1 + 0)/3 = 1/3;  NDCG@10 mean = (0 + 0.613147 + 0)/3 = 0.204382
    assert M.mean_rr_at_k(items, 10) == approx(1 / 3)
    assert M.mean_ndcg_at_k(items, 10) == approx(0.613147 / 3, abs=1e-6)


# =============================================================================================================
# [FEQ] ConvFinQA float equivalence


@pytest.mark.parametrize(
    "gold, pred, expected",
    [
        ("0.14136", " 0.14136", 1.0),
        ("1", "1.0000001", 1.0),  # |diff| = 1e-7 < 1e-6
        ("1", "1.000002", 0.0),  # |diff| = 2e-6 ≥ 1e-6
        ("1234", "1,234", 0.0),  # "1,234" parses as 1 (no thousands handling)
        ("1", "1,234", 1.0),
        ("0.14136", "14.1%", 0.0),  # no percent handling (HELM parity)
        ("5.5", "The answer is 5.5, or maybe 6", 1.0),  # first number only
        ("6", "The answer is 5.5, or maybe 6", 0.0),
        ("-3.5", "-3.5", 1.0),
        ("2", "+2", 1.0),
        ("1000", "1e3", 1.0),
        ("0.5", ".5", 1.0),
        ("5", "5.", 1.0),
        ("3", "no idea", 0.0),  # no number in the completion → 0
        ("yes", "yes", 0.0),  # no number in the gold → 0, even for an identical string
    ],
)
def test_float_equivalence(gold, pred, expected):
    assert M.float_equivalence(gold, pred) == expected


# The tolerance is ABSOLUTE and strict: |a − b| < 1e-6 whatever the magnitude or sign, with no base number.
# Each row sits just inside / just outside 1e-6 or where a relative tolerance (1e-6 · |gold|, · |pred|, or
# math.isclose's max of both) decides differently; the differences are the float differences of the literals.
@pytest.mark.parametrize(
    "gold, pred, expected",
    [
        # zero gold: a relative tolerance 1e-6 · 0 = 0 accepts nothing but identity
        ("0", "0.0000009", 1.0),  # |d| = 9e-7 < 1e-6
        ("0", "-0.0000009", 1.0),  # the same below zero
        ("0", "0.000001", 0.0),  # |d| = 1e-6 exactly (the same double): not < 1e-6 (strict)
        ("0.000001", "0", 0.0),  # symmetric
        # large magnitude: relative 1e-6 · 10^6 = 1 would accept a difference of 0.5
        ("1000000", "1000000.0000009", 1.0),  # |d| = 9.00007e-7
        ("1000000", "1000000.0000011", 0.0),  # |d| = 1.10001e-6
        ("1000000", "1000000.5", 0.0),  # |d| = 0.5 (relative 5e-7 < 1e-6 would call it equal)
        ("1000000.5", "1000000", 0.0),  # the same with the roles swapped (base = pred or gold)
        ("-1000000", "-1000000.5", 0.0),  # negative: |d| = 0.5
        # negative numbers: a tolerance scaled by the signed gold (1e-6 · −2.5 < 0) would accept nothing
        ("-2.5", "-2.5000009", 1.0),  # |d| = 9e-7
        ("-2.5", "-2.5000011", 0.0),  # |d| = 1.1e-6 (relative to 2.5: 2.5e-6 would accept it)
        ("-0.0000004", "0.0000005", 1.0),  # opposite signs, |d| = 9e-7 (relative: |d| ≫ 1e-6 · 5e-7)
        # small magnitudes: relative 1e-6 · 1e-7 = 1e-13 would reject these
        ("0.0000001", "0.0000009", 1.0),  # |d| = 8e-7
        ("0.0000009", "0.0000001", 1.0),  # the same with the roles swapped
        ("0.0000001", "0.0000012", 0.0),  # |d| = 1.1e-6
        ("1e-7", "1e-9", 1.0),  # e-notation: |d| = 9.9e-8
    ],
)
def test_float_equivalence_absolute_tolerance_boundary(gold, pred, expected):
    assert M.float_equivalence(gold, pred) == expected


def test_first_number():
    assert M.first_number("  -12.5e-3 apples ") == "-12.5e-3"
    assert M.first_number("abc") is None
    assert M.first_number("1,234") == "1"


def test_numeric_hook():
    # plain strings stand for clean completions (format_adherence = readable); the filter's ParsedAnswer carries
    # the real adherence (tests/scoring/test_filters.py)
    assert H.numeric({"answer": "2.5"}, ["2.50 million"]) == {
        "accuracy": 1.0,
        "format_failure": 0.0,
        "format_adherence": 1.0,
    }
    assert H.numeric({"answer": "2.5"}, [INVALID]) == {"accuracy": 0.0, "format_failure": 1.0, "format_adherence": 0.0}


# =============================================================================================================
# [ACC] multiple choice (the letter is read by [PARSE]: tests/scoring/test_filters.py, tests/scoring/test_parse_table.py)


def test_multiple_choice_hook():
    ok = {"format_failure": 0.0, "format_adherence": 1.0}
    assert H.multiple_choice({"answer_letter": "B"}, ["B"]) == {"accuracy": 1.0, **ok}
    assert H.multiple_choice({"answer_letter": "B"}, ["C"]) == {"accuracy": 0.0, **ok}
    assert H.multiple_choice({"answer_letter": "B"}, [INVALID]) == {
        "accuracy": 0.0,
        "format_failure": 1.0,
        "format_adherence": 0.0,
    }


# =============================================================================================================
# [RL] ROUGE-L (rouge-score, Porter stemmer, sentence-level LCS — not rougeLsum)


def test_rouge_hand_worked():
    # ref   the cat sat on the mat (6 tokens); pred the cat lay on the mat (6)
    # LCS = the cat on the mat = 5 → P = R = 5/6 → F = 5/6
    # unigram overlap: the×2, cat, on, mat = 5 → 5/6;  bigrams: {the cat, on the, the mat} of 5 each → 3/5
    out = M.rouge("the cat sat on the mat", "the cat lay on the mat")
    assert out["rouge_l"] == approx(5 / 6)
    assert out["rouge_1"] == approx(5 / 6)
    assert out["rouge_2"] == approx(3 / 5)


def test_rouge_stemming_case_punctuation():
    # Porter stems: running → run, dogs → dog; tokenizer lower-cases and drops punctuation
    assert M.rouge("running dogs", "run dog")["rouge_l"] == approx(1.0)
    assert M.rouge("The Cat!", "the cat")["rouge_l"] == approx(1.0)


def test_rouge_l_is_order_sensitive_and_not_rougelsum():
    # reversed order: LCS = 1 of 4 → 0.25, while every unigram matches (rouge1 = 1) and no bigram does
    out = M.rouge("alpha beta gamma delta", "delta gamma beta alpha")
    assert out["rouge_l"] == approx(0.25)
    assert out["rouge_1"] == approx(1.0)
    assert out["rouge_2"] == 0.0
    # a newline in the reference is whitespace for rougeL: LCS of [alpha beta gamma delta] and
    # [gamma delta alpha beta] is 2 → 2/4 = 0.5 (rougeLsum would split sentences and give 1.0)
    assert M.rouge("alpha beta\ngamma delta", "gamma delta alpha beta")["rouge_l"] == approx(0.5)


def test_summarization_hook():
    res = H.summarization({"summary": "the cat sat on the mat"}, ["the cat lay on the mat"])
    assert set(res) == set(FAMILY_METRICS["summarization"])
    assert res["rouge_l"] == approx(5 / 6) and res["format_failure"] == 0.0
    res = H.summarization({"summary": "the cat sat on the mat"}, [INVALID])
    assert res == {"rouge_l": 0.0, "rouge_1": 0.0, "rouge_2": 0.0, "format_failure": 1.0, "format_adherence": 0.0}


# =============================================================================================================
# hooks: classification adapters + the aggregations wrap the metrics


def test_classification_hooks_hand_worked():
    labels = ["positive", "neutral", "negative"]
    items_w, items_m, acc = [], [], []
    for g, p in zip(WF1_GOLD, WF1_PRED):
        doc = {"label": g, "label_names": labels}
        rw = H.classification_weighted(doc, [p])
        rm = H.classification_macro(doc, [p])
        assert set(rw) == set(FAMILY_METRICS["classification_weighted"])
        assert set(rm) == set(FAMILY_METRICS["classification_macro"])
        items_w.append(rw["weighted_f1"])
        items_m.append(rm["macro_f1"])
        acc.append(rw["accuracy"])
    assert H.agg_weighted_f1(items_w) == approx(WF1_EXPECTED)
    assert H.agg_macro_f1(items_m) == approx(MF1_EXPECTED)
    # accuracy per doc (exact match after norm): 1 "positive" = gold ✓; 2 "neutral" ≠ "positive"; 3 unmatched;
    # 4 "neutral" ✓; 5 "negative" ✓; 6 "positive" ≠ "negative"
    assert acc == [1.0, 0.0, 0.0, 1.0, 1.0, 0.0]


def test_binary_hooks():
    golds = ["relevant", "relevant", "relevant", "irrelevant", "irrelevant"]
    preds = ["Relevant", "irrelevant", INVALID, "relevant", "irrelevant"]
    items = []
    for g, p in zip(golds, preds):
        res = H.classification_binary(
            {"label": g, "label_names": ["relevant", "irrelevant"], "positive_label": "relevant"}, [p]
        )
        assert set(res) == set(FAMILY_METRICS["classification_binary"])
        items.append(res["binary_f1"])
    assert H.agg_binary_f1(items) == approx(0.4)  # as test_binary_f1_hand_worked


def test_answer_unwrapping_and_format_failure():
    doc = {"label": "Yes", "label_names": ["Yes", "No"]}
    # results may be [str] (after take_first) or [[str, ...]] (no take_first); anything else is a failure
    assert H.classification_weighted(doc, ["Yes"])["accuracy"] == 1.0
    assert H.classification_weighted(doc, [["Yes", "No"]])["accuracy"] == 1.0
    res = H.classification_weighted(doc, [None])
    assert res["weighted_f1"]["pred"] == INVALID and res["format_failure"] == 1.0 and res["accuracy"] == 0.0


AGGREGATIONS = sorted({agg for fam in FAMILY_METRICS.values() for agg, _ in fam.values() if agg != "mean"})


@pytest.mark.parametrize("agg", AGGREGATIONS)
def test_every_aggregation_exists_and_refuses_no_items(agg):
    fn = getattr(H, agg)
    with pytest.raises(MetricInputError):
        fn([])


@pytest.mark.parametrize(
    "fn, args",
    [
        (M.weighted_f1, ([], [], ["a"])),
        (M.macro_f1, ([], [], ["a"])),
        (M.binary_f1, ([], [], "a")),
        (M.entity_prf, ([], [])),
        (M.kpi_adjusted_f1, ([], [])),
        (M.mean_rr_at_k, ([], 10)),
        (M.mean_ndcg_at_k, ([], 10)),
    ],
)
def test_corpus_metrics_refuse_no_items(fn, args):
    # never silently 0
    with pytest.raises(MetricInputError, match="no items"):
        fn(*args)


def test_every_family_has_a_process_results_function():
    for family in FAMILY_METRICS:
        assert callable(getattr(H, family)), family
        for metric, (agg, hib) in FAMILY_METRICS[family].items():
            assert agg == "mean" or callable(getattr(H, agg)), (family, metric)
            assert isinstance(hib, bool)
    # direction flags: failures are lower-is-better, every score is higher-is-better
    for fam in FAMILY_METRICS.values():
        for m, (_, hib) in fam.items():
            if m == "format_failure":
                assert hib is False
            elif any(x in m for x in ("f1", "accuracy", "rr_at", "ndcg", "rouge")):
                assert hib is True, m


def test_norm_used_by_metrics_keeps_articles():
    # [NORM] = HELM normalize_text WITHOUT article removal: "the yes" is not "yes"
    assert M.exact_match("Yes", "the yes") == 0.0
    assert math.isclose(M.weighted_f1(["Yes"], ["The Yes"], ["Yes", "No"]), 0.0)


def test_weighted_precision_recall_hand_worked():
    from lm_eval_enterprise.scoring.metrics import weighted_precision_recall

    # golds [pos, pos, neg, neg], preds [pos, neg, neg, [invalid]] (all-zero row for the last):
    # pos: TP 1, FP 0, FN 1 → P 1,   R 1/2;  neg: TP 1, FP 1 (item 2), FN 1 (item 4) → P 1/2, R 1/2
    # supports 2 and 2 → weighted P = (2·1 + 2·0.5)/4 = 0.75; weighted R = (2·0.5 + 2·0.5)/4 = 0.5
    p, r = weighted_precision_recall(["pos", "pos", "neg", "neg"], ["pos", "neg", "neg", "[invalid]"], ["pos", "neg"])
    assert p == pytest.approx(0.75) and r == pytest.approx(0.5)
    from lm_eval_enterprise.scoring.metrics import MetricInputError

    with pytest.raises(MetricInputError):
        weighted_precision_recall([], [], ["pos"])


# ---------------------------------------------------------------------------------------------------- [QMEAN]
def _q(question, gold, pred):
    return {"gold": gold, "pred": pred, "labels": ["Yes", "No"], "question_id": question}


def test_mean_over_questions_of_weighted_f1_by_hand():
    """A gold_news task's weighted F1: [WF1] per question, then the unweighted mean over the questions.

    q1: gold Yes, No, No; pred Yes, Yes, No.  Yes: TP 1, FP 1, FN 0 → F1 2/3 (support 1); No: TP 1, FN 1, FP 0 →
        F1 2/3 (support 2); weighted = 2/3.
    q2 (a single class in the gold answers): gold Yes, Yes; pred Yes, [invalid]. Yes: TP 1, FN 1 → F1 2/3
        (support 2); No has no support (weight 0) → weighted = 2/3.
    q3 (single class too): gold No, No; pred No, No → No: F1 1 (support 2), Yes unsupported → 1.0.
    mean = (2/3 + 2/3 + 1) / 3 = 7/9. Pooled over all 7 documents (the wrong rule) it would differ:
    Yes: TP 2, FP 1, FN 1 → 2/3 (support 3); No: TP 3, FP 0, FN 1 → 6/7 (support 4) → (3·2/3 + 4·6/7)/7 = 38/49."""
    items = [
        _q("q1", "Yes", "Yes"),
        _q("q1", "No", "Yes"),
        _q("q1", "No", "No"),
        _q("q2", "Yes", "Yes"),
        _q("q2", "Yes", INVALID),
        _q("q3", "No", "No"),
        _q("q3", "No", "No"),
    ]
    assert H.agg_weighted_f1(items) == pytest.approx(7 / 9)
    assert H.agg_weighted_f1([i for i in items if i["question_id"] == "q2"]) == pytest.approx(2 / 3)
    pooled = [{k: v for k, v in i.items() if k != "question_id"} for i in items]
    assert H.agg_weighted_f1(pooled) == pytest.approx(38 / 49)  # without questions: one corpus, as before
    # precision / recall follow the same rule: q1 P = (1/2·1 + 1·2)/3 = 5/6, R = (1·1 + 1/2·2)/3 = 2/3;
    # q2 P = 1, R = 1/2; q3 P = R = 1 → P = (5/6 + 1 + 1)/3 = 17/18, R = (2/3 + 1/2 + 1)/3 = 13/18
    assert H.agg_weighted_precision(items) == pytest.approx(17 / 18)
    assert H.agg_weighted_recall(items) == pytest.approx(13 / 18)


def test_mean_over_questions_refuses_mixed_or_empty_items():
    with pytest.raises(MetricInputError, match="no items"):
        M.mean_over_questions([], H.agg_weighted_f1)
    with pytest.raises(MetricInputError, match="1 of 2 items lack 'question_id'"):
        M.mean_over_questions([_q("q1", "Yes", "Yes"), {"gold": "No", "pred": "No", "labels": ["Yes", "No"]}], len)


def test_gold_news_documents_report_their_question():
    doc = {"label": "Yes", "label_names": ["Yes", "No"], "question_id": "direction_up"}
    out = H.classification_weighted_helm(doc, [" Yes"])
    assert out["weighted_f1"]["question_id"] == "direction_up" == out["weighted_f1_helm"]["question_id"]
    assert (
        "question_id"
        not in H.classification_weighted({"label": "No", "label_names": ["Yes", "No"]}, ["No"])["weighted_f1"]
    )


# =============================================================================================================
# The NLU metrics: [MCC], [PEARSON], [SQUAD], [CHARF1] (worked by hand from each formula)


def test_mcc_counts_an_invalid_answer_as_its_own_predicted_class():
    # golds A A A U U U, predictions A A U U [invalid] A. Confusion (rows gold; columns A, U, invalid):
    #   gold A: 2 1 0 (t_A = 3);  gold U: 1 1 1 (t_U = 3);  column sums p = (3, 2, 1); correct c = 2 + 1 = 3; s = 6
    #   cov = c·s − Σ t·p = 18 − (3·3 + 3·2) = 3;  s² − Σp² = 36 − 14 = 22;  s² − Σt² = 36 − 18 = 18
    #   MCC = 3 / sqrt(22 · 18)
    golds = ["acceptable"] * 3 + ["unacceptable"] * 3
    preds = ["acceptable", "acceptable", "unacceptable", "unacceptable", INVALID, "acceptable"]
    labels = ["unacceptable", "acceptable"]
    assert M.matthews_corrcoef(golds, preds, labels) == approx(3 / math.sqrt(22 * 18), abs=1e-12)
    # had the invalid answer been read as "unacceptable": c = 4, p = (3, 3) → (24 − 18)/sqrt(18·18) = 1/3
    assert M.matthews_corrcoef(golds, preds[:4] + ["unacceptable", "acceptable"], labels) == approx(1 / 3)


def test_mcc_is_zero_for_a_constant_prediction_and_one_for_a_perfect_one():
    golds = ["acceptable", "unacceptable", "acceptable"]
    labels = ["unacceptable", "acceptable"]
    assert M.matthews_corrcoef(golds, ["acceptable"] * 3, labels) == 0.0  # s² − Σp² = 9 − 9 = 0 → 0
    assert M.matthews_corrcoef(golds, [INVALID] * 3, labels) == 0.0
    assert M.matthews_corrcoef(golds, golds, labels) == 1.0  # (3·3 − (2·2 + 1·1)) / (9 − 5) = 1


def test_similarity_prediction_clips_and_scores_unparsed_answers_as_the_midpoint():
    assert [M.similarity_prediction(x) for x in ("3.8", "6", "-1", INVALID)] == [3.8, 5.0, 0.0, 2.5]
    with pytest.raises(MetricInputError):
        M.similarity_prediction("about three")


def test_pearson_with_unparsed_answers_and_a_constant_prediction():
    # readings 4, [invalid], 1, 6 → x = 4, 2.5 (midpoint), 1, 5 (clipped); gold y = 4, 3, 1, 5; n = 4
    # Σx 12.5, Σy 13, Σx² 48.25, Σy² 51, Σxy 49.5
    # r = (4·49.5 − 12.5·13) / sqrt((4·48.25 − 12.5²)(4·51 − 13²)) = 35.5 / sqrt(36.75 · 35)
    x = [M.similarity_prediction(r) for r in ("4", INVALID, "1", "6")]
    assert M.pearson(x, [4.0, 3.0, 1.0, 5.0]) == approx(35.5 / math.sqrt(36.75 * 35), abs=1e-12)
    # a constant prediction (every answer 3.8, or every answer unreadable → 2.5) carries no information: r = 0
    assert M.pearson([3.8] * 4, [4.0, 3.0, 1.0, 5.0]) == 0.0
    assert M.pearson([2.5] * 4, [4.0, 3.0, 1.0, 5.0]) == 0.0
    assert M.spearman([3.8] * 4, [4.0, 3.0, 1.0, 5.0]) == 0.0
    assert M.pearson([1.0], [2.0]) == 0.0  # a single document: n < 2


def test_spearman_shares_tied_ranks():
    # x = 1, 1, 2, 3 → ranks 1.5, 1.5, 3, 4; y = 1, 2, 3, 4 → ranks 1..4 (both means 2.5)
    # deviations dx = −1, −1, 0.5, 1.5; dy = −1.5, −0.5, 0.5, 1.5: Σdxdy = 4.5, Σdx² = 4.5, Σdy² = 5
    # ρ = 4.5 / sqrt(4.5 · 5) = sqrt(0.9)
    assert M.spearman([1, 1, 2, 3], [1, 2, 3, 4]) == approx(math.sqrt(0.9), abs=1e-12)


def test_squad_normalisation_and_token_f1():
    # lower case, punctuation removed, articles a/an/the removed, whitespace collapsed (in that order)
    assert M.squad_normalize("The  Denver Broncos!") == "denver broncos"
    assert M.squad_normalize("An apple a day, theatre.") == "apple day theatre"  # "theatre" is no article
    assert M.squad_exact_match("The Denver Broncos.", ["Carolina Panthers", "Denver Broncos"]) == 1.0
    # "the Broncos of Denver" → [broncos, of, denver] vs [denver, broncos]: common 2, P = 2/3, R = 1
    # F1 = 2·(2/3)·1 / (2/3 + 1) = 0.8; the maximum over the references
    assert M.squad_f1("the Broncos of Denver", ["Denver Broncos", "Panthers"]) == approx(0.8, abs=1e-12)
    assert M.squad_f1("Panthers", ["Denver Broncos"]) == 0.0 and M.squad_f1(INVALID, ["x"]) == 0.0
    with pytest.raises(MetricInputError):
        M.squad_f1("x", [])


def test_japanese_character_f1_normalises_full_width_characters_and_whitespace():
    # NFKC: "ＡＢ" → "AB"; "AB梅雨" (4 characters) vs "AB梅雨前線" (6): common 4, P = 1, R = 4/6
    # F1 = 2·1·(2/3) / (1 + 2/3) = 0.8
    assert M.char_f1("ＡＢ梅雨", ["AB梅雨前線"]) == approx(0.8, abs=1e-12)
    assert M.char_f1("梅雨 前線", ["梅雨前線"]) == 1.0  # whitespace dropped
    assert M.char_exact_match("１９９５年", ["1995年"]) == 1.0  # full-width digits
    # the maximum over references that differ in extent
    assert M.char_exact_match("小笠原諸島", ["小笠原諸島を除く日本", "小笠原諸島"]) == 1.0
    # repeated characters count as a multiset: "ああい" vs "あい": common 2, P = 2/3, R = 1 → 0.8
    assert M.char_f1("ああい", ["あい"]) == approx(0.8, abs=1e-12)


def test_nlu_hooks_hand_worked():
    sts = [H.similarity({"score": g}, [r]) for g, r in zip([4.0, 3.0, 1.0, 5.0], ["4", INVALID, "1", "6"])]
    assert [s["format_failure"] for s in sts] == [0.0, 1.0, 0.0, 0.0]
    assert H.agg_pearson([s["pearson"] for s in sts]) == approx(35.5 / math.sqrt(36.75 * 35), abs=1e-12)
    labels = ["unacceptable", "acceptable"]
    rows = [
        H.classification_mcc({"label": g, "label_names": labels}, [p])
        for g, p in zip(
            ["acceptable"] * 3 + ["unacceptable"] * 3,
            ["acceptable", "acceptable", "unacceptable", "unacceptable", INVALID, "acceptable"],
        )
    ]
    assert H.agg_mcc([r["mcc"] for r in rows]) == approx(3 / math.sqrt(22 * 18), abs=1e-12)
    assert sum(r["accuracy"] for r in rows) == 3.0  # documents 1, 2 and 4
    qa = H.extractive_qa({"answers": ["Denver Broncos"]}, ["the Broncos of Denver"])
    assert (qa["squad_f1"], qa["squad_em"]) == (approx(0.8), 0.0)
    ja = H.extractive_qa_chars({"answers": ["梅雨前線"]}, ["梅雨 前線"])
    assert (ja["char_f1"], ja["char_em"]) == (1.0, 1.0)
    mc = H.choice_text({"answer_text": "bank"}, ["Bank"])
    assert mc["accuracy"] == 1.0 and H.choice_text({"answer_text": "bank"}, [INVALID])["format_failure"] == 1.0
