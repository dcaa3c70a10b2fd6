"""``lm-eval-enterprise sharpe`` (and ``scripts/sharpe.py``): Sharpe score and robustness statistics across
instruction templates, from lm-eval output folders (definitions: docs/sharpe.md).

Exit codes (lm-eval's): 0 ok; 1 inconsistent or unreadable inputs, one "error:" line naming the file (missing
template/metric under --strict, missing metric, doc-set mismatch under --strict, mixed chat settings under
--strict, --exclude_template matching nothing under --strict, malformed JSON, no template variants) or outputs
that cannot be written; 2 usage errors (unknown option or value, --output_path naming an existing file).
Flags are spelled as lm-eval's (underscores); the older dashed spellings still work. Results of metric version
≤ 1.2 (gold_news as nine subtask tasks) are refused with one line naming the version and what to rerun (exit 2).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from ..estimator import SparseError
from ..sharpe.inputs import DEFAULT_VARIANT_PATTERN, Options, Progress, SharpeInputError, SharpeUsageError, read_inputs
from ..sharpe.pipeline import FORMATS
from .common import EXIT_USAGE, add_option, fail

EPILOG = """examples:
  lm-eval-enterprise sharpe out/                          # print the Sharpe leaderboard
  lm-eval-enterprise sharpe out/ --output_path report/    # + aggregate.json, CSVs, leaderboard.md, report.html,
                                                          #   HF / Open LLM leaderboard exports
  lm-eval-enterprise sharpe out/a out/b --ddof 0 --baseline majority --bootstrap 1000 --bootstrap_templates
