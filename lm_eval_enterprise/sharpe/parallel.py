"""Running the per-row stages (samples → cells → scores → baselines → bootstrap), in worker processes for big
inputs. Rows are independent (each has its own bootstrap seed), so the result does not depend on the number of
processes."""

from __future__ import annotations

import gc
import os
from dataclasses import dataclass, replace
from pathlib import Path

from .bootstrap_rows import resample
from .cells import full_cells, pair, read_row_samples
from .grouping import Row
from .options import Options, Progress
from .records import ScoredRow
from .template_scores import row_baselines, template_scores

AUTO_PARALLEL_BYTES = 50_000_000  # samples above this size use several processes (auto mode)


def _merged(*dicts: dict) -> dict:
    out: dict = {}
    for d in dicts:
        out.update(d)
    return out


def process_row(row: Row, opts: Options, table: dict) -> tuple[ScoredRow, list[str]]:
    """Samples → cells → scores → baselines → bootstrap of one dataset row (picklable in and out, so rows can run
    in worker processes); the samples are not kept."""
    messages: list[str] = []
    # parsing creates millions of small containers that stay alive until the row is done; the cyclic GC would
    # traverse them again and again (it tripled the JSON decoding time) and they hold no reference cycles
    gc_enabled = gc.isenabled()
    gc.disable()
    try:
        tables, read_flags = read_row_samples(row, messages)
        pairing = pair(row, tables, opts, messages)
        cells = {m: full_cells(row, m, tables[m], pairing) for m in tables} if pairing else {}
        scores = template_scores(row, cells, opts, messages)
        baseline = row_baselines(row, cells, opts, table)
        resamples = resample(row, len(pairing.units) if pairing else 0, scores, opts)
        per_doc = {(m, spec.name): c.per_unit(spec.name) for m, c in cells.items() for spec in row.metrics}
    finally:
        if gc_enabled:
            gc.enable()
    models = set(row.runs)
    scored = ScoredRow(
        row=row,
        units=pairing.units if pairing else [],
        key_source=pairing.key_source if pairing else None,
        flags=_merged(row.flags, pairing.flags if pairing else {}),
        model_flags={
            m: _merged(row.model_flags.get(m, {}), read_flags.get(m, {}), scores.model_flags.get(m, {})) for m in models
        },
        with_samples=set(cells),
        scores=scores.scores,
        fail_rate=scores.fail_rate,
        n_docs=scores.n_docs,
        baseline=baseline,
        per_doc={k: v for k, v in per_doc.items() if v is not None},
        boot=resamples.boot,
        template_idx=resamples.template_idx,
    )
    return scored, messages


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
    return replace(
        row,
        runs={
            m: {
                t: _RunLite(
                    r.task, _SourceLite(r.source.path, r.source.timestamp), r.row, r.meta, r.samples_path, r.n_samples
                )
                for t, r in by_t.items()
            }
            for m, by_t in row.runs.items()
        },
    )


def _auto_workers(rows: list[Row], requested: int | None) -> int:
    if requested is not None:
        return max(1, requested)
    size = sum(
        r.samples_path.stat().st_size
        for row in rows
        for by_t in row.runs.values()
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


def run_rows(rows: list[Row], opts: Options, table: dict, progress: Progress, messages: list[str]) -> list[ScoredRow]:
    """:func:`process_row` for every row, in order; messages appended in row order."""
    workers = _auto_workers(rows, opts.workers)
    out: list[ScoredRow] = []
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
        out.append(replace(r, row=row))  # the full TaskRuns again
        messages.extend(msgs)
    return out
