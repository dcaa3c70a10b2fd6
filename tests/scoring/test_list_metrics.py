"""List answers (NER and KPI): [PARSE] for lists, [NORM-E], [EF1] entity F1 and [KPIF1] KPI-Edgar F1.

Every expected value is worked out by hand; the working is in the comment next to each assertion. The KPI
primary metric reproduces the authors' own metric code (IBM's HELM fork, ``kpi_edgar_metrics.py``) including its
parser; the ``*_helm`` metrics reproduce HELM's strict regex parser and formulas.
"""

import pytest

from lm_eval_enterprise import families
from lm_eval_enterprise.scoring import hooks as H
from lm_eval_enterprise.scoring import metrics as M
from lm_eval_enterprise.scoring.metrics import INVALID, MetricInputError
from lm_eval_enterprise.text import norm_entity

approx = pytest.approx

# =============================================================================================================
# [NORM-E] entity-phrase keys


@pytest.mark.parametrize(
    "text, key",
    [
        ("$1.5", "1.5"),  # leading punctuation stripped
        ("1.5", "1.5"),
        ("15", "15"),  # 1.5 and 15 stay different values ([NORM] made both "15")
        ("Acme, Inc.", "acme, inc"),  # inner comma kept, trailing period stripped
        ("  $ (2,481) ", "2,481"),  # punctuation and spaces stripped repeatedly from both ends
        ("New\t\nYork", "new york"),  # whitespace collapsed, lower-cased
        ("U.S.", "u.s"),
        ("...", ""),
    ],
)
def test_norm_entity(text, key):
    assert norm_entity(text) == key


# =============================================================================================================
# [EF1] parse_entities(text, types) -> list | None

TYPES = ["person", "organization", "location", "miscellaneous"]
TABLE = M.entity_type_table(TYPES)


@pytest.mark.parametrize(
    "text",
    ["", "None", "none.", " NONE ", "no entities", "No entities.", "na", "N/A", "n/a.", "NA", "**None**", '"none"'],
)
def test_parse_entities_empty_answers(text):
    # norm(text) ∈ {"", "none", "no entities", "na"} → the empty list, in every template
    assert M.is_empty_list_answer(text)
    assert M.parse_entities(text, TYPES) == []


def test_parse_entities_not_empty_like():
    # "None found" is no empty-list answer and has no "(type)" item → nothing readable → None (format failure)
    assert not M.is_empty_list_answer("None found")
    assert M.parse_entities("None found", TYPES) is None


def test_parse_entities_splits_on_closing_paren_comma():
    text = "Acme Corp (organization), New York (location),Bob  (person)"
    # split on r"\)\s*," → ["Acme Corp (organization", " New York (location", "Bob  (person)"], ")" re-appended to
    # all but the last; phrases keyed by [NORM-E]
    assert M.parse_entities(text, TYPES) == [("acme corp", "organization"), ("new york", "location"), ("bob", "person")]


def test_parse_entities_comma_inside_phrase_is_kept():
    # only ")," separates items: "Smith, John (person)" is one item; [NORM-E] keeps the inner comma
    assert M.parse_entities("Smith, John (person)", TYPES) == [("smith, john", "person")]
    assert M.parse_entities("Acme, Inc. (organization)", TYPES) == [("acme, inc", "organization")]


def test_parse_entities_trailing_period_keeps_the_last_entity():
    # [PARSE]: one trailing period is removed before splitting; before, "Bob (person)." failed the item regex
    # and the last entity was dropped
    want = [("acme", "organization"), ("bob", "person")]
    assert M.parse_entities("Acme (organization), Bob (person).", TYPES) == want
    assert M.parse_entities("Acme (organization), Bob (person) . ", TYPES) == want
    assert M.parse_entities("Bob (person).", TYPES) == [("bob", "person")]


