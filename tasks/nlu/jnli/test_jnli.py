"""jnli: the pinned JGLUE files, the conversion of the fixture and of the genuine sample (quirks: string labels
mapped to 含意 / 中立 / 矛盾, no train file in the sample), the optional files, integer labels refused, bad input,
``prepare --from``, the templates (FLAN mnli patterns 1–8 and their translations) and the reading of natural
Japanese answers."""

import json
import re
from pathlib import Path

import pytest
from lm_eval.utils import apply_template
from lm_eval_enterprise.tasks.nlu.jnli import source as S
from lm_eval_enterprise.tasks.nlu.jnli.templates import EN_PATTERNS, JA_PATTERNS, TASKS

from conftest import shared_sample
from lm_eval_enterprise import data as D
from lm_eval_enterprise.data import DataError, fixture_dir, get_source, inspect_folder
from lm_eval_enterprise.prompting import flan
from lm_eval_enterprise.prompting.templating import answer_filter
from lm_eval_enterprise.scoring.metrics import INVALID
from testkit.testing import assert_zero_shot_only

SRC = get_source("jnli")
FIX = fixture_dir("jnli")
VALID = "valid-v1.3.json"


def _folder(tmp_path, files: dict[str, str]):
    """A data folder holding ``files``, declared a partial copy (SOURCE.md): fewer rows than the full counts."""
    d = tmp_path / "jnli"
    d.mkdir(parents=True, exist_ok=True)
    (d / D.SAMPLE_NOTE).write_text("rows written by a test\n")
    for name, text in files.items():
        (d / name).write_text(text, encoding="utf-8")
    return d


def _line(**row) -> str:
    base = {"sentence_pair_id": "0", "yjcaptions_id": "1-2-3", "sentence1": "犬が走っています。"}
    base |= {"sentence2": "動物が走っています。", "label": "entailment"}
    return json.dumps({**base, **row}, ensure_ascii=False) + "\n"


# ------------------------------------------------------------------------------------------------ the source
def test_source_is_the_pinned_jglue_files():
    assert S.COMMIT == "6f071c09316baae89c3d083a90985b4b1cb9968c"  # tag v1.3.0
    assert {s: f.name for s, f in SRC.split_files.items()} == {
        "train": "train-v1.3.json",
        "valid": "valid-v1.3.json",
        "test": "test-v1.3.json",
    }
    assert SRC.split_files["train"].url == (
        "https://raw.githubusercontent.com/yahoojapan/JGLUE/6f071c09316baae89c3d083a90985b4b1cb9968c/"
        "datasets/jnli-v1.3/train-v1.3.json"
    )
    assert SRC.split_files["valid"].sha256 == "ca0353efc7c2eebfb6de4e13f16295053c8b1ee65e7b0849190c90426fbc495f"
    assert SRC.split_files["train"].sha256 is None and SRC.split_files["test"].sha256 is None
    # train-v1.3.json was not available to count: its size is the JGLUE README's, unverified
    assert {s: (r.n, r.verified) for s, r in SRC.expected_rows.items()} == {
        "train": (20073, False),
        "valid": (2434, True),
        "test": (2508, True),
    }
    assert SRC.labels == ("含意", "中立", "矛盾") and S.LABEL_WORDS == {
        "entailment": "含意",
        "neutral": "中立",
        "contradiction": "矛盾",
    }


# ------------------------------------------------------------------------------------------------ conversion
def test_convert_fixture():
    splits = SRC.convert(FIX)
    assert {k: len(v) for k, v in splits.items()} == {"train": 6, "valid": 7, "test": 3}
    assert splits["valid"][0] == {
        "id": "0",
        "premise": "女の子が公園でブランコに乗っています。",
        "hypothesis": "女の子が遊んでいます。",
        "label": "含意",
    }
    assert [r["label"] for r in splits["test"]] == ["含意", "矛盾", "中立"]
    assert SRC.convert(FIX) == splits


