"""lm_eval_enterprise/scoring/filters.py: the [PARSE] reading rule, format regexes (rendering, decoder-friendliness,
adherence), the AnswerFilter in lm-eval's pipeline, and the HELM-parity process_results of hooks.py.

The per-dataset table over every template is tests/scoring/test_parse_table.py."""

import pickle
import re

import pytest

from lm_eval_enterprise import families
from lm_eval_enterprise.scoring import hooks
from lm_eval_enterprise.scoring.filters import (
    LINE_FORMAT,
    TEXT_FORMAT,
    AnswerFilter,
    ParsedAnswer,
    adheres,
    check_format_regex,
    entity_item,
    escape_literal,
    helm_label,
    label_format,
    list_format,
    read_label,
    read_score,
    readable,
    render_format_regex,
    unwrapped_label,
    words_format,
)
from lm_eval_enterprise.scoring.metrics import INVALID

FAMILY_METRICS = {name: dict(f.metrics) for name, f in families.FAMILIES.items()}
HELM_METRICS = {name: dict(f.helm_metrics) for name, f in families.FAMILIES.items() if f.helm_metrics}

SENT = ["positive", "neutral", "negative"]
LETTERS = list("ABCDE")


# ------------------------------------------------------------------------------------------- [SPAN]
def test_every_reader_drops_a_character_cut_by_the_token_limit():
    # "梅雨前線" cut inside its last character decodes to "梅雨前\ufffd": the completion is cut before any reader
    # (text.cut_at_stop), so the span is the three whole characters and a label after it reads as without it
    span = AnswerFilter(reader="span", stop=None, language="ja")
    assert span.read("梅雨前\ufffd", {}) == "梅雨前"
    assert span.read("「梅雨前線」です。", {}) == "「梅雨前線」"
    assert span.read("\ufffd", {}) == INVALID  # nothing readable is left: a format failure
    label = AnswerFilter(reader="label", format_regex=" ?(positive|negative)", stop=None)
    got = label.read("negative \ufffd\ufffd", {"label_names": ["positive", "negative"]})
    assert (str(got), got.completion, got.adherent) == ("negative", "negative", True)


# ------------------------------------------------------------------------------------------- [PARSE]: labels
@pytest.mark.parametrize(
    "text, expected",
    [
        ("positive", "positive"),
        ("Negative", "negative"),  # case-insensitive; the canonical spelling is returned
        ("NEUTRAL.", "neutral"),
        ("**positive**", "positive"),
        ("*positive*", "positive"),
        ("`positive`", "positive"),
        ("_positive_", "positive"),
        ('"positive"', "positive"),
        ("'positive'", "positive"),
        ("“positive”", "positive"),
        ("(positive)", "positive"),
        ("[negative]", "negative"),
        ("### positive", "positive"),
        ("Answer: positive", "positive"),  # generic lead-in
        ("answer : negative", "negative"),  # case and space before the colon
        ("Tone: positive", "positive"),  # the dataset's own output field (lead_ins below)
        ("**Answer:** neutral", "neutral"),  # markdown around the lead-in, then the label
        ("Answer: **negative**", "negative"),
        ("The answer is positive.", "positive"),  # generic phrase
        ("Label: The answer is: negative", "negative"),  # repeated removal
        ("positive, because the judge agrees", "positive"),  # trailing explanation
        ("negative sentiment", "negative"),
        ("not positive", None),  # never another label: "not" is no lead-in
        ("positively", None),  # whole words only
        ("Mood: positive", None),  # "Mood" is no field of this dataset
        ("The sentiment is mixed", None),
        ("maybe", None),
        ("", None),
        ("#### ????", None),
    ],
)
def test_read_label_hand_worked(text, expected):
    assert read_label(text, SENT, lead_ins=["Tone"]) == expected


