"""Whole-pipeline oracle test over every task variant, on the embedded fixture data.

Gold target as the model output → primary metric 1.0 after the template's filter; garbage output → 0 and a
format failure of 1.0 (generate_until tasks). The log-likelihood tasks (the ranking variants) cannot fail to parse:
there the garbage model gives every candidate the same score, and its RR@k / NDCG@k follow from the tie rule
(candidate order) and the gold positions of the documents; a constant "Yes" generator on the generation-based
ranking variants must score the same.

Set ``ORACLE_DATASETS=kpi_edgar,fiqa_qa`` to run only some datasets while developing one.
"""

import math
import os
from collections import defaultdict
from pathlib import Path

import pytest

from lm_eval_enterprise import TASK_DIR
from lm_eval_enterprise.harness.runner import evaluate, load_tasks, make_task_manager
from lm_eval_enterprise.prompting.templating import all_specs
from testkit.testing import GarbageLM, OracleLM

_ONLY = [d for d in os.environ.get("ORACLE_DATASETS", "").split(",") if d]
SPECS = [s for _, s in all_specs(Path(TASK_DIR)) if not _ONLY or s.dataset in _ONLY]
ALL_TASKS = sorted(t for s in SPECS for t in s.task_names())
# the top-level groups (enterprise, nlu) cover every dataset in a domain group; standalone groups are run explicitly
GROUPS = (["enterprise", "nlu"] if not _ONLY else [s.base_name for s in SPECS if s.in_domain_group]) + [
    s.base_name for s in SPECS if not s.in_domain_group
]


def _run(lm_cls, groups=GROUPS):
    tm = make_task_manager(data_root="embedded")
    tasks = load_tasks(tm, groups)  # built once: the test model reads their targets, lm-eval runs them
    return evaluate(lm_cls(tasks.leaves), tasks.top, task_manager=tm, log_samples=False), tasks.leaves


@pytest.fixture(scope="module")
def oracle():
    return _run(OracleLM)[0]


@pytest.fixture(scope="module")
def garbage_run():
    return _run(GarbageLM)


@pytest.fixture(scope="module")
def garbage(garbage_run):
    return garbage_run[0]


def _primary(res, task):
    meta = res["configs"][task]["metadata"]
    return res["results"][task], meta["primary_metric"], meta["primary_filter"]


def test_every_variant_is_run(oracle):
    assert ALL_TASKS, "no task variants generated"
    missing = [t for t in ALL_TASKS if t not in oracle["results"]]
    assert not missing, f"variants not run by the enterprise group: {missing}"
    if not _ONLY:
        generated = {p.stem for p in Path(TASK_DIR).glob("*/*/*__t*.yaml")}
        assert generated == set(ALL_TASKS), "task YAMLs on disk differ from the template tables (make tasks)"


@pytest.mark.parametrize("task", ALL_TASKS)
def test_gold_scores_one(oracle, task):
    row, metric, filt = _primary(oracle, task)
    assert row[f"{metric},{filt}"] == pytest.approx(1.0), row
    if f"format_failure,{filt}" in row:
        assert row[f"format_failure,{filt}"] == 0.0


@pytest.mark.parametrize("task", ALL_TASKS)
def test_garbage_scores_zero_and_fails_format(garbage_run, task):
    garbage, tasks = garbage_run
    row, metric, filt = _primary(garbage, task)
    if f"format_failure,{filt}" not in row:  # log-likelihood: no format failures by construction
        family = garbage["configs"][task]["metadata"]["task_family"]
        assert family == "ranking", f"{task}: a log-likelihood task of family {family} has no garbage check"
        # GarbageLM: ℓ(No) = −1 > ℓ(Yes) = −2 for every candidate → the same key (0, 1.0) everywhere
        _assert_constant_ranking(row, filt, tasks[task].eval_docs, answer_yes=False)
        return
    assert row[f"format_failure,{filt}"] == 1.0
    assert row[f"{metric},{filt}"] == 0.0


# ------------------------------------------------------------------------------- constant models on ranking
def _gold_positions(docs) -> dict[str, list[int]]:
    """Per query, the 1-based positions of its relevant candidates in candidate order (``cand_index``): the ranked
    list of a model that gives every candidate the same score, since equal keys keep the candidate order."""
    by_q = defaultdict(list)
    for d in docs:
        by_q[str(d["qid"])].append((int(d["cand_index"]), d["label"] == "Yes"))
    return {q: [pos for pos, (_, rel) in enumerate(sorted(c), start=1) if rel] for q, c in by_q.items()}


def _discount(i: int) -> float:
    return 1 / math.log2(i + 1)


def _tie_rule_scores(gold_positions: dict[str, list[int]]) -> dict[str, float]:
    """RR@10, RR@5 (1/rank₁ of the first relevant position if ≤ k) and NDCG@10 (binary gains, ideal DCG of the
    query's relevant count), averaged over queries."""
    rr10, rr5, nd = [], [], []
    for positions in gold_positions.values():
        assert positions, "a query without a relevant candidate"
        rank1 = positions[0]
        rr10.append(1 / rank1 if rank1 <= 10 else 0.0)
        rr5.append(1 / rank1 if rank1 <= 5 else 0.0)
        ideal = sum(_discount(i) for i in range(1, min(len(positions), 10) + 1))
        nd.append(sum(_discount(p) for p in positions if p <= 10) / ideal)
    n = len(gold_positions)
    return {"rr_at_10": sum(rr10) / n, "rr_at_5": sum(rr5) / n, "ndcg_at_10": sum(nd) / n}


