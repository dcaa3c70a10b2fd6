"""Estimates in ``lm-eval-enterprise sharpe`` for a sparse (template × document) run made with
``lm-eval-enterprise run … --cell_budget F``: per-template scores, mean, std and Sharpe *estimated* from the observed
cells (see :mod:`.sparse`).

``sharpe`` calls :func:`sparse_inputs` right after parsing its arguments: when a selected results file carries a cell
plan (``cell_budget`` < 1 in a task's metadata) the whole input is estimated by :func:`run_sparse` (full runs in the
same input are then read exactly: every cell observed), labelled as estimates with the share of observed cells;
otherwise the full tool runs unchanged. ``lm-eval-enterprise sharpe-sparse`` (hidden alias of the first version)
forces this path. Options that the estimator does not implement are refused with a one-line error rather than
ignored.

Exit codes: 0 ok; 2 unreadable or inconsistent inputs, an unsupported option, or a metric the estimator does not
support.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from ..cli import EXIT_USAGE, fail
from .io import SharpeInputError, find_results_files, read_results_file
from .sparse import SparseError


def _fmt(v, digits: int = 3) -> str:
    return "–" if v is None else f"{v:.{digits}f}"


def _ci(ci) -> str:
    return "" if not ci else f" [{ci[0]:.3f}, {ci[1]:.3f}]"


def markdown(result: dict) -> str:
    recs = result["records"]
    shares = sorted({round(r["share"], 4) for r in recs})
    lines = [
        "ESTIMATES from a sparse design (model-based plug-in; observed cells kept, missing cells imputed by a "
        "template + document effect model) — share of (template, document) cells observed: "
        + ", ".join(f"{s:.1%}" for s in shares),
        "",
        "| dataset | model | cells | mean μ [95% CI] | std σ [95% CI] | Sharpe [95% CI] | per template "
        "(naive: observed cells only) |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in recs:
        ci = r.get("ci") or {}
        sh = _fmt(r["sharpe"], 2) if r["sharpe"] is not None else r["sharpe_status"]
        sh_ci = "" if not ci.get("sharpe") else f" [{ci['sharpe'][0]:.2f}, {ci['sharpe'][1]:.2f}]"
        per = ", ".join(f"{t} {_fmt(r['scores'][t])} ({_fmt(r['naive_scores'][t])})" for t in r["templates"])
        lines.append(
            f"| {r['name']} ({r['metric']}) | {r['model']} | "
            f"{r['cells_observed']}/{r['cells_total']} ({r['share']:.0%}) | "
            f"{_fmt(r['mean'])}{_ci(ci.get('mean'))} | {_fmt(r['std'])}{_ci(ci.get('std'))} | "
            f"{sh}{sh_ci} | {per} |"
        )
    lines.append("")
    lines.append(
        f"baseline b: {', '.join(sorted({str(r['baseline_method']) for r in recs}))}; ddof "
        f"{recs[0]['ddof'] if recs else ''}; intervals: document bootstrap with the cell model refitted"
    )
    return "\n".join(lines) + "\n"


def sparse_inputs(paths: Sequence[str]) -> bool:
    """Do the inputs hold a sparse run, i.e. a results file with a task whose metadata records ``cell_budget`` < 1?
    Unreadable inputs answer False (the full tool then reports them as it always did)."""
    try:
        files = find_results_files(paths)
    except SharpeInputError:
        return False
    for p in files:
        try:
            rf = read_results_file(p)
        except SharpeInputError:
            continue
        for cfg in rf.data["configs"].values():
            meta = cfg.get("metadata") if isinstance(cfg, dict) else None
            budget = meta.get("cell_budget") if isinstance(meta, dict) else None
            if isinstance(budget, (int, float)) and budget < 1:
                return True
    return False


# options of `sharpe` the estimator does not implement: (attribute, value meaning "not used", flag)
UNSUPPORTED = (
    ("bootstrap_templates", False, "--bootstrap_templates"),
    ("exclude_template", [], "--exclude_template"),
    ("compare", None, "--compare"),
    ("generation_baseline", "zero", "--generation_baseline"),
    ("compare_decoding", False, "--compare_decoding"),
)


def _unsupported(args: argparse.Namespace) -> str | None:
    """The first option of ``sharpe`` given that the estimator does not implement (as an error text), else None."""
    what = "estimates from a --cell_budget run"
    for attr, unused, flag in UNSUPPORTED:
        if getattr(args, attr, unused) not in (unused, None, [], False):
            return f"{flag} is not supported for {what}"
    metrics = getattr(args, "metrics", None) or []
    if len(metrics) > 1:
        return f"{what}: one --metric at a time"
    if metrics and "," in metrics[0]:
        return f"{what}: --metric NAME,FILTER is not supported (the primary filter is read)"
    if getattr(args, "scoring", "both") == "parsed_only":
        return f"{what}: --scoring parsed_only is not supported (strict scoring only)"
    if str(args.baseline).startswith("table:"):
        return f"{what}: --baseline table:PATH is not supported (uniform, majority, none, simulated)"
    return None


def run_sparse(args: argparse.Namespace) -> int:
    """Estimates for parsed ``sharpe`` arguments (see the module docstring); prints the Markdown table (unless
    ``--quiet``) and with ``--output_path DIR`` writes ``DIR/sparse_estimates.json`` and ``DIR/sparse_estimates.md``."""
    from .sparse_io import aggregate_sparse

    problem = _unsupported(args)
    if problem:
        return fail(problem, EXIT_USAGE)
    metrics = getattr(args, "metrics", None) or []
    metric = metrics[0] if metrics else None
    floor = args.sigma_floor
    if floor not in ("off", "binomial"):
        try:
            floor = float(floor)
        except ValueError:
            return fail(f"--sigma_floor must be off, binomial or a number, not {floor!r}", EXIT_USAGE)
    try:
        result = aggregate_sparse(
            args.paths,
            metric=metric,
            baseline=args.baseline,
            ddof=args.ddof,
            alpha=args.alpha,
            sigma_floor=floor,
            bootstrap=args.bootstrap,
            seed=args.seed,
            run=args.run,
            model_names=args.model_names,
        )
    except (SharpeInputError, SparseError) as exc:
        return fail(str(exc))  # unusable inputs: 1
    for m in result["messages"]:
        print(f"warning: {m}", file=sys.stderr)
    text = markdown(result)
    if args.output_path:
        out = Path(args.output_path)
        if out.exists() and not out.is_dir():
            return fail(f"argument --output_path: {out} exists and is not a folder", EXIT_USAGE)
        out.mkdir(parents=True, exist_ok=True)
        for name, body in (
            ("sparse_estimates.json", json.dumps(result, indent=1, allow_nan=False)),
            ("sparse_estimates.md", text),
        ):
            (out / name).write_text(body, encoding="utf-8")
            print(f"wrote {name}: {out / name}", file=sys.stderr)
    if not getattr(args, "quiet", False):
        print(text, end="")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``lm-eval-enterprise sharpe-sparse`` (hidden alias): ``sharpe``'s arguments, always estimated."""
    from .cli import build_parser

    ap = build_parser()
    ap.prog = "lm-eval-enterprise sharpe-sparse"
    return run_sparse(ap.parse_args(list(sys.argv[1:] if argv is None else argv)))
