"""squad: the genuine dev-v1.1.json sample question for question (every reference answer kept, duplicates included;
FLAN's title), a folder holding only the dev file, both layouts (hub parquet, SQuAD JSON) giving the same records,
bad input as one line, the FLAN prompts and the span reading."""

import json
import shutil
from collections import Counter

import pytest
from lm_eval.utils import apply_template
from lm_eval_enterprise.tasks.nlu.squad import make_fixture
from lm_eval_enterprise.tasks.nlu.squad import source as S
from lm_eval_enterprise.tasks.nlu.squad.templates import PATTERNS, TASKS

from conftest import shared_sample
from lm_eval_enterprise.data import DataError, fixture_dir, get_source, inspect_folder
from lm_eval_enterprise.prompting.templating import answer_filter
from lm_eval_enterprise.scoring.filters import SPAN_FORMAT
from lm_eval_enterprise.scoring.metrics import INVALID, squad_normalize
from testkit.testing import GARBAGE, assert_zero_shot_only

SRC = get_source("squad")
FIX = fixture_dir("squad")


def sample_questions() -> list[tuple[dict, dict, dict]]:
    """(article, paragraph, question) of the genuine sample, in file order (the tests' own walk of the JSON)."""
    doc = json.loads((shared_sample("squad") / "dev-v1.1.json").read_text(encoding="utf-8"))
    return [(a, p, q) for a in doc["data"] for p in a["paragraphs"] for q in p["qas"]]


def test_source_is_the_hub_squad_config_or_squads_json_files():
    assert (SRC.hf_repo, SRC.hf_revision, SRC.hf_prefix, SRC.hf_splits) == (
        "rajpurkar/squad",
        "main",
        "plain_text",
        ("train", "validation"),
    )
    assert SRC.published == {"train": "train-v1.1.json", "valid": "dev-v1.1.json"} and SRC.archive == ""
    assert SRC.task_type == "extractive_qa" and (SRC.eval_split, SRC.fewshot_source_split) == ("valid", "train")
    rows = SRC.expected_rows
    assert (rows["valid"].n, rows["valid"].verified, rows["train"].n, rows["train"].verified) == (
        10570,
        True,
        87599,
        False,
    )


def test_genuine_sample_converts_question_for_question():
    """The first article of dev-v1.1.json (Super_Bowl_50), 14 paragraphs, 289 questions: one record per question in
    file order, every reference answer kept in order (duplicates included), target = the first, FLAN's title."""
    splits = SRC.convert(shared_sample("squad"))
    assert list(splits) == ["valid"]  # the sample has no train file
    recs, questions = splits["valid"], sample_questions()
    assert len(recs) == len(questions) == 289
    for rec, (article, paragraph, qa) in zip(recs, questions):
        answers = [a["text"] for a in qa["answers"]]
        assert rec == {
            "id": qa["id"],
            "title": article["title"].replace("_", " "),
            "context": paragraph["context"],
            "question": qa["question"],
            "answers": answers,
            "target": answers[0],
        }
    assert recs[0]["title"] == "Super Bowl 50" and questions[0][0]["title"] == "Super_Bowl_50"
    assert S.flan_title("Normans_of_the_North") == "Normans of the North"  # FLAN: every "_" becomes a space
    assert recs[0]["answers"] == ["Denver Broncos"] * 3  # duplicates are kept
    assert Counter(len(r["answers"]) for r in recs) == {3: 287, 2: 2}  # SOURCE.md
    assert sum(len(set(r["answers"])) < len(r["answers"]) for r in recs) == 269  # questions with a repeated answer


def test_genuine_file_is_ascii_escaped_json_without_final_newline():
    """Serialised as json.dumps does (``\\u2013`` escapes, no trailing newline): the records hold the characters."""
    raw = (shared_sample("squad") / "dev-v1.1.json").read_bytes()
    assert raw.isascii() and not raw.endswith(b"\n") and b"24\\u201310" in raw
    assert "24–10" in SRC.convert(shared_sample("squad"))["valid"][0]["context"]


