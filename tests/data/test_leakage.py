"""[LEAK] few-shot de-duplication (lm_eval_enterprise.data.leakage): unit rules per task type, and the two real quirks —
LegalBench's unfair_tos ships its 9 train clauses inside the test file; TRAM is split by sentence, so one sentence
can sit in train and test — reproduced on hand-made pre-split folders, through load_records and the task metadata."""

import json
import logging
import shutil
from pathlib import Path

import pytest

from conftest import shared_sample
from lm_eval_enterprise.data import get_source, load, load_records
from lm_eval_enterprise.data import leakage as L
from lm_eval_enterprise.scoring import metrics as M


class _Src:
    """The attributes drop_fewshot_duplicates reads from a Source (no template table beside it)."""

    def __init__(self, task_type, eval_split="test", pool="train", id="toy"):
        self.id, self.task_type, self.eval_split, self.fewshot_source_split = id, task_type, eval_split, pool


def _cls(i, text, label="a", **kw):
    return {"id": str(i), "text": text, "label": label, **kw}


# ----------------------------------------------------------------------------------------------- unit rules
def test_byte_identical_eval_items_are_removed_in_order_and_counted(caplog):
    pool = [_cls(0, "Gold rises."), _cls(1, "Gold falls.", "b")]
    test = [
        _cls(10, "Gold rises.", "b"),  # same text, other label: still the same prompt input -> removed
        _cls(11, "gold rises."),  # differs in case: kept (byte-identical only)
        _cls(12, "Gold rises. "),  # trailing space: kept
        _cls(13, "Silver flat."),
        _cls(14, "Gold falls.", "b"),
    ]  # removed
    splits = {"train": pool, "test": test, "valid": [_cls(20, "Gold rises.")]}
    with caplog.at_level(logging.INFO, logger="lm_eval_enterprise.data"):
        out, facts = L.drop_fewshot_duplicates(_Src("classification_weighted"), splits, "/data/toy")
    assert [r["id"] for r in out["test"]] == ["11", "12", "13"]
    assert out["train"] is pool and out["valid"] == splits["valid"]  # other splits untouched
    assert [r["id"] for r in splits["test"]] == ["10", "11", "12", "13", "14"]  # input not modified
    assert facts == {
        "fewshot_dedup_fields": ["text", "target"],
        "eval_rows_before_dedup": 5,
        "eval_fewshot_pool_duplicates": 2,
        "eval_removed_fewshot_duplicates": 2,
    }
    assert [r.getMessage() for r in caplog.records if r.levelname == "WARNING"] == [
        "[toy] /data/toy: removed 2 of 5 'test' records whose prompt input (text+target) also occurs in the few-shot "
        "pool 'train' (metadata eval_removed_fewshot_duplicates)"
    ]


def test_classification_target_is_part_of_the_input():
    # fiqa_sa: the same sentence judged on another aspect is another item
    pool = [_cls(0, "X beats estimates", target="X")]
    test = [_cls(1, "X beats estimates", target="Y"), _cls(2, "X beats estimates", target="X")]
    out, facts = L.drop_fewshot_duplicates(_Src("classification_weighted"), {"train": pool, "test": test})
    assert [r["id"] for r in out["test"]] == ["1"] and facts["eval_removed_fewshot_duplicates"] == 1


def test_multiple_choice_compares_question_and_choices():
    pool = [{"id": "0", "question": "q", "choices": ["a", "b"], "answer": 0}]
    test = [
        {"id": "1", "question": "q", "choices": ["b", "a"], "answer": 1},  # other options: another prompt
        {"id": "2", "question": "q", "choices": ["a", "b"], "answer": 1},
    ]  # same prompt -> removed
    out, _ = L.drop_fewshot_duplicates(_Src("multiple_choice"), {"train": pool, "test": test})
    assert [r["id"] for r in out["test"]] == ["1"]


@pytest.mark.parametrize(
    "task_type,fields",
    [
        ("entity", ["text"]),
        ("kpi", ["text"]),
        ("summarization", ["document"]),
        ("numeric", ["context", "question"]),
        ("multiple_choice", ["question", "choices"]),
    ],
)
def test_compared_fields_per_task_type(task_type, fields):
    _, facts = L.drop_fewshot_duplicates(_Src(task_type, eval_split="valid"), {"train": [], "valid": [{"id": "1"}]})
    assert facts["fewshot_dedup_fields"] == fields
    assert L.prompt_input({"document": "d", "summary": "s"}, ("document",)) == '["d"]'  # the output is not compared


