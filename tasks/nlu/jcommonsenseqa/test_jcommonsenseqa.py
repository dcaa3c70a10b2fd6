"""jcommonsenseqa: the pinned JGLUE files and their download (faked, offline), the conversion of the fixture and of
the genuine sample (quirks: integer labels and q_ids continuing across the files, a trailing space in an option,
options carrying a stray typographic quote), the counts, bad rows as one line naming dataset, file and line, the
optional train and test files, ``prepare --from``, the templates (our translations of commonsense_qa's eight, same
index, same fields) and the reading of natural Japanese answers under every template."""

import hashlib
import io
import json
import re
import shutil
import urllib.error
import urllib.request
from collections import Counter
from pathlib import Path

import pytest
from lm_eval.utils import apply_template
from lm_eval_enterprise.tasks.nlu.commonsense_qa import templates as EN
from lm_eval_enterprise.tasks.nlu.jcommonsenseqa import source as S
from lm_eval_enterprise.tasks.nlu.jcommonsenseqa.templates import EN_PATTERNS, JA_PATTERNS, TASKS, TRANSLATIONS

from conftest import shared_sample
from lm_eval_enterprise import cli
from lm_eval_enterprise import data as D
from lm_eval_enterprise.data import DataError, fixture_dir, get_source, inspect_folder, load_records
from lm_eval_enterprise.data import source as source_module
from lm_eval_enterprise.prompting import flan
from lm_eval_enterprise.prompting.templating import answer_filter
from lm_eval_enterprise.scoring.metrics import INVALID
from testkit.testing import GARBAGE, assert_zero_shot_only

SRC = get_source("jcommonsenseqa")
FIX = fixture_dir("jcommonsenseqa")
TRAIN, VALID, TEST = "train-v1.3.json", "valid-v1.3.json", "test-v1.3.json"
RAW = "https://raw.githubusercontent.com/yahoojapan/JGLUE/6f071c09316baae89c3d083a90985b4b1cb9968c/datasets/"


def _line(**over) -> str:
    """One row of the JGLUE file, fields in the published order."""
    row = {"q_id": 8939, "question": "お金を預ける場所は？", "choice0": "銀行", "choice1": "公園"}
    row |= {"choice2": "駅", "choice3": "図書館", "choice4": "海", "label": 0}
    return json.dumps({**row, **over}, ensure_ascii=False) + "\n"


def _folder(tmp_path, files: dict[str, str]) -> Path:
    """A data folder holding ``files``, declared a partial copy (SOURCE.md): fewer rows than the full counts."""
    d = tmp_path / "jcommonsenseqa"
    d.mkdir(parents=True, exist_ok=True)
    (d / D.SAMPLE_NOTE).write_text("rows written by a test\n")
    for name, text in files.items():
        (d / name).write_text(text, encoding="utf-8")
    return d


def _online(monkeypatch):
    for v in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "LM_EVAL_ENTERPRISE_OFFLINE"):
        monkeypatch.delenv(v, raising=False)


# ------------------------------------------------------------------------------------------------ the source
def test_source_is_the_pinned_jglue_files():
    assert S.COMMIT == "6f071c09316baae89c3d083a90985b4b1cb9968c"  # tag v1.3.0
    assert {s: (f.name, f.url, f.sha256) for s, f in SRC.split_files.items()} == {
        "train": (TRAIN, RAW + "jcommonsenseqa-v1.3/train-v1.3.json", S.SHA256["train"]),
        "valid": (VALID, RAW + "jcommonsenseqa-v1.3/valid-v1.3.json", S.SHA256["valid"]),
        "test": (TEST, RAW + "jcommonsenseqa-v1.3/test-v1.3.json", None),  # its sha256 was not recorded
    }
    assert S.SHA256 == {
        "train": "9b55fae5ecb3aedd6f8ce5bc09196c3b629864668ec6c18eee4d65c0aa48229e",
        "valid": "0d8d76f3bfa0d174866939882faccdd01fbc2bcd5a76c43748ba0c40a7b3b8d4",
    }
    assert SRC.files == tuple(SRC.split_files.values())  # what download() fetches
    # all three counted on the genuine files (the JGLUE README gives the same numbers)
    assert {s: (r.n, r.verified) for s, r in SRC.expected_rows.items()} == {
        "train": (8939, True),
        "valid": (1119, True),
        "test": (1118, True),
    }
    assert (SRC.task_type, SRC.eval_split, SRC.fewshot_source_split, SRC.fewshot_optional) == (
        "choice_text",
        "valid",
        "train",
        True,
    )


