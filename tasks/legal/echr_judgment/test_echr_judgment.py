"""echr_judgment: archive layout (fixture zip), HELM length filter and label rule, errors, [BAL], end to end.

No real sample exists (docs/data.md#real-samples): the loader is tested on the fixture
(ECHR_Dataset.zip in the archive's layout, written by make_fixture.py) and on archives built
in tmp_path.
"""

import json
import re
import zipfile
from operator import itemgetter
from pathlib import Path

import pytest
from lm_eval_enterprise.tasks.legal.echr_judgment import source as S
from lm_eval_enterprise.tasks.legal.echr_judgment.templates import TASKS, TEMPLATES

from conftest import fixture_run
from lm_eval_enterprise.data import DataError, fixture_dir, get_source, load_checked, load_records, verified
from lm_eval_enterprise.data.fewshot import helm_balanced
from lm_eval_enterprise.prompting.templating import answer_filter
from lm_eval_enterprise.scoring.filters import helm_label
from testkit.testing import GARBAGE, assert_first_prompt, run_oracle

SRC = get_source("echr_judgment")
FIX = fixture_dir("echr_judgment")


def _case(item, text, violated):
    return {
        "ITEMID": item,
        "LANGUAGEISOCODE": "ENG",
        "TEXT": text,
        "VIOLATED_ARTICLES": violated,
        "NON_VIOLATED_ARTICLES": [],
    }


def _zip(d: Path, folders: dict[str, list[dict]], prefix: str = "") -> Path:
    d.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(d / S.ZIP_NAME, "w") as zf:
        for folder, cases in folders.items():
            for c in cases:
                zf.writestr(f"{prefix}{folder}/{c['ITEMID']}.json", json.dumps(c))
    return d


def _small(n_test=2):
    return {
        "EN_train": [_case("t1", ["a b"], ["6"]), _case("t2", ["c"], [])],
        "EN_dev": [_case("d1", ["x"], [])],
        "EN_test": [_case(f"e{i}", ["facts"], ["3"] if i % 2 else []) for i in range(n_test)],
    }


# ----------------------------------------------------------------------------------------------- mapping
def test_count_words_is_helms_split():
    assert S.count_words("a b c") == 3
    assert S.count_words("Hello, world!") == 3  # trailing separator → empty piece, as len(re.split(r"\W+", t))
    assert S.count_words("") == 1
    assert S.count_words(" ".join(["w"] * 600)) == 600


def test_to_record_label_rule_and_filter():
    assert S.to_record(_case("1", ["A.", "B."], ["6", "P1-1"]), "x") == {"id": "1", "text": "A. B.", "label": "Yes"}
    assert S.to_record(_case("2", ["A."], []), "x")["label"] == "No"
    at_limit = ["w"] * 600  # 600 words joined → exactly 600 pieces: kept
    assert S.to_record(_case("3", at_limit, []), "x")["text"] == " ".join(at_limit)
    assert S.to_record(_case("4", ["w"] * 601, ["6"]), "x") is None  # > 600: dropped (HELM filter_max_length)


def test_convert_fixture_filters_and_ignores_anon():
    names = zipfile.ZipFile(FIX / S.ZIP_NAME).namelist()
    assert any(n.startswith("EN_train_Anon/") and n.endswith(".json") for n in names)
    splits = SRC.convert(FIX)
    assert {k: len(v) for k, v in splits.items()} == {"train": 10, "valid": 3, "test": 10}
    zf = zipfile.ZipFile(FIX / S.ZIP_NAME)
    for split, folder in (("train", "EN_train"), ("valid", "EN_dev"), ("test", "EN_test")):
        cases = [json.loads(zf.read(n)) for n in sorted(names) if n.startswith(folder + "/") and n.endswith(".json")]
        kept = [c for c in cases if len(re.split(r"\W+", " ".join(c["TEXT"]))) <= 600]
        assert len(cases) - len(kept) == (0 if split == "valid" else 1)
        assert [r["id"] for r in splits[split]] == [c["ITEMID"] for c in kept]
        assert [r["label"] for r in splits[split]] == ["Yes" if c["VIOLATED_ARTICLES"] else "No" for c in kept]
        assert [r["text"] for r in splits[split]] == [" ".join(c["TEXT"]) for c in kept]
    assert sum(r["label"] == "Yes" for r in splits["test"]) == 5
    assert SRC.convert(FIX) == splits  # deterministic (sorted member order)


