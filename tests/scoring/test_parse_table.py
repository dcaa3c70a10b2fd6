"""[PARSE] table: for every template of every generate dataset, natural completions and what each must read as —
the SAME expectations for all templates of a dataset (template scores may differ by wording only, never by
parser leniency). The answer filter is built exactly as the template's YAML configures it
(``templating.answer_filter``); documents are the first test record of the embedded fixture.

Label datasets (classification, multiple choice, generated yes/no ranking) with gold label L and a wrong label W:
L plain / quoted / bold / parenthesised / in code / upper-case, with an echo of the template's own output field,
after a generic lead-in, with a trailing explanation, run past the stop sequence; W; ``not L`` and garbage
(failures); plus the misreads of issue #8 (``Answer: E``, ``**E**``, ``The answer is E.``, ``not positive``,
``Obfuscated Files or Information (T1027)``). NER / KPI: the metric's parser decides (``No entities``, ``None``,
a trailing period). Every template's own format accepts the bare gold answer and rejects garbage.
"""

from pathlib import Path

import pytest

from lm_eval_enterprise import TASK_DIR, families
from lm_eval_enterprise.data import load_records
from lm_eval_enterprise.prompting.templating import all_specs, answer_filter, output_field
from lm_eval_enterprise.scoring import metrics as M
from testkit.testing import GARBAGE

INVALID = M.INVALID
SPECS = {s.table_id: s for _, s in all_specs(Path(TASK_DIR)) if s.output_type == "generate_until"}
CASES = [(name, t.id) for name, s in SPECS.items() for t in s.templates]


def _doc(spec) -> dict:
    return load_records(spec.dataset, data_root="embedded")[spec.test_split][0]


def _gold(spec, doc) -> str:
    if spec.family == "multiple_choice":
        return doc["answer_letter"]
    return doc["answer_text"] if spec.family == "choice_text" else doc["label"]


def _field(spec, tpl) -> str:
    """The template's own output field; a FLAN pattern has none: the first lead-in its table declares."""
    return spec.lead_ins[0] if spec.lead_ins else output_field(tpl)


def _japanese_rows(spec, gold: str) -> list[tuple[str, str]]:
    """[PARSE-JA] rows of a Japanese table: Japanese lead-ins, 「」, a copula after the answer."""
    return [
        (f" 答え：{gold}", gold),
        (f"答え: {gold}", gold),
        (f"答えは{gold}です。", gold),
        (f"「{gold}」", gold) if spec.family != "extractive_qa_chars" else (f"「{gold}」", f"「{gold}」"),
        (f" {gold}です。", gold),
        (f"**{gold}**です", gold),
    ]


