"""legal_sentiment: HELM's xlsx layout, the authors' label mapping + Sentiment check (fixture), errors, [BAL] shots,
templates, end to end.

No real sample exists (docs/data.md#real-samples): the loader is tested on the fixture (two .xlsx files
with the real column names, written by make_fixture.py) and on files built in tmp_path.
"""

import json
from operator import itemgetter
from pathlib import Path

import pytest
from lm_eval_enterprise.tasks.legal.legal_sentiment import source as S
from lm_eval_enterprise.tasks.legal.legal_sentiment.templates import TASKS, TEMPLATES
from openpyxl import Workbook, load_workbook

from conftest import fixture_run
from lm_eval_enterprise.data import DataError, fixture_dir, get_source, load_records
from lm_eval_enterprise.data.fewshot import helm_balanced
from lm_eval_enterprise.prompting.templating import answer_filter
from testkit.testing import GARBAGE, WEIGHTED_F1_SCORES, assert_first_prompt

SRC = get_source("legal_sentiment")
FIX = fixture_dir("legal_sentiment")


def _xlsx(path: Path, header, rows) -> Path:
    wb = Workbook()
    ws = wb.active
    ws.append(list(header))
    for r in rows:
        ws.append(list(r))
    wb.save(path)
    return path


def _raw(path: Path) -> list[tuple]:
    ws = load_workbook(path).active
    return [tuple(c.value for c in row) for row in ws.iter_rows()]


# ----------------------------------------------------------------------------------------------- mapping
@pytest.mark.parametrize(
    "value,label",
    [(0, "negative"), (1, "neutral"), (2, "positive"), (2.0, "positive"), ("1", "neutral"), (" 0 ", "negative")],
)
def test_label_index_mapping_is_the_authors(value, label):
    # 0->negative, 1->neutral, 2->positive (NOT HELM's ["positive", "negative", "neutral"][int(label)])
    assert S.label_name(value) == label


@pytest.mark.parametrize("value", [3, -1, 1.5, "x", None, True, float("nan")])
def test_bad_label_values_raise(value):
    with pytest.raises(ValueError):
        S.label_name(value)


def test_metric_label_list_differs_from_index_order():
    assert S.INDEX_TO_LABEL == ("negative", "neutral", "positive")
    assert SRC.labels == ("positive", "neutral", "negative")  # [WF1] labels of the spec


@pytest.mark.parametrize("label,sentiment", [(0, -1), (1, 0), (2, 1), (2.0, "1"), ("0", -1.0)])
def test_sentiment_column_agrees(label, sentiment):
    S.check_sentiment(label, sentiment)  # Label == Sentiment + 1


@pytest.mark.parametrize("label,sentiment", [(0, 1), (2, -1), (1, 1), (0, 0), (1, None), (1, "neutral"), (1, 0.5)])
def test_sentiment_column_disagrees(label, sentiment):
    with pytest.raises(ValueError, match="!= Sentiment"):
        S.check_sentiment(label, sentiment)


def test_sentiment_mismatch_is_one_line_error_naming_file_and_row(tmp_path):
    # HELM's reading of the same sheet would be Label 0 = positive: a sheet with Sentiment 1 on Label 0 is refused
    _write_pair(
        tmp_path,
        [("good", 2, 1), ("bad", 0, -1), ("odd", 0, 1)],
        [("t", 1)],
        train_header=("Phrase", "Label", "Sentiment"),
    )
    with pytest.raises(DataError) as e:
        SRC.convert(tmp_path)
    msg = str(e.value)
    assert msg == (
        f"[legal_sentiment] {tmp_path / 'train.xlsx'}: row 2: Label 0 != Sentiment 1 + 1 (expected Label "
        "0/1/2 = Sentiment -1/0/1 = negative/neutral/positive)"
    )
    _write_pair(
        tmp_path, [("good", 2, 1), ("no sentiment", 1, None)], [("t", 1)], train_header=("Phrase", "Label", "Sentiment")
    )
    with pytest.raises(DataError, match=r"train\.xlsx: row 1: Label 1 != Sentiment \(empty\) \+ 1"):
        SRC.convert(tmp_path)
    # the column is checked wherever it exists (also in a test sheet that carried one)
    _write_pair(
        tmp_path,
        [("good", 2, 1)],
        [("t", 1, 1)],
        train_header=("Phrase", "Label", "Sentiment"),
        test_header=("sentence", "label", "Sentiment"),
    )
    with pytest.raises(DataError, match=r"test\.xlsx: row 0: Label 1 != Sentiment 1 \+ 1"):
        SRC.convert(tmp_path)