"""


def resamples(text: str) -> int:
    """argparse type of ``--bootstrap``: a whole number of resamples, 0 (none) or more."""
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text}: the number of resamples must be 0 (none) or more")
    return value


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="lm-eval-enterprise sharpe",
        description=__doc__,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("paths", nargs="+", help="lm-eval output folders (OUT or OUT/<model>) or results_*.json files")
    add_option(
        ap,
        "--output_path",
        "--out",
        "-o",
        metavar="<dir>",
        help="write all outputs into this folder (created if missing)",
    )
    ap.add_argument(
        "--formats",
        default=",".join(FORMATS),
        help=f"outputs written with --output_path (subset of {','.join(FORMATS)}; default all)",
    )
    ap.add_argument(
        "--baseline",
        default="uniform",
        help="uniform (default) | majority | none | simulated | table:PATH (CSV/YAML: group,metric,baseline,method)",
    )
    add_option(
        ap,
        "--generation_baseline",
        "--generation-baseline",
        default="zero",
        metavar="zero|lead-K",
        help="baseline of ROUGE metrics: zero (default) or lead-K = the ROUGE of each document's first K "
        "sentences against its reference, averaged over the documents",
    )
    ap.add_argument(
        "--ddof", type=int, choices=(0, 1), default=1, help="std estimator: 1 = sample (default), 0 = population"
    )
    add_option(
        ap, "--sigma_weight", "--sigma-weight", type=float, default=1.0, dest="alpha", help="α in S = (μ − b)/(α·σ)"
    )
    add_option(
        ap,
        "--sigma_floor",
        "--sigma-floor",
        default="off",
        help="off (default) | binomial | VALUE: σ_eff = max(σ, floor)",
    )
    ap.add_argument(
        "--metric",
        action="append",
        dest="metrics",
        metavar="NAME[,FILTER]",
        help="metric to aggregate (repeatable; default: each task's metadata.primary_metric)",
    )
    ap.add_argument(
        "--scoring",
        choices=("strict", "parsed_only", "both"),
        default="both",
        help="strict = format failures count as wrong (primary); parsed_only = parsed outputs only",
    )
    ap.add_argument("--bootstrap", type=resamples, default=2000, metavar="B", help="bootstrap resamples (0 = none)")
    ap.add_argument("--seed", type=int, default=0)
    add_option(
        ap,
        "--bootstrap_templates",
        "--bootstrap-templates",
        action="store_true",
        help="also report intervals that resample templates (ci_templates)",
    )
    add_option(
        ap,
        "--variant_pattern",
        "--variant-pattern",
        default=DEFAULT_VARIANT_PATTERN,
        help="fallback grouping for tasks without metadata (named groups 'group' and 'tid')",
    )
    add_option(
        ap,
        "--exclude_template",
        "--exclude-template",
        action="append",
        default=[],
        metavar="GROUP:TID",
        help="exclude a template explicitly (repeatable; reported); GROUP may be a variant group or a "
        "dataset name (metadata.dataset: applies to all its variant groups); matching nothing is reported "
        "(--strict: exit 1)",
    )
    ap.add_argument(
        "--strict",
        action="store_true",
        help="exit 1 on any inconsistency (doc-set mismatch, missing templates, mixed settings)",
    )
    add_option(
        ap, "--fail_threshold", "--fail-threshold", type=float, default=0.2, help="format-failure flag threshold"
    )
    ap.add_argument(
        "--run",
        help="use the results files with this timestamp (default: newest per model and task; "
        "each file left out is named in a warning)",
    )
    add_option(ap, "--model_names", "--model-names", help="display-name map (JSON/YAML mapping or CSV raw,display)")
    ap.add_argument(
        "--compare", action="append", metavar="A,B", help="model pair(s) to compare (repeatable; default: every pair)"
    )
    ap.add_argument(
        "--compare_decoding",
        action="store_true",
        help="compare the unconstrained (greedy) and regex-constrained runs of each model: Δμ, Δσ, "
        "ΔSharpe with paired bootstrap intervals, format failures and adherence of both "
        "(aggregate.json decoding_comparisons, decoding_comparison.md)",
    )
    ap.add_argument("--permutations", type=int, default=2000, help="sign-flip permutations per template")
    ap.add_argument(
        "--workers",
        type=int,
        default=None,
        help="processes for reading and bootstrap (default: auto, >1 only for inputs over 50 MB)",
    )
    add_option(
        ap,
        "--hash_samples",
        "--hash-samples",
        action="store_true",
        help="record the SHA-256 of every samples file in the provenance (results files always)",
    )
    add_option(ap, "--no_progress", "--no-progress", action="store_true", help="no progress bar")
    ap.add_argument("--quiet", action="store_true", help="do not print the leaderboard")
    return ap


def _full_run_usage(parser: argparse.ArgumentParser, args: argparse.Namespace, opts: Options) -> int | None:
    """The full tool's usage checks (``--output_path`` naming a file, ``--formats``, option values): 2 with the
    usage line and one error line, else None."""
    try:
        if args.output_path and Path(args.output_path).exists() and not Path(args.output_path).is_dir():
            parser.error(f"argument --output_path: {args.output_path} exists and is not a folder")
        bad = _formats(args) - set(FORMATS)
        if bad:
            parser.error(f"argument --formats: unknown {', '.join(sorted(bad))} (choose from {', '.join(FORMATS)})")
        try:
            opts.validate()
        except SharpeUsageError as exc:
            parser.error(str(exc))
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 2
    return None


def _formats(args: argparse.Namespace) -> set[str]:
    return {f.strip() for f in args.formats.split(",") if f.strip()}


def main(argv: Sequence[str] | None = None) -> int:
    """Read the inputs once and route them: template populations alone get their section; a ``--cell_budget`` run
    its estimates, then the population section; full runs the full tool, then the population section."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    if not argv:  # as `lm-eval run`: a command that needs arguments prints its help
        parser.print_help()
        return 0
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help (0) or a usage error (2: usage line + one error line)
        return exc.code if isinstance(exc.code, int) else 2
    opts = options_from_args(args)
    started = time.perf_counter()
    try:
        inputs = read_inputs(args.paths, opts.variant_pattern, Progress(opts.progress))
    except SharpeInputError as exc:  # the full tool's usage errors come first, as they always did
        rc = _full_run_usage(parser, args, opts)
        return rc if rc is not None else fail(str(exc), exc.exit_code)
    if inputs.template_sets == {"population"}:
        return _populations(args, opts, inputs)
    if inputs.sparse:
        return run_sparse(args, opts, inputs) or _populations(args, opts, inputs)
    rc = _full_run_usage(parser, args, opts)
    if rc is not None:
        return rc
    return _full_run(parser, args, opts, inputs, argv, started) or _populations(args, opts, inputs)


