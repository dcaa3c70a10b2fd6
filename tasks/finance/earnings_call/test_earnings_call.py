"""earnings_call: loader on the hub-parquet layout (fixture), label/date parsing, row checks, download through a
fake hub, [BAL] shots, the [WF1] metric (hand-worked values and the constant-majority anchor), end to end."""

import datetime as dt
import json
import shutil

import pytest
from lm_eval_enterprise.tasks.finance.earnings_call.source import iso_date, label_name, to_record

from lm_eval_enterprise.data import DataError, fixture_dir, get_source, load_records
from lm_eval_enterprise.data.fewshot import helm_balanced
from lm_eval_enterprise.scoring import hooks
from lm_eval_enterprise.scoring import metrics as M
from testkit.testing import assert_unit_scores

SRC = get_source("earnings_call")
FIX = fixture_dir("earnings_call")
TRAIN = "transcript-sentiment/train/0000.parquet"
TEST = "transcript-sentiment/test/0000.parquet"


def _write(path, rows, label_feature="string"):
    """A parquet file in the converted layout, written by `datasets` like the hub's converter."""
    import datasets

    label = datasets.ClassLabel(names=label_feature) if isinstance(label_feature, list) else datasets.Value("string")
    feats = datasets.Features(
        {
            "text": datasets.Value("string"),
            "label": label,
            "company": datasets.Value("string"),
            "date": datasets.Value("date64"),
            "para_no": datasets.Value("int32"),
        }
    )
    cols = {k: [r[k] for r in rows] for k in feats}
    path.parent.mkdir(parents=True, exist_ok=True)
    datasets.Dataset.from_dict(cols, features=feats).to_parquet(str(path))


def _row(label, para_no=1, company="ACME", date=dt.date(2019, 1, 30)):
    return {"text": " ".join(["word"] * 31), "label": label, "company": company, "date": date, "para_no": para_no}


# ------------------------------------------------------------------------------------------------ loader
def test_convert_fixture_converted_parquet_layout():
    splits = SRC.convert(FIX)
    assert {k: len(v) for k, v in splits.items()} == {"train": 8, "test": 9}
    first = splits["test"][0]
    assert first == {"id": "NVDA_2018-11-15_2", "label": "negative", "text": first["text"]}
    assert first["text"].startswith("Third quarter revenue was below our outlook")
    assert [r["id"] for r in splits["train"][:2]] == ["AAPL_2017-05-02_3", "AAPL_2017-05-02_6"]
    # the label is transcript-level: every paragraph of one call has the same label
    by_call = {}
    for r in splits["train"] + splits["test"]:
        by_call.setdefault(r["id"].rsplit("_", 1)[0], set()).add(r["label"])
    assert all(len(v) == 1 for v in by_call.values())
    assert SRC.convert(FIX) == splits  # official split: conversion is deterministic, nothing is re-split


def test_load_records_and_balanced_fewshot_has_both_classes():
    recs = load_records("earnings_call", data_root="embedded")
    assert recs["test"][0]["label_names"] == ["positive", "negative"]
    shots = recs["fewshot"][:5]
    assert {r["label"] for r in shots} == {"positive", "negative"}
    assert [r["id"] for r in shots] == [r["id"] for r in helm_balanced(recs["train"], lambda r: r["label"], 5)]
    assert not {r["id"] for r in recs["fewshot"]} & {r["id"] for r in recs["test"]}  # shots come from train


@pytest.mark.parametrize(
    "value,expected", [("positive", "positive"), (" Negative ", "negative"), (0, "negative"), (1, "positive")]
)
def test_label_string_or_class_label_int(value, expected):
    assert label_name(value, "f") == expected


def test_label_errors_name_the_row():
    for bad in ("neutral", 2, True, None):
        with pytest.raises(DataError, match=r"^\[earnings_call\] f.parquet:row 3: label"):
            label_name(bad, "f.parquet:row 3")


def test_dates_become_iso_days():
    assert iso_date(dt.date(2016, 1, 26), "w") == "2016-01-26"
    assert iso_date(dt.datetime(2016, 1, 26), "w") == "2016-01-26"
    assert iso_date("2016-01-26 00:00:00", "w") == "2016-01-26"
    with pytest.raises(DataError, match="has a time of day"):
        iso_date(dt.datetime(2016, 1, 26, 15, 30), "w")
    with pytest.raises(DataError, match="not a calendar date"):
        iso_date("26/01/2016", "w")
    assert to_record(_row("positive", 7, "MSFT", dt.date(2018, 1, 31)), "w")["id"] == "MSFT_2018-01-31_7"


def test_class_label_parquet_uses_its_metadata_names(tmp_path):
    d = tmp_path / "earnings_call"
    _write(d / TRAIN, [_row(0, 1), _row(1, 2)], label_feature=["negative", "positive"])
    _write(d / TEST, [_row(1, 3)], label_feature=["positive", "negative"])  # names order honoured, not assumed
    splits = SRC.convert(d)
    assert [r["label"] for r in splits["train"]] == ["negative", "positive"]
    assert [r["label"] for r in splits["test"]] == ["negative"]


