"""kpi_edgar: HELM mapping on the JSON source format (fixture), the real sample, errors, [KPIF1], end to end."""

import json

import pytest
from lm_eval_enterprise.tasks.finance.kpi_edgar.source import JSON_NAME, JSON_URL, escape_brackets, sentence_record
from lm_eval_enterprise.tasks.finance.kpi_edgar.templates import TASKS

from conftest import file_ordered, shared_sample
from lm_eval_enterprise.data import DataError, fixture_dir, get_source, load_records
from lm_eval_enterprise.data.fewshot import helm_balanced
from lm_eval_enterprise.scoring import metrics as M
from testkit.testing import assert_unit_scores, run_hf_model

SRC = get_source("kpi_edgar")
FIX = fixture_dir("kpi_edgar")


# ------------------------------------------------------------------------------------------------ loader
def test_source_is_the_pinned_helm_url():
    assert JSON_URL == (
        "https://raw.githubusercontent.com/tobideusser/kpi-edgar/"
        "2ec7084dcd55b4979bbe288d4aa1e962c685c9ab/data/kpi_edgar.json"
    )
    assert [f.name for f in SRC.files] == [JSON_NAME]


def test_convert_fixture_helm_mapping():
    splits = SRC.convert(FIX)
    assert {k: len(v) for k, v in splits.items()} == {"train": 25, "valid": 4, "test": 10}
    first = splits["train"][0]
    assert first["id"] == "NWDG_10-K_0000000001-21-000101.txt:1:0"
    assert first["text"] == "Net sales increased to $ 1,482 million in 2020 from $ 1,305 million in 2019 ."
    # entities_anno order (the 'increase' entity is not a HELM tag and is dropped)
    assert first["target"] == "1,482 [cy], Net sales [kpi], 1,305 [py]"
    assert first["entities"][1] == {"text": "Net sales", "type": "kpi", "start": 0, "end": 2}
    ids = {r["id"] for s in splits.values() for r in s}
    docs = json.loads((FIX / JSON_NAME).read_text())
    sents = [(d["id_"], seg["id_"], s) for d in docs for seg in d["segments"] for s in (seg["sentences"] or [])]
    null_split = [f"{d}:{g}:{s['id_']}" for d, g, s in sents if s["split_type"] is None]
    assert null_split and not ids & set(null_split)  # null split_type skipped
    only_other = [
        f"{d}:{g}:{s['id_']}"
        for d, g, s in sents
        if s["split_type"]
        and s["entities_anno"]
        and all(e["type_"] not in ("kpi", "cy", "py", "py1") for e in s["entities_anno"])
    ]
    assert only_other and not ids & set(only_other)  # only non-HELM entities → sentence dropped
    assert any(seg["sentences"] is None for d in docs for seg in d["segments"])  # segment without sentences
    # square brackets of the text become parentheses (they are the tag markers of the answer format)
    cash = next(r for r in splits["test"] if "Cash and cash" in r["text"])
    assert "( including restricted cash )" in cash["text"] and "[" not in cash["text"]


def test_py1_tag_and_entity_order():
    rec = next(r for r in SRC.convert(FIX)["train"] if r["text"].startswith("Research and development"))
    assert rec["target"] == "212 [cy], Research and development expense [kpi], 176 [py1], 198 [py]"
    assert M.parse_kpi(rec["target"]) == [
        ("212", "cy"),
        ("Research and development expense", "kpi"),
        ("176", "py1"),
        ("198", "py"),
    ]


def test_sentence_record_escaping_and_bad_spans():
    words = ["Revenue", "[", "net", "]", "was", "5"]
    rec = sentence_record(
        "d:0:0",
        words,
        [
            {"type_": "kpi", "start": 0, "end": 4},
            {"type_": "attr", "start": 4, "end": 5},
            {"type_": "cy", "start": 5, "end": 6},
        ],
        "here",
    )
    assert rec["text"] == "Revenue ( net ) was 5" and rec["target"] == "Revenue ( net ) [kpi], 5 [cy]"
    assert sentence_record("d:0:1", words, [{"type_": "attr", "start": 0, "end": 1}], "here") is None
    assert escape_brackets("a[b]c") == "a(b)c"
    with pytest.raises(DataError, match=r"^\[kpi_edgar\] here: entity span \[4, 9\) outside the 6 words$"):
        sentence_record("d:0:2", words, [{"type_": "cy", "start": 4, "end": 9}], "here")


