"""Records: one :class:`Record` per model × dataset row × metric × scoring mode, from the scored row
(:class:`ScoredRow`: what the per-row stages of :mod:`.pipeline` give).

A record holds the per-template scores s_t, the baseline b, μ, σ, the Sharpe score S = (μ − b)/(α·σ) (``null`` +
``sharpe_status`` when not finite), the across-template statistics (min, max, spread, MaxP/AvgP/CPS, quantiles),
ProSA PSS with the most fragile documents, format-failure rates, bootstrap intervals and flags.
:meth:`Record.to_dict` gives the JSON form written to ``aggregate.json`` (field order = the dataclass order;
fields left :data:`ABSENT` are not written; ``per_doc`` and ``scores_bt`` are private, for the writers and the
comparisons only).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields, replace
from typing import Any

import numpy as np

from . import baselines as BL
from . import stats as ST
from .inputs import Options, natural_key
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
    (model, metric) → (T × U per-unit values, their kind, whether the score is their mean); ``boot``: (model,
    metric, mode, kind) → B × T resampled s_t; ``template_idx``: kind → B × T template draws."""

    row: Row
    units: list
    key_source: str | None
    flags: dict[str, Any]
    model_flags: dict[str, dict[str, Any]]
    with_samples: set[str]
    scores: dict[tuple, float]
    fail_rate: dict[tuple[str, str], float | None]
    n_docs: dict[str, int | None]
    baseline: dict[str, BL.Baseline]
    per_doc: dict[tuple[str, str], tuple]
    boot: dict[tuple, np.ndarray]
    template_idx: dict[str, np.ndarray | None]


@dataclass(frozen=True)
class RecordInputs:
    """What the statistics of one record are computed from."""

    scores: dict[str, float]  # template → s_t
    baseline: BL.Baseline
    n_docs: int | None
    failure: dict[str, float | None] | None  # template → format-failure rate
    boot: dict[str, np.ndarray | None]  # kind → B × T resampled s_t
    template_idx: dict[str, np.ndarray | None]  # kind → B × T template draws
    per_doc: tuple | None  # (keys, T × D values, basis) behind PSS
    flags: dict[str, Any]
    toy_data: bool  # scored on the embedded fixture data
    key_source: str | None
    tasks: dict[str, str]  # template → lm-eval task name


# ============================================================================================== one record
def _point_statistics(s: np.ndarray, b_arg, n_docs, baseline: dict, flags: dict, opts: Options) -> dict:
    """μ, σ, S and the across-template statistics (``s`` and ``b_arg`` already oriented higher-is-better)."""
    st = ST.sharpe(s, b_arg, opts.ddof, opts.alpha, opts.floor_mode(), n_docs)
    val, status = ST.status_value(st["sharpe"])
    if st["sharpe_status"] in ("single_template", "no_baseline"):
        status = st["sharpe_status"]
    if status == "single_template":
        flags["single_template"] = True
    if st["degenerate_std"]:
        flags["degenerate_std"] = True
    if status == "no_baseline":
        flags["no_baseline"] = baseline.get("note") or True
    if st["floor_active"]:
        flags["sigma_floor_active"] = True
    return {
        "mean": st["mean"],
        "std": st["std"],
        "sigma_eff": st["sigma_eff"],
        "sharpe": val,
        "sharpe_status": status,
        "degenerate_std": st["degenerate_std"],
        "sigma_floor_active": st["floor_active"],
        "excess_mean": st["excess"],
        **ST.describe(s),
    }


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


