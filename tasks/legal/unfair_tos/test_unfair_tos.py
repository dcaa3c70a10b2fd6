"""unfair_tos: loader on the two-origin source layout (hub parquet test + LegalBench train.tsv; fixture), the real
9-row train sample through the pre-split path (with a synthetic test file), label/index parsing, row checks,
download through a fake hub and a fake GitHub, [BAL] shots over 9 singleton classes, template regexes, [WF1] by
hand, end to end with the tiny model."""

import json
import shutil
from pathlib import Path

import pytest
from lm_eval_enterprise.tasks.legal.unfair_tos import source as S
from lm_eval_enterprise.tasks.legal.unfair_tos.templates import TASKS, TEMPLATES

from conftest import FakeHub, shared_sample
from lm_eval_enterprise.data import DataError, fixture_dir, get_source, load_records, prepare
from lm_eval_enterprise.data.fewshot import helm_balanced
from lm_eval_enterprise.prompting.templating import answer_filter
from lm_eval_enterprise.scoring import metrics as M
from testkit.testing import GARBAGE, assert_unit_scores, run_hf_model

SRC = get_source("unfair_tos")
FIX = fixture_dir("unfair_tos")
TEST_PARQUET = "unfair_tos/test/0000.parquet"
# the label set in the spec's order, as the spec's reference prompt (t1) lists it: the tests' own oracle, typed from
# the spec, not read from the code under test
SPEC_OPTIONS = (
    "Arbitration, Unilateral change, Content removal, Jurisdiction, Choice of law, Limitation of liability, "
    "Unilateral termination, Contract by using, Other"
)
SPEC_LABELS = SPEC_OPTIONS.split(", ")
# [BAL] with 9 singleton classes: the first 5 shots' labels, the seeded shuffle order of the sorted label names (it
# depends on the label set only, so the fixture's and the real train rows give the same order)
BAL_SHOT_LABELS = [
    "Unilateral change",
    "Limitation of liability",
    "Choice of law",
    "Contract by using",
    "Jurisdiction",
]
SYNTH_TEST = [  # synthetic LegalBench-format test rows for the pre-split path (the real sample has no test file)
    {"text": "we may close inactive accounts after twelve months . ", "answer": "Unilateral termination", "index": 0},
    {"text": "these terms are governed by swiss law . ", "answer": "Choice of law", "index": 1},
    {"text": "our office hours are nine to five . ", "answer": "Other", "index": 2},
]


