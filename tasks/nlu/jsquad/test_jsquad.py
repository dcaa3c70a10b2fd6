"""jsquad: the pinned JGLUE files, the conversion of the fixture and of the genuine sample (quirks: the
"<title> [SEP] " prefix of every context stripped, answer offsets counted from it, answers in the title,
2–3 references kept, no train file in the sample), the optional files, bad input, ``prepare --from``, the templates
(FLAN squad_v1 patterns and their translations) and the reading of natural Japanese answers."""

import json
import re
import unicodedata
from pathlib import Path

import pytest
from lm_eval.utils import apply_template
from lm_eval_enterprise.tasks.nlu.jsquad import source as S
from lm_eval_enterprise.tasks.nlu.jsquad.templates import EN_PATTERNS, JA_PATTERNS, TASKS

from conftest import shared_sample
from lm_eval_enterprise import data as D
from lm_eval_enterprise.data import DataError, fixture_dir, get_source, inspect_folder
from lm_eval_enterprise.prompting import flan
from lm_eval_enterprise.prompting.templating import answer_filter
from lm_eval_enterprise.scoring.filters import SPAN_FORMAT
from lm_eval_enterprise.scoring.metrics import INVALID, char_exact_match
from testkit.testing import assert_zero_shot_only

SRC = get_source("jsquad")
FIX = fixture_dir("jsquad")
VALID = "valid-v1.3.json"


def _doc(context: str = "星 [SEP] 星は夜空に光る。", title: str = "星", **qa) -> dict:
    q = {"question": "夜空に光るのは？", "id": "q1", "answers": [{"text": "星", "answer_start": 8}]}
    q |= {"is_impossible": False, **qa}
    return {"data": [{"title": title, "paragraphs": [{"qas": [q], "context": context}]}]}