def _intervals(inp: RecordInputs, b_arg, n_docs, higher_is_better: bool, opts: Options) -> dict:
    """Percentile intervals of μ, σ, S from the resampled scores (``ci``; ``ci_templates`` with templates too)."""
    out: dict[str, Any] = {"ci": None}
    for kind, name in (("docs", "ci"), ("docs+templates", "ci_templates")):
        mat = inp.boot.get(kind)
        if mat is None:
            continue
        if not higher_is_better:
            mat = -mat
        b = b_arg if b_arg is not None else np.nan
        ci = ST.summarize(
            mat, b, opts.ddof, opts.alpha, opts.floor_mode(), n_docs or 0, inp.template_idx.get(kind), opts.seed
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


def build_record(row: Row, model: str, spec: MetricSpec, mode: str, inp: RecordInputs, opts: Options) -> Record:
    """One record from its per-template scores, baseline and sample-based inputs."""
    tids = list(inp.scores)
    s = np.array([inp.scores[t] for t in tids], dtype=float)
    b_val = inp.baseline.value
    b_arg: Any = b_val
    if inp.baseline.per_template is not None and b_val is not None:
        b_arg = np.array([inp.baseline.per_template[t] for t in tids])
    flags, notes = dict(inp.flags), []
    if not spec.higher_is_better:  # lower is better: S is computed on −s against −b
        s = -s
        b_arg = None if b_arg is None else -np.asarray(b_arg) if not np.isscalar(b_arg) else -b_arg
        flags["negated_metric"] = True
    shown = -s if not spec.higher_is_better else s
    baseline = inp.baseline.as_dict()
    fields_: dict[str, Any] = {}
    undefined = ~np.isfinite(s)
    if undefined.any():
        bad = [t for t, u in zip(tids, undefined) if u]
        flags["undefined_template_scores"] = bad
        notes.append(f"{mode}: metric undefined for {', '.join(bad)} (no parsed documents); statistics null")
    else:
        fields_.update(_point_statistics(s, b_arg, inp.n_docs, baseline, flags, opts))
    fields_.update(_prosa(tids, inp.per_doc, opts))
    fields_.update(_intervals(inp, b_arg, inp.n_docs, spec.higher_is_better, opts))
    if fields_["ci"] is None and "no_samples" not in flags and opts.bootstrap > 0:
        flags.setdefault("no_samples", True)
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
        templates=tids,
        n_docs=inp.n_docs,
        toy_data=inp.toy_data,
        baseline=baseline,
        template_scores={t: float(v) if math.isfinite(v) else None for t, v in zip(tids, shown)},
        ddof=opts.ddof,
        alpha=opts.alpha,
        sigma_floor_mode=opts.sigma_floor,
        format_failure=inp.failure,
        flags=sorted(flags),
        flag_details={k: v for k, v in flags.items() if v is not True},
        notes=notes,
        scores_bt=inp.boot.get("docs"),
        key_source=inp.key_source,
        tasks=inp.tasks,
        **fields_,
    )


# ============================================================================================== all records
@dataclass(frozen=True)
class RecordSet:
    """Every record, plus the dataset-level ones by (row, model, metric, mode) and their per-document values by
    (row, model, metric) — what rank stability, comparisons and roll-ups read."""

    records: list[Record]
    by_key: dict[tuple[str, str, str, str], Record]
    per_doc: dict[tuple[str, str, str], tuple]  # → (keys, T × D, is_metric)

    def get(self, row: str, model: str, metric: str, mode: str = "strict") -> Record | None:
        return self.by_key.get((row, model, metric, mode))


def _inputs(sr: ScoredRow, model: str, spec: MetricSpec, mode: str) -> RecordInputs:
    row = sr.row
    fail = {t: sr.fail_rate.get((model, t)) for t in row.templates}
    flags = {**sr.flags, **sr.model_flags.get(model, {})}
    if model not in sr.with_samples:
        flags.setdefault("no_samples", True)
    per_doc = sr.per_doc.get((model, spec.name)) if mode == "strict" else None
    return RecordInputs(
        scores={t: sr.scores[(model, t, spec.name, mode)] for t in row.templates},
        baseline=sr.baseline[spec.name],
        n_docs=sr.n_docs.get(model),
        failure=None if all(v is None for v in fail.values()) else fail,
        boot={k[3]: v for k, v in sr.boot.items() if k[:3] == (model, spec.name, mode)},
        template_idx=sr.template_idx,
        per_doc=None if per_doc is None else (list(sr.units), per_doc[0], per_doc[1]),
        flags=flags,
        toy_data=row.toy.get(model, False),
        key_source=sr.key_source,
        tasks={t: row.runs[model][t].task for t in row.templates},
    )


