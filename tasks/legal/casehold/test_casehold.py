"""casehold: loader on the hub-parquet layout (fixture), label parsing, row checks, download through a fake hub,
[BAL] 2 shots keyed by the correct letter, the generic multiple-choice fields (data.mc_fields), the
``multiple_choice`` family with the [PARSE] letter reading scored by hand against [ACC] and HELM's rule, end to end."""

import json
import shutil
from pathlib import Path

import pytest
from lm_eval_enterprise.tasks.legal.casehold import source as S
from lm_eval_enterprise.tasks.legal.casehold.templates import TASKS, TEMPLATES

from conftest import FakeHub
from lm_eval_enterprise.data import (
    DataError,
    Source,
    fixture_dir,
    get_source,
    load_checked,
    load_records,
    local_parquet_files,
    mc_fields,
)
from lm_eval_enterprise.data.fewshot import helm_balanced
from lm_eval_enterprise.prompting.templating import answer_filter
from lm_eval_enterprise.scoring import hooks
from lm_eval_enterprise.scoring import metrics as M
from testkit.testing import GARBAGE, assert_unit_scores

SRC = get_source("casehold")
FIX = fixture_dir("casehold")
TRAIN, TEST, VALID = "all/train/0000.parquet", "all/test/0000.parquet", "all/validation/0000.parquet"
LETTERS = ["A", "B", "C", "D", "E"]


def _row(example_id=7, label="2", **over):
    row = {
        "example_id": example_id,
        "citing_prompt": "See Doe v. Roe, 1 F.3d 1 (1st Cir. 1999) (<HOLDING>).",
        **{f"holding_{i}": f"holding that rule {i} applies" for i in range(5)},
        "label": label,
    }
    row.update(over)
    return row