def test_parse_entities_drops_items_without_parentheses_and_unknown_types():
    # "Bob" has no "(type)" → dropped; "(company)" is no known type or alias → dropped
    assert M.parse_entities("Acme (organization), Bob", TYPES) == [("acme", "organization")]
    assert M.parse_entities("Acme (company), Bob (person)", TYPES) == [("bob", "person")]
    # something read but every type unknown → [] (a wrong answer, not a format failure)
    assert M.parse_entities("Acme (company)", TYPES) == []
    # nothing readable at all → None (format failure; scored as an empty prediction)
    assert M.parse_entities("there are some entities here", TYPES) is None


def test_parse_entities_type_aliases_after_norm():
    # type → norm → table: "ORG" → "org" → organization; "Organisation." → "organisation" → organization;
    # "misc" → miscellaneous; "PER" → person; "loc" → location
    text = "IBM (ORG), BHP (Organisation.), Euro (misc), Ann (PER), Paris (loc)"
    assert M.parse_entities(text, TYPES) == [
        ("ibm", "organization"),
        ("bhp", "organization"),
        ("euro", "miscellaneous"),
        ("ann", "person"),
        ("paris", "location"),
    ]


def test_parse_entities_types_as_list_or_table_and_alias_scope():
    text = "Ann (PER), 4.75 (debt instrument interest rate stated percentage)"
    assert M.parse_entities(text, TYPES) == M.parse_entities(text, TABLE) == [("ann", "person")]
    finer = ["debt instrument interest rate stated percentage"]
    # aliases only for the task's own types: "PER" is unknown to a finer139-like task
    assert M.parse_entities(text, finer) == [("4.75", "debt instrument interest rate stated percentage")]
    table = M.entity_type_table(["person", "debt instrument interest rate stated percentage"])
    assert table["per"] == "person" and "org" not in table


# =============================================================================================================
# [EF1] entity_prf: multisets, micro sums, per-type F1


def _ents(text, types=TYPES):
    return M.parse_entities(text, types)


def test_entity_prf_multiset_hand_worked():
    gold_texts = ["Lender (organization), Lender (organization), Bob (person)", "None", "Acme Corp (organization)"]
    pred_texts = ["Lender (organization), Bob (person), Bob (person), Acme (location)", "None", INVALID]
    golds = [_ents(t) for t in gold_texts]
    preds = [None if t == INVALID else _ents(t) for t in pred_texts]
    # item 1: G = {(lender, org)×2, (bob, person)×1}; P = {(lender, org)×1, (bob, person)×2, (acme, loc)×1}
    #         G ∩ P (multiset min) = {(lender, org)×1, (bob, person)×1} → TP 2, FP = 4 − 2 = 2, FN = 3 − 2 = 1
    # item 2: both empty → 0, 0, 0
    # item 3: prediction None (format failure) = empty multiset → TP 0, FP 0, FN 1
    # micro: TP 2, FP 2, FN 2 → P = 2/4 = 0.5, R = 2/4 = 0.5, F1 = 2·0.25/1 = 0.5
    # per type: organization TP 1, FP 0, FN 1 (2nd Lender) + 1 (Acme Corp) = 2 → P 1, R 1/3, F1 = (2/3)/(4/3) = 0.5
    #           person       TP 1, FP 1 (2nd Bob), FN 0 → P 1/2, R 1, F1 = 1/(3/2) = 2/3
    #           location     TP 0, FP 1 → F1 0
    out = M.entity_prf(golds, preds)
    assert out["precision"] == approx(0.5)
    assert out["recall"] == approx(0.5)
    assert out["f1"] == approx(0.5)
    assert out["f1_organization"] == approx(0.5)
    assert out["f1_person"] == approx(2 / 3)
    assert out["f1_location"] == 0.0


NUM_TYPES = ["rate", "amount", "date"]