def test_longest_label_first():
    assert read_label("irrelevant", ["relevant", "irrelevant"]) == "irrelevant"
    assert read_label("Relevant.", ["relevant", "irrelevant"]) == "relevant"
    assert read_label("non-iot", ["iot", "non-iot"]) == "non-iot"
    assert read_label("Non-IoT app", ["iot", "non-iot"]) == "non-iot"
    assert read_label("iot-enabled", ["iot", "non-iot"]) == "iot"  # "-" ends the word "iot"
    names = ["not security related", "security related", "procedure"]
    assert read_label("Not security related", names) == "not security related"
    assert read_label("security related", names) == "security related"
    # a label that is a prefix of a longer one: the longer wins only when the text has it
    tram = ["Process Injection", "Command and Scripting Interpreter: Windows Command Shell"]
    assert read_label("Obfuscated", tram) is None
    assert read_label("command and scripting interpreter: windows command shell.", tram) == tram[1]


def test_whitespace_inside_a_label_is_flexible():
    labels = ["Unilateral change", "Other"]
    assert read_label("Unilateral   change", labels) == "Unilateral change"
    assert read_label("Unilateral\tchange", labels) == "Unilateral change"
    assert read_label("Unilateral", labels) is None


@pytest.mark.parametrize(
    "text, expected",
    [
        ("E", "E"),
        ("(B)", "B"),
        ("B)", "B"),
        ("B.", "B"),
        ("B:", "B"),
        ("b", "B"),
        ("Answer: E", "E"),  # the misread of the old [ACC] rule (read "A")
        ("**E**", "E"),
        ("The answer is E.", "E"),
        ("The correct option is (C).", "C"),
        ("E because the holding matches", "E"),
        ("D. holding that the rule applies", "D"),
        ("Because", None),
        ("F", None),
        ("Answer:", None),
        ("", None),
    ],
)
def test_read_letters(text, expected):
    assert read_label(text, LETTERS, lead_ins=["Answer", "Letter"]) == expected


def test_lead_in_that_is_a_label_is_a_lead_in_only_before_a_further_answer():
    # a field name equal to a label (here the letter A, a "Q: … A:" template's field) followed by ':' and a further
    # answer is a lead-in: "A: B" reads B; otherwise it is the label: "A", "A:", "A: holding that …" read A
    assert read_label("A: B", LETTERS, lead_ins=["A"]) == "B"
    assert read_label("A: A", LETTERS, lead_ins=["A"]) == "A"
    assert read_label("A: (C) holding that", LETTERS, lead_ins=["A"]) == "C"
    assert read_label("A", LETTERS, lead_ins=["A"]) == "A"
    assert read_label("A:", LETTERS, lead_ins=["A"]) == "A"
    assert read_label("A: holding that the rule applies", LETTERS, lead_ins=["A"]) == "A"
    assert read_label("A: Yes", ["Yes", "No"], lead_ins=["A"]) == "Yes"
    # a generic field too: with "answer" among the options, "Answer: ask" is ask and "Answer: answer" answer
    options = ["initiate", "answer", "ask"]
    assert [read_label(t, options) for t in ("Answer: ask", "Answer: answer", "answer", "Answer: no idea")] == [
        "ask",
        "answer",
        "answer",
        "answer",
    ]


def test_japanese_labels_are_width_folded_on_both_sides():
    """[PARSE-JA]: answer and keys are NFKC width-folded (text.fold_width), the published spelling is returned."""
    labels = ["ＤＶＤ", "テレビ", "ﾗｼﾞｵ"]
    aliases = {"1": "ＤＶＤ", "2": "テレビ", "3": "ﾗｼﾞｵ", "A": "ＤＶＤ", "B": "テレビ", "C": "ﾗｼﾞｵ"}
    rows = [
        ("ＤＶＤ", "ＤＶＤ"),
        ("DVD", "ＤＶＤ"),
        ("ラジオです", "ﾗｼﾞｵ"),
        ("２", "テレビ"),
        ("Ｂ", "テレビ"),
        ("答え：３", "ﾗｼﾞｵ"),
    ]
    assert [(t, read_label(t, labels, aliases=aliases, language="ja")) for t, _ in rows] == rows
    assert read_label("２", ["yes", "no"], aliases={"2": "no"}) is None  # English answers are not folded


