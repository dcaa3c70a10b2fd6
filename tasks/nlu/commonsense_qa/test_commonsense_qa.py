"""commonsense_qa: the pinned sources, both layouts (the hub's parquet fixture and the release's JSON-lines files of
the genuine sample: quirks — duplicate option texts, double spaces in stems), the counts of each layout, bad input
as one line naming file and line, ``prepare --from``, pre-split rows, the templates (our own, FLAN-style), the t1
prompt of the first genuine record, and the answer reading of natural answers under every template."""

import json
import re
import shutil
from collections import Counter

import pytest
from lm_eval.utils import apply_template
from lm_eval_enterprise.tasks.nlu.commonsense_qa import source as S
from lm_eval_enterprise.tasks.nlu.commonsense_qa.templates import IMITATES, PATTERNS, TASKS

from conftest import shared_sample
from lm_eval_enterprise import cli
from lm_eval_enterprise import data as D
from lm_eval_enterprise.data import DataError, fixture_dir, get_source, inspect_folder, load_records
from lm_eval_enterprise.prompting import flan
from lm_eval_enterprise.prompting.templating import answer_filter
from lm_eval_enterprise.scoring.metrics import INVALID
from testkit.testing import GARBAGE

SRC = get_source("commonsense_qa")
FIX = fixture_dir("commonsense_qa")
DEV, TRAIN = "dev_rand_split.jsonl", "train_rand_split.jsonl"


def _row(**over) -> dict:
    """One row of the release's layout."""
    texts = over.pop("texts", ["bank", "library", "department store", "mall", "new york"])
    labels = over.pop("labels", list("ABCDE"))
    row = {
        "answerKey": "A",
        "id": "0" * 32,
        "question": {
            "question_concept": "door",
            "choices": [{"label": lab, "text": t} for lab, t in zip(labels, texts)],
            "stem": "Where is a revolving door?",
        },
    }
    row.update(over)
    return row


def _folder(tmp_path, dev_lines: list[str], train_lines: list[str] | None = None):
    """A data folder with the release's two files, declared a partial copy (SOURCE.md)."""
    d = tmp_path / "commonsense_qa"
    d.mkdir(parents=True, exist_ok=True)
    (d / D.SAMPLE_NOTE).write_text("rows written by a test\n")
    (d / DEV).write_text("".join(dev_lines), encoding="utf-8")
    train = train_lines if train_lines is not None else [json.dumps(_row(id="1" * 32)) + "\n"]
    (d / TRAIN).write_text("".join(train), encoding="utf-8")
    return d


# ------------------------------------------------------------------------------------------------ the source
def test_source_is_pinned():
    assert (S.HF_REPO, S.HF_COMMIT, S.HF_PREFIX) == (
        "tau/commonsense_qa",
        "94630fe30dad47192a8546eb75f094926d47e155",
        "data",
    )
    assert (SRC.hf_revision, SRC.hf_splits, SRC.eval_split, SRC.fewshot_source_split) == (
        S.HF_COMMIT,
        ("train", "validation"),  # the hub's test split has no answers: never fetched
        "valid",
        "train",
    )
    assert S.JSONL_FILES == {"train": TRAIN, "valid": DEV}
    assert S.SHA256 == {
        "train": "58ffa3c8472410e24b8c43f423d89c8a003d8284698a6ed7874355dedd09a2fb",
        "valid": "3210497fdaae614ac085d9eb873dd7f4d49b6f965a93adadc803e1229fd8a02a",
    }
    assert {s: (r.n, r.verified) for s, r in SRC.expected_rows.items()} == {
        "train": (9741, True),
        "valid": (1221, True),
    }
    assert [f.name for f in SRC.files] == ["data/train-*.parquet", "data/validation-*.parquet", TRAIN, DEV]


def test_counts_are_verified_for_the_release_files_and_unverified_for_the_hub_export(tmp_path):
    d = tmp_path / "hub"
    shutil.copytree(FIX, d)
    (d / D.MANIFEST).unlink()
    hub = SRC.expected_for(d)
    assert {s: (r.n, r.verified) for s, r in hub.items()} == {"train": (9741, False), "valid": (1221, False)}
    assert "not counted" in hub["valid"].evidence
    release = SRC.expected_for(shared_sample("commonsense_qa"))
    assert {s: (r.n, r.verified) for s, r in release.items()} == {"train": (9741, True), "valid": (1221, True)}
    assert {s: r.n for s, r in SRC.expected_for(FIX).items()} == {"train": 6, "valid": 6}  # its MANIFEST


