"""Every output of the aggregation into one folder (``--output_path DIR``): the only module that imports the writers."""

from __future__ import annotations

import datetime
from pathlib import Path

from .export import write_hf_leaderboard, write_open_llm
from .html_report import html_report
from .report import decoding_markdown, markdown, write_csvs
from .serialize import to_json

FORMATS = ("json", "csv", "md", "html", "hf", "openllm")


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