def test_download_fetches_the_three_pinned_files(tmp_path, monkeypatch):
    """``download`` asks for each pinned URL with its sha256 (a fake fetch writes the fixture's files)."""
    fetched = []

    def fake_download_url(url, dest, dataset, sha256=None, progress=True, note=""):
        fetched.append((url, dest.name, sha256, dataset))
        shutil.copy(FIX / dest.name, dest)
        return dest

    monkeypatch.setattr(source_module, "download_url", fake_download_url)
    SRC.download(tmp_path, progress=False)
    assert fetched == [(f.url, f.name, f.sha256, "jcommonsenseqa") for f in SRC.split_files.values()]
    assert {s: len(r) for s, r in SRC.convert(tmp_path).items()} == {"train": 6, "valid": 6, "test": 3}


class _Response(io.BytesIO):
    headers: dict = {}


def _serve(files: dict[str, bytes]):
    """A fake ``urlopen`` serving ``files`` (URL → bytes); any other URL is HTTP 404."""

    def urlopen(req, *_a, **_k):
        if req.full_url not in files:
            raise urllib.error.HTTPError(req.full_url, 404, "Not Found", {}, None)
        return _Response(files[req.full_url])

    return urlopen


def test_prepare_refuses_a_truncated_download_by_its_sha256_and_leaves_nothing(tmp_path, monkeypatch):
    """The genuine sample's files are the first lines of the published ones: their sha256 is not the pinned one."""
    _online(monkeypatch)
    sample = shared_sample("jcommonsenseqa")
    served = {SRC.split_files[s].url: (sample / SRC.split_files[s].name).read_bytes() for s in ("train", "valid")}
    monkeypatch.setattr(urllib.request, "urlopen", _serve(served))
    with pytest.raises(DataError) as e:
        D.prepare(SRC, progress=False, data_root=tmp_path)
    got = hashlib.sha256((sample / TRAIN).read_bytes()).hexdigest()
    assert (
        str(e.value) == f"[jcommonsenseqa] {SRC.split_files['train'].url}: sha256 {got} != expected {S.SHA256['train']}"
    )
    assert not (tmp_path / "jcommonsenseqa").exists() and list(tmp_path.iterdir()) == []


def test_a_missing_file_is_one_line_with_the_prepare_from_route(tmp_path, monkeypatch):
    _online(monkeypatch)
    monkeypatch.setattr(urllib.request, "urlopen", _serve({}))
    with pytest.raises(DataError) as e:
        D.prepare(SRC, progress=False, data_root=tmp_path)
    msg = str(e.value)
    assert msg.startswith(f"[jcommonsenseqa] {SRC.split_files['train'].url}: download failed: HTTP 404")
    assert "prepare --dataset jcommonsenseqa --from PATH" in msg and "\n" not in msg
    assert not (tmp_path / "jcommonsenseqa").exists()


# ------------------------------------------------------------------------------------------------ conversion
def test_convert_fixture():
    splits = SRC.convert(FIX)
    assert {k: len(v) for k, v in splits.items()} == {"train": 6, "valid": 6, "test": 3}
    assert splits["valid"][0] == {
        "id": "6",
        "question": "手紙を出すときに入れるものは何？",
        "choices": ["ポスト", "冷蔵庫", "浴槽", "オーブン", "押し入れ"],
        "answer": 0,
    }
    assert "傘" in splits["train"][3]["choices"]  # the fixture's "傘 " loses its trailing space, as in the real data
    assert [r["id"] for s in ("train", "valid", "test") for r in splits[s]] == [str(i) for i in range(15)]
    assert {r["answer"] for recs in splits.values() for r in recs} == {0, 1, 2, 3, 4}


