"""wildfire_tweets (provisional): parquet layout, ClassLabel names, `none` dropped, [BAL] shots from all labelled
rows kept in selection order (``Source.fewshot_preordered``), eval = the rest, errors, end to end."""

import json
import shutil
from pathlib import Path

import pytest
from lm_eval_enterprise.tasks.climate.wildfire_tweets import source as S
from lm_eval_enterprise.tasks.climate.wildfire_tweets.templates import TASKS

from lm_eval_enterprise import TASK_DIR
from lm_eval_enterprise.data import (
    DataError,
    Source,
    fixture_dir,
    get_source,
    load_checked,
    load_records,
    read_parquet_rows,
)
from lm_eval_enterprise.data.fewshot import helm_balanced
from testkit.testing import assert_unit_scores

SRC = get_source("wildfire_tweets")
FIX = fixture_dir("wildfire_tweets")
TRAIN = "data/train-00000-of-00001.parquet"


def _labelled_fixture_rows() -> list[dict]:
    names = ["against", "favor", "none"]
    rows = read_parquet_rows([FIX / TRAIN], "t")
    return [
        {"id": str(i), "text": r["text"], "label": names[r["label"]]}
        for i, r in enumerate(rows)
        if names[r["label"]] != "none"
    ]


def test_fixture_file_has_the_hub_classlabel_metadata():
    from lm_eval_enterprise.data import hf_class_names

    assert hf_class_names(FIX / TRAIN, "label") == ["against", "favor", "none"]


def test_convert_fixture_drops_none_and_picks_five_balanced_shots():
    labelled = _labelled_fixture_rows()
    assert len(labelled) == 14  # 17 rows, 3 `none`
    splits = SRC.convert(FIX)
    shots = helm_balanced(labelled, lambda r: r["label"], 5)
    assert splits["train"] == shots
    assert [r["label"] for r in shots] == ["favor", "against", "favor", "against", "favor"]
    assert splits["test"] == [r for r in labelled if r not in shots]  # the rest, file order
    assert {r["id"] for r in splits["train"]}.isdisjoint({r["id"] for r in splits["test"]})
    assert all(r["label"] in ("favor", "against") for s in splits.values() for r in s)
    assert SRC.convert(FIX) == splits


def test_fewshot_split_keeps_the_selection_order():
    recs = load_records("wildfire_tweets", data_root="embedded")
    assert {k: len(v) for k, v in recs.items()} == {"train": 5, "test": 9, "fewshot": 5}
    assert [r["id"] for r in recs["fewshot"]] == [r["id"] for r in recs["train"]] == ["14", "10", "0", "8", "11"]
    # a re-balancing of the 5-row pool would give another order: preordered is what keeps [BAL]'s order
    assert [r["id"] for r in helm_balanced(recs["train"], lambda r: r["label"], 5)] != ["14", "10", "0", "8", "11"]
    assert recs["test"][0]["label_names"] == ["favor", "against"]


def test_fewshot_preordered_is_off_by_default():
    assert Source.fewshot_preordered is False and SRC.fewshot_preordered is True


def test_task_is_marked_provisional():
    assert TASKS.extra_metadata["provisional"] is True
    text = (Path(TASK_DIR) / "climate" / "wildfire_tweets" / "ent_wildfire_tweets__t1.yaml").read_text()
    assert "provisional: true" in text


@pytest.mark.parametrize("value,name", [(0, "against"), (1, "favor"), (2, "none"), ("favor", "favor")])
def test_label_names(value, name):
    assert S.label_name(value, S.CLASS_NAMES) == name


@pytest.mark.parametrize("value", [3, -1, True, "neutral", None])
def test_bad_labels_raise(value):
    with pytest.raises(ValueError):
        S.label_name(value, S.CLASS_NAMES)


