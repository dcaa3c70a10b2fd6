"""jsts: the pinned JGLUE files, the conversion of the fixture and of the genuine sample (quirks: float labels,
string ids, mixed full/half-width digits kept), the score text and the evaluation stratum, the optional test file,
bad input, ``prepare --from``, the templates (FLAN stsb patterns and their translations) and the reading of natural
Japanese answers (full-width digits included)."""

import json
import re
from pathlib import Path

import pytest
from lm_eval.utils import apply_template
from lm_eval_enterprise.tasks.nlu.jsts import source as S
from lm_eval_enterprise.tasks.nlu.jsts.templates import EN_PATTERNS, JA_PATTERNS, TASKS

from conftest import shared_sample
from lm_eval_enterprise import data as D
from lm_eval_enterprise.data import DataError, fixture_dir, get_source, inspect_folder, load_records
from lm_eval_enterprise.prompting import flan
from lm_eval_enterprise.prompting.templating import answer_filter
from lm_eval_enterprise.scoring.filters import SCORE_FORMAT
from lm_eval_enterprise.scoring.metrics import INVALID

SRC = get_source("jsts")
FIX = fixture_dir("jsts")
VALID = "valid-v1.3.json"


def _folder(tmp_path, files: dict[str, str]):
    """A data folder holding ``files``, declared a partial copy (SOURCE.md): fewer rows than the full counts."""
    d = tmp_path / "jsts"
    d.mkdir(parents=True, exist_ok=True)
    (d / D.SAMPLE_NOTE).write_text("rows written by a test\n")
    for name, text in files.items():
        (d / name).write_text(text, encoding="utf-8")
    return d


def _line(**row) -> str:
    base = {"sentence_pair_id": "0", "yjcaptions_id": "1-2-3", "sentence1": "犬が走っています。"}
    base |= {"sentence2": "犬が走っている。", "label": 4.6}
    return json.dumps({**base, **row}, ensure_ascii=False) + "\n"


# ------------------------------------------------------------------------------------------------ the source
def test_source_is_the_pinned_jglue_files():
    assert S.COMMIT == "6f071c09316baae89c3d083a90985b4b1cb9968c"  # tag v1.3.0
    assert {s: f.name for s, f in SRC.split_files.items()} == {
        "train": "train-v1.3.json",
        "valid": "valid-v1.3.json",
        "test": "test-v1.3.json",
    }
    assert SRC.split_files["test"].url == (
        "https://raw.githubusercontent.com/yahoojapan/JGLUE/6f071c09316baae89c3d083a90985b4b1cb9968c/"
        "datasets/jsts-v1.3/test-v1.3.json"
    )
    assert SRC.split_files["valid"].sha256 == "7c0bdcb381179f01096c635d058853d96da1e1248d23fe3f5c2beed5dc2d9b1a"
    assert SRC.split_files["train"].sha256 == "db6bd653270ac9786759920413a48973164d322998f34dd4ae32202af5e66969"
    assert SRC.split_files["test"].sha256 is None
    assert {s: (r.n, r.verified) for s, r in SRC.expected_rows.items()} == {
        "train": (12451, True),
        "valid": (1457, True),
        "test": (1589, True),
    }
    assert (SRC.task_type, SRC.eval_split, SRC.fewshot_source_split) == ("similarity", "valid", "train")


def test_score_text_and_stratum():
    assert [S.score_text(x) for x in (2.2, 0.0, 5.0, 3.25, 1 / 3, 4)] == ["2.2", "0", "5", "3.25", "0.3333", "4"]
    assert [S.score_stratum(x) for x in (0.0, 0.2, 2.4, 2.5, 2.6, 4.8, 5.0)] == [0, 0, 2, 3, 3, 5, 5]


# ------------------------------------------------------------------------------------------------ conversion
def test_convert_fixture():
    splits = SRC.convert(FIX)
    assert {k: len(v) for k, v in splits.items()} == {"train": 8, "valid": 6, "test": 4}
    assert splits["valid"][1] == {
        "id": "1",
        "sentence1": "３人の男性が野球をしています。",
        "sentence2": "グラウンドで3人がバットを持っています。",
        "score": 2.8,
        "target": "2.8",
    }
    assert [r["target"] for r in splits["train"]] == ["4.8", "3.4", "0", "5", "2.6", "3", "1.2", "2.2"]
    assert SRC.convert(FIX) == splits