def _assert_constant_ranking(row, filt, docs, answer_yes: bool):
    docs = list(docs)
    expected = _tie_rule_scores(_gold_positions(docs))
    # yes_accuracy: the constant answer is right on the candidates whose gold is that answer
    expected["yes_accuracy"] = sum((d["label"] == "Yes") == answer_yes for d in docs) / len(docs)
    got = {m: row[f"{m},{filt}"] for m in expected}
    assert got == pytest.approx(expected, abs=1e-12)


# The embedded fixtures' test queries (20 candidates each): gold positions in candidate order, read off the
# documents, and the scores of a model that ties every candidate, by hand (D(i) = 1/log2(i + 1)):
#   fiqa_qa  q8 [1,2,3,4,6,15,16,17,18,20] (10 relevant), q15 [6,13], q23 [14]
#     RR@10 = (1 + 1/6 + 0)/3 = 0.388889; RR@5 = (1 + 0 + 0)/3 = 0.333333
#     NDCG@10: q8 (D1+D2+D3+D4+D6)/(D1+…+D10) = 2.917814/4.543559 = 0.642187; q15 D6/(D1+D2) = 0.356207/1.630930
#              = 0.218408; q23 0 → 0.286865
#   insurance_qa  test-1 [7,10], test-2 [13], test-3 [5], test-4 [18]
#     RR@10 = (1/7 + 0 + 1/5 + 0)/4 = 3/35 = 0.085714; RR@5 = (0 + 0 + 1/5 + 0)/4 = 0.05
#     NDCG@10: test-1 (D7+D10)/(D1+D2) = 0.622398/1.630930 = 0.381622; test-3 D5/D1 = 0.386853 → 0.192119
FIXTURE_TIES = {
    "fiqa_qa": (
        {"8": [1, 2, 3, 4, 6, 15, 16, 17, 18, 20], "15": [6, 13], "23": [14]},
        {"rr_at_10": 0.388889, "rr_at_5": 0.333333, "ndcg_at_10": 0.286865},
    ),
    "insurance_qa": (
        {"test-1": [7, 10], "test-2": [13], "test-3": [5], "test-4": [18]},
        {"rr_at_10": 0.085714, "rr_at_5": 0.05, "ndcg_at_10": 0.192119},
    ),
}
RANKING_TASKS = {
    family: [t for s in SPECS if s.family == family for t in s.task_names()]
    for family in ("ranking", "ranking_generate")
}


@pytest.mark.parametrize("dataset", sorted(FIXTURE_TIES))
def test_tie_rule_scores_by_hand_on_the_fixture(garbage_run, dataset):
    garbage, tasks = garbage_run
    names = [t for t in RANKING_TASKS["ranking"] if t.startswith(f"ent_{dataset}__")]
    if not names:
        pytest.skip(f"{dataset} not selected by ORACLE_DATASETS")
    positions, scores = FIXTURE_TIES[dataset]
    assert len(names) == 5
    for name in names:
        docs = list(tasks[name].eval_docs)
        assert _gold_positions(docs) == positions, name
        assert _tie_rule_scores(positions) == pytest.approx(scores, abs=1e-6)
        row, _, filt = _primary(garbage, name)
        assert {m: row[f"{m},{filt}"] for m in scores} == pytest.approx(scores, abs=1e-6), name


class ConstantYesLM(GarbageLM):
    """Answers " Yes" to every generation request: the generation-based ranking then ties every candidate."""

    def generate_until(self, requests, disable_tqdm: bool = False):
        return [" Yes" for _ in requests]


@pytest.fixture(scope="module")
def constant_yes_run():
    groups = [s.base_name for s in SPECS if s.family == "ranking_generate"]
    if not groups:
        pytest.skip("no generation-based ranking dataset selected by ORACLE_DATASETS")
    return _run(ConstantYesLM, groups)


@pytest.mark.parametrize("task", RANKING_TASKS["ranking_generate"])
def test_constant_answer_on_generation_ranking_follows_the_tie_rule(constant_yes_run, task):
    res, tasks = constant_yes_run
    row, metric, filt = _primary(res, task)
    assert row[f"format_failure,{filt}"] == 0.0  # " Yes" is read by every template
    _assert_constant_ranking(row, filt, tasks[task].eval_docs, answer_yes=True)
    dataset = res["configs"][task]["metadata"]["source_dataset"]
    if dataset in FIXTURE_TIES:  # the same numbers as the log-likelihood variants' garbage model
        scores = FIXTURE_TIES[dataset][1]
        assert {m: row[f"{m},{filt}"] for m in scores} == pytest.approx(scores, abs=1e-6)


def test_gold_scores_one_on_every_question(oracle):
    """A dataset made of questions (gold_news): the gold answer scores 1.0 on each question's own metric and on
    the HELM reading (their means), in every template."""
    checked = 0
    for task in ALL_TASKS:
        row, metric, filt = _primary(oracle, task)
        meta = oracle["configs"][task]["metadata"]
        for q in meta.get("questions", []):
            assert row[f"{metric}_{q},{filt}"] == pytest.approx(1.0), (task, q)
            checked += 1
        for helm in meta.get("helm_metrics", []):
            assert row[f"{helm},{filt}"] == pytest.approx(1.0), (task, helm)
    assert checked == (45 if any(s.dataset == "gold_news" for s in SPECS) else 0)
