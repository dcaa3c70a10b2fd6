"""finer139: IOB2 decoding, top-10 reduction, seeded sample, label names, both hub layouts, errors, end to end.

No real sample exists for FiNER-139: everything runs on the fixture (``finer139.zip`` + ``dataset_infos.json``
as published on the hub's main branch, and the auto-converted parquet files with the same sentences) or on files
written in tmp_path.
"""

import json
import random
import re
import shutil
import zipfile
from collections import Counter
from pathlib import Path

import pytest
from lm_eval_enterprise.tasks.finance.finer139 import source as S
from lm_eval_enterprise.tasks.finance.finer139.templates import TASKS

from lm_eval_enterprise.data import DataError, fixture_dir, get_source, load_records, load_task_dataset
from lm_eval_enterprise.prompting.templating import answer_filter
from lm_eval_enterprise.scoring import hooks as H
from lm_eval_enterprise.scoring.metrics import INVALID
from testkit.testing import GARBAGE, assert_unit_scores, run_hf_model, run_oracle

SRC = get_source("finer139")
FIX = fixture_dir("finer139")
NAMES = S.parquet_label_names(FIX / "finer-139" / "train" / "0000.parquet")
TOP10 = [
    "DebtInstrumentInterestRateStatedPercentage",
    "DebtInstrumentBasisSpreadOnVariableRate1",
    "LineOfCreditFacilityMaximumBorrowingCapacity",
    "DebtInstrumentFaceAmount",
    "AllocatedShareBasedCompensationExpense",
    "AmortizationOfIntangibleAssets",
    "EffectiveIncomeTaxRateContinuingOperations",
    "ConcentrationRiskPercentage1",
    "DebtInstrumentMaturityDate",
    "Goodwill",
]


# ------------------------------------------------------------------------------------------------ pure parts
def test_verbalise_camel_case():
    assert S.verbalise("DebtInstrumentInterestRateStatedPercentage") == (
        "debt instrument interest rate stated percentage"
    )
    assert S.verbalise("DebtInstrumentBasisSpreadOnVariableRate1") == "debt instrument basis spread on variable rate 1"
    assert S.verbalise("SharebasedCompensationArrangementBySharebasedPaymentAwardExpirationPeriod") == (
        "sharebased compensation arrangement by sharebased payment award expiration period"
    )
    assert S.verbalise("Goodwill") == "goodwill"


def test_iob2_spans():
    tags = ["O", "B-A", "I-A", "I-A", "O", "I-A", "B-A", "B-A", "I-B", "I-B", "B-B", "I-A"]
    assert S.iob2_spans(tags) == [
        ("A", 1, 4),
        ("A", 5, 6),
        ("A", 6, 7),
        ("A", 7, 8),
        ("B", 8, 10),
        ("B", 10, 11),
        ("A", 11, 12),
    ]


def _write_parquet(path: Path, rows, names, with_metadata=True, batch_rows=None):
    import datasets
    import pyarrow as pa
    import pyarrow.parquet as pq

    path.parent.mkdir(parents=True, exist_ok=True)
    cols = {"id": [r[0] for r in rows], "tokens": [r[1] for r in rows], "ner_tags": [r[2] for r in rows]}
    if with_metadata:
        seq = getattr(datasets, "List", None) or datasets.Sequence
        feats = datasets.Features(
            {
                "id": datasets.Value("string"),
                "tokens": seq(datasets.Value("string")),
                "ner_tags": seq(datasets.ClassLabel(names=names)),
            }
        )
        datasets.Dataset.from_dict(cols, features=feats).to_parquet(str(path), batch_size=batch_rows or 1000)
    else:
        pq.write_table(pa.table(cols), path, row_group_size=batch_rows or 1000)


def test_vectorised_span_counts_equal_python_decoding(tmp_path):
    rng = random.Random(3)
    labels = NAMES[:1] + [n for n in NAMES if n[2:] in ("Goodwill", "Revenues", "DebtInstrumentFaceAmount")]
    rows = []
    for i in range(700):
        n = rng.randrange(0, 9)  # includes empty sentences
        rows.append((str(i), [f"t{j}" for j in range(n)], [rng.randrange(len(labels)) for _ in range(n)]))
    path = tmp_path / "x.parquet"
    _write_parquet(path, rows, labels, batch_rows=97)  # sentences spread over many row groups
    got, n_rows = S.count_train_spans([path], labels)
    want = Counter(t for _, _, tags in rows for t, _, _ in S.iob2_spans([labels[x] for x in tags]))
    assert n_rows == 700 and got == want


