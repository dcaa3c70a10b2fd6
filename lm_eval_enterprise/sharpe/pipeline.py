"""The Sharpe tool's runs, top to bottom (the data flow: docs/architecture.md#the-sharpe-tool-lm_eval_enterprisesharpe),
and its Python API: :func:`full_run` (API :func:`aggregate`) reads the core template set's rows and runs each row's
stages (:func:`score_row`; in worker processes for big inputs) into records, comparisons and roll-ups, one JSON-ready
dict (no NaN/inf: Sharpe is ``null`` plus ``sharpe_status``); sparse runs and template populations: :mod:`.estimates`.

>>> result = aggregate(["out/"], ddof=1, bootstrap=2000)          # dict, see docs/sharpe.md#outputs
>>> write_outputs(result, "sharpe_out")                          # aggregate.json, CSVs, leaderboard.md, report.html, HF
>>> print(leaderboard_markdown(["out/"]))
"""

from __future__ import annotations

import datetime
import gc
import hashlib
import json
import os
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from .. import __version__
from . import stats as ST
from .baselines import row_baselines, table_baselines
from .cells import full_cells, pair, read_row_samples, resample, template_scores
from .comparisons import comparisons, cross_lingual, decoding_comparisons, rank_stability, rollup
from .estimates import population_estimates, sparse_estimates
from .export import write_hf_leaderboard, write_open_llm
from .html_report import html_report
from .inputs import (
    Diagnostics,
    Inputs,
    Options,
    Progress,
    SharpeInputError,
    TaskRun,
    listed_by_model,
    read_inputs,
    select_runs,
)
from .records import Record, ScoredRow, collect_records
from .report import decoding_markdown, estimate_markdown, markdown, to_json, write_csvs
from .rows import Row, build_rows

SCHEMA_VERSION = 1
FORMATS = ("json", "csv", "md", "html", "hf", "openllm")
AUTO_PARALLEL_BYTES = 50_000_000  # samples above this size use several processes (auto mode)


# ============================================================================================== one row
def score_row(row: Row, opts: Options, table: dict) -> tuple[ScoredRow, list[str]]:
    """Samples → cells → scores → baselines → resamples of one dataset row, and its notes (picklable in and out,
    so rows can run in worker processes); the samples are not kept."""
    diag = Diagnostics(opts.strict_inputs)
    # parsing creates millions of small containers that stay alive until the row is done; the cyclic GC would
    # traverse them again and again (it tripled the JSON decoding time) and they hold no reference cycles
    gc_enabled = gc.isenabled()
    gc.disable()
    try:
        tables, read_flags = read_row_samples(row, diag)
        pairing = pair(row, tables, diag)
        cells = {m: full_cells(row, m, tables[m], pairing) for m in tables} if pairing else {}
        scores = template_scores(row, cells, opts, diag)
        baseline = row_baselines(row, cells, opts, table)
        resamples = resample(row, len(pairing.units) if pairing else 0, scores, opts)
        per_doc = {(m, spec.name): c.per_unit(spec.name) for m, c in cells.items() for spec in row.metrics}
        with_samples = set(cells)
        del tables, cells  # the samples go before the collector runs again (nothing left for it to traverse)
    finally:
        if gc_enabled:
            gc.enable()
    model_flags = {
        m: {**row.model_flags.get(m, {}), **read_flags.get(m, {}), **scores.model_flags.get(m, {})} for m in row.runs
    }
    scored = ScoredRow(
        row=row,
        units=pairing.units if pairing else [],
        key_source=pairing.key_source if pairing else None,
        flags={**row.flags, **(pairing.flags if pairing else {})},
        model_flags=model_flags,
        with_samples=with_samples,
        scores=scores.scores,
        fail_rate=scores.fail_rate,
        n_docs=scores.n_docs,
        baseline=baseline,
        per_doc={k: v for k, v in per_doc.items() if v is not None},
        resamples=resamples,
    )
    return scored, diag.notes


def _lite(row: Row) -> Row:
    """The row as sent to a worker process: its task runs without their results files' data (the row stages read a
    run's own results row, metadata and samples)."""
    runs = {
        m: {t: replace(r, source=replace(r.source, data={})) for t, r in by_t.items()} for m, by_t in row.runs.items()
    }
    return replace(row, runs=runs)