def test_genuine_sample_without_train_file_converts():
    d = shared_sample("jnli")
    assert not (d / "train-v1.3.json").exists()
    splits, report = inspect_folder(SRC, d)
    assert {k: len(v) for k, v in splits.items()} == {"valid": 300}
    assert report.declared == "SOURCE.md" and [(c.key, c.status) for c in report.checks] == [("valid", "ok")]
    rows = [json.loads(line) for line in (d / VALID).read_text(encoding="utf-8").splitlines()]
    assert all(isinstance(r["label"], str) and isinstance(r["sentence_pair_id"], str) for r in rows)
    assert [r["label"] for r in splits["valid"]] == [S.LABEL_WORDS[r["label"]] for r in rows]
    assert [(r["premise"], r["hypothesis"]) for r in splits["valid"]] == [
        (r["sentence1"], r["sentence2"]) for r in rows
    ]
    # SOURCE.md: sample neutral 155 / contradiction 103 / entailment 42
    assert {lab: sum(r["label"] == lab for r in splits["valid"]) for lab in S.LABELS} == {
        "含意": 42,
        "中立": 155,
        "矛盾": 103,
    }
    assert splits["valid"][0] == {
        "id": "0",
        "premise": "時計がついている場所にパブリックマーケットセンターとかかれた看板が設置されています。",
        "hypothesis": "屋根の上に看板があり時計もついています。",
        "label": "中立",
    }


def test_zero_shot_load_of_the_sample_without_train_file():
    """The genuine sample holds the evaluated file alone: zero-shot runs load it, with an empty few-shot pool, and
    a run asking for shots fails with one line naming the dataset, before any request is built."""
    assert_zero_shot_only("jnli", "nlu_jnli__t1", str(shared_sample("jnli").parent), 300)


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        (
            _line(label=0),
            "pair 0: integer label 0; genuine JNLI files label pairs with the strings entailment / contradiction / "
            "neutral and no genuine file confirms a mirror's integer mapping, so none is guessed: use the genuine "
            "files or write the label strings",
        ),
        (_line(label="Entailment"), "pair 0: label 'Entailment' is not one of entailment, contradiction, neutral"),
        (_line(label="含意"), "pair 0: label '含意' is not one of entailment, contradiction, neutral"),
        (_line(label=None), "pair 0: label None is not one of entailment, contradiction, neutral"),
        (_line(sentence_pair_id=3), "sentence_pair_id 3 is not a non-empty string"),
        (_line(sentence2=" "), "pair 0: empty or missing sentence2"),
        (
            json.dumps({"sentence_pair_id": "1", "sentence1": "a", "sentence2": "b"}) + "\n",
            "row lacks columns ['label'] (has ['sentence1', 'sentence2', 'sentence_pair_id'])",
        ),
    ],
)
def test_bad_row_is_one_line_naming_dataset_file_and_line(tmp_path, line, problem):
    d = _folder(tmp_path, {VALID: _line() + line})
    with pytest.raises(DataError) as e:
        SRC.convert(d)
    assert str(e.value) == f"[jnli] {d / VALID}:2: {problem}"


def test_train_and_test_files_are_read_when_present(tmp_path):
    d = _folder(
        tmp_path,
        {VALID: _line(), "train-v1.3.json": _line(label="neutral"), "test-v1.3.json": _line(label="contradiction")},
    )
    splits, report = inspect_folder(SRC, d)
    assert {k: [r["label"] for r in v] for k, v in splits.items()} == {
        "train": ["中立"],
        "valid": ["含意"],
        "test": ["矛盾"],
    }
    assert [c.key for c in report.checks] == ["train", "valid", "test"]


def test_prepare_from_the_genuine_sample(tmp_path):
    d = D.import_from(SRC, shared_sample("jnli"), data_root=tmp_path)
    assert json.loads((d / D.IMPORT_RECORD).read_text())["rows"] == {"valid": 300}


# ------------------------------------------------------------------------------------------------ templates
_FIELD = re.compile(r"\{(\w+)\}")


