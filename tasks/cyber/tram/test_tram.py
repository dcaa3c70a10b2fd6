"""tram: seeded split before the top-9 filter (checked against the real sample), ATT&CK names from STIX, loader on
the fixture, errors, [MF1], end to end with 20 shots and the prompt budget."""

import json
import shutil
from collections import Counter

import pytest
from lm_eval_enterprise.tasks.cyber.tram import source as S
from lm_eval_enterprise.tasks.cyber.tram.templates import TASKS

from conftest import file_ordered, sample_records, sample_rows, shared_sample
from lm_eval_enterprise.data import DataError, fixture_dir, get_source, load_checked, load_records
from lm_eval_enterprise.data.fewshot import top_k_labels
from lm_eval_enterprise.prompting.templating import answer_filter
from lm_eval_enterprise.scoring import metrics as M
from testkit.testing import GARBAGE, assert_unit_scores, run_hf_model

SRC = get_source("tram")
FIX = fixture_dir("tram")
NAMES9 = [S.SPEC_NAMES[t] for t in S.SPEC_TOP9]


def test_source_files_are_the_pinned_urls():
    assert {f.name: f.url for f in SRC.files} == {
        "single_label.json": "https://raw.githubusercontent.com/center-for-threat-informed-defense/tram/"
        "f29793d8d665f7f552898696e00065ef24a29a20/data/tram2-data/single_label.json",
        "enterprise-attack.json": "https://raw.githubusercontent.com/mitre/cti/ATT%26CK-v10.1/enterprise-attack/"
        "enterprise-attack.json",
    }


def test_split_recipe_reproduces_the_real_sample_order():
    """Random(1234).shuffle(range(5089)); first round(0.3 N) = 1,527 test. The sample holds the first 300 of the
    test pool and the first 100 of the train pool, with their original indices."""
    test_idx, train_idx = S.split_indices(5089)
    assert (len(test_idx), len(train_idx)) == (1527, 3562) and sorted(test_idx + train_idx) == list(range(5089))
    assert [r["orig_index"] for r in sample_rows("tram", "test")] == test_idx[:300]
    assert [r["orig_index"] for r in sample_rows("tram", "train")] == train_idx[:100]
    assert S.split_indices(5089) == (test_idx, train_idx)  # deterministic


def test_real_sample_presplit_keeps_the_spec_top9():
    raw = {s: sample_rows("tram", s) for s in ("train", "test")}
    assert len({r["label"] for s in raw.values() for r in s}) > 9  # the sample has (almost) all 50 classes
    recs = sample_records("tram")
    for split in ("train", "test"):
        kept = [r for r in raw[split] if r["label"] in S.SPEC_TOP9]  # the top-9 filter, in sample order
        ordered = file_ordered(recs[split], [r["orig_index"] for r in kept]) if split == "test" else recs[split]
        assert [r["id"] for r in ordered] == [str(r["orig_index"]) for r in kept]
        assert [r["technique_id"] for r in ordered] == [r["label"] for r in kept]
        assert [r["text"] for r in ordered] == [r["text"] for r in kept]
    assert (len(recs["test"]), len(recs["train"])) == (164, 49)
    first = next(r for r in recs["test"] if r["id"] == "1041")  # the first kept test row of the sample
    assert (first["id"], first["technique_id"], first["label"]) == ("1041", "T1027", "Obfuscated Files or Information")
    assert first["text"] == "consistently cleaned up evidence of their intrusion after\ngaining access to a system"
    assert first["label_names"] == NAMES9 and first["label_list"] == ", ".join(NAMES9)
    assert {r["label"] for r in recs["test"]} == set(NAMES9)


