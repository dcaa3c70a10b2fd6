"""Test doubles for the whole pipeline: an oracle LM that answers with the gold target and a garbage LM.

They are lm-eval ``LM`` subclasses, so they exercise the real task code path (prompting, filters,
``process_results``, aggregations) without a neural model. ``tests/test_oracle.py`` runs both over every task
variant on the embedded fixture data (``ORACLE_DATASETS=<id>,…`` restricts it to the datasets named, e.g. while
adding one); per-dataset tests use them for end-to-end checks.
"""

from __future__ import annotations

import math
from collections.abc import Callable
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


class ConstantLM(LM):
    """Generates the same ``text`` for every request (no log-likelihood requests): a model-free double for tasks
    outside our tree, e.g. a hand-written YAML in a test."""

    def __init__(self, text: str):
        super().__init__()
        self.text = text

    def generate_until(self, requests, disable_tqdm: bool = False):
        return [self.text for _ in requests]

    def loglikelihood(self, requests, disable_tqdm: bool = False):
        raise NotImplementedError("ConstantLM only generates")

    def loglikelihood_rolling(self, requests, disable_tqdm: bool = False):
        raise NotImplementedError("ConstantLM only generates")


def build_tasks(task_names: list[str], data_root: str, **metadata: Any) -> tuple[Any, dict[str, Any]]:
    """``(task_manager, leaves)`` for our task or group names: leaves = task name → lm-eval Task of every leaf,
    built once (:func:`lm_eval_enterprise.harness.runner.load_tasks`), with only our include path indexed (fast);
    ``metadata`` is added to the run metadata (e.g. ``max_context_tokens``)."""
    from lm_eval_enterprise.harness.runner import load_tasks, make_task_manager

    tm = make_task_manager(data_root=data_root, metadata=metadata)
    return tm, load_tasks(tm, task_names).leaves


def assert_zero_shot_only(dataset: str, task_name: str, data_root: str, n_eval: int, eval_split: str = "valid") -> None:
    """A data folder holding the evaluated file alone (no training file): it loads with ``n_eval`` evaluated rows
    and an empty few-shot pool, ``task_name`` builds zero-shot requests, and the same task asking for shots fails
    before any request with one line that names the dataset and the missing pool."""
    import pytest

    from lm_eval_enterprise.data import DataError, load_records

    recs = load_records(dataset, data_root=data_root)
    assert len(recs[eval_split]) == n_eval and recs["fewshot"] == []
    _, leaves = build_tasks([task_name], data_root)
    task = leaves[task_name]
    task.build_all_requests(limit=2, rank=0, world_size=1)  # zero-shot: fine
    assert len(task.instances) == 2
    task.set_config(key="num_fewshot", value=2)
    with pytest.raises(DataError) as e:
        task.build_all_requests(limit=2, rank=0, world_size=1)
    assert str(e.value).startswith(f"[{dataset}]") and "\n" not in str(e.value) and "few-shot pool" in str(e.value)


def run_oracle(task_names: list[str], data_root: str, **metadata: Any) -> dict:
    """lm-eval's results (with ``samples``) of :class:`OracleLM` over our ``task_names``; ``metadata`` as in
    :func:`build_tasks` (e.g. ``max_context_tokens``)."""
    from lm_eval_enterprise.harness.runner import evaluate, load_tasks, make_task_manager

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
    :func:`lm_eval_enterprise.harness.runner.evaluate` (samples logged, no bootstrap)."""
    from lm_eval_enterprise.harness.runner import evaluate

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


# the scores a dataset's tiny-model run checks with assert_unit_scores / assert_tiny_run, per task family
SUMMARIZATION_SCORES = (
    "rouge_l,answer",
    "rouge_1,answer",
    "rouge_2,answer",
    "format_failure,answer",
    "prompt_cut,answer",
)
WEIGHTED_F1_SCORES = ("weighted_f1,answer", "accuracy,answer", "format_failure,answer")


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
    from lm_eval_enterprise.prompting.templating import answer_filter

    flt = answer_filter(table, template)
    for g in golds:
        assert flt.read(" " + g, {}) == g, (template.id, g)
    for junk in (GARBAGE, "", " ... ", "?!\n-"):
        assert flt.read(junk, {}) == "[invalid]", (template.id, junk)
    return flt


def helm_positions(n: int, train_frac: float = 0.2, seed: int = 0) -> tuple[list[int], list[int]]:
    """Positions (0-based, in a frame of ``n`` rows) of HELM's train rows and of its shuffled test rows, computed
    with numpy only, independently of the pandas code a Source uses: the train rows are
    ``df.sample(frac=train_frac, random_state=seed)`` (:func:`sample_positions`); the rest, in file order, shuffled
    the same way (``sample(frac=1, random_state=seed)``) is the test."""
    import numpy as np

    train = sample_positions(n, train_frac, seed)
    chosen = set(train)
    rest = [i for i in range(n) if i not in chosen]
    return train, [rest[j] for j in np.random.RandomState(seed).permutation(len(rest))]


def sample_positions(n: int, frac: float, seed: int = 0) -> list[int]:
    """Positions (0-based, in draw order) of the rows pandas ``df.sample(frac=frac, random_state=seed)`` draws from
    a frame of ``n`` rows, computed with numpy only (independently of the pandas code a Source uses):
    ``RandomState(seed).permutation(n)[:round(frac·n)]``."""
    import numpy as np

    return np.random.RandomState(seed).permutation(n)[: round(frac * n)].tolist()


def csv_rows(path: Any) -> list[dict]:
    """The rows of a CSV file as ``csv.DictReader`` reads it (UTF-8, header line): a test's own reading of a
    fixture file, independent of the Source's reading."""
    import csv

    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def assert_tiny_run(res: dict, task_names: list[str], keys: tuple[str, ...], num_fewshot: int) -> None:
    """A dataset's own tiny-model run (lm-eval's results ``res``): :func:`assert_unit_scores` on ``keys``, and
    every task configured with ``num_fewshot`` shots and using between 0 and that many per prompt on average
    (``shots_used``: the context budget may drop trailing shots)."""
    assert_unit_scores(res, task_names, keys)
    for t in task_names:
        assert res["configs"][t]["num_fewshot"] == num_fewshot, (t, res["configs"][t]["num_fewshot"])
        assert 0.0 <= res["results"][t]["shots_used,answer"] <= num_fewshot, (t, res["results"][t])


