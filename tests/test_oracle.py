"""Whole-pipeline oracle test over every task variant, on the embedded fixture data.

Gold target as the model output → primary metric 1.0 after the template's filter; garbage output → 0 and a
format failure of 1.0 (generate_until tasks; log-likelihood tasks cannot fail to parse).

Set ``ORACLE_DATASETS=kpi_edgar,fiqa_qa`` to run only some datasets while developing one.
"""
import os
from pathlib import Path

import lm_eval
import pytest

from lm_eval_enterprise import TASK_DIR
from lm_eval_enterprise.templating import all_specs
from lm_eval_enterprise.testing import GarbageLM, OracleLM, build_tasks, leaf_tasks

_ONLY = [d for d in os.environ.get("ORACLE_DATASETS", "").split(",") if d]
SPECS = [s for _, s in all_specs(Path(TASK_DIR)) if not _ONLY or s.dataset in _ONLY]
ALL_TASKS = sorted(t for s in SPECS for t in s.task_names())
# the top-level group covers every dataset in a domain group; standalone groups are run explicitly
GROUPS = (["enterprise"] if not _ONLY else [s.base_name for s in SPECS if s.in_domain_group]) + [
    s.base_name for s in SPECS if not s.in_domain_group]


def _run(lm_cls):
    tm, task_dict = build_tasks(GROUPS, "embedded")
    tasks = leaf_tasks(task_dict)
    return lm_eval.simple_evaluate(model=lm_cls(tasks), tasks=GROUPS, task_manager=tm, log_samples=False,
                                   bootstrap_iters=0)


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
def test_garbage_scores_zero_and_fails_format(garbage, task):
    row, metric, filt = _primary(garbage, task)
    if f"format_failure,{filt}" not in row:
        pytest.skip("log-likelihood task: no format failures by construction")
    assert row[f"format_failure,{filt}"] == 1.0
    assert row[f"{metric},{filt}"] == 0.0