def test_templates_are_flan_mnli_patterns_1_to_8_translated():
    assert len(EN_PATTERNS) == len(JA_PATTERNS) == len(TASKS.templates) == 8
    options = flan.options_block(S.LABELS, "ja")
    for k, (en, ja, tpl) in enumerate(zip(EN_PATTERNS, JA_PATTERNS, TASKS.templates), 1):
        assert _FIELD.findall(ja) == _FIELD.findall(en), k  # same fields, same order, options in the same place
        assert tpl.id == f"t{k}" and tpl.note == f"FLAN mnli pattern {k}, translated into Japanese (ours)"
        assert tpl.doc_to_text == flan.jinja(ja, options) and "選択肢：\n- 含意\n- 中立\n- 矛盾" in tpl.doc_to_text
        assert tpl.regex == " ?(中立|含意|矛盾)"
    assert (TASKS.suite, TASKS.language, TASKS.pair, TASKS.family, TASKS.primary_metric) == (
        "nlu",
        "ja",
        "mnli",
        "classification_accuracy",
        "accuracy",
    )


def test_t1_prompt_of_the_first_genuine_record():
    first = SRC.convert(shared_sample("jnli"))["valid"][0]
    assert apply_template(TASKS.templates[0].doc_to_text, first) == (
        "前提：時計がついている場所にパブリックマーケットセンターとかかれた看板が設置されています。\n\n"
        "仮説：屋根の上に看板があり時計もついています。\n\n"
        "前提は仮説を含意していますか？\n\n選択肢：\n- 含意\n- 中立\n- 矛盾"
    )


def test_readme_shows_every_template_beside_its_english_original():
    text = (Path(__file__).parent / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Templates\n", 1)[1].split("\n## ", 1)[0]
    for k, (en, ja) in enumerate(zip(EN_PATTERNS, JA_PATTERNS), 1):
        assert f"| t{k} | mnli {k} | `{en}` | `{ja}` |".replace("\n", "\\n") in section, k


# ------------------------------------------------------------------------------------------------ reading answers
DOC = SRC.finalize({"id": "0", "premise": "a", "hypothesis": "b", "label": "中立"})
NATURAL = [
    ("含意", "含意"),
    (" 中立", "中立"),
    ("中立です。", "中立"),
    ("「矛盾」", "矛盾"),
    ("答えは含意", "含意"),
    ("答え：中立", "中立"),
    ("答えは「矛盾」です。", "矛盾"),
    ("**含意**", "含意"),
    ("矛盾である。", "矛盾"),
    ("含意でしょう", "含意"),
    ("- 含意", "含意"),  # a bullet echoed from the options list
    # a copula followed by more text is no answer: "矛盾だとは言えない" ("it cannot be called a contradiction")
    # starts like "含意だと思います" ("I think it is entailment"), so both are format failures, never a label
    ("含意だと思います。", INVALID),
    ("矛盾だとは言えない", INVALID),
    ("「矛盾」ではない", INVALID),  # closing brackets then more than a copula: as without the brackets
    ("**含意**ではない", INVALID),
    ("「矛盾」です", "矛盾"),
    ("中立（どちらとも言えない）", "中立"),
    # an inflected or negated form is no label word: a format failure, never another label
    ("含意しない", INVALID),
    ("中立ではない", INVALID),
    ("含意されます", INVALID),
    ("矛盾しています", INVALID),
    ("entailment", INVALID),
    ("はい", INVALID),
    ("わかりません", INVALID),
    ("", INVALID),
]


@pytest.mark.parametrize("tpl", TASKS.templates, ids=lambda t: t.id)
def test_natural_japanese_answers_read_the_same_under_every_template(tpl):
    filt = answer_filter(TASKS, tpl)
    assert [(text, str(filt.read(text, DOC))) for text, _ in NATURAL] == NATURAL
    assert [filt.read(t, DOC).adherent for t in ("含意", " 矛盾", "中立です", "答え：中立")] == [
        True,
        True,
        False,
        False,
    ]