def test_top_k_ties_by_name():
    counts = Counter({"B": 5, "A": 5, "C": 7, "Z": 1, "Y": 1})
    assert S.top_k_types(counts, 4) == ["C", "A", "B", "Y"]


def test_seeded_eval_sample_sorted_numerically():
    recs = [{"id": str(i)} for i in range(1500)]
    out = S.sample_eval(recs)
    want = sorted(random.Random(0).sample(recs, 1000), key=lambda r: int(r["id"]))
    assert out == want and len(out) == 1000
    assert S.sample_eval(recs) == out  # deterministic
    small = [{"id": i} for i in ("10", "9", "100")]
    assert [r["id"] for r in S.sample_eval(small)] == ["9", "10", "100"]
    assert [r["id"] for r in S.sample_eval([{"id": "b"}, {"id": "a"}])] == ["a", "b"]


def _parquet_only(tmp_path) -> Path:
    d = tmp_path / "finer139"
    shutil.copytree(FIX / "finer-139", d / "finer-139")
    shutil.copy(FIX / "MANIFEST.json", d / "MANIFEST.json")
    return d


# ------------------------------------------------------------------------------------------------ fixture
def test_fixture_is_the_hub_schema():
    import pyarrow.parquet as pq

    for split in ("train", "test"):
        schema = pq.read_schema(FIX / "finer-139" / split / "0000.parquet")
        assert schema.names == ["id", "tokens", "ner_tags"]
    assert len(NAMES) == 279 and NAMES[0] == "O" and len({n[2:] for n in NAMES[1:]}) == 139


def test_convert_fixture_top10_and_filter():
    splits = SRC.convert(FIX)
    assert (len(splits["train"]), len(splits["test"])) == (21, 12)
    rec = splits["test"][0]
    assert rec["entity_types"] == [S.verbalise(t) for t in TOP10]  # ties by name: Revenues (2) is out
    assert rec["type_list"] == ", ".join(rec["entity_types"])
    assert [r["id"] for r in splits["test"]] == [
        "95",
        "96",
        "97",
        "98",
        "99",
        "101",
        "102",
        "103",
        "104",
        "105",
        "107",
        "108",
    ]  # numeric order; 100, 106 dropped
    by_id = {r["id"]: r for s in splits.values() for r in s}
    assert by_id["105"]["target"] == "1,118 (goodwill)"  # OperatingLeaseCost removed
    assert by_id["10"]["target"] == (
        "March 15 , 2026 (debt instrument maturity date), 3.875 (debt instrument interest rate stated percentage)"
    )
    assert by_id["18"]["entities"][0] == {
        "text": "2029",
        "type": "debt instrument maturity date",
        "xbrl": "DebtInstrumentMaturityDate",
        "start": 5,
        "end": 6,
    }  # I- alone
    assert by_id["6"]["target"] == "42.1 (amortization of intangible assets), 39.8 (amortization of intangible assets)"
    assert "12" not in by_id and "13" not in by_id  # only Revenues / OperatingLeaseCost
    assert by_id["21"]["target"] == "95 (goodwill)" and by_id["21"]["top_type"] == "Goodwill"


def test_fewshot_key_and_deterministic_bal_order():
    a = load_records("finer139", data_root="embedded")
    b = load_records("finer139", data_root="embedded")
    assert [r["id"] for r in a["fewshot"]] == [r["id"] for r in b["fewshot"]]
    shots = a["fewshot"][: TASKS.num_fewshot]
    assert len({r["top_type"] for r in shots}) >= 8  # [BAL] by type: shots cover many types
    rec = next(r for r in a["train"] if r["id"] == "3")  # FACE 400.0 and IR 4.125: a 1–1 tie
    assert SRC.fewshot_key(rec) == "DebtInstrumentFaceAmount"  # ties alphabetical


