"""The cell table: the samples of one model × dataset row as (template × unit × statistics, observed mask,
per-unit values), read-only, and what it scores — the per-template scores s_t and their bootstrap resamples.

A unit is a document or, for ranking, a query (all candidate lines of ``doc.qid``, ordered by ``doc.cand_index``).
Lines are keyed by ``doc.id``, else ``doc_hash``, else ``doc_id``. A cell (t, u) is observed when template t logged
unit u; its statistics are the per-unit sufficient statistics of the metric's aggregation
(:mod:`lm_eval_enterprise.scoring.corpus`). A full run pairs the units shared by every template and model
(:func:`pair`: every cell observed; s_t recomputed and checked against the results file); parsed-only scoring is the
second mask :meth:`Cells.parsed`; a sparse run or a template population keeps the union of the logged units
(:func:`union_cells`: a partial mask). Resampled scores: one unit draw per resample shared by every template and
model of the row (:func:`resample`); a linear statistic is ``finalize(W @ features)``, one matrix product per chunk.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..configkeys import QUESTION_FIELD
from ..scoring import corpus
from ..scoring import metrics as M
from ..scoring.bootstrap import draw, multiplicities
from ..text import natural_key
from .inputs import Diagnostics, Options, SampleTable, SharpeInputError, read_samples
from .rows import MetricSpec, Row

RECOMPUTE_TOL = 1e-9

KEY_LABELS = {"qid": "(doc.qid, doc.cand_index)", "id": "doc.id", "doc_hash": "doc_hash", "doc_id": "doc_id"}


@dataclass(frozen=True)
class Cells:
    """One model × dataset row: ``stats[metric][t]`` are template t's statistics over its observed units (in
    ``units`` order), ``observed`` the T × U mask; per template its samples, the line (documents) or lines (queries)
    of each observed unit, its format-failure rate per observed unit (None: not logged) and whether every logged
    line is a cell."""

    model: str
    templates: list[str]
    units: list
    observed: np.ndarray
    stats: dict[str, list[corpus.Stats]]
    failure: list[np.ndarray | None]
    fail_rates: list[float | None]
    complete: list[bool]
    tables: list[SampleTable]
    lines: list[Sequence]

    def observed_units(self, t: int) -> list:
        """The units template t logged, in ``units`` order (one per entry of ``lines[t]``)."""
        return [u for u, o in zip(self.units, self.observed[t]) if o]

    def parsed(self, t: int) -> np.ndarray | None:
        """Template t's parse success per observed unit (a query is parsed when none of its lines failed)."""
        f = self.failure[t]
        return None if f is None else f == 0

    def per_unit(self, metric: str) -> tuple[np.ndarray, str | None, bool] | None:
        """(T × U per-unit values behind PSS, their kind, whether the score is their mean) of a complete table, or
        None (a statistic without per-unit values)."""
        scs = self.stats[metric]
        if not self.observed.all() or any(sc.per_doc is None for sc in scs):
            return None
        return np.vstack([sc.per_doc for sc in scs]), scs[0].per_doc_kind, scs[0].per_doc_is_metric

    def features(self, metric: str) -> np.ndarray:
        """T × U × K statistics of a linear metric (zeros in unobserved cells)."""
        scs = self.stats[metric]
        out = np.zeros((len(self.templates), len(self.units), scs[0].features.shape[1]))
        for t, sc in enumerate(scs):
            out[t, self.observed[t]] = sc.features
        return out

    def correct(self, metric: str) -> np.ndarray:
        """T × U per-unit values of ``metric`` (zeros in unobserved cells)."""
        out = np.zeros(self.observed.shape)
        for t, sc in enumerate(self.stats[metric]):
            if sc.per_doc is not None:
                out[t, self.observed[t]] = sc.per_doc
        return out


