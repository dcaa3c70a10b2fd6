"""``lm-eval-enterprise run``: lm-eval's ``run`` with the enterprise tasks (its parser, our options, the request
cache, the context budget, sparse cell plans)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..harness.runner import check_output_path, save_results, tracker_files
from ..taskmeta import DATA_ROOT
from .common import add_option, fail

# ------------------------------------------------------------------------------------------------ run
RUN_EPILOG = """examples:
  lm-eval-enterprise run --model hf --model_args pretrained=<model> --tasks enterprise_finance \\
      --output_path out --log_samples
  lm-eval-enterprise run --model hf --model_args pretrained=<instruct model> --apply_chat_template \\
      --tasks ent_gold_news --output_path out --log_samples          # instruct / chat models
  lm-eval-enterprise run --model dummy --tasks enterprise --data_root embedded --limit 2   # wiring check
  lm-eval-enterprise run --include_path my_tasks --tasks my_group ...  # your tasks next to ours

Every lm-eval flag works as in `lm-eval run`; see `lm-eval-enterprise list` for the task groups."""


def run_parser() -> argparse.ArgumentParser:
    """lm-eval's own ``run`` parser (``lm_eval._cli.run.Run``: every flag, spelling and default of
    ``lm-eval run``) with our options added as one more argument group, so ``run --help`` lists both."""
    from lm_eval._cli.run import Run

    subparsers = argparse.ArgumentParser(prog="lm-eval-enterprise").add_subparsers(dest="command")
    Run.create(subparsers)
    parser = subparsers.choices["run"]  # the parser Run registered, as lm-eval's HarnessCLI looks it up
    parser.prog = "lm-eval-enterprise run"
    parser.usage = (
        "lm-eval-enterprise run --model <model> --tasks <task> [--model_args <arg=value> ...] "
        "[--data_root <dir>] [options]"
    )
    parser.description = (
        "lm-eval's `run` with the enterprise tasks on the include path (next to --include_path, "
        "if given), lm-eval's built-in task index skipped unless --include_defaults, the model's "
        "context window as the prompt budget (hf, vllm), domain scores as the mean over "
        "datasets, and the regex-constrained backends (--model <backend>-constrained)."
    )
    parser.epilog = RUN_EPILOG
    ours = parser.add_argument_group("lm-eval-enterprise")
    add_option(
        ours,
        "--data_root",
        "--data-root",
        type=str,
        default=None,
        metavar="<dir>",
        help="folder with one subfolder per dataset (source files or pre-split JSONL), or 'embedded' for "
        "the package's toy fixture data; same as --metadata data_root=<dir> (default: "
        "$LM_EVAL_ENTERPRISE_DATA, else the download cache)",
    )
    add_option(
        ours,
        "--include_defaults",
        "--include-defaults",
        action="store_true",
        default=False,
        help="also index lm-eval's ~10k built-in task YAMLs (slower start; needed only to mix in built-in tasks)",
    )
    add_option(
        ours,
        "--cell_budget",
        "--cell-budget",
        type=float,
        default=None,
        metavar="<share>",
        help="sparse run: evaluate only this seeded share (0, 1] of each dataset's (template, document) "
        "cells, every template and document covered (lm_eval_enterprise.harness.cellplan); `sharpe` then "
        "reports estimates",
    )
    add_option(
        ours,
        "--cell_seed",
        "--cell-seed",
        type=int,
        default=None,
        metavar="<int>",
        help="seed of the --cell_budget design (default 0)",
    )
    add_option(
        ours,
        "--no_cache",
        "--no-cache",
        action="store_true",
        default=False,
        help="do not keep the model's answers (by default they are cached per model and settings, so rerunning "
        "a command that stopped resumes it; --use_cache <dir> puts that cache in <dir>; README: Long runs)",
    )
    add_option(
        ours,
        "--clear_cache",
        "--clear-cache",
        action="store_true",
        default=False,
        help="delete the cached answers of this model and settings first (run everything again)",
    )
    return parser


def run(argv: list[str]) -> int:
    """lm-eval's ``run`` through its public pieces: lm-eval's own argument parser and ``EvaluatorConfig``, then
    ``simple_evaluate`` with the ``TaskManager`` we build (:func:`lm_eval_enterprise.harness.runner.make_task_manager`: our
    task folder on the include path, lm-eval's built-in index only with ``--include_defaults``) and the model's
    context budget in the task metadata. The argv is parsed once; the tasks are built once (:func:`_evaluate`)."""
    from .. import TASK_DIR
    from ..data import EMBEDDED, DataError
    from ..harness.cellplan import CellPlanError

    parser = run_parser()
    if not argv:  # as `lm-eval run`
        parser.print_help()
        return 0
    try:
        args = parser.parse_args(argv)
    except ValueError as exc:  # lm-eval's own argument actions (e.g. --metadata's JSON) raise it unwrapped
        parser.error(str(exc))
    data_root = vars(args).pop("data_root", None)
    include_defaults = vars(args).pop("include_defaults", False)
    no_cache, clear_cache = vars(args).pop("no_cache", False), vars(args).pop("clear_cache", False)
    if args.limit is not None and args.limit <= 0:
        parser.error(f"argument --limit: {args.limit:g} is not a positive number of documents (or share below 1)")
    cells = _cell_options(parser, args)

    from lm_eval.config.evaluate_config import EvaluatorConfig
    from lm_eval.utils import setup_logging

    from ..harness.constrained import register_models
    from ..harness.runner import make_task_manager

    setup_logging()
    register_models()  # --model hf-constrained / vllm-constrained / local-(chat-)completions-constrained
    try:
        cfg = EvaluatorConfig.from_cli(args)
    except (ValueError, TypeError, OSError) as exc:  # lm-eval's checks of the arguments: a usage error
        parser.error(str(exc))
    if cfg.include_path and not Path(cfg.include_path).is_dir():
        parser.error(f"argument --include_path: {cfg.include_path}: no such folder")
    if data_root is not None:
        if data_root != EMBEDDED and not Path(data_root).expanduser().is_dir():
            parser.error(f"argument --data_root: {data_root}: no such folder (or 'embedded')")
        given = cfg.metadata.get(DATA_ROOT)
        if given not in (None, data_root):
            parser.error(f"--data_root {data_root} and --metadata data_root={given} disagree; give one")
        cfg.metadata[DATA_ROOT] = data_root
    _check_values(parser, cfg)
    cfg.metadata = _with_model_budget(cfg.model, cfg.model_args or {}, cfg.metadata or {})
    task_manager = make_task_manager(
        [p for p in (cfg.include_path, TASK_DIR) if p], include_defaults=include_defaults, metadata=cfg.metadata
    )
    try:
        cfg.tasks = _resolve_tasks(task_manager, cfg.tasks)
    except LookupError as exc:
        parser.error(f"argument --tasks: {exc}")
    cache = None if no_cache else _request_cache(cfg, clear_cache)
    try:
        return _evaluate(cfg, task_manager, cells)
    except CellPlanError as exc:  # a plan the tasks do not allow (e.g. --limit cutting a ranking query)
        parser.error(str(exc))
    except DataError as exc:  # one clear line instead of lm-eval's traceback
        return fail(str(exc))
    except KeyboardInterrupt:
        return _interrupted(cache, argv)


def _check_values(parser: argparse.ArgumentParser, cfg) -> None:
    """Usage errors found before any model is loaded: ``--metadata max_context_tokens`` that is no number, an
    ``--output_path`` that could not be written."""
    from ..prompting.budget import check_budget_metadata

    try:
        check_budget_metadata(cfg.metadata or {})
    except ValueError as exc:
        parser.error(f"argument --metadata: {exc}")
    if cfg.output_path:
        try:
            check_output_path(cfg.output_path)
        except ValueError as exc:
            parser.error(f"argument --output_path: {exc}")


EXIT_INTERRUPTED = 130  # the shell's code for a command ended by Ctrl-C (SIGINT)


def _request_cache(cfg, clear: bool):
    """Turn on lm-eval's answer cache for this model identity (:mod:`lm_eval_enterprise.harness.request_cache`): the
    folder is ``--use_cache`` if given, else the default; ``cfg.use_cache`` becomes the identity's file prefix.
    Prints one line: the file and how many answers it already holds. Returns the cache file."""
    from ..harness import request_cache as rc

    identity = rc.model_identity(
        cfg.model,
        cfg.model_args,
        apply_chat_template=cfg.apply_chat_template,
        fewshot_as_multiturn=cfg.fewshot_as_multiturn,
        system_instruction=cfg.system_instruction,
        gen_kwargs=cfg.gen_kwargs,
    )
    prefix = rc.cache_prefix(cfg.use_cache or rc.default_folder(), identity)
    if clear:
        rc.clear(prefix)
    rc.write_identity(prefix, identity)
    cfg.use_cache = str(prefix)
    db = rc.db_file(prefix)
    print(f"answer cache: {db} ({rc.stored_answers(db):,} answers stored; --no_cache to run without)", file=sys.stderr)
    return db


def _interrupted(cache, argv: list[str]) -> int:
    """Ctrl-C: one line saying what was kept and the command that resumes (no traceback)."""
    import shlex

    from ..harness import request_cache as rc

    if cache is None:
        print("\ninterrupted: nothing kept (--no_cache)", file=sys.stderr)
    else:
        resume = shlex.join(
            ["lm-eval-enterprise", "run", *[a for a in argv if a not in ("--clear_cache", "--clear-cache")]]
        )
        print(  # on a line of its own: a progress bar may have left the cursor at its end
            f"\ninterrupted: {rc.stored_answers(cache):,} answer(s) kept in {cache}; resume with: {resume}",
            file=sys.stderr,
        )
    return EXIT_INTERRUPTED


def _cell_options(parser: argparse.ArgumentParser, args: argparse.Namespace) -> dict | None:
    """``--cell_budget F [--cell_seed S]`` (a sparse run, :mod:`lm_eval_enterprise.harness.cellplan`): the plan's
    arguments for ``plan_for_tasks`` (budget, seed, limit), taken out of ``args``; None without ``--cell_budget``.
    Usage errors: a seed without a budget, a budget outside (0, 1], ``--samples`` (a second selection),
    ``--cache_requests`` (lm-eval's request cache is keyed without the sample selection, so cached requests of
    other documents would be scored against the plan's), no ``--tasks``, a ``--limit`` that is not a whole number.
    ``--limit N`` restricts the plan to the first N documents and is not passed on (lm-eval takes either a limit
    or a sample selection)."""
    from ..harness.cellplan import CellPlanError, check_budget

    budget = vars(args).pop("cell_budget", None)
    seed = vars(args).pop("cell_seed", None)
    if budget is None:
        if seed is not None:
            parser.error("--cell_seed needs --cell_budget")
        return None
    try:
        budget = check_budget(budget)
    except CellPlanError as exc:
        parser.error(str(exc))
    for flag, given, why in (
        ("--samples", args.samples is not None, "it selects the documents itself"),
        ("--cache_requests", args.cache_requests is not None, "lm-eval's request cache ignores the document selection"),
    ):
        if given:
            parser.error(f"--cell_budget cannot be combined with {flag}: {why}")
    if not args.tasks:
        parser.error("--cell_budget needs --tasks")
    limit = args.limit
    if limit is not None:
        if not float(limit).is_integer():
            parser.error(f"with --cell_budget, --limit must be a whole number of documents, not {limit:g}")
        limit, args.limit = int(limit), None
    return {"budget": budget, "seed": 0 if seed is None else seed, "limit": limit}


def _with_model_budget(model: str, model_args: dict, metadata: dict) -> dict:
    """``metadata`` plus the context budget read from an ``hf`` / ``vllm`` model (``prompt_budget.model_budget``);
    what the user gave in ``--metadata`` wins (a given ``max_context_tokens`` keeps its source ``metadata``)."""
    from ..prompting.budget import model_budget

    if "max_context_tokens" in metadata and "context_tokenizer" in metadata:
        return metadata
    budget = model_budget(model, model_args)
    if "max_context_tokens" in metadata:
        budget = {k: v for k, v in budget.items() if k == "context_tokenizer"}
    return {**budget, **metadata}


def _resolve_tasks(task_manager, tasks) -> list:
    """Task names (globs allowed) and YAML files of ``--tasks``, as lm-eval's CLI resolves them; ``LookupError``
    naming the ones that match nothing."""
    import glob

    from lm_eval.tasks._yaml_loader import load_yaml

    names = tasks.split(",") if isinstance(tasks, str) else [t for task in tasks or [] for t in task.split(",")]
    resolved, missing = [], []
    for name in dict.fromkeys(names):
        if name.endswith(".yaml"):
            found = [load_yaml(f, resolve_func=True) for f in glob.glob(str(Path(name).absolute()))]
        else:
            found = task_manager.match_tasks([name])
        missing += [] if found else [name]
        resolved += [t for t in found if t not in resolved]
    if missing or not resolved:
        raise LookupError(
            f"tasks not found: {', '.join(missing) or '(none given)'} (task and group names: "
            "`lm-eval-enterprise list`, variants ent_<dataset>__t<k>)"
        )
    return resolved


def _evaluate(cfg, task_manager, cells: dict | None = None) -> int:
    """What ``lm_eval run`` does after building its task manager: build the tasks (once: lm-eval is handed the
    built objects), with ``cells`` plan the sparse run on them (:func:`_cell_options`; the plan's samples go to
    lm-eval, its metadata into every planned task's metadata), evaluate, save, log, print the tables. Returns the
    exit code: 1 when the results could not be saved where asked (:func:`save_or_fallback`)."""
    import os

    from lm_eval import simple_evaluate
    from lm_eval.evaluator_utils import run_task_tests
    from lm_eval.loggers import EvaluationTracker, TrackioLogger, WandbLogger
    from lm_eval.utils import handle_non_serializable, make_table

    from ..harness import request_cache
    from ..harness.cellplan import plan_for_tasks, record_plan, whole_query_samples
    from ..harness.runner import load_tasks

    tasks = load_tasks(task_manager, cfg.tasks)
    if cells is None and cfg.limit is not None:  # a limit never cuts a ranking query: rounded up to whole queries
        samples, notes = whole_query_samples(tasks.leaves, cfg.limit)
        if samples:
            cfg.samples, cfg.limit = samples, None
            print("\n".join(notes), file=sys.stderr)
    if cells is not None:
        plan = plan_for_tasks(tasks.leaves, **cells)
        record_plan(tasks.leaves, plan)
        cfg.samples = plan.samples
        print(plan.summary(), file=sys.stderr)
    if cfg.check_integrity:  # lm-eval's test run by task name (it would be handed the built tasks)
        run_task_tests(task_list=[t for t in cfg.tasks if isinstance(t, str)])

    loggers = ([WandbLogger(cfg.wandb_args, cfg.wandb_config_args)] if cfg.wandb_args else []) + (
        [TrackioLogger(cfg.trackio_args)] if cfg.trackio_args else []
    )
    if cfg.output_path:
        cfg.hf_hub_log_args["output_path"] = cfg.output_path
    if os.environ.get("HF_TOKEN"):
        cfg.hf_hub_log_args["token"] = os.environ["HF_TOKEN"]
    tracker = EvaluationTracker(**cfg.hf_hub_log_args)
    seeds = cfg.seed or [None] * 4
    model = request_cache.through_cache(cfg.model, cfg.use_cache) if cfg.use_cache else cfg.model
    results = simple_evaluate(
        model=model,
        model_args=cfg.model_args,
        tasks=tasks.top,
        num_fewshot=cfg.num_fewshot,
        batch_size=cfg.batch_size,
        max_batch_size=cfg.max_batch_size,
        device=cfg.device,
        use_cache=None,  # the answer cache is the model's (request_cache.through_cache)
        cache_requests=cfg.cache_requests.get("cache_requests", False),
        rewrite_requests_cache=cfg.cache_requests.get("rewrite_requests_cache", False),
        delete_requests_cache=cfg.cache_requests.get("delete_requests_cache", False),
        limit=cfg.limit,
        samples=cfg.samples,
        write_out=cfg.write_out,
        log_samples=cfg.log_samples,
        evaluation_tracker=tracker,
        system_instruction=cfg.system_instruction,
        apply_chat_template=cfg.apply_chat_template,
        fewshot_as_multiturn=cfg.fewshot_as_multiturn,
        gen_kwargs=cfg.gen_kwargs,
        task_manager=task_manager,
        verbosity=cfg.verbosity,
        predict_only=cfg.predict_only,
        random_seed=seeds[0],
        numpy_random_seed=seeds[1],
        torch_random_seed=seeds[2],
        fewshot_random_seed=seeds[3],
        confirm_run_unsafe_code=cfg.confirm_run_unsafe_code,
        metadata=cfg.metadata,
    )
    if results is None:  # a non-zero rank
        return 0
    if model != cfg.model:
        request_cache.restore_model_name(results, tracker, cfg.model, cfg.use_cache)
    samples = results.pop("samples") if cfg.log_samples else None
    if cfg.show_config:
        print(json.dumps(results, indent=2, default=handle_non_serializable, ensure_ascii=False))
    for logger in loggers:
        logger.post_init(results)
        logger.log_eval_result()
        if samples is not None:
            logger.log_eval_samples(samples)
    code = save_or_fallback(tracker, results, samples) if cfg.output_path else 0
    if tracker.push_results_to_hub or tracker.push_samples_to_hub:
        tracker.recreate_metadata_card()
    batch_sizes = ",".join(map(str, results["config"]["batch_sizes"]))
    cfg.model_args.pop("trust_remote_code", None)
    print(
        f"{cfg.model} ({cfg.model_args}), gen_kwargs: ({cfg.gen_kwargs}), limit: {cfg.limit}, num_fewshot: "
        f"{cfg.num_fewshot}, batch_size: {cfg.batch_size}{f' ({batch_sizes})' if batch_sizes else ''}"
    )
    print(make_table(results))
    if "groups" in results:
        print(make_table(results, "groups"))
    for logger in loggers:
        (logger.run.finish if isinstance(logger, WandbLogger) else logger.finish)()
    return code


def save_or_fallback(tracker, results: dict, samples: dict | None) -> int:
    """:func:`save_results`; if lm-eval could not write a file, write everything again under a fallback folder
    (``./lm_eval_enterprise_unsaved``, else the temp folder) and return 1 with one ``error:`` line naming it."""
    import tempfile

    missing = save_results(tracker, results, samples)
    if not missing:
        return 0
    wanted = tracker.output_path
    for base in (Path.cwd(), Path(tempfile.gettempdir())):
        tracker.output_path = str(base / "lm_eval_enterprise_unsaved")
        if not save_results(tracker, results, samples):
            written = tracker_files(tracker, [])[0]
            return fail(f"could not write the results under {wanted} ({missing[0]}); they were written to {written}")
    return fail(f"could not write the results under {wanted} ({missing[0]}), nor in a fallback folder")
