"""convfinqa: HELM context rendering, loader on the data.zip fixture, [FEQ] hand-worked cases, template regexes,
shot truncation, errors, end to end with the tiny model (no real sample of this dataset exists)."""

import json
import zipfile
from pathlib import Path

import pytest
from lm_eval_enterprise.tasks.finance.convfinqa import source as S
from lm_eval_enterprise.tasks.finance.convfinqa.templates import TASKS, TEMPLATES

from lm_eval_enterprise.data import DataError, fixture_dir, get_source, load_records
from lm_eval_enterprise.data.fewshot import helm_balanced
from lm_eval_enterprise.prompting.templating import answer_filter
from lm_eval_enterprise.scoring import hooks as H
from lm_eval_enterprise.scoring import metrics as M
from testkit.testing import GARBAGE, assert_unit_scores

SRC = get_source("convfinqa")
FIXTURE = fixture_dir("convfinqa")


def _turn(questions, answers, facts=None, facts_key="gold_ind", table=None, tid="Single_X/2010/page_1.pdf-1"):
    t = len(questions) - 1
    ann = {"cur_dial": questions, "exe_ans_list": answers, "exe_ans": answers[t], "turn_ind": t}
    if facts is not None:
        ann[facts_key] = facts
    return {"id": f"{tid}_{t}", "table": table or [["", "2010", "2009"], ["revenue", "$ 10", "$ 8"]], "annotation": ann}


def _write_zip(d: Path, train, dev, members=("data/train_turn.json", "data/dev_turn.json")):
    d.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(d / "data.zip", "w") as z:
        for name, rows in zip(members, (train, dev)):
            z.writestr(name, json.dumps(rows))
    return d


# ----------------------------------------------------------------------------------------------- rendering
def test_render_context_matches_the_spec_layout():
    turn = _turn(
        ["what was revenue in 2010?", "and in 2009?", "what was the change?"],
        [10.0, 8.0, 2.0],
        facts={"text_1": "revenue rose .", "table_1": "the revenue of 2010 is $ 10 ;", "text_3": "costs fell ."},
    )
    assert S.render_context(turn) == (
        "Table: \n|  | 2010 | 2009 |\n| revenue | $ 10 | $ 8 |\n\n"
        "Text: \nrevenue rose . costs fell .\n\n"  # text facts only, dict order, joined by " " (spec)
        "Question: what was revenue in 2010?\nAnswer: 10.0\n"  # earlier turns answered with str(gold)
        "Question: and in 2009?\nAnswer: 8.0\n"
        "Question: what was the change?"
    )


def test_render_context_facts_lookup_and_empty_text_block():
    q, a = ["how many stores?"], [328]
    # no facts at all, or only table facts: the Text block is omitted
    for facts in (None, {}, {"table_2": "the total of stores is 328 ;"}):
        assert S.render_context(_turn(q, a, facts)) == (
            "Table: \n|  | 2010 | 2009 |\n| revenue | $ 10 | $ 8 |\n\nQuestion: how many stores?"
        )
    # gold_inds is the fallback key; gold_ind wins when both exist (HELM's lookup order)
    assert "Text: \nA ." in S.render_context(_turn(q, a, {"text_0": "A ."}, facts_key="gold_inds"))
    both = _turn(q, a, {"text_0": "A ."})
    both["annotation"]["gold_inds"] = {"text_0": "B ."}
    assert "Text: \nA .\n" in S.render_context(both)


def test_turn_record_answer_is_str_of_exe_ans():
    assert S.turn_record(_turn(["q"], [0.14136]), "x")["answer"] == "0.14136"
    assert S.turn_record(_turn(["q"], [206588.0]), "x")["answer"] == "206588.0"
    assert S.turn_record(_turn(["q"], [21]), "x")["answer"] == "21"
    assert S.turn_record(_turn(["q"], [0.00001]), "x")["answer"] == "1e-05"
    assert S.turn_record(_turn(["q1", "q2"], [450.0, "yes"]), "x")["answer"] == "yes"