def _auto_workers(rows: list[Row], requested: int | None) -> int:
    if requested is not None:
        return max(1, requested)
    paths = [r.samples_path for row in rows for by_t in row.runs.values() for r in by_t.values()]
    size = sum(p.stat().st_size for p in paths if p is not None)
    if size < AUTO_PARALLEL_BYTES or len(rows) < 2:
        return 1
    return max(1, min(os.cpu_count() or 1, len(rows), 8))


def _worker_init() -> None:
    """One BLAS thread per worker process (the workers already use every core)."""
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(1)
    except Exception:  # noqa: BLE001 - only a performance setting
        pass


def score_rows(rows: list[Row], opts: Options, table: dict, progress: Progress, diag: Diagnostics) -> list[ScoredRow]:
    """:func:`score_row` for every row, in order, in worker processes for big inputs (rows are independent, each
    with its own bootstrap seed: the result does not depend on the number of processes); notes in row order."""
    workers = _auto_workers(rows, opts.workers)
    if workers == 1:
        done = [score_row(row, opts, table) for row in progress(rows, "aggregating datasets", len(rows))]
    else:
        import importlib
        import multiprocessing as mp
        from concurrent.futures import ProcessPoolExecutor

        importlib.import_module("scipy.stats")  # imported once here, inherited by forked workers (the parent too)
        ctx = mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")
        with ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_worker_init) as ex:
            futs = [ex.submit(score_row, _lite(row), opts, table) for row in rows]
            done = [f.result() for f in progress(futs, f"aggregating datasets ({workers} processes)", len(futs))]
        done = [(replace(sr, row=row), notes) for row, (sr, notes) in zip(rows, done)]  # the full task runs again
    for _, notes in done:
        for msg in notes:
            diag.note(msg)
    return [sr for sr, _ in done]


# ============================================================================================== full run
def _samples_provenance(scored: list[ScoredRow], with_hash: bool) -> list[dict]:
    """Samples files used: path and size (+ SHA-256 with --hash_samples; off by default because hashing every
    samples file costs about as much as parsing them)."""
    paths = {r.samples_path for sr in scored for m in sr.with_samples for r in sr.row.runs[m].values()}
    out = []
    for p in sorted(p for p in paths if p is not None):
        out.append({"path": str(p), "bytes": p.stat().st_size})
        if with_hash:
            with open(p, "rb") as f:
                out[-1]["sha256"] = hashlib.file_digest(f, "sha256").hexdigest()
    return out


def _model_info(runs: list[TaskRun], models: list[str]) -> dict:
    info: dict[str, dict] = {}
    for r in runs:
        if r.model in models and r.model not in info:
            cfg = r.source.config
            info[r.model] = {
                "model_name": r.source.model_name,
                "model_args": r.source.model_args,
                **{k: cfg.get(k) for k in ("model_dtype", "model_sha", "model_revision", "model_num_parameters")},
                **r.source.settings,
            }
            if r.decoding != "unconstrained":  # keys only for constrained runs: other outputs stay as they were
                info[r.model].update(
                    decoding=r.decoding,
                    base_model=r.base_model,
                    model_wrapper=cfg.get("model"),
                    constraint_engine=cfg.get("constraint_engine"),
                )
    return info


def _toy_data(records: list[Record]) -> dict[str, list[str]]:
    """model → dataset rows scored on the embedded fixture data (toy rows, not the benchmark)."""
    out: dict[str, set[str]] = defaultdict(set)
    for r in records:
        if r.toy_data:
            out[r.model].add(r.group)
    return {m: sorted(v) for m, v in sorted(out.items())}


def _check_compare(opts: Options, known: set[str]) -> None:
    for pair_ in opts.compare or []:
        names = pair_.split(",")
        if len(names) != 2 or not set(names) <= known:
            raise SharpeInputError(f"--compare {pair_!r}: expected two of the models {sorted(known)} as A,B")


def _record_order(r: Record) -> tuple:
    return (r.domain, r.group, r.metric, r.scoring_mode != "strict", ST.sort_key(r.sharpe_value()), r.model)


