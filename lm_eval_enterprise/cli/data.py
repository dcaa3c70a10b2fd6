"""The data commands: ``list``, ``prepare`` (download, or ``--from PATH``), ``verify``, ``tasks-dir``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .common import add_option, fail


def _list(args: argparse.Namespace) -> int:
    from ..data import iter_sources

    rows = sorted(iter_sources(args.domain), key=lambda s: (s.domain, s.id))
    for src in rows:
        print(f"{src.domain:8} {src.id:22} {src.task_type:23} group ent_{src.id}")
    return 0


def _selected_sources(args: argparse.Namespace, default_all: bool = False) -> list:
    """The Sources named by ``--dataset`` / ``--domain`` / ``--all`` (all when ``default_all``); ids and domains
    are checked by the parser (``choices``), nothing selected is a usage error."""
    from ..data import get_source, iter_sources

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

    from ..data import ENV_DATA

    if args.data_root:
        os.environ[ENV_DATA] = args.data_root


def _prepare_from(args: argparse.Namespace) -> int:
    """``prepare --dataset ID --from PATH``: import and check (:func:`lm_eval_enterprise.data.import_from`)."""
    from ..data import DataError, get_source, import_from

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
    from ..data import DataError, prepare

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

    from ..data import COMPLETE_MARKER, EMBEDDED, ENV_DATA, DataError, cache_root, data_folder, inspect_folder
    from ..data.checks import require_splits

    sources = _selected_sources(args, default_all=True)
    root = args.data_root or os.environ.get(ENV_DATA)
    if args.data_root and args.data_root != EMBEDDED and not Path(args.data_root).expanduser().is_dir():  # as run
        args.parser.error(f"argument --data_root: {args.data_root}: no such folder (or 'embedded')")
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
            served, report = inspect_folder(src, d, defer_errors=True)
            require_splits(src, d, served, report.eval_split)  # what every run requires of the folder
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


def _tasks_dir(args: argparse.Namespace) -> int:
    from .. import TASK_DIR

    print(TASK_DIR)
    return 0


def _dataset_ids() -> list[str]:
    from ..data import tasktree  # looked up at call time, as get_source does

    return sorted(tasktree.registry())


def _selection_options(p: argparse.ArgumentParser, with_all: bool) -> None:
    from ..data.tasktree import domains

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


def register(sub) -> None:
    """The parsers of ``tasks-dir``, ``list``, ``prepare`` and ``verify`` on the top-level subparsers ``sub``."""
    from ..data.tasktree import domains

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