def test_ranking_is_excluded_and_says_why():
    rec = {"qid": "q1", "question": "q", "passage": "p", "label": "Yes"}
    splits = {"train": [rec], "test": [dict(rec)]}
    out, facts = L.drop_fewshot_duplicates(_Src("ranking"), splits)
    assert out is splits and facts == {"fewshot_dedup_fields": None, "fewshot_dedup_note": L.RANKING_EXCLUSION}
    assert "RR@10 needs its full candidate list" in L.RANKING_EXCLUSION


def test_unknown_task_type_or_same_split_is_a_programming_error():
    with pytest.raises(ValueError, match=r"^\[toy\] no prompt-input definition: unknown task family 'tabular'"):
        L.drop_fewshot_duplicates(_Src("tabular"), {"test": []})
    with pytest.raises(ValueError, match="same split 'test'"):
        L.drop_fewshot_duplicates(_Src("classification_weighted", pool="test"), {"test": []})


def test_zero_shot_datasets_count_but_keep_their_eval_split():
    src = get_source("sumo_claims")  # templates.py: num_fewshot=0 (HELM's test set stays whole)
    assert L.configured_shots(src) == 0 and L.configured_shots(get_source("tram")) == 20
    assert L.configured_shots(_Src("classification_weighted")) is None  # no template table beside it: the step applies
    doc = {"id": "1", "document": "same article", "summary": "t"}
    splits = {"train": [doc], "test": [dict(doc, id="2"), {"id": "3", "document": "other", "summary": "u"}]}
    out, facts = L.drop_fewshot_duplicates(src, splits)
    assert out is splits
    assert facts == {
        "fewshot_dedup_fields": ["document"],
        "eval_rows_before_dedup": 2,
        "eval_fewshot_pool_duplicates": 1,
        "eval_removed_fewshot_duplicates": 0,
        "fewshot_dedup_note": L.ZERO_SHOT_NOTE,
    }


# ----------------------------------------------------------------------------------------------- unfair_tos quirk
def _unfair_tos_folder(tmp_path: Path) -> tuple[Path, list[dict]]:
    """The genuine 9 LegalBench train rows + a test file that contains them again (as LegalBench's test file does)
    and 3 synthetic Other clauses."""
    d = tmp_path / "unfair_tos"
    d.mkdir()
    shutil.copy(shared_sample("unfair_tos") / "train.jsonl", d / "train.jsonl")
    train = [json.loads(x) for x in (d / "train.jsonl").read_text().splitlines() if x.strip()]
    extra = [
        {"text": f"we may send you our newsletter number {i} .", "answer": "Other", "index": 100 + i} for i in range(3)
    ]
    test = [{"text": r["text"], "answer": r["answer"], "index": 50 + i} for i, r in enumerate(train)] + extra
    (d / "test.jsonl").write_text("".join(json.dumps(r) + "\n" for r in test))
    return d, train


def test_unfair_tos_train_clauses_inside_the_test_file_are_removed(tmp_path):
    d, train = _unfair_tos_folder(tmp_path)
    assert len(train) == 9 and sorted(r["answer"] for r in train) == sorted(get_source("unfair_tos").labels)
    recs = load_records("unfair_tos", data_root=str(tmp_path))
    assert [r["id"] for r in recs["test"]] == ["test-100", "test-101", "test-102"]  # the 9 repeats are gone
    facts = load._load("unfair_tos", None, str(tmp_path), False)[2]
    assert facts.pop("eval_order")["method"].startswith("stratified by gold label")  # the load's other fact
    assert facts == {
        "fewshot_dedup_fields": ["text", "target"],
        "eval_rows_before_dedup": 12,
        "eval_fewshot_pool_duplicates": 9,
        "eval_removed_fewshot_duplicates": 9,
    }
    # what remains (documented, not fixable by removal): one clause per class, so [BAL] never shows "Other"
    assert "Other" not in {r["label"] for r in recs["fewshot"][:5]}


def test_unfair_tos_facts_reach_the_task_metadata_dict(tmp_path):
    _unfair_tos_folder(tmp_path)
    _, meta = load.load_task_data(dataset_id="unfair_tos", data_root=str(tmp_path))
    assert meta["eval_rows_before_dedup"] == 12 and meta["eval_removed_fewshot_duplicates"] == 9