# ============================================================================================== keys
def unit_keys(tab: SampleTable, unit: str, source: str) -> list | None:
    """Each line's key from ``source`` (id / doc_hash / doc_id; ranking, source qid: (qid, cand_index)), None when a
    line has none."""
    if unit == "query":
        if any(q is None for q in tab.qid) or any(c is None for c in tab.cand):
            return None
        return [(str(q), int(c)) for q, c in zip(tab.qid, tab.cand)]
    col = getattr(tab, {"id": "ids", "doc_hash": "hashes", "doc_id": "doc_ids"}[source])
    if any(v is None for v in col):
        return None
    return [str(v) for v in col]


def key_sources(unit: str) -> tuple[str, ...]:
    return ("qid",) if unit == "query" else ("id", "doc_hash", "doc_id")


def _key_problems(unit: str, tabs: list[SampleTable]) -> str:
    """Which samples file(s) break the preferred key (the fallbacks failed too): a line without it, or its first
    duplicated value and how often it occurs — naming those files, not the row's first."""
    sources = key_sources(unit)
    source, bad = sources[0], []
    for tab in tabs:
        keys = unit_keys(tab, unit, source)
        if keys is None:
            bad.append(f"{tab.path}: a line has no {KEY_LABELS[source]}")
            continue
        counts = Counter(keys)
        dup = next((k for k, n in counts.items() if n > 1), None)
        if dup is not None:
            bad.append(f"{tab.path}: {KEY_LABELS[source]} {dup!r} occurs {counts[dup]} times (duplicated samples)")
    more = f" (+{len(bad) - 2} more files)" if len(bad) > 2 else ""
    fallbacks = " / ".join(KEY_LABELS[s] for s in sources[1:])
    return "; ".join(bad[:2]) + more + (f"; no unique {fallbacks} either" if fallbacks else "")


def choose_keys(tabs: list[SampleTable], unit: str) -> tuple[str, list[list]] | None:
    """(key source, each table's line keys): the first source every table has on every line, without
    duplicates; None when none does."""
    for source in key_sources(unit):
        keys = [unit_keys(tab, unit, source) for tab in tabs]
        if all(k is not None and len(set(k)) == len(k) for k in keys):
            return source, keys
    return None


def unit_lines(keys: list, unit: str, keep: set | None = None) -> dict:
    """unit → its line (documents) or its lines in candidate order (queries); ``keep``: only the candidates in it."""
    if unit == "doc":
        return {k: i for i, k in enumerate(keys)}
    by_q: dict = defaultdict(list)
    for i, (q, c) in enumerate(keys):
        if keep is None or (q, c) in keep:
            by_q[q].append((c, i))
    return {q: [i for _, i in sorted(v)] for q, v in by_q.items()}


# ============================================================================================== full runs
def read_row_samples(row: Row, diag: Diagnostics) -> tuple[dict[str, dict[str, SampleTable]], dict[str, dict]]:
    """(model → template → samples of the primary filter, model → flags): a model with a missing or empty samples
    file keeps results-file scores only (flag ``no_samples``). Document fields are kept for the first model with
    samples only (the baselines read them)."""
    metrics = [m.name for m in row.metrics]
    filt = row.metrics[0].filter
    if any(m.filter != filt for m in row.metrics):
        raise SharpeInputError(f"group {row.name}: metrics with different filters cannot be paired in one run")
    out: dict[str, dict[str, SampleTable]] = {}
    flags: dict[str, dict] = {}
    for model in row.models:
        tables, missing = {}, []
        for tid in row.templates:
            run = row.runs[model][tid]
            if run.samples_path is None:
                missing.append(f"{tid} (no samples_{run.task}_{run.source.timestamp}.jsonl)")
                continue
            tab = read_samples(run.samples_path, filt, metrics, keep_docs=not out)
            if len(tab) == 0:
                missing.append(f"{tid} ({run.samples_path.name} is empty)")
                continue
            tables[tid] = tab
        if not missing:
            out[model] = tables
            continue
        what = (
            f"samples missing for {', '.join(missing)}; sample-based statistics of this model are null"
            if tables
            else f"no samples ({', '.join(missing)}); scores from the results files only, sample-based statistics null"
        )
        diag.note(f"group {row.name}, model {model}: {what} (flag no_samples)")
        flags[model] = {"no_samples": missing}
    return out, flags


