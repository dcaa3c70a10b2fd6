"""The ``population`` command: write seeded template populations (``lm_eval_enterprise.prompting.population``) into an
include folder, or (``--plan``) say how many single-template runs a population needs for a target precision."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from .common import add_option, fail

TARGETS = (("target_sharpe", "sharpe"), ("target_std", "std"), ("target_mean", "mean"))


def _population(args: argparse.Namespace) -> int:
    from ..prompting.population import PopulationError, write_population
    from .data import _dataset_ids

    if args.plan:
        return _plan(args)
    ids = _dataset_ids() if args.all else sorted(set(args.dataset or []))
    if not ids:
        args.parser.error("give --dataset ID (repeatable) or --all")
    if not args.output_dir:
        args.parser.error("the following arguments are required: --output_dir")
    if args.size < 1:
        args.parser.error(f"argument --size: must be at least 1, got {args.size}")
    out = Path(args.output_dir)
    if out.exists() and not out.is_dir():
        args.parser.error(f"argument --output_dir: {out} is a file, not a folder")
    try:
        for dataset in ids:
            files = write_population(dataset, args.size, args.seed, out)
            print(f"{dataset}: {sum(f.suffix == '.yaml' for f in files)} YAML files in {files[0].parent}")
    except PopulationError as exc:
        return fail(str(exc))
    print(f"run them with: lm-eval-enterprise run --include_path {out} --tasks ent_<id>_population ...")
    return 0


def _plan(args: argparse.Namespace) -> int:
    """``--plan``: the runs for each target, from a first run's estimates (``--from_estimates``) or from the
    simulation bench's scaling and guesses of μ, σ and the baseline (``--docs`` documents, ``--size`` templates)."""
    from ..harness.cellplan import CellPlanError, plan_from_estimate, plan_from_guesses

    targets = [(stat, getattr(args, name)) for name, stat in TARGETS if getattr(args, name) is not None]
    if not targets:
        args.parser.error("--plan needs a target: --target_sharpe, --target_std or --target_mean (a 95 % half-width)")
    if any(t <= 0 for _, t in targets):
        args.parser.error("a target is a half-width above 0")
    try:
        if args.from_estimates:
            records = _records(Path(args.from_estimates), args.group)
            for rec in records:
                print(f"{rec.get('model', '')} {rec.get('group', rec.get('name', ''))}:")
                for stat, target in targets:
                    plan = plan_from_estimate(rec, stat, target)
                    print("\n".join(plan.lines()))
            return 0
        if not args.docs:
            args.parser.error("--plan without --from_estimates needs --docs N (documents per template)")
        for stat, target in targets:
            plan = plan_from_guesses(
                stat, target, args.size, args.docs, args.guess_mean, args.guess_std, args.guess_baseline
            )
            print("\n".join(plan.lines()))
        print(
            f"(guesses: μ {args.guess_mean:g}, σ {args.guess_std:g}, baseline {args.guess_baseline:g}; after a "
            "first sparse run, plan again from its estimates: --from_estimates DIR/population_estimates.json)"
        )
    except CellPlanError as exc:
        return fail(str(exc))
    return 0


def _records(path: Path, group: str | None) -> list[dict]:
    """The population records of a ``population_estimates.json`` (written by ``sharpe --output_path``)."""
    from ..harness.cellplan import CellPlanError

    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise CellPlanError(f"{path}: not a readable population_estimates.json ({exc})") from None
    recs = [r for r in data.get("records", []) if not group or r.get("group") == group]
    if not recs:
        raise CellPlanError(f"{path}: no population record" + (f" of group {group}" if group else ""))
    return recs


def register(sub) -> None:
    """The parser of ``population`` on the top-level subparsers ``sub``."""
    from .data import _dataset_ids

    p = sub.add_parser(
        "population",
        help="write seeded template populations (grammar over the core templates) into an include folder",
    )
    p.add_argument("--dataset", action="append", choices=_dataset_ids(), metavar="<id>", help="dataset id (repeatable)")
    p.add_argument("--all", action="store_true", help="every dataset")
    p.add_argument("--size", type=int, default=50, metavar="<n>", help="templates per dataset (default 50)")
    p.add_argument("--seed", type=int, default=0, metavar="<n>", help="population seed (default 0)")
    add_option(p, "--output_dir", "--output-dir", metavar="<dir>", help="include folder to write (required)")
    g = p.add_argument_group(
        "budget planning (--plan: write nothing, say how many single-template runs a target takes)"
    )
    g.add_argument("--plan", action="store_true", help="plan the runs for a target precision instead of writing YAMLs")
    for name, stat in TARGETS:
        g.add_argument(f"--{name}", type=float, metavar="<h>", help=f"95 %% half-width wanted on {stat}")
    g.add_argument("--from_estimates", metavar="<file>", help="population_estimates.json of a first sparse run")
    g.add_argument("--group", metavar="<group>", help="only this population group of --from_estimates")
    g.add_argument("--docs", type=int, metavar="<n>", help="documents per template (without --from_estimates)")
    g.add_argument("--guess_mean", type=float, default=0.5, metavar="<x>", help="guessed μ (default 0.5)")
    g.add_argument("--guess_std", type=float, default=0.1, metavar="<x>", help="guessed σ (default 0.1)")
    g.add_argument("--guess_baseline", type=float, default=0.2, metavar="<x>", help="baseline b (default 0.2)")
    p.set_defaults(handler=_population, needs_arguments=True)
