"""jcola: the pinned JCoLA files, the conversion of the fixture and of the genuine sample (quirks: int labels,
imbalance, rows not sorted by uid, ``sentence`` vs ``original``), the optional files, bad input, ``prepare --from``,
the templates (FLAN cola patterns and their translations) and the answer reading of natural Japanese answers."""

import json
import re
import shutil
from pathlib import Path

import pytest
from lm_eval.utils import apply_template
from lm_eval_enterprise.tasks.nlu.jcola import source as S
from lm_eval_enterprise.tasks.nlu.jcola.templates import EN_PATTERNS, JA_PATTERNS, TASKS

from conftest import shared_sample
from lm_eval_enterprise import cli
from lm_eval_enterprise import data as D
from lm_eval_enterprise.data import DataError, fixture_dir, get_source, inspect_folder, load_records
from lm_eval_enterprise.prompting import flan
from lm_eval_enterprise.prompting.templating import answer_filter
from lm_eval_enterprise.scoring.metrics import INVALID

SRC = get_source("jcola")
FIX = fixture_dir("jcola")
VALID, TRAIN, OOD = "in_domain_valid-v1.0.json", "in_domain_train-v1.0.json", "out_of_domain_valid-v1.0.json"


def _folder(tmp_path, files: dict[str, str]):
    """A data folder holding ``files``, declared a partial copy (SOURCE.md): fewer rows than the full counts."""
    d = tmp_path / "jcola"
    d.mkdir(parents=True, exist_ok=True)
    (d / D.SAMPLE_NOTE).write_text("rows written by a test\n")
    for name, text in files.items():
        (d / name).write_text(text, encoding="utf-8")
    return d


def _line(**row) -> str:
    base = {"uid": 1, "source": "Kakuu_2000", "label": 1, "diacritic": "g", "sentence": "猫が寝ている。"}
    return json.dumps({**base, **row}, ensure_ascii=False) + "\n"


# ------------------------------------------------------------------------------------------------ the source
def test_source_is_the_pinned_jcola_files():
    assert S.COMMIT == "736d9eef3af04bb17e4cf59adf01325973234ff9"
    assert {s: f.name for s, f in SRC.split_files.items()} == {"train": TRAIN, "valid": VALID, "valid_ood": OOD}
    assert SRC.split_files["valid"].url == (
        "https://raw.githubusercontent.com/osekilab/JCoLA/736d9eef3af04bb17e4cf59adf01325973234ff9/"
        "data/jcola-v1.0/in_domain_valid-v1.0.json"
    )
    assert SRC.split_files["valid"].sha256 == "677fb021886b6829d6a84e8ca9f62808f6bd479fa829439f49eac4f94f23658c"
    assert SRC.split_files["train"].sha256 == "c665f8a8b371b34c3c8947cde3670637cf0403ac7529ba8bb62370d07f008396"
    assert SRC.split_files["valid_ood"].sha256 is None  # no genuine copy confirmed it
    assert SRC.files == tuple(SRC.split_files.values())  # what download() fetches
    assert (SRC.labels, SRC.eval_split, SRC.fewshot_source_split) == (("容認できない", "容認できる"), "valid", "train")
    rows = SRC.expected_rows
    assert {s: (r.n, r.verified) for s, r in rows.items()} == {
        "train": (6919, True),
        "valid": (865, True),
        "valid_ood": (685, True),
    }


# ------------------------------------------------------------------------------------------------ conversion
def test_convert_fixture():
    splits = SRC.convert(FIX)
    assert {k: len(v) for k, v in splits.items()} == {"train": 8, "valid": 6, "valid_ood": 4}
    assert splits["valid"][0] == {
        "id": "8207",
        "text": "ジョンがメアリーをケーキを食べさせた。",
        "label": "容認できない",
    }
    # the file order is kept (not sorted by uid); the record's text is `sentence`, never the fragment `original`
    assert [r["id"] for r in splits["valid"]] == ["8207", "8011", "8156", "8093", "8120", "8044"]
    assert splits["valid"][3]["text"] == "母が作ったカレーはおいしかった。"
    assert [r["label"] for r in splits["valid_ood"]] == ["容認できない", "容認できる", "容認できる", "容認できない"]
    assert SRC.convert(FIX) == splits  # deterministic