# ----------------------------------------------------------------------------------------------- loader
def test_convert_fixture_zip():
    splits = SRC.convert(FIXTURE)
    assert (len(splits["train"]), len(splits["valid"])) == (6, 9)
    assert set(splits) == {"train", "valid"}
    rec = splits["valid"][2]
    assert set(rec) == {"id", "context", "question", "answer"}
    assert rec["id"] == "Single_CDRA/2012/page_55.pdf-2_2" and rec["answer"] == "0.31073"
    assert rec["question"] == "what was the percentage growth from 2011 to 2012?"
    assert rec["context"].startswith("Table: \n| ( in millions ) | 2012 | 2011 | 2010 |\n")
    assert rec["context"].endswith(
        "Question: and in 2011?\nAnswer: 177.0\nQuestion: what was the percentage growth from 2011 to 2012?"
    )
    # two text facts joined by a space; the table fact in between is not text
    assert (
        "\n\nText: \nnet cash provided by operating activities was $ 842 million in 2012 and $ 765 million in "
        "2011 . capital expenditures are funded from operating cash flow and short-term borrowings .\n\n"
        in rec["context"]
    )
    answers = [r["answer"] for r in splits["valid"]]
    assert answers == ["232.0", "177.0", "0.31073", "40.3", "70.4", "-30.1", "328", "307", "21"]
    assert [r["answer"] for r in splits["train"]][-1] == "yes"  # a yes/no gold answer, kept as a string
    assert "Text:" not in splits["valid"][6]["context"]  # gold_ind {} → no Text block


def test_load_records_eval_split_and_fewshot_pool():
    recs = load_records("convfinqa", data_root="embedded")
    # the evaluated split: the converted turns, served in the seeded fair order (docs/data.md#evaluation-order)
    assert sorted(r["id"] for r in recs["valid"]) == sorted(r["id"] for r in SRC.convert(FIXTURE)["valid"])
    pool = SRC.convert(FIXTURE)["train"]
    expected = helm_balanced(pool, lambda r: r["answer"], len(pool))
    assert [r["id"] for r in recs["fewshot"]] == [r["id"] for r in expected]
    assert TASKS.num_fewshot == 1 and TASKS.test_split == "valid" and TASKS.max_gen_toks == 10
    assert TASKS.until == ("\n",) and TASKS.family == "numeric"


def test_shot_truncation_only_touches_the_table_block_of_shots(tmp_path):
    long_table = [["year", "value", "note"]] + [[str(1900 + i), f"{i}.5", "restated amount"] for i in range(200)]
    long_turn = _turn(
        ["what was the value in 1950?", "and in 1951?"],
        [50.5, 51.5],
        facts={"text_1": "values are restated ."},
        table=long_table,
        tid="Single_LONG/2020/p.pdf-1",
    )
    eval_turn = _turn(
        ["what was the value in 1960?"],
        [60.5],
        facts={"text_1": "values are restated ."},
        table=long_table,
        tid="Single_LONG/2020/p.pdf-2",
    )  # not a repeat of the shot
    d = _write_zip(tmp_path / "convfinqa", [long_turn], [eval_turn])
    (d / "MANIFEST.json").write_text(json.dumps({"expected_rows": {"train": 1, "valid": 1}, "tolerance": 0}))
    recs = load_records("convfinqa", data_root=str(tmp_path))
    full, shot = recs["valid"][0]["context"], recs["fewshot"][0]["context"]
    assert full == S.render_context(eval_turn)  # the eval item is never truncated
    head, dialogue = shot.split("\n\nQuestion: ", 1)
    assert len(head.split()) == S.FEWSHOT_MAX_WORDS < len(full.split("\n\nQuestion: ")[0].split())
    assert full.startswith(head) or full.startswith(head.rsplit("\n", 1)[0])
    assert all(line.startswith("|") for line in head.split("\n")[1:])  # still one table row per line
    assert dialogue == "what was the value in 1950?\nAnswer: 50.5\nQuestion: and in 1951?"
    # short contexts are unchanged
    short = S.render_context(_turn(["q"], [1.0]))
    assert S.truncate_shot_context(short) == short


