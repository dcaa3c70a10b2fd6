"""Records: one :class:`Record` per model × dataset row × metric × scoring mode, from the scored row
(:class:`ScoredRow`: what the per-row stages of :mod:`.pipeline` give); its fields: docs/sharpe.md#outputs.
:meth:`Record.to_dict` gives the JSON form written to ``aggregate.json`` (field order = the dataclass order;
fields left :data:`ABSENT` are not written; ``per_doc`` and ``scores_bt`` are private, for the writers and the
comparisons only).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields, replace
from typing import Any

import numpy as np

from ..scoring.sharpe_score import sharpe
from ..text import natural_key
from . import baselines as BL
from . import stats as ST
from .cells import Resamples
from .inputs import Options
from .rows import MetricSpec, Row


class _Absent:
    """Type of :data:`ABSENT`: a record field that is not written at all (unlike ``None`` → ``null``)."""

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Any = _Absent()
PRIVATE_NAMES = {"per_doc": "_per_doc", "scores_bt": "_scores_bt"}  # dataclass field → key in the dict form


@dataclass(frozen=True)
class Record:
    """Statistics of one model × dataset row × metric × scoring mode (see the module docstring)."""

    level: str  # "dataset" (the only level since metric version 1.3)
    group: str
    dataset: str
    domain: str
    subtask: str | None  # None since metric version 1.3 (kept in the output layout)
    variant_groups: list[str]
    model: str
    metric: str
    filter: str
    scoring_mode: str  # "strict" | "parsed_only"
    comparable_across_models: bool
    n_templates: int
    templates: list[str]
    n_docs: int | None
    toy_data: bool  # scored on the embedded fixture data, not the benchmark
    baseline: dict  # Baseline.as_dict()
    template_scores: dict[str, float | None]  # native scale (not negated)
    ddof: int
    alpha: float
    sigma_floor_mode: str
    mean: float | None = None
    std: float | None = None
    sigma_eff: float | None = ABSENT  # written when the statistics are defined
    sharpe: float | None = None
    sharpe_status: str = "undefined"  # ok | inf | -inf | undefined | single_template | no_baseline
    degenerate_std: bool = False
    sigma_floor_active: bool = False
    excess_mean: float | None = ABSENT  # μ − b; written when the statistics are defined
    min: float | None = None
    max: float | None = None
    spread: float | None = None
    maxp: float | None = None
    avgp: float | None = None
    cps: float | None = None
    quantiles: dict[str, float] | None = None
    pss: float | None = None
    pss_basis: str | None = None
    fragile_docs: list[dict] | None = None
    per_doc: tuple = ABSENT  # private: (keys, T × D values, S_d)
    format_failure: dict[str, float | None] | None = None
    ci: dict | None = None
    ci_templates: dict = ABSENT  # with --bootstrap_templates
    flags: list[str] = field(default_factory=list)
    flag_details: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    scores_bt: np.ndarray | None = None  # private: B × T resampled scores (document bootstrap)
    key_source: str | None = None
    tasks: dict[str, str] = ABSENT  # template → lm-eval task name (records of one variant group)

    def to_dict(self) -> dict:
        """The JSON form (values not copied; private fields kept under ``_``-prefixed keys)."""
        return {
            PRIVATE_NAMES.get(f.name, f.name): getattr(self, f.name)
            for f in fields(self)
            if getattr(self, f.name) is not ABSENT
        }

    def sharpe_value(self) -> float | None:
        """S as a float: ±inf for a zero σ, NaN when undefined."""
        if self.sharpe_status == "ok":
            return self.sharpe
        return {"inf": math.inf, "-inf": -math.inf}.get(self.sharpe_status, math.nan)


@dataclass(frozen=True)
class ScoredRow:
    """A dataset row after the per-row stages (cells, scores, baselines, bootstrap; :func:`.pipeline.score_row`): what the
    records, comparisons and roll-ups read. ``flags``: the row's flags; ``model_flags``: each model's; ``per_doc``:
    (model, metric) → (T × U per-unit values, their kind, whether the score is their mean)."""

    row: Row
    units: list
    key_source: str | None
    flags: dict[str, Any]
    model_flags: dict[str, dict[str, Any]]
    with_samples: set[str]
    scores: dict[tuple, float]  # (model, template, metric, mode) → s_t (TemplateScores.scores; the statistics stay)
    fail_rate: dict[tuple[str, str], float | None]
    n_docs: dict[str, int | None]
    baseline: dict[str, BL.Baseline]
    per_doc: dict[tuple[str, str], tuple]
    resamples: Resamples


# ============================================================================================== one record
def baseline_arg(baseline: dict, templates: list[str]):
    """A record's baseline as the Sharpe formulas take it: b, or the vector of the b_t when it differs per template
    (None: unavailable)."""
    if baseline.get("per_template") and baseline["value"] is not None:
        return np.array([baseline["per_template"][t] for t in templates])
    return baseline["value"]


def _point_statistics(s: np.ndarray, b_arg, n_docs, baseline: dict, flags: dict, opts: Options) -> dict:
    """μ, σ, S and the across-template statistics (``s`` and ``b_arg`` already oriented higher-is-better)."""
    st = sharpe(s, b_arg, opts.ddof, opts.alpha, opts.floor_mode(), n_docs)
    if st["sharpe_status"] == "single_template":
        flags["single_template"] = True
    if st["degenerate_std"]:
        flags["degenerate_std"] = True
    if st["sharpe_status"] == "no_baseline":
        flags["no_baseline"] = baseline.get("note") or True
    if st["sigma_floor_active"]:
        flags["sigma_floor_active"] = True
    # a record carries S only when finite (±inf and undefined: sharpe_status)
    return {**st, "sharpe": st["sharpe"] if st["sharpe_status"] == "ok" else None, **ST.describe(s)}


def _prosa(templates: list[str], per_doc: tuple | None, opts: Options) -> dict:
    """ProSA PSS and the most fragile documents (ties keep the documents' natural order)."""
    if per_doc is None or len(templates) < 2:
        return {}
    keys, mat, kind = per_doc
    value, sd = ST.pss(mat)
    order = np.argsort(-sd, kind="stable")[: opts.fragile_top]
    fragile = [
        {"key": keys[i], "s_d": float(sd[i]), "per_template": {t: float(mat[j, i]) for j, t in enumerate(templates)}}
        for i in order
        if sd[i] > 0
    ]
    return {"pss": value, "pss_basis": kind, "fragile_docs": fragile, "per_doc": (keys, mat, sd)}


def _intervals(boot: dict, template_idx: dict, b_arg, n_docs, higher_is_better: bool, opts: Options) -> dict:
    """Percentile intervals of μ, σ, S from the resampled scores ``boot`` (kind → B × T; ``ci``, and
    ``ci_templates`` with templates resampled too)."""
    out: dict[str, Any] = {"ci": None}
    for kind, name in (("docs", "ci"), ("docs+templates", "ci_templates")):
        mat = boot.get(kind)
        if mat is None:
            continue
        if not higher_is_better:
            mat = -mat
        b = b_arg if b_arg is not None else np.nan
        ci = ST.summarize(
            mat, b, opts.ddof, opts.alpha, opts.floor_mode(), n_docs or 0, template_idx.get(kind), opts.seed
        )
        if b_arg is None:
            ci["sharpe"] = None
        if not higher_is_better:
            if ci["mean"] is not None:
                lo, hi = ci["mean"]
                ci["mean"] = [-hi, -lo]
            ci["negated"] = True
        out[name] = ci
    return out


def build_record(sr: ScoredRow, model: str, spec: MetricSpec, mode: str, opts: Options) -> Record:
    """The record of one model, metric and scoring mode of a scored row."""
    row, tids = sr.row, sr.row.templates
    shown = np.array([sr.scores[(model, t, spec.name, mode)] for t in tids], dtype=float)
    baseline = sr.baseline[spec.name].as_dict()
    b_arg = baseline_arg(baseline, tids)
    flags, notes = {**sr.flags, **sr.model_flags.get(model, {})}, []
    if model not in sr.with_samples:
        flags.setdefault("no_samples", True)
    s = shown
    if not spec.higher_is_better:  # lower is better: S is computed on −s against −b
        s, b_arg = -shown, None if b_arg is None else -b_arg
        flags["negated_metric"] = True
    n_docs = sr.n_docs.get(model)
    fields_: dict[str, Any] = {}
    undefined = ~np.isfinite(s)
    if undefined.any():
        bad = [t for t, u in zip(tids, undefined) if u]
        flags["undefined_template_scores"] = bad
        notes.append(f"{mode}: metric undefined for {', '.join(bad)} (no parsed documents); statistics null")
    else:
        fields_.update(_point_statistics(s, b_arg, n_docs, baseline, flags, opts))
    per_doc = sr.per_doc.get((model, spec.name)) if mode == "strict" else None
    fields_.update(_prosa(tids, None if per_doc is None else (list(sr.units), per_doc[0], per_doc[1]), opts))
    boot = {k[3]: v for k, v in sr.resamples.boot.items() if k[:3] == (model, spec.name, mode)}
    fields_.update(_intervals(boot, sr.resamples.template_idx, b_arg, n_docs, spec.higher_is_better, opts))
    if fields_["ci"] is None and opts.bootstrap > 0:
        flags.setdefault("no_samples", True)
    failure = {t: sr.fail_rate.get((model, t)) for t in tids}
    return Record(
        level="dataset",
        group=row.name,
        dataset=row.dataset,
        domain=row.domain,
        subtask=None,
        variant_groups=[row.name],
        model=model,
        metric=spec.name,
        filter=spec.filter,
        scoring_mode=mode,
        comparable_across_models=mode == "strict",
        n_templates=len(tids),
        templates=list(tids),
        n_docs=n_docs,
        toy_data=row.toy.get(model, False),
        baseline=baseline,
        template_scores={t: float(v) if math.isfinite(v) else None for t, v in zip(tids, shown)},
        ddof=opts.ddof,
        alpha=opts.alpha,
        sigma_floor_mode=opts.sigma_floor,
        format_failure=None if all(v is None for v in failure.values()) else failure,
        flags=sorted(flags),
        flag_details={k: v for k, v in flags.items() if v is not True},
        notes=notes,
        scores_bt=boot.get("docs"),
        key_source=sr.key_source,
        tasks={t: row.runs[model][t].task for t in tids},
        **fields_,
    )


# ============================================================================================== all records
@dataclass(frozen=True)
class RecordSet:
    """Every record, plus the dataset-level ones by (row, model, metric, mode) and their per-document values by
    (row, model, metric) — what rank stability, comparisons and roll-ups read."""

    records: list[Record]
    by_key: dict[tuple[str, str, str, str], Record]
    per_doc: dict[tuple[str, str, str], tuple]  # the scored rows' per_doc: → (T × D values, kind, is_metric)

    def get(self, row: str, model: str, metric: str, mode: str = "strict") -> Record | None:
        return self.by_key.get((row, model, metric, mode))


def row_records(sr: ScoredRow, opts: Options) -> list[Record]:
    """The records of one scored row (per metric, scoring mode and model), with its failure flags."""
    out = []
    for spec in sr.row.metrics:
        recs = [
            build_record(sr, model, spec, mode, opts)
            for mode in opts.record_modes
            for model in sr.row.models
            if (model, sr.row.templates[0], spec.name, mode) in sr.scores
        ]
        out += with_failure_flags(recs, opts, spec.higher_is_better)
    return out


def collect_records(rows: list[ScoredRow], opts: Options) -> RecordSet:
    """Every record of every row, by key, and the rows' per-document values."""
    records = [rec for sr in rows for rec in row_records(sr, opts)]
    by_key = {(r.group, r.model, r.metric, r.scoring_mode): r for r in records}
    per_doc = {(sr.row.name, *key): values for sr in rows for key, values in sr.per_doc.items()}
    return RecordSet(records, by_key, per_doc)


# ============================================================================================== failure flags
def with_failure_flags(recs: list[Record], opts: Options, higher_is_better: bool) -> list[Record]:
    """The records of one row × metric (both scoring modes), flagged high_failure / broken_template with the
    templates found on the strict ones (none without strict records).

    high_failure: a template's failure rate > --fail_threshold for any model, or > median + 3·MAD of all
    (model, template) rates of the row (the MAD rule only when MAD > 0). broken_template: for ≥ 80 % of the models
    s_t < b + 0.5·(median_t s_t − b) (checked when median_t s_t > b) or the (model, template) rate is high.
    """
    strict = [r for r in recs if r.scoring_mode == "strict"]
    if not strict:
        return recs
    rates = {(r.model, t): v for r in strict for t, v in (r.format_failure or {}).items() if v is not None}
    high_mt = set()
    if rates:
        allr = np.array(list(rates.values()))
        med = float(np.median(allr))
        mad = float(np.median(np.abs(allr - med)))
        high_mt = {mt for mt, v in rates.items() if v > opts.fail_threshold or (mad > 0 and v > med + 3 * mad)}
    high = sorted({t for _, t in high_mt}, key=natural_key)
    scores = {r.model: r.template_scores for r in strict if all(v is not None for v in r.template_scores.values())}
    median = {m: float(np.median(list(sc.values()))) for m, sc in scores.items()}

    def low(m: str, t: str) -> bool:
        # only meaningful when the model's typical template is above chance (median > b); below chance the
        # threshold b + 0.5·(median − b) lies above the median and would flag most templates
        b, med = strict[0].baseline["value"], median[m]
        return b is not None and higher_is_better and med > b and scores[m][t] < b + 0.5 * (med - b)

    tids = list(next(iter(scores.values()), {}))
    n_bad = {t: sum(low(m, t) or (m, t) in high_mt for m in scores) for t in tids}
    broken = [t for t in tids if n_bad[t] >= 0.8 * len(scores)]
    ff = {k: v for k, v in (("high_failure", high), ("broken_template", broken)) if v}
    if not ff:
        return recs
    return [replace(r, flags=sorted(set(r.flags) | set(ff)), flag_details={**r.flag_details, **ff}) for r in recs]
