"""One way to hand our tasks to lm-eval: the task manager, the tasks built once, and ``simple_evaluate``.

* :func:`make_task_manager`: lm-eval's index over our task folder (or the folders given), lm-eval's ~10k built-in
  YAMLs not indexed unless asked, the run metadata (``data_root`` and the rest) on every task; lm-eval's own
  ``TaskManager`` (every dataset has as many leaf tasks as templates, so its group means are means over datasets).
* :func:`load_tasks`: the requested tasks and groups built ONCE (``TaskManager.load``), as the objects lm-eval's
  ``simple_evaluate(tasks=...)`` accepts (it then builds nothing again) plus the flat leaf tasks — for a caller
  that must see the documents before the run (a cell plan, the demo's per-task sample lists, an oracle model).
* :func:`evaluate`: ``lm_eval.simple_evaluate`` with our defaults (``log_samples=True``: the Sharpe tool pairs
  documents from the samples; ``bootstrap_iters=0``: no stderr bootstrap) — what the demo and the tests run.

``lm-eval-enterprise run`` uses the first two and calls ``simple_evaluate`` with lm-eval's own CLI arguments and
defaults (``bootstrap_iters`` included), as ``lm-eval run`` does.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..taskmeta import DATA_ROOT

# what our callers want unless they say otherwise (lm-eval's own defaults: no samples, 100,000 bootstrap draws)
EVALUATE_DEFAULTS: dict[str, Any] = {"log_samples": True, "bootstrap_iters": 0}

Folders = str | os.PathLike | Sequence[str | os.PathLike] | None


def make_task_manager(
    include_path: Folders = None,
    *,
    data_root: str | os.PathLike | None = None,
    metadata: dict | None = None,
    include_defaults: bool = False,
):
    """lm-eval's ``TaskManager`` indexing ``include_path`` (a folder or a list; default: our task folder) and,
    with ``include_defaults``, lm-eval's built-in tasks; its run metadata is ``{"data_root": data_root}`` (when
    given) updated with ``metadata``."""
    from lm_eval.tasks import TaskManager

    from .. import TASK_DIR

    if include_path is None:
        paths = [TASK_DIR]
    elif isinstance(include_path, (str, os.PathLike)):
        paths = [str(include_path)]
    else:
        paths = [str(p) for p in include_path]
    meta = ({} if data_root is None else {DATA_ROOT: str(data_root)}) | dict(metadata or {})
    return TaskManager(include_path=paths, include_defaults=include_defaults, metadata=meta)


@dataclass
class LoadedTasks:
    """Tasks built once: ``top`` — the requested tasks and groups, in request order, for ``simple_evaluate(tasks=
    top)``; ``leaves`` — task name → lm-eval ``Task`` for every leaf (the same objects)."""

    top: list
    leaves: dict[str, Any]


def load_tasks(task_manager, specs: str | Sequence[str | dict]) -> LoadedTasks:
    """Build the tasks and groups named by ``specs`` (names, globs resolved already, or YAML config dicts) once,
    with ``task_manager.load`` (lm-eval's own loader: tags expand to their tasks, duplicates are refused)."""
    loaded = task_manager.load([specs] if isinstance(specs, str) else list(specs))
    groups = loaded.get("groups") or {}
    nested = {sub.name for g in groups.values() for sub in g.get_all_groups(recursive=False)}
    roots = [g for g in groups.values() if g.name not in nested]
    owner = {t.task_name: g for g in roots for t in g.get_all_tasks()}
    top: list = []
    seen: set[int] = set()
    for name, task in loaded["tasks"].items():  # lm-eval collects the leaves in the order of the built items
        item = owner.get(name, task)
        if id(item) not in seen:
            seen.add(id(item))
            top.append(item)
    top += [g for g in roots if id(g) not in seen]  # a group without tasks (nothing to run, kept as requested)
    return LoadedTasks(top, dict(loaded["tasks"]))


def evaluate(
    model: Any,
    tasks: Sequence[Any],
    *,
    task_manager: Any = None,
    data_root: str | os.PathLike | None = None,
    metadata: dict | None = None,
    include_path: Folders = None,
    **kwargs: Any,
) -> dict:
    """``lm_eval.simple_evaluate(model, tasks, ...)`` over our tasks with :data:`EVALUATE_DEFAULTS`; ``tasks`` are
    names or the objects of :func:`load_tasks` (then built with their own task manager, which must be given).
    Without ``task_manager`` one is made by :func:`make_task_manager` from ``include_path``, ``data_root`` and
    ``metadata``. ``kwargs`` go to ``simple_evaluate`` (``limit``, ``samples``, ``gen_kwargs``, seeds, ...).
    Returns lm-eval's results dict (with ``samples`` when logged)."""
    import lm_eval

    if task_manager is None:
        task_manager = make_task_manager(include_path, data_root=data_root, metadata=metadata)
    elif data_root is not None or metadata is not None or include_path is not None:
        raise TypeError("evaluate: give either task_manager or include_path / data_root / metadata, not both")
    return lm_eval.simple_evaluate(
        model=model, tasks=list(tasks), task_manager=task_manager, **{**EVALUATE_DEFAULTS, **kwargs}
    )


def save_results(tracker, results: dict, samples: dict | None) -> list[Path]:
    """Write ``results`` (``samples`` popped out of it) and, when logged, each task's ``samples`` with lm-eval's
    ``EvaluationTracker``, as lm-eval's own CLI does after ``simple_evaluate``. Returns the files it should have
    written (lm-eval's names) that are missing: lm-eval logs a failed write as a warning and carries on."""
    tracker.save_results_aggregated(results=results, samples=samples)
    if samples is not None:
        for task_name in results["configs"]:
            tracker.save_results_samples(task_name=task_name, samples=samples[task_name])
    return [
        f for f in tracker_files(tracker, list(results["configs"]) if samples is not None else []) if not f.exists()
    ]


def tracker_files(tracker, sample_tasks: list[str]) -> list[Path]:
    """The files lm-eval's ``EvaluationTracker`` writes for its last save (``output_path`` ending in ``.json``:
    ``<stem>_<date_id>.json`` and the samples beside it; else ``<output_path>/<model>/results_<date_id>.json``
    and ``samples_<task>_<date_id>.jsonl``); none without an output path."""
    if not tracker.output_path:
        return []
    path, date_id = Path(tracker.output_path), getattr(tracker, "date_id", None)
    if date_id is None:
        return [path]
    if path.suffix == ".json":
        folder, results = path.parent, path.with_name(f"{path.stem}_{date_id}.json")
    else:
        folder = path / str(tracker.general_config_tracker.model_name_sanitized)
        results = folder / f"results_{date_id}.json"
    return [results] + [folder / f"samples_{t}_{date_id}.jsonl" for t in sample_tasks]


def check_output_path(output_path: str) -> None:
    """``ValueError`` (a usage error of ``run``) if lm-eval could not write its results under ``output_path``: a
    folder path naming an existing file, or a folder (or its nearest existing parent) that cannot be written —
    found before any model is loaded. Nothing is created."""
    import tempfile

    path = Path(output_path).expanduser()
    folder = path.parent if path.suffix == ".json" else path
    if path.suffix != ".json" and path.exists() and not path.is_dir():
        raise ValueError(f"{output_path} exists and is not a folder (give a folder, or a file name ending in .json)")
    existing = folder
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise ValueError(f"{output_path}: {existing} is not a folder")
    try:
        with tempfile.TemporaryFile(dir=existing):
            pass
    except OSError as exc:
        raise ValueError(f"{output_path}: cannot write in {existing} ({exc.strerror or exc})") from None
