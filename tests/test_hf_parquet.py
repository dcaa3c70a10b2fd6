"""Shared HF-parquet helpers of lm_eval_enterprise.data: shard listing, split mapping, download, errors.

No network: ``huggingface_hub.HfApi`` is replaced by a fake serving files from a local folder.
"""
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from lm_eval_enterprise import data as D
from lm_eval_enterprise.data import DataError

OFFLINE_VARS = ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "LM_EVAL_ENTERPRISE_OFFLINE")


class FakeHfApi:
    """list_repo_files / hf_hub_download over a dict {repo path: bytes}; records every call."""

    def __init__(self, files=None, fail_listing=None, fail_download=None):
        self.files = dict(files or {})
        self.fail_listing, self.fail_download = fail_listing, fail_download
        self.calls = []

    def list_repo_files(self, repo_id, *, revision=None, repo_type=None, token=None):
        self.calls.append(("list", repo_id, revision, repo_type))
        if self.fail_listing:
            raise self.fail_listing
        return list(self.files)

    def hf_hub_download(self, repo_id, filename, *, repo_type=None, revision=None, local_dir=None, **_):
        self.calls.append(("download", repo_id, filename, revision, repo_type))
        if self.fail_download:
            raise self.fail_download
        dest = Path(local_dir) / filename
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(self.files[filename])
        return str(dest)


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


@pytest.mark.parametrize("path,prefix,split", [
    ("transcript-sentiment/train/0000.parquet", "transcript-sentiment", "train"),
    ("transcript-sentiment/test/0003.parquet", "transcript-sentiment/", "test"),
    ("data/train-00000-of-00001-aeefa1eadf5be10b.parquet", "data", "train"),
    ("data/valid-00000-of-00002.parquet", "data", "valid"),
    ("data/test.parquet", "data", "test"),
    ("default/validation/0000.parquet", "", "default"),  # no prefix: the first folder is the split
    ("transcripts/train/0000.parquet", "transcript-sentiment", None),  # another config (prefix is a folder)
    ("transcript-sentiment/test/index.duckdb", "transcript-sentiment", None),
])
def test_split_of_repo_path(path, prefix, split):
    assert D.hf_parquet_split(path, prefix) == split


def test_listing_groups_by_split_in_shard_order_with_patched_hfapi(online, monkeypatch):
    fake = FakeHfApi(CONVERTED)
    monkeypatch.setattr("huggingface_hub.HfApi", lambda *a, **k: fake)  # the default api=None path
    out = D.hf_parquet_files("jlh-ibm/earnings_call", dataset="x", revision=D.HF_CONVERTED_REVISION,
                             prefix="transcript-sentiment")
    assert out == {"test": ["transcript-sentiment/test/0000.parquet"],
                   "train": ["transcript-sentiment/train/0000.parquet", "transcript-sentiment/train/0001.parquet"]}
    assert fake.calls == [("list", "jlh-ibm/earnings_call", "refs/convert/parquet", "dataset")]


def test_download_writes_repo_relative_paths(online, tmp_path):
    fake = FakeHfApi(CONVERTED)
    got = D.download_hf_parquet("r/x", tmp_path, dataset="x", revision="rev", prefix="transcript-sentiment",
                                splits=["train"], api=fake)
    assert got == {"train": [tmp_path / "transcript-sentiment/train/0000.parquet",
                             tmp_path / "transcript-sentiment/train/0001.parquet"]}
    assert (tmp_path / "transcript-sentiment/train/0001.parquet").read_bytes() == b"train-1"
    assert not (tmp_path / "transcript-sentiment/test").exists()  # only the splits asked for
    assert [c[2] for c in fake.calls if c[0] == "download"] == [
        "transcript-sentiment/train/0000.parquet", "transcript-sentiment/train/0001.parquet"]
    assert D.local_parquet_files(tmp_path, "transcript-sentiment") == got


def test_offline_raises_before_any_hub_call(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    fake = FakeHfApi(CONVERTED)
    with pytest.raises(DataError) as e:
        D.download_hf_parquet("jlh-ibm/earnings_call", Path("/nonexistent"), dataset="earnings_call",
                              revision=D.HF_CONVERTED_REVISION, prefix="transcript-sentiment", api=fake)
    msg = str(e.value)
    assert msg.startswith("[earnings_call] hf://datasets/jlh-ibm/earnings_call@refs/convert/parquet/"
                          "transcript-sentiment:") and "offline" in msg and "\n" not in msg
    assert fake.calls == []


def test_listing_failure_missing_split_and_download_failure_are_one_line_errors(online, tmp_path):
    with pytest.raises(DataError, match=r"^\[x\] hf://datasets/r/x@main: cannot list the hub files "
                                        r"\(ConnectionError: no route\)$"):
        D.hf_parquet_files("r/x", dataset="x", api=FakeHfApi(fail_listing=ConnectionError("no route\nmore")))
    with pytest.raises(DataError, match=r"no parquet files there"):
        D.hf_parquet_files("r/x", dataset="x", prefix="nothing", api=FakeHfApi(CONVERTED))
    with pytest.raises(DataError, match=r"no parquet files for split\(s\) \['valid'\]; found \['test', 'train'\]"):
        D.download_hf_parquet("r/x", tmp_path, dataset="x", prefix="transcript-sentiment",
                              splits=["train", "valid"], api=FakeHfApi(CONVERTED))
    with pytest.raises(DataError, match=r"^\[x\] hf://datasets/r/x@main/transcript-sentiment/test/0000.parquet: "
                                        r"download failed \(OSError: disk full\); .*x/transcript-sentiment/test/"):
        D.download_hf_parquet("r/x", tmp_path, dataset="x", prefix="transcript-sentiment",
                              api=FakeHfApi(CONVERTED, fail_download=OSError("disk full")))


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