# ----------------------------------------------------------------------------------------------- fixture
def test_fixture_has_the_real_column_names():
    assert _raw(FIX / "train.xlsx")[0] == ("Phrase", "Label", "Sentiment")  # as the genuine train sheet
    assert _raw(FIX / "test.xlsx")[0] == ("sentence", "label")
    assert all(lab == senti + 1 for _, lab, senti in _raw(FIX / "train.xlsx")[1:])


def test_convert_fixture():
    splits = SRC.convert(FIX)
    assert {k: len(v) for k, v in splits.items()} == {"train": 12, "test": 12}
    for split, name in (("train", "train.xlsx"), ("test", "test.xlsx")):
        raw = _raw(FIX / name)[1:]
        assert [r["id"] for r in splits[split]] == [str(i) for i in range(len(raw))]
        assert [r["text"] for r in splits[split]] == [row[0] for row in raw]
        assert [r["label"] for r in splits[split]] == [["negative", "neutral", "positive"][row[1]] for row in raw]
    assert splits["test"][1] == {
        "id": "1",
        "label": "negative",  # label 0
        "text": "The agency's decision was arbitrary and ignored the evidence before it.",
    }
    assert splits["train"][0] == {
        "id": "0",
        "label": "positive",  # Label 2, Sentiment 1
        "text": "The trial court carefully weighed the evidence and its findings are well supported by the record.",
    }
    assert SRC.convert(FIX) == splits


def test_load_records_adds_label_names_and_balanced_fewshot():
    recs = load_records("legal_sentiment", data_root="embedded")
    assert recs["test"][0]["label_names"] == ["positive", "neutral", "negative"]
    expected = helm_balanced(recs["train"], lambda r: r["label"], len(recs["train"]))
    assert [r["id"] for r in recs["fewshot"]] == [r["id"] for r in expected]
    assert {r["label"] for r in recs["fewshot"][:5]} == {"positive", "neutral", "negative"}
    again = load_records("legal_sentiment", data_root="embedded")
    assert [r["id"] for r in again["fewshot"]] == [r["id"] for r in recs["fewshot"]]
    assert SRC.task_metadata(recs) == {"source_rows": {"train": 12, "test": 12}}


def test_source_urls_are_helms():
    assert [(f.name, f.url) for f in SRC.files] == [
        ("train.xlsx", "https://osf.io/download/hfn62/"),
        ("test.xlsx", "https://osf.io/download/q4adh/"),
    ]


# ----------------------------------------------------------------------------------------------- errors
def _write_pair(d: Path, train_rows, test_rows, train_header=("Phrase", "Label"), test_header=("sentence", "label")):
    d.mkdir(parents=True, exist_ok=True)
    _xlsx(d / "train.xlsx", train_header, train_rows)
    _xlsx(d / "test.xlsx", test_header, test_rows)


def test_blank_rows_dropped_numeric_text_kept(tmp_path):
    _write_pair(tmp_path, [("a", 0), (None, None), ("b", 2.0)], [(12345, 1), ("c", "2")])
    splits = SRC.convert(tmp_path)
    assert splits["train"] == [
        {"id": "0", "text": "a", "label": "negative"},
        {"id": "2", "text": "b", "label": "positive"},
    ]
    assert splits["test"] == [
        {"id": "0", "text": "12345", "label": "neutral"},
        {"id": "1", "text": "c", "label": "positive"},
    ]
    _write_pair(
        tmp_path,
        [("a", 0, -1), (None, None, None), ("b", 2.0, 1.0)],
        [("c", "2")],
        train_header=("Phrase", "Label", "Sentiment"),
    )  # padding rows of a sheet with Sentiment
    assert [r["label"] for r in SRC.convert(tmp_path)["train"]] == ["negative", "positive"]


