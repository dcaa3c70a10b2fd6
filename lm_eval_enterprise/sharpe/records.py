"""Stage 5 — records: one :class:`Record` per model × dataset row × metric × scoring mode.

A record holds the per-template scores s_t, the baseline b, μ, σ, the Sharpe score S = (μ − b)/(α·σ) (``null`` +
``sharpe_status`` when not finite), the across-template statistics (min, max, spread, MaxP/AvgP/CPS, quantiles),
ProSA PSS with the most fragile documents, format-failure rates, bootstrap intervals and flags.
:meth:`Record.to_dict` gives the JSON form written to ``aggregate.json`` (field order = the dataclass order;
fields left :data:`ABSENT` are not written; ``per_doc`` and ``scores_bt`` are private, for the writers and the
comparisons only).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from . import baselines as BL
from . import bootstrap as BS
from . import stats as ST
from .grouping import Group, MetricSpec, Row
from .options import Options, natural_key


class _Absent:
    """Type of :data:`ABSENT`: a record field that is not written at all (unlike ``None`` → ``null``)."""

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Any = _Absent()
PRIVATE_NAMES = {"per_doc": "_per_doc", "scores_bt": "_scores_bt"}  # dataclass field → key in the dict form


@dataclass
class Record:
    """Statistics of one model × group × metric × scoring mode (see the module docstring)."""

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


@dataclass
class RecordKey:
    """Which record: dataset row, model, metric, scoring mode."""

    row: Row
    model: str
    metric: MetricSpec
    mode: str


@dataclass
class RecordInputs:
    """What the statistics of one record are computed from."""

    scores: dict[str, float]  # template → s_t
    baseline: BL.Baseline
    n_docs: int | None
    failure: dict[str, float | None] | None  # template → format-failure rate
    boot: dict[str, np.ndarray | None] = field(default_factory=dict)  # kind → B × T resampled s_t
    template_idx: dict[str, np.ndarray | None] = field(default_factory=dict)  # kind → B × T template draws
    per_doc: tuple | None = None  # (keys, T × D values, basis) behind PSS
    flags: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    toy_data: bool = False  # scored on the embedded fixture data


# ============================================================================================== one record
def _point_statistics(rec: Record, s: np.ndarray, b_arg, flags: dict, opts: Options) -> None:
    """μ, σ, S and the across-template statistics (``s`` and ``b_arg`` already oriented higher-is-better)."""
    st = ST.sharpe(s, b_arg, opts.ddof, opts.alpha, opts.floor_mode(), rec.n_docs)
    val, status = ST.status_value(st["sharpe"])
    if st["sharpe_status"] in ("single_template", "no_baseline"):
        status = st["sharpe_status"]
    rec.mean, rec.std, rec.sigma_eff, rec.sharpe = st["mean"], st["std"], st["sigma_eff"], val
    rec.sharpe_status, rec.degenerate_std = status, st["degenerate_std"]
    rec.sigma_floor_active, rec.excess_mean = st["floor_active"], st["excess"]
    for k, v in ST.describe(s).items():
        setattr(rec, k, v)
    if status == "single_template":
        flags["single_template"] = True
    if st["degenerate_std"]:
        flags["degenerate_std"] = True
    if status == "no_baseline":
        flags["no_baseline"] = rec.baseline.get("note") or True
    if st["floor_active"]:
        flags["sigma_floor_active"] = True


def _prosa(rec: Record, per_doc: tuple | None, opts: Options) -> None:
    """ProSA PSS and the most fragile documents (ties keep the documents' natural order)."""
    if per_doc is None or len(rec.templates) < 2:
        return
    keys, mat, kind = per_doc
    value, sd = ST.pss(mat)
    rec.pss, rec.pss_basis = value, kind
    order = np.argsort(-sd, kind="stable")[: opts.fragile_top]
    rec.fragile_docs = [
        {
            "key": keys[i],
            "s_d": float(sd[i]),
            "per_template": {t: float(mat[j, i]) for j, t in enumerate(rec.templates)},
        }
        for i in order
        if sd[i] > 0
    ]
    rec.per_doc = (keys, mat, sd)


def _intervals(rec: Record, inp: RecordInputs, b_arg, higher_is_better: bool, opts: Options) -> None:
    """Percentile intervals of μ, σ, S from the resampled scores (``ci``; ``ci_templates`` with templates too)."""
    for kind, name in (("docs", "ci"), ("docs+templates", "ci_templates")):
        mat = inp.boot.get(kind)
        if mat is None:
            if kind == "docs":
                rec.ci = None
            continue
        if not higher_is_better:
            mat = -mat
        ci = BS.summarize(
            mat,
            b_arg if b_arg is not None else np.nan,
            opts.ddof,
            opts.alpha,
            opts.floor_mode(),
            rec.n_docs or 0,
            inp.template_idx.get(kind),
            opts.seed,
        )
        if b_arg is None:
            ci["sharpe"] = None
        if not higher_is_better:
            if ci["mean"] is not None:
                lo, hi = ci["mean"]
                ci["mean"] = [-hi, -lo]
            ci["negated"] = True
        setattr(rec, name, ci)


def build_record(key: RecordKey, inp: RecordInputs, opts: Options) -> Record:
    """One record from its per-template scores, baseline and sample-based inputs."""
    spec = key.metric
    tids = list(inp.scores)
    s = np.array([inp.scores[t] for t in tids], dtype=float)
    b_val = inp.baseline.value
    b_arg: Any = b_val
    if inp.baseline.per_template is not None and b_val is not None:
        b_arg = np.array([inp.baseline.per_template[t] for t in tids])
    flags, notes = dict(inp.flags), list(inp.notes)
    if not spec.higher_is_better:  # lower is better: S is computed on −s against −b
        s = -s
        b_arg = None if b_arg is None else -np.asarray(b_arg) if not np.isscalar(b_arg) else -b_arg
        flags["negated_metric"] = True
    shown = -s if not spec.higher_is_better else s
    rec = Record(
        level="dataset",
        group=key.row.name,
        dataset=key.row.dataset,
        domain=key.row.domain,
        subtask=None,
        variant_groups=[g.name for g in key.row.groups],
        model=key.model,
        metric=spec.name,
        filter=spec.filter,
        scoring_mode=key.mode,
        comparable_across_models=key.mode == "strict",
        n_templates=len(tids),
        templates=tids,
        n_docs=inp.n_docs,
        toy_data=inp.toy_data,
        baseline=inp.baseline.as_dict(),
        template_scores={t: float(v) if math.isfinite(v) else None for t, v in zip(tids, shown)},
        ddof=opts.ddof,
        alpha=opts.alpha,
        sigma_floor_mode=opts.sigma_floor,
    )
    undefined = ~np.isfinite(s)
    if undefined.any():
        bad = [t for t, u in zip(tids, undefined) if u]
        flags["undefined_template_scores"] = bad
        notes.append(f"{key.mode}: metric undefined for {', '.join(bad)} (no parsed documents); statistics null")
    else:
        _point_statistics(rec, s, b_arg, flags, opts)
    _prosa(rec, inp.per_doc, opts)
    rec.format_failure = inp.failure
    _intervals(rec, inp, b_arg, spec.higher_is_better, opts)
    if rec.ci is None and "no_samples" not in flags and opts.bootstrap > 0:
        flags.setdefault("no_samples", True)
    rec.flags = sorted(flags)
    rec.flag_details = {k: v for k, v in flags.items() if v is not True}
    rec.notes = notes
    rec.scores_bt = inp.boot.get("docs")
    return rec


# ============================================================================================== all records
@dataclass
class RecordSet:
    """Every record, plus the dataset-level ones by (row, model, metric, mode) and their per-document values by
    (row, model, metric) — what rank stability, comparisons and roll-ups read."""

    records: list[Record] = field(default_factory=list)
    by_key: dict[tuple[str, str, str, str], Record] = field(default_factory=dict)
    per_doc: dict[tuple[str, str, str], tuple] = field(default_factory=dict)  # → (keys, T × D, is_metric)

    def add(self, rec: Record, dataset_level: bool) -> None:
        self.records.append(rec)
        if dataset_level:
            self.by_key[(rec.group, rec.model, rec.metric, rec.scoring_mode)] = rec

    def get(self, row: str, model: str, metric: str, mode: str = "strict") -> Record | None:
        return self.by_key.get((row, model, metric, mode))

    def of_row(self, row: str, metric: str, mode: str | None = None) -> list[Record]:
        return [r for k, r in self.by_key.items() if k[0] == row and k[2] == metric and mode in (None, k[3])]


def _per_doc_of_group(g: Group, model: str, spec: MetricSpec, templates: list[str]):
    v = g.per_doc.get((model, spec.name))
    if v is None:
        return None
    mat, kind, _ = v
    return list(g.keys), mat[[g.templates.index(t) for t in templates]], kind


def _group_inputs(row: Row, g: Group, model: str, spec: MetricSpec, mode: str) -> RecordInputs:
    fail = {t: g.fail_rate.get((model, t)) for t in g.templates}
    flags = dict(g.flags)
    flags.update(g.model_flags.get(model, {}))
    if not g.has_samples(model):
        flags.setdefault("no_samples", True)
    boot = {k[3]: v for k, v in g.boot.items() if k[:3] == (model, spec.name, mode)}
    return RecordInputs(
        scores={t: g.scores[(model, t, spec.name, mode)] for t in g.templates},
        baseline=g.baseline[spec.name],
        n_docs=g.n_docs.get(model),
        failure=None if all(v is None for v in fail.values()) else fail,
        boot=boot,
        template_idx=row.template_idx if g.templates == row.templates else {},
        per_doc=_per_doc_of_group(g, model, spec, g.templates) if mode == "strict" else None,
        flags=flags,
        toy_data=g.toy.get(model, False),
    )


def _group_records(out: RecordSet, row: Row, g: Group, opts: Options) -> None:
    """Records of the row's variant group."""
    for spec in g.metrics:
        for mode in opts.record_modes:
            for model in g.models:
                if (model, g.templates[0], spec.name, mode) not in g.scores:
                    continue
                inp = _group_inputs(row, g, model, spec, mode)
                rec = build_record(RecordKey(row, model, spec, mode), inp, opts)
                rec.key_source = g.key_source
                rec.tasks = {t: g.runs[model][t].task for t in g.templates}
                out.add(rec, dataset_level=True)
                if inp.per_doc is not None:
                    out.per_doc[(row.name, model, spec.name)] = (
                        inp.per_doc[0],
                        inp.per_doc[1],
                        g.per_doc[(model, spec.name)][2],
                    )


def collect_records(rows: list[Row], opts: Options) -> RecordSet:
    """Every record of every row, with failure flags applied."""
    out = RecordSet()
    for row in rows:
        for g in row.groups:
            _group_records(out, row, g, opts)
    apply_failure_flags(out, rows, opts)
    return out


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


def apply_failure_flags(out: RecordSet, rows: list[Row], opts: Options) -> None:
    """Flag every dataset-level record of a row × metric (both scoring modes) with the templates found by
    :func:`failure_flags` on its strict records."""
    for row in rows:
        for spec in row.groups[0].metrics:
            strict = out.of_row(row.name, spec.name, "strict")
            if not strict:
                continue
            scores = {
                r.model: r.template_scores for r in strict if all(v is not None for v in r.template_scores.values())
            }
            ff = failure_flags(strict, opts, scores, strict[0].baseline["value"], spec.higher_is_better)
            for r in out.of_row(row.name, spec.name):
                for name, ts in ff.items():
                    if ts:
                        r.flags = sorted(set(r.flags) | {name})
                        r.flag_details[name] = ts
