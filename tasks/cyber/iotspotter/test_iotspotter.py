"""iotspotter: JSON-lines loader (fixture), label mapping, the real sample, 14 [BAL] shots cut to 150 words, errors,
[BF1], end to end with the prompt budget."""

import json
import shutil

import pytest
from lm_eval_enterprise.tasks.cyber.iotspotter import source as S
from lm_eval_enterprise.tasks.cyber.iotspotter.templates import TASKS

from conftest import file_ordered, shared_sample
from lm_eval_enterprise.data import DataError, fixture_dir, get_source, load_records
from lm_eval_enterprise.prompting.templating import answer_filter
from lm_eval_enterprise.scoring import metrics as M
from testkit.testing import GARBAGE, assert_unit_scores, run_hf_model

SRC = get_source("iotspotter")
FIX = fixture_dir("iotspotter")


def test_source_files_are_the_pinned_raw_urls():
    base = "https://raw.githubusercontent.com/xinjin95/IoTSpotter/604fb10e00721212bc32e54ba9d2c7c574edda86/data/dataset"
    assert {f.name: f.url for f in SRC.files} == {
        n: f"{base}/{n}" for n in ("training_set.txt", "validation_set.txt", "test_set.txt")
    }
    assert (SRC.positive_label, SRC.labels) == ("iot", ("iot", "non-iot"))


def test_convert_fixture_json_lines():
    splits = SRC.convert(FIX)
    assert {k: len(v) for k, v in splits.items()} == {"train": 16, "valid": 4, "test": 9}
    assert splits["test"][0] == {
        "id": "com.example.camhub",
        "label": "iot",
        "text": "home security camera viewer multiple cameras live streaming pan tilt night vision sd card playback",
    }
    assert splits["test"][1]["label"] == "non-iot"
    assert splits["test"][-1] == {"id": "com.example.emptylisting", "text": "", "label": "non-iot"}  # kept
    assert SRC.convert(FIX) == splits


@pytest.mark.parametrize("value,name", [("1", "iot"), ("0", "non-iot"), (1, "iot"), (0, "non-iot"), (" 1", "iot")])
def test_label_mapping(value, name):
    assert S.label_name(value, "w") == name


def test_bad_label_and_bad_line_name_the_file_and_line(tmp_path):
    with pytest.raises(DataError, match=r"^\[iotspotter\] w: label '2' is not 0/1$"):
        S.label_name("2", "w")
    d = tmp_path / "iotspotter"
    shutil.copytree(FIX, d)
    (d / "test_set.txt").write_text('{"pkg_name": "a.b", "description": "x", "label": "1"}\n{not json\n')
    with pytest.raises(DataError, match=r"^\[iotspotter\] .*test_set.txt:2: invalid JSON line"):
        SRC.convert(d)
    (d / "test_set.txt").write_text('{"pkg_name": "a.b", "description": "x"}\n')
    with pytest.raises(DataError, match=r"test_set.txt:1: row without 'label'"):
        SRC.convert(d)


def test_real_sample_presplit():
    d = shared_sample("iotspotter")
    recs = load_records("iotspotter", data_root=str(d.parent))
    # sample test row 123 (kr.co.aepel.smartlantern, non-iot) has an empty description, as has a pool row: it
    # leaves by the few-shot de-duplication ([LEAK]); SOURCE.md's 116 iot / 184 non-iot are counted before it
    assert (len(recs["test"]), len(recs["train"])) == (300 - 1, 100)
    assert "kr.co.aepel.smartlantern" not in {r["id"] for r in recs["test"]}
    assert sum(r["label"] == "iot" for r in recs["test"]) == 116
    assert sum(r["label"] == "iot" for r in recs["train"]) == 54
    first = next(r for r in recs["test"] if r["id"] == "me.skean.medionled")  # the file's first test row
    assert first["label"] == "iot" and first["text"].startswith("light control lights controlled via mobile app")
    assert recs["train"][0]["id"] == "com.kraftwerk9.sharprc"
    for split in ("train", "test"):
        raw = [json.loads(x) for x in (d / f"{split}.jsonl").open()]
        raw = [r for r in raw if r["pkg_name"] != "kr.co.aepel.smartlantern"]
        assert len(raw) == len(recs[split])
        ordered = file_ordered(recs[split], [r["pkg_name"] for r in raw]) if split == "test" else recs[split]
        for r, rec in zip(raw, ordered):  # the label comes from the source 0/1 kept in label_id
            assert (rec["id"], rec["text"], rec["label"]) == (r["pkg_name"], r["description"], r["label"])
            assert rec["label"] == ("iot" if r["label_id"] == 1 else "non-iot")


