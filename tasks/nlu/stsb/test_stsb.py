"""stsb: the genuine GLUE TSV sample row for row, both layouts (hub parquet with float32 scores, GLUE TSV) giving
the same records, the documented quirks of the genuine files (unbalanced quotes, genre spelling by split), the
score as target text, the score-stratified order, bad input as one line, the FLAN prompts and the answer reading."""

import csv
import math
from decimal import ROUND_HALF_UP, Decimal

import pytest
from lm_eval.utils import apply_template
from lm_eval_enterprise.tasks.nlu.stsb import make_fixture
from lm_eval_enterprise.tasks.nlu.stsb import source as S
from lm_eval_enterprise.tasks.nlu.stsb.templates import PATTERNS, TASKS

from conftest import shared_sample
from lm_eval_enterprise.data import DataError, fixture_dir, get_source, load_checked
from lm_eval_enterprise.prompting.templating import answer_filter
from lm_eval_enterprise.scoring.metrics import INVALID
from testkit.testing import GARBAGE

SRC = get_source("stsb")
FIX = fixture_dir("stsb")
OPTIONS = "OPTIONS:\n- 0\n- 1\n- 2\n- 3\n- 4\n- 5"  # FLAN's format_options over its stsb options
HEADER = "index\tgenre\tfilename\tyear\told_index\tsource1\tsource2\tsentence1\tsentence2\tscore"


def sample_rows(name: str) -> list[dict]:
    """The genuine sample file's rows as the tests read them: the header's columns, tabs only (no quoting)."""
    lines = (shared_sample("stsb") / name).read_text(encoding="utf-8").splitlines()
    header = lines[0].split("\t")
    return [dict(zip(header, line.split("\t"))) for line in lines[1:]]


def decimal_text(score: str) -> str:
    """``"4.750"`` → ``"4.75"``, ``"5.000"`` → ``"5"`` (the tests' own rule, with ``decimal``)."""
    return format(Decimal(score).normalize(), "f")