def test_real_sample_presplit_reproduces_helm_text_and_target():
    d = shared_sample("kpi_edgar")
    rows = {s: [json.loads(x) for x in (d / f"{s}.jsonl").open()] for s in ("train", "valid", "test")}
    recs = load_records("kpi_edgar", data_root=str(d.parent))
    assert (len(recs["train"]), len(recs["valid"]), len(recs["test"])) == (100, 100, 217)
    for split in ("train", "valid", "test"):
        ids = [f"{r['doc_name']}:{r['segment_id']}:{r['sentence_id']}" for r in rows[split]]
        ordered = file_ordered(recs[split], ids) if split == "test" else recs[split]  # test: the fair order
        for raw, rec in zip(rows[split], ordered):
            assert rec["text"] == raw["text"] and rec["target"] == raw["target"]
            assert rec["entities"] == [{k: e[k] for k in ("text", "type", "start", "end")} for e in raw["entities"]]
    first = rows["test"][0]
    rec = next(
        r for r in recs["test"] if r["id"] == f"{first['doc_name']}:{first['segment_id']}:{first['sentence_id']}"
    )
    assert rec["target"] == "settlement and legal expenses [kpi], 30 [py]"


def test_fewshot_split_is_helm_balanced_and_deterministic():
    a = load_records("kpi_edgar", data_root="embedded")
    b = load_records("kpi_edgar", data_root="embedded")
    assert [r["id"] for r in a["fewshot"]] == [r["id"] for r in b["fewshot"]]
    expected = helm_balanced(a["train"], lambda r: r["target"], len(a["train"]))
    assert [r["id"] for r in a["fewshot"]] == [r["id"] for r in expected]
    assert len(a["fewshot"]) >= TASKS.num_fewshot == 20


def _write(tmp_path, docs):
    d = tmp_path / "kpi_edgar"
    d.mkdir()
    (d / JSON_NAME).write_text(json.dumps(docs))
    return d


def _doc(n_train, split="train"):
    sents = [
        {
            "id_": i,
            "split_type": split,
            "words": [{"value": "Sales"}, {"value": "were"}, {"value": str(i)}],
            "entities_anno": [{"type_": "kpi", "start": 0, "end": 1}, {"type_": "cy", "start": 2, "end": 3}],
        }
        for i in range(n_train)
    ]
    return {"id_": "X_10-K.txt", "segments": [{"id_": 0, "tag": "text", "sentences": sents}]}


def test_malformed_json_and_unknown_split_name_the_file(tmp_path):
    d = _write(tmp_path, [_doc(2, "dev")])
    with pytest.raises(
        DataError,
        match=r"^\[kpi_edgar\] .*kpi_edgar.json: document X_10-K.txt segment 0 "
        r"sentence 0: unknown split_type 'dev'",
    ):
        SRC.convert(d)
    (d / JSON_NAME).write_text('{"not": "a list"}')
    with pytest.raises(DataError, match=r"^\[kpi_edgar\] .*kpi_edgar.json: expected a JSON list of documents$"):
        SRC.convert(d)
    (d / JSON_NAME).write_text("[{")
    with pytest.raises(DataError, match=r"kpi_edgar.json: not a readable JSON file"):
        SRC.convert(d)


# ------------------------------------------------------------------------------------------------ [KPIF1]
# (metric functions by hand: tests/scoring/test_list_metrics.py; here: the metric on this dataset's real references)
def test_real_references_read_alike_by_both_parsers_and_score_one():
    d = shared_sample("kpi_edgar")
    golds = [json.loads(x)["target"] for s in ("train", "valid", "test") for x in (d / f"{s}.jsonl").open()]
    assert len(golds) == 417
    # every real reference reads the same with IBM's parser and HELM's strict regex, with >= 1 entity
    assert all(M.parse_kpi(g) == M.parse_kpi_helm(g) and M.parse_kpi(g) for g in golds)
    # all four tags occur, so gold as output scores 1.0 on all four metrics (the oracle test's premise)
    assert {t for g in golds for _, t in M.parse_kpi(g)} == set(M.KPI_TAGS)
    assert M.kpi_adjusted_f1(golds, golds) == {m: 1.0 for m in M.KPI_METRICS}