def test_errors_name_dataset_and_file(tmp_path):
    _write_pair(tmp_path, [("a", 0)], [("b", 3)])
    with pytest.raises(DataError, match=r"^\[legal_sentiment\] .*test\.xlsx: row 0: label index 3 outside 0\.\.2$"):
        SRC.convert(tmp_path)
    _write_pair(tmp_path, [("a", 0), (None, 1)], [("b", 1)])
    with pytest.raises(DataError, match=r"train\.xlsx: row 1: empty text"):
        SRC.convert(tmp_path)
    # HELM's test columns in the train file: wrong layout
    _write_pair(tmp_path, [("a", 0)], [("b", 1)], train_header=("sentence", "label"))
    with pytest.raises(DataError, match=r"train\.xlsx: missing columns \['Phrase', 'Label'\]"):
        SRC.convert(tmp_path)
    (tmp_path / "test.xlsx").write_text("sentence,label\nb,1\n")  # a CSV saved under the xlsx name
    _xlsx(tmp_path / "train.xlsx", ("Phrase", "Label"), [("a", 0)])
    with pytest.raises(DataError, match=r"test\.xlsx: not a readable xlsx file"):
        SRC.convert(tmp_path)
    _write_pair(tmp_path, [("a", 0)], [])
    with pytest.raises(DataError, match=r"test\.xlsx: no rows"):
        SRC.convert(tmp_path)


def test_wrong_row_count_is_one_line_error(tmp_path):
    d = tmp_path / "legal_sentiment"
    _write_pair(d, [("a", 0), ("b", 1)], [("c", 2)])
    (d / "MANIFEST.json").write_text(json.dumps({"expected_rows": {"train": 2, "test": 2}, "tolerance": 0}))
    with pytest.raises(DataError) as e:
        load_records("legal_sentiment", data_root=str(tmp_path))
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith("[legal_sentiment]") and str(d) in msg
    assert "split 'test' has 1 rows after conversion, expected 2" in msg


def test_no_presplit_layout(tmp_path):
    d = tmp_path / "legal_sentiment"
    d.mkdir()
    (d / "test.jsonl").write_text('{"sentence": "x", "label": 0}\n')
    with pytest.raises(DataError, match="no pre-split layout"):
        load_records("legal_sentiment", data_root=str(tmp_path))


# ----------------------------------------------------------------------------------------------- templates
def test_templates_accept_gold_and_reject_garbage():
    assert len(TEMPLATES) >= 5 and TASKS.num_fewshot == 5 and TASKS.max_gen_toks == 5
    t1 = TEMPLATES[0]
    assert t1.description == (
        "Classify the sentences into one of the 3 sentiment categories. Possible labels: "
        "positive, neutral, negative.\n\n"
    )
    assert t1.doc_to_text == "{{text}}\nLabel:"
    doc = {"label_names": list(SRC.labels)}
    for t in TEMPLATES:  # one [PARSE] rule for all templates (tests/scoring/test_parse_table.py has the full table)
        flt = answer_filter(TASKS, t)
        for gold in doc["label_names"]:
            assert flt.read(" " + gold, doc) == gold
            assert flt.read(" " + gold.capitalize() + "\nSentence:", doc) == gold
        assert flt.read(GARBAGE, doc) == "[invalid]"
        assert flt.read(" positive and negative", doc) == "positive"  # the answer starts with a label
        assert flt.read(" positive tone", doc) == "positive" and flt.read(" Negative.", doc) == "negative"
    # format adherence: t4 asks for lower case, the others accept a capital first letter
    assert not answer_filter(TASKS, TEMPLATES[3]).read(" Positive", doc).adherent
    assert answer_filter(TASKS, TEMPLATES[1]).read(" Positive", doc).adherent


# ----------------------------------------------------------------------------------------------- end to end
def test_end_to_end_fixture_tiny_model(tiny_eval):
    tasks = ["ent_legal_sentiment__t1", "ent_legal_sentiment__t4"]
    res, recs = fixture_run(tiny_eval, "legal_sentiment", tasks, WEIGHTED_F1_SCORES, num_fewshot=5)
    assert_first_prompt(
        res, tasks, recs, TEMPLATES[0].description, 5, lambda r: f"{r['text']}\nLabel:", itemgetter("label")
    )