def test_entity_f1_numeric_values_keyed_by_norm_e_precision_differs_from_recall():
    golds = ["1.5 (rate), 15 (rate), $ 300 (amount)", "2.0 (rate)"]
    preds = ["$1.5 (rate), 1.5 (rate), 300 (amount), 2029 (date)", "20 (rate)."]
    # [NORM-E] keys: "$1.5" → "1.5", "$ 300" → "300"; "15", "2.0", "20" stay as written
    # item 1: G = {(1.5, rate), (15, rate), (300, amount)}; P = {(1.5, rate)×2, (300, amount), (2029, date)}
    #         ∩ = {(1.5, rate), (300, amount)} → TP 2, FP 4 − 2 = 2, FN 3 − 2 = 1
    # item 2: trailing period removed; (20, rate) ≠ (2.0, rate) → TP 0, FP 1, FN 1
    # micro: TP 2, FP 3, FN 2 → P = 2/5 = 0.4, R = 2/4 = 0.5, F1 = 2·0.4·0.5/0.9 = 4/9
    # per type: rate TP 1, FP 2 (2nd 1.5, 20), FN 2 (15, 2.0) → 2/(2 + 2 + 2) = 1/3; amount 1; date 0
    # (under [NORM] 1.5 = 15 and 2.0 = 20: TP 4, FP 1, FN 0 → P 0.8, R 1.0 — the inflation [NORM-E] removes)
    out = M.entity_prf([_ents(g, NUM_TYPES) for g in golds], [_ents(p, NUM_TYPES) for p in preds])
    assert (out["precision"], out["recall"]) == (approx(0.4), approx(0.5))
    assert out["f1"] == approx(4 / 9)
    assert out["f1_rate"] == approx(1 / 3) and out["f1_amount"] == 1.0 and out["f1_date"] == 0.0
    # the same numbers through the lm-eval hooks (both sides parsed by the same code)
    items = [H.entity({"target": g, "entity_types": NUM_TYPES}, [p])["entity_f1"] for g, p in zip(golds, preds)]
    assert (H.agg_entity_precision(items), H.agg_entity_recall(items)) == (approx(0.4), approx(0.5))
    assert H.agg_entity_f1(items) == approx(4 / 9)


def test_entity_prf_undefined_ratios_are_zero():
    # all gold and predictions empty: TP = FP = FN = 0 → P, R, F1 all 0 (defined, not an error)
    assert M.entity_prf([[]], [[]]) == {"precision": 0.0, "recall": 0.0, "f1": 0.0}
    # predictions only: TP 0, FP 1, FN 0 → P 0, R 0 (undefined → 0), F1 0
    assert M.entity_prf([[]], [[("x", "person")]])["f1"] == 0.0


def test_entity_prf_length_mismatch_raises():
    with pytest.raises(MetricInputError):
        M.entity_prf([[("a", "person")], []], [[("a", "person")]])


def test_entity_hooks_aggregate_the_same_numbers():
    doc = {"entity_types": TYPES}
    gold_texts = ["Lender (organization), Lender (organization), Bob (person)", "None", "Acme Corp (organization)"]
    outputs = ["Lender (organization), Bob (person), Bob (person), Acme (location)", "None", 42]  # 42: not a str
    items = []
    for g, o in zip(gold_texts, outputs):
        res = H.entity({**doc, "target": g}, [o])
        assert set(res) == set(families.get("entity").metrics)
        items.append(res["entity_f1"])
    assert [i["pred"] for i in items][2] == INVALID  # non-str completion → the failure marker
    # same counts as test_entity_prf_multiset_hand_worked → 0.5 / 0.5 / 0.5
    assert H.agg_entity_f1(items) == approx(0.5)
    assert H.agg_entity_precision(items) == approx(0.5)
    assert H.agg_entity_recall(items) == approx(0.5)


def test_entity_hooks_unparsable_gold_raises():
    items = [{"gold": "garbage gold", "pred": "None", "types": TYPES}]
    with pytest.raises(MetricInputError, match="unparsable gold"):
        H.agg_entity_f1(items)


# =============================================================================================================
# [KPIF1] readers: parse_kpi (IBM, primary) and parse_kpi_helm (strict regex)