def test_real_reference_with_trailing_period_and_prose():
    # a real test reference, answered with leading prose and a trailing period (IBM reads both entities; HELM's
    # strict regex loses the last one, so the *_helm metrics drop while the primary keeps its value)
    d = shared_sample("kpi_edgar")
    gold = json.loads((d / "test.jsonl").open().readline())["target"]
    assert gold == "settlement and legal expenses [kpi], 30 [py]"
    pred = "The KPIs are: settlement and legal expenses [kpi], 30 [py]."
    # IBM: kpi Wp {The, KPIs, are:, settlement, and, legal, expenses} vs Wg {settlement, and, legal, expenses}
    #      → (O 4, P 7, G 4): r = 1, q = 3/7 → 2/(2 + 3/7) = 14/17; py (1, 1, 1) → 1; cy, py1 G = 0 → 0
    #      adjusted = (14/17 + 1)/4 = 31/68;  word: kpi 8/11, py 1 → (8/11 + 1)/4 = 19/44
    # HELM: "30 [py]." is not read → py (0, 0, 1); kpi the same (4, 7, 4)
    #      adjusted (tp = O/P = 4/7, fn = 3/7, fp = 0) → (8/7)/(8/7 + 3/7) = 8/11 → (8/11)/4 = 2/11
    #      word: kpi 8/11, py 0 → 2/11
    out = M.kpi_adjusted_f1([gold], [pred])
    assert out == {
        "adjusted_macro_f1": pytest.approx(31 / 68),
        "word_macro_f1": pytest.approx(19 / 44),
        "adjusted_macro_f1_helm": pytest.approx(2 / 11),
        "word_macro_f1_helm": pytest.approx(2 / 11),
    }


# ------------------------------------------------------------------------------------------------ templates
def test_templates_accept_the_gold_and_reject_garbage():
    from lm_eval_enterprise.prompting.templating import answer_filter
    from testkit.testing import GARBAGE

    assert len(TASKS.templates) >= 5
    gold = "30 [py], settlement and legal expenses [kpi]"
    for tpl in TASKS.templates:  # [PARSE]: the KPI parser decides, the same in every template
        flt = answer_filter(TASKS, tpl)
        assert flt.read(" " + gold + "\nContext: next", {}) == gold, tpl.id
        assert flt.read(" " + gold, {}).adherent, tpl.id
        assert flt.read(GARBAGE, {}) == M.INVALID, tpl.id
    # t1: HELM's wording, its task text stated once as the instruction instead of inside every one of 20 shots
    t1 = TASKS.templates[0]
    assert t1.doc_to_text == "Context: {{text}}\nAnswer:"
    assert t1.description.startswith(
        "Task: Extract key performance indicators (KPIs) and values from each context "
        "below. Also, specify one of the following categories"
    )
    assert t1.description.endswith("py1: Two Year Past Value.\n\n")


# ------------------------------------------------------------------------------------------------ end to end
def test_end_to_end_tiny_model_on_real_sample(tiny_model_dir):
    d = shared_sample("kpi_edgar")
    res = run_hf_model(
        tiny_model_dir, ["ent_kpi_edgar__t1", "ent_kpi_edgar__t2"], d.parent, gen_kwargs="max_gen_toks=8"
    )
    for task in ("ent_kpi_edgar__t1", "ent_kpi_edgar__t2"):
        keys = ("adjusted_macro_f1", "word_macro_f1", "adjusted_macro_f1_helm", "format_failure", "prompt_cut")
        assert_unit_scores(res, [task], tuple(f"{m},answer" for m in keys))
        row = res["results"][task]
        budget = res["configs"][task]["metadata"]["prompt_budget"]
        assert budget["prompts"] == 2 and (budget["max_context_tokens"], budget["source"]) == (4096, "default")
        # HELM's task text is stated once (not in every shot): the 20 real shots fit the default 4,096 tokens
        assert row["shots_used,answer"] == 20