def full_run(inputs: Inputs, opts: Options, argv: Sequence[str] | None = None, started: float | None = None) -> dict:
    """The aggregation of the core template set of the inputs: the full JSON-ready result."""
    opts.validate()
    t0 = time.perf_counter() if started is None else started
    diag = Diagnostics(opts.strict_inputs)
    progress = Progress(opts.progress)
    rs = select_runs(inputs, "core", opts, diag)
    rows = build_rows(rs.selected, opts, diag, listed_by_model(rs, opts, diag))
    table = table_baselines(opts.baseline[6:]) if opts.baseline.startswith("table:") else {}
    scored = score_rows(rows, opts, table, progress, diag)
    t_read = time.perf_counter()
    recs = collect_records(scored, opts)
    rank = rank_stability(recs, rows)
    _check_compare(opts, {r.model for r in recs.records})
    comps = comparisons(recs, rows, opts)
    decoding = decoding_comparisons(recs, rows, opts, diag) if opts.compare_decoding else None
    crossed, crossed_notes = cross_lingual(recs, rows)
    if not crossed:  # no pair with both sides: the notes say why, the result keeps its layout
        for msg in crossed_notes:
            diag.note(msg)
    models = sorted({r.model for r in recs.records})
    macro = rollup(recs, rows, models)
    records = sorted(recs.records, key=_record_order)
    t_end = time.perf_counter()
    result = {
        "schema_version": SCHEMA_VERSION,
        "provenance": {
            "tool": "lm-eval-enterprise sharpe",
            "tool_version": __version__,
            "lm_eval_versions": sorted({str(rf.data.get("lm_eval_version")) for rf in inputs.files}),
            "inputs": [
                {"path": str(rf.path), "sha256": rf.sha256, "model_name": rf.model_name, "timestamp": rf.timestamp}
                for rf in inputs.files
            ],
            "samples_files": _samples_provenance(scored, opts.hash_samples),
            "seed": opts.seed,
            "B": opts.bootstrap,
            "ddof": opts.ddof,
            "cli_args": list(argv or []),
            "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "timing_seconds": {"read_and_bootstrap": round(t_read - t0, 3), "total": round(t_end - t0, 3)},
        },
        "settings": opts.settings(),
        "models": models,
        "model_info": _model_info(rs.selected, models),
        "rows": [
            {
                "group": r.name,
                "dataset": r.dataset,
                "domain": r.domain,
                "templates": r.templates,
                "variant_groups": [r.name],
                "models": r.models,
                "flags": {},  # flags of a dataset row over subtask groups, gone with metric version 1.2
            }
            for r in rows
        ],
        "toy_data": _toy_data(records),
        "records": [r.to_dict() for r in records],
        "rank_stability": rank,
        "comparisons": comps,
        "macro": macro,
        "messages": diag.notes,
    }
    if decoding is not None:  # only with --compare_decoding (other outputs keep their layout)
        result["decoding_comparisons"] = decoding
    if crossed:  # only when a pair of datasets in two languages has both sides (the NLU suite)
        result["cross_lingual"] = {"rows": crossed, "notes": crossed_notes}
    return result


# ============================================================================================== API
def _read(paths: Sequence[str | Path], opts: Options) -> Inputs:
    return read_inputs([str(p) for p in paths], opts.variant_pattern, Progress(opts.progress))


def aggregate(
    paths: Sequence[str | Path], options: Options | None = None, argv: Sequence[str] | None = None, **overrides: Any
) -> dict:
    """Aggregate lm-eval output folders (:func:`full_run`). Keyword overrides are :class:`Options` fields
    (``ddof=0``, ...)."""
    opts = options or Options()
    unknown = sorted(set(overrides) - set(Options.__dataclass_fields__))
    if unknown:
        raise TypeError(f"unknown option {unknown[0]!r}")
    opts = replace(opts, **overrides)
    opts.validate()
    t0 = time.perf_counter()
    return full_run(_read(paths, opts), opts, argv, t0)


def estimate_sparse(paths: Sequence[str | Path], options: Options) -> dict:
    """The estimates of a sparse run under ``paths`` (:func:`.estimates.sparse_estimates`)."""
    options.validate(estimate=True)
    return sparse_estimates(_read(paths, options), options)


def estimate_populations(paths: Sequence[str | Path], options: Options) -> dict:
    """The estimates of the template populations under ``paths`` (:func:`.estimates.population_estimates`)."""
    options.validate()
    return population_estimates(_read(paths, options), options)


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


# ============================================================================================== outputs
def write_outputs(
    result: dict, out: str | Path, formats: set[str] | None = None, md: str | None = None
) -> dict[str, Path]:
    """Write the requested formats (json, csv, md, html, hf, openllm) of a full run into ``out``; returns
    name → path. ``hf``: ``hf_leaderboard/`` (HF leaderboard template); ``openllm``: ``open_llm_leaderboard/``
    (lm-eval raw results layout), both replaced on every run. ``md``: the result's Markdown when the caller has it
    already (rendered once)."""
    formats = formats or set(FORMATS)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written = {}
    md = markdown(result) if md is None else md
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
