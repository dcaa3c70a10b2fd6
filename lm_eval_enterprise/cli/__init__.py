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
import sys
from collections.abc import Sequence

from ..errors import DataError
from . import data, demo, population
from .common import EXIT_FAILURE, fail, version_string
from .run import EXIT_INTERRUPTED


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser; each command module registers its own subcommand (``run`` and ``sharpe`` parse
    their own arguments: lm-eval's run parser, :func:`lm_eval_enterprise.cli.sharpe.build_parser`)."""
    ap = argparse.ArgumentParser(
        prog="lm-eval-enterprise", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--version", action="version", version=version_string())
    sub = ap.add_subparsers(dest="cmd", metavar="COMMAND")
    sub.add_parser(
        "run", help="lm-eval run with the enterprise tasks (every lm-eval flag; see `run --help`)", add_help=False
    )
    data.register(sub)
    demo.register(sub)
    population.register(sub)
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
            from .run import run

            return run(argv[1:])
        if argv and argv[0] == "sharpe":
            from .sharpe import main as sharpe_main

            return sharpe_main(argv[1:])
        ap = build_parser()
        if not argv:
            ap.print_help()
            return 0
        args = ap.parse_args(argv)
        if getattr(args, "needs_arguments", False) and len(argv) == 1:
            args.parser.print_help()
            return 0
        return args.handler(args)
    except KeyboardInterrupt:  # Ctrl-C outside a run's evaluation (which says what it kept: _interrupted)
        print("\ninterrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except SystemExit as exc:  # argparse: --help / --version (0), usage errors (2)
        if exc.code is None or isinstance(exc.code, int):
            return exc.code or 0
        print(f"error: {exc.code}", file=sys.stderr)  # SystemExit("message"): a failed run
        return EXIT_FAILURE
    except DataError as exc:  # e.g. a task root of $LM_EVAL_ENTERPRISE_TASK_PATH that is no folder
        return fail(str(exc))
