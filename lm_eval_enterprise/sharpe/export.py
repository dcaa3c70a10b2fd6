"""Leaderboard exports of the aggregation result, from the strict scores of each row's primary metric
(docs/sharpe.md#leaderboard-exports: what each reader does with a file and how the export fits it).

``hf_leaderboard/``, for the Hugging Face leaderboard template: ``results/<org>/<model>/results_<ts>.json`` (per
dataset row ``sharpe/100`` = S/100 with a finite stand-in ±:data:`SHARPE_CAP` for σ = 0 and 0 for an undefined S,
the true value in ``sharpe`` and ``sharpe_status``; per task variant its s_t), ``requests/`` and ``about_tasks.py``.
``open_llm_leaderboard/<org>/<model>/results_<ts>.json``: lm-eval's own results layout, one task per dataset row.
Each export replaces its whole folder (never one this tool did not write); both carry ``toy_data`` in their config.
"""

from __future__ import annotations

import datetime as _dt
import os
import re
import shutil
from pathlib import Path

from .. import __version__
from .inputs import SharpeInputError
from .report import dataset_records, to_json

SHARPE_CAP = 100.0
MARKER = ".lm-eval-enterprise-export"
TOY_SOURCE = "embedded fixture data (toy rows for demos and tests, not the benchmark)"
REAL_SOURCE = "benchmark data"
_TAG = re.compile(r"^(?P<base>.*) \[(?P<tag>settings (?P<k>\d+)|regex-constrained)\]$")


# ============================================================================================== names
def hub_model_id(model_name: str, display: str | None = None) -> str:
    """The model name a leaderboard shows: the display name if it is a hub id ``org/model`` (e.g. given with
    ``--model_names``), else ``model_name`` if it is one, else the last component of a local path. A model split
    by settings keeps its ``settings-k`` suffix, a regex-constrained run its ``regex-constrained`` suffix
    (``org/model-regex-constrained``), so that these runs stay apart."""
    suffix = ""
    while display:
        m = _TAG.match(display)
        if not m:
            break
        tag = f"settings-{m.group('k')}" if m.group("k") else m.group("tag")
        display, suffix = m.group("base"), f"-{tag}{suffix}"
    for cand in (display, model_name):
        if cand and _is_hub_id(cand):
            return cand + suffix
    return _safe(os.path.basename(str(model_name).rstrip("/")) or str(model_name)) + suffix


def _is_hub_id(name: str) -> bool:
    return (
        not name.startswith(("/", ".", "~"))
        and name.count("/") == 1
        and re.fullmatch(r"[\w.-]+/[\w.-]+", name) is not None
    )


def template_precision(model_dtype: str | None) -> str:
    """The precision name the template derives from ``config.model_dtype`` (its ``Precision.from_str``)."""
    name = str(model_dtype).removeprefix("torch.")
    return name if name in ("float16", "bfloat16") else "?"