def _write_parquet(path: Path, rows: list[dict], index_type: str = "int64") -> None:
    import datasets

    feats = datasets.Features(
        {"answer": datasets.Value("string"), "index": datasets.Value(index_type), "text": datasets.Value("string")}
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    datasets.Dataset.from_dict({k: [r[k] for r in rows] for k in feats}, features=feats).to_parquet(str(path))


def _jsonl(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def _sample_dir(tmp_path: Path) -> Path:
    """tmp_path/unfair_tos/ = the real train.jsonl (copied for this test only) + a synthetic test.jsonl."""
    d = tmp_path / "unfair_tos"
    d.mkdir()
    shutil.copy(shared_sample("unfair_tos") / "train.jsonl", d / "train.jsonl")
    _jsonl(d / "test.jsonl", SYNTH_TEST)
    return d


# ------------------------------------------------------------------------------------------------ loader (fixture)
def test_convert_fixture_two_origin_layout():
    splits = SRC.convert(FIX)
    assert {k: len(v) for k, v in splits.items()} == {"train": 9, "test": 12}
    assert splits["train"][0] == {
        "id": "train-0",
        "text": "these terms were last revised on march 3 , 2021 . ",
        "label": "Other",
    }  # text kept as stored (trailing space)
    assert splits["test"][1]["id"] == "test-1" and splits["test"][1]["label"] == "Unilateral change"
    assert sorted(r["label"] for r in splits["train"]) == sorted(SPEC_LABELS)  # one train clause per class
    assert SRC.convert(FIX) == splits  # official split: deterministic, nothing re-split


def test_load_records_label_names_in_spec_order_and_balanced_shots():
    recs = load_records("unfair_tos", data_root="embedded")
    assert recs["test"][0]["label_names"] == SPEC_LABELS
    assert list(S.LABELS) == SPEC_LABELS
    shots = recs["fewshot"][:5]
    assert [r["id"] for r in shots] == [r["id"] for r in helm_balanced(recs["train"], lambda r: r["label"], 5)]
    assert [r["label"] for r in shots] == BAL_SHOT_LABELS  # 5 distinct labels
    assert all(r["id"].startswith("train-") for r in recs["fewshot"])


# ------------------------------------------------------------------------------------------------ real sample
def test_presplit_real_train_sample_with_synthetic_test(tmp_path):
    d = _sample_dir(tmp_path)
    raw = [json.loads(line) for line in (d / "train.jsonl").read_text().splitlines()]
    recs = load_records("unfair_tos", data_root=str(tmp_path))
    train = recs["train"]
    assert len(train) == 9 and len(recs["test"]) == 3
    assert [r["id"] for r in train] == [f"train-{i}" for i in range(9)]
    assert train[0]["label"] == "Other" and train[0]["text"] == "last updated date : may 15 , 2017 "
    assert train[1]["label"] == "Arbitration" and train[1]["text"].startswith("arbitration notice : unless you opt")
    assert [r["label"] for r in train] == [r["answer"] for r in raw] == [r["label"] for r in raw]
    assert sorted(r["label"] for r in train) == sorted(SPEC_LABELS)  # all 9 classes, once each
    assert [r["text"] for r in train] == [r["text"] for r in raw]
    assert [r["label"] for r in recs["fewshot"][:5]] == BAL_SHOT_LABELS  # the same order as on the fixture
    # the synthetic test file's labels (Unilateral termination, Choice of law, Other), served in the fair order
    assert sorted(r["label"] for r in recs["test"]) == ["Choice of law", "Other", "Unilateral termination"]


def test_presplit_bad_answer_names_the_file_and_line(tmp_path):
    d = _sample_dir(tmp_path)
    _jsonl(d / "test.jsonl", [SYNTH_TEST[0], dict(SYNTH_TEST[0], answer="Maybe")])
    with pytest.raises(DataError, match=r"^\[unfair_tos\] .*test.jsonl:2: answer 'Maybe' is not one of"):
        load_records("unfair_tos", data_root=str(tmp_path))
    row = dict(SYNTH_TEST[0])
    del row["answer"]
    _jsonl(d / "test.jsonl", [SYNTH_TEST[0], row])
    with pytest.raises(DataError, match=r"test.jsonl:2: row lacks columns \['answer'\]"):
        load_records("unfair_tos", data_root=str(tmp_path))


# ------------------------------------------------------------------------------------------------ parsing
@pytest.mark.parametrize(
    "value,expected",
    [
        ("Choice of law", "Choice of law"),
        (" choice of law ", "Choice of law"),
        ("CONTRACT BY USING", "Contract by using"),
        ("Other", "Other"),
    ],
)
def test_answer_to_canonical_label(value, expected):
    assert S.canonical_label(value, "w") == expected


def test_bad_answer_index_and_text_errors():
    with pytest.raises(DataError, match=r"^\[unfair_tos\] f:3: answer 'Unfair' is not one of"):
        S.canonical_label("Unfair", "f:3")
    with pytest.raises(DataError, match="answer None"):
        S.canonical_label(None, "f:3")
    assert S.row_index("17", "w") == 17 and S.row_index(17, "w") == 17
    for bad in ("x", None, True, "1.5"):
        with pytest.raises(DataError, match="is not an integer"):
            S.row_index(bad, "w")
    with pytest.raises(DataError, match="empty clause text"):
        S.to_record({"text": "  ", "answer": "Other", "index": 0}, "test", "w")
    with pytest.raises(DataError, match=r"row lacks columns \['index'\]"):
        S.to_record({"text": "x", "answer": "Other"}, "test", "w")


def test_train_tsv_parsing_and_errors(tmp_path):
    d = tmp_path / "unfair_tos"
    shutil.copytree(FIX, d)
    tsv = d / "train.tsv"
    rows = S.read_tsv(tsv)
    assert len(rows) == 9 and set(rows[0]) == {"text", "answer", "index"} and rows[0]["index"] == "0"
    tsv.write_text("text\tlabel\nsome clause .\tOther\n")  # an older LegalBench header
    with pytest.raises(DataError, match=r"^\[unfair_tos\] .*train.tsv: missing columns \['answer', 'index'\]"):
        SRC.convert(d)
    tsv.write_text("text\tanswer\tindex\nclause one .\tOther\t0\nclause two .\tTermination\t1\n")
    with pytest.raises(DataError, match=r"train.tsv:line 3: answer 'Termination' is not one of"):
        SRC.convert(d)
    tsv.write_text("text\tanswer\tindex\nclause one .\tOther\t0\nclause two .\tOther\t0\n")
    with pytest.raises(DataError, match=r"train.tsv: duplicate index in 'train-0'"):
        SRC.convert(d)


def test_parquet_string_index_and_missing_column(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    d = tmp_path / "unfair_tos"
    shutil.copytree(FIX, d)
    _write_parquet(d / TEST_PARQUET, [{"text": "a clause .", "answer": "Jurisdiction", "index": "41"}], "string")
    assert SRC.convert(d)["test"] == [{"id": "test-41", "text": "a clause .", "label": "Jurisdiction"}]
    pq.write_table(pa.table({"text": ["x"], "answer": ["Other"]}), d / TEST_PARQUET)
    with pytest.raises(DataError, match=r"^\[unfair_tos\] .*test/0000.parquet: missing columns \['index'\]"):
        SRC.convert(d)


def test_offline_without_data_names_both_sources(monkeypatch):
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    with pytest.raises(
        DataError,
        match=r"\[unfair_tos\].*offline.*prepare --dataset unfair_tos.*"
        r"unfair_tos/test/\*\.parquet.*train\.tsv",
    ):
        load_records("unfair_tos")


def test_prepare_downloads_hub_parquet_and_github_tsv(monkeypatch):
    """prepare() → snapshot_download of refs/convert/parquet (test shards of config unfair_tos only) + the pinned
    GitHub train.tsv (fake hub and fake download, no network)."""
    import huggingface_hub

    hub = FakeHub(
        {
            "README.md": b"",
            TEST_PARQUET: (FIX / TEST_PARQUET).read_bytes(),
            "unfair_tos/train/0000.parquet": b"",
            "abercrombie/test/0000.parquet": b"",
        }
    )
    urls = []

    def fake_url(url, dest, dataset, sha256=None, progress=True):
        urls.append((url, dataset))
        shutil.copy(FIX / "train.tsv", dest)
        return dest

    for v in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "LM_EVAL_ENTERPRISE_OFFLINE"):
        monkeypatch.delenv(v, raising=False)
    monkeypatch.setattr(huggingface_hub, "snapshot_download", hub)
    monkeypatch.setattr(S, "download_url", fake_url)
    d = prepare(SRC)  # the declared counts are unverified: a mismatch is logged and recorded, never an error
    assert (d / TEST_PARQUET).exists() and (d / "train.tsv").exists() and (d / ".complete").exists()
    assert [(c["repo_id"], c["revision"], c["repo_type"]) for c in hub.calls] == [
        ("nguha/legalbench", "refs/convert/parquet", "dataset")
    ]
    assert hub.downloaded() == [TEST_PARQUET]  # neither the hub's train split nor other LegalBench tasks
    assert urls == [
        (
            "https://raw.githubusercontent.com/HazyResearch/legalbench/"
            "ce482446b8eac4403b6db2c17223af4514bb24e3/tasks/unfair_tos/train.tsv",
            "unfair_tos",
        )
    ]
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # the cache now serves it offline
    assert len(load_records("unfair_tos")["test"]) == 12


# ------------------------------------------------------------------------------------------------ templates
def test_templates_table():
    assert len(TEMPLATES) >= 5 and TASKS.num_fewshot == 5 and TASKS.max_gen_toks == 10
    assert TASKS.family == "classification_weighted"
    t1 = TEMPLATES[0]
    assert t1.description == (
        f"Classify the clause from a terms-of-service document by the type of unfair term it contains. "
        f"Options: {SPEC_OPTIONS}.\n\n"
    )
    assert t1.doc_to_text == "Clause: {{text}}\nLabel:"
    doc = {"label_names": SPEC_LABELS}
    for tpl in TEMPLATES:  # every label is in every instruction block, and every template reads every gold target
        flt = answer_filter(TASKS, tpl)
        for label in SPEC_LABELS:
            assert label in tpl.description
            assert flt.read(" " + label, doc) == label, (tpl.id, label)
            assert flt.read(" " + label, doc).adherent, (tpl.id, label)
        assert flt.read(GARBAGE, doc) == M.INVALID


@pytest.mark.parametrize(
    "completion,expected",
    [
        (" Choice of law", "Choice of law"),
        (" choice of law.", "Choice of law"),  # case and punctuation
        (" Choice of law clause", "Choice of law"),  # the answer starts with the label
        (" Jurisdiction, because it names a court", "Jurisdiction"),
        (" Unilateral termination\nClause: x", "Unilateral termination"),  # cut at the stop sequence
        (" Otherwise fine", M.INVALID),  # "Other" must be a whole word
        (" The label is Content removal.", "Content removal"),  # a generic lead-in
        (" Type of term: Arbitration", "Arbitration"),  # t2's output field, in every template
        (" It is unfair.", M.INVALID),  # never a label named later in the answer
    ],
)
def test_answer_reading_is_the_same_in_every_template(completion, expected):
    doc = {"label_names": SPEC_LABELS}
    assert {answer_filter(TASKS, t).read(completion, doc) for t in TEMPLATES} == {expected}


def test_weighted_f1_hand_worked_nine_labels():
    # golds [Other, Other, Arbitration, Jurisdiction]; preds [Other, Arbitration, Arbitration, [invalid]]
    #   Other:        TP=1, FP=0, FN=1 -> F1 = 2/(2+0+1) = 2/3, support 2
    #   Arbitration:  TP=1, FP=1, FN=0 -> F1 = 2/(2+1+0) = 2/3, support 1
    #   Jurisdiction: TP=0, FN=1 (the invalid row is all-zero) -> F1 = 0, support 1
    #   other labels: support 0 (no weight) -> weighted F1 = (2*2/3 + 1*2/3 + 0) / 4 = 0.5
    golds = ["Other", "Other", "Arbitration", "Jurisdiction"]
    preds = ["Other", "Arbitration", "Arbitration", M.INVALID]
    assert M.weighted_f1(golds, preds, SPEC_LABELS) == pytest.approx(0.5)


# ------------------------------------------------------------------------------------------------ end to end
def test_end_to_end_real_train_sample_tiny_model(tmp_path, tiny_model_dir):
    _sample_dir(tmp_path)
    tasks = ["ent_unfair_tos__t1", "ent_unfair_tos__t4"]
    res = run_hf_model(tiny_model_dir, tasks, tmp_path)
    assert_unit_scores(res, tasks, ("weighted_f1,answer", "accuracy,answer", "format_failure,answer"))
    first = load_records("unfair_tos", data_root=str(tmp_path))["test"][0]  # the first document of the fair order
    for t in tasks:
        sample = res["samples"][t][0]
        prompt = sample["arguments"][0][0]
        assert prompt.count("Clause:" if t.endswith("t1") else "Input:") == 6  # 5 [BAL] shots + the eval item
        assert first["text"] in prompt and sample["target"] == first["label"]
    t1 = res["samples"][tasks[0]][0]["arguments"][0][0]
    assert t1.startswith("Classify the clause from a terms-of-service document")
    assert "Clause: last updated date" not in t1  # "Other" (train-0) is not among the 5 [BAL] shots
    assert res["configs"][tasks[0]]["generation_kwargs"]["max_gen_toks"] == 10