def test_japanese_option_numbers_take_a_counter():
    labels = ["3行広告", "新聞", "雑誌"]
    aliases = {"1": "3行広告", "2": "新聞", "3": "雑誌"}
    rows = [
        ("3番", "雑誌"),
        ("3番です。", "雑誌"),
        ("３番目", "雑誌"),
        ("3つ目です", "雑誌"),
        ("3行広告", "3行広告"),  # the longest key first: an option starting with a digit is that option
        ("1番の新聞", None),  # a counter then more than a copula
        ("3個", None),
        ("4番", None),
    ]
    assert [(t, read_label(t, labels, aliases=aliases, language="ja")) for t, _ in rows] == rows
    assert read_label("3番", ["a", "b", "c"], aliases={"3": "c"}) is None  # English has no counters


def test_a_label_with_stray_quotes_reads_as_published_and_without_them():
    """A label is also read as the reader sees answers (filters.unwrapped_label): without leading wrappers and
    trailing quotes, which the published data may carry by mistake."""
    labels = ["‘知識", "教養’", "肺炎"]
    rows = [("‘知識", "‘知識"), ("知識", "‘知識"), ("「知識」", "‘知識"), ("教養’", "教養’"), ("教養です。", "教養’")]
    assert [(t, read_label(t, labels, language="ja")) for t, _ in rows] == rows
    assert read_label('"Quoted label', ['"Quoted label', "other"]) == '"Quoted label'
    assert read_label("quoted label.", ['"Quoted label', "other"]) == '"Quoted label'
    assert unwrapped_label("(a) first") == "a) first" and unwrapped_label("plain") == "plain"


def test_aliases_map_to_labels():
    assert read_label("y", ["Yes", "No"], aliases={"y": "Yes"}) == "Yes"
    assert read_label("Nope.", ["Yes", "No"], aliases={"nope": "no"}) == "No"  # target matched after [NORM]
    assert read_label("No", ["Yes", "No"], aliases={"no": "Yes"}) == "No"  # a real label wins


def test_helm_label_is_the_whole_normalised_completion():
    assert helm_label("Positive.", SENT) == "positive"
    assert helm_label("positive, because", SENT) == INVALID
    assert helm_label("**positive**", SENT) == "positive"  # [NORM] deletes punctuation
    assert helm_label("", SENT) == INVALID


# ------------------------------------------------------------------------------------------- [PARSE]: other readers
def test_readable_other_readers():
    doc = {"entity_types": ["person", "organization"]}
    assert readable("entity", "Acme (organization)", doc)
    assert readable("entity", "None", doc) and readable("entity", "No entities", doc)  # the empty list
    assert not readable("entity", "Acme Corp", doc)  # no item parses → the parser returns None
    assert not readable("entity", "#### ????", doc)  # no letter or digit: nothing answered
    assert readable("kpi", "revenue [kpi], 5 [cy]", doc)
    assert not readable("kpi", "?!", doc)
    assert readable("number", "about 5.2 %", doc) and readable("number", "Yes", doc)
    assert not readable("number", "unknown", doc) and not readable("number", "yesterday", doc)
    assert readable("text", "a", doc) and not readable("text", " .?! ", doc)
    with pytest.raises(ValueError, match="unknown answer reader"):
        readable("json", "x", doc)


# ------------------------------------------------------------------------------------------- [SCORE]
@pytest.mark.parametrize(
    "text, expected",
    [
        ("3.8", "3.8"),
        ("Similarity: 4 out of 5", "4"),
        ("On a scale from 0 to 5, I would say 2", "2"),
        ("３.５点", "3.5"),  # full-width digits (NFKC)
        ("5点満点中3点", "3"),
        ("0から5のうち3", "3"),
        ("四", "4"),  # a kanji numeral that is the answer
        ("答え：四点", "4"),
        ("答えは三です。", "3"),
        ("「二」", "2"),
        # echoed field names of the pair are not scores (genuine JSTS greedy answers of SmolLM2-135M, t3)
        ("文1：白い犬が走っている", None),
        ("文2：草原", None),
        ("Sentence 1 and sentence 2 are alike: 4", "4"),
        ("文1と文2の類似度：2.5", "2.5"),
        ("It repeats sentence 1.", None),  # a field name at the end of a sentence
        ("Sentence 2. Score: 3", "3"),
        # a kanji numeral inside a word is not a score (genuine JSTS greedy answers, t1 and t8, cut at the token
        # limit: この二つの文 = "these two sentences")
        ("この二つの", None),
        ("二つの文はほぼ同じ意味です", None),
        ("The two sentences are similar", None),
        ("maybe", None),
    ],
)
def test_read_score_hand_worked(text, expected):
    assert read_score(text) == expected


