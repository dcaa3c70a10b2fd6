"""``lm-eval-enterprise`` command line.

Subcommands:
  run        lm-eval's ``run`` with our task folder on the include path and, unless ``--include-defaults``,
             without indexing lm-eval's ~10k built-in YAMLs (fast start). Every lm-eval flag is passed through;
             ``--data-root DIR`` is merged into ``--metadata``; ``--cell_budget F [--cell_seed S]`` evaluates only a
             seeded share F of the (template, document) cells (``cellplan.py``; ``sharpe`` then reports estimates).
  tasks-dir  print the task folder (for ``lm_eval --include_path "$(lm-eval-enterprise tasks-dir)"``)
  list       datasets, domains and their task groups
  prepare    download datasets into the cache ahead of time (``--dataset ID`` / ``--domain D`` / ``--all``)
  demo       the offline demo: SmolLM2-135M-Instruct on the embedded fixture data, score table per template
  sharpe     aggregate template variants of lm-eval output folders (Sharpe score, robustness statistics)
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Sequence


def _run(argv: list[str]) -> int:
    from . import TASK_DIR

    include_defaults = "--include-defaults" in argv
    argv = [a for a in argv if a != "--include-defaults"]
    argv = _merge_data_root(argv)
    if "--include_path" in argv:
        i = argv.index("--include_path")
        argv[i + 1] = f"{argv[i + 1]},{TASK_DIR}" if argv[i + 1] else TASK_DIR
    else:
        argv = ["--include_path", TASK_DIR] + argv
    if not include_defaults:
        _only_our_tasks()
    from .speedups import install

    install()
    from lm_eval.__main__ import cli_evaluate

    from .data import DataError

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
    try:
        cli_evaluate()
    except DataError as exc:  # one clear line instead of lm-eval's traceback
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


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


def _only_our_tasks() -> None:
    """Make lm-eval's TaskManager skip its built-in task index (4–17 s) unless asked otherwise."""
    import functools

    from lm_eval import tasks as lm_tasks

    cls = lm_tasks.TaskManager
    if getattr(cls.__init__, "_lmee_patched", False):
        return
    original = cls.__init__

    @functools.wraps(original)
    def __init__(self, *args, include_defaults: bool = False, **kwargs):
        original(self, *args, include_defaults=include_defaults, **kwargs)

    __init__._lmee_patched = True
    cls.__init__ = __init__


def _list(args: argparse.Namespace) -> int:
    from .data import iter_sources

    rows = sorted(iter_sources(args.domain), key=lambda s: (s.domain, s.id))
    for src in rows:
        print(f"{src.domain:8} {src.id:22} {src.task_type:14} group ent_{src.id}")
    return 0


def _prepare(args: argparse.Namespace) -> int:
    from .data import DataError, get_source, iter_sources, prepare

    if args.all:
        sources = list(iter_sources())
    elif args.domain:
        sources = list(iter_sources(args.domain))
    elif args.dataset:
        try:
            sources = [get_source(d) for d in args.dataset]
        except DataError as exc:  # unknown id: one error line and exit code 1, not a traceback
            print(f"error: {exc}", file=sys.stderr)
            return 1
    else:
        raise SystemExit("prepare: give --dataset ID (repeatable), --domain D or --all")
    failed = 0
    for src in sources:
        try:
            d = prepare(src, progress=not args.quiet, force=args.force)
            print(f"{src.id}: ready in {d}")
        except DataError as exc:
            failed += 1
            print(f"error: {exc}", file=sys.stderr)
    return 1 if failed else 0


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
    p = sub.add_parser("prepare", help="download datasets into the cache")
    p.add_argument("--dataset", action="append")
    p.add_argument("--domain")
    p.add_argument("--all", action="store_true")
    p.add_argument("--force", action="store_true", help="download again even if cached")
    p.add_argument("--quiet", action="store_true")
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
    return {"list": _list, "prepare": _prepare, "demo": _demo}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