@dataclass(frozen=True)
class Pairing:
    """The units every template and model of a full run shares: their keys, where the keys came from, each
    (model, template)'s line(s) per unit, and the row flags pairing raised."""

    units: list
    key_source: str
    lines: dict[tuple[str, str], list]
    flags: dict[str, Any]


def pair(row: Row, tables: dict[str, dict[str, SampleTable]], diag: Diagnostics) -> Pairing | None:
    """Choose the key source, intersect the key sets (flag ``doc_set_intersected`` when templates or models cover
    different documents) and record each table's line order per unit; None without samples."""
    tabs = [(m, t, tab) for m, by_t in tables.items() for t, tab in by_t.items()]
    if not tabs:
        return None
    chosen = choose_keys([tab for _, _, tab in tabs], row.unit)
    if chosen is None:
        raise SharpeInputError(
            f"group {row.name}: cannot pair documents across templates: "
            + _key_problems(row.unit, [tab for _, _, tab in tabs])
        )
    source, per_tab = chosen
    sets = [set(k) for k in per_tab]
    common = set.intersection(*sets)
    flags: dict[str, Any] = {}
    if any(len(s) != len(common) for s in sets):
        detail = ", ".join(f"{m}/{t}: {len(s)}" for (m, t, _), s in zip(tabs, sets))
        diag.problem(
            f"group {row.name}: templates/models cover different documents ({detail}); "
            f"{len(common)} shared (usual cause: differing --limit)",
            note_suffix="; every score recomputed on the intersection (flag doc_set_intersected)",
        )
        flags["doc_set_intersected"] = {"shared": len(common), "sizes": sorted({len(s) for s in sets})}
    if not common:
        raise SharpeInputError(f"group {row.name}: no document is shared by all templates and models")
    units = sorted(common if row.unit == "doc" else {q for q, _ in common}, key=natural_key)
    lines = {}
    for (m, t, _), ks in zip(tabs, per_tab):
        at = unit_lines(ks, row.unit, common)
        lines[(m, t)] = np.array([at[u] for u in units]) if row.unit == "doc" else [at[u] for u in units]
    if row.unit == "query":
        _flag_cut_queries(row, units, lines, flags, diag)
    return Pairing(units, source, lines, flags)


def _flag_cut_queries(row: Row, units: list, lines: dict, flags: dict, diag: Diagnostics) -> None:
    """Flag ``cut_queries``: queries scored over fewer candidates than the task's ``candidates_per_query`` (a
    ``--limit`` that ended inside a query, as plain ``lm_eval`` allows): their RR@k / nDCG@k rank part of the
    candidates only."""
    runs = [r for by_t in row.runs.values() for r in by_t.values()]
    expected = next((c for r in runs if (c := r.taskmeta.candidates_per_query)), None)
    if not expected:
        return
    cut = sorted(
        {q for per_q in lines.values() for q, ls in zip(units, per_q) if len(ls) < int(expected)}, key=natural_key
    )
    if cut:
        flags["cut_queries"] = {"queries": cut, "candidates_per_query": int(expected)}
        diag.note(
            f"group {row.name}: {len(cut)} quer{'y' if len(cut) == 1 else 'ies'} scored over fewer than their "
            f"{expected} candidates ({', '.join(cut[:3])}{', ...' if len(cut) > 3 else ''}: a --limit that cuts "
            "a query; flag cut_queries)"
        )


def aggregation(spec: MetricSpec, family: str | None, values: list, name: str) -> str:
    """The metric's aggregation; a metric the family registry does not know is a mean when its values are
    numbers."""
    if spec.agg is not None:
        return spec.agg
    if not all(isinstance(v, (int, float)) for v in values[:50]):
        raise SharpeInputError(
            f"group {name}: unknown aggregation for metric {spec.name!r} "
            f"(task_family {family!r} not in lm_eval_enterprise.families)"
        )
    return "mean"