def test_unverified_source_size_is_a_warning_manifest_count_an_error(tmp_path, caplog):
    d = tmp_path / "wildfire_tweets"
    shutil.copytree(FIX, d)
    (d / "MANIFEST.json").unlink()  # spec: ≈104 rows (unverified): loaded, with a warning in log and report
    recs, report = load_checked("wildfire_tweets", data_root=str(tmp_path))
    assert len(recs["test"]) == 9
    assert report.metadata()["row_counts"]["source_rows"]["status"] == "warning"
    assert any(
        "the train parquet file has 17 rows, expected 104 (unverified count:" in r.getMessage()
        for r in caplog.records
        if r.levelname == "WARNING"
    )
    (d / "MANIFEST.json").write_text(
        json.dumps({"expected_rows": {"train": 5, "test": 9}, "expected_source_rows": 18})
    )  # a manifest pins it exactly
    with pytest.raises(DataError) as e:
        load_records("wildfire_tweets", data_root=str(tmp_path))
    msg = str(e.value)
    assert msg.startswith(f"[wildfire_tweets] {d}:") and "\n" not in msg
    assert "the train parquet file has 17 rows, expected 18 (MANIFEST.json)" in msg


def test_bad_files_name_the_file(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    d = tmp_path / "wildfire_tweets"
    shutil.copytree(FIX, d)
    pq.write_table(pa.table({"text": ["a fire"]}), d / TRAIN)
    with pytest.raises(DataError, match=r"train-00000-of-00001\.parquet: missing columns \['label'\]"):
        SRC.convert(d)
    pq.write_table(pa.table({"text": ["a fire", "b"], "label": [1, 7]}), d / TRAIN)
    with pytest.raises(DataError, match=r"train-00000-of-00001\.parquet: bad row 1 \(ValueError: label 7"):
        SRC.convert(d)
    pq.write_table(pa.table({"text": [" "], "label": [1]}), d / TRAIN)
    with pytest.raises(DataError, match=r"row 0: empty 'text'"):
        SRC.convert(d)


def test_presplit_rows_use_the_same_row_code(tmp_path):
    d = tmp_path / "wildfire_tweets"
    d.mkdir()
    (d / "train.jsonl").write_text(json.dumps({"id": 4, "text": "hot dry climate fires", "label": 1}))
    (d / "test.jsonl").write_text(
        "\n".join(
            json.dumps(r)
            for r in [{"text": "arson, not climate", "label": "against"}, {"text": "road closed", "label": 2}]
        )
    )
    recs = load_records("wildfire_tweets", data_root=str(tmp_path))
    assert recs["train"][0]["id"] == "4" and recs["train"][0]["label"] == "favor"
    assert [(r["id"], r["label"]) for r in recs["test"]] == [("0", "against")]  # `none` dropped


def test_hub_source_is_pinned():
    assert (SRC.hf_repo, SRC.hf_revision, SRC.hf_prefix, SRC.hf_splits) == (
        "rubrix/wildfire_tweets",
        "a28e393ac0dac81655bd2076743b29697fca827d",
        "data",
        ("train",),
    )


def test_end_to_end_fixture_tiny_model(tiny_eval):
    tasks = ["ent_wildfire_tweets__t1", "ent_wildfire_tweets__t2"]
    res = tiny_eval(tasks)
    assert_unit_scores(res, tasks, ("weighted_f1,answer", "accuracy,answer", "format_failure,answer"))
    for t in tasks:
        assert res["configs"][t]["metadata"]["provisional"] is True
    prompt = res["samples"]["ent_wildfire_tweets__t1"][0]["arguments"][0][0]
    recs = load_records("wildfire_tweets", data_root="embedded")
    shots = recs["fewshot"]
    expected_shots = "".join(f"Tweet: {s['text']}\nAnswer: {s['label']}\n\n" for s in shots)
    assert prompt == (TASKS.templates[0].description + expected_shots + f"Tweet: {recs['test'][0]['text']}\nAnswer:")
