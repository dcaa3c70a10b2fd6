"""Running the per-row stages (samples → pairing → scores → baselines → bootstrap), in worker processes for big
inputs. Rows are independent (each has its own bootstrap seed), so the result does not depend on the number of
processes."""

from __future__ import annotations

import copy
import gc
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .bootstrap_rows import bootstrap_row
from .grouping import Group, Row
from .options import Options, Progress
from .pairing import pair, read_group_samples
from .template_scores import assign_baselines, build_scorers

AUTO_PARALLEL_BYTES = 50_000_000  # samples above this size use several processes (auto mode)


def _finalize_group(g: Group) -> None:
    """Keep what the records need (per-document values) and drop samples and scorers (small to pickle)."""
    for model in g.tables:
        for spec in g.metrics:
            scs = [g.scorers.get((model, t, spec.name, "strict")) for t in g.templates]
            if all(sc is not None and sc.per_doc is not None for sc in scs):
                g.per_doc[(model, spec.name)] = (
                    np.vstack([sc.per_doc for sc in scs]),
                    scs[0].per_doc_kind,
                    scs[0].per_doc_is_metric,
                )
    g.tables = {m: None for m in g.tables}
    g.lines, g.scorers, g.failure, g.parse_ok = {}, {}, {}, {}


def process_row(row: Row, opts: Options, table: dict) -> tuple[Row, list[str]]:
    """Samples → pairing → scorers → baselines → bootstrap for the groups of one dataset row (picklable in and
    out, so rows can run in worker processes)."""
    messages: list[str] = []
    # parsing creates millions of small containers that stay alive until the row is done; the cyclic GC would
    # traverse them again and again (it tripled the JSON decoding time) and they hold no reference cycles
    gc_enabled = gc.isenabled()
    gc.disable()
    try:
        for g in row.groups:
            read_group_samples(g, messages)
            pair(g, opts, messages)
            build_scorers(g, opts, messages)
            assign_baselines(g, opts, table)
        row.template_idx = bootstrap_row(row, opts)
        for g in row.groups:
            _finalize_group(g)
    finally:
        if gc_enabled:
            gc.enable()
    return row, messages


@dataclass
class _SourceLite:
    path: Path
    timestamp: str


@dataclass
class _RunLite:
    """The parts of a TaskRun the row processing reads (sent to worker processes instead of whole results)."""

    task: str
    source: _SourceLite
    row: dict
    meta: dict
    samples_path: Path | None
    n_samples: dict


def _lite(row: Row) -> Row:
    out = copy.copy(row)
    out.groups = []
    for g in row.groups:
        g2 = copy.copy(g)
        g2.runs = {
            m: {
                t: _RunLite(
                    r.task, _SourceLite(r.source.path, r.source.timestamp), r.row, r.meta, r.samples_path, r.n_samples
                )
                for t, r in by_t.items()
            }
            for m, by_t in g.runs.items()
        }
        out.groups.append(g2)
    return out


def _auto_workers(rows: list[Row], requested: int | None) -> int:
    if requested is not None:
        return max(1, requested)
    size = sum(
        r.samples_path.stat().st_size
        for row in rows
        for g in row.groups
        for by_t in g.runs.values()
        for r in by_t.values()
        if r.samples_path is not None
    )
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


def run_rows(rows: list[Row], opts: Options, table: dict, progress: Progress, messages: list[str]) -> list[Row]:
    """:func:`process_row` for every row, in order; messages appended in row order."""
    workers = _auto_workers(rows, opts.workers)
    out: list[Row] = []
    if workers == 1:
        for row in progress(rows, "aggregating datasets", len(rows)):
            r, msgs = process_row(row, opts, table)
            out.append(r)
            messages.extend(msgs)
        return out
    import importlib
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor

    importlib.import_module("scipy.stats")  # imported once here, inherited by forked workers (the parent needs it too)

    ctx = mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_worker_init) as ex:
        futs = [ex.submit(process_row, _lite(row), opts, table) for row in rows]
        done = []
        for f in progress(futs, f"aggregating datasets ({workers} processes)", len(futs)):
            done.append(f.result())
    for row, (r, msgs) in zip(rows, done):
        for g_new, g_old in zip(r.groups, row.groups):
            g_new.runs = g_old.runs  # restore the full TaskRuns
        out.append(r)
        messages.extend(msgs)
    return out