def _safe(part: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", part)


def _model_dir(root: Path, hub_id: str) -> Path:
    return root.joinpath(*(_safe(p) for p in hub_id.split("/")))


def timestamp(now: _dt.datetime | None = None) -> str:
    """lm-eval's results-file timestamp with microseconds (``2026-01-31T12-00-00.123456``)."""
    return (now or _dt.datetime.now()).strftime("%Y-%m-%dT%H-%M-%S.%f")


# ============================================================================================== values
def leaderboard_sharpe(rec: dict) -> float:
    """A finite number for every Sharpe status (see the module docstring)."""
    st = rec["sharpe_status"]
    if st == "ok":
        return max(-SHARPE_CAP, min(SHARPE_CAP, float(rec["sharpe"])))
    return {"inf": SHARPE_CAP, "-inf": -SHARPE_CAP}.get(st, 0.0)


def _primary_records(result: dict, model: str) -> list[dict]:
    """The model's strict records of each row's primary metric."""
    return [r for (_, m), r in dataset_records(result).items() if m == model]


def _model_config(result: dict, model: str) -> dict:
    info = (result.get("model_info") or {}).get(model, {})
    toy = model in (result.get("toy_data") or {})
    return {
        "model_dtype": info.get("model_dtype"),
        "model_name": hub_model_id(info.get("model_name") or model, model),
        "model_sha": info.get("model_sha") or "",
        "display_name": model,
        "model_num_parameters": info.get("model_num_parameters"),
        "toy_data": toy,
        "data_source": TOY_SOURCE if toy else REAL_SOURCE,
        "toy_datasets": (result.get("toy_data") or {}).get(model, []),
        "tool": f"lm-eval-enterprise sharpe {__version__}",
    }


def hf_results(result: dict, model: str) -> dict:
    """The HF-template results file of one model."""
    res: dict = {}
    for r in _primary_records(result, model):
        res[r["group"]] = {
            "sharpe/100": leaderboard_sharpe(r) / 100.0,
            **{k: r[k] for k in ("sharpe", "sharpe_status", "mean", "std", "min", "max", "metric")},
            "baseline": r["baseline"]["value"],
            "baseline_method": r["baseline"]["method"],
            **{k: r[k] for k in ("n_templates", "ddof")},
            "toy_data": r.get("toy_data", False),
            "template_set": "core",
        }
    for r in result["records"]:
        if r["model"] == model and r["scoring_mode"] == "strict":
            for t, task in (r.get("tasks") or {}).items():
                res.setdefault(task, {})[r["metric"]] = r["template_scores"].get(t)
    cfg = _model_config(result, model)
    cfg["scale"] = (
        "results.<dataset>.sharpe/100 = S/100 (the leaderboard template multiplies by 100); "
        f"non-finite S → ±{SHARPE_CAP:g} (σ = 0) or 0 (undefined), see sharpe_status"
    )
    cfg["template_set"] = (
        "core: every column is scored on the dataset's committed core templates (t1..t5; NLU suite t1..t8); "
        "template populations "
        "(lm-eval-enterprise population) are reported apart in population_estimates.json, never in a column"
    )
    return {"config": cfg, "results": res}


def hf_request(result: dict, model: str, submitted: str) -> dict:
    """The template's request file for one model (status FINISHED, so the template attaches it)."""
    cfg = _model_config(result, model)
    n = cfg["model_num_parameters"]
    return {
        "model": cfg["model_name"],
        "base_model": "",
        "revision": cfg["model_sha"] or "main",
        "precision": template_precision(cfg["model_dtype"]),
        "weight_type": "Original",
        "status": "FINISHED",
        "submitted_time": submitted,
        "model_type": "",
        "likes": 0,
        "params": round(n / 1e9, 3) if isinstance(n, (int, float)) else 0,
        "license": "?",
        "private": False,
        "toy_data": cfg["toy_data"],
    }


def open_llm_results(result: dict, model: str, now: float) -> dict:
    """An lm-eval-style results file of one model (one row per dataset, Sharpe statistics as metrics)."""
    cfg = _model_config(result, model)
    res, configs, versions, hib, n_samples = {}, {}, {}, {}, {}
    for r in _primary_records(result, model):
        g = r["group"]
        sh = r["sharpe"] if r["sharpe_status"] == "ok" else None
        res[g] = {"alias": g, "sharpe,none": sh, "sharpe_stderr,none": "N/A", "mean,none": r["mean"]}
        res[g] |= {"mean_stderr,none": "N/A"} | {f"{k},none": r[k] for k in ("std", "min", "max")}
        neg = "negated_metric" in r["flags"]
        hib[g] = {"sharpe": True, "mean": not neg, "std": False, "min": not neg, "max": not neg}
        configs[g] = {
            "task": g,
            "metadata": {
                **{k: r[k] for k in ("dataset", "domain", "metric", "templates", "baseline", "sharpe_status", "ddof")},
                "toy_data": r.get("toy_data", False),
            },
        }
        versions[g] = 1
        n_samples[g] = {"original": r["n_docs"], "effective": r["n_docs"]}
    return {
        "results": res,
        "group_subtasks": {g: [] for g in res},
        "configs": configs,
        "versions": versions,
        "n-shot": {},
        "higher_is_better": hib,
        "n-samples": n_samples,
        "config": {"model": "lm-eval-enterprise-sharpe", **cfg},
        "git_hash": None,
        "date": now,
        "model_name": cfg["model_name"],
        "model_name_sanitized": cfg["model_name"].replace("/", "__"),
    }


# ============================================================================================== files
def about_tasks(result: dict) -> str:
    """``Tasks`` enum for the template's ``src/about.py`` (one Sharpe column per dataset row)."""
    groups = sorted(result["macro"]["overall"]["metrics"])
    lines = [
        '"""Generated by lm-eval-enterprise sharpe: paste into the Space\'s src/about.py (replaces Tasks)."""',
        "from dataclasses import dataclass",
        "from enum import Enum",
        "",
        "",
        "@dataclass",
        "class Task:",
        "    benchmark: str",
        "    metric: str",
        "    col_name: str",
        "",
        "",
        "class Tasks(Enum):",
        "    # the template multiplies values by 100: 'sharpe/100' shows the Sharpe score S itself;",
        "    # every column is the core template set (t1..t5; NLU suite t1..t8), never a generated template population",
    ]
    for i, g in enumerate(groups):
        lines.append(f"    task{i} = Task({g!r}, 'sharpe/100', {g.removeprefix('ent_') + ' Sharpe'!r})")
    lines += ["", "", "NUM_FEWSHOT = 0  # few-shot counts differ per dataset (see each dataset's README)", ""]
    return "\n".join(lines)


README = {  # the README.md of each export folder
    "hf": (
        "# Sharpe leaderboard export (Hugging Face leaderboard template)\n\n"
        "Copy `results/` into the Space's results dataset (EVAL_RESULTS_PATH) and `requests/` into its "
        "requests dataset (EVAL_REQUESTS_PATH); replace `Tasks` in `src/about.py` by `about_tasks.py`. "
        "The column metric `sharpe/100` is S/100 because the template multiplies by 100. "
        f"σ = 0 shows as ±{SHARPE_CAP:g}, an undefined S as 0 (true values: `sharpe`, `sharpe_status`). "
        "`config.toy_data: true` marks scores on the embedded fixture data (not the benchmark).\n\n"
        "This folder is rewritten on every export.\n"
    ),
    "open_llm": (
        "# Sharpe leaderboard export (lm-eval raw results layout, as the Open LLM Leaderboard stores them)\n\n"
        "One `<org>/<model>/results_<timestamp>.json` per model; every dataset row is a task with the metrics "
        "`sharpe,none` (null when not finite; see `configs.<row>.metadata.sharpe_status`), `mean,none`, "
        "`std,none`, `min,none`, `max,none`. `config.toy_data: true` marks scores on the embedded fixture "
        "data.\n\nThis folder is rewritten on every export.\n"
    ),
}


def prepare_dir(out: str | Path) -> Path:
    """Empty ``out`` for a new export (returned as a Path): a folder written by this tool (its marker file) or an
    empty one is removed; any other folder is an error."""
    out = Path(out)
    if out.exists():
        if (out / MARKER).exists() or not any(p.is_file() for p in out.rglob("*")):
            shutil.rmtree(out)
        else:
            raise SharpeInputError(
                f"{out}: exists and was not written by this tool; not overwriting it (choose "
                "another --output_path or remove the folder)"
            )
    out.mkdir(parents=True)
    (out / MARKER).write_text("written by lm-eval-enterprise sharpe; rewritten on every export\n", encoding="utf-8")
    return out


def _write_json(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(to_json(data), encoding="utf-8")


def write_hf_leaderboard(result: dict, out: str | Path, now: _dt.datetime | None = None) -> Path:
    """The HF-template export (results, requests, about_tasks.py, README.md) into ``out``; returns ``out``."""
    out, now = prepare_dir(out), now or _dt.datetime.now()
    ts = timestamp(now)
    submitted = now.astimezone(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    for model in result["models"]:
        data = hf_results(result, model)
        if not data["results"]:
            continue
        hub = data["config"]["model_name"]
        _write_json(_model_dir(out / "results", hub) / f"results_{ts}.json", data)
        req = hf_request(result, model, submitted)
        org, _, name = hub.rpartition("/")
        req_dir = out / "requests" / _safe(org) if org else out / "requests"
        prec = req["precision"] if req["precision"] != "?" else "unknown"
        _write_json(req_dir / f"{_safe(name)}_eval_request_False_{prec}_Original.json", req)
    (out / "about_tasks.py").write_text(about_tasks(result), encoding="utf-8")
    (out / "README.md").write_text(README["hf"], encoding="utf-8")
    return out


def write_open_llm(result: dict, out: str | Path, now: _dt.datetime | None = None) -> Path:
    """The lm-eval raw-results export into ``out``; returns ``out``."""
    out, now = prepare_dir(out), now or _dt.datetime.now()
    ts = timestamp(now)
    for model in result["models"]:
        data = open_llm_results(result, model, now.timestamp())
        if data["results"]:
            _write_json(_model_dir(out, data["model_name"]) / f"results_{ts}.json", data)
    (out / "README.md").write_text(README["open_llm"], encoding="utf-8")
    return out