def label_table(spec, doc, field: str) -> list[tuple[str, str]]:
    """(completion, reading) rows of a label dataset. ``field`` = the template's own output field; every other
    row is the same for all templates."""
    gold = _gold(spec, doc)
    wrong = next(lab for lab in doc["label_names"] if lab != gold)
    rows = [
        (f" {gold}", gold),
        (f' "{gold}"', gold),
        (f" '{gold}'", gold),
        (f" **{gold}**", gold),
        (f" *{gold}*", gold),
        (f" ({gold})", gold),
        (f" `{gold}`", gold),
        (f" {gold.upper()}", gold),
        (f" {gold}.", gold),
        (f" {field}: {gold}", gold),  # echo of the template's own field
        (f" Answer: {gold}", gold),
        (f" The answer is {gold}.", gold),
        (f" Answer: **{gold}**", gold),
        (f" {gold}, because the text says so.", gold),  # trailing explanation
        (f" {gold}\n{wrong}", gold),  # cut at the stop sequence first
        (f" {wrong}", wrong),
        (f" Answer: {wrong}", wrong),
        (" maybe", INVALID),
        (GARBAGE, INVALID),
        ("", INVALID),
    ]
    if f"not {gold}".lower() not in {lab.lower() for lab in doc["label_names"]}:  # spec5g_cls has one
        rows.append((f" not {gold}", INVALID))
    if spec.language == "ja":
        rows += _japanese_rows(spec, gold)
        rows += {"jnli": [(" 含意しない", INVALID), (" 矛盾だとは言えない", INVALID)]}.get(spec.table_id, [])
    if spec.family == "choice_text":  # the option's letter or number reads as its text
        letter = doc["answer_letter"]
        rows += [(f" {letter}", gold), (f" {letter}) {gold}", gold), (f" {'ABCDE'.index(letter) + 1}", gold)]
    if spec.family == "multiple_choice":  # issue #8: read as A by the old rule
        rows += [
            (" Answer: E", "E"),
            (" **E**", "E"),
            (" The answer is E.", "E"),
            (" E)", "E"),
            (" e", "E"),
            (" Because", INVALID),
        ]
    extra = {
        "reddit_climate": [(" not positive", INVALID), (" Positive sentiment", "positive")],
        "earnings_call": [(" not positive", INVALID)],
        "fiqa_sa": [(" not positive", INVALID), (" Neutral.", "neutral")],
        "legal_sentiment": [(" not positive", INVALID), (" Negative.", "negative")],
        "securenlp": [(" irrelevant", "irrelevant"), (" Relevant.", "relevant"), (" Irrelevant: it is", "irrelevant")],
        "iotspotter": [(" non-iot", "non-iot"), (" Non-IoT.", "non-iot"), (" IoT app", "iot")],
        "spec5g_cls": [(" not security related", "not security related"), (" Security related.", "security related")],
        "tram": [
            (" Obfuscated Files or Information (T1027)", "Obfuscated Files or Information"),
            (" Technique: Process Injection", "Process Injection"),
            (
                " command and scripting interpreter: windows command shell",
                "Command and Scripting Interpreter: Windows Command Shell",
            ),
        ],
        "unfair_tos": [(" other", "Other"), (" Limitation of liability.", "Limitation of liability")],
        "gold_news": [(" yes.", "Yes"), (" No, it does not", "No")],
        "echr_judgment": [(" yes.", "Yes"), (" No, it does not", "No")],
        "fiqa_qa_gen": [(" yes.", "Yes"), (" No, it does not", "No")],
        "insurance_qa_gen": [(" yes.", "Yes"), (" No, it does not", "No")],
    }
    return rows + extra.get(spec.table_id, [])


def _entities(spec, doc, text):
    return M.parse_entities(text, M.entity_type_table(doc["entity_types"]))


@pytest.mark.parametrize("table_id, tid", CASES, ids=[f"{d}-{t}" for d, t in CASES])
def test_reading_table(table_id, tid):
    spec = SPECS[table_id]
    tpl = next(t for t in spec.templates if t.id == tid)
    assert_reading_table(spec, tpl, answer_filter(spec, tpl), _doc(spec))


