"""Python API of the Sharpe aggregation tool: ``aggregate``, ``leaderboard_markdown`` and ``write_outputs`` of this
module (``lm_eval_enterprise.sharpe.api``):

>>> result = aggregate(["out/"], ddof=1, bootstrap=2000)          # dict, see docs/sharpe.md#outputs
>>> write_outputs(result, "sharpe_out")                          # aggregate.json, CSVs, leaderboard.md, report.html, HF
>>> print(leaderboard_markdown(["out/"]))
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .engine import aggregate as _aggregate
from .io import SharpeInputError
from .options import Options
from .outputs import write_all
from .report import markdown
from .serialize import to_json

__all__ = ["Options", "SharpeInputError", "aggregate", "leaderboard_markdown", "write_outputs", "to_json"]


def aggregate(paths: Sequence[str | Path], options: Options | None = None, **overrides: Any) -> dict:
    """Aggregate lm-eval output folders. Keyword overrides are :class:`Options` fields (``ddof=0``, ...)."""
    opts = options or Options()
    for k, v in overrides.items():
        if not hasattr(opts, k):
            raise TypeError(f"unknown option {k!r}")
        setattr(opts, k, v)
    return _aggregate([str(p) for p in paths], opts)


def leaderboard_markdown(paths: list[str], **overrides: Any) -> str:
    """The Markdown Sharpe leaderboard of lm-eval output folders (defaults: uniform baseline, ddof 1, B = 2000;
    no progress bar). Input problems are returned as a one-line message instead of raising."""
    overrides.setdefault("progress", False)
    try:
        result = aggregate(paths, **overrides)
    except SharpeInputError as exc:
        return f"(Sharpe leaderboard unavailable: {exc})\n"
    text = markdown(result)
    if result["messages"]:
        text += "\nMessages:\n" + "\n".join(f"- {m}" for m in result["messages"]) + "\n"
    return text


def write_outputs(result: dict, out: str | Path, formats: set[str] | None = None) -> dict[str, Path]:
    """Write aggregate.json, leaderboard.csv/per_template.csv/per_document.csv, leaderboard.md, report.html and the
    leaderboard exports (``formats`` ⊆ {json, csv, md, html, hf, openllm}; default all)."""
    return write_all(result, out, formats)