def test_stix_names_parent_sub_and_revoked():
    names = S.load_stix_names(FIX / "enterprise-attack.json")
    assert names["T1059.003"] == "Command and Scripting Interpreter: Windows Command Shell"
    assert names["T1071.001"] == "Application Layer Protocol: Web Protocols"
    assert names["T1090"] == "Proxy"  # the revoked "Connection Proxy" object with the same ID does not win
    assert [names[t] for t in S.SPEC_TOP9] == NAMES9  # the spec's verbaliser = ATT&CK names
    bundle = {
        "objects": [
            {
                "type": "attack-pattern",
                "name": "Sub only",
                "external_references": [{"source_name": "mitre-attack", "external_id": "T9999.001"}],
            },
            {
                "type": "malware",
                "name": "X",
                "external_references": [{"source_name": "mitre-attack", "external_id": "S0001"}],
            },
        ]
    }
    assert S.stix_technique_names(bundle) == {}  # no parent → cannot be named; non attack-patterns ignored
    with pytest.raises(DataError, match=r"^\[tram\] x: not a STIX bundle"):
        S.stix_technique_names({"type": "bundle"}, "x")


def test_convert_fixture_split_then_top9():
    splits = SRC.convert(FIX)
    assert {k: len(v) for k, v in splits.items()} == {"train": 38, "test": 18}
    rows = json.loads((FIX / "single_label.json").read_text())
    assert top_k_labels(Counter(r["label"] for r in rows), 9) == list(S.SPEC_TOP9)  # the fixture ranks as the spec
    test_idx, train_idx = S.split_indices(len(rows))
    assert [r["id"] for r in splits["test"]] == [str(i) for i in test_idx if rows[i]["label"] in S.SPEC_TOP9]
    assert [r["id"] for r in splits["train"]] == [str(i) for i in train_idx if rows[i]["label"] in S.SPEC_TOP9]
    assert all(r["label_names"] == NAMES9 for s in splits.values() for r in s)
    assert Counter(r["label"] for r in splits["test"]) == {n: 2 for n in NAMES9}
    assert "T1082" not in {r["technique_id"] for s in splits.values() for r in s}  # dropped by the top-9 filter
    assert SRC.convert(FIX) == splits


def test_top9_is_computed_from_the_file_not_assumed(tmp_path):
    d = tmp_path / "tram"
    shutil.copytree(FIX, d)
    rows = json.loads((d / "single_label.json").read_text())
    rows += [{"text": f"hostname query {i}", "label": "T1082", "doc_title": "t"} for i in range(20)]
    (d / "single_label.json").write_text(json.dumps(rows))
    (d / "MANIFEST.json").write_text(
        json.dumps({"expected_rows": {}, "raw_rows": len(rows), "kept_rows": 56 - 3 + 22, "tolerance": 0})
    )
    splits = SRC.convert(d)
    names = splits["test"][0]["label_names"]
    assert names[0] == "System Information Discovery" and "Proxy" not in names  # T1082 now first, T1090 out
    assert SRC.task_metadata(splits)["top_k_technique_ids"][0] == "T1082"


def test_wrong_row_count_and_missing_name_are_one_line_errors(tmp_path):
    d = tmp_path / "tram"
    shutil.copytree(FIX, d)
    (d / "MANIFEST.json").unlink()  # spec: 5,089 sentences
    with pytest.raises(DataError) as e:  # 5,089 is verified (counted on the genuine file): an error
        load_records("tram", data_root=str(tmp_path))
    msg = str(e.value)
    assert msg == (
        f"[tram] {d / 'single_label.json'}: 61 raw sentences, expected 5,089 (counted on the genuine "
        "single_label.json (5,089 sentences, 50 techniques)); the source files are incomplete or changed"
    )
    shutil.copy(FIX / "MANIFEST.json", d / "MANIFEST.json")
    bundle = json.loads((d / "enterprise-attack.json").read_text())
    bundle["objects"] = [o for o in bundle["objects"] if o.get("name") != "Native API"]
    (d / "enterprise-attack.json").write_text(json.dumps(bundle))
    with pytest.raises(
        DataError,
        match=r"^\[tram\] .*enterprise-attack.json: no ATT&CK name for technique\(s\) "
        r"\['T1106'\]$",
    ):
        SRC.convert(d)