def test_fourteen_balanced_shots_cut_to_150_words():
    d = shared_sample("iotspotter")
    recs = load_records("iotspotter", data_root=str(d.parent))
    shots = recs["fewshot"][:14]
    assert [s["label"] for s in shots].count("iot") == 7  # 7 + 7
    assert all(len(s["text"].split()) <= 150 for s in recs["fewshot"])
    long_ = [r for r in recs["train"] if len(r["text"].split()) > 150]
    assert long_, "the sample has long descriptions"
    by_id = {s["id"]: s for s in recs["fewshot"]}
    for r in long_:  # shots keep the first 150 words; eval/train records are not cut
        assert by_id[r["id"]]["text"] == " ".join(r["text"].split()[:150])
    assert max(len(r["text"].split()) for r in recs["test"]) > 150


def test_wrong_row_count_is_one_line_error(tmp_path):
    d = tmp_path / "iotspotter"
    shutil.copytree(FIX, d)
    (d / "MANIFEST.json").unlink()  # spec counts: valid 1,058, test 965
    with pytest.raises(DataError) as e:
        load_records("iotspotter", data_root=str(tmp_path))
    msg = str(e.value)
    assert msg.startswith(f"[iotspotter] {d}:") and "split 'valid' has 4 rows after conversion, expected 1,058" in msg
    assert "\n" not in msg


def test_templates_never_read_non_iot_as_iot():
    assert len(TASKS.templates) >= 5 and TASKS.num_fewshot == 14
    assert TASKS.templates[0].description == (
        "Based on its Google Play description, is the following app an IoT "
        '(Internet of Things) companion app? Answer only "iot" or '
        '"non-iot".\n\n'
    )
    doc = {"label_names": ["iot", "non-iot"]}
    for tpl in TASKS.templates:
        flt = answer_filter(TASKS, tpl)
        for gold in doc["label_names"]:
            assert flt.read(f" {gold}\nDescription: x", doc) == gold, tpl.id
        assert flt.read(" Non-IoT.", doc) == "non-iot", tpl.id
        assert flt.read(" non-iot, it is a game", doc) == "non-iot", tpl.id
        assert flt.read(GARBAGE, doc) == M.INVALID, tpl.id


def test_binary_f1_iot_by_hand():
    # gold [iot, iot, non, non];  pred [iot, non, iot, invalid] -> TP 1, FP 1, FN 1 -> F1 = 2/4 = 0.5
    golds = ["iot", "iot", "non-iot", "non-iot"]
    assert M.binary_f1(golds, ["iot", "non-iot", "iot", M.INVALID], "iot") == pytest.approx(0.5)


def test_end_to_end_tiny_model_on_real_sample(tiny_model_dir):
    d = shared_sample("iotspotter")
    tasks = ["ent_iotspotter__t1", "ent_iotspotter__t2"]
    res = run_hf_model(tiny_model_dir, tasks, d.parent)
    assert_unit_scores(
        res, tasks, ("binary_f1,answer", "accuracy,answer", "format_failure,answer", "prompt_cut,answer")
    )
    for t in tasks:
        row = res["results"][t]
        assert 0 <= row["shots_used,answer"] <= 14
    budget = res["configs"]["ent_iotspotter__t1"]["metadata"]["prompt_budget"]
    assert budget["prompts"] == 2 and budget["max_context_tokens"] == 4096 and budget["shots_requested"] == 14
    assert budget["source"] == "default"  # no budget given to the TaskManager: 4,096 tokens, with a warning
    sample = res["samples"]["ent_iotspotter__t1"][0]
    prompt = sample["arguments"][0][0]
    assert prompt.startswith("Based on its Google Play description, is the following app an IoT")
    first = load_records("iotspotter", data_root=str(d.parent))["test"][0]  # the first of the fair order
    assert prompt.endswith("\nAnswer:") and f"Description: {' '.join(first['text'].split()[:8])}" in prompt
    assert prompt.count("\nAnswer:") == sample["shots_used"] + 1  # the shots the budget kept + the eval item
    assert budget["min_shots_used"] <= sample["shots_used"] <= 14
