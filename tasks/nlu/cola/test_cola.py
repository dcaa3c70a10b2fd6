"""cola: the genuine GLUE TSV sample row for row, both layouts (hub parquet, GLUE TSV) giving the same records, the
documented quirks of the genuine files, bad input as one line, the FLAN prompts and the answer reading."""

import json
import shutil

import pytest
from lm_eval.utils import apply_template
from lm_eval_enterprise.tasks.nlu.cola import make_fixture
from lm_eval_enterprise.tasks.nlu.cola import source as S
from lm_eval_enterprise.tasks.nlu.cola.templates import PATTERNS, TASKS

from conftest import shared_sample
from lm_eval_enterprise.data import DataError, fixture_dir, get_source, import_from, inspect_folder, load_checked
from lm_eval_enterprise.prompting.templating import answer_filter
from lm_eval_enterprise.scoring.metrics import INVALID
from testkit.testing import GARBAGE

SRC = get_source("cola")
FIX = fixture_dir("cola")
OPTIONS = "OPTIONS:\n- unacceptable\n- acceptable"  # FLAN's format_options over its cola options


def sample_lines(name: str) -> list[list[str]]:
    """The genuine sample file's rows as the tests read it: lines split on tabs (no quoting)."""
    return [line.split("\t") for line in (shared_sample("cola") / name).read_text(encoding="utf-8").splitlines()]


def test_source_is_the_glue_hub_config_or_glue_tsv_release():
    assert (SRC.hf_repo, SRC.hf_revision, SRC.hf_prefix, SRC.hf_splits) == (
        "nyu-mll/glue",
        "main",
        "cola",
        ("train", "validation"),
    )
    assert SRC.published == {"train": "train.tsv", "valid": "dev.tsv"} and SRC.archive == "CoLA"
    assert SRC.labels == ("unacceptable", "acceptable") and SRC.task_type == "classification_mcc"
    assert (SRC.eval_split, SRC.fewshot_source_split) == ("valid", "train")
    rows = SRC.expected_rows
    assert (rows["valid"].n, rows["valid"].verified, rows["train"].n, rows["train"].verified) == (
        1043,
        True,
        8551,
        True,
    )


def test_genuine_sample_converts_row_for_row():
    """GLUE's CoLA dev.tsv / train.tsv (first 300 / 500 lines): every row in file order, id = its 0-based position,
    label 0 → unacceptable, 1 → acceptable; SOURCE.md's label counts."""
    splits = SRC.convert(shared_sample("cola"))
    for split, name in (("valid", "dev.tsv"), ("train", "train.tsv")):
        rows = sample_lines(name)
        assert len(splits[split]) == len(rows)
        for i, (rec, (_source, label, _mark, sentence)) in enumerate(zip(splits[split], rows)):
            assert rec == {"id": str(i), "text": sentence, "label": S.LABELS[int(label)]}
    assert splits["valid"][0] == {
        "id": "0",
        "text": "The sailors rode the breeze clear of the rocks.",
        "label": "acceptable",
    }
    count = {s: sum(r["label"] == "acceptable" for r in recs) for s, recs in splits.items()}
    assert count == {"valid": 197, "train": 329}  # of 300 / 500 (SOURCE.md: 197×1 / 103×0, 329×1 / 171×0)


def test_genuine_sample_covers_in_domain_dev_rows_only():
    """SOURCE.md: GLUE's dev.tsv is the in-domain dev set (527 rows) then the out-of-domain one; the 300-row sample
    holds in-domain sources only (so out-of-domain rows were never read from a genuine file here)."""
    assert {row[0] for row in sample_lines("dev.tsv")} == {"bc01", "cj99", "gj04", "ks08", "l-93", "r-67", "rhl07"}
    assert {row[0] for row in sample_lines("train.tsv")} == {"bc01", "cj99", "gj04"}


def test_genuine_sample_loads_as_a_partial_copy_with_a_class_balanced_order():
    """The data layer reads the sample folder (SOURCE.md: a partial copy, counts are upper bounds); the evaluated
    split is stratified by label, so every --limit prefix holds each class in proportion ± 1."""
    recs, report = load_checked("cola", data_root=str(shared_sample("cola").parent))
    assert report.declared == "SOURCE.md" and report.layout == "source files"
    assert {c.key: (c.n, c.status) for c in report.checks} == {"train": (500, "ok"), "valid": (300, "ok")}
    valid = recs["valid"]
    assert sorted(r["id"] for r in valid) == sorted(str(i) for i in range(300))
    assert all(r["label_names"] == ["unacceptable", "acceptable"] for r in valid)
    share = 197 / 300
    for i in range(1, len(valid) + 1):
        assert abs(sum(r["label"] == "acceptable" for r in valid[:i]) - i * share) < 1, i
    shots = [r["label"] for r in recs["fewshot"][:4]]
    assert sorted(set(shots)) == ["acceptable", "unacceptable"]  # [BAL] alternates the classes