def test_dev_file_alone_is_a_source_layout_counted_for_its_split_only():
    """A folder with dev-v1.1.json and no train-v1.1.json (the genuine sample) converts and passes every check of
    the folder: the absent pool is no count of 0."""
    d = shared_sample("squad")
    assert SRC.has_source_layout(d) and SRC.layout(d) == "published"
    splits, report = inspect_folder(SRC, d)
    assert report.declared == "SOURCE.md" and [(c.key, c.n, c.status) for c in report.checks] == [("valid", 289, "ok")]
    assert len(splits["valid"]) == 289


def test_dev_file_alone_loads_for_zero_shot_runs_and_refuses_shots():
    """The genuine dev-only folder serves zero-shot runs (an empty few-shot pool); a run asking for shots fails
    with one line naming the dataset and the empty pool, before any request is built."""
    assert_zero_shot_only("squad", "nlu_squad__t1", str(shared_sample("squad").parent), 289)


def test_hub_layout_of_the_genuine_questions_gives_the_same_records(tmp_path):
    """The sample's questions written as the hub's parquet file (title with underscores, answers{text,
    answer_start}) convert to exactly the records of the JSON file."""
    articles: dict = {}
    for article, paragraph, qa in sample_questions():
        paragraphs = articles.setdefault(article["title"], [])
        if not paragraphs or paragraphs[-1][0] != paragraph["context"]:
            paragraphs.append((paragraph["context"], []))
        paragraphs[-1][1].append((qa["id"], qa["question"], [a["text"] for a in qa["answers"]]))
    make_fixture.write_parquet(tmp_path / "plain_text" / "validation-00000-of-00001.parquet", articles)
    assert SRC.layout(tmp_path) == "hub" and SRC.convert(tmp_path) == SRC.convert(shared_sample("squad"))


def test_fixture_hub_files_and_their_squad_json_give_the_same_records(tmp_path):
    hub = SRC.convert(FIX)
    assert {s: len(r) for s, r in hub.items()} == {"train": 4, "valid": 5}
    published = make_fixture.write_published(tmp_path)
    assert SRC.layout(published) == "published" and SRC.convert(published) == hub
    assert hub["valid"][0]["title"] == "River Ostra" and hub["valid"][0]["answers"] == [
        "the Kessel Hills",
        "Kessel Hills",
        "the Kessel Hills",
    ]


def write_json(d, doc) -> None:
    d.mkdir(parents=True, exist_ok=True)
    (d / "dev-v1.1.json").write_text(json.dumps(doc), encoding="utf-8")


def one_question(**qa) -> dict:
    base = {"id": "q1", "question": "Who?", "answers": [{"answer_start": 0, "text": "Ann"}]}
    return {
        "data": [{"title": "T", "paragraphs": [{"context": "Ann met Bob.", "qas": [{**base, **qa}]}]}],
        "version": "1.1",
    }


@pytest.mark.parametrize(
    "doc, where, problem",
    [
        ({**one_question(), "version": "v2.0"}, "", r"version 'v2\.0': not a SQuAD v1\.1 file"),
        (one_question(answers=[]), r": data\[0\]\.paragraphs\[0\]\.qas\[0\]", r"question q1: no reference answers"),
        (
            one_question(answers=[{"answer_start": 0, "text": " "}]),
            r": data\[0\]\.paragraphs\[0\]\.qas\[0\]",
            r"question q1: reference answer ' ' is not a non-empty string",
        ),
        (
            one_question(question=""),
            r": data\[0\]\.paragraphs\[0\]\.qas\[0\]",
            r"question q1: empty or missing question",
        ),
        (one_question(id=7), r": data\[0\]\.paragraphs\[0\]\.qas\[0\]", r"question id 7 is not a non-empty string"),
        ({"data": {"title": "T"}, "version": "1.1"}, "", r"expected a list 'data'"),
    ],
)
def test_bad_json_is_one_line_naming_file_and_place(tmp_path, doc, where, problem):
    write_json(tmp_path, doc)
    with pytest.raises(DataError, match=rf"^\[squad\] {tmp_path}/dev-v1\.1\.json{where}: {problem}") as e:
        SRC.convert(tmp_path)
    assert "\n" not in str(e.value)


