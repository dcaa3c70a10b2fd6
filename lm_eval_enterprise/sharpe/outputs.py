"""Every output of the tool into one folder (``--output_path DIR``): the only module that imports the writers.

:func:`write_all` writes the aggregation of full runs, :func:`write_estimates` the estimates (a sparse run's, a
template population's), whose file names say what they are."""

from __future__ import annotations

import datetime
import json
from pathlib import Path

from .estimate_report import population_markdown, sparse_markdown
from .export import write_hf_leaderboard, write_open_llm
from .html_report import html_report
from .report import decoding_markdown, markdown, write_csvs
from .serialize import to_json

FORMATS = ("json", "csv", "md", "html", "hf", "openllm")
# kind of estimate → its Markdown (files <kind>_estimates.json / .md)
ESTIMATE_MARKDOWN = {"sparse": sparse_markdown, "population": population_markdown}


def write_all(result: dict, out: str | Path, formats: set[str] | None = None) -> dict[str, Path]:
    """Write the requested formats (json, csv, md, html, hf, openllm) into ``out``; returns name → path.
    ``hf``: ``hf_leaderboard/`` (HF leaderboard template); ``openllm``: ``open_llm_leaderboard/`` (lm-eval raw
    results layout). Both export folders are replaced on every run."""
    formats = formats or set(FORMATS)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written = {}
    md = markdown(result)
    now = datetime.datetime.now()  # one timestamp for both leaderboard exports
    if "json" in formats:
        (out / "aggregate.json").write_text(to_json(result), encoding="utf-8")
        written["json"] = out / "aggregate.json"
    if "csv" in formats:
        write_csvs(result, out)
        written["csv"] = out / "leaderboard.csv"
    if "md" in formats:
        (out / "leaderboard.md").write_text(md, encoding="utf-8")
        written["md"] = out / "leaderboard.md"
        if "decoding_comparisons" in result:  # --compare_decoding
            (out / "decoding_comparison.md").write_text(decoding_markdown(result), encoding="utf-8")
            written["decoding_md"] = out / "decoding_comparison.md"
    if "html" in formats:
        (out / "report.html").write_text(html_report(result, md), encoding="utf-8")
        written["html"] = out / "report.html"
    if "hf" in formats:
        written["hf"] = write_hf_leaderboard(result, out / "hf_leaderboard", now)
    if "openllm" in formats:
        written["openllm"] = write_open_llm(result, out / "open_llm_leaderboard", now)
    return written


def estimate_markdown(result: dict, kind: str) -> str:
    """The Markdown of an estimate result of ``kind`` (sparse | population), as printed and written."""
    return ESTIMATE_MARKDOWN[kind](result)


def write_estimates(result: dict, out: str | Path, kind: str) -> dict[str, Path]:
    """``<kind>_estimates.json`` and ``<kind>_estimates.md`` in ``out`` (kind: sparse | population; nothing for a
    result without records); returns file name → path."""
    if not result.get("records"):
        return {}
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written = {}
    for name, body in (
        (f"{kind}_estimates.json", json.dumps(result, indent=1, allow_nan=False)),
        (f"{kind}_estimates.md", estimate_markdown(result, kind)),
    ):
        (out / name).write_text(body, encoding="utf-8")
        written[name] = out / name
    return written