GOLD = "284 [cy], total unrecognized compensation cost [kpi]"


def test_parse_kpi_plain_answer_both_readers():
    want = [("284", "cy"), ("total unrecognized compensation cost", "kpi")]
    assert M.parse_kpi(GOLD) == want and M.parse_kpi_helm(GOLD) == want
    assert M.parse_kpi("  12 [py1]  ") == M.parse_kpi_helm("  12 [py1]  ") == [("12", "py1")]


def test_parse_kpi_trailing_period_and_explanation():
    # IBM reads each piece up to its last "]": text after it is ignored. HELM's item must end at "," or the end
    assert M.parse_kpi("284 [cy], total cost [kpi].") == [("284", "cy"), ("total cost", "kpi")]
    assert M.parse_kpi_helm("284 [cy], total cost [kpi].") == [("284", "cy")]
    assert M.parse_kpi("284 [cy] (from the table)") == [("284", "cy")]
    assert M.parse_kpi_helm("284 [cy] (from the table)") == []


def test_parse_kpi_leading_prose_stays_in_the_first_phrase():
    # a prefix match: "Answer:" becomes part of the first phrase (its words count as predicted words)
    assert M.parse_kpi("Answer: 284 [cy], total cost [kpi]") == [("Answer: 284", "cy"), ("total cost", "kpi")]


def test_parse_kpi_space_before_comma():
    # "] ," is no separator for IBM: one piece, read at its last "[...]": tag kpi, phrase = everything before
    assert M.parse_kpi("284 [cy] , total cost [kpi]") == [("284 [cy] , total cost", "kpi")]
    # HELM: "284 [cy]" is followed by " ," (not "," or the end) and "total cost" follows no "]," → nothing
    assert M.parse_kpi_helm("284 [cy] , total cost [kpi]") == []


def test_parse_kpi_unknown_and_upper_case_tags_are_dropped_not_failures():
    assert M.parse_kpi("5 [revenue], net sales [kpi], 3 [PY]") == [("net sales", "kpi")]
    assert M.parse_kpi_helm("5 [revenue], net sales [kpi], 3 [PY]") == [("net sales", "kpi")]
    assert M.parse_kpi("5 [revenue]") == []  # read, then dropped: a wrong answer
    assert M.parse_kpi("5 [ cy ]") == [("5", "cy")]  # IBM strips the tag; HELM's [0-9a-z]+ does not
    assert M.parse_kpi_helm("5 [ cy ]") == []


@pytest.mark.parametrize("text", ["", "None", "no entities.", "N/A", "n/a"])
def test_parse_kpi_empty_answers(text):
    assert M.parse_kpi(text) == []


@pytest.mark.parametrize("text", ["revenue (kpi), 5 (cy)", "There are no KPIs in this sentence", "[] x", "5 [cy"])
def test_parse_kpi_nothing_readable_is_none(text):
    # no piece with "[tag]" (non-empty tag) before a later "]": IBM reads no entity → format failure
    assert M.parse_kpi(text) is None


def test_parse_kpi_reads_the_first_line_of_a_piece():
    # IBM's match does not cross a line break: "b [cy]" on the second line of the same piece is not read
    assert M.parse_kpi("a [kpi]\nb [cy]") == [("a", "kpi")]


# =============================================================================================================
# [KPIF1] counts and scores