def test_kept_count_is_verified_so_a_mismatch_is_an_error(tmp_path, monkeypatch):
    """2,687 kept sentences were recounted on the genuine file: a folder keeping another number is rejected."""
    d = tmp_path / "tram"
    shutil.copytree(FIX, d)
    (d / "MANIFEST.json").unlink()
    monkeypatch.setattr(S, "RAW_EXPECTED", S.verified(61, "test: the fixture's 61 sentences"))
    assert S.KEPT_EXPECTED.verified and S.KEPT_EXPECTED.n == 2687
    with pytest.raises(DataError) as e:
        load_checked("tram", data_root=str(tmp_path))
    assert str(e.value) == (
        f"[tram] {d / S.DATA_FILE}: 56 kept sentences, expected 2,687 ({S.KEPT_EXPECTED.evidence}); the source "
        "files are incomplete or changed"
    )
    monkeypatch.setattr(S, "KEPT_EXPECTED", S.verified(56, "test: the fixture's 56 kept sentences"))
    splits, report = load_checked("tram", data_root=str(tmp_path))
    assert len(splits["test"]) == 18 and report.metadata()["row_counts"]["kept_sentences"]["status"] == "ok"


def test_presplit_uses_a_stix_bundle_beside_the_rows(tmp_path):
    d = tmp_path / "tram"
    d.mkdir()
    rows = [
        {"text": "uses a proxy", "label": "T1090", "doc_title": "t", "orig_index": 7},
        {"text": "ipconfig", "label": "T1016", "doc_title": "t", "orig_index": 8},
    ]
    pool = [{"text": "relays traffic via a proxy", "label": "T1090", "doc_title": "t", "orig_index": 9}]
    for split, rs in (("train", pool), ("test", rows)):
        (d / f"{split}.jsonl").write_text("\n".join(json.dumps(r) for r in rs) + "\n")
    bundle = json.loads((FIX / "enterprise-attack.json").read_text())
    for o in bundle["objects"]:
        if o.get("name") == "Proxy":
            o["name"] = "Proxy (renamed)"
    (d / "enterprise-attack.json").write_text(json.dumps(bundle))
    recs = load_records("tram", data_root=str(tmp_path))
    assert [(r["id"], r["label"]) for r in recs["test"]] == [("7", "Proxy (renamed)")]


def test_fewshot_twenty_balanced_shots():
    recs = load_records("tram", data_root="embedded")
    shots = recs["fewshot"][:20]
    assert len(shots) == 20 and set(s["label"] for s in shots[:9]) == set(NAMES9)  # one per class first


def test_templates_accept_gold_names_and_reject_garbage():
    assert len(TASKS.templates) >= 5 and TASKS.num_fewshot == 20 and TASKS.family == "classification_macro"
    # the 9 names are stated once, in the instruction, never inside every one of the 20 shots
    assert all("label_list" not in t.doc_to_text and "{{label_list}}" in t.description for t in TASKS.templates)
    assert TASKS.templates[0].description == (
        "Classify the following sentence from a cyber threat report by the "
        "MITRE ATT&CK technique it describes. Possible labels: "
        "{{label_list}}.\n\n"
    )
    doc = {"label_names": NAMES9}
    for tpl in TASKS.templates:  # the same [PARSE] reading in every template
        flt = answer_filter(TASKS, tpl)
        for gold in NAMES9:
            assert flt.read(f" {gold}\nSentence: x", doc) == gold, tpl.id
            assert flt.read(f" {gold}", doc).adherent, tpl.id  # {LABELS} filled from label_names
        assert flt.read(" deobfuscate/decode files or information", doc) == NAMES9[1], tpl.id
        assert flt.read(" Obfuscated Files or Information (T1027)", doc) == NAMES9[0], tpl.id  # issue #8
        assert flt.read(" Technique: Native API.", doc) == "Native API", tpl.id
        assert flt.read(GARBAGE, doc) == M.INVALID, tpl.id
    # t4 asks for "Technique: <label>" (its shots show the bare name): both are its format, only there
    assert [answer_filter(TASKS, t).read(" Technique: Native API", doc).adherent for t in TASKS.templates] == [
        False,
        False,
        False,
        True,
        False,
    ]


