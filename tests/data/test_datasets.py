"""What every dataset must satisfy, parametrized over the dataset registry (each folder ``tasks/<domain>/<id>/``
with a ``source.py``) and over the template tables: a new dataset folder is picked up by every test here without
registering anything. A dataset's own ``test_<id>.py`` (in its folder) tests what is particular to it.

* the folder holds every part (source, templates, README, fixture + generator, its tests, the generated YAMLs);
* the README documents the dataset (source, license, fixture, templates, deviations, what was verified);
* the fixture is reproduced by its generator, loads with exactly its MANIFEST counts as toy data, and [LEAK]
  removes nothing from it; a MANIFEST count that does not match is a one-line error;
* offline without data, loading says how to provide the files; a hub dataset downloads only its splits;
* the first and the last template of every table run end to end through lm-eval with a tiny random model.
"""

import json
import math
import re
import shutil
from pathlib import Path

import pytest

from conftest import FakeHub, e2e_tasks, table_specs
from lm_eval_enterprise import data as D
from lm_eval_enterprise.data import DataError, HFParquetSource, load
from lm_eval_enterprise.data.checks import verified
from lm_eval_enterprise.data.fixtures import generate

DATASETS = sorted(D.registry())
TABLES = sorted(table_specs())


def _subtask(ds: str) -> str | None:
    src = D.get_source(ds)
    return src.subtasks[0] if src.subtasks else None


def _files(d: Path) -> dict[str, Path]:
    return {p.relative_to(d).as_posix(): p for p in sorted(d.rglob("*")) if p.is_file()}


# ------------------------------------------------------------------------------------------------ the folder
@pytest.mark.parametrize("ds", DATASETS)
def test_dataset_folder_holds_every_part(ds):
    d = D.dataset_dir(ds)
    for part in ("source.py", "templates.py", "README.md", "make_fixture.py", f"test_{ds}.py", "fixture/MANIFEST.json"):
        assert (d / part).is_file(), f"{ds}: {part} missing"
    assert list(d.glob("*_*__t*.yaml")), f"{ds}: no generated task YAML (make tasks)"
    assert D.fixture_dir(ds) == d / "fixture" and D.get_source(ds).id == ds


@pytest.mark.parametrize("ds", DATASETS)
def test_readme_documents_source_license_fixture_templates_deviations_and_verification(ds):
    text = (D.dataset_dir(ds) / "README.md").read_text(encoding="utf-8")
    for heading in (
        "## How to obtain the data / what can fail",
        "## Templates",
        "## Verified against genuine files",
        "## Citation",
        "## Changelog",
    ):
        assert f"\n{heading}" in text, f"{ds}: README lacks {heading!r}"
    assert f"prepare --dataset {ds} --from PATH" in text, f"{ds}: README does not give the prepare --from route"
    assert re.search(r"^## .*(Deviation|Decision)", text, re.M), f"{ds}: README documents no deviations"
    for row in ("Source", "License", "Fixture"):
        assert re.search(rf"^\| {row} \|", text, re.M), f"{ds}: README table lacks the {row} row"
    fixture_row = re.search(r"^\| Fixture \|(.*)$", text, re.M).group(1)
    assert "`fixture/" in fixture_row and "make_fixture.py" in fixture_row, f"{ds}: {fixture_row}"


# ------------------------------------------------------------------------------------------------ the fixture
@pytest.mark.parametrize("ds", DATASETS)
def test_generator_reproduces_the_checked_in_fixture(ds, tmp_path):
    """Fixtures change only through their generator: same files, same text files byte for byte, and the same
    converted records and counts (binary containers — parquet, xlsx, zip — may differ in library metadata)."""
    out = generate(ds, tmp_path / ds)
    ours, checked_in = _files(out), _files(D.fixture_dir(ds))
    assert sorted(ours) == sorted(checked_in), ds
    binary = {".parquet", ".xlsx", ".zip", ".gz"}
    for rel, path in ours.items():
        if path.suffix not in binary:
            assert path.read_bytes() == checked_in[rel].read_bytes(), f"{ds}: {rel} differs from its generator's"
    src = D.get_source(ds)
    got, got_report = D.inspect_folder(src, out)
    want, want_report = D.inspect_folder(src, D.fixture_dir(ds))
    assert got == want, ds
    assert [c.to_json() for c in got_report.checks] == [c.to_json() for c in want_report.checks]