def test_genuine_sample_converts_with_every_documented_quirk():
    d = shared_sample("jsts")
    splits, report = inspect_folder(SRC, d)
    assert {k: len(v) for k, v in splits.items()} == {"train": 500, "valid": 300}  # no test file in the sample
    assert report.declared == "SOURCE.md" and [(c.key, c.status) for c in report.checks] == [
        ("train", "ok"),
        ("valid", "ok"),
    ]
    rows = [json.loads(line) for line in (d / VALID).read_text(encoding="utf-8").splitlines()]
    assert all(isinstance(r["sentence_pair_id"], str) and isinstance(r["label"], float) for r in rows)
    assert [r["id"] for r in splits["valid"]] == [r["sentence_pair_id"] for r in rows]
    assert [r["score"] for r in splits["valid"]] == [r["label"] for r in rows]
    assert splits["valid"][0] == {
        "id": "0",
        "sentence1": "レンガの建物の前を、乳母車を押した女性が歩いています。",
        "sentence2": "厩舎で馬と女性とが寄り添っています。",
        "score": 0.0,
        "target": "0",
    }
    # mixed full-width and half-width digits, kept as written (one pair holds both)
    pair = splits["valid"][1]
    assert "2頭" in pair["sentence1"] and "２匹" in pair["sentence2"] and pair["target"] == "2.4"
    # SOURCE.md: sample means 2.303 (valid) and 2.366 (train); every score a multiple of 0.2 in [0, 5]
    assert sum(r["score"] for r in splits["valid"]) / 300 == pytest.approx(2.303, abs=5e-4)
    assert sum(r["score"] for r in splits["train"]) / 500 == pytest.approx(2.366, abs=5e-4)
    assert all(re.fullmatch(r"[0-5](\.[02468])?", r["target"]) for r in splits["valid"] + splits["train"])
    assert all(float(r["target"]) == r["score"] for r in splits["valid"])


def test_genuine_sample_loads_stratified_by_the_rounded_score():
    recs = load_records("jsts", data_root=str(shared_sample("jsts").parent))
    assert (len(recs["valid"]), len(recs["train"]), len(recs["fewshot"])) == (300, 500, 256)
    counts = {s: sum(S.score_stratum(r["score"]) == s for r in recs["valid"]) for s in range(6)}
    prefix = [S.score_stratum(r["score"]) for r in recs["valid"][:60]]
    assert all(abs(prefix.count(s) - 60 * n / 300) < 1 for s, n in counts.items()), (counts, prefix)


def test_test_file_is_the_test_split_when_present(tmp_path):
    d = _folder(tmp_path, {VALID: _line(), "test-v1.3.json": _line(sentence_pair_id="0", label=1.2)})
    splits, report = inspect_folder(SRC, d)
    assert {k: [r["target"] for r in v] for k, v in splits.items()} == {"valid": ["4.6"], "test": ["1.2"]}
    assert [c.key for c in report.checks] == ["valid", "test"]  # no train file: not counted


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        (_line(label="3.0"), "pair 0: label '3.0' is not a similarity score in [0, 5]"),
        (_line(label=5.2), "pair 0: label 5.2 is not a similarity score in [0, 5]"),
        (_line(label=-0.2), "pair 0: label -0.2 is not a similarity score in [0, 5]"),
        (_line(label=True), "pair 0: label True is not a similarity score in [0, 5]"),
        (_line(label=None), "pair 0: label None is not a similarity score in [0, 5]"),
        (_line().replace("4.6", "NaN"), "pair 0: label nan is not a similarity score in [0, 5]"),
        (_line(sentence_pair_id=7), "sentence_pair_id 7 is not a non-empty string"),
        (_line(sentence1=""), "pair 0: empty or missing sentence1"),
        (
            json.dumps({"sentence_pair_id": "1", "sentence1": "a", "label": 1.0}) + "\n",
            "row lacks columns ['sentence2'] (has ['label', 'sentence1', 'sentence_pair_id'])",
        ),
    ],
)
def test_bad_row_is_one_line_naming_dataset_file_and_line(tmp_path, line, problem):
    d = _folder(tmp_path, {VALID: _line() + line})
    with pytest.raises(DataError) as e:
        SRC.convert(d)
    assert str(e.value) == f"[jsts] {d / VALID}:2: {problem}"


def test_prepare_from_the_genuine_sample(tmp_path):
    d = D.import_from(SRC, shared_sample("jsts"), data_root=tmp_path)
    imported = json.loads((d / D.IMPORT_RECORD).read_text())
    assert d == tmp_path / "jsts" and imported["rows"] == {"train": 500, "valid": 300}
    assert imported["sha256"] and set(imported["files"]) >= {"train-v1.3.json", "valid-v1.3.json", "SOURCE.md"}