def test_kpi_ibm_unit_test_check_0_6875():
    # IBM's unit test (test_kem_compute_adjusted_f1): tags {pos: G=20, P=20, O=10; neg: G=80, P=80, O=70}
    # pos: tp = O/G = 0.5, fp = (P−O)/P = 0.5, fn = 0.5 → Pr = 0.5/1.0 = 0.5, R = 0.5/1.0 = 0.5 → F1 0.5
    # neg: tp = 0.875, fp = 0.125, fn = 0.125 → Pr = R = 0.875 → F1 0.875;  mean (0.5 + 0.875)/2 = 0.6875 exactly
    counts = {"pos": (10, 20, 20), "neg": (70, 80, 80)}  # (O, P, G)
    assert M.kpi_macro(counts, "adjusted_macro_f1", tags=("pos", "neg")) == 0.6875
    # IBM's rates test: G=20, P=40, O=10 → tp 0.5, fp 0.75, fn 0.5 → Pr = 0.5/1.25 = 0.4, R = 0.5
    # → F1 = 2·0.4·0.5/0.9 = 4/9 (= 2r/(1 + r + q) = 1/2.25)
    assert M.kpi_adjusted_tag_f1(10, 40, 20) == approx(4 / 9)
    # in the task the macro is always over the 4 tags: pos → kpi, neg → cy, py/py1 G = 0 → 0 → 1.375/4
    assert M.kpi_macro({"kpi": (10, 20, 20), "cy": (70, 80, 80)}, "adjusted_macro_f1") == 0.34375


def test_kpi_ibm_unit_test_counts_from_answer_strings():
    # the same counts produced from answers: word SETS per tag, summed over the item
    w = [f"w{i}" for i in range(200)]
    gold = f"{' '.join(w[0:20])} [kpi], {' '.join(w[100:180])} [cy]"
    pred = f"{' '.join(w[10:30])} [kpi], {' '.join(w[110:190])} [cy]"
    counts = M.kpi_word_counts(gold, pred)
    assert counts["kpi"] == (10, 20, 20) and counts["cy"] == (70, 80, 80)
    assert M.kpi_adjusted_f1([gold], [pred])["adjusted_macro_f1"] == 0.34375


def test_kpi_word_counts_single_space_split_and_duplicated_words():
    gold = "net sales [kpi], 100 [cy]"
    # duplicated "sales" counts once (sets); IBM splits on single spaces, so "net  sales" has the word ""
    pred = "net  sales sales [kpi], 100 [cy]"
    assert M.kpi_word_counts(gold, pred, "ibm") == {
        "kpi": (2, 3, 2),
        "cy": (1, 1, 1),
        "py": (0, 0, 0),
        "py1": (0, 0, 0),
    }
    assert M.kpi_word_counts(gold, pred, "helm")["kpi"] == (2, 2, 2)  # str.split(): {net, sales}
    # case-sensitive words; INVALID and unreadable completions predict nothing
    assert M.kpi_word_counts(gold, "Net sales [kpi]")["kpi"] == (1, 2, 2)
    assert M.kpi_word_counts(gold, INVALID)["kpi"] == (0, 0, 2)
    assert M.kpi_word_counts(gold, "no idea")["cy"] == (0, 0, 1)
    with pytest.raises(MetricInputError, match="unparsable gold KPI"):
        M.kpi_word_counts("no tags here", gold)


def test_kpi_stats_rows_are_the_word_counts_of_each_item_in_tag_order():
    # repeated items read from the readers' cache give the same counts; a cached unreadable gold still raises
    golds = ["net sales [kpi], 100 [cy]", "net sales [kpi], 100 [cy]", "5 [py1], 4 [py]"]
    preds = ["net [kpi], 100 [cy]", "net [kpi], 100 [cy]", INVALID]
    for reader in M.KPI_READERS:
        rows = M.kpi_stats(golds, preds, reader)
        expected = [[v for t in M.KPI_TAGS for v in M.kpi_word_counts(g, p, reader)[t]] for g, p in zip(golds, preds)]
        assert rows.tolist() == expected
    assert M.kpi_stats(golds, preds)[2].tolist() == [0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1]
    for _ in range(2):
        with pytest.raises(MetricInputError, match="unparsable gold KPI"):
            M.kpi_stats(["no tags here"], ["5 [cy]"])


