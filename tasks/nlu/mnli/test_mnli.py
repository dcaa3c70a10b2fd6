"""mnli: no genuine MNLI file is available, so both layouts are tested on schema-exact fixtures — the hub's parquet
files (``fixture/``) and GLUE's TSV release (``make_fixture.write_published``, GLUE's column lists) — giving the
same records; the label mapping to FLAN's words, the TSV reading rules, bad input as one line, the FLAN prompts
(patterns 9 and 10 left out) and the answer reading."""

import csv
import json
import shutil

import pytest
from lm_eval.utils import apply_template
from lm_eval_enterprise.tasks.nlu.mnli import make_fixture
from lm_eval_enterprise.tasks.nlu.mnli import source as S
from lm_eval_enterprise.tasks.nlu.mnli.templates import LEFT_OUT, PATTERNS, TASKS

from lm_eval_enterprise.data import DataError, fixture_dir, get_source, import_from, load_checked
from lm_eval_enterprise.prompting.templating import answer_filter
from lm_eval_enterprise.scoring.metrics import INVALID
from testkit.testing import GARBAGE

SRC = get_source("mnli")
FIX = fixture_dir("mnli")
OPTIONS = "OPTIONS:\n- yes\n- it is not possible to tell\n- no"  # FLAN's format_options over its mnli options
DEV_HEADER = (
    "index\tpromptID\tpairID\tgenre\tsentence1_binary_parse\tsentence2_binary_parse\tsentence1_parse\t"
    "sentence2_parse\tsentence1\tsentence2\tlabel1\tlabel2\tlabel3\tlabel4\tlabel5\tgold_label"
)
TRAIN_HEADER = (
    "index\tpromptID\tpairID\tgenre\tsentence1_binary_parse\tsentence2_binary_parse\tsentence1_parse\t"
    "sentence2_parse\tsentence1\tsentence2\tlabel1\tgold_label"
)


def dev_row(i: int, premise: str, hypothesis: str, gold: str) -> str:
    return "\t".join([str(i), "1", f"1{gold[:1]}", "slate", "( a )", "( b )", "(X a)", "(X b)", premise, hypothesis])


def test_source_is_the_glue_hub_config_or_glue_tsv_release():
    assert (SRC.hf_repo, SRC.hf_revision, SRC.hf_prefix, SRC.hf_splits) == (
        "nyu-mll/glue",
        "main",
        "mnli",
        ("train", "validation_matched"),
    )
    assert SRC.published == {"train": "train.tsv", "valid": "dev_matched.tsv"} and SRC.archive == "MNLI"
    assert SRC.labels == ("yes", "it is not possible to tell", "no") and SRC.task_type == "classification_accuracy"
    assert S.WORDS == {"entailment": "yes", "neutral": "it is not possible to tell", "contradiction": "no"}
    rows = SRC.expected_rows  # no genuine MNLI file was counted: both unverified
    assert (rows["valid"].n, rows["valid"].verified, rows["train"].n, rows["train"].verified) == (
        9815,
        False,
        392702,
        False,
    )


def test_fixture_hub_files_convert_with_flan_words():
    splits = SRC.convert(FIX)
    assert {s: len(r) for s, r in splits.items()} == {"train": 6, "valid": 6}
    assert splits["valid"][0] == {
        "id": "0",
        "premise": "The new rules are clear enough for most readers.",
        "hypothesis": "Everyone praises the new rules ",  # a trailing space is kept, as GLUE's first dev row has one
        "label": "it is not possible to tell",
    }
    assert [r["label"] for r in splits["valid"]] == [
        S.WORDS[row[3]] for row in make_fixture.VALID
    ]  # ClassLabel 0/1/2 → entailment/neutral/contradiction → FLAN's words


def test_glue_tsv_layout_gives_the_same_records_as_the_hub_files(tmp_path):
    published = make_fixture.write_published(tmp_path)
    assert (published / "dev_matched.tsv").read_text().splitlines()[0] == DEV_HEADER  # GLUE's 16 columns
    assert (published / "train.tsv").read_text().splitlines()[0] == TRAIN_HEADER  # GLUE's 12 columns
    assert SRC.layout(published) == "published" and SRC.convert(published) == SRC.convert(FIX)


