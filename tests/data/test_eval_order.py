"""The seeded fair order of every evaluation split (lm_eval_enterprise/data/order.py; docs/data.md#evaluation-order):
every prefix is a fair sample for ``--limit``, the set of documents and the shots are unchanged, the sparse planner
plans over the same order, a limited run lacking gold classes says so once, and macro F1 averages over the gold
classes present (so the gold answers score 1.0 on any prefix)."""

import json
import logging
import math
import random
import shutil
from collections import Counter

import pytest

from conftest import shared_sample
from lm_eval_enterprise.data import clear_caches, fixture_dir, get_source, load_records
from lm_eval_enterprise.data.fewshot import helm_balanced
from lm_eval_enterprise.data.folder import convert_folder
from lm_eval_enterprise.data.order import (
    EVAL_ORDER_SEED,
    SHUFFLED,
    STRATIFIED,
    fair_order,
    interleave,
    missing_classes,
)
from lm_eval_enterprise.harness.cellplan import plan_for_tasks
from lm_eval_enterprise.harness.runner import evaluate, load_tasks, make_task_manager
from lm_eval_enterprise.scoring import hooks
from testkit.testing import OracleLM


@pytest.fixture(autouse=True)
def _fresh_caches():
    clear_caches()
    yield
    clear_caches()


# ------------------------------------------------------------------------------------------------ the order itself
def _max_deviation(labels: list, sizes: Counter) -> float:
    n, taken, worst = len(labels), Counter(), 0.0
    for i, label in enumerate(labels, start=1):
        taken[label] += 1
        worst = max(worst, max(abs(taken[c] - i * sizes[c] / n) for c in sizes))
    return worst


def test_interleave_keeps_every_prefix_within_one_of_each_share():
    rng = random.Random(7)
    for _ in range(400):
        sizes = Counter({c: rng.randint(1, rng.choice([3, 40, 400])) for c in range(rng.randint(1, 10))})
        order = interleave({c: [c] * k for c, k in sizes.items()})
        assert Counter(order) == sizes
        assert _max_deviation(order, sizes) < 1


def test_interleave_by_hand():
    # a: 3 units, b: 1 (n = 4). i = 1: a eligible (0 < 3/4), b eligible (0 < 1/4); deadlines a 4/3, b 4 → a.
    # i = 2: a (1·4 < 2·3) deadline 8/3, b deadline 4 → a. i = 3: a (2·4 < 9) deadline 4, b deadline 4 → tie: the
    # larger stratum, a. i = 4: only b is left.
    assert interleave({"a": ["a1", "a2", "a3"], "b": ["b1"]}) == ["a1", "a2", "a3", "b1"]
    # 2 + 2: a, b, a, b (ties at i = 1 go to the label order)
    assert interleave({"b": ["b1", "b2"], "a": ["a1", "a2"]}) == ["a1", "b1", "a2", "b2"]


def test_fair_order_of_a_label_sorted_file_is_stratified_and_seeded():
    records = [{"id": str(i), "label": "x" if i < 90 else "y"} for i in range(100)]  # the 10 "y" all at the end
    ordered, method = fair_order(records, stratum=lambda r: r["label"])
    assert method == STRATIFIED
    assert sorted(r["id"] for r in ordered) == sorted(r["id"] for r in records)  # the same records, each once
    labels = [r["label"] for r in ordered]
    assert _max_deviation(labels, Counter(labels)) < 1
    assert "y" in labels[:10]  # n / n_y = 10: every prefix of 10 holds a "y"
    assert fair_order(records, stratum=lambda r: r["label"]) == (ordered, method)  # deterministic
    other, _ = fair_order(records, stratum=lambda r: r["label"], seed=EVAL_ORDER_SEED + 1)
    assert other != ordered  # the seed matters