def test_genuine_sample_converts_with_every_documented_quirk():
    d = shared_sample("jcola")
    splits, report = inspect_folder(SRC, d)
    assert {k: len(v) for k, v in splits.items()} == {"train": 500, "valid": 300}  # no out_of_domain file
    assert report.declared == "SOURCE.md" and report.status == "warning" and not report.errors  # a partial copy
    assert [(c.key, c.status) for c in report.checks] == [("train", "ok"), ("valid", "ok")]
    # labels 0/1 ints, heavily imbalanced (SOURCE.md: sample valid 249×1 / 51×0, train 425×1 / 75×0)
    assert [sum(r["label"] == lab for r in splits["valid"]) for lab in S.LABELS] == [51, 249]
    assert [sum(r["label"] == lab for r in splits["train"]) for lab in S.LABELS] == [75, 425]
    rows = [json.loads(line) for line in (d / VALID).read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in splits["valid"]] == [str(r["uid"]) for r in rows]  # file order, one record a row
    assert [r["text"] for r in splits["valid"]] == [r["sentence"] for r in rows]
    assert [int(r["id"]) for r in splits["valid"]] != sorted(int(r["id"]) for r in splits["valid"])  # unsorted
    assert splits["valid"][0] == {"id": "2733", "text": "ここは寒すぎている。", "label": "容認できない"}
    # `sentence` vs `original`: 28 rows differ; the record holds the complete sentence, not the fragment
    assert sum(r["sentence"] != r["original"] for r in rows) == 28
    rec = next(r for r in splits["valid"] if r["id"] == "4140")
    assert rec["text"] == "太郎は花子が昨日スケッチしたリンゴを取って、ポケットに入れた。"
    assert next(r for r in rows if r["uid"] == 4140)["original"] == "太郎は花子が昨日スケッチしたリンゴを取って、"


def test_genuine_sample_loads_through_the_data_layer():
    recs = load_records("jcola", data_root=str(shared_sample("jcola").parent))
    assert (len(recs["valid"]), len(recs["train"]), len(recs["fewshot"])) == (300, 500, 256)
    assert recs["valid"][0]["label_names"] == ["容認できない", "容認できる"]
    # the evaluated split is served stratified by label: every prefix holds the rare class in proportion
    first = [r["label"] for r in recs["valid"][:50]]
    assert abs(first.count("容認できない") - 50 * 51 / 300) < 1


def test_out_of_domain_file_is_the_valid_ood_split_when_present(tmp_path):
    d = _folder(tmp_path, {VALID: _line(uid=5), OOD: _line(uid=7, label=0) + _line(uid=8)})
    splits, report = inspect_folder(SRC, d)
    assert {k: [r["id"] for r in v] for k, v in splits.items()} == {"valid": ["5"], "valid_ood": ["7", "8"]}
    assert splits["valid_ood"][0]["label"] == "容認できない"
    assert [c.key for c in report.checks] == ["valid", "valid_ood"]  # the absent train file is not counted


def test_a_folder_needs_the_evaluated_file(tmp_path):
    d = _folder(tmp_path, {TRAIN: _line()})
    assert not SRC.has_source_layout(d)
    with pytest.raises(DataError, match=r"^\[jcola\] .*/jcola: no data files: expected the source files"):
        inspect_folder(SRC, d)


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        (_line(label="1"), "label '1' is not 0 or 1 (JCoLA: 0 unacceptable, 1 acceptable)"),
        (_line(label=2), "label 2 is not 0 or 1 (JCoLA: 0 unacceptable, 1 acceptable)"),
        (_line(label=True), "label True is not 0 or 1 (JCoLA: 0 unacceptable, 1 acceptable)"),
        (_line(uid="12"), "uid '12' is not an integer"),
        (_line(sentence="  "), "uid 1: empty or missing sentence"),
        (json.dumps({"uid": 3, "label": 0}) + "\n", "row lacks columns ['sentence'] (has ['label', 'uid'])"),
        ("[1, 2]\n", "a line is a JSON list, not an object"),
        ('{"uid": 4, "label": 0,\n', "invalid JSON line (Expecting property name enclosed in double quotes)"),
    ],
)
def test_bad_row_is_one_line_naming_dataset_file_and_line(tmp_path, line, problem):
    d = _folder(tmp_path, {VALID: _line(uid=1) + line})
    with pytest.raises(DataError) as e:
        SRC.convert(d)
    assert str(e.value) == f"[jcola] {d / VALID}:2: {problem}"


def test_non_utf8_and_empty_files(tmp_path):
    d = _folder(tmp_path, {})
    (d / VALID).write_bytes(_line().encode() + b'{"uid": 2, "sentence": "\xff"}\n')
    with pytest.raises(DataError, match=rf"^\[jcola\] {re.escape(str(d / VALID))}:2: not UTF-8 text: byte 0xff"):
        SRC.convert(d)
    (d / VALID).write_text("\n", encoding="utf-8")
    with pytest.raises(DataError, match=rf"^\[jcola\] {re.escape(str(d / VALID))}: the file holds no rows$"):
        SRC.convert(d)