def test_hub_layout_of_the_genuine_rows_gives_the_same_records(tmp_path):
    """The sample's rows written as the hub's parquet files (the fixture generator's writer: ClassLabel names, idx)
    convert to exactly the records of the TSV files."""
    for hub_split, name in (("validation", "dev.tsv"), ("train", "train.tsv")):
        rows = [(src, int(label), mark, sentence) for src, label, mark, sentence in sample_lines(name)]
        make_fixture.write_parquet(tmp_path / "cola" / f"{hub_split}-00000-of-00001.parquet", rows)
    assert SRC.layout(tmp_path) == "hub"
    assert SRC.convert(tmp_path) == SRC.convert(shared_sample("cola"))


def test_fixture_hub_files_and_their_glue_tsv_give_the_same_records(tmp_path):
    hub = SRC.convert(FIX)
    assert {s: len(r) for s, r in hub.items()} == {"train": 8, "valid": 8}
    published = make_fixture.write_published(tmp_path)
    assert not (published / "dev.tsv").read_text().endswith("\n")  # as the genuine dev file
    assert SRC.layout(published) == "published" and SRC.convert(published) == hub


def test_quirks_of_the_genuine_dev_file_are_tolerated(tmp_path):
    """The full dev.tsv has no newline after its last row, and line 684 has a single space as its author mark
    (SOURCE.md): both read like any other row (the mark is not read)."""
    text = (shared_sample("cola") / "dev.tsv").read_text(encoding="utf-8")
    lines = text.splitlines()
    src, label, _mark, sentence = lines[1].split("\t")
    lines[1] = "\t".join((src, label, " ", sentence))
    (tmp_path / "dev.tsv").write_text("\n".join(lines), encoding="utf-8")  # no final newline
    assert SRC.convert(tmp_path)["valid"] == SRC.convert(shared_sample("cola"))["valid"]


def test_glue_archive_folder_is_read_and_a_zip_is_refused_with_a_hint(tmp_path):
    (tmp_path / "a" / "CoLA").mkdir(parents=True)
    make_fixture.write_published(tmp_path / "a" / "CoLA")  # CoLA.zip unzipped into the data folder
    assert SRC.has_source_layout(tmp_path / "a") and SRC.convert(tmp_path / "a") == SRC.convert(FIX)
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "CoLA.zip").write_bytes(b"PK")
    assert SRC.has_source_layout(tmp_path / "b")
    with pytest.raises(DataError) as e:
        SRC.convert(tmp_path / "b")
    assert str(e.value).startswith(f"[cola] {tmp_path / 'b' / 'CoLA.zip'}: the archive is not read: unzip it")
    make_fixture.write_published(tmp_path / "a")  # the files twice (folder and CoLA/)
    with pytest.raises(
        DataError, match=r"holds train\.tsv twice \(.*/a/train\.tsv and .*/a/CoLA/train\.tsv\); keep one$"
    ):
        SRC.convert(tmp_path / "a")


def test_a_folder_with_both_layouts_is_refused(tmp_path):
    shutil.copytree(FIX, tmp_path / "cola")
    make_fixture.write_published(tmp_path / "cola")
    with pytest.raises(DataError, match=r"^\[cola\] .*: holds the evaluated split twice: as hub parquet files"):
        SRC.convert(tmp_path / "cola")


def test_dev_file_alone_converts_without_a_pool(tmp_path):
    """The pool's file is optional: a folder holding only dev.tsv has the evaluated split and no train split (not
    counted as 0 rows)."""
    shutil.copy(shared_sample("cola") / "dev.tsv", tmp_path / "dev.tsv")
    (tmp_path / "SOURCE.md").write_text("a genuine sample of the dev file\n")
    splits, report = inspect_folder(SRC, tmp_path)
    assert list(splits) == ["valid"] and len(splits["valid"]) == 300
    assert [(c.key, c.status) for c in report.checks] == [("valid", "ok")]


def test_prepare_from_the_glue_folder_and_a_verified_count_mismatch(tmp_path):
    """``prepare --from`` the genuine sample folder (GLUE's file names, SOURCE.md beside them) imports and checks it;
    ``--from`` dev.tsv alone (no SOURCE.md: held to the full count) is one line naming the user's file."""
    d = import_from(SRC, shared_sample("cola"), data_root=str(tmp_path / "root"))
    assert d == tmp_path / "root" / "cola" and json.loads((d / ".imported.json").read_text())["rows"] == {
        "train": 500,
        "valid": 300,
    }
    origin = shared_sample("cola") / "dev.tsv"
    with pytest.raises(DataError) as e:
        import_from(SRC, origin, data_root=str(tmp_path / "other"))
    msg = str(e.value)
    assert msg.startswith(f"[cola] {origin}:") and "\n" not in msg
    assert "split 'valid' has 300 rows after conversion, expected 1,043" in msg
    assert not (tmp_path / "other" / "cola").exists()  # a rejected import leaves nothing behind


