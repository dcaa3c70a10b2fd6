"""Shared HF-parquet helpers of lm_eval_enterprise.data (``hub``, ``parquet``): split mapping, download, errors.

No network: ``huggingface_hub.snapshot_download`` is replaced by :class:`conftest.FakeHub`, which selects files with
the hub's own ``allow_patterns`` filter.
"""

import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import FakeHub
from lm_eval_enterprise import data as D
from lm_eval_enterprise.data import DataError

OFFLINE_VARS = ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "LM_EVAL_ENTERPRISE_OFFLINE")


@pytest.fixture
def online(monkeypatch):
    for v in OFFLINE_VARS:
        monkeypatch.delenv(v, raising=False)


CONVERTED = {  # an auto-converted repo (refs/convert/parquet) with two configs, extra files and two train shards
    ".gitattributes": b"",
    "transcript-sentiment/train/0001.parquet": b"train-1",
    "transcript-sentiment/train/0000.parquet": b"train-0",
    "transcript-sentiment/test/0000.parquet": b"test-0",
    "transcript-sentiment/test/index.duckdb": b"",
    "transcripts/train/0000.parquet": b"other-config",
    "stock_prices/train/0000.parquet": b"other-config",
}


@pytest.mark.parametrize(
    "path,prefix,split",
    [
        ("transcript-sentiment/train/0000.parquet", "transcript-sentiment", "train"),
        ("transcript-sentiment/test/0003.parquet", "transcript-sentiment/", "test"),
        ("data/train-00000-of-00001-aeefa1eadf5be10b.parquet", "data", "train"),
        ("data/valid-00000-of-00002.parquet", "data", "valid"),
        ("data/test.parquet", "data", "test"),
        ("default/validation/0000.parquet", "", "default"),  # no prefix: the first folder is the split
        ("transcripts/train/0000.parquet", "transcript-sentiment", None),  # another config (prefix is a folder)
        ("transcript-sentiment/test/index.duckdb", "transcript-sentiment", None),
    ],
)
def test_split_of_repo_path(path, prefix, split):
    assert D.hf_parquet_split(path, prefix) == split


def test_patterns_select_each_layout_of_a_split_and_nothing_else():
    pats = D.hub.split_patterns("transcript-sentiment/", ["train"])
    assert pats == [
        "transcript-sentiment/train/*.parquet",
        "transcript-sentiment/train-*.parquet",
        "transcript-sentiment/train.parquet",
    ]
    from huggingface_hub.utils import filter_repo_objects

    repo = list(CONVERTED) + [
        "transcript-sentiment/train-00000-of-00002-ab12.parquet",
        "transcript-sentiment/train.parquet",
        "transcript-sentiment/training/0000.parquet",
        "transcript-sentiment/trainx.parquet",
        "other/train/0000.parquet",
    ]
    assert sorted(filter_repo_objects(repo, allow_patterns=pats)) == [
        "transcript-sentiment/train-00000-of-00002-ab12.parquet",
        "transcript-sentiment/train.parquet",
        "transcript-sentiment/train/0000.parquet",
        "transcript-sentiment/train/0001.parquet",
    ]
    assert D.hub.split_patterns("", ["test"])[0] == "test/*.parquet"


def test_download_through_the_patched_snapshot_download_keeps_repo_paths(online, monkeypatch, tmp_path):
    import huggingface_hub

    hub = FakeHub(CONVERTED)
    monkeypatch.setattr(huggingface_hub, "snapshot_download", hub)  # the default fetch=None path
    got = D.download_hf_parquet(
        "jlh-ibm/earnings_call",
        tmp_path,
        dataset="x",
        revision=D.HF_CONVERTED_REVISION,
        prefix="transcript-sentiment",
        splits=["train"],
    )
    assert got == {
        "train": [
            tmp_path / "transcript-sentiment/train/0000.parquet",
            tmp_path / "transcript-sentiment/train/0001.parquet",
        ]
    }
    assert (tmp_path / "transcript-sentiment/train/0001.parquet").read_bytes() == b"train-1"
    assert not (tmp_path / "transcript-sentiment/test").exists()  # only the splits asked for
    assert hub.calls == [
        {
            "repo_id": "jlh-ibm/earnings_call",
            "repo_type": "dataset",
            "revision": "refs/convert/parquet",
            "allow_patterns": D.hub.split_patterns("transcript-sentiment", ["train"]),
        }
    ]
    assert D.local_parquet_files(tmp_path, "transcript-sentiment") == got


def test_optional_splits_are_fetched_when_present(online, tmp_path):
    hub = FakeHub(CONVERTED)
    got = D.download_hf_parquet(
        "r/x",
        tmp_path,
        dataset="x",
        prefix="transcript-sentiment",
        splits=["test"],
        optional=["validation", "train"],
        fetch=hub,
    )
    assert sorted(got) == ["test", "train"]  # no validation in the repo: not an error
    assert len(got["train"]) == 2