def test_prepare_from_the_genuine_sample(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv(D.ENV_DATA, "")
    sample = shared_sample("jcola")
    assert cli.main(["prepare", "--dataset", "jcola", "--from", str(sample), "--data_root", str(tmp_path)]) == 0
    assert "jcola: imported" in capsys.readouterr().out
    imported = json.loads((tmp_path / "jcola" / D.IMPORT_RECORD).read_text())
    assert imported["rows"] == {"train": 500, "valid": 300} and imported["layout"] == "source files"
    # a folder holding only the training file is refused, naming the user's own folder, and leaves nothing
    only_train = tmp_path / "elsewhere"
    only_train.mkdir()
    shutil.copy(sample / TRAIN, only_train / TRAIN)
    with pytest.raises(DataError, match=rf"^\[jcola\] {re.escape(str(only_train))}: no data files"):
        D.import_from(SRC, only_train, data_root=tmp_path / "other")
    assert not (tmp_path / "other" / "jcola").exists()


# ------------------------------------------------------------------------------------------------ templates
_FIELD = re.compile(r"\{(\w+)\}")


def test_templates_are_flan_cola_patterns_1_to_8_translated():
    assert len(EN_PATTERNS) == len(JA_PATTERNS) == len(TASKS.templates) == 8
    for k, (en, ja, tpl) in enumerate(zip(EN_PATTERNS, JA_PATTERNS, TASKS.templates), 1):
        assert _FIELD.findall(ja) == _FIELD.findall(en), k  # same fields, same order, options in the same place
        assert tpl.id == f"t{k}" and tpl.note == f"FLAN cola pattern {k}, translated into Japanese (ours)"
        assert tpl.doc_to_text == flan.jinja(ja, flan.options_block(S.LABELS, "ja"), {"sentence": "text"})
        assert "選択肢：\n- 容認できない\n- 容認できる" in tpl.doc_to_text and "English" not in tpl.doc_to_text
        assert tpl.regex == " ?(容認できない|容認できる)"
    assert (TASKS.suite, TASKS.language, TASKS.pair, TASKS.family, TASKS.primary_metric) == (
        "nlu",
        "ja",
        "cola",
        "classification_mcc",
        "mcc",
    )
    assert (TASKS.num_fewshot, TASKS.test_split, TASKS.target_delimiter, TASKS.lead_ins) == (
        0,
        "valid",
        "\n",
        ("答え",),
    )


def test_t1_prompt_of_the_first_genuine_record():
    first = SRC.convert(shared_sample("jcola"))["valid"][0]
    assert apply_template(TASKS.templates[0].doc_to_text, first) == (
        "文：「ここは寒すぎている。」\n"
        "選択肢から選んでください：言語学者はこの文を言語的に容認できると評価するでしょうか？\n\n"
        "選択肢：\n- 容認できない\n- 容認できる……私の考えでは、答えは"
    )


def test_readme_shows_every_template_beside_its_english_original():
    text = (Path(__file__).parent / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Templates\n", 1)[1].split("\n## ", 1)[0]
    for k, (en, ja) in enumerate(zip(EN_PATTERNS, JA_PATTERNS), 1):
        assert f"| t{k} | cola {k} | `{en}` | `{ja}` |".replace("\n", "\\n") in section, k


# ------------------------------------------------------------------------------------------------ reading answers
DOC = SRC.finalize({"id": "1", "text": "猫が寝ている。", "label": "容認できる"})
NATURAL = [
    ("容認できる", "容認できる"),
    (" 容認できない", "容認できない"),
    ("容認できる。", "容認できる"),
    ("容認できないです。", "容認できない"),
    ("「容認できる」", "容認できる"),
    ("**容認できない**", "容認できない"),
    ("答え：容認できない", "容認できない"),
    ("答え: 容認できる", "容認できる"),
    ("答えは容認できる", "容認できる"),
    ("答えは「容認できない」です。", "容認できない"),
    ("「容認できない」です", "容認できない"),
    ("容認できる（文法的に自然なため）", "容認できる"),
    # the polite forms are aliases of the label words (the natural answer to "容認できますか？")
    ("容認できます", "容認できる"),
    ("容認できます。", "容認できる"),
    ("答え：容認できません", "容認できない"),
    # another inflected or negated form is no label word: a format failure, never the other label
    ("容認できなかった", INVALID),
    ("容認できるかどうかは文脈によります", INVALID),
    ("「容認できる」とは言えない", INVALID),  # a closing bracket then more than a copula, as without the brackets
    ("容認", INVALID),
    ("acceptable", INVALID),
    ("わかりません", INVALID),
    ("？？？", INVALID),
    ("", INVALID),
]


@pytest.mark.parametrize("tpl", TASKS.templates, ids=lambda t: t.id)
def test_natural_japanese_answers_read_the_same_under_every_template(tpl):
    filt = answer_filter(TASKS, tpl)
    assert [(text, str(filt.read(text, DOC))) for text, _ in NATURAL] == NATURAL
    assert [
        filt.read(t, DOC).adherent for t in ("容認できる", " 容認できない", "容認できるです", "答え：容認できる")
    ] == [
        True,
        True,
        False,
        False,
    ]
