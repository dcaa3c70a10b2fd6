"""Leaderboard export in the Hugging Face leaderboard-template results layout (SHARPE.md §13).

One folder per model, ``<org>__<model>/results_<timestamp>.json``::

    {"config": {"model_dtype": ..., "model_name": "org/model", "model_sha": ...},
     "results": {"<dataset group>": {"sharpe": …, "mean": …, "std": …, "min": …, "max": …},
                 "<task variant>": {"<metric>": s_t}, ...}}

Values are from the strict scoring mode; a non-finite or undefined Sharpe is ``null`` (its status is added as
``sharpe_status``). Per-variant entries carry the per-template scores (the "per-task scores" a leaderboard reads).
"""
from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

from .serialize import clean


def hf_model_id(model_name: str) -> str:
    """``org/model`` for hub ids; ``local/<basename>`` for local folders."""
    name = model_name.rstrip("/")
    if name.startswith(("/", ".", "~")) or name.count("/") > 1:
        return f"local/{os.path.basename(name) or 'model'}"
    return name if "/" in name else f"local/{name}"


def _safe(part: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", part)


def hf_results(result: dict, model: str) -> dict:
    info = (result.get("model_info") or {}).get(model, {})
    model_id = hf_model_id(info.get("model_name") or model)
    res: dict = {}
    for r in result["records"]:
        if r["model"] != model or r["scoring_mode"] != "strict":
            continue
        if r["level"] == "dataset" and r["metric"] == result["macro"]["overall"]["metrics"].get(r["group"]):
            res[r["group"]] = {"sharpe": r["sharpe"], "sharpe_status": r["sharpe_status"], "mean": r["mean"],
                               "std": r["std"], "min": r["min"], "max": r["max"], "metric": r["metric"],
                               "baseline": r["baseline"]["value"], "n_templates": r["n_templates"],
                               "ddof": r["ddof"]}
        for t, task in (r.get("tasks") or {}).items():
            res.setdefault(task, {})[r["metric"]] = r["template_scores"].get(t)
    return {"config": {"model_dtype": info.get("model_dtype"), "model_name": model_id,
                       "model_sha": info.get("model_sha") or "", "display_name": model},
            "results": res}


def write_hf_leaderboard(result: dict, out: str | Path) -> Path:
    """Write one results file per model under ``out``; returns ``out``."""
    out = Path(out)
    ts = time.strftime("%Y-%m-%dT%H-%M-%S")
    for model in result["models"]:
        data = hf_results(result, model)
        org, _, name = data["config"]["model_name"].partition("/")
        d = out / f"{_safe(org)}__{_safe(name)}"
        if model != data["config"]["model_name"].split("/")[-1] and "settings" in model:
            d = out / f"{_safe(org)}__{_safe(name)}__{_safe(model.split('[')[-1].rstrip(']'))}"
        d.mkdir(parents=True, exist_ok=True)
        (d / f"results_{ts}.json").write_text(json.dumps(clean(data), indent=1, allow_nan=False), encoding="utf-8")
    return out