# ------------------------------------------------------------------------------------------------ the hub layout
def test_fixture_in_the_hub_parquet_layout():
    splits = SRC.convert(FIX)
    assert {k: len(v) for k, v in splits.items()} == {"train": 6, "valid": 6}  # the unlabelled test split is not read
    first = splits["valid"][0]
    assert first == {
        "id": "835d70852f8ec41d35cdcd01f4e136b5",
        "question": "Where do you put a letter so the postal service picks it up?",
        "choices": ["refrigerator", "mailbox", "bathtub", "oven", "closet"],
        "answer": 1,
    }
    quirky = splits["valid"][2]  # as in the genuine data: a double space in the stem and a repeated option text
    assert "The  child" in quirky["question"] and Counter(quirky["choices"])["a nap"] == 2
    assert {r["answer"] for r in splits["train"] + splits["valid"]} == {0, 1, 2, 3, 4}


def test_parquet_row_errors_name_the_file_and_row(tmp_path):
    import datasets

    d = tmp_path / "commonsense_qa"
    shutil.copytree(FIX, d)
    path = d / "data" / "validation-00000-of-00001.parquet"
    rows = datasets.Dataset.from_parquet(str(path)).to_list()
    rows[1]["answerKey"] = "F"
    datasets.Dataset.from_list(rows).to_parquet(str(path))
    with pytest.raises(DataError) as e:
        SRC.convert(d)
    assert (
        str(e.value)
        == f"[commonsense_qa] {path}:row 1: answerKey 'F' is not one of the row's choice labels A, B, C, D, E"
    )


def test_load_records_adds_the_option_fields():
    recs = load_records("commonsense_qa", data_root="embedded")
    doc = next(r for r in recs["valid"] if r["id"] == "835d70852f8ec41d35cdcd01f4e136b5")
    assert doc["label_names"] == doc["choices"] and doc["answer_text"] == "mailbox" and doc["answer_letter"] == "B"
    assert doc["label_aliases"]["B"] == doc["label_aliases"]["2"] == "mailbox" and doc["n_options"] == 5
    assert sorted(r["id"] for r in recs["fewshot"]) == sorted(r["id"] for r in recs["train"])


# ------------------------------------------------------------------------------------------------ the genuine sample
def test_genuine_sample_in_the_release_layout():
    sample = shared_sample("commonsense_qa")
    assert SRC.has_jsonl_layout(sample)
    splits, report = inspect_folder(SRC, sample)
    assert {k: len(v) for k, v in splits.items()} == {"train": 500, "valid": 300}
    # a declared partial copy: held to the verified full counts as upper bounds
    assert report.declared == D.SAMPLE_NOTE and report.layout == "source files"
    assert {c.key: (c.n, c.expected.n, c.expected.verified, c.status) for c in report.checks} == {
        "train": (500, 9741, True, "ok"),
        "valid": (300, 1221, True, "ok"),
    }
    assert splits["valid"][0] == {
        "id": "1afa02df02c908a558b4036e80242fac",
        "question": "A revolving door is convenient for two direction travel, but it also serves as a security "
        "measure at a what?",
        "choices": ["bank", "library", "department store", "mall", "new york"],
        "answer": 0,
    }
    letters = {s: Counter("ABCDE"[r["answer"]] for r in recs) for s, recs in splits.items()}
    assert letters["valid"] == Counter(A=57, B=55, C=59, D=58, E=71)
    assert letters["train"] == Counter(A=106, B=104, C=111, D=95, E=84)
    assert all(len(set(r["id"] for r in recs)) == len(recs) for recs in splits.values())


def test_genuine_quirks_are_kept():
    splits = SRC.convert(shared_sample("commonsense_qa"))
    dev = splits["valid"]
    # stems keep their inner double spaces (line 4 of the dev file)
    assert dev[3]["question"] == "Where are  you likely to find a hamburger?"
    # duplicate option texts: 7 rows of the dev sample, 11 of the train sample, kept as published
    repeated = {s: [i + 1 for i, r in enumerate(recs) if len(set(r["choices"])) < 5] for s, recs in splits.items()}
    assert repeated["valid"] == [23, 25, 47, 132, 178, 215, 248]
    assert len(repeated["train"]) == 11
    line23 = dev[22]  # the right option D repeats option A
    assert line23["choices"] == ["indestructible", "durable", "undestroyable", "indestructible", "unbreakable"]
    assert line23["answer"] == 3
    doc = SRC.finalize(line23)
    assert doc["answer_text"] == "indestructible" and doc["label_aliases"]["A"] == doc["label_aliases"]["D"]