def test_tsv_is_read_with_quoting_disabled(tmp_path):
    """A premise opening with an unbalanced ``"`` (MNLI's TSVs are read with ``csv.QUOTE_NONE`` by GLUE's loaders):
    a quoting reader swallows the following rows, ours reads one row per line."""
    train = (make_fixture.write_published(tmp_path) / "train.tsv").read_text(encoding="utf-8")
    assert len(list(csv.reader(train.splitlines(), delimiter="\t"))) < 7
    recs = SRC.convert(tmp_path)["train"]
    assert len(recs) == 6 and recs[4]["premise"] == '"Follow the river and you will find it, the guide said.'
    assert recs[5]["premise"] == "The hotel overlooks the old harbour."


def test_archive_folder_and_a_dev_file_without_train(tmp_path):
    make_fixture.write_published(tmp_path / "a" / "MNLI")  # MNLI.zip unzipped into the data folder
    assert SRC.convert(tmp_path / "a") == SRC.convert(FIX)
    (tmp_path / "b").mkdir()
    shutil.copy(tmp_path / "a" / "MNLI" / "dev_matched.tsv", tmp_path / "b")
    assert list(SRC.convert(tmp_path / "b")) == ["valid"]  # the pool's file is optional
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "MNLI.zip").write_bytes(b"PK")
    with pytest.raises(DataError, match=r"MNLI\.zip: the archive is not read: unzip it .* holds dev_matched\.tsv"):
        SRC.convert(tmp_path / "c")


def test_embedded_fixture_loads_class_stratified():
    recs, report = load_checked("mnli", data_root="embedded")
    assert report.declared == "MANIFEST.json" and report.status == "ok"
    assert sorted(r["label"] for r in recs["valid"][:3]) == ["it is not possible to tell", "no", "yes"]
    assert all(r["label_names"] == list(S.LABELS) for r in recs["valid"])


def test_prepare_from_a_glue_folder_with_a_manifest(tmp_path):
    """``prepare --from`` a folder in GLUE's layout is checked like a download (here held to its MANIFEST.json)."""
    origin = make_fixture.write_published(tmp_path / "MNLI")
    shutil.copy(FIX / "MANIFEST.json", origin / "MANIFEST.json")
    d = import_from(SRC, origin, data_root=str(tmp_path / "root"))
    assert json.loads((d / ".imported.json").read_text())["rows"] == {"train": 6, "valid": 6}
    (origin / "MANIFEST.json").unlink()  # then the published (unverified) counts apply: a warning, not an error
    d = import_from(SRC, origin, data_root=str(tmp_path / "other"))
    checks = json.loads((d / ".imported.json").read_text())["checks"]
    assert checks["valid"]["status"] == "warning" and checks["valid"]["expected"] == 9815


@pytest.mark.parametrize(
    "row, problem",
    [
        (dev_row(1, "A man.", "A woman.", "-") + "\t-\t-\t-\t-\t-\t-", r"row 1: gold label '-' is not one of"),
        (dev_row(1, "A man.", "A woman.", "x") + "\tneutral\tneutral\tneutral\tneutral\tneutral", r"16"),
        (dev_row(1, " ", "A woman.", "n") + "\t" + "\t".join(["neutral"] * 6), r"row 1: empty or missing premise$"),
        ("", r"blank line"),
    ],
)
def test_bad_tsv_rows_are_one_line_naming_file_and_line(tmp_path, row, problem):
    good = dev_row(0, "A dog barks.", "An animal makes a sound.", "e") + "\t" + "\t".join(["entailment"] * 6)
    (tmp_path / "dev_matched.tsv").write_text(f"{DEV_HEADER}\n{good}\n{row}\n{good}\n")
    if problem == "16":
        problem = r"15 tab-separated fields, expected 16"
    with pytest.raises(DataError, match=rf"^\[mnli\] {tmp_path}/dev_matched\.tsv:3: {problem}") as e:
        SRC.convert(tmp_path)
    assert "\n" not in str(e.value)


def test_header_without_gold_label_is_one_line(tmp_path):
    """GLUE's test_matched.tsv has no labels: under the dev file's name it is refused, naming the missing column."""
    (tmp_path / "dev_matched.tsv").write_text("index\tsentence1\tsentence2\n0\tA dog.\tAn animal.\n")
    with pytest.raises(DataError, match=r"dev_matched\.tsv:1: the header row lacks the columns \['gold_label'\]"):
        SRC.convert(tmp_path)