@pytest.mark.parametrize(
    "line, problem",
    [
        ("zz01\t2\t\tA sentence.", r"dev\.tsv:2: label '2' is not 0 \(unacceptable\) or 1 \(acceptable\)$"),
        ("zz01\t1\tA sentence.", r"dev\.tsv:2: 3 tab-separated fields, expected 4"),
        ("zz01\t1\t\tA\tsentence.", r"dev\.tsv:2: 5 tab-separated fields, expected 4"),
        ("zz01\t1\t\t ", r"dev\.tsv:2: row 1: empty or missing sentence$"),
        ("", r"dev\.tsv:2: blank line"),
    ],
)
def test_bad_tsv_rows_are_one_line_naming_file_and_line(tmp_path, line, problem):
    (tmp_path / "dev.tsv").write_text(f"zz01\t1\t\tA good sentence.\n{line}\nzz01\t0\t*\tGood a sentence.\n")
    with pytest.raises(DataError, match=rf"^\[cola\] {tmp_path}/{problem}") as e:
        SRC.convert(tmp_path)
    assert "\n" not in str(e.value)


def test_bad_bytes_and_bad_hub_rows_are_one_line(tmp_path):
    (tmp_path / "dev.tsv").write_bytes(b"zz01\t1\t\tGood.\nzz01\t1\t\tBad \xff byte.\n")
    with pytest.raises(DataError, match=rf"^\[cola\] {tmp_path}/dev\.tsv:2: not UTF-8 text"):
        SRC.convert(tmp_path)
    hub = tmp_path / "hub"
    make_fixture.write_parquet(hub / "cola" / "validation-00000-of-00001.parquet", [("x", -1, "", "Unlabelled.")])
    with pytest.raises(DataError, match=r"validation-00000-of-00001\.parquet:row 0: label -1 is not 0"):
        SRC.convert(hub)  # GLUE's test split (label -1) is no evaluation split


def test_templates_are_flan_cola_patterns_1_to_8():
    assert [t.id for t in TASKS.templates] == [f"t{k}" for k in range(1, 9)]
    assert [t.note for t in TASKS.templates] == [f"FLAN cola pattern {k}" for k in range(1, 9)]
    assert (TASKS.suite, TASKS.language, TASKS.pair, TASKS.family, TASKS.primary_metric) == (
        "nlu",
        "en",
        "jcola",
        "classification_mcc",
        "mcc",
    )
    assert (TASKS.num_fewshot, TASKS.test_split, TASKS.target_delimiter, TASKS.lead_ins) == (
        0,
        "valid",
        "\n",
        ("Answer",),
    )
    assert all(t.regex == " ?([Uu]nacceptable|[Aa]cceptable)" and t.axes[0] == "flan" for t in TASKS.templates)


def test_t1_prompt_of_the_first_genuine_record_is_flan_pattern_1():
    rec = SRC.convert(shared_sample("cola"))["valid"][0]
    assert apply_template(TASKS.templates[0].doc_to_text, rec) == (
        'Sentence: "The sailors rode the breeze clear of the rocks."\n'
        "Pick from options: would a linguist rate this sentence to be acceptable linguistically?\n\n"
        "OPTIONS:\n- unacceptable\n- acceptable...I think the answer is"
    )
    for tpl, pattern in zip(TASKS.templates, PATTERNS):  # every template: FLAN's own rendering (str.format)
        assert apply_template(tpl.doc_to_text, rec) == pattern.format(sentence=rec["text"], options_=OPTIONS).rstrip()


@pytest.mark.parametrize("tpl", TASKS.templates, ids=lambda t: t.id)
def test_every_template_reads_natural_answers_alike(tpl):
    flt, doc = answer_filter(TASKS, tpl), {"label_names": list(S.LABELS)}
    for text, want, exact in [
        ("acceptable", "acceptable", True),
        (" unacceptable", "unacceptable", True),
        ("Answer: unacceptable.", "unacceptable", False),
        ("**acceptable**", "acceptable", False),
        ("Unacceptable", "unacceptable", True),
        ("The answer is acceptable.", "acceptable", False),
        ("acceptable\nSentence: next", "acceptable", True),  # cut at the stop sequence
        ("acceptably", INVALID, False),
        (GARBAGE, INVALID, False),
    ]:
        got = flt.read(text, doc)
        assert (str(got), got.adherent) == (want, exact), (tpl.id, text)