# ------------------------------------------------------------------------------------------- format regexes
def test_label_format_strings():
    assert label_format(["positive", "negative"]) == " ?([Nn]egative|[Pp]ositive)"  # longest, then a-z
    assert label_format(["iot", "non-iot"], start=True) == " ?([Nn]on-iot|[Ii]ot)([^A-Za-z0-9].*)?"
    assert label_format(["Choice of law", "Other"], exact_case=True) == " ?(Choice of law|Other)"
    assert list_format(entity_item("person|location"), "None") == (
        r" ?([^()\n]+ \((person|location)\)(, [^()\n]+ \((person|location)\))*|None)"
    )
    assert words_format(3) == r" ?[^ \n]*[A-Za-z0-9][^ \n]*( [^ \n]+){0,2}"


@pytest.mark.parametrize(
    "pattern, text, ok",
    [
        (label_format(["Yes", "No"]), "Yes", True),
        (label_format(["Yes", "No"]), " no", True),
        (label_format(["Yes", "No"]), "Yes.", False),
        (label_format(["Yes", "No"]), "YES", False),
        (label_format(["Yes", "No"], start=True), "Yes, it does", True),
        (label_format(["Yes", "No"], start=True), "Yesterday", False),
        (" ?[A-E]", "B", True),
        (" ?[A-E]", "(B)", False),
        (" ?[A-E]", "b", False),
        (TEXT_FORMAT, "Line one.\nLine two", True),
        (TEXT_FORMAT, "?!", False),
        (LINE_FORMAT, "Line one.\nLine two", False),
        (words_format(3), "one two three", True),
        (words_format(3), "one two three four", False),
        (list_format(entity_item("person"), "None"), "Ann Lee (person), Bo (person)", True),
        (list_format(entity_item("person"), "None"), "Ann Lee (person).", False),
        (list_format(entity_item("person"), "None"), "None", True),
        (None, "anything", False),
    ],
)
def test_adheres_is_a_full_match(pattern, text, ok):
    assert adheres(text, pattern, {}) is ok


def test_render_format_regex_fills_escaped_labels_longest_first():
    doc = {
        "label_names": ["Proxy", "Native API", "Deobfuscate/Decode Files or Information", "a (b)"],
        "entity_types": ["goodwill", "debt instrument face amount"],
    }
    assert render_format_regex(" ?({LABELS})", doc) == (
        r" ?(Deobfuscate/Decode Files or Information|Native API|Proxy|a \(b\))"
    )
    assert render_format_regex("{TYPES}", doc) == "debt instrument face amount|goodwill"
    assert render_format_regex(" ?[A-E]", {}) == " ?[A-E]"  # no placeholder: unchanged
    with pytest.raises(ValueError, match=r"needs doc\['label_names'\]"):
        render_format_regex("({LABELS})", {"entity_types": ["x"]})
    # the rendered pattern matches exactly the listed names
    rx = re.compile(render_format_regex(" ?({LABELS})", doc))
    assert rx.fullmatch(" a (b)") and rx.fullmatch("Native API") and not rx.fullmatch("Native")


def test_escape_literal_escapes_only_metacharacters():
    assert escape_literal("C&C: a.b (x)-y/z") == r"C&C: a\.b \(x\)-y/z"


@pytest.mark.parametrize(
    "bad", [r"(?i)yes", r"(?s)^(.*)$", r"(?=yes)yes", r"(?<!x)yes", r"(a)\1", r"\byes\b", r"(?P<x>a)", r"\Ayes\Z"]
)
def test_check_format_regex_rejects_what_decoders_cannot_use(bad):
    with pytest.raises(ValueError, match="constrained decoders"):
        check_format_regex(bad)


def test_check_format_regex_accepts_plain_patterns():
    for ok in (" ?([Yy]es|[Nn]o)", " ?[A-J]([^A-Za-z0-9].*)?", " ?({LABELS})", TEXT_FORMAT, r"[^\[\]\n]+ \[(kpi)\]"):
        assert check_format_regex(ok) == ok
    with pytest.raises(re.error):
        check_format_regex(" ?(unbalanced")


