"""spec5g_cls: 5GSC.csv loader (fixture), seeded 15 % split, verbaliser, Drive download via optional gdown, errors,
templates, end to end (no real sample exists for SPEC5G: the fixture is used)."""

import json
import sys
import types
from collections import Counter
from operator import itemgetter
from pathlib import Path

import pytest
from lm_eval_enterprise.tasks.cyber.spec5g_cls import source as S
from lm_eval_enterprise.tasks.cyber.spec5g_cls.templates import TASKS, TEMPLATES

from conftest import fixture_run
from lm_eval_enterprise.data import DataError, fixture_dir, get_source, load_records
from lm_eval_enterprise.prompting.templating import answer_filter
from testkit.testing import (
    GARBAGE,
    WEIGHTED_F1_SCORES,
    assert_first_prompt,
    csv_rows,
    sample_positions,
)

SRC = get_source("spec5g_cls")
FIX = fixture_dir("spec5g_cls")
N = 60


def _csv_rows():
    return csv_rows(FIX / S.CSV_NAME)


# ----------------------------------------------------------------------------------------------- convert / split
def test_convert_fixture_is_the_seeded_15_percent_split():
    rows = _csv_rows()
    assert len(rows) == N
    splits = SRC.convert(FIX)
    test_pos = sample_positions(N, 0.15)  # pandas df.sample(frac=0.15, random_state=0), computed independently
    assert [r["id"] for r in splits["test"]] == [str(i) for i in test_pos]
    assert [r["id"] for r in splits["train"]] == [str(i) for i in range(N) if i not in test_pos]  # file order
    assert (len(splits["train"]), len(splits["test"])) == (51, 9)
    first = splits["test"][0]
    assert first == {"id": "26", "text": rows[26]["text"], "label": S.LABEL_NAMES[int(rows[26]["label"])]}
    assert SRC.convert(FIX) == splits  # deterministic


def test_verbaliser_is_one_constant_and_unverified():
    # class 2 has no published definition: a neutral name, not the earlier guess "procedure"
    assert S.LABEL_NAMES == {0: "not security related", 1: "security related", 2: "other"}
    assert SRC.labels == tuple(S.LABEL_NAMES.values())
    assert S.LABEL_NAMES_VERIFIED is False
    assert TASKS.extra_metadata == {"label_names_verified": False, "label_names_note": S.LABEL_NAMES_NOTE}
    assert S.LABEL_NAMES_NOTE.startswith("class names unverified") and "class 2 is unexplained" in S.LABEL_NAMES_NOTE
    for value, name in (
        ("0", "not security related"),
        ("1", "security related"),
        ("2", "other"),
        ("1.0", "security related"),
        (" 2 ", "other"),
    ):
        assert S.label_name(value, "w") == name
    for bad in ("3", "-1", "x", "", "1.5"):
        with pytest.raises(DataError, match=r"^\[spec5g_cls\] w: label .* is not one of \[0, 1, 2\]"):
            S.label_name(bad, "w")


def test_balanced_shots_cover_the_three_classes():
    recs = load_records("spec5g_cls", data_root="embedded")
    assert recs["test"][0]["label_names"] == ["not security related", "security related", "other"]
    assert {r["label"] for r in recs["fewshot"][:3]} == set(S.LABEL_NAMES.values())
    assert Counter(r["label"] for r in recs["fewshot"][:5]).most_common(1)[0][1] == 2  # 2 + 2 + 1
    assert {r["id"] for r in recs["fewshot"]} == {r["id"] for r in recs["train"]}
    assert TASKS.num_fewshot == 5 and TASKS.max_gen_toks == 8 and TASKS.until == ("\n",)


def test_empty_sentence_is_dropped_without_shifting_the_split(tmp_path):
    d = tmp_path / "spec5g_cls"
    d.mkdir()
    text = (FIX / S.CSV_NAME).read_text(encoding="utf-8").splitlines()
    text[1 + 26] = '"   ",1'  # row 26 is the first test row
    (d / S.CSV_NAME).write_text("\n".join(text) + "\n", encoding="utf-8")
    splits = SRC.convert(d)
    ref = SRC.convert(FIX)
    assert [r["id"] for r in splits["test"]] == [r["id"] for r in ref["test"]][1:]
    assert splits["train"] == ref["train"]


@pytest.mark.parametrize(
    "csv_text,message",
    [
        ("sentence,label\nabc,1\n", r"5GSC\.csv: missing columns \['text'\]"),
        ("text,label\nabc,7\n", r"5GSC\.csv:row 0: label '7' is not one of"),
    ],
)
def test_bad_csv_names_the_file(tmp_path, csv_text, message):
    (tmp_path / S.CSV_NAME).write_text(csv_text)
    with pytest.raises(DataError, match=message):
        SRC.convert(tmp_path)


def test_presplit_rows_use_the_same_row_code(tmp_path):
    d = tmp_path / "spec5g_cls"
    d.mkdir()
    (d / "test.jsonl").write_text(json.dumps({"_row": 7, "text": "The UE shall verify the MAC.", "label": 1}) + "\n")
    (d / "train.jsonl").write_text(
        "\n".join(json.dumps({"_row": i, "text": f"Clause {i} is void.", "label": 0}) for i in range(3)) + "\n"
    )
    recs = load_records("spec5g_cls", data_root=str(tmp_path))
    assert recs["test"][0]["id"] == "7" and recs["test"][0]["label"] == "security related"
    with pytest.raises(DataError, match=r"test\.jsonl:1: row has no '_row'/'id'"):
        SRC.convert_presplit({"test": [{"text": "x", "label": 0}]}, d)


# ----------------------------------------------------------------------------------------------- download
class _Entry:
    def __init__(self, id, path):
        self.id, self.path, self.local_path = id, path, None