def _sample_rows(name: str) -> list[dict]:
    """The genuine sample's rows as stored (the test's own reading of the file)."""
    return [json.loads(x) for x in (shared_sample("jcommonsenseqa") / name).read_text(encoding="utf-8").splitlines()]


def test_genuine_sample_converts_row_for_row():
    splits, report = inspect_folder(SRC, shared_sample("jcommonsenseqa"))
    assert {k: len(v) for k, v in splits.items()} == {"train": 500, "valid": 300}  # no test file in the sample
    # a declared partial copy: held to the verified full counts as upper bounds
    assert report.declared == D.SAMPLE_NOTE and report.layout == "source files"
    assert {c.key: (c.n, c.expected.n, c.expected.verified, c.status) for c in report.checks} == {
        "train": (500, 8939, True, "ok"),
        "valid": (300, 1119, True, "ok"),
    }
    for split, name in (("train", TRAIN), ("valid", VALID)):
        rows = _sample_rows(name)
        assert all(type(r["q_id"]) is int and type(r["label"]) is int for r in rows)  # JSON integers, not strings
        assert splits[split] == [
            {
                "id": str(r["q_id"]),
                "question": r["question"],
                "choices": [r[f"choice{i}"].strip() for i in range(5)],
                "answer": r["label"],
            }
            for r in rows
        ]
    assert splits["valid"][0] == {
        "id": "8939",
        "question": "電子機器で使用される最も主要な電子回路基板の事をなんと言う？",
        "choices": ["掲示板", "パソコン", "マザーボード", "ハードディスク", "まな板"],
        "answer": 2,
    }
    # q_id continues across the files: train 0, 1, …; valid from 8,939 (the full train file's size)
    assert [r["id"] for r in splits["train"]] == [str(i) for i in range(500)]
    assert [r["id"] for r in splits["valid"]] == [str(i) for i in range(8939, 9239)]
    # SOURCE.md: label shares of the sample (0:68 1:50 2:74 3:58 4:50; train 0:105 1:103 2:91 3:98 4:103)
    assert Counter(r["answer"] for r in splits["valid"]) == {0: 68, 1: 50, 2: 74, 3: 58, 4: 50}
    assert Counter(r["answer"] for r in splits["train"]) == {0: 105, 1: 103, 2: 91, 3: 98, 4: 103}


def test_genuine_quirks_are_kept_or_stripped_as_documented():
    splits = SRC.convert(shared_sample("jcommonsenseqa"))
    train = splits["train"]
    assert _sample_rows(TRAIN)[232]["choice3"] == "シャンプー "  # line 233: a trailing space, stripped
    assert train[232]["choices"][3] == "シャンプー"
    # options with a stray typographic quote (a quoted list split into options), kept as published: one option
    # starts with ‘, another of the same row ends with ’ — never the right option in the sample
    quoted = {
        s: [
            (i + 1, r["choices"])
            for i, r in enumerate(recs)
            if any(c[0] in "‘’" or c[-1] in "‘’" for c in r["choices"])
        ]
        for s, recs in splits.items()
    }
    assert quoted == {
        "train": [
            (58, ["網棚", "‘バス", "列車", "ボート", "トラック’"]),
            (302, ["物干し竿", "ピッケル’", "‘ロープ", "販売店", "タンス"]),
            (375, ["ビール券", "乗車券’", "‘図書券", "生ビール", "ビール腹"]),
        ],
        "valid": [(192, ["ニコチン中毒", "肺炎", "‘知識", "タバコ", "教養’"])],
    }
    for split, rows in quoted.items():
        for line, _ in rows:
            rec = splits[split][line - 1]
            assert not set("‘’") & set(rec["choices"][rec["answer"]]), (split, line)
    # no row of the sample repeats an option text (commonsense_qa's has some)
    assert all(len(set(r["choices"])) == 5 for recs in splits.values() for r in recs)