def test_fair_order_shuffles_without_a_label_and_keeps_queries_whole():
    records = [{"qid": q, "cand_index": c} for q in ("q1", "q2", "q3", "q4", "q5", "q6") for c in range(3)]
    ordered, method = fair_order(records, stratum=lambda r: None, group=lambda r: r["qid"])
    assert method == SHUFFLED
    assert sorted(map(str, ordered), key=str) == sorted(map(str, records), key=str)
    qids = [r["qid"] for r in ordered]
    assert [qids[i] for i in range(0, 18, 3)] != ["q1", "q2", "q3", "q4", "q5", "q6"]  # queries reordered
    for start in range(0, 18, 3):  # each query's candidates together, in their own order
        block = ordered[start : start + 3]
        assert len({r["qid"] for r in block}) == 1
        assert [r["cand_index"] for r in block] == [0, 1, 2]


def test_missing_classes():
    assert missing_classes([{"label": "a"}, {"label": "c"}], ["a", "b", "c", "d"]) == ["b", "d"]


# ------------------------------------------------------------------------------------------------ in the data layer
@pytest.mark.parametrize("dataset", ["tram", "iotspotter", "fiqa_qa", "kpi_edgar"])
def test_data_layer_orders_only_the_evaluated_split(dataset):
    src = get_source(dataset)
    converted, report = convert_folder(src, fixture_dir(dataset))
    recs = load_records(dataset, data_root="embedded")
    selected = src.select(converted, None)  # ranking: the (query, candidate) documents
    file_order = [src.finalize(r) for r in selected[report.eval_split]]
    expected, _ = fair_order(file_order, stratum=src.eval_stratum, group=src.eval_group)
    assert recs[report.eval_split] == expected  # the documented order (and the same set of documents)
    # the few-shot pool: [BAL] over the pool split in its own order, as before
    pool = [src.finalize(r) for r in selected[src.fewshot_source_split]]
    assert recs["fewshot"] == [
        src.fewshot_transform(r) for r in helm_balanced(pool, src.fewshot_key, min(len(pool), 256))
    ]


def test_gold_news_questions_share_one_headline_order():
    """The nine questions are asked about the same headlines and the dataset row pairs them by headline: one seeded
    shuffle of the headlines, the same for every question (no per-question stratification)."""
    src = get_source("gold_news")
    orders = {q: [r["id"] for r in load_records("gold_news", q, data_root="embedded")["test"]] for q in src.subtasks}
    first = next(iter(orders.values()))
    assert all(o == first for o in orders.values())
    converted, _ = convert_folder(src, fixture_dir("gold_news"))
    assert first != [r["id"] for r in converted["test"]] and sorted(first) == sorted(r["id"] for r in converted["test"])
    tm = make_task_manager(data_root="embedded")
    task = load_tasks(tm, ["ent_gold_news__t1"]).leaves["ent_gold_news__t1"]  # one task asks every question
    assert task.config.metadata["eval_order"] == {"seed": EVAL_ORDER_SEED, "method": SHUFFLED, "unit": "headline"}


# ------------------------------------------------------------------------------------------------ end to end
def _label_sorted_iotspotter(tmp_path):
    """The iotspotter fixture with its test file sorted by label, non-IoT first (as IoTSpotter's genuine test file
    holds its IoT apps at the end)."""
    d = tmp_path / "iotspotter"
    shutil.copytree(fixture_dir("iotspotter"), d)
    rows = [json.loads(line) for line in (d / "test_set.txt").read_text().splitlines() if line.strip()]
    rows.sort(key=lambda r: r["label"])  # "0" (non-IoT) first
    (d / "test_set.txt").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return d, rows


def test_label_sorted_test_file_gives_every_class_within_the_limit(tmp_path):
    d, rows = _label_sorted_iotspotter(tmp_path)
    counts = Counter(r["label"] for r in rows)  # 5 non-IoT, 4 IoT
    limit = math.ceil(len(rows) / min(counts.values()))  # 3: a prefix that must hold every class in proportion
    assert {r["label"] for r in rows[:limit]} == {"0"}  # file order: one class only
    tm = make_task_manager(data_root=str(tmp_path))
    tasks = load_tasks(tm, ["ent_iotspotter"])
    res = evaluate(OracleLM(tasks.leaves), tasks.top, task_manager=tm, log_samples=True, limit=limit)
    for name in tasks.leaves:
        docs = [s["doc"] for s in res["samples"][name]]
        assert len(docs) == limit
        assert {doc["label"] for doc in docs} == {"iot", "non-iot"}, name
        meta = res["configs"][name]["metadata"]
        assert meta["eval_order"] == {"seed": EVAL_ORDER_SEED, "method": STRATIFIED, "unit": "document"}
        assert "eval_subset" not in meta  # no class is missing
        assert res["results"][name][f"{meta['primary_metric']},answer"] == pytest.approx(1.0), name