def test_top_level_folder_in_archive_and_member_order(tmp_path):
    folders = _small()
    folders["EN_train"] = list(reversed(folders["EN_train"]))  # written t2, t1: read back sorted
    _zip(tmp_path, folders, prefix="ECHR_Dataset/")
    splits = SRC.convert(tmp_path)
    assert [r["id"] for r in splits["train"]] == ["t1", "t2"]
    assert splits["train"][0] == {"id": "t1", "text": "a b", "label": "Yes"}


def test_fewshot_is_balanced_and_deterministic():
    recs = load_records("echr_judgment", data_root="embedded")
    expected = helm_balanced(recs["train"], lambda r: r["label"], len(recs["train"]))
    assert [r["id"] for r in recs["fewshot"]] == [r["id"] for r in expected]
    assert {r["label"] for r in recs["fewshot"][:5]} == {"Yes", "No"}
    assert recs["test"][0]["label_names"] == ["Yes", "No"]
    assert SRC.task_metadata(recs) == {"max_words": 600, "filtered_rows": {"train": 10, "valid": 3, "test": 10}}


def test_source_url_is_helms():
    assert [(f.name, f.url) for f in SRC.files] == [
        ("ECHR_Dataset.zip", "https://archive.org/download/ECHR-ACL2019/ECHR_Dataset.zip")
    ]


# ----------------------------------------------------------------------------------------------- errors
def test_raw_case_counts_checked_without_manifest(tmp_path, caplog):
    """The spec's 7,100 / 1,380 / 2,998 case files are unverified: a mismatch is a warning, recorded in the report."""
    _zip(tmp_path / "echr_judgment", _small())
    recs, report = load_checked("echr_judgment", data_root=str(tmp_path))
    assert len(recs["test"]) == 2
    counts = report.metadata()["row_counts"]
    assert counts["train_case_files"]["status"] == "warning" and counts["train_case_files"]["expected"] == 7100
    assert "split 'train' has 2 case files, expected 7,100 (unverified count:" in counts["train_case_files"]["message"]
    assert counts["test"] == {
        "rows": 2,
        "expected": None,
        "verified": False,
        "status": "ok",
        "evidence": "no published count after the 600-word filter",
    }
    assert report.status == "warning"
    warned = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert any("ECHR_Dataset.zip: split 'train' has 2 case files" in m for m in warned)


def test_raw_case_counts_verified_would_fail(monkeypatch, tmp_path):
    d = _zip(tmp_path, _small(n_test=100))
    monkeypatch.setattr(
        S, "RAW_COUNTS", {"train": verified(2, "t"), "valid": verified(1, "t"), "test": verified(100, "t")}
    )
    assert all(c.status == "ok" for c in SRC.check_rows(SRC.convert(d), d))
    monkeypatch.setattr(
        S, "RAW_COUNTS", {"train": verified(2, "t"), "valid": verified(1, "t"), "test": verified(102, "t")}
    )
    with pytest.raises(DataError, match="split 'test' has 100 case files, expected 102 \\(t\\)"):
        SRC.check_rows(SRC.convert(d), d)


def test_manifest_pins_filtered_counts(tmp_path):
    d = _zip(tmp_path / "echr_judgment", _small())
    (d / "MANIFEST.json").write_text(json.dumps({"expected_rows": {"train": 2, "valid": 1, "test": 3}}))
    with pytest.raises(DataError, match=r"split 'test' has 2 rows after conversion, expected 3"):
        load_records("echr_judgment", data_root=str(tmp_path))