def _fake_gdown(listing, payload=b"text,label\nx,0\n", fail=None):
    mod = types.ModuleType("gdown")
    calls = []

    def download_folder(id=None, output=None, quiet=False, skip_download=False, remaining_ok=False, **kw):
        calls.append(("folder", id, skip_download))
        Path(output).mkdir(parents=True, exist_ok=True)  # gdown may create the listing folder
        if fail:
            raise fail
        return listing

    def download(id=None, output=None, quiet=False, **kw):
        calls.append(("file", id, output))
        Path(output).write_bytes(payload)
        return output

    mod.download_folder, mod.download, mod.calls = download_folder, download, calls
    return mod


def test_download_lists_the_drive_folder_and_fetches_the_file(tmp_path, monkeypatch):
    fake = _fake_gdown([_Entry("id-sum", "SPEC5G/simplification_dataset.csv"), _Entry("id-5gsc", "SPEC5G/5GSC.csv")])
    monkeypatch.setitem(sys.modules, "gdown", fake)
    SRC.download(tmp_path, progress=False)
    assert (tmp_path / S.CSV_NAME).read_bytes() == b"text,label\nx,0\n"
    assert fake.calls == [("folder", S.DRIVE_FOLDER_ID, True), ("file", "id-5gsc", str(tmp_path / S.CSV_NAME))]
    assert sorted(p.name for p in tmp_path.iterdir()) == [S.CSV_NAME]  # no listing folder left behind


def test_online_first_use_downloads_into_the_cache(tmp_path, monkeypatch):
    for var in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "LM_EVAL_ENTERPRISE_OFFLINE"):
        monkeypatch.delenv(var, raising=False)
    payload = (FIX / S.CSV_NAME).read_bytes()
    monkeypatch.setitem(sys.modules, "gdown", _fake_gdown([_Entry("id-5gsc", "5GSC.csv")], payload=payload))
    recs = load_records("spec5g_cls")  # cache = tmp (conftest): prepare() -> download() -> convert()
    assert sorted(r["id"] for r in recs["test"]) == sorted(r["id"] for r in SRC.convert(FIX)["test"])
    cached = Path(str(tmp_path / "cache")) / "spec5g_cls"
    assert (cached / S.CSV_NAME).read_bytes() == payload and (cached / ".complete").exists()


def test_download_without_gdown_or_failing_drive_is_one_line_error(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "gdown", None)  # import gdown -> ImportError
    with pytest.raises(DataError) as e:
        SRC.download(tmp_path, progress=False)
    msg = str(e.value)
    assert msg.startswith(f"[spec5g_cls] {S.DRIVE_FOLDER_URL}: automatic download needs the optional package gdown")
    assert "5GSC.csv" in msg and "LM_EVAL_ENTERPRISE_DATA/spec5g_cls/" in msg and "\n" not in msg
    monkeypatch.setitem(sys.modules, "gdown", _fake_gdown([], fail=RuntimeError("Too many users\nhave viewed")))
    with pytest.raises(
        DataError,
        match=r"Google Drive download failed \(RuntimeError: Too many users\); download "
        r"5GSC\.csv from https://drive\.google\.com",
    ):
        SRC.download(tmp_path, progress=False)
    monkeypatch.setitem(sys.modules, "gdown", _fake_gdown([_Entry("a", "other.csv")]))
    with pytest.raises(DataError, match=r"FileNotFoundError: 5GSC\.csv not listed"):
        SRC.download(tmp_path, progress=False)
    assert not (tmp_path / S.CSV_NAME).exists()


# ----------------------------------------------------------------------------------------------- templates
def test_templates_accept_gold_and_keep_the_labels_apart():
    assert TEMPLATES[0].description == (
        "Classify the following sentence from a 5G protocol specification into one "
        "of: not security related, security related, other.\n\n"
    )
    assert TEMPLATES[0].doc_to_text == "Sentence: {{text}}\nLabel:"
    doc = {"label_names": list(S.LABEL_NAMES.values())}
    for t in TEMPLATES:  # the same [PARSE] reading in every template
        flt = answer_filter(TASKS, t)
        for g in doc["label_names"]:
            assert flt.read(" " + g, doc) == g and flt.read(" " + g, doc).adherent
            assert flt.read(" " + g.title() + ".\nSentence:", doc) == g
        assert flt.read(GARBAGE, doc) == "[invalid]"
        assert flt.read(" security", doc) == "[invalid]"
        assert flt.read(" not security related, because", doc) == "not security related"
        assert flt.read(" security related (it is)", doc) == "security related"
        assert flt.read(" other, clearly", doc) == "other"


def test_no_template_builds_a_meaning_of_class_2_into_its_wording():
    for t in TEMPLATES:
        text = (t.description or "") + t.doc_to_text
        assert "procedure" not in text.lower(), t.id
        assert "not security related, security related, other" in text, t.id  # the names, nothing more


# ----------------------------------------------------------------------------------------------- end to end
def test_end_to_end_fixture_tiny_model(tiny_eval):
    tasks = ["ent_spec5g_cls__t1", "ent_spec5g_cls__t3"]
    res, recs = fixture_run(tiny_eval, "spec5g_cls", tasks, WEIGHTED_F1_SCORES, num_fewshot=5)
    for t in tasks:
        assert res["configs"][t]["metadata"]["label_names_verified"] is False
        assert res["configs"][t]["metadata"]["label_names_note"] == S.LABEL_NAMES_NOTE
    assert_first_prompt(
        res, tasks, recs, TEMPLATES[0].description, 5, lambda r: f"Sentence: {r['text']}\nLabel:", itemgetter("label")
    )
