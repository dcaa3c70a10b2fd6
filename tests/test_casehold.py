"""casehold: loader on the hub-parquet layout (fixture), label parsing, row checks, download through a fake hub,
[BAL] 2 shots keyed by the correct letter, the generic multiple-choice fields (data.mc_fields), the
``multiple_choice`` family with the [PARSE] letter reading scored by hand against [ACC] and HELM's rule, end to end."""
import json
import math
import re
import shutil
from pathlib import Path

import pytest

from lm_eval_enterprise import FIXTURES_DIR, TASK_DIR
from lm_eval_enterprise import hooks
from lm_eval_enterprise import metrics as M
from lm_eval_enterprise.data import DataError, Source, get_source, load_records, mc_fields, prepare
from lm_eval_enterprise.fewshot import helm_balanced
from lm_eval_enterprise.tasks.legal.casehold import source as S
from lm_eval_enterprise.tasks.legal.casehold.templates import TASKS, TEMPLATES
from lm_eval_enterprise.templating import answer_filter
from lm_eval_enterprise.testing import GARBAGE

SRC = get_source("casehold")
FIX = Path(FIXTURES_DIR) / "casehold"
TRAIN, TEST = "all/train/0000.parquet", "all/test/0000.parquet"
LETTERS = ["A", "B", "C", "D", "E"]


def _row(example_id=7, label="2", **over):
    row = {"example_id": example_id, "citing_prompt": "See Doe v. Roe, 1 F.3d 1 (1st Cir. 1999) (<HOLDING>).",
           **{f"holding_{i}": f"holding that rule {i} applies" for i in range(5)}, "label": label}
    row.update(over)
    return row


def _write(path: Path, rows: list[dict], label_feature="string") -> None:
    import datasets

    label = datasets.ClassLabel(names=label_feature) if isinstance(label_feature, list) else datasets.Value("string")
    feats = datasets.Features({"example_id": datasets.Value("int32"), "citing_prompt": datasets.Value("string"),
                               **{f"holding_{i}": datasets.Value("string") for i in range(5)}, "label": label})
    path.parent.mkdir(parents=True, exist_ok=True)
    datasets.Dataset.from_dict({k: [r[k] for r in rows] for k in feats}, features=feats).to_parquet(str(path))


# ------------------------------------------------------------------------------------------------ loader
def test_convert_fixture_hub_parquet_layout():
    splits = SRC.convert(FIX)
    assert {k: len(v) for k, v in splits.items()} == {"train": 4, "test": 8}
    first = splits["test"][0]
    assert set(first) == {"id", "question", "choices", "answer"}  # the spec's multiple-choice schema
    assert first["id"] == "id100" and first["answer"] == 4
    assert first["question"].startswith("The employer argued that the statements were privileged.")
    assert "<HOLDING>" in first["question"] and len(first["choices"]) == 5
    assert first["choices"][4] == "holding that statements made in judicial proceedings are absolutely privileged"
    assert [r["id"] for r in splits["train"]] == ["id0", "id1", "id2", "id3"]
    assert SRC.convert(FIX) == splits  # official split: deterministic, nothing is re-split


def test_load_records_adds_mc_fields_and_balanced_two_shots():
    recs = load_records("casehold", data_root=FIXTURES_DIR)
    t0 = recs["test"][0]
    assert (t0["label_names"], t0["answer_letter"], t0["n_options"]) == (LETTERS, "E", 5)
    assert [r["answer_letter"] for r in recs["test"]] == ["E", "A", "C", "A", "B", "A", "E", "C"]
    for r in recs["test"] + recs["train"]:
        assert r["answer_letter"] == LETTERS[r["answer"]] and r["n_options"] == len(r["choices"]) == 5
    shots = recs["fewshot"][:2]
    expected = helm_balanced(recs["train"], lambda r: LETTERS[r["answer"]], 2)
    assert [r["id"] for r in shots] == [r["id"] for r in expected] == ["id3", "id2"]
    assert [r["answer_letter"] for r in shots] == ["D", "B"]  # two different letters ([BAL] by correct letter)
    assert not {r["id"] for r in recs["fewshot"]} & {r["id"] for r in recs["test"]}