def _full_run(parser, args: argparse.Namespace, opts: Options, inputs, argv: list[str], started: float) -> int:
    """The full tool: warnings, the outputs with ``--output_path``, the leaderboard (unless ``--quiet``)."""
    from ..sharpe.pipeline import full_run, write_outputs
    from ..sharpe.report import markdown

    try:
        result = full_run(inputs, opts, argv, started)
    except SharpeUsageError as exc:
        parser.print_usage(sys.stderr)
        print(f"{parser.prog}: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except SharpeInputError as exc:
        return fail(str(exc), exc.exit_code)
    for m in result["messages"]:
        print(f"warning: {m}", file=sys.stderr)
    md = markdown(result)
    if args.output_path:
        try:
            written = write_outputs(result, args.output_path, _formats(args), md)
        except SharpeInputError as exc:
            return fail(str(exc), exc.exit_code)
        except OSError as exc:
            return fail(f"{args.output_path}: cannot write the outputs ({exc})")
        for name, path in written.items():
            print(f"wrote {name}: {path}", file=sys.stderr)
    if not args.quiet:
        print(md)
    return 0


def options_from_args(args: argparse.Namespace) -> Options:
    """The tool's :class:`Options` from parsed arguments, once for every route (full runs, sparse runs, template
    populations); not yet validated (each route reports its own problems)."""
    return Options(
        baseline=args.baseline,
        ddof=args.ddof,
        alpha=args.alpha,
        sigma_floor=args.sigma_floor,
        metrics=args.metrics,
        scoring=args.scoring,
        bootstrap=args.bootstrap,
        seed=args.seed,
        bootstrap_templates=args.bootstrap_templates,
        variant_pattern=args.variant_pattern,
        exclude_templates=args.exclude_template,
        strict_inputs=args.strict,
        fail_threshold=args.fail_threshold,
        run=args.run,
        model_names=args.model_names,
        compare=args.compare,
        permutations=args.permutations,
        progress=False if args.no_progress else None,
        workers=args.workers,
        hash_samples=args.hash_samples,
        generation_baseline=args.generation_baseline,
        compare_decoding=args.compare_decoding,
    )


def _estimates(args: argparse.Namespace, result: dict, kind: str) -> int:
    """Warnings, the ``<kind>_estimates.json`` / ``.md`` files with ``--output_path`` and the Markdown (unless
    ``--quiet``) of an estimate result."""
    from ..sharpe.pipeline import write_estimates
    from ..sharpe.report import estimate_markdown

    for m in result["messages"]:
        print(f"warning: {m}", file=sys.stderr)
    if args.output_path:
        out = Path(args.output_path)
        if out.exists() and not out.is_dir():
            return fail(f"argument --output_path: {out} exists and is not a folder", EXIT_USAGE)
        for name, path in write_estimates(result, out, kind).items():
            print(f"wrote {name}: {path}", file=sys.stderr)
    if result["records"] and not args.quiet:
        # the sparse table ends with its own newline; the population section is printed as the full tool prints
        print(estimate_markdown(result, kind), end="" if kind == "sparse" else "\n")
    return 0


def _populations(args: argparse.Namespace, opts: Options, inputs) -> int:
    """The population section beside the core-set results (never pooled with them), when there is one: 0, 2 for
    settings the tool cannot use, 1 with one ``error:`` line for unusable population inputs."""
    if "population" not in inputs.template_sets:
        return 0
    from ..sharpe.estimates import population_estimates

    try:
        result = population_estimates(inputs, opts)
    except SharpeUsageError as exc:
        return fail(str(exc), EXIT_USAGE)
    except (SharpeInputError, SparseError) as exc:
        return fail(str(exc))
    return _estimates(args, result, "population")


def run_sparse(args: argparse.Namespace, opts: Options, inputs) -> int:
    """Estimates of a sparse run with the tool's options; prints the Markdown table (unless ``--quiet``) and with
    ``--output_path DIR`` writes ``DIR/sparse_estimates.json`` and ``.md``. Settings an estimate cannot honour
    (:meth:`Options.estimate_problem`) are refused in one line (exit 2)."""
    from ..sharpe.estimates import sparse_estimates

    try:
        result = sparse_estimates(inputs, opts)
    except SharpeUsageError as exc:
        return fail(str(exc), EXIT_USAGE)
    except (SharpeInputError, SparseError) as exc:
        return fail(str(exc))  # unusable inputs: 1
    return _estimates(args, result, "sparse")