def test_several_shards_are_read_in_shard_order(tmp_path):
    d = tmp_path / "earnings_call"
    shutil.copytree(FIX, d)
    _write(d / "transcript-sentiment/test/0001.parquet", [_row("positive", 99, "ZZZZ")])
    test = SRC.convert(d)["test"]
    assert len(test) == 10 and test[-1]["id"] == "ZZZZ_2019-01-30_99"


def test_missing_column_and_bad_label_name_the_file(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    d = tmp_path / "earnings_call"
    shutil.copytree(FIX, d)
    pq.write_table(pa.table({"text": ["x"], "label": ["positive"]}), d / TEST)
    with pytest.raises(
        DataError,
        match=r"^\[earnings_call\] .*test/0000.parquet: missing columns "
        r"\['company', 'date', 'para_no'\]",
    ):
        SRC.convert(d)
    _write(d / TEST, [_row("positive"), _row("bullish", 2)])
    with pytest.raises(DataError, match=r"test/0000.parquet:row 1: label 'bullish' is not one of"):
        SRC.convert(d)


def test_presplit_jsonl_rows_use_the_same_row_code(tmp_path):
    d = tmp_path / "earnings_call"
    d.mkdir()
    rows = [dict(_row("positive", 4), date="2019-01-30"), dict(_row(0, 5), date="2019-01-30")]
    (d / "train.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (d / "test.jsonl").write_text(json.dumps({**rows[0], "para_no": 6, "text": "other " * 31}) + "\n")
    recs = load_records("earnings_call", data_root=str(tmp_path))
    assert [(r["id"], r["label"]) for r in recs["train"]] == [
        ("ACME_2019-01-30_4", "positive"),
        ("ACME_2019-01-30_5", "negative"),
    ]


# ------------------------------------------------------------------------------------------------ metric [WF1]
def test_weighted_f1_hand_worked_example():
    # golds [pos, pos, neg, neg], preds [pos, neg, neg, "[invalid]"] (the invalid row is all-zero: a FN for neg)
    #   positive: TP=1 (item 1), FP=0, FN=1 (item 2)          -> F1 = 2*1/(2*1+0+1) = 2/3, support 2
    #   negative: TP=1 (item 3), FP=1 (item 2), FN=1 (item 4) -> F1 = 2*1/(2*1+1+1) = 1/2, support 2
    #   weighted F1 = (2*(2/3) + 2*(1/2)) / 4 = 7/12 = 0.583333
    # (not 0.6667: that would need F1_neg = 2/3, but item 2 is a false positive for "negative")
    golds = ["positive", "positive", "negative", "negative"]
    preds = ["positive", "negative", "negative", M.INVALID]
    assert M.weighted_f1(golds, preds, ["positive", "negative"]) == pytest.approx(7 / 12)
    items = [{"gold": g, "pred": p, "labels": ["positive", "negative"]} for g, p in zip(golds, preds)]
    assert hooks.agg_weighted_f1(items) == pytest.approx(0.583333, abs=1e-6)
    assert sum(M.exact_match(g, p) for g, p in zip(golds, preds)) / 4 == 0.5


def test_constant_majority_prediction_anchor():
    # docs/metrics.md#wf1: a constant majority-class predictor with majority share p scores p * 2p / (1 + p):
    #   majority class: P = p, R = 1 -> F1 = 2p/(1+p), weight p; minority class: F1 = 0.
    #   568 / 432 -> 0.568 * 1.136 / 1.568 = 0.411510 (the paper's 0.411 for 7 of 13 models)
    golds = ["negative"] * 568 + ["positive"] * 432
    preds = ["negative"] * 1000
    p = 0.568
    wf1 = M.weighted_f1(golds, preds, ["positive", "negative"])
    assert wf1 == pytest.approx(p * 2 * p / (1 + p))
    assert round(wf1, 6) == 0.411510


# ------------------------------------------------------------------------------------------------ end to end
def test_end_to_end_fixture_tiny_model(tiny_eval):
    tasks = ["ent_earnings_call__t1", "ent_earnings_call__t4"]
    res = tiny_eval(tasks)
    assert_unit_scores(res, tasks, ("weighted_f1,answer", "accuracy,answer", "format_failure,answer"))
    for t in tasks:
        prompt = res["samples"][t][0]["arguments"][0][0]
        assert prompt.count("Passage:" if t.endswith("t1") else "Input:") == 6  # 5 [BAL] shots + the eval item
    assert res["configs"][tasks[0]]["metadata"]["template_id"] == "t1"
    assert res["configs"][tasks[0]]["generation_kwargs"]["max_gen_toks"] == 5