def write_presplit(root: Any, dataset_id: str, splits: dict[str, list[dict]]) -> Any:
    """A hand-made pre-split data folder ``root/<dataset_id>/``: ``<split>.jsonl`` of the given source rows per
    split and a ``MANIFEST.json`` declaring exactly those counts. Returns the folder."""
    import json
    from pathlib import Path

    d = Path(root) / dataset_id
    d.mkdir(parents=True, exist_ok=True)
    for split, rows in splits.items():
        (d / f"{split}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    (d / "MANIFEST.json").write_text(json.dumps({"expected_rows": {s: len(rows) for s, rows in splits.items()}}))
    return d


def oracle_samples(task_name: str, data_root: Any) -> dict[str, dict]:
    """The logged samples of one task variant run with :class:`OracleLM` (:func:`run_oracle`), by document id."""
    res = run_oracle([task_name], str(data_root))
    return {s["doc"]["id"]: s for s in res["samples"][task_name]}


def assert_summary_reading(
    table: Any, golds: list[str], completion: str, expected: str, one_line: tuple[str, ...] = ("t3",)
) -> None:
    """[PARSE] of a summarization table, for every template: :func:`checked_free_text_filter` (golds read back,
    garbage ``[invalid]``), and ``completion`` — a multi-line summary, a blank line, then more text — read as
    ``expected`` (cut at the stop sequence, its lines kept), in the template's format except for the templates
    ``one_line`` that ask for a single line."""
    for t in table.templates:
        out = checked_free_text_filter(table, t, golds).read(completion, {})
        assert out == expected, (t.id, out)
        assert out.adherent is (t.id not in one_line), t.id


def fewshot_prompt(
    description: str, shots: list[dict], doc: dict, render: Callable[[dict], str], target: Callable[[dict], str]
) -> str:
    """A generate prompt as lm-eval assembles it (target delimiter ``" "``, few-shot delimiter a blank line),
    written out by a test: the instruction, every shot as ``render(shot) + " " + target(shot)`` and a blank line,
    then ``render(doc)`` (``render`` is the test's own writing of the template's ``doc_to_text``)."""
    return description + "".join(f"{render(s)} {target(s)}\n\n" for s in shots) + render(doc)


def assert_first_prompt(
    res: dict,
    task_names: list[str],
    recs: dict,
    description: str,
    n_shots: int,
    render: Callable[[dict], str],
    target: Callable[[dict], str],
) -> None:
    """lm-eval's first document of every task is the first test record, with the target ``target(record)``; the
    first task's prompt of it is :func:`fewshot_prompt` of ``description`` and the first ``n_shots`` records of the
    few-shot split (``recs``: :func:`~lm_eval_enterprise.data.load_records` of the same data)."""
    first = recs["test"][0]
    for t in task_names:
        assert res["samples"][t][0]["target"] == target(first), t
    prompt = res["samples"][task_names[0]][0]["arguments"][0][0]
    assert prompt == fewshot_prompt(description, recs["fewshot"][:n_shots], first, render, target)