def test_macro_f1_averages_over_the_gold_names():
    # 2 items, both correct, of 2 classes: the other 7 labels have no gold support and are not averaged ([MF1],
    # as HELM) -> macro = (1 + 1)/2 = 1 (over all nine it would be 2/9: a perfect model punished by the subset)
    assert M.macro_f1(NAMES9[:2], NAMES9[:2], NAMES9) == pytest.approx(1.0)
    # a third name predicted but absent from gold: item 2's gold name gets a false negative -> (1 + 0)/2
    assert M.macro_f1(NAMES9[:2], [NAMES9[0], NAMES9[2]], NAMES9) == pytest.approx(0.5)
    golds = [NAMES9[i % 9] for i in range(18)]
    assert M.macro_f1(golds, golds, NAMES9) == 1.0
    preds = list(golds)
    preds[0] = M.INVALID  # class 0: TP 1, FN 1 -> F1 2/3; others 1
    assert M.macro_f1(golds, preds, NAMES9) == pytest.approx((8 + 2 / 3) / 9)


def test_end_to_end_tiny_model_on_real_sample(tiny_model_dir):
    d = shared_sample("tram")
    tasks = ["ent_tram__t1", "ent_tram__t5"]
    res = run_hf_model(tiny_model_dir, tasks, d.parent)
    assert_unit_scores(res, tasks, ("macro_f1,answer", "accuracy,answer", "format_failure,answer", "prompt_cut,answer"))
    for t in tasks:
        row = res["results"][t]
        assert 0 <= row["shots_used,answer"] <= 20
    meta = res["configs"]["ent_tram__t1"]["metadata"]
    assert meta["top_k_labels"] == NAMES9 and meta["top_k_technique_ids"] == list(S.SPEC_TOP9)
    assert meta["prompt_budget"]["shots_requested"] == 20
    sample = res["samples"]["ent_tram__t1"][0]
    prompt = sample["arguments"][0][0]
    assert prompt.startswith(
        "Classify the following sentence from a cyber threat report by the MITRE ATT&CK technique "
        "it describes. Possible labels: " + ", ".join(NAMES9) + ".\n\nSentence: "
    )
    first = sample_records("tram")["test"][0]  # the first document of the fair order
    assert prompt.endswith(f"Sentence: {first['text']}\nLabel:")
    assert prompt.count("\nLabel:") == sample["shots_used"] + 1


@pytest.mark.parametrize("bad", ["T1027 ", "", "t1027", "T10270"])
def test_malformed_technique_ids_are_one_line_errors_naming_the_row(tmp_path, bad):
    """Issue 20: an empty, padded or malformed id is refused (it used to be dropped as an other technique)."""
    d = tmp_path / "tram"
    shutil.copytree(FIX, d)
    rows = json.loads((d / "single_label.json").read_text())
    rows[3]["label"] = bad
    (d / "single_label.json").write_text(json.dumps(rows))
    with pytest.raises(DataError, match=rf"single_label.json:item 3: technique id {bad!r} is not an ATT&CK id"):
        SRC.convert(d)
    pre = tmp_path / "pre" / "tram"
    shutil.copytree(shared_sample("tram"), pre)
    lines = (pre / "test.jsonl").read_text().splitlines()
    row = json.loads(lines[0])
    row["label"] = bad
    (pre / "test.jsonl").write_text("\n".join([json.dumps(row), *lines[1:]]) + "\n")
    with pytest.raises(DataError, match=rf"test.jsonl: orig_index {row['orig_index']}: technique id {bad!r}"):
        load_records("tram", data_root=str(tmp_path / "pre"))


def test_ids_unknown_to_the_attack_bundle_are_counted_and_reported(tmp_path, caplog):
    """A well-formed id the bundle does not know (T9999), outside the top 9: kept out as before, but counted and
    logged with its item (documented in the README's deviations)."""
    d = tmp_path / "tram"
    shutil.copytree(FIX, d)
    rows = json.loads((d / "single_label.json").read_text())
    top = set(top_k_labels(Counter(r["label"] for r in rows), 9))
    i = next(i for i, r in enumerate(rows) if r["label"] not in top)
    rows[i]["label"] = "T9999"
    (d / "single_label.json").write_text(json.dumps(rows))
    with caplog.at_level("WARNING"):
        SRC.convert(d)
    assert f"1 rows with a technique id not in the ATT&CK bundle (item {i} 'T9999')" in caplog.text