def test_task_metadata_records_the_list():
    meta = SRC.task_metadata(load_records("finer139", data_root="embedded"))
    assert meta == {"top_k_types": [S.verbalise(t) for t in TOP10], "top_k_xbrl": TOP10}
    # outside lm-eval the loader hook finds no task and just returns the data
    assert "test" in load_task_dataset(dataset_id="finer139", data_root="embedded")


def test_other_config_folder_name_is_accepted(tmp_path):
    d = tmp_path / "finer139"
    shutil.copytree(FIX / "finer-139", d / "default")
    shutil.copy(FIX / "MANIFEST.json", d / "MANIFEST.json")
    assert SRC.has_source_layout(d) and SRC.config_dir(d) == "default"
    assert len(load_records("finer139", data_root=str(tmp_path))["test"]) == 12


# ------------------------------------------------------------------------------------------------ label names
def test_sequence_class_names_all_serialisations():
    cl = {"names": ["O", "B-X"], "_type": "ClassLabel"}
    assert S.sequence_class_names({"feature": cl, "_type": "Sequence"}) == ["O", "B-X"]  # datasets 2/3 (hub)
    assert S.sequence_class_names({"feature": cl, "_type": "List"}) == ["O", "B-X"]  # datasets 4+
    assert S.sequence_class_names([cl]) == ["O", "B-X"]
    assert S.sequence_class_names({"dtype": "int64", "_type": "Value"}) is None
    assert S.sequence_class_names({"feature": {"names": ["O", "B-X"]}}) == ["O", "B-X"]  # hand-written, no _type


def test_dataset_infos_names_and_split_sizes():
    names, rows = S.read_dataset_infos(FIX / "dataset_infos.json")
    assert names == NAMES  # the same 279 names as the parquet metadata
    assert rows == {"train": 25, "validation": 3, "test": 14}


def _copy_without_metadata(tmp_path):
    import pyarrow.parquet as pq

    d = tmp_path / "finer139"
    for split in ("train", "test"):
        table = pq.read_table(FIX / "finer-139" / split / "0000.parquet").replace_schema_metadata(None)
        (d / "finer-139" / split).mkdir(parents=True)
        pq.write_table(table, d / "finer-139" / split / "0000.parquet")
    shutil.copy(FIX / "MANIFEST.json", d / "MANIFEST.json")
    return d


def test_label_names_file_fallback_and_errors(tmp_path):
    d = _copy_without_metadata(tmp_path)
    with pytest.raises(DataError, match=r"^\[finer139\] .*0000.parquet: no ClassLabel names for ner_tags"):
        SRC.convert(d)
    (d / S.LABEL_NAMES_FILE).write_text(json.dumps(NAMES))
    assert len(SRC.convert(d)["test"]) == 12
    shutil.copy(FIX / "finer-139" / "train" / "0000.parquet", d / "finer-139" / "train" / "0000.parquet")
    (d / S.LABEL_NAMES_FILE).write_text(json.dumps(NAMES[:-1] + ["I-Other"]))
    with pytest.raises(DataError, match=r"label_names.json: label names differ from the ClassLabel names"):
        SRC.convert(d)


def test_parquet_without_metadata_takes_names_from_dataset_infos(tmp_path):
    d = _copy_without_metadata(tmp_path)
    shutil.copy(FIX / "dataset_infos.json", d / "dataset_infos.json")
    assert SRC.convert(d) == SRC.convert(FIX)


# ------------------------------------------------------------------------------------------------ published layout
def test_published_zip_and_parquet_give_the_same_records(tmp_path):
    # FIX holds both layouts; the zip is read first. Same sentences → identical records (ids: JSON ints → "95")
    assert S.JsonlSplits.find(FIX).archive == FIX / "finer139.zip"
    assert SRC.convert(FIX) == SRC.convert(_parquet_only(tmp_path))


