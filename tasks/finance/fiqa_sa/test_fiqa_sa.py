"""fiqa_sa: score thresholds, loader on the repo's parquet layout (fixture), [BAL] shots, errors, end to end."""

import json
import shutil

import pytest
from lm_eval_enterprise.tasks.finance.fiqa_sa.source import score_label, to_record

from lm_eval_enterprise.data import DataError, fixture_dir, get_source, load_records
from lm_eval_enterprise.scoring import metrics as M
from testkit.testing import assert_unit_scores

SRC = get_source("fiqa_sa")
FIX = fixture_dir("fiqa_sa")
TEST = "data/test-00000-of-00001-0fb9f3a47c7d0fce.parquet"


@pytest.mark.parametrize(
    "score,label",
    [
        (-1.0, "negative"),
        (-0.101, "negative"),
        (-0.1, "neutral"),
        (-0.0999, "neutral"),
        (0.0, "neutral"),
        (0.099, "neutral"),
        (0.0999999, "neutral"),
        (0.1, "positive"),
        (0.62, "positive"),
        (1.0, "positive"),
    ],
)
def test_score_thresholds_of_the_spec(score, label):
    # negative if score < -0.1; neutral if -0.1 <= score < 0.1; positive if score >= 0.1
    assert score_label(score) == label


def test_convert_fixture_repo_layout():
    splits = SRC.convert(FIX)
    assert {k: len(v) for k, v in splits.items()} == {"train": 9, "valid": 3, "test": 9}
    assert splits["test"][0] == {
        "id": "s301",
        "text": "AstraZeneca wins approval for new cancer drug in the United States",
        "target": "AstraZeneca",
        "label": "positive",
    }
    by_id = {r["id"]: r for r in splits["test"]}
    # the fixture's boundary rows: 0.1 -> positive, -0.1 -> neutral, 0.099 -> neutral, -0.101 -> negative
    assert [by_id[i]["label"] for i in ("s306", "s307", "s308", "s309")] == [
        "positive",
        "neutral",
        "neutral",
        "negative",
    ]
    assert by_id["s304"]["target"] == "TWTR"
    assert SRC.convert(FIX) == splits


def test_balanced_fewshot_covers_all_three_classes():
    recs = load_records("fiqa_sa", data_root="embedded")
    assert recs["test"][0]["label_names"] == ["positive", "neutral", "negative"]
    assert {r["label"] for r in recs["fewshot"][:3]} == {"positive", "neutral", "negative"}
    assert {r["id"] for r in recs["fewshot"]} == {r["id"] for r in recs["train"]}
    assert all("target" in r for r in recs["fewshot"])  # the prompt needs the entity in shots too


def test_missing_score_column_and_bad_score_name_the_file(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    d = tmp_path / "fiqa_sa"
    shutil.copytree(FIX, d)
    pq.write_table(pa.table({"_id": ["1"], "sentence": ["s"], "target": ["T"]}), d / TEST)
    with pytest.raises(
        DataError,
        match=r"^\[fiqa_sa\] .*test-00000-of-00001-0fb9f3a47c7d0fce.parquet: missing "
        r"columns \['score'\]",
    ):
        SRC.convert(d)
    pq.write_table(pa.table({"_id": ["1"], "sentence": ["s"], "target": ["T"], "score": [float("nan")]}), d / TEST)
    with pytest.raises(DataError, match=r"0fb9f3a47c7d0fce.parquet:row 0: bad row \(ValueError: score is NaN\)"):
        SRC.convert(d)
    with pytest.raises(DataError, match=r"empty 'target'"):
        to_record({"_id": 3, "sentence": "s", "target": " ", "score": 0.5}, "w")


def test_presplit_jsonl_rows_use_the_same_row_code(tmp_path):
    d = tmp_path / "fiqa_sa"
    d.mkdir()
    row = {
        "_id": 17,
        "sentence": "HSBC shares slide",
        "target": "HSBC",
        "aspect": "Stock",
        "score": -0.3,
        "type": "headline",
    }
    pool_row = {**row, "_id": 18, "sentence": "HSBC shares rise"}  # a pool repeat of the eval row would be removed
    for split, r in (("train", pool_row), ("test", row)):
        (d / f"{split}.jsonl").write_text(json.dumps(r) + "\n")
    recs = load_records("fiqa_sa", data_root=str(tmp_path))
    assert recs["test"] == [
        {
            "id": "17",
            "text": "HSBC shares slide",
            "target": "HSBC",
            "label": "negative",
            "label_names": ["positive", "neutral", "negative"],
        }
    ]


def test_three_class_weighted_f1_hand_worked():
    # golds [pos, neu, neg, neg], preds [pos, neg, neg, "[invalid]"]
    #   positive: TP=1 FP=0 FN=0 -> F1 = 1,   support 1
    #   neutral:  TP=0 FP=0 FN=1 -> F1 = 0,   support 1
    #   negative: TP=1 FP=1 FN=1 -> F1 = 1/2, support 2
    #   weighted F1 = (1*1 + 1*0 + 2*0.5) / 4 = 0.5
    golds = ["positive", "neutral", "negative", "negative"]
    preds = ["positive", "negative", "negative", M.INVALID]
    assert M.weighted_f1(golds, preds, ["positive", "neutral", "negative"]) == pytest.approx(0.5)


def test_end_to_end_fixture_tiny_model(tiny_eval):
    tasks = ["ent_fiqa_sa__t1", "ent_fiqa_sa__t2"]
    res = tiny_eval(tasks)
    assert_unit_scores(res, tasks, ("weighted_f1,answer", "accuracy,answer", "format_failure,answer"))
    prompt = res["samples"]["ent_fiqa_sa__t1"][0]["arguments"][0][0]
    assert prompt.startswith("Answer with one of: positive, neutral, negative.\n\n")
    first = load_records("fiqa_sa", data_root="embedded")["test"][0]  # the first document of the fair order
    assert prompt.endswith(f"{first['text']}\nQuestion: what is the sentiment on {first['target']}?\nAnswer:")
    assert prompt.count("\nQuestion: what is the sentiment on ") == 6  # 5 [BAL] shots + the eval item
