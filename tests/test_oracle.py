"""Whole-pipeline oracle test over every task variant, on the embedded fixture data.

Gold target as the model output → primary metric 1.0 after the template's filter; garbage output → 0 and a
format failure of 1.0 (generate_until tasks; log-likelihood tasks cannot fail to parse).
"""
from pathlib import Path

import lm_eval
import pytest

from lm_eval_enterprise import FIXTURES_DIR, TASK_DIR
from lm_eval_enterprise.templating import generate
from lm_eval_enterprise.testing import GarbageLM, OracleLM, build_tasks, leaf_tasks

ALL_TASKS = sorted(p.stem for p in generate(Path(TASK_DIR), write=False) if p.name.endswith(".yaml")
                   and "__t" in p.name)


def _run(lm_cls):
    tm, task_dict = build_tasks(["enterprise"], FIXTURES_DIR)
    tasks = leaf_tasks(task_dict)
    res = lm_eval.simple_evaluate(model=lm_cls(tasks), tasks=["enterprise"], task_manager=tm, log_samples=False,
                                  bootstrap_iters=0)
    return res


@pytest.fixture(scope="module")
def oracle():
    return _run(OracleLM)


@pytest.fixture(scope="module")
def garbage():
    return _run(GarbageLM)


def _primary(res, task):
    meta = res["configs"][task]["metadata"]
    return res["results"][task], meta["primary_metric"], meta["primary_filter"]


def test_every_variant_is_run(oracle):
    assert ALL_TASKS, "no task variants generated"
    missing = [t for t in ALL_TASKS if t not in oracle["results"]]
    assert not missing, f"variants not run by the enterprise group: {missing}"


@pytest.mark.parametrize("task", ALL_TASKS)
def test_gold_scores_one(oracle, task):
    row, metric, filt = _primary(oracle, task)
    assert row[f"{metric},{filt}"] == pytest.approx(1.0), row
    if f"format_failure,{filt}" in row:
        assert row[f"format_failure,{filt}"] == 0.0


@pytest.mark.parametrize("task", ALL_TASKS)
def test_garbage_scores_zero_and_fails_format(garbage, task):
    row, metric, filt = _primary(garbage, task)
    if f"format_failure,{filt}" not in row:
        pytest.skip("log-likelihood task: no format failures by construction")
    assert row[f"format_failure,{filt}"] == 1.0
    assert row[f"{metric},{filt}"] == 0.0
