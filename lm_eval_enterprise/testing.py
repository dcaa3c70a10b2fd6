"""Test doubles for the whole pipeline: an oracle LM that answers with the gold target and a garbage LM.

They are lm-eval ``LM`` subclasses, so they exercise the real task code path (prompting, filters,
``process_results``, aggregations) without a neural model. ``tests/test_oracle.py`` runs both over every task
variant on the embedded fixture data (``ORACLE_DATASETS=<id>,…`` restricts it to the datasets named, e.g. while
adding one); per-dataset tests use them for end-to-end checks.
"""

from __future__ import annotations

import math
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


def run_oracle(task_names: list[str], data_root: str, **metadata: Any) -> dict:
    """lm-eval's results (with ``samples``) of :class:`OracleLM` over our ``task_names``; ``metadata`` as in
    :func:`build_tasks` (e.g. ``max_context_tokens``)."""
    from .runner import evaluate, load_tasks, make_task_manager

    tm = make_task_manager(data_root=data_root, metadata=metadata)
    tasks = load_tasks(tm, task_names)  # built once: the oracle reads their targets, lm-eval runs them
    return evaluate(OracleLM(tasks.leaves), tasks.top, task_manager=tm)


def run_hf_model(
    model_dir: Any,
    task_names: list[str],
    data_root: Any = None,
    limit: int | None = 2,
    *,
    include_path: Any = None,
    metadata: dict | None = None,
    **kwargs: Any,
) -> dict:
    """lm-eval's results (with ``samples``) of the Hugging Face model saved in ``model_dir`` (e.g. the tiny test
    model), in float32 on the CPU, over the first ``limit`` documents (``None``: all) of ``task_names`` from
    ``include_path`` (default: our task tree); ``data_root`` and ``metadata`` go to the TaskManager's run metadata,
    ``kwargs`` to ``lm_eval.simple_evaluate`` (e.g. ``gen_kwargs``, seeds, ``apply_chat_template``), through
    :func:`lm_eval_enterprise.runner.evaluate` (samples logged, no bootstrap)."""
    from .runner import evaluate

    return evaluate(
        "hf",
        task_names,
        include_path=include_path,
        data_root=data_root,
        metadata=metadata,
        model_args=f"pretrained={model_dir},dtype=float32",
        device="cpu",
        limit=limit,
        **kwargs,
    )


def assert_unit_scores(res: dict, task_names: list[str], keys: tuple[str, ...]) -> None:
    """Every ``keys`` value (``"metric,filter"``) of every task in lm-eval's ``res["results"]`` is a finite number
    in [0, 1] (what a real model's run, e.g. the tiny random one, can be checked for)."""
    for t in task_names:
        row = res["results"][t]
        for key in keys:
            assert math.isfinite(row[key]) and 0.0 <= row[key] <= 1.0, (t, key, row)


def checked_free_text_filter(table: Any, template: Any, golds: list[str]) -> Any:
    """The answer filter of ``template`` (of the template ``table``), after checking [PARSE] for a free-text answer:
    every gold, after a leading space, is read back as itself, and a completion without a letter or digit
    (:data:`GARBAGE`, empty, punctuation only) is ``[invalid]``."""
    from .templating import answer_filter

    flt = answer_filter(table, template)
    for g in golds:
        assert flt.read(" " + g, {}) == g, (template.id, g)
    for junk in (GARBAGE, "", " ... ", "?!\n-"):
        assert flt.read(junk, {}) == "[invalid]", (template.id, junk)
    return flt


def wrong_row_count_error(dataset_id: str, tmp_path: Any, split: str, expected: int) -> tuple[Any, str]:
    """``(folder, message)``: the dataset's embedded fixture copied to ``tmp_path/<id>`` with its manifest expecting
    ``expected`` rows in ``split``, and the message of the ``DataError`` that loading it raises (it must raise)."""
    import json
    import shutil
    from pathlib import Path

    from .data import DataError, fixture_dir, load_records

    d = Path(tmp_path) / dataset_id
    shutil.copytree(fixture_dir(dataset_id), d)
    man = json.loads((d / "MANIFEST.json").read_text())
    man["expected_rows"][split] = expected
    (d / "MANIFEST.json").write_text(json.dumps(man))
    try:
        load_records(dataset_id, data_root=str(tmp_path))
    except DataError as exc:
        return d, str(exc)
    raise AssertionError(f"{dataset_id}: {split} expected {expected} rows, yet the load raised no DataError")


def helm_positions(n: int, train_frac: float = 0.2) -> tuple[list[int], list[int]]:
    """Positions (0-based, in a frame of ``n`` rows) of HELM's train rows and of its shuffled test rows, computed
    with numpy only, independently of the pandas code a Source uses: pandas ``df.sample(frac, random_state=0)`` is
    ``RandomState(0).permutation(n)[:round(frac·n)]``; the rest, in file order, shuffled the same way is the test."""
    import numpy as np

    train = np.random.RandomState(0).permutation(n)[: round(train_frac * n)].tolist()
    chosen = set(train)
    rest = [i for i in range(n) if i not in chosen]
    return train, [rest[j] for j in np.random.RandomState(0).permutation(len(rest))]
