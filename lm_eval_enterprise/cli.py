"""``lm-eval-enterprise`` command line.

Subcommands:
  run        lm-eval's ``run`` with our task folder on the include path and, unless ``--include-defaults``,
             without indexing lm-eval's ~10k built-in YAMLs (fast start). Every lm-eval flag is passed through;
             ``--data-root DIR`` is merged into ``--metadata``, and so is the context budget of ``hf``/``vllm``
             models (``max_context_tokens`` and ``context_tokenizer`` read from the model; see prompt_budget); the
             regex-constrained model wrappers (``--model <backend>-constrained``, lm_eval_enterprise.constrained)
             are registered; ``--cell_budget F [--cell_seed S]`` evaluates only a seeded share F of the
             (template, document) cells (``cellplan.py``; ``sharpe`` then reports estimates).
  tasks-dir  print the task folder (for ``lm_eval --include_path "$(lm-eval-enterprise tasks-dir)"``)
  list       datasets, domains and their task groups
  prepare    make datasets ready ahead of time (``--dataset ID`` / ``--domain D`` / ``--all``): with a data root
             (``--data-root DIR`` or ``$LM_EVAL_ENTERPRISE_DATA``) check ``DIR/<id>/`` or download into it, else
             the cache; offline (``HF_HUB_OFFLINE``/``HF_DATASETS_OFFLINE``) nothing is downloaded
  verify     load every dataset present (``--data-root DIR``, ``$LM_EVAL_ENTERPRISE_DATA`` or the cache) and print
             one line each: rows per split, expected, verified?, sha256, OK / warning / error (exit 1 on errors)
  demo       the offline demo: SmolLM2-135M-Instruct on the embedded fixture data, score table per template
  sharpe     aggregate template variants of lm-eval output folders (Sharpe score, robustness statistics)
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Sequence


def _run(argv: list[str]) -> int:
    """lm-eval's ``run`` through its public pieces: lm-eval's own argument parser and ``EvaluatorConfig``, then
    ``simple_evaluate`` with a ``TaskManager`` we build (our task folder on the include path, lm-eval's built-in
    index only with ``--include-defaults``) and the model's context budget in the task metadata."""
    from . import TASK_DIR
    from .data import DataError

    include_defaults = "--include-defaults" in argv
    argv = _merge_data_root([a for a in argv if a != "--include-defaults"])
    from lm_eval._cli import HarnessCLI
    from lm_eval.config.evaluate_config import EvaluatorConfig
    from lm_eval.tasks import TaskManager
    from lm_eval.utils import setup_logging

    from .constrained import register_models

    setup_logging()
    register_models()  # --model hf-constrained / vllm-constrained / local-(chat-)completions-constrained

    from .cellplan import has_cell_flags

    if has_cell_flags(argv):  # sparse template × document design (cellplan.py)
        from .cellplan import CellPlanError, rewrite_run_argv

        try:
            argv, plan = rewrite_run_argv(argv)
        except (CellPlanError, DataError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        print(plan.summary(), file=sys.stderr)
    sys.argv = ["lm-eval", "run"] + argv
    cfg = EvaluatorConfig.from_cli(HarnessCLI().parse_args())
    cfg.metadata = _with_model_budget(cfg.model, cfg.model_args or {}, cfg.metadata or {})
    try:
        task_manager = TaskManager(include_path=[p for p in (cfg.include_path, TASK_DIR) if p],
                                   include_defaults=include_defaults, metadata=cfg.metadata)
        cfg.tasks = _resolve_tasks(task_manager, cfg.tasks)
        _evaluate(cfg, task_manager)
    except DataError as exc:  # one clear line instead of lm-eval's traceback
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


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
    """Task names (globs allowed) and YAML files of ``--tasks``, as lm-eval's CLI resolves them."""
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
        raise SystemExit(f"lm-eval-enterprise run: tasks not found: {', '.join(missing) or '(none given)'}")
    return resolved


def _evaluate(cfg, task_manager) -> None:
    """What ``lm_eval run`` does after building its task manager: evaluate, save, log, print the tables."""
    import os

    from lm_eval import simple_evaluate
    from lm_eval.loggers import EvaluationTracker, TrackioLogger, WandbLogger
    from lm_eval.utils import handle_non_serializable, make_table

    loggers = ([WandbLogger(cfg.wandb_args, cfg.wandb_config_args)] if cfg.wandb_args else []) + (
        [TrackioLogger(cfg.trackio_args)] if cfg.trackio_args else [])
    if cfg.output_path:
        cfg.hf_hub_log_args["output_path"] = cfg.output_path
    if os.environ.get("HF_TOKEN"):
        cfg.hf_hub_log_args["token"] = os.environ["HF_TOKEN"]
    tracker = EvaluationTracker(**cfg.hf_hub_log_args)
    seeds = cfg.seed or [None] * 4
    results = simple_evaluate(
        model=cfg.model, model_args=cfg.model_args, tasks=cfg.tasks, num_fewshot=cfg.num_fewshot,
        batch_size=cfg.batch_size, max_batch_size=cfg.max_batch_size, device=cfg.device, use_cache=cfg.use_cache,
        cache_requests=cfg.cache_requests.get("cache_requests", False),
        rewrite_requests_cache=cfg.cache_requests.get("rewrite_requests_cache", False),
        delete_requests_cache=cfg.cache_requests.get("delete_requests_cache", False),
        limit=cfg.limit, samples=cfg.samples, check_integrity=cfg.check_integrity, write_out=cfg.write_out,
        log_samples=cfg.log_samples, evaluation_tracker=tracker, system_instruction=cfg.system_instruction,
        apply_chat_template=cfg.apply_chat_template, fewshot_as_multiturn=cfg.fewshot_as_multiturn,
        gen_kwargs=cfg.gen_kwargs, task_manager=task_manager, verbosity=cfg.verbosity,
        predict_only=cfg.predict_only, random_seed=seeds[0], numpy_random_seed=seeds[1],
        torch_random_seed=seeds[2], fewshot_random_seed=seeds[3],
        confirm_run_unsafe_code=cfg.confirm_run_unsafe_code, metadata=cfg.metadata)
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
    tracker.save_results_aggregated(results=results, samples=samples)
    if samples is not None:
        for task_name in results["configs"]:
            tracker.save_results_samples(task_name=task_name, samples=samples[task_name])
    if tracker.push_results_to_hub or tracker.push_samples_to_hub:
        tracker.recreate_metadata_card()
    batch_sizes = ",".join(map(str, results["config"]["batch_sizes"]))
    cfg.model_args.pop("trust_remote_code", None)
    print(f"{cfg.model} ({cfg.model_args}), gen_kwargs: ({cfg.gen_kwargs}), limit: {cfg.limit}, num_fewshot: "
          f"{cfg.num_fewshot}, batch_size: {cfg.batch_size}{f' ({batch_sizes})' if batch_sizes else ''}")
    print(make_table(results))
    if "groups" in results:
        print(make_table(results, "groups"))
    for logger in loggers:
        (logger.run.finish if isinstance(logger, WandbLogger) else logger.finish)()


def _merge_data_root(argv: list[str]) -> list[str]:
    if "--data-root" not in argv:
        return argv
    i = argv.index("--data-root")
    if i + 1 >= len(argv):
        raise SystemExit("lm-eval-enterprise run: --data-root needs a folder")
    root = argv[i + 1]
    argv = argv[:i] + argv[i + 2:]
    meta = {}
    if "--metadata" in argv:
        j = argv.index("--metadata")
        meta = json.loads(argv[j + 1])
        argv = argv[:j] + argv[j + 2:]
    meta["data_root"] = root
    return argv + ["--metadata", json.dumps(meta)]


def _list(args: argparse.Namespace) -> int:
    from .data import iter_sources

    rows = sorted(iter_sources(args.domain), key=lambda s: (s.domain, s.id))
    for src in rows:
        print(f"{src.domain:8} {src.id:22} {src.task_type:14} group ent_{src.id}")
    return 0


def _selected_sources(args: argparse.Namespace, what: str, default_all: bool = False) -> list | int:
    """The Sources named by ``--dataset`` / ``--domain`` / ``--all`` (all when ``default_all``); an unknown id or
    domain is one error line and exit code 1."""
    from .data import DataError, get_source, iter_sources

    if args.dataset:
        try:
            return [get_source(d) for d in args.dataset]
        except DataError as exc:  # unknown id: one error line and exit code 1, not a traceback
            print(f"error: {exc}", file=sys.stderr)
            return 1
    if args.domain:
        sources = list(iter_sources(args.domain))
        if not sources:
            known = sorted({s.domain for s in iter_sources()})
            print(f"error: unknown domain {args.domain!r}; known: {', '.join(known)}", file=sys.stderr)
            return 1
        return sources
    if getattr(args, "all", False) or default_all:
        return list(iter_sources())
    raise SystemExit(f"{what}: give --dataset ID (repeatable), --domain D or --all")


def _set_data_root(args: argparse.Namespace) -> None:
    """``--data-root DIR`` = ``$LM_EVAL_ENTERPRISE_DATA=DIR`` for this command (messages then name that folder)."""
    import os

    from .data import ENV_DATA

    if args.data_root:
        os.environ[ENV_DATA] = args.data_root


def _prepare(args: argparse.Namespace) -> int:
    from .data import DataError, prepare

    sources = _selected_sources(args, "prepare")
    if isinstance(sources, int):
        return sources
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

    sources = _selected_sources(args, "verify", default_all=True)
    if isinstance(sources, int):
        return sources
    root = args.data_root or os.environ.get(ENV_DATA)
    if root:
        base = root
        present = [(s, data_folder(s.id, root)) for s in sources if data_folder(s.id, root).is_dir()]
    else:
        base = cache_root()
        present = [(s, base / s.id) for s in sources if (base / s.id / COMPLETE_MARKER).exists()]
    if not present:
        print(f"error: no dataset folder to verify in {base}", file=sys.stderr)
        return 1
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
    print(f"{len(present)} verified in {base}: {len(present) - errors - warnings} OK, {warnings} warning(s), "
          f"{errors} error(s)" + (f"; {absent} not present" if absent else ""))
    return 1 if errors else 0


def verify_line(report) -> str:
    """``train 4/45,000 test 8/3,600  verified: no  sha256 1a2b3c4d5e6f  warning: <first note>``."""
    counts = " ".join(f"{c.key} {c.n:,}/{'?' if c.expected.n is None else f'{c.expected.n:,}'}"
                      for c in report.checks)
    flags = {c.expected.verified for c in report.checks}  # a count without an expectation is unverified
    ver = "manifest" if report.declared == "MANIFEST.json" else (
        "yes" if flags == {True} else "partly" if flags == {True, False} else "no")
    status = report.status.upper() if report.status == "ok" else report.status
    notes = report.messages
    tail = f": {notes[0]}" + (f" (+{len(notes) - 1} more)" if len(notes) > 1 else "") if notes else ""
    return f"{counts}  verified: {ver}  sha256 {report.sha256[:12]}  {status}{tail}"


def _demo(args: argparse.Namespace) -> int:
    from .demo import run_demo

    return run_demo(limit=args.limit, out_dir=args.output_path, model_dir=args.model_dir)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "run":
        return _run(argv[1:])
    if argv and argv[0] == "sharpe":
        from .sharpe.cli import main as sharpe_main

        return sharpe_main(argv[1:])
    if argv and argv[0] == "sharpe-sparse":  # hidden alias: `sharpe` detects --cell_budget runs itself
        from .sharpe.sparse_cli import main as sparse_main

        return sparse_main(argv[1:])
    ap = argparse.ArgumentParser(prog="lm-eval-enterprise", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("run", help="lm-eval run with the enterprise tasks (all lm-eval flags pass through)")
    sub.add_parser("tasks-dir", help="print the task folder")
    p = sub.add_parser("list", help="list datasets")
    p.add_argument("--domain")
    p = sub.add_parser("prepare", help="make datasets ready: check the data root's folders or download")
    p.add_argument("--dataset", action="append")
    p.add_argument("--domain")
    p.add_argument("--all", action="store_true")
    p.add_argument("--data-root", help="data root (default: $LM_EVAL_ENTERPRISE_DATA, else the cache)")
    p.add_argument("--force", action="store_true", help="download again even if present")
    p.add_argument("--quiet", action="store_true")
    p = sub.add_parser("verify", help="check every dataset present: counts, verified?, sha256, labels")
    p.add_argument("--data-root", help="data root (default: $LM_EVAL_ENTERPRISE_DATA, else the cache)")
    p.add_argument("--dataset", action="append")
    p.add_argument("--domain")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p = sub.add_parser("demo", help="offline demo with SmolLM2-135M-Instruct on the embedded fixture data")
    p.add_argument("--limit", type=int, default=None, help="documents per task variant (default: demo setting)")
    p.add_argument("--output_path", default="demo_out")
    p.add_argument("--model-dir", default=None, help="use this HF model folder instead of SmolLM2")
    sub.add_parser("sharpe", help="aggregate template variants (see `lm-eval-enterprise sharpe --help`)")
    args = ap.parse_args(argv)
    if args.cmd == "tasks-dir":
        from . import TASK_DIR

        print(TASK_DIR)
        return 0
    return {"list": _list, "prepare": _prepare, "verify": _verify, "demo": _demo}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