def row_records(sr: ScoredRow, opts: Options) -> list[Record]:
    """The records of one scored row (per metric, scoring mode and model), with its failure flags."""
    out = []
    for spec in sr.row.metrics:
        recs = [
            build_record(sr.row, model, spec, mode, _inputs(sr, model, spec, mode), opts)
            for mode in opts.record_modes
            for model in sr.row.models
            if (model, sr.row.templates[0], spec.name, mode) in sr.scores
        ]
        out += with_failure_flags(recs, opts, spec.higher_is_better)
    return out


def collect_records(rows: list[ScoredRow], opts: Options) -> RecordSet:
    """Every record of every row, by key, and their per-document values."""
    records, by_key, per_doc = [], {}, {}
    for sr in rows:
        for rec in row_records(sr, opts):
            records.append(rec)
            by_key[(rec.group, rec.model, rec.metric, rec.scoring_mode)] = rec
            pd_ = sr.per_doc.get((rec.model, rec.metric))
            if rec.scoring_mode == "strict" and pd_ is not None:
                per_doc[(rec.group, rec.model, rec.metric)] = (list(sr.units), pd_[0], pd_[2])
    return RecordSet(records, by_key, per_doc)


# ============================================================================================== failure flags
def failure_flags(
    strict: list[Record], opts: Options, row_scores_: dict, baseline_val, higher_is_better: bool
) -> dict[str, list]:
    """high_failure / broken_template per template from the strict records of one row × metric.

    high_failure: a template's failure rate > --fail_threshold for any model, or > median + 3·MAD of all
    (model, template) rates of the row (the MAD rule only when MAD > 0). broken_template: for ≥ 80 % of the models
    s_t < b + 0.5·(median_t s_t − b) (checked when median_t s_t > b) or the (model, template) rate is high.
    """
    rates = {(r.model, t): v for r in strict for t, v in (r.format_failure or {}).items() if v is not None}
    high_mt = set()
    if rates:
        allr = np.array(list(rates.values()))
        med = float(np.median(allr))
        mad = float(np.median(np.abs(allr - med)))
        high_mt = {mt for mt, v in rates.items() if v > opts.fail_threshold or (mad > 0 and v > med + 3 * mad)}
    high = sorted({t for _, t in high_mt}, key=natural_key)
    broken = []
    models = list(row_scores_)
    if models:
        tids = list(next(iter(row_scores_.values())))
        for t in tids:
            bad = 0
            for m in models:
                sc = row_scores_[m]
                med_t = float(np.median(list(sc.values())))
                # only meaningful when the model's typical template is above chance (med_t > b); below chance
                # the threshold b + 0.5·(med_t − b) lies above the median and would flag most templates
                low = (
                    baseline_val is not None
                    and higher_is_better
                    and med_t > baseline_val
                    and sc[t] < baseline_val + 0.5 * (med_t - baseline_val)
                )
                if low or (m, t) in high_mt:
                    bad += 1
            if bad >= 0.8 * len(models):
                broken.append(t)
    return {"high_failure": high, "broken_template": broken}


def with_failure_flags(recs: list[Record], opts: Options, higher_is_better: bool) -> list[Record]:
    """The records of one row × metric (both scoring modes), flagged with the templates :func:`failure_flags`
    finds on the strict ones (none without strict records)."""
    strict = [r for r in recs if r.scoring_mode == "strict"]
    if not strict:
        return recs
    scores = {r.model: r.template_scores for r in strict if all(v is not None for v in r.template_scores.values())}
    ff = {
        k: v for k, v in failure_flags(strict, opts, scores, strict[0].baseline["value"], higher_is_better).items() if v
    }
    if not ff:
        return recs
    return [replace(r, flags=sorted(set(r.flags) | set(ff)), flag_details={**r.flag_details, **ff}) for r in recs]
