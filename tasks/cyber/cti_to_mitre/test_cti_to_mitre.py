"""cti_to_mitre: STIX technique table, HELM 70/30 split (fixture), 10-option draws, [BAL] shots by gold name,
the multiple_choice hook, errors, templates, end to end (no real sample exists: the fixture is used)."""

import json
import random
import shutil
from operator import itemgetter

import pytest
from lm_eval_enterprise.tasks.cyber.cti_to_mitre import source as S
from lm_eval_enterprise.tasks.cyber.cti_to_mitre.templates import TASKS, TEMPLATES

from conftest import fixture_run
from lm_eval_enterprise.data import DataError, fixture_dir, get_source, load_records
from lm_eval_enterprise.prompting.templating import answer_filter
from lm_eval_enterprise.scoring import hooks
from testkit.testing import (
    GARBAGE,
    assert_first_prompt,
    csv_rows,
    helm_positions,
)

SRC = get_source("cti_to_mitre")
FIX = fixture_dir("cti_to_mitre")
LETTERS = list("ABCDEFGHIJ")


def _bundle():
    return json.loads((FIX / S.STIX_NAME).read_text())


def _csv():
    return csv_rows(FIX / S.CSV_NAME)


# ----------------------------------------------------------------------------------------------- technique table
def test_technique_table_from_stix():
    names = S.technique_names(_bundle(), "w")
    assert len(names) == 13
    assert names["T1055"] == "Process Injection" and names["T1053"] == "Scheduled Task/Job"
    assert not any("." in k for k in names)  # sub-techniques excluded
    assert names["T1064"] == "Scripting"  # deprecated, flag false: kept (11 of v10.1's 199 are deprecated)
    # the fixture's revoked attack-patterns: two without the flag (v10.1 style), one with the flag false (later style)
    revoked = {o["external_references"][0]["external_id"]: o for o in _bundle()["objects"] if o.get("revoked")}
    assert sorted(revoked) == ["T1066", "T1086", "T1088"]
    assert ["x_mitre_is_subtechnique" in revoked[t] for t in ("T1066", "T1086", "T1088")] == [False, True, False]
    assert not set(revoked) & set(names)


def test_technique_rule_flag_present_and_false_and_not_revoked():
    def ap(tid, **kw):
        return {
            "type": "attack-pattern",
            "id": f"attack-pattern--{tid}",
            "name": f"n{tid}",
            "external_references": [{"source_name": "mitre-attack", "external_id": tid}],
            **kw,
        }

    objs = [
        ap("T1", x_mitre_is_subtechnique=False),
        ap("T2"),  # absent flag (revoked in v10.1): not a technique
        ap("T3", revoked=True),
        ap("T4", x_mitre_is_subtechnique=False, revoked=True),
        ap("T5", x_mitre_is_subtechnique=False, x_mitre_deprecated=True),
        ap("T6.001", x_mitre_is_subtechnique=True),
        ap("T7", x_mitre_is_subtechnique=None),
        ap("T8", x_mitre_is_subtechnique=False, revoked=False),
        {"type": "course-of-action", "id": "c", "name": "m", "x_mitre_is_subtechnique": False},
    ]
    # the old "false or absent" rule also took T2, T3, T4 and T7 (on genuine v10.1: 199 + 129 revoked = 328)
    assert S.technique_names({"objects": objs}, "w") == {"T1": "nT1", "T5": "nT5", "T8": "nT8"}
    with pytest.raises(DataError, match=r"^\[cti_to_mitre\] w: technique T1 appears twice \('nT1', 'other'\)$"):
        S.technique_names({"objects": [objs[0], {**objs[0], "id": "y", "name": "other"}]}, "w")