def test_genuine_sample_through_the_data_layer():
    recs = load_records("jcommonsenseqa", data_root=str(shared_sample("jcommonsenseqa").parent))
    assert len(recs["valid"]) == 300 and len(recs["fewshot"]) == 256  # the [BAL] pool's first 256
    assert Counter(r["answer_letter"] for r in recs["fewshot"][:10]) == Counter({x: 2 for x in "ABCDE"})
    first = next(r for r in recs["valid"] if r["id"] == "8939")
    assert first["label_names"] == first["choices"] and first["answer_text"] == "マザーボード"
    assert first["label_aliases"]["C"] == first["label_aliases"]["3"] == "マザーボード" and first["n_options"] == 5


# ------------------------------------------------------------------------------------------------ bad input
@pytest.mark.parametrize(
    ("line", "problem"),
    [
        (_line(label=5), "q_id 8939: label 5 is not an integer in 0–4"),
        (_line(label=-1), "q_id 8939: label -1 is not an integer in 0–4"),
        (_line(label=True), "q_id 8939: label True is not an integer in 0–4"),
        (_line(label="マザーボード"), "q_id 8939: label 'マザーボード' is not an integer in 0–4"),
        (_line(label=None), "q_id 8939: label None is not an integer in 0–4"),
        (_line(q_id="x1"), "q_id 'x1' is not an integer"),
        (_line(question=" "), "q_id 8939: empty or missing question"),
        (_line(choice3=""), "q_id 8939: choice3 is empty"),
        (
            json.dumps({"q_id": 1, "question": "何？", "choice0": "a", "label": 0}) + "\n",
            "row lacks columns ['choice1', 'choice2', 'choice3', 'choice4'] (has ['choice0', 'label', 'q_id', "
            "'question'])",
        ),
        ("[1, 2]\n", "a line is a JSON list, not an object"),
    ],
)
def test_bad_row_is_one_line_naming_dataset_file_and_line(tmp_path, line, problem):
    d = _folder(tmp_path, {VALID: _line() + line})
    with pytest.raises(DataError) as e:
        SRC.convert(d)
    assert str(e.value) == f"[jcommonsenseqa] {d / VALID}:2: {problem}"


def test_unreadable_lines_and_empty_files(tmp_path):
    d = _folder(tmp_path, {VALID: _line() + '{"q_id": 1,\n'})
    with pytest.raises(DataError, match=rf"^\[jcommonsenseqa\] {re.escape(str(d / VALID))}:2: invalid JSON line"):
        SRC.convert(d)
    (d / VALID).write_bytes(b'{"q_id": "\xff"}\n')
    with pytest.raises(DataError, match=rf"^\[jcommonsenseqa\] {re.escape(str(d / VALID))}:1: not UTF-8 text"):
        SRC.convert(d)
    (d / VALID).write_text("\n", encoding="utf-8")
    with pytest.raises(DataError) as e:
        SRC.convert(d)
    assert str(e.value) == f"[jcommonsenseqa] {d / VALID}: the file holds no rows"


def test_digit_strings_of_mirrors_are_normalised(tmp_path):
    d = _folder(tmp_path, {VALID: _line(q_id="8939", label="2")})
    assert SRC.convert(d)["valid"] == [
        {
            "id": "8939",
            "question": "お金を預ける場所は？",
            "choices": ["銀行", "公園", "駅", "図書館", "海"],
            "answer": 2,
        }
    ]


def test_a_full_copy_with_another_count_is_an_error(tmp_path):
    """Without SOURCE.md or MANIFEST.json a folder is held to the verified counts exactly."""
    d = tmp_path / "jcommonsenseqa"
    d.mkdir()
    (d / VALID).write_text(_line() * 3, encoding="utf-8")
    with pytest.raises(DataError) as e:
        inspect_folder(SRC, d)
    assert str(e.value) == (
        f"[jcommonsenseqa] {d}: split 'valid' has 3 rows after conversion, expected 1,119 (counted on the genuine "
        "valid-v1.3.json of JGLUE v1.3.0 (sha256 0d8d76f3…)); the source files are incomplete or changed"
    )


# ------------------------------------------------------------------------------------------------ optional files
def test_train_and_test_files_are_read_when_present(tmp_path):
    d = _folder(tmp_path, {VALID: _line(), TRAIN: _line(q_id=0, label=1), TEST: _line(q_id=10058, label=4)})
    splits, report = inspect_folder(SRC, d)
    assert {k: [(r["id"], r["answer"]) for r in v] for k, v in splits.items()} == {
        "train": [("0", 1)],
        "valid": [("8939", 0)],
        "test": [("10058", 4)],
    }
    assert [c.key for c in report.checks] == ["train", "valid", "test"]