# ------------------------------------------------------------------------------------------- AnswerFilter
def test_filter_reads_and_reports_adherence():
    f = AnswerFilter(reader="label", format_regex=label_format(["Yes", "No"]), stop="\n", lead_ins=["Answer"])
    doc = {"label_names": ["Yes", "No"]}
    out = f.read(" **Yes**, it does\nAnswer: No", doc)  # stop cut first: "**Yes**, it does"
    assert out == "Yes" and isinstance(out, ParsedAnswer)
    assert out.completion == "**Yes**, it does" and out.adherent is False
    clean = f.read(" No", doc)
    assert clean == "No" and clean.completion == "No" and clean.adherent is True
    bad = f.read(" maybe", doc)
    assert bad == INVALID and bad.completion == "maybe" and bad.adherent is False


@pytest.mark.parametrize("raw", [None, 5, 1.0, ["Yes"], {"text": "Yes"}, b"Yes"])
def test_non_str_completion_is_a_failure(raw):
    out = AnswerFilter(reader="label").read(raw, {"label_names": ["Yes", "No"]})
    assert out == INVALID and out.completion == "" and out.adherent is False


def test_filter_other_readers_keep_the_completion():
    ner = AnswerFilter(reader="entity", format_regex=list_format(entity_item("person"), "None"), stop="\n")
    doc = {"entity_types": ["person"]}
    assert ner.read(" Ann Lee (person)\nSentence: x", doc) == "Ann Lee (person)"
    assert ner.read(" No entities", doc) == "No entities"
    assert ner.read(" ####", doc) == INVALID
    num = AnswerFilter(reader="number", stop="\n")
    assert num.read(" The answer is 5.2\n7", {}) == "The answer is 5.2"
    text = AnswerFilter(reader="text", format_regex=TEXT_FORMAT, stop="\n\n")
    out = text.read(" This bill does x.\nIt also does y.\n\nBill:", {})
    assert out == "This bill does x.\nIt also does y." and out.adherent


def test_filter_configuration_errors():
    with pytest.raises(ValueError, match="unknown reader"):
        AnswerFilter(reader="regex")
    with pytest.raises(ValueError, match="constrained decoders"):
        AnswerFilter(reader="label", format_regex=r"(?i)yes")
    with pytest.raises(ValueError, match=r"needs doc\['label_names'\]"):
        AnswerFilter(reader="label").read("Yes", {"label": "Yes"})


def test_filter_apply_per_doc_and_repeat():
    f = AnswerFilter(reader="label", stop="\n")
    docs = [{"label_names": ["Yes", "No"]}, {"label_names": ["relevant", "irrelevant"]}]
    resps = [[" yes\nmore", "Answer: no", "maybe"], [" no", "Irrelevant."]]
    # one output per repeat, in order; "no" is no label of the second document
    assert f.apply(resps, docs) == [["Yes", "No", INVALID], [INVALID, "irrelevant"]]


def test_filter_in_lm_eval_pipeline_and_pickling():
    from lm_eval.filters import build_filter_ensemble

    ensemble = build_filter_ensemble(
        "answer",
        [[AnswerFilter, {"reader": "label", "stop": "\n", "format_regex": " ?([Yy]es|[Nn]o)"}], ["take_first", None]],
    )

    class _Inst:
        def __init__(self, resps, doc):
            self.resps, self.doc, self.filtered_resps = resps, doc, {}

    insts = [_Inst([" Yes\n"], {"label_names": ["Yes", "No"]}), _Inst(["???"], {"label_names": ["Yes", "No"]})]
    ensemble.apply(insts)
    got = [i.filtered_resps["answer"] for i in insts]
    assert got == ["Yes", INVALID] and got[0].adherent and not got[1].adherent
    back = pickle.loads(pickle.dumps(got[0]))
    assert back == "Yes" and back.completion == "Yes" and back.adherent is True