def test_technique_table_structure_errors():
    bad = {
        "objects": [
            {
                "type": "attack-pattern",
                "id": "x",
                "name": "n",
                "x_mitre_is_subtechnique": False,
                "external_references": [
                    {"source_name": "mitre-attack", "external_id": "T1"},
                    {"source_name": "mitre-attack", "external_id": "T2"},
                ],
            }
        ]
    }
    with pytest.raises(DataError, match=r"^\[cti_to_mitre\] w: attack-pattern x has 2 mitre-attack ids"):
        S.technique_names(bad, "w")
    with pytest.raises(DataError, match="not a STIX bundle"):
        S.technique_names([], "w")


# ----------------------------------------------------------------------------------------------- split + options
def test_convert_fixture_is_the_helm_split():
    n = len(_csv())
    assert n == 30
    splits = SRC.convert(FIX)
    train_pos, test_pos = helm_positions(n, 0.7, seed=42)  # pandas sample(frac=0.7, random_state=42), independently
    assert [r["id"] for r in splits["train"]] == [str(i) for i in train_pos]
    assert [r["id"] for r in splits["test"]] == [str(i) for i in test_pos]
    assert (len(splits["train"]), len(splits["test"])) == (21, 9)
    assert SRC.convert(FIX) == splits  # deterministic


def test_options_follow_the_documented_draw_order():
    rows, names = _csv(), S.technique_names(_bundle(), "w")
    splits = SRC.convert(FIX)
    sorted_names = [names[k] for k in sorted(names)]
    rng = random.Random(42)  # one RNG, train first then test, in split order
    for split in ("train", "test"):
        for rec in splits[split]:
            gold = names[rows[int(rec["id"])]["label_tec"]]
            picks = rng.sample([x for x in sorted_names if x != gold], 8)
            opts = picks + [gold]
            rng.shuffle(opts)
            assert rec["choices"] == opts + ["Others"]
            assert rec["choices"][rec["answer"]] == gold and rec["question"] == rows[int(rec["id"])]["sentence"]
            assert len(set(rec["choices"])) == 10 and rec["technique_id"] == rows[int(rec["id"])]["label_tec"]
    assert len({tuple(r["choices"]) for r in splits["test"]}) == len(splits["test"])  # fresh draw per instance


def test_records_carry_letters_and_balanced_shots():
    recs = load_records("cti_to_mitre", data_root="embedded")
    for rec in recs["test"] + recs["fewshot"]:
        assert rec["label_names"] == LETTERS and rec["n_options"] == 10
        assert rec["answer_letter"] == LETTERS[rec["answer"]] and rec["choices"][-1] == "Others"
    golds = [r["choices"][r["answer"]] for r in recs["fewshot"][:10]]
    assert len(set(golds)) == 10  # [BAL] by gold technique name: 10 distinct techniques before any repeat
    assert {r["id"] for r in recs["fewshot"]} == {r["id"] for r in recs["train"]}
    assert TASKS.num_fewshot == 10 and TASKS.max_gen_toks == 1 and TASKS.until == ("\n",)


def test_multiple_choice_hook():
    doc = {"answer_letter": "C"}
    ok, bad = {"format_failure": 0.0, "format_adherence": 1.0}, {"format_failure": 1.0, "format_adherence": 0.0}
    assert hooks.multiple_choice(doc, ["C"]) == {"accuracy": 1.0, **ok}
    assert hooks.multiple_choice(doc, ["B"]) == {"accuracy": 0.0, **ok}
    assert hooks.multiple_choice(doc, ["[invalid]"]) == {"accuracy": 0.0, **bad}
    assert hooks.multiple_choice(doc, [["C"]]) == {"accuracy": 1.0, **ok}


# ----------------------------------------------------------------------------------------------- errors
# (a count that does not match its MANIFEST: tests/data/test_datasets.py, every split of every dataset)
def test_technique_count_is_checked_against_the_manifest_or_attack_v10_1(tmp_path):
    shutil.copy(FIX / S.STIX_NAME, tmp_path / S.STIX_NAME)
    shutil.copy(FIX / S.CSV_NAME, tmp_path / S.CSV_NAME)
    # without a manifest the technique count must be ATT&CK v10.1's 199
    with pytest.raises(DataError, match=r"enterprise-attack\.json: 13 techniques, expected 199 \(ATT&CK v10\.1\)"):
        SRC.convert(tmp_path)
    (tmp_path / "MANIFEST.json").write_text(json.dumps({"expected_rows": {}, "expected_techniques": 13}))
    assert len(SRC.convert(tmp_path)["test"]) == 9


