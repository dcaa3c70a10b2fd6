"""The ``population`` command: write seeded template populations (``lm_eval_enterprise.prompting.population``) into an
include folder."""

from __future__ import annotations

import argparse
from pathlib import Path

from .common import add_option, fail


def _population(args: argparse.Namespace) -> int:
    from ..prompting.population import PopulationError, write_population
    from .data import _dataset_ids

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
    p.set_defaults(handler=_population, needs_arguments=True)
