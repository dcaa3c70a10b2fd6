"""lm-eval-enterprise: the enterprise benchmark tasks for lm-evaluation-harness, and their Sharpe scores.

commands:
  run        lm-eval's `run` with the enterprise tasks on the include path (next to --include_path, if given)
             and without indexing lm-eval's ~10k built-in YAMLs unless --include_defaults (fast start). Every
             lm-eval flag works as in `lm-eval run`; --data_root DIR is merged into --metadata, and so is the
             context budget of hf / vllm models (their context window and tokenizer); domain and `enterprise`
             scores are means over datasets; --model <backend>-constrained runs regex-constrained decoding;
             --cell_budget F [--cell_seed S] evaluates only a seeded share F of the (template, document) cells
             (a sparse run; `sharpe` then reports estimates).
  tasks-dir  print the task folder (lm_eval --include_path "$(lm-eval-enterprise tasks-dir)" ...)
  list       datasets, domains and their task groups
  prepare    make datasets ready ahead of time (--dataset ID / --domain D / --all): with a data root
             (--data_root DIR or $LM_EVAL_ENTERPRISE_DATA) check DIR/<id>/ or download into it, else into the
             cache; offline (HF_HUB_OFFLINE / HF_DATASETS_OFFLINE) nothing is downloaded; --dataset ID --from
             PATH imports a file or folder obtained elsewhere instead and checks it like a download
  verify     load every dataset present (--data_root DIR, $LM_EVAL_ENTERPRISE_DATA or the cache) and print one
             line each: rows per split, expected, verified?, sha256, OK / warning / error
  demo       the offline demo: SmolLM2-135M-Instruct (with its chat template) on the embedded fixture data
  sharpe     Sharpe score and robustness statistics across the templates of lm-eval output folders

Flags are spelled as lm-eval's (underscores). Exit codes as lm-eval: 0 ok, 1 a failed run (one "error:" line),
2 a usage error (argparse's usage and one "error:" line). A command given no arguments that needs some prints
its help.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

# ------------------------------------------------------------------------------------------------ conventions
# lm-eval's: flags spelled with underscores (``--output_path``, ``--include_path``; our older dashed spellings stay
# as hidden aliases), a command that needs arguments prints its help when given none (exit 0), usage errors are
# argparse's ``usage: ...`` + one ``error:`` line with exit code 2, a failed run is one ``error:`` line with exit
# code 1.
EXIT_FAILURE = 1
EXIT_USAGE = 2  # argparse's code for a usage error


def add_option(parser, name: str, *aliases: str, **kwargs):
    """``parser.add_argument(name, **kwargs)`` plus each old spelling in ``aliases`` as a hidden alias (same
    destination and action, not shown in ``--help``)."""
    action = parser.add_argument(name, **kwargs)
    hidden = {k: v for k, v in kwargs.items() if k not in ("help", "default", "metavar", "required")}
    for alias in aliases:
        parser.add_argument(alias, **{**hidden, "dest": action.dest}, default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    return action


def fail(message: str, code: int = EXIT_FAILURE) -> int:
    """One ``error:`` line on stderr; returns the exit code: 1 a failed run (default), :data:`EXIT_USAGE` an
    option that cannot be used here, reported without argparse's usage line."""
    print(f"error: {message}", file=sys.stderr)
    return code


def version_string() -> str:
    from importlib.metadata import PackageNotFoundError, version

    from . import __version__

    try:
        lm_eval_version = version("lm_eval")
    except PackageNotFoundError:
        lm_eval_version = "not installed"
    return f"lm-eval-enterprise {__version__} (lm-eval {lm_eval_version})"


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
        "cells, every template and document covered (lm_eval_enterprise.cellplan); `sharpe` then "
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
    return parser


