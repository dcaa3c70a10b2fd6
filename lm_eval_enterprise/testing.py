"""Test doubles for the whole pipeline: an oracle LM that answers with the gold target and a garbage LM.

They are lm-eval ``LM`` subclasses, so they exercise the real task code path (prompting, filters,
``process_results``, aggregations) without a neural model. ``tests/test_oracle.py`` runs both over every task
variant on the embedded fixture data (``ORACLE_DATASETS=<id>,…`` restricts it to the datasets named, e.g. while
adding one); per-dataset tests use them for end-to-end checks.
"""

from __future__ import annotations

from typing import Any

from lm_eval.api.model import LM

GARBAGE = "#### ????"  # matches no template's answer regex: a format failure everywhere


class _TaskAwareLM(LM):
    def __init__(self, tasks: dict[str, Any]):
        super().__init__()
        self.tasks = tasks  # task name → lm-eval Task (to compute doc_to_target)

    def _target(self, inst) -> Any:
        return self.tasks[inst.task_name].doc_to_target(inst.doc)

    def loglikelihood_rolling(self, requests, disable_tqdm: bool = False):
        raise NotImplementedError("no task of this project uses loglikelihood_rolling")


class OracleLM(_TaskAwareLM):
    """Generates ``" " + gold target``; gives the gold choice log-likelihood 0 and every other choice −10."""

    def generate_until(self, requests, disable_tqdm: bool = False):
        return [" " + str(self._target(inst)) for inst in requests]

    def loglikelihood(self, requests, disable_tqdm: bool = False):
        out = []
        for inst in requests:
            gold = self._target(inst)
            out.append((0.0, True) if inst.idx == gold else (-10.0, False))
        return out


class GarbageLM(_TaskAwareLM):
    """Generates :data:`GARBAGE`; log-likelihoods favour the first choice (an uninformative constant model)."""

    def generate_until(self, requests, disable_tqdm: bool = False):
        return [GARBAGE for _ in requests]

    def loglikelihood(self, requests, disable_tqdm: bool = False):
        return [(-1.0 if inst.idx == 0 else -2.0, inst.idx == 0) for inst in requests]


def build_tasks(task_names: list[str], data_root: str, **metadata: Any) -> tuple[Any, dict[str, Any]]:
    """``(task_manager, task_dict)`` for our task or group names, with only our include path indexed (fast);
    ``metadata`` is added to the run metadata (e.g. ``max_context_tokens``). :func:`leaf_tasks` flattens the
    task dict to task name → lm-eval Task."""
    from lm_eval.tasks import TaskManager, get_task_dict

    from . import TASK_DIR

    tm = TaskManager(include_path=TASK_DIR, include_defaults=False, metadata={"data_root": data_root, **metadata})
    return tm, get_task_dict(task_names, tm)


def leaf_tasks(task_dict: dict) -> dict[str, Any]:
    """Task name → lm-eval Task for every leaf of a (nested) ``get_task_dict`` result."""
    out = {}
    for value in task_dict.values():
        if isinstance(value, dict):
            out.update(leaf_tasks(value))
        else:
            out[value.config.task] = value
    return out