@pytest.mark.parametrize("sub", ["", "finer139"])
def test_unzipped_layout_top_level_or_one_folder(tmp_path, sub):
    d = tmp_path / "finer139"
    with zipfile.ZipFile(FIX / "finer139.zip") as zf:
        zf.extractall(d / sub)
    shutil.copy(FIX / "MANIFEST.json", d / "MANIFEST.json")  # without dataset_infos.json: string tags need none
    assert SRC.has_source_layout(d) and not (d / "finer139.zip").exists()
    assert S.JsonlSplits.find(d).root == d / sub
    loaded = load_records("finer139", data_root=str(tmp_path))["test"]  # served in the fair order: compare by id
    assert sorted(loaded, key=lambda r: r["id"]) == sorted(SRC.convert(FIX)["test"], key=lambda r: r["id"])


def _zip_variant(tmp_path, edit=None, infos=True) -> Path:
    """A copy of the published fixture whose train.jsonl lines went through ``edit(lines) -> lines``."""
    d = tmp_path / "finer139"
    d.mkdir(parents=True)
    shutil.copy(FIX / "MANIFEST.json", d / "MANIFEST.json")
    if infos:
        shutil.copy(FIX / "dataset_infos.json", d / "dataset_infos.json")
    with zipfile.ZipFile(FIX / "finer139.zip") as src, zipfile.ZipFile(d / "finer139.zip", "w") as dst:
        for name in src.namelist():
            data = src.read(name)
            if name == "train.jsonl" and edit is not None:
                data = b"\n".join(edit(data.rstrip(b"\n").split(b"\n"))) + b"\n"
            dst.writestr(name, data)
    return d


def _rows(lines):
    return [json.loads(x) for x in lines]


def _dump(rows):
    return [json.dumps(r).encode() for r in rows]


def test_jsonl_class_label_ids_need_the_infos_names(tmp_path):
    def to_ids(lines):
        rows = _rows(lines)
        for r in rows:
            r["ner_tags"] = [NAMES.index(t) for t in r["ner_tags"]]
        return _dump(rows)

    d = _zip_variant(tmp_path, to_ids)
    assert SRC.convert(d) == SRC.convert(FIX)  # ids mapped through dataset_infos.json's names
    (d / "dataset_infos.json").unlink()
    with pytest.raises(
        DataError,
        match=r"^\[finer139\] .*finer139.zip!train.jsonl:1: ner_tags are ClassLabel ids "
        r"but there is no dataset_infos.json",
    ):
        SRC.convert(d)


def test_jsonl_missing_id_is_the_line_index(tmp_path):
    def drop_ids(lines):
        rows = _rows(lines)
        for r in rows:
            del r["id"]
        return _dump(rows)

    train = SRC.convert(_zip_variant(tmp_path, drop_ids))["train"]
    # fixture train ids are 0..24 in file order = the 0-based line index
    assert [r["id"] for r in train] == [r["id"] for r in SRC.convert(FIX)["train"]]


@pytest.mark.parametrize(
    "edit, problem",
    [
        (lambda ls: ls[:2] + [b'{"id": 2, "tokens": ["a"'] + ls[3:], r"train.jsonl:3: invalid JSON line"),
        (
            lambda ls: ls[:4] + [b'{"id": 4, "tokens": ["a", "b"], "ner_tags": ["O"]}'] + ls[5:],
            r"train.jsonl:5: 2 tokens but 1 ner_tags",
        ),
        (
            lambda ls: [b'{"id": 0, "tokens": ["5"], "ner_tags": ["B-NotAnXbrlTag"]}'] + ls[1:],
            r"train.jsonl:1: unknown ner_tags \['B-NotAnXbrlTag'\]",
        ),
        (
            lambda ls: [b'{"id": 0, "tokens": ["5"], "ner_tags": ["PERCENT"]}'] + ls[1:],
            r"train.jsonl:1: unknown ner_tags \['PERCENT'\]",
        ),
        (
            lambda ls: ls[:1] + [b'{"id": 1, "tokens": ["caf\xe9"], "ner_tags": ["O"]}'] + ls[2:],
            r"train.jsonl:2: not UTF-8",
        ),
        (lambda ls: [b'["a", "list"]'] + ls[1:], r"train.jsonl:1: expected an object with 'tokens' and 'ner_tags'"),
    ],
)
def test_jsonl_bad_lines_are_one_line_errors_naming_file_and_line(tmp_path, edit, problem):
    d = _zip_variant(tmp_path, edit)
    with pytest.raises(DataError) as e:
        SRC.convert(d)
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith(f"[finer139] {d / 'finer139.zip'}!") and re.search(problem, msg), msg