def _run(argv: list[str]) -> int:
    """lm-eval's ``run`` through its public pieces: lm-eval's own argument parser and ``EvaluatorConfig``, then
    ``simple_evaluate`` with the :class:`~lm_eval_enterprise.task_manager.EnterpriseTaskManager` we build (our
    task folder on the include path, lm-eval's built-in index only with ``--include_defaults``) and the model's
    context budget in the task metadata. The argv is parsed once; the tasks are built once (:func:`_evaluate`)."""
    from . import TASK_DIR
    from .cellplan import CellPlanError
    from .data import EMBEDDED, DataError

    parser = run_parser()
    if not argv:  # as `lm-eval run`
        parser.print_help()
        return 0
    args = parser.parse_args(argv)
    data_root = vars(args).pop("data_root", None)
    include_defaults = vars(args).pop("include_defaults", False)
    cells = _cell_options(parser, args)

    from lm_eval.config.evaluate_config import EvaluatorConfig
    from lm_eval.utils import setup_logging

    from .constrained import register_models
    from .runner import make_task_manager

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
        given = cfg.metadata.get("data_root")
        if given not in (None, data_root):
            parser.error(f"--data_root {data_root} and --metadata data_root={given} disagree; give one")
        cfg.metadata["data_root"] = data_root
    cfg.metadata = _with_model_budget(cfg.model, cfg.model_args or {}, cfg.metadata or {})
    task_manager = make_task_manager(
        [p for p in (cfg.include_path, TASK_DIR) if p], include_defaults=include_defaults, metadata=cfg.metadata
    )
    try:
        cfg.tasks = _resolve_tasks(task_manager, cfg.tasks)
    except LookupError as exc:
        parser.error(f"argument --tasks: {exc}")
    try:
        _evaluate(cfg, task_manager, cells)
    except CellPlanError as exc:  # a plan the tasks do not allow (e.g. --limit cutting a ranking query)
        parser.error(str(exc))
    except DataError as exc:  # one clear line instead of lm-eval's traceback
        return fail(str(exc))
    return 0


def _cell_options(parser: argparse.ArgumentParser, args: argparse.Namespace) -> dict | None:
    """``--cell_budget F [--cell_seed S]`` (a sparse run, :mod:`lm_eval_enterprise.cellplan`): the plan's
    arguments for ``plan_for_tasks`` (budget, seed, limit), taken out of ``args``; None without ``--cell_budget``.
    Usage errors: a seed without a budget, a budget outside (0, 1], ``--samples`` (a second selection),
    ``--cache_requests`` (lm-eval's request cache is keyed without the sample selection, so cached requests of
    other documents would be scored against the plan's), no ``--tasks``, a ``--limit`` that is not a whole number.
    ``--limit N`` restricts the plan to the first N documents and is not passed on (lm-eval takes either a limit
    or a sample selection)."""
    from .cellplan import CellPlanError, check_budget

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
    from .prompt_budget import model_budget

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