def test_valid_file_alone_serves_zero_shot_runs_and_refuses_shots(tmp_path):
    """A folder without train-v1.3.json converts; zero-shot runs load it with an empty few-shot pool, and a run
    asking for shots fails with one line naming the dataset, before any request is built."""
    d = _folder(tmp_path, {VALID: (shared_sample("jcommonsenseqa") / VALID).read_text(encoding="utf-8")})
    assert SRC.has_source_layout(d) and list(SRC.convert(d)) == ["valid"]
    assert_zero_shot_only("jcommonsenseqa", "nlu_jcommonsenseqa__t1", str(tmp_path), 300)


def test_a_folder_without_the_valid_file_is_no_source_layout(tmp_path):
    d = _folder(tmp_path, {TRAIN: _line(q_id=0)})
    assert not SRC.has_source_layout(d)


def test_presplit_rows(tmp_path):
    d = _folder(tmp_path, {"train.jsonl": _line(q_id=0)})
    (d / "valid.jsonl").write_text(_line() + _line(q_id=8940, label=7), encoding="utf-8")
    with pytest.raises(DataError) as e:
        inspect_folder(SRC, d)
    assert str(e.value) == f"[jcommonsenseqa] {d}/valid.jsonl:2: q_id 8940: label 7 is not an integer in 0–4"
    (d / "valid.jsonl").write_text(_line(), encoding="utf-8")
    splits, report = inspect_folder(SRC, d)
    assert report.layout == "pre-split" and splits["valid"][0]["choices"][0] == "銀行"


def test_prepare_from_the_genuine_sample(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv(D.ENV_DATA, "")
    sample = shared_sample("jcommonsenseqa")
    argv = ["prepare", "--dataset", "jcommonsenseqa", "--from", str(sample), "--data_root", str(tmp_path)]
    assert cli.main(argv) == 0
    assert "jcommonsenseqa: imported" in capsys.readouterr().out
    imported = json.loads((tmp_path / "jcommonsenseqa" / D.IMPORT_RECORD).read_text())
    assert imported["rows"] == {"train": 500, "valid": 300} and imported["layout"] == "source files"
    assert imported["files"][VALID] == hashlib.sha256((sample / VALID).read_bytes()).hexdigest()
    # a bad file is refused naming the user's own file, and nothing is left behind
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / VALID).write_text(_line(label=9), encoding="utf-8")
    with pytest.raises(DataError) as e:
        D.import_from(SRC, bad, data_root=tmp_path / "other")
    assert str(e.value) == f"[jcommonsenseqa] {bad / VALID}:1: q_id 8939: label 9 is not an integer in 0–4"
    assert not (tmp_path / "other" / "jcommonsenseqa").exists()


# ------------------------------------------------------------------------------------------------ templates
_FIELD = re.compile(r"\{(\w+)\}")


def test_templates_translate_commonsense_qa_at_the_same_index():
    assert len(TRANSLATIONS) == len(TASKS.templates) == len(EN.TASKS.templates) == 8
    assert EN_PATTERNS == EN.PATTERNS  # the English originals are commonsense_qa's own, in order
    block = flan.choices_block("choices", "ja")
    for k, (en, ja, tpl, en_tpl) in enumerate(zip(EN_PATTERNS, JA_PATTERNS, TASKS.templates, EN.TASKS.templates), 1):
        assert _FIELD.findall(ja) == _FIELD.findall(en), k  # same fields, same order, options block in its place
        assert tpl.id == en_tpl.id == f"t{k}" and tpl.note == f"our Japanese translation of commonsense_qa t{k}"
        assert tpl.doc_to_text == flan.jinja(ja, block) and "選択肢：{% for c in choices %}" in tpl.doc_to_text
        assert tpl.regex == en_tpl.regex == " ?({LABELS})" and tpl.axes == en_tpl.axes
    # options first in t4 and t5, as in the English originals
    assert [t.id for t in TASKS.templates if t.doc_to_text.startswith("選択肢：")] == ["t4", "t5"]
    assert (TASKS.suite, TASKS.language, TASKS.pair, TASKS.family, TASKS.primary_metric) == (
        "nlu",
        "ja",
        "commonsense_qa",
        "choice_text",
        "accuracy",
    )
    assert (TASKS.num_fewshot, TASKS.test_split, TASKS.doc_to_target, TASKS.target_delimiter, TASKS.lead_ins) == (
        0,
        "valid",
        "{{answer_text}}",
        "\n",
        ("答え",),
    )
    assert (TASKS.max_gen_toks, TASKS.answer_stop) == (48, "\n")