def test_kpi_all_four_metrics_hand_worked_on_messy_completions():
    golds = ["net sales [kpi], 100 [cy], 90 [py]", "total revenue [kpi], 1,234 [cy]"]
    preds = [
        "Answer: net sales [kpi], 100 [cy], 80 [py], 5 [revenue].",  # leading prose, unknown tag, "."
        "total  revenue revenue [kpi] , 1,234 [cy].",
    ]  # double space, dup word, " ,", "."
    # IBM reader
    #  item 1 pieces "Answer: net sales [kpi]" | "100 [cy]" | "80 [py]" | "5 [revenue]." (dropped)
    #    kpi Wp {Answer:, net, sales} vs Wg {net, sales} → (O 2, P 3, G 2); cy (1, 1, 1); py {80} vs {90} (0, 1, 1)
    #  item 2: no "]," → one piece; last "[...]" is [cy]; phrase "total  revenue revenue [kpi] , 1,234"
    #    → split(" ") = {total, "", revenue, [kpi], ",", 1,234}: cy (O 1, P 6, G 1); kpi (0, 0, 2)
    #  sums: kpi (2, 3, 4), cy (2, 7, 2), py (0, 1, 1), py1 (0, 0, 0)
    #  adjusted: kpi r = 1/2, q = 1/3 → 2r/(1 + r + q) = 1/(11/6) = 6/11; cy r = 1, q = 5/7 → 2/(19/7) = 14/19;
    #            py r = 0 → 0; py1 0 → (6/11 + 14/19)/4 = (114 + 154)/209/4 = 67/209
    #  word:     kpi 2·2/(3 + 4) = 4/7; cy 4/9; py 0; py1 0 → (4/7 + 4/9)/4 = 64/252 = 16/63
    # HELM reader
    #  item 1: the same three items ("5 [revenue]." is followed by "." → not read, unknown anyway)
    #  item 2: "... [kpi]" is followed by " ," and "1,234 [cy]" follows no "]," → nothing read
    #  sums: kpi (2, 3, 4), cy (1, 1, 2), py (0, 1, 1), py1 (0, 0, 0)
    #  adjusted (completion as HELM's "gold"): tp = O/P, fn = 1 − O/P, fp = (G − O)/G, 2tp/(2tp + fp + fn)
    #     kpi tp 2/3, fn 1/3, fp 1/2 → (4/3)/(13/6) = 8/13; cy tp 1, fn 0, fp 1/2 → 2/2.5 = 4/5; py 0; py1 0
    #     → (8/13 + 4/5)/4 = 92/260 = 23/65
    #  word: kpi 4/(4 + 2 + 1) = 4/7; cy 2/(2 + 1 + 0) = 2/3; py 0; py1 0 → (4/7 + 2/3)/4 = 13/42
    assert [M.kpi_word_counts(g, p)["cy"] for g, p in zip(golds, preds)] == [(1, 1, 1), (1, 6, 1)]
    out = M.kpi_adjusted_f1(golds, preds)
    assert out == {
        "adjusted_macro_f1": approx(67 / 209),
        "word_macro_f1": approx(16 / 63),
        "adjusted_macro_f1_helm": approx(23 / 65),
        "word_macro_f1_helm": approx(13 / 42),
    }
    # neither completion is a format failure under IBM's reading
    assert all(M.parse_kpi(p) is not None for p in preds)


def test_kpi_gold_as_output_is_one_for_every_metric():
    gold = "net sales [kpi], 100 [cy], 90 [py], 80 [py1]"
    assert M.kpi_adjusted_f1([gold], [gold]) == {m: 1.0 for m in M.KPI_METRICS}


def test_kpi_zero_cases():
    # G = 0 (nothing to find) → adjusted 0 even with predictions; P = 0, G > 0 → r = 0 → 0
    assert M.kpi_adjusted_tag_f1(0, 5, 0) == 0.0 and M.kpi_adjusted_tag_f1(0, 0, 5) == 0.0
    assert M.kpi_adjusted_tag_f1_helm(0, 5, 0) == 0.0 and M.kpi_adjusted_tag_f1_helm(0, 0, 5) == 0.0
    assert M.kpi_adjusted_tag_f1(3, 3, 3) == 1.0 == M.kpi_adjusted_tag_f1_helm(3, 3, 3)
    # everything empty → all 0 (averaged over 4 tags, never raising)
    assert all(M.kpi_macro({}, m) == 0.0 for m in M.KPI_METRICS)