def unit_stats(agg: str, metric: str, tab: SampleTable, lines: Sequence, unit: str, strip: bool = False):
    """The statistics of ``metric`` over the units whose line(s) are ``lines`` (``strip``: without the items'
    question, i.e. one question's own corpus metric)."""
    vals = tab.values[metric]
    try:
        if unit == "doc":
            items = [vals[i] for i in lines]
            if strip:
                items = [{f: v for f, v in it.items() if f != QUESTION_FIELD} for it in items]
            return corpus.doc_stats(agg, items, metric)
        return corpus.query_stats(agg, [[vals[i] for i in q] for q in lines], metric)
    except (M.MetricInputError, corpus.UnknownAggregation) as exc:
        raise SharpeInputError(f"{tab.path}: {exc}") from None


def _failure(tab: SampleTable, lines: Sequence, unit: str) -> tuple[np.ndarray | None, float | None]:
    """(per-unit format-failure rate, the rate over all their lines) of the units whose line(s) are ``lines``
    (None, None: not logged)."""
    if tab.failure is None:
        return None, None
    f = np.asarray(tab.failure, dtype=float)
    if unit == "doc":
        total, count = f[lines], np.ones(len(lines))
    else:
        total = np.array([f[q].sum() for q in lines])
        count = np.array([len(q) for q in lines], dtype=float)
    return total / count, float(total.sum() / count.sum())


def full_cells(row: Row, model: str, tables: dict[str, SampleTable], pairing: Pairing) -> Cells:
    """The cell table of one model of a full run: every shared unit observed under every template."""
    tabs = [tables[t] for t in row.templates]
    lines = [pairing.lines[(model, t)] for t in row.templates]
    stats = {
        spec.name: [
            unit_stats(aggregation(spec, row.family, tab.values[spec.name], row.name), spec.name, tab, ls, row.unit)
            for tab, ls in zip(tabs, lines)
        ]
        for spec in row.metrics
    }
    return _cells(model, row.templates, pairing.units, tabs, lines, row.unit, stats)


def _cells(model, templates, units, tabs, lines, unit, stats, observed: np.ndarray | None = None) -> Cells:
    """The cell table of templates whose observed units (``observed``; None: all) have the lines ``lines[t]``, in
    ``units`` order."""
    fails = [_failure(tab, ls, unit) for tab, ls in zip(tabs, lines)]
    if observed is None:
        observed = np.ones((len(templates), len(units)), dtype=bool)
    complete = [len(tab) == (len(ls) if unit == "doc" else sum(map(len, ls))) for tab, ls in zip(tabs, lines)]
    failure, rates = [f[0] for f in fails], [f[1] for f in fails]
    return Cells(model, list(templates), units, observed, stats, failure, rates, complete, list(tabs), lines)


# ============================================================================================== partial masks
def union_cells(model: str, templates: list[str], tables: list[SampleTable], unit: str, metric: str, agg: str) -> Cells:
    """The cell table of one model over the union of the units its templates logged, as a sparse run or a template
    population has it (a partial mask)."""
    chosen = choose_keys(tables, unit)
    if chosen is None:
        bad = next((tab for tab in tables if choose_keys([tab], unit) is None), tables[0])
        raise SharpeInputError(
            f"{bad.path}: no unique document key (doc.id / doc_hash / doc_id; ranking: doc.qid + "
            "doc.cand_index) to pair documents across templates"
        )
    by_t = [unit_lines(k, unit) for k in chosen[1]]
    units = sorted(set().union(*(set(b) for b in by_t)), key=natural_key)
    return _partial(model, templates, tables, units, by_t, unit, metric, agg)


def _partial(model, templates, tables, units, by_t: list[dict], unit, metric, agg, strip: bool = False) -> Cells:
    """Cells of ``units`` observed where a template has lines for them (``by_t``: per template unit → line(s))."""
    observed = np.array([[u in b for u in units] for b in by_t], dtype=bool).reshape(len(templates), len(units))
    lines = [[b[u] for u in units if u in b] for b in by_t]
    stats = {metric: [unit_stats(agg, metric, tab, ls, unit, strip) for tab, ls in zip(tables, lines)]}
    return _cells(model, templates, units, tables, lines, unit, stats, observed)