def test_offline_raises_before_any_hub_call(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    hub = FakeHub(CONVERTED)
    with pytest.raises(DataError) as e:
        D.download_hf_parquet(
            "jlh-ibm/earnings_call",
            Path("/nonexistent"),
            dataset="earnings_call",
            revision=D.HF_CONVERTED_REVISION,
            prefix="transcript-sentiment",
            fetch=hub,
        )
    msg = str(e.value)
    assert msg.startswith(
        "[earnings_call] hf://datasets/jlh-ibm/earnings_call@refs/convert/parquet/"
        "transcript-sentiment: cannot download from the hub: offline ("
    )
    assert "HF_HUB_OFFLINE" in msg and "LM_EVAL_ENTERPRISE_DATA/earnings_call/" in msg and "\n" not in msg
    assert hub.calls == []


def test_missing_split_and_download_failure_are_one_line_errors(online, tmp_path):
    with pytest.raises(
        DataError,
        match=r"^\[x\] hf://datasets/r/x@main/transcript-sentiment: no parquet files for "
        r"split\(s\) \['valid'\] in the repo \(found \['test', 'train'\];",
    ):
        D.download_hf_parquet(
            "r/x",
            tmp_path / "a",
            dataset="x",
            prefix="transcript-sentiment",
            splits=["train", "valid", "test"],
            fetch=FakeHub(CONVERTED),
        )
    with pytest.raises(
        DataError, match=r"no parquet files for split\(s\) \['train', 'test'\] in the repo \(found none;"
    ):
        D.download_hf_parquet("r/x", tmp_path / "b", dataset="x", prefix="nothing", fetch=FakeHub(CONVERTED))
    with pytest.raises(DataError) as e:
        D.download_hf_parquet(
            "r/x",
            tmp_path / "c",
            dataset="x",
            prefix="transcript-sentiment",
            fetch=FakeHub(CONVERTED, fail=ConnectionError("no route\nmore")),
        )
    assert str(e.value).startswith(
        "[x] hf://datasets/r/x@main/transcript-sentiment: download failed: unreachable host: no connection "
        "(ConnectionError: no route); obtain the files elsewhere and run "
        "`lm-eval-enterprise prepare --dataset x --from PATH`"
    )
    assert "\n" not in str(e.value) and "x/transcript-sentiment" in str(e.value)


def test_local_listing_skips_hidden_cache_folders(tmp_path):
    for rel in ("data/train-00000-of-00001-ab.parquet", "data/.cache/huggingface/x.parquet", "data/notes.txt"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(b"")
    assert D.local_parquet_files(tmp_path, "data") == {"train": [tmp_path / "data/train-00000-of-00001-ab.parquet"]}
    assert D.local_parquet_files(tmp_path, "missing") == {}


def test_read_rows_columns_and_class_label_metadata(tmp_path):
    import datasets

    path = tmp_path / "a.parquet"
    feats = datasets.Features({"t": datasets.Value("string"), "y": datasets.ClassLabel(names=["no", "yes"])})
    datasets.Dataset.from_dict({"t": ["a", "b"], "y": [1, 0]}, features=feats).to_parquet(str(path))
    assert D.read_parquet_rows([path, path], "x", ["t", "y"]) == [{"t": "a", "y": 1}, {"t": "b", "y": 0}] * 2
    assert D.hf_class_names(path, "y") == ["no", "yes"]
    assert D.hf_class_names(path, "t") is None
    with pytest.raises(DataError, match=r"a.parquet: missing columns \['z'\]"):
        D.read_parquet_rows([path], "x", ["t", "z"])
    plain = tmp_path / "plain.parquet"
    pq.write_table(pa.table({"y": [0]}), plain)
    assert D.hf_class_names(plain, "y") is None
    broken = tmp_path / "broken.parquet"
    shutil.copy(path, broken)
    broken.write_bytes(broken.read_bytes()[:20])
    with pytest.raises(DataError, match=r"^\[x\] .*broken.parquet: not a readable parquet file"):
        D.read_parquet_rows([broken], "x")


def test_parquet_records_names_file_and_row_and_passes_each_files_class_names(tmp_path):
    """HFParquetSource.parquet_records: shards in order, ``where`` = "<file>:row <i>", the ClassLabel names of each
    file (the fallback for a file without them), columns given per file."""
    import datasets

    class Src(D.HFParquetSource):
        id = "x"
        hf_prefix = "cfg"

    first, second = tmp_path / "cfg/train/0000.parquet", tmp_path / "cfg/train/0001.parquet"
    first.parent.mkdir(parents=True)
    feats = datasets.Features({"t": datasets.Value("string"), "y": datasets.ClassLabel(names=["no", "yes"])})
    datasets.Dataset.from_dict({"t": ["a", "b"], "y": [1, 0]}, features=feats).to_parquet(str(first))
    pq.write_table(pa.table({"t": ["c"], "y": [1]}), second)  # no huggingface metadata

    def record(row, where, names):
        return {"where": where, "text": row["t"], "label": names[row["y"]]}

    got = Src().parquet_records(tmp_path, "train", record, ("t", "y"), class_label="y", class_names=("neg", "pos"))
    assert got == [
        {"where": f"{first}:row 0", "text": "a", "label": "yes"},
        {"where": f"{first}:row 1", "text": "b", "label": "no"},
        {"where": f"{second}:row 0", "text": "c", "label": "pos"},
    ]
    plain = Src().parquet_records(tmp_path, "train", lambda row, where: row["t"], lambda path: ("t",))
    assert plain == ["a", "b", "c"]  # without class_label: to_record(row, where)
    with pytest.raises(DataError, match=r"^\[x\] .*0001.parquet: missing columns \['z'\]"):
        Src().parquet_records(
            tmp_path, "train", lambda row, where: row, lambda path: ("t", "z") if path == second else ("t",)
        )
    with pytest.raises(DataError, match=r"no parquet files for split 'test'"):
        Src().parquet_records(tmp_path, "test", lambda row, where: row, ("t",))