def test_truncate_keep_lines_hand_worked():
    assert S._truncate_keep_lines("a b\nc d e\nf", 4) == "a b\nc d"
    assert S._truncate_keep_lines("a b\nc d e\nf", 5) == "a b\nc d e"
    assert S._truncate_keep_lines("a b\nc d e\nf", 2) == "a b"


def test_archive_and_record_errors_name_the_file(tmp_path):
    d = _write_zip(tmp_path / "a", [_turn(["q"], [1.0])], [], members=("data/train_turn.json", "data/test.json"))
    with pytest.raises(DataError, match=r"\[convfinqa\] .*data\.zip: archive has no data/dev_turn\.json"):
        SRC.convert(d)
    bad = _turn(["q"], [1.0])
    del bad["annotation"]["cur_dial"]
    d = _write_zip(tmp_path / "b", [_turn(["q"], [1.0]), bad], [])
    with pytest.raises(
        DataError,
        match=r"data\.zip!data/train_turn\.json\[1\]: not a ConvFinQA turn record "
        r"\(missing field 'cur_dial'\)",
    ):
        SRC.convert(d)
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "data.zip").write_bytes(b"not a zip")
    with pytest.raises(DataError, match="not a readable zip archive"):
        SRC.convert(tmp_path / "c")


def test_download_url_is_the_pinned_helm_archive():
    assert [f.url for f in SRC.files] == [
        "https://github.com/czyssrs/ConvFinQA/raw/cf3eed2d5984960bf06bb8145bcea5e80b0222a6/data.zip"
    ]
    assert {s: r.n for s, r in SRC.expected_rows.items()} == {"train": 11104, "valid": 1490}


# ----------------------------------------------------------------------------------------------- [FEQ]
@pytest.mark.parametrize(
    "gold, completion, expected",
    [
        ("206588.0", " 206588", 1.0),  # str(float) gold vs integer completion
        ("0.14136", "0.14136", 1.0),
        ("0.14136", "0.141360001", 1.0),  # |diff| = 1e-9 < 1e-6
        ("0.14136", "0.1414", 0.0),  # no rounding: a 4-digit answer to a 5-digit gold is wrong
        ("0.14136", "14.136%", 0.0),  # percent answers count wrong (HELM parity, spec pitfall)
        ("0.14136", "14.1", 0.0),
        ("1234.0", "1,234", 0.0),  # "1,234" parses as 1 (no thousands separators)
        ("1.0", "1,234", 1.0),
        ("1e-05", "0.00001", 1.0),  # e-notation gold (str(0.00001)) vs decimal completion
        ("-30.1", "-30.1", 1.0),
        ("-30.1", "30.1", 0.0),  # the sign counts
        ("-30.1", "a decrease of 30.1", 0.0),
        ("21", "21 stores, up from 307", 1.0),  # first number only
        ("307", "21 stores, up from 307", 0.0),
        ("yes", "yes", 0.0),  # yes/no gold: no number → 0 even when identical (HELM parity)
        ("yes", "no", 0.0),
        ("5.0", "five", 0.0),  # no number in the completion → 0
        ("5.0", "", 0.0),
    ],
)
def test_float_equivalence_convfinqa_cases(gold, completion, expected):
    assert M.float_equivalence(gold, completion) == expected