def _folder(tmp_path, doc, name: str = VALID):
    """A data folder holding one JSQuAD file, declared a partial copy (SOURCE.md): fewer rows than the full counts."""
    d = tmp_path / "jsquad"
    d.mkdir(parents=True, exist_ok=True)
    (d / D.SAMPLE_NOTE).write_text("rows written by a test\n")
    (d / name).write_text(doc if isinstance(doc, str) else json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return d


# ------------------------------------------------------------------------------------------------ the source
def test_source_is_the_pinned_jglue_files():
    assert S.COMMIT == "6f071c09316baae89c3d083a90985b4b1cb9968c"  # tag v1.3.0
    assert {s: f.name for s, f in SRC.split_files.items()} == {
        "train": "train-v1.3.json",
        "valid": "valid-v1.3.json",
        "test": "test-v1.3.json",
    }
    assert SRC.split_files["valid"].url == (
        "https://raw.githubusercontent.com/yahoojapan/JGLUE/6f071c09316baae89c3d083a90985b4b1cb9968c/"
        "datasets/jsquad-v1.3/valid-v1.3.json"
    )
    assert SRC.split_files["valid"].sha256 == "fb0a57a35281ff03bbe7f0e878cff5b577985fbe6fcb242e7e8ddb63d1c0ab11"
    # train-v1.3.json was not available to count: its size is the JGLUE README's, unverified
    assert {s: (r.n, r.verified) for s, r in SRC.expected_rows.items()} == {
        "train": (62697, False),
        "valid": (4442, True),
        "test": (4420, True),
    }
    assert SRC.task_type == "extractive_qa_chars"


# ------------------------------------------------------------------------------------------------ conversion
def test_convert_fixture():
    splits = SRC.convert(FIX)
    assert {k: len(v) for k, v in splits.items()} == {"train": 4, "valid": 7, "test": 2}
    assert splits["valid"][0] == {
        "id": "a90101p0q0",
        "title": "星見町",
        "context": "星見町（ほしみちょう）は、架空の県の北部に位置する町である。人口はおよそ1万2千人で、天文台があることで"
        "知られる。",
        "question": "星見町はどこに位置するか。",
        "answers": ["架空の県の北部", "架空の県の北部", "北部"],
        "target": "架空の県の北部",
    }
    in_title = next(r for r in splits["valid"] if r["id"] == "a90101p1q2")  # answer_start 0: the title itself
    assert in_title["answers"] == ["星見町"] * 3 and "星見町" not in in_title["context"]
    assert [len(r["answers"]) for r in splits["train"]] == [1, 1, 1, 1]
    assert SRC.convert(FIX) == splits


def test_genuine_sample_converts_with_every_documented_quirk():
    d = shared_sample("jsquad")
    assert not (d / "train-v1.3.json").exists()
    splits, report = inspect_folder(SRC, d)
    assert {k: len(v) for k, v in splits.items()} == {"valid": 296}  # SOURCE.md: 193 + 103 questions
    assert report.declared == "SOURCE.md" and [(c.key, c.status) for c in report.checks] == [("valid", "ok")]
    raw = json.loads((d / VALID).read_text(encoding="utf-8"))
    qas = [(a, p, q) for a in raw["data"] for p in a["paragraphs"] for q in p["qas"]]
    assert [r["id"] for r in splits["valid"]] == [q["id"] for _, _, q in qas]  # one record a question, file order
    for rec, (a, p, q) in zip(splits["valid"], qas):  # the prefix "<title> [SEP] " stripped, the rest kept
        assert p["context"] == f"{a['title']} [SEP] {rec['context']}" and rec["title"] == a["title"]
        assert rec["answers"] == [x["text"] for x in q["answers"]] and rec["target"] == rec["answers"][0]
    # 2–3 references per question, all kept (SOURCE.md: 268×3, 28×2 in the sample); extents may differ
    assert sorted(len(r["answers"]) for r in splits["valid"]) == [2] * 28 + [3] * 268
    first = splits["valid"][0]
    assert (first["id"], first["title"], first["question"]) == (
        "a10336p0q0",
        "梅雨",
        "日本で梅雨がないのは北海道とどこか。",
    )
    assert first["answers"] == ["小笠原諸島", "小笠原諸島を除く日本", "小笠原諸島"]
    assert first["context"].startswith("梅雨（つゆ、ばいう）は、北海道と小笠原諸島を除く日本、")
    # answers whose answer_start points into the title prefix are kept; 6 questions are answered only there
    in_title = next(q for _, _, q in qas if q["id"] == "a10336p20q2")
    assert [(x["text"], x["answer_start"]) for x in in_title["answers"]] == [("梅雨", 0)] * 3
    only_title = [r["id"] for r in splits["valid"] if not any(x in r["context"] for x in r["answers"])]
    assert only_title == ["a10336p7q3", "a10336p8q0", "a10336p8q1", "a10743p12q2", "a10743p24q1", "a10743p24q2"]


def test_dev_file_alone_serves_zero_shot_runs_and_refuses_shots():
    """The genuine sample holds the dev file alone: zero-shot runs load it, with an empty few-shot pool, and a run
    asking for shots fails with one line naming the dataset, before any request is built."""
    assert_zero_shot_only("jsquad", "nlu_jsquad__t1", str(shared_sample("jsquad").parent), 296)


def test_train_and_test_files_are_read_when_present(tmp_path):
    d = _folder(tmp_path, _doc())
    (d / "test-v1.3.json").write_text(json.dumps(_doc(), ensure_ascii=False), encoding="utf-8")
    (d / "train-v1.3.json").write_text(json.dumps(_doc(), ensure_ascii=False), encoding="utf-8")
    splits, report = inspect_folder(SRC, d)
    assert {k: len(v) for k, v in splits.items()} == {"train": 1, "valid": 1, "test": 1}
    assert [c.key for c in report.checks] == ["train", "valid", "test"]


def test_title_underscores_become_spaces_and_a_version_key_is_tolerated(tmp_path):
    doc = {
        "version": "1.1",
        **_doc("星_空 [SEP] 星は夜空に光る。", title="星_空", answers=[{"text": "星", "answer_start": 10}]),
    }
    (rec,) = SRC.convert(_folder(tmp_path, doc))["valid"]
    assert rec == {
        "id": "q1",
        "title": "星 空",
        "context": "星は夜空に光る。",
        "question": "夜空に光るのは？",
        "answers": ["星"],
        "target": "星",
    }


@pytest.mark.parametrize(
    ("doc", "where", "problem"),
    [
        (
            _doc("星は夜空に光る。"),
            " data[0] 星 / paragraph 0",
            "the context does not start with '星 [SEP] ' (begins '星は夜空に光る。')",
        ),
        (
            _doc(is_impossible=True),
            " data[0] 星 / paragraph 0 / question q1",
            "is_impossible is True; JSQuAD v1.3 has answerable questions only",
        ),
        (
            _doc(answers=[{"text": "星", "answer_start": 8}, {"text": "夜空", "answer_start": 8}]),
            " data[0] 星 / paragraph 0 / question q1",
            "answer 1 '夜空' is not the context's text at answer_start 8",
        ),
        (
            _doc(answers=[{"text": "星"}]),
            " data[0] 星 / paragraph 0 / question q1",
            "answer 0 '星' is not the context's text at answer_start None",
        ),
        (_doc(answers=[]), " data[0] 星 / paragraph 0 / question q1", "the question has no answer"),
        (
            _doc(answers=[{"text": "", "answer_start": 8}]),
            " data[0] 星 / paragraph 0 / question q1",
            "answer 0 has no text",
        ),
        (_doc(question=""), " data[0] 星 / paragraph 0 / question q1", "empty or missing question"),
        (_doc(id=None), " data[0] 星 / paragraph 0", "a question has no id"),
        (_doc("星 [SEP] "), " data[0] 星 / paragraph 0", "the context is empty after its title prefix"),
        ({"data": [{"paragraphs": []}]}, " data[0]", "the article has no title"),
        ({"articles": []}, "", "'data' is not a list"),
        ({"data": []}, "", "the file holds no questions"),
        ('{"data": [', "", "cannot read the SQuAD-style JSON (Expecting value: line 1 column 11 (char 10))"),
    ],
)
def test_bad_file_is_one_line_naming_dataset_file_and_place(tmp_path, doc, where, problem):
    d = _folder(tmp_path, doc)
    with pytest.raises(DataError) as e:
        SRC.convert(d)
    place = f"{d / VALID}:{where}" if where else str(d / VALID)
    assert str(e.value) == f"[jsquad] {place}: {problem}"


def test_prepare_from_the_genuine_sample(tmp_path):
    d = D.import_from(SRC, shared_sample("jsquad"), data_root=tmp_path)
    assert json.loads((d / D.IMPORT_RECORD).read_text())["rows"] == {"valid": 296}


# ------------------------------------------------------------------------------------------------ templates
_FIELD = re.compile(r"\{(\w+)\}")


def test_templates_are_flan_squad_v1_patterns_1_to_8_translated():
    assert len(EN_PATTERNS) == len(JA_PATTERNS) == len(TASKS.templates) == 8
    for k, (en, ja, tpl) in enumerate(zip(EN_PATTERNS, JA_PATTERNS, TASKS.templates), 1):
        assert _FIELD.findall(ja) == _FIELD.findall(en), k  # same fields in the same order ({title} in 1 and 8)
        assert tpl.id == f"t{k}" and tpl.note == f"FLAN squad_v1 pattern {k}, translated into Japanese (ours)"
        assert tpl.doc_to_text == flan.jinja(ja) and tpl.regex == SPAN_FORMAT
    assert [("{title}" in p) for p in JA_PATTERNS] == [True, False, False, False, False, False, False, True]
    assert (TASKS.suite, TASKS.language, TASKS.pair, TASKS.family, TASKS.primary_metric) == (
        "nlu",
        "ja",
        "squad",
        "extractive_qa_chars",
        "char_f1",
    )
    assert (TASKS.doc_to_target, TASKS.test_split, TASKS.target_delimiter) == ("{{target}}", "valid", "\n")


def test_t1_prompt_of_the_first_genuine_record():
    d = shared_sample("jsquad")
    first = SRC.convert(d)["valid"][0]
    paragraph = json.loads((d / VALID).read_text(encoding="utf-8"))["data"][0]["paragraphs"][0]["context"]
    assert apply_template(TASKS.templates[0].doc_to_text, first) == (
        "梅雨についての次の記事に関する質問に答えてください：\n\n"
        + paragraph.removeprefix("梅雨 [SEP] ")
        + "\n\n日本で梅雨がないのは北海道とどこか。"
    )


def test_readme_shows_every_template_beside_its_english_original():
    text = (Path(__file__).parent / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Templates\n", 1)[1].split("\n## ", 1)[0]
    for k, (en, ja) in enumerate(zip(EN_PATTERNS, JA_PATTERNS), 1):
        assert f"| t{k} | squad_v1 {k} | `{en}` | `{ja}` |".replace("\n", "\\n") in section, k


# ------------------------------------------------------------------------------------------------ reading answers
DOC = {"id": "q", "title": "梅雨", "context": "…", "question": "…", "answers": ["小笠原諸島"], "target": "小笠原諸島"}
NATURAL = [
    ("小笠原諸島", "小笠原諸島"),
    (" 小笠原諸島", "小笠原諸島"),
    ("小笠原諸島。", "小笠原諸島"),
    ("小笠原諸島です。", "小笠原諸島"),
    ("「小笠原諸島」です。", "「小笠原諸島」"),  # a span in 「」 with です。 (the metric drops the quotes)
    ("答えは小笠原諸島です", "小笠原諸島"),
    ("答え：「小笠原諸島」", "「小笠原諸島」"),
    ("**小笠原諸島**", "小笠原諸島"),
    ("小笠原諸島だ。", "小笠原諸島"),
    ("小笠原諸島を除く日本", "小笠原諸島を除く日本"),
    ("5月から7月にかけて", "5月から7月にかけて"),
    ("『交響曲第3番』です。", "『交響曲第3番』"),
    ("？？？", INVALID),
    ("「」", INVALID),
    ("。", INVALID),
    ("", INVALID),
]


@pytest.mark.parametrize("tpl", TASKS.templates, ids=lambda t: t.id)
def test_natural_japanese_answers_read_the_same_under_every_template(tpl):
    filt = answer_filter(TASKS, tpl)
    assert [(text, str(filt.read(text, DOC))) for text, _ in NATURAL] == NATURAL
    # every reading of the gold answer scores exact match 1 under [CHARF1] (quotes and 。 normalised on both sides)
    for text, _ in NATURAL[:9]:
        assert char_exact_match(str(filt.read(text, DOC)), DOC["answers"]) == 1.0, text
    assert [filt.read(t, DOC).adherent for t in ("小笠原諸島", " 小笠原諸島です。", "", " ")] == [
        True,
        True,
        False,
        False,
    ]


def _key(text: str) -> str:
    return "".join(unicodedata.normalize("NFKC", text).split())


# references with brackets, several quotations or a final 。 read back as themselves (the oracle: a model answering
# exactly a reference scores exact match 1)
@pytest.mark.parametrize("answer", ["出梅（しゅつばい）", "『さすらう若人の歌』と『嘆きの歌』", "「（メイユー）」"])
def test_references_with_brackets_and_quotations_read_back(answer):
    reading = str(answer_filter(TASKS, TASKS.templates[0]).read(answer, DOC))
    assert reading == answer and char_exact_match(reading, [answer]) == 1.0


def test_every_first_reference_of_the_genuine_sample_scores_exact_match():
    filt = answer_filter(TASKS, TASKS.templates[0])
    recs = SRC.convert(shared_sample("jsquad"))["valid"]
    bad = [r["target"] for r in recs if char_exact_match(str(filt.read(r["target"], r)), r["answers"]) != 1.0]
    assert bad == []