def assert_reading_table(spec, tpl, flt, doc) -> None:
    """The reading table of one template (its filter ``flt``) on one document; also used for the template
    populations (tests/test_population.py)."""
    tid = tpl.id
    reader = families.get(spec.family).reader
    if reader == "label":
        rows = label_table(spec, doc, _field(spec, tpl))
        got = [(c, str(flt.read(c, doc))) for c, _ in rows]
        assert got == rows
        gold = _gold(spec, doc)
        assert flt.read(f" {gold}", doc).adherent, f"{tid}: the bare gold answer is not in the format it asks for"
    elif reader == "entity":
        gold = doc["target"]
        table = [
            (f" {gold}", gold),
            (f" {gold}\nSentence: next", gold),
            (" None", "None"),
            (" No entities", "No entities"),
            (" none.", "none."),
            (" Acme Corp", INVALID),
            (GARBAGE, INVALID),
            ("", INVALID),
        ]
        assert [(c, str(flt.read(c, doc))) for c, _ in table] == table
        assert _entities(spec, doc, "No entities") == [] and _entities(spec, doc, "None") == []
        assert flt.read(f" {gold}", doc).adherent and not flt.read(GARBAGE, doc).adherent
    elif reader == "kpi":
        gold = doc["target"]
        table = [
            (f" {gold}", gold),
            (f" {gold}\nContext: next", gold),
            (f" {gold}.", f"{gold}."),
            (GARBAGE, INVALID),
            ("", INVALID),
        ]
        assert [(c, str(flt.read(c, doc))) for c, _ in table] == table
        assert flt.read(f" {gold}", doc).adherent and not flt.read(GARBAGE, doc).adherent
    elif reader == "number":
        table = [
            (f" {doc['answer']}", doc["answer"]),
            (" The answer is 5.0", "The answer is 5.0"),
            (" 5.0\n7", "5.0"),
            (" yes", "yes"),
            (" unknown", INVALID),
            (GARBAGE, INVALID),
        ]
        assert [(c, str(flt.read(c, doc))) for c, _ in table] == table
        assert not flt.read(GARBAGE, doc).adherent
    elif reader in ("score", "span"):
        gold = doc["target"]
        field = _field(spec, tpl)
        table = [
            (f" {gold}", gold),
            (f" {gold}\n{field}: 0", gold),
            (f" {field}: {gold}", gold),
            (f" Answer: {gold}", gold),
            (f" **{gold}**", gold),
            (GARBAGE, INVALID),
            ("", INVALID),
        ]
        if reader == "score":
            table += [(f" {gold} out of 5", gold), (f" Similarity: {gold}/5", gold), (" maybe", INVALID)]
        else:
            table += [(f" The answer is {gold}", gold)]
        if spec.language == "ja":
            table += _japanese_rows(spec, gold)
            table += [(f"{gold}点", gold), ("五点満点中" + gold + "点", gold)] if reader == "score" else []
        assert [(c, str(flt.read(c, doc))) for c, _ in table] == table
        assert flt.read(f" {gold}", doc).adherent and not flt.read(GARBAGE, doc).adherent
    else:
        gold = doc["summary"].split("\n")[0]
        table = [(f" {gold}", gold), (" ...", INVALID), (GARBAGE, INVALID)]
        assert [(c, str(flt.read(c, doc))) for c, _ in table] == table
        assert flt.read(f" {gold}", doc).adherent and not flt.read(GARBAGE, doc).adherent


@pytest.mark.parametrize("table_id", sorted(SPECS))
def test_one_reading_rule_per_dataset(table_id):
    """Every template of a dataset is configured with the same reader, lead-ins, aliases and stop sequence:
    only its format regex differs."""
    spec = SPECS[table_id]
    configs = {
        (f.reader, f.lead_ins, tuple(sorted(f.aliases.items())), f.stop)
        for f in (answer_filter(spec, t) for t in spec.templates)
    }
    assert len(configs) == 1, configs


@pytest.mark.parametrize("table_id", [t for t, s in SPECS.items() if s.family == "entity"])
def test_ner_trailing_period_keeps_the_last_entity(table_id):
    spec = SPECS[table_id]
    doc = _doc(spec)
    for tpl in spec.templates:
        pred = answer_filter(spec, tpl).read(f" {doc['target']}.", doc)
        assert pred != INVALID
        assert _entities(spec, doc, pred) == _entities(spec, doc, doc["target"])


def test_helm_rule_is_reported_exactly_for_the_helm_prompts():
    """``<primary>_helm`` on every classification / multiple-choice template that is HELM's own prompt — and
    nowhere else (kpi_edgar reports its HELM orientation for every template; ranking, numeric QA and
    summarization have no separate HELM reading)."""
    from lm_eval.tasks._yaml_loader import load_yaml

    got = {}
    for path in sorted(Path(TASK_DIR).glob("*/*/*__t*.yaml")):
        meta = load_yaml(path, resolve_func=False, recursive=False)["metadata"]
        if "helm_metrics" in meta:
            got[path.stem] = meta["helm_metrics"]
    expected = {"ent_gold_news__t1": ["weighted_f1_helm"]}  # one task asks all nine questions
    expected.update(
        {
            "ent_legal_sentiment__t1": ["weighted_f1_helm"],
            "ent_echr_judgment__t1": ["weighted_f1_helm"],
            "ent_casehold__t1": ["accuracy_helm"],
            "ent_cti_to_mitre__t1": ["accuracy_helm"],
        }
    )
    assert got == expected


def test_kpi_unreadable_is_a_format_failure_in_every_template():
    spec = SPECS["kpi_edgar"]
    doc = _doc(spec)
    for tpl in spec.templates:
        flt = answer_filter(spec, tpl)
        assert flt.read(" revenue grew", doc) == INVALID and flt.read(" None", doc) == "None"