# ------------------------------------------------------------------------------------------------ templates
_FIELD = re.compile(r"\{(\w+)\}")


def test_templates_are_flan_stsb_patterns_1_to_8_translated():
    assert len(EN_PATTERNS) == len(JA_PATTERNS) == len(TASKS.templates) == 8
    for k, (en, ja, tpl) in enumerate(zip(EN_PATTERNS, JA_PATTERNS, TASKS.templates), 1):
        assert _FIELD.findall(ja) == _FIELD.findall(en), k  # same fields, same order, options in the same place
        assert tpl.id == f"t{k}" and tpl.note == f"FLAN stsb pattern {k}, translated into Japanese (ours)"
        assert tpl.doc_to_text == flan.jinja(ja, flan.options_block(("0", "1", "2", "3", "4", "5"), "ja"))
        assert tpl.doc_to_text.endswith("選択肢：\n- 0\n- 1\n- 2\n- 3\n- 4\n- 5") and tpl.regex == SCORE_FORMAT
        # the scale's two ends are named in every pattern, as in the English one
        assert ("0が" in ja or "0＝" in ja or "0は" in ja) and ("5が" in ja or "5＝" in ja or "5は" in ja), k
    assert (TASKS.suite, TASKS.language, TASKS.pair, TASKS.family, TASKS.primary_metric) == (
        "nlu",
        "ja",
        "stsb",
        "similarity",
        "pearson",
    )
    assert (TASKS.doc_to_target, TASKS.test_split, TASKS.target_delimiter) == ("{{target}}", "valid", "\n")


def test_t1_prompt_of_the_first_genuine_record():
    first = SRC.convert(shared_sample("jsts"))["valid"][0]
    assert apply_template(TASKS.templates[0].doc_to_text, first) == (
        "レンガの建物の前を、乳母車を押した女性が歩いています。\n厩舎で馬と女性とが寄り添っています。\n\n"
        "この二つの文のテキストとしての類似度を、0が「意味の重なりがない」、5が「同じ意味である」を表す0から5の尺度で"
        "評価してください。\n\n選択肢：\n- 0\n- 1\n- 2\n- 3\n- 4\n- 5"
    )


def test_readme_shows_every_template_beside_its_english_original():
    text = (Path(__file__).parent / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Templates\n", 1)[1].split("\n## ", 1)[0]
    for k, (en, ja) in enumerate(zip(EN_PATTERNS, JA_PATTERNS), 1):
        assert f"| t{k} | stsb {k} | `{en}` | `{ja}` |".replace("\n", "\\n") in section, k


# ------------------------------------------------------------------------------------------------ reading answers
DOC = {"id": "0", "sentence1": "a", "sentence2": "b", "score": 3.8, "target": "3.8"}
NATURAL = [
    ("3.8", "3.8"),
    (" 4", "4"),
    ("３.５", "3.5"),  # full-width digits (NFKC)
    ("３．５", "3.5"),  # and a full-width point
    ("類似度：4", "4"),
    ("答え：2.4", "2.4"),
    ("答えは3です。", "3"),
    ("4.0です。", "4.0"),
    ("スコアは５", "5"),
    ("約3点", "3"),
    ("わかりません", INVALID),
    ("？？？", INVALID),
    ("", INVALID),
]


@pytest.mark.parametrize("tpl", TASKS.templates, ids=lambda t: t.id)
def test_natural_japanese_answers_read_the_same_under_every_template(tpl):
    filt = answer_filter(TASKS, tpl)
    assert [(text, str(filt.read(text, DOC))) for text, _ in NATURAL] == NATURAL
    assert [filt.read(t, DOC).adherent for t in ("3.8", " 4", "３.５", "4.0です", "類似度：4")] == [
        True,
        True,
        False,
        False,
        False,
    ]


# the scale named before the score ("5点満点中3点", 3 out of 5) is no answer, and a kanji numeral is a digit ([SCORE])
@pytest.mark.parametrize(
    ("text", "meant"),
    [("5点満点中3点", "3"), ("5段階中4です", "4"), ("0から5のうち3", "3"), ("四", "4")],
)
def test_scale_statements_and_kanji_numerals(text, meant):
    assert str(answer_filter(TASKS, TASKS.templates[0]).read(text, DOC)) == meant