@pytest.mark.parametrize("ds", DATASETS)
def test_fixture_loads_with_its_manifest_counts_as_toy_data_and_leaks_nothing(ds):
    recs, report = D.load_checked(ds, _subtask(ds), data_root="embedded")
    manifest = json.loads((D.fixture_dir(ds) / D.MANIFEST).read_text())
    counted = {c.key: (c.n, c.expected.n) for c in report.checks if c.key in manifest["expected_rows"]}
    assert counted == {k: (n, n) for k, n in manifest["expected_rows"].items()}, ds
    assert report.status == "ok" and report.declared == D.MANIFEST and report.metadata()["toy_data"] is True
    facts = load._load(ds, _subtask(ds), "embedded", False)[2]
    if facts["fewshot_dedup_fields"] is not None:  # ranking datasets are exempt (leakage.py)
        assert facts["eval_fewshot_pool_duplicates"] == 0, f"{ds}: an evaluation item equals a pool item"
        assert facts["eval_removed_fewshot_duplicates"] == 0
        assert len(recs[report.eval_split]) == facts["eval_rows_before_dedup"]


ZERO_SHOT = sorted({spec.dataset for spec in table_specs().values() if spec.num_fewshot == 0})


@pytest.mark.parametrize("ds", ZERO_SHOT)
def test_zero_shot_dataset_still_gives_lm_eval_a_fewshot_pool(ds):
    """lm-eval needs a few-shot split even at 0 shots: a 0-shot dataset's is its whole train split ([BAL] order;
    the fixture's train holds fewer than FEWSHOT_POOL_MAX records), never empty. The split counts themselves are
    the MANIFEST's (test above)."""
    recs = D.load_records(ds, data_root="embedded")
    assert recs["fewshot"] and len(recs["train"]) <= load.FEWSHOT_POOL_MAX, ds
    assert sorted(r["id"] for r in recs["fewshot"]) == sorted(r["id"] for r in recs["train"]), ds


@pytest.mark.parametrize("ds", DATASETS)
def test_manifest_count_mismatch_is_one_line_error(ds, tmp_path):
    """Every split's count is checked: one row more expected in any one split is a one-line error naming it."""
    d = tmp_path / ds
    shutil.copytree(D.fixture_dir(ds), d)
    manifest = json.loads((d / D.MANIFEST).read_text())
    for split, n in manifest["expected_rows"].items():
        (d / D.MANIFEST).write_text(
            json.dumps({**manifest, "expected_rows": {**manifest["expected_rows"], split: n + 1}})
        )
        with pytest.raises(DataError) as e:
            D.load_records(ds, _subtask(ds), data_root=str(tmp_path))
        msg = str(e.value)
        assert msg.startswith(f"[{ds}] {d}:") and "\n" not in msg, msg
        assert f"split '{split}' has {n:,} rows after conversion, expected {n + 1:,} ({D.MANIFEST})" in msg, msg


# ------------------------------------------------------------------------------------------------ no data, downloads
@pytest.mark.parametrize("var", D.OFFLINE_VARS)
@pytest.mark.parametrize("ds", DATASETS)
def test_offline_without_data_says_how_to_provide(ds, var, monkeypatch):
    for v in D.OFFLINE_VARS:
        monkeypatch.delenv(v, raising=False)
    monkeypatch.setenv(var, "1")
    src = D.get_source(ds)
    with pytest.raises(DataError) as e:
        D.load_records(ds, _subtask(ds))
    msg = str(e.value)
    assert msg.startswith(f"[{ds}] ") and "\n" not in msg and "offline" in msg
    assert f"prepare --dataset {ds}" in msg and D.ENV_DATA in msg and "data_root" in msg
    assert all(f.name in msg for f in src.files), (ds, [f.name for f in src.files])