def _write(path: Path, rows: list[dict], label_feature="string") -> None:
    import datasets

    label = datasets.ClassLabel(names=label_feature) if isinstance(label_feature, list) else datasets.Value("string")
    feats = datasets.Features(
        {
            "example_id": datasets.Value("int32"),
            "citing_prompt": datasets.Value("string"),
            **{f"holding_{i}": datasets.Value("string") for i in range(5)},
            "label": label,
        }
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    datasets.Dataset.from_dict({k: [r[k] for r in rows] for k in feats}, features=feats).to_parquet(str(path))


# ------------------------------------------------------------------------------------------------ loader
def test_convert_fixture_hub_parquet_layout():
    splits = SRC.convert(FIX)
    assert {k: len(v) for k, v in splits.items()} == {"train": 4, "valid": 3, "test": 8}
    first = splits["test"][0]
    assert set(first) == {"id", "question", "choices", "answer"}  # the spec's multiple-choice schema
    assert first["id"] == "id100" and first["answer"] == 4
    assert first["question"].startswith("The employer argued that the statements were privileged.")
    assert "<HOLDING>" in first["question"] and len(first["choices"]) == 5
    assert first["choices"][4] == "holding that statements made in judicial proceedings are absolutely privileged"
    assert [r["id"] for r in splits["train"]] == ["id0", "id1", "id2", "id3"]
    assert SRC.convert(FIX) == splits  # official split: deterministic, nothing is re-split


def test_load_records_adds_mc_fields_and_balanced_two_shots():
    recs = load_records("casehold", data_root="embedded")
    t0 = recs["test"][0]
    assert (t0["label_names"], t0["n_options"]) == (LETTERS, 5)
    # the fixture's test letters in file order E A C A B A E C; the evaluated split is served in the fair order
    assert sorted(r["answer_letter"] for r in recs["test"]) == sorted(["E", "A", "C", "A", "B", "A", "E", "C"])
    for r in recs["test"] + recs["train"]:
        assert r["answer_letter"] == LETTERS[r["answer"]] and r["n_options"] == len(r["choices"]) == 5
    shots = recs["fewshot"][:2]
    expected = helm_balanced(recs["train"], lambda r: LETTERS[r["answer"]], 2)
    assert [r["id"] for r in shots] == [r["id"] for r in expected] == ["id3", "id2"]
    assert [r["answer_letter"] for r in shots] == ["D", "B"]  # two different letters ([BAL] by correct letter)
    assert not {r["id"] for r in recs["fewshot"]} & {r["id"] for r in recs["test"]}


@pytest.mark.parametrize(
    "value,names,expected",
    [
        ("0", None, 0),
        ("4", None, 4),
        (" 3 ", None, 3),
        (2, None, 2),
        (1, ["0", "1", "2", "3", "4"], 1),
        (0, ["4", "3", "2", "1", "0"], 4),
    ],
)
def test_label_string_or_class_label(value, names, expected):
    assert S.answer_index(value, "w", names) == expected


def test_label_errors_name_the_row():
    for bad in ("5", "A", "-2", True, 7):
        with pytest.raises(DataError, match=r"^\[casehold\] f.parquet:row 3: label"):
            S.answer_index(bad, "f.parquet:row 3")
    with pytest.raises(DataError, match="outside the class names"):
        S.answer_index(5, "w", ["0", "1", "2", "3", "4"])
    for none in (None, "", " ", "-1", -1, -1.0, float("nan")):  # how unlabelled releases mark the label
        assert S.answer_index(none, "w") is None


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


def test_unverified_counts_warn_and_are_recorded(tmp_path, caplog):
    """No per-split size of casehold/casehold 'all' is published (45,000 / 3,900 / 3,600 are LexGLUE's): the splits
    are counted and recorded; the paper's 53,137 questions are compared over all splits, unverified (a warning)."""
    d = tmp_path / "casehold"
    shutil.copytree(FIX, d)
    (d / "MANIFEST.json").unlink()  # now the declared counts apply
    recs, report = load_checked("casehold", data_root=str(tmp_path))
    assert len(recs["test"]) == 8 and recs["eval"] == recs["test"]  # loaded: never an error
    counts = report.metadata()["row_counts"]
    assert {s: (c["rows"], c["expected"], c["verified"], c["status"]) for s, c in counts.items()} == {
        "all splits": (15, 53137, False, "warning"),
        "train": (4, None, False, "ok"),
        "valid": (3, None, False, "ok"),
        "test": (8, None, False, "ok"),
    }
    assert "LexGLUE" in counts["train"]["evidence"] and "45,000" in counts["train"]["evidence"]
    assert counts["all splits"]["message"].startswith(
        "all splits hold 15 questions, expected 53,137 (unverified count: CaseHOLD paper"
    )
    warned = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert sum("all splits hold 15 questions" in m for m in warned) == 1


def _csv_layout(d: Path, splits: dict[str, list[dict]]) -> None:
    """The repo's raw ``data/all/{train,dev,test}.csv`` (positional header: "", "0" … "11") written from records."""
    import csv

    (d / S.CSV_DIR).mkdir(parents=True)
    for split, name in S.CSV_FILES.items():
        with open(d / S.CSV_DIR / name, "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow(["", *[str(i) for i in range(12)]])
            for r in splits[split]:
                ex = r["id"][2:]
                w.writerow([ex, r["question"], *r["choices"], *["0.5"] * 5, str(r["answer"])])


def test_raw_csv_layout_is_read_like_the_parquet_files(tmp_path):
    """Without the parquet branch, the raw CSVs (columns "", "0" … "11", dev = validation) give the same records."""
    parquet = S.SOURCE.convert(FIX)
    d = tmp_path / "casehold"
    _csv_layout(d, parquet)
    assert S.SOURCE.has_source_layout(d) and not local_parquet_files(d, "all")
    assert S.SOURCE.convert(d) == parquet
    (d / S.CSV_DIR / "dev.csv").write_text('"","0","1"\n1,a,b\n', encoding="utf-8")
    with pytest.raises(DataError) as e:
        S.SOURCE.convert(d)
    assert str(e.value).startswith(f"[casehold] {d / S.CSV_DIR / 'dev.csv'}: not the positional CaseHOLD header")


def test_download_falls_back_to_the_raw_csvs(tmp_path, monkeypatch):
    """The parquet revision is missing on the hub (RevisionNotFoundError): the raw CSVs of main are fetched."""
    import httpx2
    import huggingface_hub
    from huggingface_hub.errors import RevisionNotFoundError

    d = tmp_path / "src"
    _csv_layout(d, S.SOURCE.convert(FIX))
    csvs = {f"{S.CSV_DIR}/{n}": (d / S.CSV_DIR / n).read_bytes() for n in S.CSV_FILES.values()}
    calls = []

    def hub(*, repo_id, revision=None, allow_patterns=None, local_dir=None, **_):
        calls.append((repo_id, revision, list(allow_patterns)))
        if revision == S.HF_CONVERTED_REVISION:
            response = httpx2.Response(404, request=httpx2.Request("GET", "https://huggingface.co/x"))
            raise RevisionNotFoundError("Invalid rev id: refs/convert/parquet", response=response)
        return FakeHub(csvs)(repo_id=repo_id, revision=revision, allow_patterns=allow_patterns, local_dir=local_dir)

    for v in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "LM_EVAL_ENTERPRISE_OFFLINE"):
        monkeypatch.delenv(v, raising=False)
    monkeypatch.setattr(huggingface_hub, "snapshot_download", hub)
    (tmp_path / "cache").mkdir()
    out = tmp_path / "dl"
    S.SOURCE.download(out, progress=False)
    assert [c[:2] for c in calls] == [("casehold/casehold", "refs/convert/parquet"), ("casehold/casehold", "main")]
    assert calls[1][2] == ["data/all/*.csv"] and S.SOURCE.has_csv_layout(out)
    # both fail: the parquet failure is the one line, with its reason and the prepare --from route
    monkeypatch.setattr(huggingface_hub, "snapshot_download", FakeHub({}, fail=ConnectionError("no route")))
    with pytest.raises(DataError) as e:
        S.SOURCE.download(tmp_path / "dl2", progress=False)
    assert str(e.value).startswith(
        "[casehold] hf://datasets/casehold/casehold@refs/convert/parquet/all: download failed: unreachable host"
    )
    assert "prepare --dataset casehold --from PATH" in str(e.value) and "\n" not in str(e.value)


def _unlabelled_test(tmp_path, labels) -> Path:
    """The fixture with its test split relabelled (``labels``: one value per row, e.g. all "" = no labels)."""
    import pyarrow.parquet as pq

    d = tmp_path / "casehold"
    shutil.copytree(FIX, d)
    rows = pq.read_table(d / TEST).to_pylist()
    _write(d / TEST, [{**r, "label": lab} for r, lab in zip(rows, labels)])
    return d


@pytest.mark.parametrize("mark", ["", "-1"])
def test_unlabelled_test_split_is_evaluated_on_validation(tmp_path, mark):
    """The test release without labels (empty or -1 in every row): evaluate on validation and say so."""
    _unlabelled_test(tmp_path, [mark] * 8)
    recs, report = load_checked("casehold", data_root=str(tmp_path))
    assert "test" not in recs and [r["id"] for r in recs["eval"]] == ["id200", "id201", "id202"]
    assert recs["eval"] == recs["valid"] and all(r["answer_letter"] in LETTERS for r in recs["eval"])
    meta = report.metadata()
    assert meta["evaluated_split"] == "valid" and meta["data_status"] == "warning"
    assert "split 'test' has no gold labels (8 rows): evaluated on 'valid' instead" in meta["data_notes"]
    assert meta["row_counts"]["test"]["rows"] == 8  # still counted
    # the task YAMLs read "eval": the lm-eval task is built on the validation rows, and its metadata says so
    from lm_eval_enterprise.harness.runner import load_tasks, make_task_manager

    tm = make_task_manager(data_root=tmp_path)
    task = load_tasks(tm, ["ent_casehold__t1"]).leaves["ent_casehold__t1"]
    assert [d["id"] for d in task.eval_docs] == ["id200", "id201", "id202"]
    assert task.config.metadata["evaluated_split"] == "valid"


def test_partly_unlabelled_test_split_is_an_error(tmp_path):
    d = _unlabelled_test(tmp_path, ["0", "", "1", "2", "3", "4", "0", "1"])
    with pytest.raises(DataError) as e:
        load_records("casehold", data_root=str(tmp_path))
    assert str(e.value) == (
        f"[casehold] {d} [split 'test', record 1]: no gold answer (id 'id101'); 1 of 8 records "
        "of split 'test' have no gold answer"
    )


def test_labelled_test_split_is_evaluated(tmp_path):
    recs, report = load_checked("casehold", data_root="embedded")
    assert recs["eval"] == recs["test"] and report.eval_split == "test" and report.eval_note is None


def test_positional_csv_columns_are_read(tmp_path):
    """The repo's raw CSV header names columns by position (Unnamed: 0, 0 … 11; 6–10 similarity scores)."""
    row = {
        "Unnamed: 0": 5,
        "0": "See X (<HOLDING>).",
        **{str(i + 1): f"holding {i}" for i in range(5)},
        **{str(i): 0.5 for i in range(6, 11)},
        "11": "3",
    }
    assert S.to_record(row, "w") == {
        "id": "id5",
        "question": "See X (<HOLDING>).",
        "choices": [f"holding {i}" for i in range(5)],
        "answer": 3,
    }


def test_presplit_jsonl_rows_use_the_same_row_code(tmp_path):
    d = tmp_path / "casehold"
    d.mkdir()
    (d / "train.jsonl").write_text(json.dumps(_row(1, "0")) + "\n" + json.dumps(_row(2, "3")) + "\n")
    (d / "test.jsonl").write_text(json.dumps(_row(3, "4", citing_prompt="See Poe v. Coe (<HOLDING>).")) + "\n")
    recs = load_records("casehold", data_root=str(tmp_path))
    assert [(r["id"], r["answer_letter"]) for r in recs["train"]] == [("id1", "A"), ("id2", "D")]
    assert recs["test"][0]["answer_letter"] == "E"


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
        id, task_type = "mc_demo", "multiple_choice"

    assert Mc().finalize(rec)["answer_letter"] == "C"  # every multiple_choice source gets the fields


# ------------------------------------------------------------------------------------------------ [ACC] by hand
ACC_CASES = [
    # (completion, gold letter, [PARSE] reading, correct?, HELM: whole completion == gold letter?)
    (" B", "B", "B", 1.0, 1.0),
    ("(B) holding that", "B", "B", 1.0, 0.0),
    ("B. holding that the rule applies", "B", "B", 1.0, 0.0),
    ("\nB", "B", "B", 1.0, 1.0),  # stripped first, then cut at "\n"
    (" C", "B", "C", 0.0, 0.0),  # a wrong letter: wrong, but no format failure
    (" b", "B", "B", 1.0, 0.0),  # [PARSE] is case-insensitive; HELM's mapping is not
    (" The answer is B", "B", "B", 1.0, 0.0),
    (" Answer: E", "E", "E", 1.0, 0.0),  # issue #8: the old first-character rule read "A"
    (" F", "B", M.INVALID, 0.0, 0.0),  # outside A–E for 5 options
    ("", "B", M.INVALID, 0.0, 0.0),
    (" Because", "B", M.INVALID, 0.0, 0.0),  # a letter must be a whole word
]


@pytest.mark.parametrize("tpl", TEMPLATES, ids=[t.id for t in TEMPLATES])
def test_acc_filter_and_hook_hand_worked(tpl):
    flt = answer_filter(TASKS, tpl)  # the same reading in every template
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
    assert (TASKS.family, TASKS.primary_metric, TASKS.doc_to_target) == (
        "multiple_choice",
        "accuracy",
        "{{answer_letter}}",
    )
    t1 = TEMPLATES[0]
    assert t1.description == "Give a letter answer among A, B, C, D, or E.\n\n"
    assert t1.doc_to_text == (
        "Passage: {{question}}\nA. {{choices[0]}}\nB. {{choices[1]}}\nC. {{choices[2]}}\n"
        "D. {{choices[3]}}\nE. {{choices[4]}}\nAnswer:"
    )
    assert "helm" in t1.axes and all("helm" not in t.axes for t in TEMPLATES[1:])  # only t1 reports *_helm
    for tpl in TEMPLATES:
        assert tpl.regex == " ?[A-E]"  # every template asks for the bare letter
        flt = answer_filter(TASKS, tpl)
        for letter in LETTERS:
            assert flt.read(" " + letter, {"label_names": LETTERS}) == letter
            assert all(f"{{{{choices[{i}]}}}}" in tpl.doc_to_text for i in range(5))
        assert flt.read(GARBAGE, {"label_names": LETTERS}) == M.INVALID


def test_uniform_accuracy_baseline_uses_five_options():
    from lm_eval_enterprise.sharpe import baselines as BL

    rec = load_records("casehold", data_root="embedded")["test"][0]
    info = BL.LabelInfo("choice", n_options=len(rec["choices"]), gold_counts=[3, 1, 2, 0, 2])
    assert BL.compute("accuracy", "multiple_choice", "mean", info, "uniform").value == pytest.approx(1 / 5)
    assert rec["n_options"] == 5


# ------------------------------------------------------------------------------------------------ end to end
def test_end_to_end_fixture_tiny_model(tiny_eval):
    tasks = ["ent_casehold__t1", "ent_casehold__t4"]
    res = tiny_eval(tasks)
    assert_unit_scores(res, tasks, ("accuracy,answer", "format_failure,answer"))
    for t in tasks:
        sample = res["samples"][t][0]
        assert sample["target"] == "E" and sample["doc"]["answer_letter"] == "E"
        prompt = sample["arguments"][0][0]
        assert prompt.count("(<HOLDING>)") == 3  # 2 [BAL] shots + the eval item (citing contexts)
    t1 = res["samples"][tasks[0]][0]["arguments"][0][0]
    assert t1.startswith("Give a letter answer among A, B, C, D, or E.\n\nPassage: ")
    assert t1.endswith("\nE. holding that statements made in judicial proceedings are absolutely privileged\nAnswer:")
    assert res["configs"][tasks[0]]["generation_kwargs"]["max_gen_toks"] == 1
