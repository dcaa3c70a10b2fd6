"""AnswerFilter / extract_answer (lm_eval_enterprise/filters.py): stop cut, regex, verbaliser, [invalid]."""
import re

import pytest

from lm_eval_enterprise.filters import AnswerFilter, extract_answer
from lm_eval_enterprise.metrics import INVALID

WHOLE = re.compile(r"(?s)^(.*)$")                 # HELM t1: the full completion must be the label
FIRST_WORD = re.compile(r"(?i)^\W*(yes|no)\b")
YES_NO = ["Yes", "No"]


# ------------------------------------------------------------------------------------------- stop sequence
def test_stop_cut_before_regex():
    # " Yes\nNo" → strip → "Yes\nNo" → cut at "\n" → "Yes" → whole match "Yes" → label "Yes"
    assert extract_answer(" Yes\nNo", WHOLE, "\n", YES_NO) == "Yes"
    # without a stop the full text "Yes\nNo" is no label (norm "yes no") → format failure
    assert extract_answer(" Yes\nNo", WHOLE, None, YES_NO) == INVALID


def test_stop_cut_protects_anchored_regex_from_run_on_text():
    # API backends may ignore the stop sequence; the filter cuts it anyway
    assert extract_answer("No\nHeadline: gold rises\nAnswer: Yes", FIRST_WORD, "\n", YES_NO) == "No"


# ------------------------------------------------------------------------------------------- regex
def test_group_one_or_whole_match():
    assert extract_answer("abc 42 x", re.compile(r"\d+"), "\n") == "42"          # no group → whole match
    assert extract_answer("value: 42 x", re.compile(r"value: (\d+)"), "\n") == "42"  # group 1
    assert extract_answer("  free text answer  ", WHOLE, "\n") == "free text answer"  # no labels: stripped value


def test_no_match_is_invalid():
    assert extract_answer("maybe", FIRST_WORD, "\n", YES_NO) == INVALID
    assert extract_answer("yesterday", FIRST_WORD, "\n", YES_NO) == INVALID  # \b: "yes" must be a word


def test_empty_extraction_is_invalid():
    assert extract_answer("   ", WHOLE, "\n") == INVALID                  # empty completion
    assert extract_answer("\nYes", WHOLE, "\n") == "Yes"                   # stripped first, then cut
    assert extract_answer("no", re.compile(r"(yes)?no"), "\n") == INVALID  # group 1 did not participate


# ------------------------------------------------------------------------------------------- verbaliser
def test_verbaliser_maps_to_canonical_label():
    # compared after [NORM]; the canonical spelling of label_names is returned
    assert extract_answer(" yes.", WHOLE, "\n", YES_NO) == "Yes"
    assert extract_answer("NO", WHOLE, "\n", YES_NO) == "No"
    assert extract_answer("YES, definitely", FIRST_WORD, "\n", YES_NO) == "Yes"
    labels = ["positive", "neutral", "negative"]
    assert extract_answer(" Negative ", WHOLE, "\n", labels) == "negative"


def test_verbaliser_aliases():
    aliases = {"Y": "Yes", "nope.": "No", "Violation": "Yes"}
    # alias keys are normalised too: "y" → Yes, "Nope" → norm "nope" = norm("nope.") → No
    assert extract_answer("y", WHOLE, "\n", YES_NO, aliases) == "Yes"
    assert extract_answer(" Nope", WHOLE, "\n", YES_NO, aliases) == "No"
    assert extract_answer("violation", WHOLE, "\n", YES_NO, aliases) == "Yes"
    # a real label wins over aliases, and an unknown word is a failure
    assert extract_answer("No", WHOLE, "\n", YES_NO, {"no": "Yes"}) == "No"
    assert extract_answer("perhaps", WHOLE, "\n", YES_NO, aliases) == INVALID


def test_text_that_is_no_label_is_invalid():
    # HELM t1 semantics: the whole completion must be a label ("Yes it does" ≠ "Yes")
    assert extract_answer("Yes it does", WHOLE, "\n", YES_NO) == INVALID
    assert extract_answer("irrelevant", WHOLE, "\n", ["relevant", "irrelevant"]) == "irrelevant"


# ------------------------------------------------------------------------------------------- non-str input
@pytest.mark.parametrize("raw", [None, 5, 1.0, ["Yes"], {"text": "Yes"}, b"Yes"])
def test_non_str_input_is_invalid(raw):
    assert extract_answer(raw, WHOLE, "\n", YES_NO) == INVALID
    assert extract_answer(raw, WHOLE, "\n") == INVALID


# ------------------------------------------------------------------------------------------- lm-eval Filter
def test_answer_filter_apply_per_doc_and_repeat():
    f = AnswerFilter(regex_pattern=r"^\W*(\w+)", stop="\n", verbalise=True, aliases={"y": "Yes"})
    docs = [{"label_names": YES_NO}, {"label_names": ["relevant", "irrelevant"]}]
    resps = [[" yes\nmore", "y", "maybe"], [" no", "Irrelevant."]]
    # doc 1: "yes" → Yes; "y" → alias → Yes; "maybe" → no label → INVALID (one output per repeat, in order)
    # doc 2's labels are relevant/irrelevant: "no" is no label there → INVALID
    assert f.apply(resps, docs) == [["Yes", "Yes", INVALID], [INVALID, "irrelevant"]]
    # the alias is applied after the regex: with a yes|no regex "y" never reaches the verbaliser
    f2 = AnswerFilter(regex_pattern=r"(?i)^\W*(yes|no)\b", stop="\n", verbalise=True, aliases={"y": "Yes"})
    assert f2.apply([["y"]], [{"label_names": YES_NO}]) == [[INVALID]]


def test_answer_filter_without_verbaliser():
    f = AnswerFilter(regex_pattern=r"[-+]?\d+(?:\.\d+)?", stop="\n")
    assert f.apply([[" The answer is 4.5\n7"], [None], ["none"]], [{}, {}, {}]) == [["4.5"], [INVALID], [INVALID]]


def test_answer_filter_defaults():
    f = AnswerFilter()
    assert f.apply([["  some text \nmore"]], [{}]) == [["some text"]]


def test_answer_filter_verbalise_needs_label_names():
    f = AnswerFilter(verbalise=True)
    with pytest.raises(ValueError, match="label_names"):
        f.apply([["Yes"]], [{"label": "Yes"}])


def test_answer_filter_in_lm_eval_pipeline():
    # the generated YAMLs use `function: !function lm_eval_enterprise.filters.AnswerFilter` then take_first;
    # lm-eval builds the ensemble from (callable, kwargs) pairs
    from lm_eval.filters import build_filter_ensemble

    ensemble = build_filter_ensemble("answer", [[AnswerFilter, {"regex_pattern": r"(?s)^(.*)$", "stop": "\n",
                                                                "verbalise": True}],
                                                ["take_first", None]])

    class _Inst:
        def __init__(self, resps, doc):
            self.resps, self.doc, self.filtered_resps = resps, doc, {}

    insts = [_Inst([" Yes\n"], {"label_names": YES_NO}), _Inst(["???"], {"label_names": YES_NO})]
    ensemble.apply(insts)
    assert [i.filtered_resps["answer"] for i in insts] == ["Yes", INVALID]