def half_up(score: str) -> int:
    return int(Decimal(score).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def test_source_is_the_glue_hub_config_or_glue_tsv_release():
    assert (SRC.hf_repo, SRC.hf_revision, SRC.hf_prefix, SRC.hf_splits) == (
        "nyu-mll/glue",
        "main",
        "stsb",
        ("train", "validation"),
    )
    assert SRC.published == {"train": "train.tsv", "valid": "dev.tsv"} and SRC.archive == "STS-B"
    assert SRC.task_type == "similarity" and (SRC.eval_split, SRC.fewshot_source_split) == ("valid", "train")
    rows = SRC.expected_rows
    assert (rows["valid"].n, rows["valid"].verified, rows["train"].n, rows["train"].verified) == (
        1500,
        True,
        5749,
        True,
    )


@pytest.mark.parametrize(
    "score, text",
    [(3.8, "3.8"), (4.75, "4.75"), (5.0, "5"), (0.0, "0"), (2.333, "2.333"), (0.2, "0.2"), (3.799999952316284, "3.8")],
)
def test_target_is_the_score_as_text_without_trailing_zeros(score, text):
    assert S.score_text(score) == text


def test_genuine_sample_converts_row_for_row():
    """GLUE's STS-B dev.tsv / train.tsv (header + first 300 / 500 rows): id = the row's position (= its ``index``
    column here), the sentences as written, score = the number of ``score``, target its text ("4.750" → "4.75")."""
    splits = SRC.convert(shared_sample("stsb"))
    for split, name in (("valid", "dev.tsv"), ("train", "train.tsv")):
        rows = sample_rows(name)
        assert len(splits[split]) == len(rows)
        for i, (rec, row) in enumerate(zip(splits[split], rows)):
            assert row["index"] == str(i)
            assert (rec["id"], rec["sentence1"], rec["sentence2"]) == (str(i), row["sentence1"], row["sentence2"])
            assert rec["score"] == float(row["score"]) and rec["target"] == decimal_text(row["score"])
    assert splits["valid"][1] == {
        "id": "1",
        "sentence1": "A young child is riding a horse.",
        "sentence2": "A child is riding a horse.",
        "score": 4.75,
        "target": "4.75",
    }
    assert sum(r["score"] for r in splits["valid"]) / 300 == pytest.approx(2.288, abs=5e-4)  # SOURCE.md: mean 2.288
    assert sum(r["score"] for r in splits["train"]) / 500 == pytest.approx(2.332, abs=5e-4)  # mean 2.332


def test_genuine_sample_is_captions_only():
    """SOURCE.md: the files are ordered by genre, so the 300 dev rows are all main-captions (250 MSRvid + 50
    images) and the 500 train rows all MSRvid: news and forum rows were never read from a genuine file here."""
    dev = sample_rows("dev.tsv")
    assert {r["genre"] for r in dev} == {"main-captions"}
    assert [r["filename"] for r in dev].count("MSRvid") == 250 and [r["filename"] for r in dev].count("images") == 50
    assert {(r["genre"], r["filename"]) for r in sample_rows("train.tsv")} == {("main-captions", "MSRvid")}


def test_genuine_sample_loads_with_a_score_stratified_order():
    """The sample folder loads as a partial copy; the evaluated split is stratified by the rounded score, so every
    --limit prefix spans the scale in proportion ± 1; the 4 dev pairs that also occur in train are counted, not
    removed (0 shots)."""
    recs, report = load_checked("stsb", data_root=str(shared_sample("stsb").parent))
    assert report.declared == "SOURCE.md" and {c.key: c.n for c in report.checks} == {"train": 500, "valid": 300}
    valid = recs["valid"]
    assert len(valid) == 300 and sorted(r["id"] for r in valid) == sorted(str(i) for i in range(300))
    sizes = {k: sum(S.score_stratum(r["score"]) == k for r in valid) for k in range(6)}
    assert sizes == {k: sum(half_up(r["score"]) == k for r in sample_rows("dev.tsv")) for k in range(6)}
    assert sizes == {0: 63, 1: 55, 2: 32, 3: 63, 4: 52, 5: 35}
    for i in range(1, len(valid) + 1):
        for k, n in sizes.items():
            assert abs(sum(S.score_stratum(r["score"]) == k for r in valid[:i]) - i * n / 300) < 1, (i, k)
    assert {S.score_stratum(r["score"]) for r in valid[:12]} == set(range(6))


@pytest.mark.parametrize("score, stratum", [(0.0, 0), (0.4, 0), (0.5, 1), (2.4, 2), (2.5, 3), (4.75, 5), (5.0, 5)])
def test_stratum_is_the_score_rounded_halves_up(score, stratum):
    assert S.score_stratum(score) == stratum and SRC.eval_stratum({"score": score}) == stratum


def test_hub_layout_of_the_genuine_rows_gives_the_same_records(tmp_path):
    """The sample's rows written as the hub's parquet files (float32 scores: 3.8 is stored as 3.7999999523…)
    convert to exactly the records of the TSV files."""
    for hub_split, name in (("validation", "dev.tsv"), ("train", "train.tsv")):
        rows = [(r["genre"], r["filename"], r["sentence1"], r["sentence2"], r["score"]) for r in sample_rows(name)]
        make_fixture.write_parquet(tmp_path / "stsb" / f"{hub_split}-00000-of-00001.parquet", rows)
    import pyarrow.parquet as pq

    stored = pq.read_table(tmp_path / "stsb" / "validation-00000-of-00001.parquet").column("label").to_pylist()
    assert any(v != float(r["score"]) for v, r in zip(stored, sample_rows("dev.tsv")))  # float32 really differs
    assert SRC.layout(tmp_path) == "hub" and SRC.convert(tmp_path) == SRC.convert(shared_sample("stsb"))


def test_fixture_hub_files_and_their_glue_tsv_give_the_same_records(tmp_path):
    hub = SRC.convert(FIX)
    assert {s: len(r) for s, r in hub.items()} == {"train": 8, "valid": 8}
    published = make_fixture.write_published(tmp_path)
    assert SRC.layout(published) == "published" and SRC.convert(published) == hub
    assert [r["target"] for r in hub["valid"]] == ["5", "0", "4.75", "0.2", "3.8", "1.667", "3.2", "2.5"]


def test_unbalanced_quotes_are_read_with_quoting_disabled(tmp_path):
    """The genuine files hold sentences with an odd number of ``"`` (19 dev, 63 train): a quoting TSV reader merges
    such a row with the next ones; with quoting disabled every line is one row."""
    published = make_fixture.write_published(tmp_path)
    dev = (published / "dev.tsv").read_text(encoding="utf-8")
    quoted = [line for line in dev.splitlines() if any(f.count('"') % 2 for f in line.split("\t"))]
    assert len(quoted) == 1
    assert len(list(csv.reader(dev.splitlines(), delimiter="\t"))) < 9  # a default reader loses rows
    recs = SRC.convert(published)["valid"]
    assert len(recs) == 8 and recs[4]["sentence2"] == '"Check the power cable before anything.'
    assert recs[5]["sentence1"] == "That depends on how much time you have."  # the next row is intact


def test_genre_spelling_differs_by_split_and_is_not_read(tmp_path):
    """GLUE's train.tsv spells the forum genre ``main-forum``, dev.tsv ``main-forums`` (genuine quirk)."""
    published = make_fixture.write_published(tmp_path)
    genres = {
        n: {line.split("\t")[1] for line in (published / n).read_text().splitlines()[1:]} for n in S.PUBLISHED.values()
    }
    assert "main-forum" in genres["train.tsv"] and "main-forums" in genres["dev.tsv"]
    assert "main-forums" not in genres["train.tsv"]
    assert all(set(r) == {"id", "sentence1", "sentence2", "score", "target"} for r in SRC.convert(published)["train"])


@pytest.mark.parametrize(
    "row, problem",
    [
        ("1\tg\tf\ty\t1\tn\tn\tA man.\tA woman.\t5.5", r"dev\.tsv:3: row 1: score '5\.5' is not a similarity score"),
        ("1\tg\tf\ty\t1\tn\tn\tA man.\tA woman.\tabc", r"dev\.tsv:3: row 1: score 'abc' is not a similarity score"),
        ("1\tg\tf\ty\t1\tn\tn\tA man.\tA woman.\tnan", r"dev\.tsv:3: row 1: score 'nan' is not a similarity score"),
        ("1\tg\tf\ty\t1\tn\tn\tA man.\tA woman.", r"dev\.tsv:3: 9 tab-separated fields, expected 10"),
        ("1\tg\tf\ty\t1\tn\tn\t \tA woman.\t2.000", r"dev\.tsv:3: row 1: empty or missing sentence1$"),
    ],
)
def test_bad_tsv_rows_are_one_line_naming_file_and_line(tmp_path, row, problem):
    (tmp_path / "dev.tsv").write_text(f"{HEADER}\n0\tg\tf\ty\t0\tn\tn\tA dog.\tA cat.\t1.000\n{row}\n")
    with pytest.raises(DataError, match=rf"^\[stsb\] {tmp_path}/{problem}") as e:
        SRC.convert(tmp_path)
    assert "\n" not in str(e.value)


def test_header_without_the_score_column_is_one_line(tmp_path):
    (tmp_path / "dev.tsv").write_text("index\tsentence1\tsentence2\n0\tA dog.\tA cat.\n")  # GLUE's test.tsv shape
    with pytest.raises(
        DataError, match=rf"^\[stsb\] {tmp_path}/dev\.tsv:1: the header row lacks the columns \['score'\]"
    ):
        SRC.convert(tmp_path)


def test_templates_are_flan_stsb_patterns_1_to_8():
    assert [t.id for t in TASKS.templates] == [f"t{k}" for k in range(1, 9)]
    assert [t.note for t in TASKS.templates] == [f"FLAN stsb pattern {k}" for k in range(1, 9)]
    assert (TASKS.suite, TASKS.language, TASKS.pair, TASKS.family, TASKS.primary_metric) == (
        "nlu",
        "en",
        "jsts",
        "similarity",
        "pearson",
    )
    assert (TASKS.num_fewshot, TASKS.doc_to_target, TASKS.target_delimiter) == (0, "{{target}}", "\n")
    assert all(t.regex == " ?([0-5](\\.[0-9]+)?)" for t in TASKS.templates)


def test_t1_prompt_of_the_first_genuine_record_is_flan_pattern_1():
    rec = SRC.convert(shared_sample("stsb"))["valid"][0]
    assert apply_template(TASKS.templates[0].doc_to_text, rec) == (
        "A man with a hard hat is dancing.\nA man wearing a hard hat is dancing.\n\n"
        'Rate the textual similarity of these two sentences on a scale from 0 to 5, where 0 is "no meaning '
        'overlap" and 5 is "means the same thing".\n\nOPTIONS:\n- 0\n- 1\n- 2\n- 3\n- 4\n- 5'
    )
    for tpl, pattern in zip(TASKS.templates, PATTERNS):  # every template: FLAN's own rendering (str.format)
        want = pattern.format(sentence1=rec["sentence1"], sentence2=rec["sentence2"], options_=OPTIONS).rstrip()
        assert apply_template(tpl.doc_to_text, rec) == want


@pytest.mark.parametrize("tpl", TASKS.templates, ids=lambda t: t.id)
def test_every_template_reads_natural_answers_alike(tpl):
    flt, doc = answer_filter(TASKS, tpl), {}
    for text, want, exact in [
        ("3.8", "3.8", True),
        (" 4", "4", True),
        ("Similarity: 4", "4", False),
        ("Answer: 4.75", "4.75", False),
        ("**2.5**", "2.5", False),
        ("I would rate it 3 out of 5.", "3", False),
        ("5\nSentence 1: next", "5", True),
        (GARBAGE, INVALID, False),
        ("no overlap at all", INVALID, False),
    ]:
        got = flt.read(text, doc)
        assert (str(got), got.adherent) == (want, exact), (tpl.id, text)
        if want != INVALID:
            assert math.isfinite(float(got))