def test_bad_hub_rows_are_one_line(tmp_path):
    import datasets

    path = tmp_path / "mnli" / "validation_matched-00000-of-00001.parquet"
    path.parent.mkdir(parents=True)
    features = datasets.Features(  # another label order than GLUE's: refused, never silently remapped
        {
            "premise": datasets.Value("string"),
            "hypothesis": datasets.Value("string"),
            "label": datasets.ClassLabel(names=["contradiction", "neutral", "entailment"]),
            "idx": datasets.Value("int32"),
        }
    )
    datasets.Dataset.from_dict(
        {"premise": ["A."], "hypothesis": ["B."], "label": [0], "idx": [0]}, features=features
    ).to_parquet(str(path))
    with pytest.raises(DataError, match=r":row 0: label names \['contradiction', 'neutral', 'entailment'\]"):
        SRC.convert(tmp_path)
    make_fixture.write_parquet(path, [("slate", "A.", "B.", "neutral", ())])
    table = datasets.Dataset.from_parquet(str(path)).map(lambda r: {"label": -1})  # GLUE's unlabelled test rows
    table.to_parquet(str(path))
    with pytest.raises(DataError, match=r":row 0: label -1 is not 0, 1 or 2"):
        SRC.convert(tmp_path)


def test_templates_are_flan_mnli_patterns_1_to_8_and_9_10_are_left_out():
    assert [t.id for t in TASKS.templates] == [f"t{k}" for k in range(1, 9)]
    assert [t.note for t in TASKS.templates] == [f"FLAN mnli pattern {k}" for k in range(1, 9)]
    assert sorted(LEFT_OUT) == [9, 10] and not set(LEFT_OUT.values()) & set(PATTERNS)
    assert (TASKS.suite, TASKS.language, TASKS.pair, TASKS.family, TASKS.primary_metric) == (
        "nlu",
        "en",
        "jnli",
        "classification_accuracy",
        "accuracy",
    )
    assert all(t.regex == " ?([Ii]t is not possible to tell|[Yy]es|[Nn]o)" for t in TASKS.templates)


def test_t1_prompt_of_the_first_record_is_flan_pattern_1(tmp_path):
    """No genuine MNLI row is available: the first record of the GLUE-layout fixture."""
    rec = SRC.convert(make_fixture.write_published(tmp_path))["valid"][0]
    assert apply_template(TASKS.templates[0].doc_to_text, rec) == (
        "Premise: The new rules are clear enough for most readers.\n\nHypothesis: Everyone praises the new rules "
        "\n\nDoes the premise entail the hypothesis?\n\nOPTIONS:\n- yes\n- it is not possible to tell\n- no"
    )
    for tpl, pattern in zip(TASKS.templates, PATTERNS):  # every template: FLAN's own rendering (str.format)
        want = pattern.format(premise=rec["premise"], hypothesis=rec["hypothesis"], options_=OPTIONS).rstrip()
        assert apply_template(tpl.doc_to_text, rec) == want
    t2 = apply_template(TASKS.templates[1].doc_to_text, rec)
    assert t2.endswith("\n- no And the answer is:")  # pattern 2 as FLAN renders it


@pytest.mark.parametrize("tpl", TASKS.templates, ids=lambda t: t.id)
def test_every_template_reads_natural_answers_alike(tpl):
    flt, doc = answer_filter(TASKS, tpl), {"label_names": list(S.LABELS)}
    for text, want, exact in [
        ("**yes**", "yes", False),
        ("it is not possible to tell", "it is not possible to tell", True),
        (" It is not possible to tell.", "it is not possible to tell", False),
        ("Answer: no.", "no", False),
        ("No", "no", True),
        ("The answer is yes", "yes", False),
        ("yes\nPremise: next", "yes", True),
        ("not possible to tell", INVALID, False),  # never read as "no"
        ("nope", INVALID, False),
        (GARBAGE, INVALID, False),
    ]:
        got = flt.read(text, doc)
        assert (str(got), got.adherent) == (want, exact), (tpl.id, text)
