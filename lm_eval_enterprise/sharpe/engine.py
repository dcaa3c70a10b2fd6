"""The aggregation: lm-eval outputs → records, rank stability, comparisons and domain roll-ups.

Stages (one module each):

1. :mod:`.grouping` — read every results file, keep template variants (metadata, else ``--variant_pattern``),
   newest run per (model, task); variant groups with the templates every model has, metrics and settings
   checks; dataset rows (a dataset with subtasks is one row over its subtask groups);
2. :mod:`.pairing` — samples of the primary filter, paired by document key (``doc.id`` → ``doc_hash`` →
   ``doc_id``; ranking: query id) on the intersection of all models and templates;
3. :mod:`.template_scores` — per (model, template, metric, scoring mode) s_t recomputed from the samples
   (checked against the results file), format-failure rates, and the baseline b on the same documents;
4. :mod:`.bootstrap_rows` — resampled s_t, one document draw per resample shared by the whole row;
   (stages 2–4 run per row, in worker processes for big inputs: :mod:`.parallel`);
5. :mod:`.records` — one typed :class:`~.records.Record` per model × group × metric × mode (point statistics,
   PSS, intervals, failure flags);
6. :mod:`.comparisons` — paired model comparisons (and, with ``--compare_decoding``, unconstrained vs
   regex-constrained runs of each model; cross-lingual pairs of datasets, ``metadata.pair``);
7. :mod:`.rollup` — rank stability, domain and overall rows.

The result is one JSON-ready dict (no NaN/inf: Sharpe is ``null`` plus ``sharpe_status``); the writers are in
:mod:`.outputs`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import asdict

from .. import __version__
from . import stats as ST
from .comparisons import comparisons, cross_lingual, decoding_comparisons
from .grouping import Group, build_groups, build_rows, load_runs
from .io import SharpeInputError, TaskRun, _sha256
from .options import Options, Progress
from .parallel import run_rows
from .records import collect_records
from .rollup import rank_stability, rollup
from .template_scores import table_baselines

__all__ = ["Options", "aggregate", "SCHEMA_VERSION"]

SCHEMA_VERSION = 1


def _samples_provenance(groups: list[Group], with_hash: bool) -> list[dict]:
    """Samples files used: path and size (+ SHA-256 with --hash_samples; off by default because hashing every
    samples file costs about as much as parsing them)."""
    out = []
    for p in sorted(
        {r.samples_path for g in groups for m in g.tables for r in g.runs[m].values() if r.samples_path is not None}
    ):
        entry = {"path": str(p), "bytes": p.stat().st_size}
        if with_hash:
            entry["sha256"] = _sha256(p)
        out.append(entry)
    return out


def _model_info(runs: list[TaskRun], models: list[str]) -> dict:
    info = {}
    for r in runs:
        if r.model in models and r.model not in info:
            cfg = r.source.config
            info[r.model] = {
                "model_name": r.source.model_name,
                "model_args": r.source.model_args,
                "model_dtype": cfg.get("model_dtype"),
                "model_sha": cfg.get("model_sha"),
                "model_revision": cfg.get("model_revision"),
                "model_num_parameters": cfg.get("model_num_parameters"),
                **r.source.settings,
            }
            if r.decoding != "unconstrained":  # keys only for constrained runs: other outputs stay as they were
                info[r.model].update(
                    {
                        "decoding": r.decoding,
                        "base_model": r.base_model,
                        "model_wrapper": cfg.get("model"),
                        "constraint_engine": cfg.get("constraint_engine"),
                    }
                )
    return info


def _toy_data(records) -> dict[str, list[str]]:
    """model → dataset rows scored on the embedded fixture data (toy rows, not the benchmark)."""
    out: dict[str, set[str]] = {}
    for r in records:
        if r.toy_data and r.level == "dataset":
            out.setdefault(r.model, set()).add(r.group)
    return {m: sorted(v) for m, v in sorted(out.items())}


def _check_compare(opts: Options, known: set[str]) -> None:
    for pair in opts.compare or []:
        names = pair.split(",")
        if len(names) != 2 or not set(names) <= known:
            raise SharpeInputError(f"--compare {pair!r}: expected two of the models {sorted(known)} as A,B")


def aggregate(paths: Sequence[str], opts: Options | None = None, argv: Sequence[str] | None = None) -> dict:
    """Aggregate lm-eval output folders; returns the full JSON-ready result (see :mod:`.outputs` for writers)."""
    opts = opts or Options()
    opts.validate()
    t0 = time.perf_counter()
    messages: list[str] = []
    progress = Progress(opts.progress)
    rfs, runs, listed = load_runs(paths, opts, messages, progress)
    groups = build_groups(runs, opts, messages, listed)
    table = table_baselines(opts.baseline[6:]) if opts.baseline.startswith("table:") else {}
    rows = build_rows(groups, messages)
    rows = run_rows(rows, opts, table, progress, messages)
    groups = [g for row in rows for g in row.groups]
    t_read = time.perf_counter()

    recs = collect_records(rows, opts)
    rank = rank_stability(recs, rows)
    _check_compare(opts, {r.model for r in recs.records})
    comps = comparisons(recs, rows, opts)
    decoding = decoding_comparisons(recs, rows, opts, messages) if opts.compare_decoding else None
    crossed, crossed_notes = cross_lingual(recs, rows)
    if not crossed:  # no pair with both sides: the notes say why, the result keeps its layout
        messages.extend(crossed_notes)
    models = sorted({r.model for r in recs.records})
    macro = rollup(recs, rows, models)
    records = sorted(
        recs.records,
        key=lambda r: (
            r.level != "dataset",
            r.domain,
            r.group,
            r.metric,
            r.scoring_mode != "strict",
            ST.sort_key(r.sharpe_value()),
            r.model,
        ),
    )
    t_end = time.perf_counter()
    result = {
        "schema_version": SCHEMA_VERSION,
        "provenance": {
            "tool": "lm-eval-enterprise sharpe",
            "tool_version": __version__,
            "lm_eval_versions": sorted({str(rf.data.get("lm_eval_version")) for rf in rfs}),
            "inputs": [
                {"path": str(rf.path), "sha256": rf.sha256, "model_name": rf.model_name, "timestamp": rf.timestamp}
                for rf in rfs
            ],
            "samples_files": _samples_provenance(groups, opts.hash_samples),
            "seed": opts.seed,
            "B": opts.bootstrap,
            "ddof": opts.ddof,
            "cli_args": list(argv or []),
            "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "timing_seconds": {"read_and_bootstrap": round(t_read - t0, 3), "total": round(t_end - t0, 3)},
        },
        # compare_decoding only when set: without it every output stays as it was before the option existed
        "settings": {k: v for k, v in asdict(opts).items() if k != "progress" and (k != "compare_decoding" or v)},
        "models": models,
        "model_info": _model_info(runs, models),
        "rows": [
            {
                "group": r.name,
                "dataset": r.dataset,
                "domain": r.domain,
                "templates": r.templates,
                "variant_groups": [g.name for g in r.groups],
                "models": r.models,
                "flags": {k: v for k, v in r.flags.items() if not k.startswith("_")},
            }
            for r in rows
        ],
        "toy_data": _toy_data(records),
        "records": [r.to_dict() for r in records],
        "rank_stability": rank,
        "comparisons": comps,
        "macro": macro,
        "messages": messages,
    }
    if decoding is not None:  # only with --compare_decoding (other outputs keep their layout)
        result["decoding_comparisons"] = decoding
    if crossed:  # only when a pair of datasets in two languages has both sides (the NLU suite)
        result["cross_lingual"] = {"rows": crossed, "notes": crossed_notes}
    return result