def test_unfair_tos_always_other_baseline_by_hand():
    # README number: after removing the 9 train clauses (one Other), p = share of Other among the eval clauses;
    # always "Other": P_other = p, R_other = 1 -> F1_other = 2p/(1+p); the 8 other classes score 0, so
    # weighted F1 = p * 2p/(1+p). Small case worked by hand: 9 Other + 1 Arbitration -> 0.9 * 1.8/1.9 = 0.852631...
    labels = list(get_source("unfair_tos").labels)
    assert M.weighted_f1(["Other"] * 9 + ["Arbitration"], ["Other"] * 10, labels) == pytest.approx(0.9 * 1.8 / 1.9)
    golds = ["Other"] * 3454 + ["Arbitration"] * 350  # 3,813 − 9 clauses, 90.6 % Other before the removal
    p = 3454 / 3804
    assert M.weighted_f1(golds, ["Other"] * len(golds), labels) == pytest.approx(p * 2 * p / (1 + p))
    assert round(p * 2 * p / (1 + p), 3) == 0.864


# ----------------------------------------------------------------------------------------------- tram quirk
def test_tram_sentence_in_both_splits_is_removed_case_variant_stays(tmp_path):
    d = tmp_path / "tram"
    d.mkdir()
    report = "APT report (both splits: TRAM is split by sentence, not by report)"
    train = [
        {"text": "cmd /C", "label": "T1059.003", "doc_title": report, "orig_index": 1},
        {"text": "downloads and executes", "label": "T1105", "doc_title": report, "orig_index": 2},
    ]
    test = [
        {"text": "cmd /C", "label": "T1059.003", "doc_title": report, "orig_index": 3},
        {"text": "Downloads and executes", "label": "T1105", "doc_title": report, "orig_index": 4},
        {"text": "injects into explorer.exe", "label": "T1055", "doc_title": report, "orig_index": 5},
    ]
    for split, rows in (("train", train), ("test", test)):
        (d / f"{split}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    recs = load_records("tram", data_root=str(tmp_path))
    assert [r["id"] for r in recs["test"]] == ["4", "5"]  # "cmd /C" removed; the case variant is not byte-identical
    facts = load._load("tram", None, str(tmp_path), False)[2]
    assert (facts["eval_rows_before_dedup"], facts["eval_removed_fewshot_duplicates"]) == (3, 1)


def test_tram_majority_class_baseline_by_hand():
    # README number on the real sample's top-9 test split: 164 sentences, majority class 43, all nine classes with
    # gold support -> macro F1 over the 9 classes = (2 * 43/164 / (1 + 43/164)) / 9 = 0.0461621...
    labels = [f"c{i}" for i in range(9)]
    golds = ["c0"] * 43 + [f"c{1 + i % 8}" for i in range(121)]
    p = 43 / 164
    assert M.macro_f1(golds, ["c0"] * 164, labels) == pytest.approx(2 * p / (1 + p) / 9)
    assert round(2 * p / (1 + p) / 9, 4) == 0.0462


def test_tram_real_sample_has_no_exact_repeat_and_its_majority_baseline():
    root = str(shared_sample("tram").parent)
    recs = load_records("tram", data_root=root)
    assert load._load("tram", None, root, False)[2]["eval_removed_fewshot_duplicates"] == 0  # 100-row pool sample
    golds = [r["label"] for r in recs["test"]]
    assert len(golds) == 164 and golds.count("Obfuscated Files or Information") == 43
    names = recs["test"][0]["label_names"]
    assert M.macro_f1(golds, ["Obfuscated Files or Information"] * 164, names) == pytest.approx(0.0461621, abs=1e-6)


def test_unfair_tos_counts_land_in_the_results_metadata(tmp_path, tiny_model_dir):
    import lm_eval
    from lm_eval.tasks import TaskManager

    from lm_eval_enterprise import TASK_DIR

    _unfair_tos_folder(tmp_path)
    task = "ent_unfair_tos__t1"
    tm = TaskManager(include_path=TASK_DIR, include_defaults=False, metadata={"data_root": str(tmp_path)})
    res = lm_eval.simple_evaluate(
        model="hf",
        model_args=f"pretrained={tiny_model_dir},dtype=float32",
        device="cpu",
        tasks=[task],
        task_manager=tm,
        log_samples=True,
        bootstrap_iters=0,
    )
    meta = res["configs"][task]["metadata"]
    assert (meta["eval_rows_before_dedup"], meta["eval_removed_fewshot_duplicates"]) == (12, 9)
    assert meta["fewshot_dedup_fields"] == ["text", "target"]
    evaluated = [s["doc"]["id"] for s in res["samples"][task]]
    assert evaluated == ["test-100", "test-101", "test-102"]  # no shot clause is evaluated