def test_genuine_sample_through_the_data_layer():
    recs = load_records("commonsense_qa", data_root=str(shared_sample("commonsense_qa").parent))
    assert len(recs["valid"]) == 300 and len(recs["fewshot"]) == 256  # the [BAL] pool's first 256
    assert Counter(r["answer_letter"] for r in recs["fewshot"][:10]) == Counter({x: 2 for x in "ABCDE"})
    assert all(r["label_names"] == r["choices"] for r in recs["valid"])


def test_both_layouts_in_one_folder_are_refused(tmp_path):
    d = tmp_path / "commonsense_qa"
    shutil.copytree(FIX, d)
    for name in (DEV, TRAIN):
        shutil.copy(shared_sample("commonsense_qa") / name, d / name)
    with pytest.raises(DataError) as e:
        SRC.convert(d)
    assert str(e.value) == (
        f"[commonsense_qa] {d}: holds both the hub's parquet files (data/) and the release's "
        "['dev_rand_split.jsonl', 'train_rand_split.jsonl']; keep one layout"
    )


# ------------------------------------------------------------------------------------------------ bad input
@pytest.mark.parametrize(
    ("row", "problem"),
    [
        (_row(answerKey="F"), "answerKey 'F' is not one of the row's choice labels A, B, C, D, E"),
        (_row(answerKey="a"), "answerKey 'a' is not one of the row's choice labels A, B, C, D, E"),
        (_row(answerKey=""), "no answerKey (an unlabelled row; CommonsenseQA's test split has no answers)"),
        (_row(labels=list("BACDE")), "choice labels ['B', 'A', 'C', 'D', 'E'] are not A, B, C, D, E in that order"),
        (_row(labels=list("ABCDF")), "choice labels ['A', 'B', 'C', 'D', 'F'] are not A, B, C, D, E in that order"),
        (_row(labels=list("ABCD"), texts=["a", "b", "c", "d"]), f"question {'0' * 32}: 4 choices, expected 5"),
        (_row(texts=["bank", " ", "x", "y", "z"]), f"question {'0' * 32}: choice B is empty"),
        (_row(id=7), "id 7 is not a non-empty string"),
        ({"id": "x", "answerKey": "A"}, "row lacks columns ['question'] (has ['answerKey', 'id'])"),
        (_row(question="Where?"), "'question' is not an object with a 'choices' list (not the release's layout)"),
        ([1, 2], "a line is a JSON list, not an object"),
    ],
)
def test_bad_row_is_one_line_naming_dataset_file_and_line(tmp_path, row, problem):
    d = _folder(tmp_path, [json.dumps(_row()) + "\n", json.dumps(row) + "\n"])
    with pytest.raises(DataError) as e:
        SRC.convert(d)
    assert str(e.value) == f"[commonsense_qa] {d / DEV}:2: {problem}"


def test_unreadable_lines_and_empty_files(tmp_path):
    d = _folder(tmp_path, [json.dumps(_row()) + "\n", '{"id": "x",\n'])
    with pytest.raises(DataError, match=rf"^\[commonsense_qa\] {re.escape(str(d / DEV))}:2: invalid JSON line"):
        SRC.convert(d)
    (d / DEV).write_bytes(b'{"id": "\xff"}\n')
    with pytest.raises(DataError, match=rf"^\[commonsense_qa\] {re.escape(str(d / DEV))}:1: not UTF-8 text"):
        SRC.convert(d)
    (d / DEV).write_text("\n", encoding="utf-8")
    with pytest.raises(DataError, match=rf"^\[commonsense_qa\] {re.escape(str(d / DEV))}: the file holds no rows$"):
        SRC.convert(d)


def test_a_folder_with_only_the_dev_file_is_no_source_layout(tmp_path):
    d = tmp_path / "commonsense_qa"
    d.mkdir()
    shutil.copy(shared_sample("commonsense_qa") / DEV, d / DEV)
    assert not SRC.has_source_layout(d)
    with pytest.raises(DataError, match=r"^\[commonsense_qa\] .*commonsense_qa: no data files: expected the source"):
        inspect_folder(SRC, d)