def test_jsonl_split_size_must_match_dataset_infos(tmp_path):
    d = _zip_variant(tmp_path, lambda ls: ls[:-1])  # the last train sentence lost
    with pytest.raises(
        DataError,
        match=r"finer139.zip!train.jsonl: 24 sentences, but dataset_infos.json says 25 "
        r"for 'train'",
    ):
        SRC.convert(d)
    # without dataset_infos.json the MANIFEST/spec count applies (25 expected here, tolerance 0)
    d2 = _zip_variant(tmp_path / "b", lambda ls: ls[:-1], infos=False)
    with pytest.raises(DataError, match=r"24 train sentences in the source files, expected 25 \(MANIFEST.json\)"):
        SRC.convert(d2)


def test_zip_without_a_split_or_broken_is_an_error(tmp_path):
    d = tmp_path / "finer139"
    d.mkdir()
    with zipfile.ZipFile(d / "finer139.zip", "w") as zf:
        zf.writestr("train.jsonl", "")
    with pytest.raises(DataError, match=r"finer139.zip: expected one test.jsonl in the archive, found 0"):
        SRC.convert(d)
    (d / "finer139.zip").write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(DataError, match=r"finer139.zip: not a readable zip archive"):
        SRC.convert(d)


def test_wrong_row_count_is_one_line_error(tmp_path, caplog):
    d = tmp_path / "finer139"
    shutil.copytree(FIX, d)
    manifest = json.loads((d / "MANIFEST.json").read_text())
    (d / "MANIFEST.json").write_text(json.dumps({**manifest, "raw_rows": {"train": 900384, "test": 14}}))
    with pytest.raises(DataError) as e:
        load_records("finer139", data_root=str(tmp_path))
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith(f"[finer139] {d}:") and "25 train sentences in the source" in msg
    # without a manifest the dataset card's sizes apply (900,384 / 108,378): never counted on the genuine files, so
    # a mismatch is a logged warning, not an error
    (d / "MANIFEST.json").unlink()
    SRC.convert(d)
    warned = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert any("25 train sentences in the source files, expected 900,384 (unverified" in m for m in warned), warned


def test_bad_tag_id_names_the_file(tmp_path):
    path = tmp_path / "finer139" / "finer-139" / "train" / "0000.parquet"
    _write_parquet(path, [("0", ["a"], [0])], NAMES)
    _write_parquet(path.parent.parent / "test" / "0000.parquet", [("1", ["a"], [0])], NAMES)
    import pyarrow as pa
    import pyarrow.parquet as pq

    t = pq.read_table(path)
    bad = t.set_column(2, "ner_tags", pa.array([[999]], type=t.schema.field("ner_tags").type))
    pq.write_table(bad.replace_schema_metadata(t.schema.metadata), path)
    with pytest.raises(DataError, match=r"^\[finer139\] .*train/0000.parquet: ner_tags id outside the 279 label"):
        SRC.convert(path.parents[2])


# ------------------------------------------------------------------------------------------------ download
class FakeHub:
    """``HfApi`` stand-in: 'downloads' the published files of the main branch from the fixture."""

    def __init__(self, fail: str | None = None):
        self.calls, self.fail = [], fail

    def hf_hub_download(self, repo_id, filename, repo_type=None, revision=None, local_dir=None):
        self.calls.append((repo_id, filename, repo_type, revision))
        if filename == self.fail:
            raise OSError("404 Client Error: Entry Not Found")
        dest = Path(local_dir) / filename
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(FIX / filename, dest)
        return str(dest)


def _online(monkeypatch):
    for var in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "LM_EVAL_ENTERPRISE_OFFLINE"):
        monkeypatch.delenv(var, raising=False)