def test_unreadable_json_and_bad_hub_rows_are_one_line(tmp_path):
    (tmp_path / "dev-v1.1.json").write_text('{"data": [', encoding="utf-8")
    with pytest.raises(DataError, match=r"dev-v1\.1\.json: not a readable SQuAD JSON file"):
        SRC.convert(tmp_path)
    hub = tmp_path / "hub"
    shutil.copytree(FIX, hub)
    make_fixture.write_parquet(
        hub / "plain_text" / "validation-00000-of-00001.parquet", {"T": [("Ann met Bob.", [("q1", "Who?", [])])]}
    )
    with pytest.raises(DataError, match=r"validation-00000-of-00001\.parquet:row 0: question q1: no reference answers"):
        SRC.convert(hub)


def test_templates_are_flan_squad_v1_patterns_1_to_8():
    assert [t.id for t in TASKS.templates] == [f"t{k}" for k in range(1, 9)]
    assert [t.note for t in TASKS.templates] == [f"FLAN squad_v1 pattern {k}" for k in range(1, 9)]
    assert (TASKS.suite, TASKS.language, TASKS.pair, TASKS.family, TASKS.primary_metric) == (
        "nlu",
        "en",
        "jsquad",
        "extractive_qa",
        "squad_f1",
    )
    assert (TASKS.doc_to_target, TASKS.max_gen_toks) == ("{{target}}", 32)
    assert all(t.regex == SPAN_FORMAT for t in TASKS.templates)


def test_t1_prompt_of_the_first_genuine_record_is_flan_pattern_1():
    rec = SRC.convert(shared_sample("squad"))["valid"][0]
    context = sample_questions()[0][1]["context"]
    assert apply_template(TASKS.templates[0].doc_to_text, rec) == (
        "Please answer a question about the following article about Super Bowl 50:\n\n"
        + context
        + "\n\nWhich NFL team represented the AFC at Super Bowl 50?"
    )
    for tpl, pattern in zip(TASKS.templates, PATTERNS):  # every template: FLAN's own rendering (str.format)
        want = pattern.format(title=rec["title"], context=rec["context"], question=rec["question"])
        assert apply_template(tpl.doc_to_text, rec) == want
    assert apply_template(TASKS.templates[7].doc_to_text, rec).startswith("Super Bowl 50\nSuper Bowl 50 was an")


@pytest.mark.parametrize("tpl", TASKS.templates, ids=lambda t: t.id)
def test_every_template_reads_natural_answers_alike(tpl):
    flt, doc = answer_filter(TASKS, tpl), {}
    for text, want in [
        ("Denver Broncos", "Denver Broncos"),
        ("Denver Broncos.", "Denver Broncos"),  # a span with a trailing period
        ("Answer: Denver Broncos", "Denver Broncos"),
        ('"Denver Broncos"', "Denver Broncos"),
        ("**Denver Broncos**", "Denver Broncos"),
        ("Denver Broncos\nQ: who won?", "Denver Broncos"),
        ("The answer is Santa Clara, California.", "Santa Clara, California"),
        (GARBAGE, INVALID),
        ("...", INVALID),
    ]:
        got = str(flt.read(text, doc))
        # read alike as the metric sees it: quotes and a closing period stay in the reading ([SPAN] keeps
        # brackets and quotes, an answer may be a bracketed phrase) and SQuAD's normalisation removes them
        assert got == want if want == INVALID else squad_normalize(got) == squad_normalize(want), (tpl.id, text, got)
    assert flt.read(" Denver Broncos.", doc).adherent  # one line of text: the format every template asks for
