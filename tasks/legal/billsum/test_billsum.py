"""billsum: HF parquet layout (fixture), whitespace collapse + 2,048-word [TRUNC], errors, hub download, end to end.

No real sample exists (docs/data.md#real-samples): the loader is tested on the fixture (data/*.parquet in the
FiscalNote/billsum layout, written by make_fixture.py) and on files built in tmp_path.
"""

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from lm_eval_enterprise.tasks.legal.billsum.templates import TASKS, TEMPLATES

from lm_eval_enterprise.data import DataError, fixture_dir, get_source, load_records
from testkit.testing import (
    SUMMARIZATION_SCORES,
    assert_summary_reading,
    assert_tiny_run,
    run_oracle,
)

SRC = get_source("billsum")
FIX = fixture_dir("billsum")


def _rows(split: str, root: Path = FIX) -> list[dict]:
    return pq.read_table(root / "data" / f"{split}-00000-of-00001.parquet").to_pylist()


def _write(d: Path, split: str, rows: list[dict]) -> None:
    (d / "data").mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows), d / "data" / f"{split}-00000-of-00001.parquet")


# ----------------------------------------------------------------------------------------------- fixture
def test_convert_fixture_mapping_and_truncation():
    splits = SRC.convert(FIX)
    assert {k: len(v) for k, v in splits.items()} == {"train": 5, "test": 9}  # ca_test not used
    for split in ("train", "test"):
        raw = _rows(split)
        assert [r["id"] for r in splits[split]] == [str(i) for i in range(len(raw))]
        for rec, row in zip(splits[split], raw):
            words = row["text"].replace("\n", " ").split()
            assert rec["document"] == " ".join(words[:2048])
            assert rec["summary"] == " ".join(row["summary"].split())
    long_raw = _rows("test")[3]["text"]
    assert len(long_raw.split()) > 2048
    doc = splits["test"][3]["document"]
    assert len(doc.split()) == 2048 and " ".join(long_raw.split()).startswith(doc)  # keeps the beginning
    assert splits["test"][0]["document"].startswith("SECTION 1. SHORT TITLE. This Act may be cited as the ``")
    assert "\n" in _rows("test")[0]["summary"] and "\n" not in splits["test"][0]["summary"]
    assert SRC.convert(FIX) == splits


def test_zero_shot_generation_settings():  # the few-shot pool lm-eval still needs: tests/data/test_datasets.py
    assert TASKS.num_fewshot == 0 and TASKS.max_gen_toks == 256 and TASKS.until == ("\n\n",)


def test_multi_shard_ids_continue(tmp_path):
    rows = [{"text": f"bill {i}", "summary": f"sum {i}", "title": "t"} for i in range(3)]
    _write(tmp_path, "train", rows[:1])
    pq.write_table(pa.Table.from_pylist(rows[:2]), tmp_path / "data" / "test-00000-of-00002.parquet")
    pq.write_table(pa.Table.from_pylist(rows[2:]), tmp_path / "data" / "test-00001-of-00002.parquet")
    splits = SRC.convert(tmp_path)
    assert [(r["id"], r["document"]) for r in splits["test"]] == [("0", "bill 0"), ("1", "bill 1"), ("2", "bill 2")]


# ----------------------------------------------------------------------------------------------- errors
def test_bad_files_name_the_file(tmp_path):
    _write(tmp_path, "train", [{"text": "a", "summary": "b", "title": "t"}])
    _write(tmp_path, "test", [{"text": "a", "title": "t"}])
    with pytest.raises(DataError, match=r"^\[billsum\] .*test-00000-of-00001\.parquet: missing columns \['summary'\]"):
        SRC.convert(tmp_path)
    _write(tmp_path, "test", [{"text": "a", "summary": "b", "title": "t"}, {"text": "c", "summary": " ", "title": "t"}])
    with pytest.raises(DataError, match=r"test-00000-of-00001\.parquet: row 1: empty or missing summary"):
        SRC.convert(tmp_path)
    _write(tmp_path, "test", [{"text": None, "summary": "b", "title": "t"}])
    with pytest.raises(DataError, match=r"row 0: empty or missing text"):
        SRC.convert(tmp_path)
    (tmp_path / "data" / "test-00000-of-00001.parquet").write_bytes(b"PAR1 truncated")
    with pytest.raises(DataError, match="not a readable parquet file"):
        SRC.convert(tmp_path)


