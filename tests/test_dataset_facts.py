"""scripts/dataset_facts.py (issue #7 item 8): leakage, near-duplicates, gold distribution and the constant predictor,
on the embedded fixtures, on a folder reproducing unfair_tos' leak, and on real samples; and every dataset README
reports them."""

import importlib.util
import json
import shutil
import sys
from pathlib import Path

import pytest
from test_oracle import _gold_positions, _tie_rule_scores

from conftest import shared_sample
from lm_eval_enterprise.data import EMBEDDED, load_records, registry
from lm_eval_enterprise.data.tasktree import dataset_dir

REPO = Path(__file__).resolve().parents[1]
SECTION = "## Leakage, imbalance and a constant predictor"


def _script():
    spec = importlib.util.spec_from_file_location("dataset_facts", REPO / "scripts" / "dataset_facts.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up by name
    spec.loader.exec_module(mod)
    return mod


F = _script()


def test_constant_classification_by_hand():
    # 3 positive, 1 negative: always 'positive' → weighted F1 = p·2p/(1+p) = 0.75·1.5/1.75 = 9/14;
    # macro = (2p/(1+p))/2 = 3/7; binary F1 of 'negative' as positive class: always 'negative' → 2·1/(4+1) = 0.4
    golds = ["positive", "positive", "positive", "negative"]
    labels = ["positive", "negative"]
    assert F.constant_classification(golds, labels, "weighted_f1", None) == (
        "positive",
        pytest.approx(9 / 14),
        pytest.approx(9 / 14),
    )
    assert F.constant_classification(golds, labels, "macro_f1", None)[1:] == (
        pytest.approx(3 / 7),
        pytest.approx(3 / 7),
    )
    # the best constant for binary F1 is the positive class even when it is the minority (no majority cross-check)
    assert F.constant_classification(golds, labels, "binary_f1", "negative") == ("negative", pytest.approx(0.4), None)
    assert F.constant_classification(golds, labels, "accuracy", None)[1:] == (0.75, 0.75)


def test_near_duplicates_by_hand():
    pool = [{"text": "The fee is $5."}, {"text": "Other clause"}]
    ev = [{"text": "the FEE is 5"}, {"text": "new clause"}, {"text": "New   clause!"}, {"text": "unrelated"}]
    # "the FEE is 5" = pool[0] after [NORM] ("the fee is 5"); "New   clause!" repeats "new clause"
    assert F.near_duplicates(ev, pool, ("text",)) == (1, 1)


@pytest.fixture(scope="module")
def fixture_facts():
    return {f.name: f for f in F.collect(fixtures=True)}


def test_every_dataset_and_subtask_is_measured_on_the_fixtures(fixture_facts):
    names = {f"gold_news/{s}" for s in F.get_source("gold_news").subtasks} | (set(registry()) - {"gold_news"})
    assert set(fixture_facts) == names
    for f in fixture_facts.values():
        assert f.data == "fixture (synthetic)" and f.eval_rows and f.constant_score is not None, f.name
        if f.cross_check is not None:
            assert f.constant_score == pytest.approx(f.cross_check, abs=1e-12), f.name


def test_fixture_values_by_hand(fixture_facts):
    ec = fixture_facts["earnings_call"]  # 6 negative, 3 positive: p = 2/3 → weighted F1 (2/3)·(4/3)/(5/3) = 8/15
    assert ec.distribution == {"negative": 6, "positive": 3} and ec.constant == "always 'negative'"
    assert ec.constant_score == pytest.approx(8 / 15) and ec.largest_share == pytest.approx(2 / 3)
    iot = fixture_facts["iotspotter"]  # 4 iot of 9, always 'iot': binary F1 = 2·4/(9 + 4) = 8/13
    assert iot.distribution == {"non-iot": 5, "iot": 4} and iot.constant_score == pytest.approx(8 / 13)
    cm = fixture_facts["cti_to_mitre"]  # letters D 3 of 9 the most frequent: always 'D' → 1/3
    assert cm.constant == "always 'D'" and cm.constant_score == pytest.approx(1 / 3)
    for ds in ("credit_risk_ner", "finer139", "kpi_edgar"):
        assert fixture_facts[ds].constant_score == 0.0 and "by definition" in fixture_facts[ds].note
    assert fixture_facts["convfinqa"].constant_score == 0.0


def test_constant_ranking_follows_the_oracle_tie_rule(fixture_facts):
    # fiqa_qa fixture: first relevant positions 1, 6, 14 (tests/test_oracle.py) → RR@10 = (1 + 1/6 + 0)/3 = 7/18
    assert fixture_facts["fiqa_qa"].constant_score == pytest.approx(7 / 18)
    for ds in ("fiqa_qa", "insurance_qa"):
        docs = load_records(ds, data_root=EMBEDDED)["test"]
        assert fixture_facts[ds].constant_score == pytest.approx(
            _tie_rule_scores(_gold_positions(docs))["rr_at_10"], abs=1e-12
        )


def test_summarization_constant_is_the_lead3_rouge(fixture_facts):
    from lm_eval_enterprise.scoring.chance import lead_sentences
    from lm_eval_enterprise.scoring.metrics import rouge

    recs = load_records("legal_summarization", data_root=EMBEDDED)["test"]
    expected = sum(rouge(r["summary"], lead_sentences(r["document"], 3))["rouge_l"] for r in recs) / len(recs)
    assert fixture_facts["legal_summarization"].constant_score == pytest.approx(expected)


def test_leak_and_near_duplicates_on_the_unfair_tos_quirk(tmp_path):
    """The genuine 9 LegalBench train clauses, and a test file that repeats them (as LegalBench's does), plus one
    clause equal to a train clause up to case/punctuation, three Other clauses and a repeat of one of them."""
    d = tmp_path / "unfair_tos"
    d.mkdir()
    shutil.copy(shared_sample("unfair_tos") / "train.jsonl", d / "train.jsonl")
    train = [json.loads(x) for x in (d / "train.jsonl").read_text().splitlines() if x.strip()]
    arb = next(r for r in train if r["answer"] == "Arbitration")
    test = [{"text": r["text"], "answer": r["answer"], "index": 50 + i} for i, r in enumerate(train)]
    test.append({"text": arb["text"].upper() + " !", "answer": "Arbitration", "index": 80})
    test += [
        {"text": f"we may send you our newsletter number {i} .", "answer": "Other", "index": 100 + i} for i in range(3)
    ]
    test.append({"text": "We may send you our newsletter   number 0", "answer": "Other", "index": 200})
    (d / "test.jsonl").write_text("".join(json.dumps(r) + "\n" for r in test))
    f = F.measure("unfair_tos", None, str(tmp_path))
    assert (f.eval_rows, f.pool_rows, f.leak_found, f.leak_removed) == (5, 9, 9, 9)
    assert (f.near_dup_pool, f.near_dup_eval) == (1, 1)
    assert f.distribution["Other"] == 4 and f.distribution["Arbitration"] == 1 and sum(f.distribution.values()) == 5
    # always 'Other': p = 4/5 → weighted F1 = 0.8·1.6/1.8 = 32/45
    assert f.constant == "always 'Other'" and f.constant_score == pytest.approx(32 / 45)
    assert f.cross_check == pytest.approx(32 / 45)


def test_real_samples_by_hand():
    root = str(shared_sample("securenlp").parent)
    sec = F.measure("securenlp", None, root, "real sample")
    # 300 test_1 sentences drawn; 36 carry a non-O tag (counted in the file) → relevant; binary F1 of always
    # 'relevant' = 2·36/(300 + 36) = 3/14
    assert sec.distribution == {"irrelevant": 264, "relevant": 36} and sec.eval_rows == 300
    assert sec.constant == "always 'relevant'" and sec.constant_score == pytest.approx(3 / 14)
    iot = F.measure("iotspotter", None, root, "real sample")
    # the 300 drawn test rows are 184 non-iot / 116 iot; one non-iot row repeats a pool row and is removed ([LEAK])
    assert (iot.leak_found, iot.leak_removed, iot.eval_rows) == (1, 1, 299)
    assert iot.distribution == {"non-iot": 183, "iot": 116}
    assert iot.constant_score == pytest.approx(2 * 116 / (299 + 116))


def test_a_folder_without_its_pool_file_is_measured_with_an_empty_pool():
    """The genuine squad sample holds dev-v1.1.json alone (zero-shot): measured, with 0 pool rows; 5 of its 289
    questions repeat an earlier (context, question) pair after [NORM] (README of squad)."""
    f = F.measure("squad", None, str(shared_sample("squad").parent), "real sample")
    assert (f.eval_rows, f.pool_rows, f.leak_found, f.near_dup_pool, f.near_dup_eval) == (289, 0, 0, 0, 5)
    assert f.constant == "an empty answer" and f.constant_score == 0.0


def test_missing_data_is_reported_not_skipped(tmp_path):
    rows = F.collect(["fiqa_sa"], data_root=str(tmp_path))
    assert [(r.name, r.data, r.metric) for r in rows] == [("fiqa_sa", F.NO_DATA, "weighted_f1")]
    assert "no genuine file available here" in F.markdown(rows)


@pytest.mark.parametrize("dataset", sorted(registry()))
def test_every_readme_has_the_section(dataset):
    text = (dataset_dir(dataset) / "README.md").read_text()
    assert text.count(SECTION) == 1, dataset
    body = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    assert "constant" in body.lower() and ("real sample" in body or "NOT measured on genuine files" in body), dataset


def test_command_line(capsys):
    assert F.main(["--fixtures", "--dataset", "earnings_call"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("| dataset | data |") and len(out) == 3
    assert out[2].startswith("| earnings_call | fixture (synthetic) | test | 9 |") and "| 0.5333 |" in out[2]
    with pytest.raises(SystemExit) as exc:
        F.main(["--dataset", "nope"])
    assert exc.value.code == 2