def test_kpi_ibm_vs_helm_orientation_on_counts():
    # kpi: O = 4, P = 5, G = 10 → recall R = 0.4, precision Pr = 0.8
    # IBM:  tp 0.4, fp 0.2, fn 0.6 → Pr' = 0.4/0.6 = 2/3, R' = 0.4 → F1 = 2·(2/3)·0.4/(2/3 + 0.4) = 0.5
    #       (= 2R/(R + 2 − Pr) = 0.8/1.6)
    # HELM: tp = O/P = 0.8, fn 0.2, fp = (G − O)/G = 0.6 → 1.6/(1.6 + 0.6 + 0.2) = 2/3 (= 2Pr/(Pr + 2 − R))
    # word: 2·4/(5 + 10) = 8/15 for both readers' formulas
    counts = {"kpi": (4, 5, 10)}
    assert M.kpi_macro(counts, "adjusted_macro_f1") == approx(0.5 / 4)
    assert M.kpi_macro(counts, "adjusted_macro_f1_helm") == approx((2 / 3) / 4)
    assert M.kpi_macro(counts, "word_macro_f1") == approx((8 / 15) / 4)
    assert M.kpi_macro(counts, "word_macro_f1_helm") == approx((8 / 15) / 4)


def test_kpi_counts_are_summed_over_items_before_the_ratio():
    # item 1: gold "a [kpi]", pred "a [kpi]" → kpi (1, 1, 1);  item 2: gold "b c d [kpi]", pred INVALID → (0, 0, 3)
    # sums O 1, P 1, G 4 → r = 1/4, q = 0 → 2r/(1 + r) = 0.5/1.25 = 0.4 → macro 0.4/4 = 0.1
    # (averaging per item instead would give (1 + 0)/2 = 0.5 for kpi → 0.125: a different number)
    out = M.kpi_adjusted_f1(["a [kpi]", "b c d [kpi]"], ["a [kpi]", INVALID])
    assert out["adjusted_macro_f1"] == approx(0.1)


def test_kpi_hooks_report_the_four_metrics():
    golds = ["net sales [kpi], 100 [cy], 90 [py]", "total revenue [kpi], 1,234 [cy]"]
    preds = ["Answer: net sales [kpi], 100 [cy], 80 [py], 5 [revenue].", "total  revenue revenue [kpi] , 1,234 [cy]."]
    res = [H.kpi({"target": g}, [p]) for g, p in zip(golds, preds)]
    assert (
        set(res[0]) == set(families.get("kpi").metrics) == set(M.KPI_METRICS) | {"format_failure", "format_adherence"}
    )
    assert [r["format_failure"] for r in res] == [0.0, 0.0]
    items = [r["adjusted_macro_f1"] for r in res]
    # same as test_kpi_all_four_metrics_hand_worked_on_messy_completions
    assert H.agg_adjusted_macro_f1(items) == approx(67 / 209)
    assert H.agg_word_macro_f1(items) == approx(16 / 63)
    assert H.agg_adjusted_macro_f1_helm(items) == approx(23 / 65)
    assert H.agg_word_macro_f1_helm(items) == approx(13 / 42)
    assert H.kpi({"target": golds[0]}, [None])["format_failure"] == 1.0


def test_kpi_length_mismatch_and_no_items_raise():
    with pytest.raises(MetricInputError):
        M.kpi_adjusted_f1(["a [kpi]", "b [kpi]"], ["a [kpi]"])
    with pytest.raises(MetricInputError, match="no items"):
        M.kpi_adjusted_f1([], [])
