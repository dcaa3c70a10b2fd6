"""What every command shares: exit codes, the one-line failure, option aliases, argparse types, the version.

Conventions (lm-eval's): flags spelled with underscores (``--output_path``, ``--include_path``; our older dashed
spellings stay as hidden aliases), a command that needs arguments prints its help when given none (exit 0), usage
errors are argparse's ``usage: ...`` + one ``error:`` line with exit code 2, a failed run is one ``error:`` line
with exit code 1. No module here imports an entry point; the entry point (:mod:`lm_eval_enterprise.cli`) imports
the command modules.
"""

from __future__ import annotations

import argparse
import sys

# ------------------------------------------------------------------------------------------------ conventions
# lm-eval's conventions (module docstring); flags spelled with underscores (``--output_path``, ``--include_path``; our older dashed spellings stay
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


def positive_int(text: str) -> int:
    """argparse type: a whole number above 0 (argparse reports the ``ValueError`` as a usage error)."""
    value = int(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text} is not a positive whole number")
    return value


def version_string() -> str:
    from importlib.metadata import PackageNotFoundError, version

    from .. import __version__

    try:
        lm_eval_version = version("lm_eval")
    except PackageNotFoundError:
        lm_eval_version = "not installed"
    return f"lm-eval-enterprise {__version__} (lm-eval {lm_eval_version})"