def test_float_equivalence_string_fallback_is_unreachable():
    # every match of the [FEQ] pattern is a valid float literal, Unicode decimal digits included, so the
    # "exact string equality" fallback of the spec never triggers (HELM's _strip_string never raises either)
    for text in ["5", "+5.", ".5e3", "-0.5E-2", "٣", "12e99999"]:
        num = M.first_number(text)
        assert num is not None and isinstance(float(num), float)
    assert M.float_equivalence("3", "٣") == 1.0
    assert M.float_equivalence("1e99999", "2e99999") == 0.0  # inf − inf = nan → not < 1e-6


# ----------------------------------------------------------------------------------------------- templates
def _score(template, completion, gold):
    pred = answer_filter(TASKS, template).read(completion, {"answer": gold})
    return H.numeric({"answer": gold}, [pred])


def test_every_template_accepts_every_gold_form_and_rejects_garbage():
    golds = [r["answer"] for split in SRC.convert(FIXTURE).values() for r in split] + ["1e-05", "-0.5", "12"]
    for t in TEMPLATES:
        for g in golds:
            res = _score(t, " " + g, g)
            assert res["format_failure"] == 0.0, (t.id, g)
            assert res["accuracy"] == (0.0 if g == "yes" else 1.0), (t.id, g)
        assert _score(t, GARBAGE, "5.0") == {"accuracy": 0.0, "format_failure": 1.0, "format_adherence": 0.0}
        assert _score(t, " unknown", "5.0") == {"accuracy": 0.0, "format_failure": 1.0, "format_adherence": 0.0}


@pytest.mark.parametrize(
    "completion, accuracy, adherent",
    [
        # (completion, [FEQ] accuracy vs gold 5.0 — the same in every template, format_adherence per t1..t5)
        (" 5.0", 1.0, (1, 1, 1, 1, 1)),
        (" 5", 1.0, (1, 1, 1, 1, 1)),
        (" The answer is 5.0", 1.0, (0, 0, 0, 0, 0)),
        (" no change, 5", 1.0, (0, 0, 0, 0, 0)),  # [FEQ] reads the first number (HELM)
        (" $5", 1.0, (1, 1, 0, 1, 1)),  # t3 asks for no currency symbols
        (" 5.0%", 1.0, (1, 1, 0, 1, 1)),
        (" 1,234.5", 0.0, (1, 1, 0, 1, 1)),  # [FEQ]: "1,234" parses as 1
        (" 5.0\n7", 1.0, (1, 1, 1, 1, 1)),  # cut at the stop first
        (" 7\n5.0", 0.0, (1, 1, 1, 1, 1)),
        (" yes", 0.0, (1, 0, 0, 0, 0)),  # the other gold form: t1 asks for "the answer" only
    ],
)
def test_one_reading_rule_and_per_template_formats(completion, accuracy, adherent):
    for t, ok in zip(TEMPLATES, adherent):
        res = _score(t, completion, "5.0")
        assert res == {"accuracy": accuracy, "format_failure": 0.0, "format_adherence": float(ok)}, t.id


def test_t1_is_the_helm_prompt():
    t1 = TEMPLATES[0]
    assert t1.description == (
        "Based on the table, answer the final question. Respond with the answer only, with "
        "no additional explanation.\n\n"
    )
    assert t1.doc_to_text == "{{context}}\nAnswer:"
    assert len(TEMPLATES) >= 5 and len({t.regex for t in TEMPLATES}) >= 3


# ----------------------------------------------------------------------------------------------- end to end
def test_end_to_end_fixture_tiny_model(tiny_eval):
    tasks = ["ent_convfinqa__t1", "ent_convfinqa__t3"]
    res = tiny_eval(tasks)
    assert_unit_scores(res, tasks, ("accuracy,answer", "format_failure,answer"))
    for t in tasks:
        prompt = res["samples"][t][0]["arguments"][0][0]
        assert prompt.count("Table: \n") == 2  # one shot + the eval item
        assert res["configs"][t]["num_fewshot"] == 1
        assert res["samples"][t][0]["target"] == "232.0"