def test_missing_test_split_is_not_the_source_layout(tmp_path):
    d = tmp_path / "billsum"
    _write(d, "train", [{"text": "a", "summary": "b", "title": "t"}])
    _write(d, "ca_test", [{"text": "a", "summary": "b", "title": "t"}])
    assert not SRC.has_source_layout(d)
    with pytest.raises(
        DataError,
        match=r"^\[billsum\] .*no data files: expected the source files "
        r"\['data/train-\*\.parquet', 'data/test-\*\.parquet'\]",
    ):
        load_records("billsum", data_root=str(tmp_path))


class _FakeHub:
    def __init__(self, files):
        self.files, self.calls = files, []

    def list_repo_files(self, repo_id, *, revision=None, repo_type=None, token=None):
        self.calls.append(("list", repo_id, revision, repo_type))
        return list(self.files)

    def hf_hub_download(self, repo_id, filename, *, repo_type=None, revision=None, local_dir=None, **_):
        self.calls.append(("download", filename, revision))
        dest = Path(local_dir) / filename
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(self.files[filename])
        return str(dest)


def test_download_offline_is_one_line_error(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(DataError) as e:
        SRC.download(tmp_path)
    assert str(e.value).startswith("[billsum] hf://datasets/FiscalNote/billsum@80bf8bc") and "offline" in str(e.value)


# ----------------------------------------------------------------------------------------------- templates
def test_templates_accept_gold_and_reject_garbage():
    assert len(TEMPLATES) >= 5
    assert TEMPLATES[0].description == "Summarize the following legislative bill.\n\n"
    assert TEMPLATES[0].doc_to_text == "Bill: {{document}}\nSummary:"
    golds = [r["summary"] for r in SRC.convert(FIX)["test"]]
    # [PARSE]: the whole completion up to the blank line, a failure iff no letter or digit; t3 asks for one line
    assert_summary_reading(
        TASKS, golds, " This bill does x.\nIt also does y.\n\nBill:", "This bill does x.\nIt also does y."
    )


# ----------------------------------------------------------------------------------------------- end to end
def test_end_to_end_fixture_tiny_model(tiny_eval):
    tasks = ["ent_billsum__t1", "ent_billsum__t4"]
    res = tiny_eval(tasks, gen_kwargs="max_gen_toks=16")
    first = load_records("billsum", data_root="embedded")["test"][0]
    assert_tiny_run(res, tasks, SUMMARIZATION_SCORES, num_fewshot=0)  # 0 shots: shots_used is exactly 0
    for t in tasks:
        sample = res["samples"][t][0]
        assert sample["target"] == first["summary"]
        assert sample["arguments"][0][0].count(first["document"]) == 1
    assert res["samples"][tasks[0]][0]["arguments"][0][0] == (
        "Summarize the following legislative bill.\n\nBill: " + first["document"] + "\nSummary:"
    )


def test_bill_over_the_context_budget_is_cut_keeping_its_start():
    """The fixture's 2,048-word bill does not fit the default 4,096 tokens (estimated) with 256 generated ones: it is
    cut further."""

    task = "ent_billsum__t1"
    res = run_oracle([task], "embedded")
    docs = {s["doc"]["id"]: s for s in res["samples"][task]}
    long_doc = next(r for r in load_records("billsum", data_root="embedded")["test"] if r["id"] == "3")["document"]
    cut = docs["3"]
    assert cut["prompt_cut"] == 1.0 and cut["doc"]["document"] == long_doc
    sent = cut["arguments"][0][0].split("Bill: ", 1)[1].split("\nSummary:")[0]
    assert long_doc.startswith(sent) and 0 < len(sent.split()) < 2048
    assert sum(s["prompt_cut"] for s in docs.values()) == 1.0
    assert res["results"][task]["rouge_l,answer"] == pytest.approx(1.0)