HUB_DATASETS = [
    ds
    for ds in DATASETS
    if isinstance(D.get_source(ds), HFParquetSource) and type(D.get_source(ds)).download is HFParquetSource.download
]


@pytest.mark.parametrize("ds", HUB_DATASETS)
def test_hub_dataset_prepares_only_its_splits_then_loads_offline(ds, monkeypatch, tmp_path):
    """``prepare`` asks the hub (``snapshot_download``, faked) for the Source's repo, revision and split patterns
    only — never another config or split — and the cached copy then loads offline like the fixture."""
    import huggingface_hub

    src = D.get_source(ds)
    # the fake hub serves the fixture's few rows: hold the staged copy to the fixture's counts, as verified ones
    manifest = json.loads((D.fixture_dir(ds) / D.MANIFEST).read_text())
    counts = {s: verified(n, "the fake hub's fixture rows") for s, n in manifest["expected_rows"].items()}
    monkeypatch.setattr(src, "expected_rows", counts)
    repo = {rel: p.read_bytes() for rel, p in _files(D.fixture_dir(ds)).items() if rel.endswith(".parquet")}
    decoys = {"README.md": b"", "other-config/train/0000.parquet": b"", "x/test-00000-of-00001.parquet": b""}
    hub = FakeHub({**repo, **decoys})
    monkeypatch.setattr(huggingface_hub, "snapshot_download", hub)
    for v in D.OFFLINE_VARS:
        monkeypatch.delenv(v, raising=False)
    d = D.prepare(src, progress=False)
    assert [(c["repo_id"], c["revision"], c["repo_type"]) for c in hub.calls] == [
        (src.hf_repo, src.hf_revision, "dataset")
    ]
    wanted = {s for s in src.hf_splits}
    assert {p for p in hub.downloaded()} == {p for p in repo if D.hf_parquet_split(p, src.hf_prefix) in wanted}
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    shutil.copy(D.fixture_dir(ds) / D.MANIFEST, d / D.MANIFEST)
    D.clear_caches()
    assert D.load_records(ds, _subtask(ds)) == D.load_records(ds, _subtask(ds), data_root="embedded")


# ------------------------------------------------------------------------------------------------ end to end
def _flan_tail(spec, template_id: str, doc: dict) -> str:
    """The last line of the template rendered on ``doc`` (what a prompt built from it must end with)."""
    from lm_eval.utils import apply_template

    tpl = next(t for t in spec.templates if t.id == template_id)
    return apply_template(tpl.doc_to_text, doc).rstrip().splitlines()[-1]


@pytest.mark.parametrize("table", TABLES)
def test_end_to_end_tiny_model(table, tiny_e2e):
    """The first and the last template of every table through lm-eval's hf backend on the embedded data: every
    reported metric is a finite share (``shots_used`` a shot count), the configured shots and metadata are the
    table's, and every prompt ends with the template's output field."""
    spec = table_specs()[table]
    res = tiny_e2e(table)
    for task in e2e_tasks(table):
        row, config = res["results"][task], res["configs"][task]
        metrics = {k: v for k, v in row.items() if "," in k and not k.split(",")[0].endswith("_stderr")}
        assert metrics, task
        for key, value in metrics.items():
            upper = spec.num_fewshot if key.startswith("shots_used,") else 1.0
            assert isinstance(value, float) and math.isfinite(value) and 0.0 <= value <= upper, (task, key, value)
        assert config["num_fewshot"] == spec.num_fewshot
        assert config["metadata"]["dataset"] == spec.table_id and config["metadata"]["toy_data"] is True
        assert config["metadata"]["template_id"] == task.rsplit("__", 1)[1]
        samples = res["samples"][task]
        # an enterprise template ends with its output field ("Answer:"); a FLAN pattern ends with its own text
        # (its options list, or a phrase such as "...I think the answer is"), which the prompt must end with
        tail = ":" if spec.suite == "enterprise" else _flan_tail(spec, task.rsplit("__", 1)[1], samples[0]["doc"])
        assert samples and samples[0]["arguments"][0][0].rstrip().endswith(tail), (task, tail)
        assert spec.suite != "enterprise" or all(s["arguments"][0][0].rstrip().endswith(":") for s in samples), task