@pytest.mark.parametrize("value,names,expected", [("0", None, 0), ("4", None, 4), (" 3 ", None, 3), (2, None, 2),
                                                  (1, ["0", "1", "2", "3", "4"], 1), (0, ["4", "3", "2", "1", "0"], 4)])
def test_label_string_or_class_label(value, names, expected):
    assert S.answer_index(value, "w", names) == expected


def test_label_errors_name_the_row():
    for bad in ("5", "A", "-1", True, None, 7):
        with pytest.raises(DataError, match=r"^\[casehold\] f.parquet:row 3: label"):
            S.answer_index(bad, "f.parquet:row 3")
    with pytest.raises(DataError, match="outside the class names"):
        S.answer_index(5, "w", ["0", "1", "2", "3", "4"])


def test_row_errors():
    with pytest.raises(DataError, match=r"row lacks columns \['holding_4'\]"):
        S.to_record({k: v for k, v in _row().items() if k != "holding_4"}, "w")
    with pytest.raises(DataError, match="empty holding_1"):
        S.to_record(_row(holding_1=" "), "w")
    with pytest.raises(DataError, match="empty citing_prompt"):
        S.to_record(_row(citing_prompt=""), "w")
    assert S.to_record(_row(12, "1"), "w")["id"] == "id12"


def test_class_label_parquet_and_missing_column(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    d = tmp_path / "casehold"
    shutil.copytree(FIX, d)
    _write(d / TEST, [_row(1, 3)], label_feature=["0", "1", "2", "3", "4"])
    assert SRC.convert(d)["test"][0]["answer"] == 3
    pq.write_table(pa.table({"example_id": [1], "citing_prompt": ["x"], "label": ["0"]}), d / TEST)
    with pytest.raises(DataError, match=r"^\[casehold\] .*test/0000.parquet: missing columns \['holding_0'"):
        SRC.convert(d)


def test_several_shards_are_read_in_shard_order(tmp_path):
    d = tmp_path / "casehold"
    shutil.copytree(FIX, d)
    _write(d / "all/test/0001.parquet", [_row(999, "0")])
    test = SRC.convert(d)["test"]
    assert len(test) == 9 and test[-1]["id"] == "id999"


def test_wrong_row_count_is_one_line_error(tmp_path):
    d = tmp_path / "casehold"
    shutil.copytree(FIX, d)
    (d / "MANIFEST.json").unlink()  # now the spec's counts apply: ≈45,000 train / ≈3,600 test (±1 %)
    with pytest.raises(DataError) as e:
        load_records("casehold", data_root=str(tmp_path))
    msg = str(e.value)
    assert msg.startswith(f"[casehold] {d}:") and "\n" not in msg
    assert "split 'train' has 4 rows after conversion, expected 45,000 (±1%)" in msg


def test_presplit_jsonl_rows_use_the_same_row_code(tmp_path):
    d = tmp_path / "casehold"
    d.mkdir()
    (d / "train.jsonl").write_text(json.dumps(_row(1, "0")) + "\n" + json.dumps(_row(2, "3")) + "\n")
    (d / "test.jsonl").write_text(json.dumps(_row(3, "4")) + "\n")
    recs = load_records("casehold", data_root=str(tmp_path))
    assert [(r["id"], r["answer_letter"]) for r in recs["train"]] == [("id1", "A"), ("id2", "D")]
    assert recs["test"][0]["answer_letter"] == "E"


def test_offline_without_data_says_how_to_provide(monkeypatch):
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    with pytest.raises(DataError, match=r"\[casehold\].*offline.*prepare --dataset casehold.*all/train/\*\.parquet"):
        load_records("casehold")


def test_prepare_downloads_train_and_test_shards_through_the_hub_api(monkeypatch):
    calls = []

    class FakeApi:
        def list_repo_files(self, repo_id, *, revision=None, repo_type=None, token=None):
            calls.append(("list", repo_id, revision, repo_type))
            return ["README.md", TRAIN, TEST, "all/validation/0000.parquet", "fold_1/train/0000.parquet"]

        def hf_hub_download(self, repo_id, filename, *, repo_type=None, revision=None, local_dir=None, **_):
            calls.append(("get", filename, revision))
            dest = Path(local_dir) / filename
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(FIX / filename, dest)
            return str(dest)

    for v in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "LM_EVAL_ENTERPRISE_OFFLINE"):
        monkeypatch.delenv(v, raising=False)
    monkeypatch.setattr("huggingface_hub.HfApi", FakeApi)
    with pytest.raises(DataError, match=r"split 'train' has 4 rows after conversion, expected 45,000"):
        prepare(SRC)
    monkeypatch.setattr(type(SRC), "expected_rows", {"train": 4, "test": 8})
    d = prepare(SRC)
    assert (d / TRAIN).exists() and (d / ".complete").exists()
    assert calls[0] == ("list", "casehold/casehold", "refs/convert/parquet", "dataset")
    assert {c[1] for c in calls if c[0] == "get"} == {TRAIN, TEST}  # no validation, no fold_* configs
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert len(load_records("casehold")["test"]) == 8