def test_t1_prompt_of_the_first_genuine_record():
    first = SRC.convert(shared_sample("jcommonsenseqa"))["valid"][0]
    assert apply_template(TASKS.templates[0].doc_to_text, first) == (
        "電子機器で使用される最も主要な電子回路基板の事をなんと言う？\n\n"
        "選択肢：\n- 掲示板\n- パソコン\n- マザーボード\n- ハードディスク\n- まな板"
    )
    assert apply_template(TASKS.templates[1].doc_to_text, first).endswith("\n- まな板\n答え：")
    assert apply_template(TASKS.templates[6].doc_to_text, first).endswith("\n- まな板\n\n答えは：")


def test_readme_shows_every_template_beside_its_english_original():
    text = (Path(__file__).parent / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Templates\n", 1)[1].split("\n## ", 1)[0]
    rows = {line.split(" | ", 1)[0]: line for line in section.splitlines() if line.startswith("| t")}
    for k, (en, ja) in enumerate(zip(EN_PATTERNS, JA_PATTERNS), 1):
        assert f"| `{en}` | `{ja}` |".replace("\n", "\\n") in rows[f"| t{k}"], k


# ------------------------------------------------------------------------------------------------ reading answers
# the first genuine dev record: 掲示板 / パソコン / マザーボード (right, option 3, letter C) / ハードディスク / まな板
DOC = SRC.finalize(
    {
        "id": "8939",
        "question": "…",
        "choices": ["掲示板", "パソコン", "マザーボード", "ハードディスク", "まな板"],
        "answer": 2,
    }
)
NATURAL = [
    ("マザーボード", "マザーボード"),
    (" マザーボード", "マザーボード"),
    ("マザーボード。", "マザーボード"),
    ("マザーボードです。", "マザーボード"),
    ("マザーボードです", "マザーボード"),
    ("マザーボードである。", "マザーボード"),
    ("「マザーボード」", "マザーボード"),
    ("『マザーボード』", "マザーボード"),
    ("「マザーボード」です。", "マザーボード"),
    ("**マザーボード**", "マザーボード"),
    ("答え：マザーボード", "マザーボード"),
    ("答え: マザーボード", "マザーボード"),
    ("答えは：マザーボード", "マザーボード"),  # t7's own answer lead echoed
    ("答えはマザーボードです。", "マザーボード"),
    ("答えは「マザーボード」です。", "マザーボード"),
    ("正解はマザーボードです。", "マザーボード"),
    ("マザーボード（電子回路基板のこと）", "マザーボード"),
    ("- マザーボード", "マザーボード"),  # a bullet echoed from the options list
    ("マザーボード\nパソコン", "マザーボード"),  # cut at the stop sequence first
    # the option's number (1–5, the order of the list) or letter
    ("3", "マザーボード"),
    ("3です。", "マザーボード"),
    ("答え：3", "マザーボード"),
    ("３", "マザーボード"),  # full-width digits and letters read like ASCII ones (NFKC width folding)
    ("３です。", "マザーボード"),
    ("Ｃ", "マザーボード"),
    ("3番", "マザーボード"),  # the number with a counter: "number 3", "the third"
    ("3番です。", "マザーボード"),
    ("３番です。", "マザーボード"),
    ("3番目です。", "マザーボード"),
    ("3つ目", "マザーボード"),
    ("C", "マザーボード"),
    ("(C)", "マザーボード"),
    ("C) マザーボード", "マザーボード"),
    # another option is that option, never the right one
    ("パソコンです。", "パソコン"),
    ("答え：まな板", "まな板"),
    # no option: a format failure, never an option
    ("マザーボードではない", INVALID),
    ("マザーボードじゃない", INVALID),
    ("「マザーボード」ではない", INVALID),  # closing brackets then more than a copula: as without the brackets
    ("マザー", INVALID),
    ("マザーボードとパソコン", INVALID),
    ("電子回路基板", INVALID),
    ("わかりません", INVALID),
    ("6", INVALID),
    ("6番", INVALID),
    ("3番の選択肢", INVALID),  # a counter then more than a copula: no answer, as for an option's text
    ("3個", INVALID),  # only 番, 番目 and つ目 count options
    (GARBAGE, INVALID),
    ("", INVALID),
]


@pytest.mark.parametrize("tpl", TASKS.templates, ids=lambda t: t.id)
def test_natural_japanese_answers_read_the_same_under_every_template(tpl):
    filt = answer_filter(TASKS, tpl)
    assert [(text, str(filt.read(text, DOC))) for text, _ in NATURAL] == NATURAL
    # the format each template asks for: an option's text exactly (numbers, letters, copulas are read, not asked)
    adherent = ("マザーボード", " パソコン", "マザーボードです", "3", "C", "答え：マザーボード", "「マザーボード」")
    assert [filt.read(t, DOC).adherent for t in adherent] == [True, True, False, False, False, False, False]


@pytest.mark.parametrize("tpl", TASKS.templates, ids=lambda t: t.id)
def test_every_genuine_gold_option_reads_as_itself(tpl):
    """The oracle on the genuine sample: each record's right option — as its text, with です, in 「」, after 答え：,
    as its number — reads as that option under every template."""
    filt = answer_filter(TASKS, tpl)
    for rec in SRC.convert(shared_sample("jcommonsenseqa"))["valid"]:
        doc = SRC.finalize(rec)
        gold, number = doc["answer_text"], str(rec["answer"] + 1)
        for text in (gold, f"{gold}です。", f"「{gold}」", f"答え：{gold}", number):
            assert str(filt.read(text, doc)) == gold, (tpl.id, rec["id"], text)
        assert filt.read(gold, doc).adherent


# genuine options carrying a stray quote: (split, 0-based row, option index, published text, the text without it)
STRAY_QUOTES = [
    ("valid", 191, 2, "‘知識", "知識"),
    ("valid", 191, 4, "教養’", "教養"),
    ("train", 57, 1, "‘バス", "バス"),
    ("train", 57, 4, "トラック’", "トラック"),
    ("train", 301, 1, "ピッケル’", "ピッケル"),
    ("train", 301, 2, "‘ロープ", "ロープ"),
    ("train", 374, 1, "乗車券’", "乗車券"),
    ("train", 374, 2, "‘図書券", "図書券"),
]


@pytest.mark.parametrize(("split", "row", "index", "published", "bare"), STRAY_QUOTES, ids=lambda v: str(v))
def test_a_genuine_option_with_a_stray_quote_reads_as_published_and_without_the_quote(
    split, row, index, published, bare
):
    """The published text stays as it is (the option's text, adherence and the gold check use it); the reader knows
    each option also without wrappers ([PARSE]: a label is read as answers are), so its exact copy, which
    format_adherence accepts, and the same word without the stray quote, in 「」 or with a copula, all read as that
    option; the other options are untouched."""
    rec = SRC.convert(shared_sample("jcommonsenseqa"))[split][row]
    doc = SRC.finalize(rec)
    assert doc["choices"][index] == published == doc["label_names"][index]
    for tpl in TASKS.templates:
        filt = answer_filter(TASKS, tpl)
        assert filt.read(published, doc).adherent, tpl.id
        assert not filt.read(bare, doc).adherent, tpl.id
        for text in (published, bare, f"「{bare}」", f"{bare}です。", f"答え：{published}", str(index + 1)):
            assert str(filt.read(text, doc)) == published, (tpl.id, text)
        gold = doc["answer_text"]
        assert str(filt.read(gold, doc)) == gold, tpl.id