def _evaluate(cfg, task_manager, cells: dict | None = None) -> None:
    """What ``lm_eval run`` does after building its task manager: build the tasks (once: lm-eval is handed the
    built objects), with ``cells`` plan the sparse run on them (:func:`_cell_options`; the plan's samples go to
    lm-eval, its metadata into every planned task's metadata), evaluate, save, log, print the tables."""
    import os

    from lm_eval import simple_evaluate
    from lm_eval.evaluator_utils import run_task_tests
    from lm_eval.loggers import EvaluationTracker, TrackioLogger, WandbLogger
    from lm_eval.utils import handle_non_serializable, make_table

    from .cellplan import plan_for_tasks, record_plan
    from .runner import load_tasks

    tasks = load_tasks(task_manager, cfg.tasks)
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
    results = simple_evaluate(
        model=cfg.model,
        model_args=cfg.model_args,
        tasks=tasks.top,
        num_fewshot=cfg.num_fewshot,
        batch_size=cfg.batch_size,
        max_batch_size=cfg.max_batch_size,
        device=cfg.device,
        use_cache=cfg.use_cache,
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
        return
    samples = results.pop("samples") if cfg.log_samples else None
    if cfg.show_config:
        print(json.dumps(results, indent=2, default=handle_non_serializable, ensure_ascii=False))
    for logger in loggers:
        logger.post_init(results)
        logger.log_eval_result()
        if samples is not None:
            logger.log_eval_samples(samples)
    save_results(tracker, results, samples)
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


def save_results(tracker, results: dict, samples: dict | None) -> None:
    """Write ``results`` (``samples`` popped out of it) and, when logged, each task's ``samples`` with lm-eval's
    ``EvaluationTracker``, as lm-eval's own CLI does after ``simple_evaluate``."""
    tracker.save_results_aggregated(results=results, samples=samples)
    if samples is not None:
        for task_name in results["configs"]:
            tracker.save_results_samples(task_name=task_name, samples=samples[task_name])


def _list(args: argparse.Namespace) -> int:
    from .data import iter_sources

    rows = sorted(iter_sources(args.domain), key=lambda s: (s.domain, s.id))
    for src in rows:
        print(f"{src.domain:8} {src.id:22} {src.task_type:23} group ent_{src.id}")
    return 0


def _selected_sources(args: argparse.Namespace, default_all: bool = False) -> list:
    """The Sources named by ``--dataset`` / ``--domain`` / ``--all`` (all when ``default_all``); ids and domains
    are checked by the parser (``choices``), nothing selected is a usage error."""
    from .data import get_source, iter_sources

    if args.dataset:
        return [get_source(d) for d in dict.fromkeys(args.dataset)]
    if args.domain:
        return list(iter_sources(args.domain))
    if getattr(args, "all", False) or default_all:
        return list(iter_sources())
    args.parser.error("give --dataset ID (repeatable), --domain D or --all")


def _set_data_root(args: argparse.Namespace) -> None:
    """``--data-root DIR`` = ``$LM_EVAL_ENTERPRISE_DATA=DIR`` for this command (messages then name that folder)."""
    import os

    from .data import ENV_DATA

    if args.data_root:
        os.environ[ENV_DATA] = args.data_root


def _prepare_from(args: argparse.Namespace) -> int:
    """``prepare --dataset ID --from PATH``: import and check (:func:`lm_eval_enterprise.data.import_from`)."""
    from .data import DataError, get_source, import_from

    if not args.dataset or len(set(args.dataset)) != 1 or args.domain or args.all:
        args.parser.error("--from imports one dataset: give exactly one --dataset ID")
    src = get_source(args.dataset[0])
    _set_data_root(args)
    try:
        d = import_from(src, args.from_path, force=args.force)
    except DataError as exc:
        return fail(str(exc))
    print(
        f"{src.id}: imported {args.from_path} into {d} (checked like a download; sha256 and rows in {d}/.imported.json)"
    )
    return 0


def _prepare(args: argparse.Namespace) -> int:
    from .data import DataError, prepare

    if args.from_path is not None:
        return _prepare_from(args)
    sources = _selected_sources(args)
    _set_data_root(args)
    failed = 0
    for src in sources:
        try:
            d = prepare(src, progress=not args.quiet, force=args.force)
            print(f"{src.id}: ready in {d}")
        except DataError as exc:
            failed += 1
            print(f"error: {exc}", file=sys.stderr)
    return 1 if failed else 0


def _verify(args: argparse.Namespace) -> int:
    """One line per dataset present: rows per split / expected, verified?, sha256 (short), status."""
    import os

    from tqdm.auto import tqdm

    from .data import COMPLETE_MARKER, ENV_DATA, DataError, cache_root, data_folder, inspect_folder

    sources = _selected_sources(args, default_all=True)
    root = args.data_root or os.environ.get(ENV_DATA)
    if root:
        base = root
        present = [(s, data_folder(s.id, root)) for s in sources if data_folder(s.id, root).is_dir()]
    else:
        base = cache_root()
        present = [(s, base / s.id) for s in sources if (base / s.id / COMPLETE_MARKER).exists()]
    if not present:
        return fail(f"no dataset folder to verify in {base}")
    errors = warnings = 0
    width = max(len(s.id) for s, _ in present)
    for src, d in tqdm(present, desc="verify", unit="dataset", file=sys.stderr, disable=args.quiet):
        try:
            _, report = inspect_folder(src, d, defer_errors=True)
        except DataError as exc:
            errors += 1
            tqdm.write(f"{src.id:<{width}}  ERROR: {exc}", file=sys.stdout)
            continue
        errors += report.status == "error"
        warnings += report.status == "warning"
        tqdm.write(f"{src.id:<{width}}  {verify_line(report)}", file=sys.stdout)
    absent = len(sources) - len(present)
    print(
        f"{len(present)} verified in {base}: {len(present) - errors - warnings} OK, {warnings} warning(s), "
        f"{errors} error(s)" + (f"; {absent} not present" if absent else "")
    )
    return 1 if errors else 0


def verify_line(report) -> str:
    """``train 4/45,000 test 8/3,600  verified: no  sha256 1a2b3c4d5e6f  warning: <first note>``."""
    counts = " ".join(f"{c.key} {c.n:,}/{'?' if c.expected.n is None else f'{c.expected.n:,}'}" for c in report.checks)
    flags = {c.expected.verified for c in report.checks}  # a count without an expectation is unverified
    ver = (
        "manifest"
        if report.declared == "MANIFEST.json"
        else ("yes" if flags == {True} else "partly" if flags == {True, False} else "no")
    )
    status = report.status.upper() if report.status == "ok" else report.status
    notes = report.messages
    tail = f": {notes[0]}" + (f" (+{len(notes) - 1} more)" if len(notes) > 1 else "") if notes else ""
    return f"{counts}  verified: {ver}  sha256 {report.sha256[:12]}  {status}{tail}"


def _demo(args: argparse.Namespace) -> int:
    from .demo import run_demo

    return run_demo(
        limit=args.limit, out_dir=args.output_path, model_dir=args.model_dir, chat_template=not args.no_chat_template
    )


def _tasks_dir(args: argparse.Namespace) -> int:
    from . import TASK_DIR

    print(TASK_DIR)
    return 0


def _sharpe(argv: list[str]) -> int:
    from .sharpe.cli import main as sharpe_main

    return sharpe_main(argv)


def _dataset_ids() -> list[str]:
    from .data import tasktree  # looked up at call time, as get_source does

    return sorted(tasktree.registry())


def _selection_options(p: argparse.ArgumentParser, with_all: bool) -> None:
    from .data.tasktree import domains

    p.add_argument(
        "--dataset",
        action="append",
        choices=_dataset_ids(),
        metavar="<id>",
        help="dataset id (repeatable; see `lm-eval-enterprise list`)",
    )
    p.add_argument("--domain", choices=domains(), help="every dataset of one domain")
    if with_all:
        p.add_argument("--all", action="store_true", help="every dataset")
    add_option(
        p,
        "--data_root",
        "--data-root",
        metavar="<dir>",
        help="data root (default: $LM_EVAL_ENTERPRISE_DATA, else the cache)",
    )


def build_parser() -> argparse.ArgumentParser:
    from .data.tasktree import domains

    ap = argparse.ArgumentParser(
        prog="lm-eval-enterprise", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--version", action="version", version=version_string())
    sub = ap.add_subparsers(dest="cmd", metavar="COMMAND")
    # run and sharpe have their own parsers (lm-eval's run parser; lm_eval_enterprise.sharpe.cli)
    sub.add_parser(
        "run", help="lm-eval run with the enterprise tasks (every lm-eval flag; see `run --help`)", add_help=False
    )
    p = sub.add_parser("tasks-dir", help="print the task folder (for lm_eval --include_path)")
    p.set_defaults(handler=_tasks_dir)
    p = sub.add_parser("list", help="list datasets, domains and their task groups")
    p.add_argument("--domain", choices=domains())
    p.set_defaults(handler=_list)
    p = sub.add_parser("prepare", help="make datasets ready: check the data root's folders or download")
    _selection_options(p, with_all=True)
    p.add_argument("--force", action="store_true", help="download (or import) again even if present")
    p.add_argument(
        "--from",
        dest="from_path",
        default=None,
        metavar="<path>",
        help="import this file or folder (obtained elsewhere) for the one --dataset instead of downloading; "
        "checked exactly like a download",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(handler=_prepare, needs_arguments=True)
    p = sub.add_parser("verify", help="check every dataset present: counts, verified?, sha256, labels")
    _selection_options(p, with_all=False)
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(handler=_verify)
    p = sub.add_parser("demo", help="offline demo with SmolLM2-135M-Instruct on the embedded fixture data")
    p.add_argument(
        "--limit",
        type=int,
        default=None,
        metavar="<n>",
        help="documents per task variant (default: the demo's setting)",
    )
    p.add_argument("--output_path", "-o", default="demo_out", metavar="<path>")
    add_option(
        p,
        "--model_dir",
        "--model-dir",
        default=None,
        metavar="<dir>",
        help="use this HF model folder instead of SmolLM2",
    )
    p.add_argument(
        "--no_chat_template",
        action="store_true",
        help="prompt the instruct model without its chat template (as plain completion)",
    )
    p.set_defaults(handler=_demo)
    sub.add_parser(
        "sharpe", help="aggregate template variants (see `lm-eval-enterprise sharpe --help`)", add_help=False
    )
    for parser in sub.choices.values():
        parser.set_defaults(parser=parser)
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    """Exit codes as lm-eval: 0 ok, 1 a failed run (one ``error:`` line), 2 a usage error (argparse)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv and argv[0] == "run":
            return _run(argv[1:])
        if argv and argv[0] == "sharpe":
            return _sharpe(argv[1:])
        if argv and argv[0] == "sharpe-sparse":  # hidden alias of the first version: `sharpe` detects sparse runs
            from .sharpe.sparse_cli import main as sparse_main

            return sparse_main(argv[1:])
        ap = build_parser()
        if not argv:
            ap.print_help()
            return 0
        args = ap.parse_args(argv)
        if getattr(args, "needs_arguments", False) and len(argv) == 1:
            args.parser.print_help()
            return 0
        return args.handler(args)
    except SystemExit as exc:  # argparse: --help / --version (0), usage errors (2)
        if exc.code is None or isinstance(exc.code, int):
            return exc.code or 0
        print(f"error: {exc.code}", file=sys.stderr)  # SystemExit("message"): a failed run
        return EXIT_FAILURE


if __name__ == "__main__":
    sys.exit(main())