# ------------------------------------------------------------------------------------------------ generic MC fields
def test_mc_fields_generic():
    rec = {"id": "q1", "question": "?", "choices": ["x", "y", "z"], "answer": 2}
    out = mc_fields(rec)
    assert out == {**rec, "label_names": ["A", "B", "C"], "answer_letter": "C", "n_options": 3}
    assert mc_fields({**rec, "choices": list("abcdefghij"), "answer": 9})["answer_letter"] == "J"
    import numpy as np
    assert mc_fields({**rec, "answer": np.int64(0)})["answer_letter"] == "A"
    for bad in (3, -1, "2", True, None, 1.0):
        with pytest.raises(ValueError, match="is not an index of its 3 choices"):
            mc_fields({**rec, "answer": bad})
    with pytest.raises(ValueError, match="11 choices"):
        mc_fields({**rec, "choices": list("abcdefghijk"), "answer": 0})

    class Mc(Source):
        id, task_type = "mc_demo", "mc"

    assert Mc().finalize(rec)["answer_letter"] == "C"  # every task_type "mc" source gets the fields


# ------------------------------------------------------------------------------------------------ [ACC] by hand
ACC_CASES = [
    # (completion, gold letter, [PARSE] reading, correct?, HELM: whole completion == gold letter?)
    (" B", "B", "B", 1.0, 1.0),
    ("(B) holding that", "B", "B", 1.0, 0.0),
    ("B. holding that the rule applies", "B", "B", 1.0, 0.0),
    ("\nB", "B", "B", 1.0, 1.0),           # stripped first, then cut at "\n"
    (" C", "B", "C", 0.0, 0.0),            # a wrong letter: wrong, but no format failure
    (" b", "B", "B", 1.0, 0.0),            # [PARSE] is case-insensitive; HELM's mapping is not
    (" The answer is B", "B", "B", 1.0, 0.0),
    (" Answer: E", "E", "E", 1.0, 0.0),    # issue #8: the old first-character rule read "A"
    (" F", "B", M.INVALID, 0.0, 0.0),      # outside A–E for 5 options
    ("", "B", M.INVALID, 0.0, 0.0),
    (" Because", "B", M.INVALID, 0.0, 0.0),  # a letter must be a whole word
]


@pytest.mark.parametrize("tpl", TEMPLATES, ids=[t.id for t in TEMPLATES])
def test_acc_filter_and_hook_hand_worked(tpl):
    flt = answer_filter(TASKS, tpl)          # the same reading in every template
    docs = [{"label_names": LETTERS, "answer_letter": gold} for _, gold, *_ in ACC_CASES]
    filtered = flt.apply([[c] for c, *_ in ACC_CASES], docs)
    assert [f[0] for f in filtered] == [exp for _, _, exp, _, _ in ACC_CASES]
    scores = [hooks.multiple_choice_helm(doc, f) for doc, f in zip(docs, filtered)]
    assert [s["accuracy"] for s in scores] == [ok for _, _, _, ok, _ in ACC_CASES]
    assert [s["accuracy_helm"] for s in scores] == [helm for *_, helm in ACC_CASES]
    assert [s["format_failure"] for s in scores] == [float(exp == M.INVALID) for _, _, exp, _, _ in ACC_CASES]
    # accuracy 7 of 11; format failures F, "", Because = 3 of 11; HELM 2 of 11; only " B", "\nB", " C" are the
    # bare letter every template asks for (format_adherence 3 of 11: a wrong answer can be well formed)
    assert sum(s["accuracy"] for s in scores) == 7 and sum(s["format_failure"] for s in scores) == 3
    assert sum(s["accuracy_helm"] for s in scores) == 2 and sum(s["format_adherence"] for s in scores) == 3