@pytest.mark.parametrize(
    "csv_text,message",
    [
        (
            (FIX / S.CSV_NAME).read_text().replace(",T1003,", ",T9999,", 1),
            r"dataset\.csv: row \d+: technique 'T9999' is not in the ATT&CK technique",
        ),
        ("version https://git-lfs.github.com/spec/v1\noid sha256:ab\nsize 1\n", r"dataset\.csv: is a Git LFS pointer"),
        ("text,label_tec\nx,T1055\n", r"dataset\.csv: missing columns \['sentence'\]"),
    ],
)
def test_bad_csv_names_the_file(tmp_path, csv_text, message):
    shutil.copy(FIX / S.STIX_NAME, tmp_path / S.STIX_NAME)
    (tmp_path / "MANIFEST.json").write_text(json.dumps({"expected_rows": {}, "expected_techniques": 13}))
    (tmp_path / S.CSV_NAME).write_text(csv_text)
    with pytest.raises(DataError, match=message):
        SRC.convert(tmp_path)


def test_source_urls_are_helms():
    assert [f.url for f in SRC.files] == [
        "https://github.com/dessertlab/cti-to-mitre-with-nlp/raw/a8cacf3185d098c686e0d88768a619a03a4d76d1/data/"
        "dataset.csv",
        "https://github.com/mitre/cti/raw/refs/tags/ATT&CK-v10.1/enterprise-attack/enterprise-attack.json",
    ]


# ----------------------------------------------------------------------------------------------- templates
def test_templates_parse_letters():
    assert TEMPLATES[0].description == (
        "Classify the following situation by the type of security attack. Answer with only a single letter.\n\n"
    )
    doc = {"label_names": LETTERS}
    for t in TEMPLATES:  # the same [PARSE] reading in every template
        flt = answer_filter(TASKS, t)
        for good, letter in (
            (" C", "C"),
            ("J", "J"),
            (" (B)", "B"),
            (" D. Process Injection", "D"),
            ("A\nB", "A"),
            (" c", "C"),
            (" the answer is B", "B"),
            (" Answer: B", "B"),
            (" **I**", "I"),
        ):
            assert flt.read(good, doc) == letter, (t.id, good)
        for bad in (GARBAGE, " K", "", " Obfuscation", " Technique"):
            assert flt.read(bad, doc) == "[invalid]", (t.id, bad)
        assert flt.read(" C", doc).adherent and not flt.read(" (C)", doc).adherent
    # only t4 ("Start your answer with the option letter") accepts text after the letter as its format
    assert [answer_filter(TASKS, t).read(" D. Process Injection", doc).adherent for t in TEMPLATES] == [
        False,
        False,
        False,
        True,
        False,
    ]


# ----------------------------------------------------------------------------------------------- end to end
def test_end_to_end_fixture_tiny_model(tiny_eval):
    tasks = ["ent_cti_to_mitre__t1", "ent_cti_to_mitre__t3"]
    res, recs = fixture_run(tiny_eval, "cti_to_mitre", tasks, ("accuracy,answer", "format_failure,answer"), 10)

    def block(r):
        return (
            f"Situation: {r['question']}\n" + "".join(f"{L}. {c}\n" for L, c in zip(LETTERS, r["choices"])) + "Answer:"
        )

    assert_first_prompt(res, tasks, recs, TEMPLATES[0].description, 10, block, itemgetter("answer_letter"))
    prompt = res["samples"][tasks[0]][0]["arguments"][0][0]
    assert prompt.count("J. Others\n") == 11