def question_cells(cells: Cells, metric: str, agg: str) -> list[tuple[str, Cells]]:
    """A dataset made of questions (documents carrying ``question_id``): one cell table per question, its items
    scored without the question (its own corpus metric), questions in the order of their first unit; [] without
    questions."""
    questions: dict = {}
    for tab, ls, mask in zip(cells.tables, cells.lines, cells.observed):
        vals = tab.values[metric]
        for u, i in zip((u for u, o in zip(cells.units, mask) if o), ls):
            q = vals[i].get(QUESTION_FIELD) if isinstance(vals[i], dict) else None
            if q is not None:
                questions[u] = str(q)
    if not questions:
        return []
    if len(questions) != len(cells.units):
        raise SharpeInputError(f"some documents of the group carry a {QUESTION_FIELD} and others none")
    by_t = [dict(zip(cells.observed_units(t), cells.lines[t])) for t in range(len(cells.templates))]
    out = []
    for q in dict.fromkeys(questions[u] for u in cells.units):
        units = [u for u in cells.units if questions[u] == q]
        keep = [{u: ls for u, ls in b.items() if questions[u] == q} for b in by_t]
        out.append((q, _partial(cells.model, cells.templates, cells.tables, units, keep, "doc", metric, agg, True)))
    return out


# ============================================================================================== scores
@dataclass(frozen=True)
class TemplateScores:
    """s_t per (model, template, metric, scoring mode) with the statistics behind it (models with samples), the
    format-failure rate per (model, template), the units scored per model, and the model flags scoring raised."""

    scores: dict[tuple, float]
    scorers: dict[tuple, corpus.Stats]
    fail_rate: dict[tuple[str, str], float | None]
    n_docs: dict[str, int | None]
    model_flags: dict[str, dict]


def _from_results(row: Row, model: str, tid: str, out: dict) -> None:
    """A model without samples: s_t straight from the results file (strict mode only)."""
    run = row.runs[model][tid]
    for spec in row.metrics:
        v = run.reported(f"{spec.name},{spec.filter}")
        if v is None:
            raise SharpeInputError(
                f"{run.source.path}: results[{run.task}][{spec.name},{spec.filter}] "
                f"is not a number ({run.row.get(f'{spec.name},{spec.filter}')!r})"
            )
        out[(model, tid, spec.name, "strict")] = v


def _from_cells(row: Row, c: Cells, ti: int, opts: Options, out: TemplateScores, diag: Diagnostics) -> None:
    """s_t of one template from its cells: strict (checked against the results file when every logged line is a
    cell: flag ``recompute_mismatch``), and parsed-only on the parsed units."""
    model, tid = c.model, row.templates[ti]
    if c.fail_rates[ti] is not None:
        out.fail_rate[(model, tid)] = c.fail_rates[ti]
    ok = c.parsed(ti)
    for spec in row.metrics:
        sc = c.stats[spec.name][ti]
        s = sc.score()
        if not math.isfinite(s):
            raise SharpeInputError(f"{c.tables[ti].path}: {spec.name} is undefined on the shared documents")
        out.scorers[(model, tid, spec.name, "strict")] = sc
        out.scores[(model, tid, spec.name, "strict")] = s
        target = row.runs[model][tid].reported(f"{spec.name},{spec.filter}")
        if c.complete[ti] and target is not None and abs(target - s) > RECOMPUTE_TOL:
            diag.note(
                f"group {row.name}, model {model}, {tid}: {spec.name} recomputed from samples = "
                f"{s:.10g} but the results file says {target:.10g} (flag recompute_mismatch); "
                "the recomputed value is used"
            )
            out.model_flags.setdefault(model, {}).setdefault("recompute_mismatch", []).append(f"{tid}:{spec.name}")
        if "parsed_only" in opts.modes and ok is not None:
            msc = sc.masked(ok)
            out.scorers[(model, tid, spec.name, "parsed_only")] = msc
            out.scores[(model, tid, spec.name, "parsed_only")] = msc.score() if ok.any() else math.nan


