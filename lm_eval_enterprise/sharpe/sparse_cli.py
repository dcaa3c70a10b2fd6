"""``lm-eval-enterprise sharpe-sparse``: per-template scores, mean, std and Sharpe *estimated* from a sparse
(template × document) run made with ``lm-eval-enterprise run … --cell-budget F`` (see :mod:`.sparse`).

Exit codes: 0 ok; 2 unreadable or inconsistent inputs, or a metric the estimator does not support.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Sequence

from .io import SharpeInputError
from .sparse import SparseError


def _fmt(v, digits: int = 3) -> str:
    return "–" if v is None else f"{v:.{digits}f}"


def _ci(ci) -> str:
    return "" if not ci else f" [{ci[0]:.3f}, {ci[1]:.3f}]"


def markdown(result: dict) -> str:
    recs = result["records"]
    shares = sorted({round(r["share"], 4) for r in recs})
    lines = ["ESTIMATES from a sparse design (model-based plug-in; observed cells kept, missing cells imputed by a "
             "template + document effect model) — share of (template, document) cells observed: "
             + ", ".join(f"{s:.1%}" for s in shares), "",
             "| dataset | model | cells | mean μ [95% CI] | std σ [95% CI] | Sharpe [95% CI] | per template "
             "(naive: observed cells only) |", "|---|---|---|---|---|---|---|"]
    for r in recs:
        ci = r.get("ci") or {}
        sh = _fmt(r["sharpe"], 2) if r["sharpe"] is not None else r["sharpe_status"]
        sh_ci = "" if not ci.get("sharpe") else f" [{ci['sharpe'][0]:.2f}, {ci['sharpe'][1]:.2f}]"
        per = ", ".join(f"{t} {_fmt(r['scores'][t])} ({_fmt(r['naive_scores'][t])})" for t in r["templates"])
        lines.append(f"| {r['name']} ({r['metric']}) | {r['model']} | {r['cells_observed']}/{r['cells_total']} | "
                     f"{_fmt(r['mean'])}{_ci(ci.get('mean'))} | {_fmt(r['std'])}{_ci(ci.get('std'))} | "
                     f"{sh}{sh_ci} | {per} |")
    lines.append("")
    lines.append(f"baseline b: {', '.join(sorted({str(r['baseline_method']) for r in recs}))}; ddof "
                 f"{recs[0]['ddof'] if recs else ''}; intervals: document bootstrap with the cell model refitted")
    return "\n".join(lines) + "\n"


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="lm-eval-enterprise sharpe-sparse", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", nargs="+", help="lm-eval output folders of a --cell-budget run (with --log_samples)")
    ap.add_argument("--out", help="write the JSON result to this file")
    ap.add_argument("--metric", help="metric (default: each task's metadata.primary_metric)")
    ap.add_argument("--baseline", default="uniform", choices=("uniform", "majority", "none", "simulated"))
    ap.add_argument("--ddof", type=int, choices=(0, 1), default=1)
    ap.add_argument("--sigma-weight", type=float, default=1.0, dest="alpha")
    ap.add_argument("--sigma-floor", default="off")
    ap.add_argument("--bootstrap", type=int, default=1000, metavar="B", help="bootstrap resamples (0 = none)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--run", help="results timestamp to use (default: newest per model and task)")
    ap.add_argument("--model-names", help="display-name map (JSON/YAML mapping or CSV raw,display)")
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    from .sparse_io import aggregate_sparse

    args = build_parser().parse_args(argv)
    floor = args.sigma_floor
    if floor not in ("off", "binomial"):
        try:
            floor = float(floor)
        except ValueError:
            print(f"error: --sigma-floor must be off, binomial or a number, not {floor!r}", file=sys.stderr)
            return 2
    try:
        result = aggregate_sparse(args.paths, metric=args.metric, baseline=args.baseline, ddof=args.ddof,
                                  alpha=args.alpha, sigma_floor=floor, bootstrap=args.bootstrap, seed=args.seed,
                                  run=args.run, model_names=args.model_names)
    except (SharpeInputError, SparseError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for m in result["messages"]:
        print(f"warning: {m}", file=sys.stderr)
    print(markdown(result), end="")
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=1, allow_nan=False), encoding="utf-8")
    return 0