def test_prepare_from_the_genuine_sample(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv(D.ENV_DATA, "")
    sample = shared_sample("commonsense_qa")
    argv = ["prepare", "--dataset", "commonsense_qa", "--from", str(sample), "--data_root", str(tmp_path)]
    assert cli.main(argv) == 0
    assert "commonsense_qa: imported" in capsys.readouterr().out
    imported = json.loads((tmp_path / "commonsense_qa" / D.IMPORT_RECORD).read_text())
    assert imported["rows"] == {"train": 500, "valid": 300} and imported["layout"] == "source files"
    assert len(load_records("commonsense_qa", data_root=str(tmp_path))["valid"]) == 300
    # a bad file is refused naming the user's own file, and nothing is left behind
    bad = tmp_path / "bad"
    bad.mkdir()
    shutil.copy(sample / TRAIN, bad / TRAIN)
    (bad / DEV).write_text(json.dumps(_row(answerKey="Z")) + "\n", encoding="utf-8")
    with pytest.raises(DataError) as e:
        D.import_from(SRC, bad, data_root=tmp_path / "other")
    assert str(e.value).startswith(f"[commonsense_qa] {bad / DEV}:1: answerKey 'Z'")
    assert not (tmp_path / "other" / "commonsense_qa").exists()


def test_presplit_rows_in_either_schema(tmp_path):
    d = tmp_path / "commonsense_qa"
    d.mkdir()
    hub_row = {
        "id": "2" * 32,
        "question": "Where do fish live?",
        "question_concept": "fish",
        "choices": {"label": list("ABCDE"), "text": ["sea", "tree", "sky", "desk", "oven"]},
        "answerKey": "A",
    }
    (d / "train.jsonl").write_text(json.dumps(_row(id="1" * 32)) + "\n", encoding="utf-8")
    (d / "valid.jsonl").write_text(json.dumps(hub_row) + "\n" + json.dumps({**hub_row, "answerKey": "G"}) + "\n")
    with pytest.raises(DataError) as e:
        inspect_folder(SRC, d)
    assert (
        str(e.value)
        == f"[commonsense_qa] {d}/valid.jsonl:2: answerKey 'G' is not one of the row's choice labels A, B, C, D, E"
    )
    (d / "valid.jsonl").write_text(json.dumps(hub_row) + "\n")
    splits, report = inspect_folder(SRC, d)
    assert report.layout == "pre-split"
    assert splits["valid"] == [
        {"id": "2" * 32, "question": "Where do fish live?", "choices": hub_row["choices"]["text"], "answer": 0}
    ]
    assert splits["train"][0]["choices"][0] == "bank"


# ------------------------------------------------------------------------------------------------ templates
def test_eight_templates_of_our_own_in_flan_style():
    assert len(PATTERNS) == len(IMITATES) == len(TASKS.templates) == 8
    block = flan.choices_block("choices", "en")
    for k, (pattern, tpl) in enumerate(zip(PATTERNS, TASKS.templates), 1):
        assert re.findall(r"\{(\w+)\}", pattern) in (["question", "options_"], ["options_", "question"]), k
        assert tpl.id == f"t{k}" and tpl.doc_to_text == flan.jinja(pattern, block)
        assert tpl.regex == " ?({LABELS})" and tpl.note.startswith("ours, in the style of FLAN ")
        assert IMITATES[k - 1][0] in ("arc", "cosmos_qa", "openbookqa")
    # options first in t4 and t5 (cosmos_qa's shape), after the question elsewhere
    assert [t.id for t in TASKS.templates if t.doc_to_text.startswith("OPTIONS:")] == ["t4", "t5"]
    assert (TASKS.suite, TASKS.language, TASKS.pair, TASKS.family, TASKS.primary_metric) == (
        "nlu",
        "en",
        "jcommonsenseqa",
        "choice_text",
        "accuracy",
    )
    assert (TASKS.num_fewshot, TASKS.test_split, TASKS.doc_to_target, TASKS.target_delimiter, TASKS.lead_ins) == (
        0,
        "valid",
        "{{answer_text}}",
        "\n",
        ("Answer",),
    )


def test_t1_prompt_of_the_first_genuine_record():
    first = SRC.convert(shared_sample("commonsense_qa"))["valid"][0]
    assert apply_template(TASKS.templates[0].doc_to_text, first) == (
        "A revolving door is convenient for two direction travel, but it also serves as a security measure at a "
        "what?\n\nOPTIONS:\n- bank\n- library\n- department store\n- mall\n- new york"
    )


# ------------------------------------------------------------------------------------------------ reading answers
# the first genuine dev record's options: A bank (right), B library, C department store, D mall, E new york
DOC = SRC.finalize(
    {"id": "q", "question": "…", "choices": ["bank", "library", "department store", "mall", "new york"], "answer": 0}
)
NATURAL = [
    ("bank", "bank"),
    (" bank", "bank"),
    ("Bank.", "bank"),
    ("Answer: bank.", "bank"),
    ("The answer is bank.", "bank"),
    ("**library**", "library"),
    ('"library"', "library"),
    ("(B)", "library"),
    ("B", "library"),
    ("B) library", "library"),
    ("2", "library"),
    ("Answer: E", "new york"),
    ("New York", "new york"),
    ("department store, because shops use them", "department store"),
    ("mall\nbank", "mall"),  # cut at the stop sequence first
    # no option: a format failure, never another option
    ("post office", INVALID),
    ("banks", INVALID),
    ("the library", INVALID),
    ("Option B", INVALID),
    ("I don't know", INVALID),
    (GARBAGE, INVALID),
    ("", INVALID),
]


@pytest.mark.parametrize("tpl", TASKS.templates, ids=lambda t: t.id)
def test_natural_answers_read_the_same_under_every_template(tpl):
    filt = answer_filter(TASKS, tpl)
    assert [(text, str(filt.read(text, DOC))) for text, _ in NATURAL] == NATURAL
    # the format each template asks for: an option's text exactly (letters and numbers are read, not asked for)
    assert [filt.read(t, DOC).adherent for t in ("bank", " department store", "Bank", "B", "2", "Answer: bank")] == [
        True,
        True,
        False,
        False,
        False,
        False,
    ]


def test_repeated_option_texts_read_as_the_shared_text():
    doc = SRC.finalize(
        {"id": "q", "question": "…", "choices": ["mortal", "dying", "death", "dead", "mortal"], "answer": 4}
    )
    filt = answer_filter(TASKS, TASKS.templates[0])
    assert [str(filt.read(t, doc)) for t in ("mortal", "A", "E", "5", "D")] == ["mortal"] * 4 + ["dead"]
    assert doc["answer_text"] == "mortal"


def test_an_article_is_not_option_a():
    """A one-letter option alias is read in its own case: "a library" is the option text after an article, never
    option A; "A" and "A) ..." still name option A."""
    filt = answer_filter(TASKS, TASKS.templates[0])
    assert str(filt.read("a library", DOC)) == INVALID
    assert str(filt.read("A", DOC)) == DOC["label_names"][0]


# an option that is also a lead-in ([PARSE]): the field followed by ':' and a further answer (text that reads as an
# option) is a lead-in; otherwise the field is the option word (alone, with nothing or no option after its colon)
ANSWER_IS_AN_OPTION = [
    ("Answer: initiate", "initiate"),
    ("Answer: **initiate**", "initiate"),
    ("**Answer:** initiate", "initiate"),
    ("Answer: A", "initiate"),
    ("Answer: Answer: initiate", "initiate"),
    ("Answer: ignore", "ignore"),
    ("Answer: answer", "answer"),
    ("Answer: D", "answer"),
    ("answer", "answer"),
    ("Answer", "answer"),
    ("answer.", "answer"),
    ("Answer:", "answer"),
    ("The answer is answer.", "answer"),
    ("The answer is initiate.", "initiate"),
    ("Answer: because it replies", "answer"),  # no further answer after the colon: the option word, as before
    ("answers", INVALID),
]


def test_an_answer_lead_in_is_dropped_when_answer_is_an_option():
    """Genuine dev line 159: options initiate / ignore / question / answer / ask, the right one initiate."""
    rec = SRC.convert(shared_sample("commonsense_qa"))["valid"][158]
    assert rec["id"] == "26ce83b8e9a263079aa8cdbd5258d667" and rec["choices"][3] == "answer"
    doc = SRC.finalize(rec)
    for tpl in TASKS.templates:
        filt = answer_filter(TASKS, tpl)
        assert [(text, str(filt.read(text, doc))) for text, _ in ANSWER_IS_AN_OPTION] == ANSWER_IS_AN_OPTION, tpl.id
        assert filt.read("answer", doc).adherent and not filt.read("Answer: initiate", doc).adherent, tpl.id