def template_scores(row: Row, cells: dict[str, Cells], opts: Options, diag: Diagnostics) -> TemplateScores:
    """Every s_t of the row: recomputed from the cells of a model with samples, else read from the results file."""
    out = TemplateScores({}, {}, {}, {}, {})
    for model in row.models:
        c = cells.get(model)
        for ti, tid in enumerate(row.templates):
            run = row.runs[model][tid]
            ff_res = run.row.get(f"format_failure,{row.metrics[0].filter}")
            out.fail_rate[(model, tid)] = float(ff_res) if isinstance(ff_res, (int, float)) else None
            if c is not None:
                out.n_docs[model] = len(c.units)
                _from_cells(row, c, ti, opts, out, diag)
            else:
                out.n_docs[model] = (run.n_samples or {}).get("effective")
                _from_results(row, model, tid, out.scores)
    return out


# ============================================================================================== resamples
@dataclass(frozen=True)
class Resamples:
    """``boot[(model, metric, mode, kind)]``: B × T resampled s_t; ``template_idx[kind]``: B × T template draws
    (None for the unit bootstrap). kind: ``docs``, and ``docs+templates`` with ``--bootstrap_templates``."""

    boot: dict[tuple, np.ndarray]
    template_idx: dict[str, np.ndarray | None]


def _resampled(row: Row, scores: TemplateScores, n_units: int, di: np.ndarray, opts: Options, kind: str) -> dict:
    """(model, metric, mode, kind) → B × T matrix of the row's templates."""
    entries = [(k, s) for k, s in scores.scorers.items() if k[3] in opts.modes]
    lin = [(k, s) for k, s in entries if s.linear]
    nonlin = [(k, s) for k, s in entries if not s.linear]
    out = {k: np.empty(opts.bootstrap) for k, _ in entries}
    if lin:
        feats = np.hstack([s.features for _, s in lin])
        bounds = np.cumsum([0] + [s.features.shape[1] for _, s in lin])
    chunk = max(1, min(opts.bootstrap, 4_000_000 // max(n_units, 1), 8_000_000 // max(feats.shape[1] if lin else 1, 1)))
    for start in range(0, opts.bootstrap, chunk):
        # column-major, as the bootstrap always multiplied: BLAS picks its kernels by layout, and the last bits of
        # W @ features follow them
        w = np.asfortranarray(multiplicities(di[start : start + chunk], n_units))
        if lin:
            sums = w @ feats
            for j, (k, s) in enumerate(lin):
                out[k][start : start + len(w)] = s.finalize(sums[:, bounds[j] : bounds[j + 1]])
        for k, s in nonlin:
            out[k][start : start + len(w)] = s.scores(w)
    boot = {}
    for model in row.models:
        for spec in row.metrics:
            for mode in opts.modes:
                if (model, row.templates[0], spec.name, mode) in scores.scorers:
                    boot[(model, spec.name, mode, kind)] = np.column_stack(
                        [out[(model, t, spec.name, mode)] for t in row.templates]
                    )
    return boot


def resample(row: Row, n_units: int, scores: TemplateScores, opts: Options) -> Resamples:
    """The row's resampled scores over its ``n_units`` shared units (:func:`lm_eval_enterprise.scoring.bootstrap.draw`
    from the row's own seed): kind "docs" (unit resampling) and, with ``--bootstrap_templates``, "docs+templates" (its
    own draw stream). Nothing without resamples or samples."""
    if opts.bootstrap <= 0 or not scores.scorers:
        return Resamples({}, {})
    boot, template_idx = {}, {}
    for kind, tpl in [("docs", False)] + ([("docs+templates", True)] if opts.bootstrap_templates else []):
        di, ti = draw(opts.seed, opts.bootstrap, n_units, len(row.templates), tpl)
        template_idx[kind] = ti
        boot.update(_resampled(row, scores, n_units, di, opts, kind))
    return Resamples(boot, template_idx)