def test_bad_archives_name_the_file(tmp_path):
    (tmp_path / S.ZIP_NAME).write_text("not a zip")
    with pytest.raises(DataError, match=r"^\[echr_judgment\] .*ECHR_Dataset\.zip: not a readable zip archive"):
        SRC.convert(tmp_path)
    folders = _small()
    del folders["EN_dev"]
    _zip(tmp_path, folders)
    with pytest.raises(DataError, match=r"no case files in the valid folder \(EN_dev/\*\.json\)"):
        SRC.convert(tmp_path)
    folders = _small()
    folders["EN_test"][1] = {"ITEMID": "e1", "TEXT": ["x"]}
    _zip(tmp_path, folders)
    with pytest.raises(
        DataError,
        match=r"ECHR_Dataset\.zip:EN_test/e1\.json: case lacks the field "
        r"'VIOLATED_ARTICLES'",
    ):
        SRC.convert(tmp_path)
    folders["EN_test"][1] = _case("e1", "one string, not a list", [])
    _zip(tmp_path, folders)
    with pytest.raises(DataError, match="TEXT is not a list of strings"):
        SRC.convert(tmp_path)
    with zipfile.ZipFile(tmp_path / S.ZIP_NAME, "a") as zf:
        zf.writestr("EN_dev/broken.json", "{")
    with pytest.raises(DataError, match=r"EN_dev/broken\.json: invalid JSON"):
        SRC.convert(tmp_path)


# ----------------------------------------------------------------------------------------------- templates
def test_templates_accept_gold_and_reject_garbage():
    assert len(TEMPLATES) >= 5 and TASKS.num_fewshot == 5 and TASKS.until == ("\n",)
    assert TEMPLATES[0].description == (
        "Is the following case a violation of human rights?\n\n"
        "Case: Human rights have not been violated.\nAnswer: No\n\n"
        "Case: Human rights have been violated.\nAnswer: Yes\n\n"
    )
    assert TEMPLATES[0].doc_to_text == "Case: {{text}}\nAnswer:"
    doc = {"label_names": ["Yes", "No"]}
    for t in TEMPLATES:  # one [PARSE] rule for all templates (tests/scoring/test_parse_table.py has the full table)
        flt = answer_filter(TASKS, t)
        for gold in doc["label_names"]:
            assert flt.read(" " + gold, doc) == gold and flt.read(" " + gold, doc).adherent
            assert flt.read(" " + gold.lower() + ".", doc) == gold
        assert flt.read(" Yes, the", doc) == "Yes"
        assert flt.read(" Nobody", doc) == "[invalid]"
        assert flt.read(GARBAGE, doc) == "[invalid]"
    # HELM's rule (t1 reports it as weighted_f1_helm): the whole completion must be the label
    assert helm_label("Yes, the", doc["label_names"]) == "[invalid]" and helm_label("yes.", ["Yes", "No"]) == "Yes"


# ----------------------------------------------------------------------------------------------- end to end
def test_end_to_end_fixture_tiny_model(tiny_eval):
    tasks = ["ent_echr_judgment__t1", "ent_echr_judgment__t2"]
    keys = ("weighted_f1,answer", "accuracy,answer", "format_failure,answer", "prompt_cut,answer")
    res, recs = fixture_run(tiny_eval, "echr_judgment", tasks, keys, num_fewshot=5)
    for t in tasks:
        assert res["results"][t]["shots_used,answer"] == 5.0  # the short fixture cases fit the default budget
    assert_first_prompt(
        res, tasks, recs, TEMPLATES[0].description, 5, lambda r: f"Case: {r['text']}\nAnswer:", itemgetter("label")
    )


def test_long_cases_drop_trailing_shots(tmp_path):
    """[BAL] last paragraph: 5 cases of ~590 words exceed the default 4,096-token budget → trailing shots are
    dropped."""

    long = [" ".join(f"fact{k}" for k in range(590))]
    folders = {
        "EN_train": [_case(f"t{i}", long, ["6"] if i % 2 else []) for i in range(6)],
        "EN_dev": [_case("d1", ["x"], [])],
        "EN_test": [_case("e1", ["short facts"], ["6"])],
    }
    d = _zip(tmp_path / "echr_judgment", folders)
    (d / "MANIFEST.json").write_text(json.dumps({"expected_rows": {"train": 6, "valid": 1, "test": 1}}))
    task = "ent_echr_judgment__t1"
    res = run_oracle([task], str(tmp_path))
    sample = res["samples"][task][0]
    assert 0 < sample["shots_used"] < 5 and sample["prompt_cut"] == 1.0
    assert sample["arguments"][0][0].endswith("Case: short facts\nAnswer:")
    assert res["results"][task]["weighted_f1,answer"] == 1.0