def test_sparse_planner_plans_over_the_fair_order(tmp_path):
    tm = make_task_manager(data_root="embedded")
    tasks = load_tasks(tm, ["ent_fiqa_qa", "ent_tram"])
    for name, task in tasks.leaves.items():
        dataset = task.config.metadata["dataset"]
        src = get_source(dataset)
        ids = [d.get("qid", d.get("id")) for d in task.eval_docs]
        recs = load_records(dataset, data_root="embedded")["test"]
        assert ids == [r.get("qid", r.get("id")) for r in recs], name  # lm-eval's documents: the fair order
        assert task.config.metadata["eval_order"]["unit"] == ("query" if src.task_type == "ranking" else "document")
    limit = 20  # fiqa_qa: one query of 20 candidates; tram: the first 20 sentences of the fair order
    plan = plan_for_tasks(tasks.leaves, 1.0, seed=0, limit=limit)
    for name, docs in plan.samples.items():
        assert docs == list(range(min(limit, len(tasks.leaves[name].eval_docs)))), name


# ------------------------------------------------------------------------------------------------ real samples
def test_tram_gold_answers_score_one_at_limit_8_and_the_missing_class_is_said_once(caplog):
    data_root = str(shared_sample("tram").parent)
    tm = make_task_manager(data_root=data_root)
    tasks = load_tasks(tm, ["ent_tram"])
    with caplog.at_level(logging.WARNING, logger="lm_eval_enterprise"):
        res = evaluate(OracleLM(tasks.leaves), tasks.top, task_manager=tm, log_samples=True, limit=8)
    notices = [r.getMessage() for r in caplog.records if "lack" in r.getMessage() and "[tram]" in r.getMessage()]
    assert len(notices) == 1, notices  # once, not once per template
    for name in tasks.leaves:
        row, meta = res["results"][name], res["configs"][name]["metadata"]
        assert row["macro_f1,answer"] == pytest.approx(1.0), name  # over the label set it would be 8/9 or less
        golds = {s["doc"]["label"] for s in res["samples"][name]}
        labels = res["samples"][name][0]["doc"]["label_names"]
        assert meta["eval_subset"] == {
            "docs": 8,
            "of": len(tasks.leaves[name].eval_docs),
            "missing_classes": [c for c in labels if c not in golds],
        }
        assert len(meta["eval_subset"]["missing_classes"]) >= 1  # 8 documents, 9 classes
        assert all(c in notices[0] for c in meta["eval_subset"]["missing_classes"])
    items = [
        {"gold": s["doc"]["label"], "pred": s["doc"]["label"], "labels": labels}
        for s in res["samples"][next(iter(tasks.leaves))]
    ]
    assert hooks.agg_macro_f1(items) == pytest.approx(1.0)


def test_oracle_scores_one_on_every_variant_at_limit_20_on_the_real_samples():
    """Every real sample with an evaluation split (unfair_tos' sample holds only its train file); gold_news' sample
    holds labels for four of its nine questions, which its one task per template asks."""
    root = shared_sample("tram").parent
    datasets = sorted(p.name for p in root.iterdir() if (p / "test.jsonl").exists())
    names = [f"ent_{d}" for d in datasets]
    tm = make_task_manager(data_root=str(root))
    tasks = load_tasks(tm, names)
    res = evaluate(OracleLM(tasks.leaves), tasks.top, task_manager=tm, log_samples=False, limit=20)
    assert len(tasks.leaves) >= 5 * len(datasets)
    for name in tasks.leaves:
        meta = res["configs"][name]["metadata"]
        score = res["results"][name][f"{meta['primary_metric']},{meta['primary_filter']}"]
        assert score == pytest.approx(1.0), (name, score)
        assert meta["eval_order"]["seed"] == EVAL_ORDER_SEED