def test_filter_needs_label_names():
    flt = answer_filter(TASKS, TEMPLATES[0])
    with pytest.raises(ValueError, match="needs doc\\['label_names'\\]"):
        flt.apply([[" B"]], [{"answer_letter": "B"}])


# ------------------------------------------------------------------------------------------------ templates
def test_templates_table():
    assert len(TEMPLATES) >= 5 and TASKS.num_fewshot == 2 and TASKS.max_gen_toks == 1
    assert (TASKS.family, TASKS.primary_metric, TASKS.doc_to_target) == ("multiple_choice", "accuracy",
                                                                         "{{answer_letter}}")
    t1 = TEMPLATES[0]
    assert t1.description == "Give a letter answer among A, B, C, D, or E.\n\n"
    assert t1.doc_to_text == ("Passage: {{question}}\nA. {{choices[0]}}\nB. {{choices[1]}}\nC. {{choices[2]}}\n"
                              "D. {{choices[3]}}\nE. {{choices[4]}}\nAnswer:")
    assert "helm" in t1.axes and all("helm" not in t.axes for t in TEMPLATES[1:])   # only t1 reports *_helm
    for tpl in TEMPLATES:
        assert tpl.regex == " ?[A-E]"   # every template asks for the bare letter
        flt = answer_filter(TASKS, tpl)
        for letter in LETTERS:
            assert flt.read(" " + letter, {"label_names": LETTERS}) == letter
            assert all(f"{{{{choices[{i}]}}}}" in tpl.doc_to_text for i in range(5))
        assert flt.read(GARBAGE, {"label_names": LETTERS}) == M.INVALID


def test_uniform_accuracy_baseline_uses_five_options():
    from lm_eval_enterprise.sharpe import baselines as BL

    rec = load_records("casehold", data_root=FIXTURES_DIR)["test"][0]
    info = BL.LabelInfo("choice", n_options=len(rec["choices"]), gold_counts=[3, 1, 2, 0, 2])
    assert BL.compute("accuracy", "multiple_choice", "mean", info, "uniform").value == pytest.approx(1 / 5)
    assert rec["n_options"] == 5


# ------------------------------------------------------------------------------------------------ end to end
def test_end_to_end_fixture_tiny_model(tiny_model_dir):
    import lm_eval
    from lm_eval.tasks import TaskManager

    tasks = ["ent_casehold__t1", "ent_casehold__t4"]
    tm = TaskManager(include_path=TASK_DIR, include_defaults=False, metadata={"data_root": FIXTURES_DIR})
    res = lm_eval.simple_evaluate(model="hf", model_args=f"pretrained={tiny_model_dir},dtype=float32", device="cpu",
                                  tasks=tasks, task_manager=tm, limit=2, log_samples=True, bootstrap_iters=0)
    for t in tasks:
        row = res["results"][t]
        for key in ("accuracy,answer", "format_failure,answer"):
            assert math.isfinite(row[key]) and 0.0 <= row[key] <= 1.0, (t, key, row)
        sample = res["samples"][t][0]
        assert sample["target"] == "E" and sample["doc"]["answer_letter"] == "E"
        prompt = sample["arguments"][0][0]
        assert prompt.count("(<HOLDING>)") == 3  # 2 [BAL] shots + the eval item (citing contexts)
    t1 = res["samples"][tasks[0]][0]["arguments"][0][0]
    assert t1.startswith("Give a letter answer among A, B, C, D, or E.\n\nPassage: ")
    assert t1.endswith("\nE. holding that statements made in judicial proceedings are absolutely privileged\nAnswer:")
    assert res["configs"][tasks[0]]["generation_kwargs"]["max_gen_toks"] == 1