def test_download_fetches_the_published_zip_and_infos(tmp_path, monkeypatch):
    _online(monkeypatch)
    api = FakeHub()
    SRC.download(tmp_path, api=api)
    # hf_hub_download of the main branch's two files (no parquet listing, no converted revision)
    assert api.calls == [
        ("nlpaueb/finer-139", "finer139.zip", "dataset", "main"),
        ("nlpaueb/finer-139", "dataset_infos.json", "dataset", "main"),
    ]
    assert [f.name for f in SRC.files] == ["finer139.zip", "dataset_infos.json"]
    assert SRC.files[0].url == "https://huggingface.co/datasets/nlpaueb/finer-139/resolve/main/finer139.zip"
    shutil.copy(FIX / "MANIFEST.json", tmp_path / "MANIFEST.json")  # fixture-sized row counts
    assert SRC.has_source_layout(tmp_path) and len(SRC.convert(tmp_path)["test"]) == 12


def test_download_failure_and_offline_are_one_line_errors(tmp_path, monkeypatch):
    _online(monkeypatch)
    with pytest.raises(
        DataError,
        match=r"^\[finer139\] hf://datasets/nlpaueb/finer-139/dataset_infos.json: download "
        r"failed: HTTP 404: the file or repository is missing at that address \(OSError: 404 Client Error: Entry "
        r"Not Found\); obtain the files elsewhere and run `lm-eval-enterprise prepare --dataset finer139 --from",
    ):
        SRC.download(tmp_path, api=FakeHub(fail="dataset_infos.json"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(DataError, match=r"^\[finer139\] hf://datasets/nlpaueb/finer-139: cannot download: offline"):
        SRC.download(tmp_path)


# ------------------------------------------------------------------------------------------------ templates, runs
def test_templates_use_the_type_list_and_accept_gold():
    gold = "4.75 (debt instrument interest rate stated percentage), 650 (debt instrument face amount)"
    doc = {"entity_types": [S.verbalise(t) for t in TOP10]}
    for tpl in TASKS.templates:
        assert "{{type_list}}" in tpl.description + tpl.doc_to_text, tpl.id
        flt = answer_filter(TASKS, tpl)  # [PARSE]: the [EF1] parser decides, the same in every template
        assert flt.read(" " + gold + "\nSentence: x", doc) == gold, tpl.id
        assert flt.read(" " + gold, doc).adherent, tpl.id  # {TYPES} filled from the document
        assert flt.read(GARBAGE, doc) == INVALID, tpl.id
    items = [
        {
            "gold": gold,
            "pred": "4.75 (Debt instrument interest rate stated percentage), 65 (goodwill)",
            "types": [S.verbalise(t) for t in TOP10],
        }
    ]
    assert H.agg_entity_f1(items) == 0.5  # TP 1, FP 1, FN 1


def test_results_metadata_has_the_top10_list():
    res = run_oracle(["ent_finer139__t1"], "embedded")
    meta = res["configs"]["ent_finer139__t1"]["metadata"]
    assert meta["top_k_xbrl"] == TOP10 and meta["top_k"] == 10
    assert meta["prompt_budget"]["shots_requested"] == 10
    assert res["results"]["ent_finer139__t1"]["entity_f1,answer"] == 1.0


def test_end_to_end_tiny_model_on_fixture(tiny_model_dir):
    res = run_hf_model(tiny_model_dir, ["ent_finer139__t1"], "embedded", gen_kwargs="max_gen_toks=8")
    keys = ("entity_f1", "entity_precision", "entity_recall", "format_failure", "prompt_cut")
    assert_unit_scores(res, ["ent_finer139__t1"], tuple(f"{m},answer" for m in keys))
    row = res["results"]["ent_finer139__t1"]
    # the shot plan is shared by the five templates (the most demanding one decides): at most the 10 requested,
    # and any shortfall is reported as a cut prompt
    assert 1.0 <= row["shots_used,answer"] <= 10.0
    assert (row["prompt_cut,answer"] > 0) == (row["shots_used,answer"] < 10.0)


def test_string_tags_are_refused(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    d = tmp_path / "finer139" / "finer-139"
    for split in ("train", "test"):
        (d / split).mkdir(parents=True)
        pq.write_table(
            pa.table({"id": ["0"], "tokens": [["5.0"]], "ner_tags": [["B-Goodwill"]]}), d / split / "0000.parquet"
        )
    (d.parent / S.LABEL_NAMES_FILE).write_text(json.dumps(NAMES))
    with pytest.raises(DataError, match=r"ner_tags is list<element: string>, expected lists of ClassLabel ids"):
        SRC.convert(d.parent)