# ------------------------------------------------------------------------------------------- hooks
def test_plain_strings_stand_for_clean_completions():
    # test doubles / synthetic runs pass plain strings: adherent iff readable
    assert hooks.numeric({"answer": "5"}, ["5.0"]) == {"accuracy": 1.0, "format_failure": 0.0, "format_adherence": 1.0}
    assert hooks.numeric({"answer": "5"}, [INVALID]) == {
        "accuracy": 0.0,
        "format_failure": 1.0,
        "format_adherence": 0.0,
    }
    assert ParsedAnswer.of(None) == INVALID


def test_format_metrics_come_from_the_filter():
    doc = {"label": "Yes", "label_names": ["Yes", "No"]}
    # readable but not in the asked format, and vice versa impossible for labels; a failure is never adherent
    out = hooks.classification_weighted(doc, [ParsedAnswer("Yes", "Yes, it does", False)])
    assert (out["accuracy"], out["format_failure"], out["format_adherence"]) == (1.0, 0.0, 0.0)


def test_helm_process_results_by_hand():
    doc = {"label": "positive", "label_names": SENT}
    rows = [
        hooks.classification_weighted_helm(doc, [ParsedAnswer("positive", c, a)])
        for c, a in (("positive", True), ("Positive.", False), ("positive, clearly", False))
    ]
    # [PARSE] reads positive three times; HELM's rule only when the whole completion is the label
    assert [r["weighted_f1"]["pred"] for r in rows] == ["positive"] * 3
    assert [r["weighted_f1_helm"]["pred"] for r in rows] == ["positive", "positive", INVALID]
    # HELM: class positive TP 2, FP 0, FN 1 → F1 = 2·2 / (2·2 + 0 + 1) = 0.8 (the only class with support)
    assert hooks.agg_weighted_f1([r["weighted_f1_helm"] for r in rows]) == pytest.approx(0.8)
    assert hooks.agg_weighted_f1([r["weighted_f1"] for r in rows]) == 1.0
    assert hooks.classification_binary_helm.__name__ == "classification_binary_helm"
    mc = {"answer_letter": "E", "label_names": LETTERS}
    assert hooks.multiple_choice_helm(mc, [ParsedAnswer("E", "E", True)])["accuracy_helm"] == 1.0
    r = hooks.multiple_choice_helm(mc, [ParsedAnswer("E", "Answer: E", False)])
    assert (r["accuracy"], r["accuracy_helm"]) == (1.0, 0.0)  # HELM maps only the bare letter
    assert hooks.multiple_choice_helm(mc, [ParsedAnswer("E", "e", False)])["accuracy_helm"] == 0.0


def test_helm_metrics_table_matches_the_families():
    for family, metrics in HELM_METRICS.items():
        assert callable(getattr(hooks, f"{family}_helm"))
        for name, (agg, _) in metrics.items():
            primary = name.removesuffix("_helm")
            assert primary in FAMILY_METRICS[family]
            assert agg == FAMILY_METRICS[family][primary][0]


# ------------------------------------------------------------------------------------------- every template
def _rendered_format_regexes():
    from pathlib import Path

    from lm_eval_enterprise import TASK_DIR
    from lm_eval_enterprise.prompting.templating import all_specs

    doc = {
        "label_names": [
            "Obfuscated Files or Information",
            "Deobfuscate/Decode Files or Information",
            "Command and Scripting Interpreter: Windows Command Shell",
        ],
        "entity_types": ["debt instrument face amount", "goodwill", "concentration risk percentage 1"],
    }
    return sorted(
        {
            render_format_regex(t.regex, doc)
            for _, s in all_specs(Path(TASK_DIR))
            if s.output_type == "generate_until"
            for t in s.templates
        }
    )


def test_every_template_format_regex_is_decoder_friendly():
    regexes = _rendered_format_regexes()
    assert len(regexes) > 20
    for rx in regexes:
        check_format_regex(rx)


@pytest.mark.parametrize("library", ["xgrammar", "interegular"])
def test_every_template_format_regex_compiles_with_constrained_decoding_libraries(library):
    """Runs where the library is installed (e.g. a vLLM environment; xgrammar 0.2.9 and interegular 0.3.3 accept
    every rendered format regex); skipped in the default test environment, which installs neither."""
    lib = pytest.importorskip(library)
    for rx in _rendered_format_regexes():
        if library == "xgrammar":
            lib.Grammar.from_regex(rx)
        else:
            lib.parse_pattern(rx).to_fsm()
