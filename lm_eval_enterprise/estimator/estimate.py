"""Estimates of a dataset row from its cell matrices (:func:`estimate_row`) and of a template population
(:func:`estimate_population`), both from the sampled cell models (:func:`_sampled_row`): template scores, σ and S
from posterior predictive draws of the full-data scores, bootstrap intervals with the unobserved cells drawn on
every resample.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..scoring.bootstrap import draw, multiplicities, percentile_ci
from ..scoring.sharpe_score import sharpe, sharpe_matrix
from ..text import natural_key
from .cellmodels import CellMatrix, SparseError, cell_model, draw_scores, naive_scores, zero_one
from .sampler import BROKEN_PRIOR, SampledFit, sampled_fitter

PREDICTIVE_DRAWS = 400  # posterior predictive draws of the unobserved cells for the point estimates of σ and S


@dataclass
class RowEstimate:
    """Estimates of one dataset row (one variant group, or the subtask groups of one dataset)."""

    name: str
    templates: list[str]
    scores: np.ndarray
    naive: np.ndarray
    stats: dict
    cells_observed: int
    cells_total: int
    n_docs: int
    ci: dict = field(default_factory=dict)
    models: list[dict] = field(default_factory=list)
    boot_scores: np.ndarray | None = None
    pred_draws: np.ndarray | None = None  # posterior predictive draws of the full-data scores (R × T), keep_boot

    @property
    def share(self) -> float:
        return self.cells_observed / self.cells_total

    def as_dict(self) -> dict:
        def f(x):
            return None if x is None or not np.isfinite(x) else float(x)

        st = dict(self.stats)
        note = (
            f"model-based estimates from {self.cells_observed} of {self.cells_total} (template, document) "
            f"cells ({self.share:.1%}); not a full evaluation"
        )
        if self.cells_observed == self.cells_total:
            note = "every (template, document) cell observed: exact scores (bootstrap intervals as the full tool)"
        return {
            "name": self.name,
            "estimate": self.cells_observed < self.cells_total,
            "note": note,
            "cells_observed": self.cells_observed,
            "cells_total": self.cells_total,
            "share": self.share,
            "n_docs": self.n_docs,
            "templates": self.templates,
            "scores": {t: f(v) for t, v in zip(self.templates, self.scores)},
            "naive_scores": {t: f(v) for t, v in zip(self.templates, self.naive)},
            "mean": f(st["mean"]),
            "std": f(st["std"]),
            "sharpe": f(st["sharpe"]),
            "sharpe_status": st["sharpe_status"],
            "baseline": st.get("baseline"),
            "ci": self.ci,
            "models": self.models,
            "likely_broken": likely_broken(self.models),
        }


def predictive_stats(
    draws: np.ndarray, scores: np.ndarray, baseline, ddof: int, alpha: float, floor_mode, n_docs: int
) -> dict:
    """Point statistics from posterior predictive draws of the full-data scores (R × T): μ from the plug-in
    scores, σ = mean_r σ_r (the posterior mean of the full-data σ: the Bayes estimate of σ under squared error;
    sqrt(mean_r σ_r²) exceeds it by about Var(σ_r)/(2σ), which put a wide posterior's σ high — the rare class's on
    the simulation bench, docs/populations.md), S = (μ − b)/(α·max(σ, floor))
    with the degenerate-case rules of :func:`~lm_eval_enterprise.scoring.sharpe_score.sharpe` (evaluated on a score
    vector with that σ)."""
    _, sig, _, _ = sharpe_matrix(draws, 0.0 if baseline is None else baseline, ddof, alpha, floor_mode, n_docs)
    base = sharpe(scores, baseline, ddof, alpha, floor_mode, n_docs)
    if base["std"] is None:
        return base
    sigma = float(np.nanmean(sig))
    # rescale the plug-in scores' deviations to the predictive σ: same μ and excess, std = sigma
    s = np.asarray(scores, dtype=float)
    ex = s - (0.0 if baseline is None else np.asarray(baseline, dtype=float))
    dev = ex - ex.mean()
    cur = float(np.sqrt((dev**2).sum() / (len(s) - ddof)))
    shaped = ex.mean() + (
        dev * (sigma / cur)
        if cur > 0
        else sigma * math.sqrt((len(s) - ddof) / 2) * np.r_[1.0, -1.0, np.zeros(len(s) - 2)]
    )
    bvec = 0.0 if baseline is None else baseline
    out = sharpe(shaped + bvec, baseline, ddof, alpha, floor_mode, n_docs)
    out["mean"] = base["mean"]
    return out


def estimate_row(
    groups: Sequence[CellMatrix],
    baseline: float | Sequence[float] | None,
    ddof: int = 1,
    alpha: float = 1.0,
    floor_mode: str | float | None = "off",
    n_boot: int = 1000,
    seed: int = 0,
    name: str = "",
    keep_boot: bool = False,
    draws: int = PREDICTIVE_DRAWS,
) -> RowEstimate:
    """Estimates for a dataset row: one :class:`CellMatrix`, or several (subtasks) with the same templates, whose
    per-template scores are averaged.

    With every cell observed: the exact scores and the full tool's document bootstrap (documents = the sorted union
    of the groups' document keys, one :func:`~lm_eval_enterprise.scoring.bootstrap.draw` per row, B = ``n_boot``,
    0: none). Otherwise (:func:`_sampled_row`): cell models fitted by Gibbs sampling, ``draws`` posterior
    predictive draws of the full-data scores (every unobserved cell drawn, the observed ones kept), the template
    scores their posterior means, μ their mean, σ and S as :func:`predictive_stats`; intervals from the same
    document bootstrap with the unobserved cells drawn afresh from the posterior on every resample, so they include
    the imputation uncertainty."""
    if not groups:
        raise SparseError(f"{name}: no groups")
    if not all(g.mask.all() for g in groups):
        est, pred, _ = _sampled_row(groups, baseline, ddof, alpha, floor_mode, n_boot, seed, draws, name)
        est.pred_draws = pred if keep_boot else None
        if est.boot_scores is not None:
            est.ci = {**est.ci, **_row_intervals(est, baseline, ddof, alpha, floor_mode), "resample_templates": False}
            if not keep_boot:
                est.boot_scores = None
        return est
    templates = _templates(groups, name)
    scores = np.mean([naive_scores(g) for g in groups], axis=0)
    keys = sorted(set().union(*(g.docs for g in groups)), key=natural_key)
    st = sharpe(scores, baseline, ddof, alpha, floor_mode, len(keys))
    st["baseline"] = _baseline_record(baseline)
    cells = int(sum(g.mask.size for g in groups))
    est = RowEstimate(name or groups[0].name, list(templates), scores, scores, st, cells, cells, len(keys))
    if n_boot and n_boot > 0:
        col = {k: i for i, k in enumerate(keys)}
        cols = [np.array([col[k] for k in g.docs]) for g in groups]
        di, _ = draw(seed, n_boot, len(keys), len(templates), False)
        boot = np.zeros((n_boot, len(templates)))
        width = max(g.features.shape[2] for g in groups)
        chunk = max(1, min(n_boot, 4_000_000 // max(len(keys) * len(templates) * width, 1)))
        for start in range(0, n_boot, chunk):
            w_all = multiplicities(di[start : start + chunk], len(keys))
            boot[start : start + len(w_all)] = np.mean(
                [
                    g.finalize(
                        np.einsum("bd,tdk->btk", w_all[:, c], g.features).reshape(-1, g.features.shape[2])
                    ).reshape(len(w_all), -1)
                    for g, c in zip(groups, cols)
                ],
                axis=0,
            )
        est.boot_scores = boot
        est.ci = {
            **_row_intervals(est, baseline, ddof, alpha, floor_mode),
            "B": int(n_boot),
            "seed": int(seed),
            "resample_templates": False,
            "method": "document bootstrap",
        }
        if not keep_boot:
            est.boot_scores = None
    return est


def _templates(groups: Sequence[CellMatrix], name: str) -> list[str]:
    templates = groups[0].templates
    if any(g.templates != templates for g in groups):
        raise SparseError(f"{name or groups[0].name}: subtask groups have different templates")
    return templates


def _baseline_record(baseline):
    if baseline is None:
        return None
    return float(baseline) if np.isscalar(baseline) else [float(x) for x in baseline]


def _row_intervals(est: RowEstimate, baseline, ddof, alpha, floor_mode) -> dict:
    """95 % percentile intervals of μ, σ, S and each template's score over the bootstrap rows ``est.boot_scores``."""
    boot = est.boot_scores
    mu, sig, sh, degen = sharpe_matrix(boot, 0.0 if baseline is None else baseline, ddof, alpha, floor_mode, est.n_docs)
    valid = np.isfinite(mu)
    return {
        "mean": percentile_ci(mu),
        "std": percentile_ci(sig),
        "sharpe": percentile_ci(sh) if baseline is not None else None,
        "per_template": {t: percentile_ci(boot[:, j]) for j, t in enumerate(est.templates)},
        "frac_degenerate": float(degen[valid].mean()) if valid.any() else None,
    }


def estimate(cm: CellMatrix, baseline: float | Sequence[float] | None, **kwargs) -> RowEstimate:
    """:func:`estimate_row` of a single variant group."""
    return estimate_row([cm], baseline, **kwargs)


# ============================================================================================ template populations
QUANTILE_LEVELS = (0.05, 0.25, 0.5, 0.75, 0.95)
WORST_DECILE = 0.1


def population_quantiles(scores: np.ndarray, axis: int = -1) -> np.ndarray:
    """The :data:`QUANTILE_LEVELS` quantiles of a template population estimated from T sampled templates' scores
    (along ``axis``; the levels come first in the result): the median-unbiased sample quantile (Hyndman & Fan 1996,
    definition 8; numpy ``method="median_unbiased"``). With x₍₁₎ ≤ … ≤ x₍T₎ the sorted scores and
    h = (T + ⅓)·p + ⅓, the p quantile is x₍⌊h⌋₎ + (h − ⌊h⌋)·(x₍⌊h⌋+1₎ − x₍⌊h⌋₎), clamped to x₍₁₎ for h < 1 and to x₍T₎
    for h ≥ T. Its estimate of the population's p quantile has median bias ≈ 0 whatever the distribution, where
    numpy's default linear interpolation (definition 7, h = (T − 1)·p + 1) pulls the outer quantiles toward the
    median: at T = 30 the 95 % quantile sits at h = 28.55 (definition 7) against 29.15, and its interval covered
    82–88 % with every cell observed (docs/populations.md, "Quantiles of the population").

    The one quantile definition of the population estimate: its point estimates and both intervals, the simulation
    bench's dense and population references and the real-data benchmark's. The Sharpe report's quantiles of a
    group's own templates (:mod:`lm_eval_enterprise.sharpe.stats`) describe those templates and keep linear
    interpolation."""
    return np.quantile(scores, QUANTILE_LEVELS, axis=axis, method="median_unbiased")


def estimate_population(
    cm: CellMatrix | Sequence[CellMatrix],
    baseline: float | Sequence[float] | None,
    covariates: np.ndarray | None = None,
    ddof: int = 1,
    alpha: float = 1.0,
    floor_mode: str | float | None = "off",
    n_boot: int = 1000,
    seed: int = 0,
    draws: int = PREDICTIVE_DRAWS,
) -> dict:
    """Estimates over a template population (``lm_eval_enterprise.prompting.population``) from a sparse design, e.g. 50
    templates at 4 % of the cells = 2 single-template runs.

    ``cm``: the population's cell matrix, or one per question of a dataset made of questions (gold_news: a
    template's score is the mean over its questions, [QMEAN], as :func:`estimate_row` averages subtask groups).
    The cell models are :func:`estimate_row`'s (:func:`_sampled_row`) with the templates' axis values as
    ``covariates`` (T × p, see :func:`axis_covariates`; template effects a_t ~ N(c + x_t·β, σ_a²)), fitted by Gibbs
    sampling (:func:`fit_sampled`, :func:`sample_two_way`): the variance components carry their posterior
    uncertainty instead of a Laplace mode, which shrank σ (docs/populations.md, the simulation study).

    Point estimates from ``draws`` posterior predictive draws of the full-data scores (every unobserved cell drawn,
    the observed ones kept): the template scores their posterior means, μ their mean, σ and S as
    :func:`predictive_stats`, the quantiles (:data:`QUANTILE_LEVELS`) the posterior means of the full-data
    quantiles. The worst decile: the templates whose estimated score is at or below the 10 % quantile of the
    estimated scores. Intervals (``n_boot`` > 0), two kinds:

    * ``ci`` — the population's values (the grammar's templates on the dataset's documents): per resample the
      documents resampled (:func:`~lm_eval_enterprise.scoring.bootstrap.draw`), the unobserved cells drawn from the
      posterior and the templates resampled with replacement; imputation, document and template sampling together;
    * ``ci_full_run`` — what a full run of these templates on these documents would give: the percentiles of the
      posterior predictive draws (0 width with every cell observed).

    With every cell observed: the exact scores, the full tool's bootstrap with templates resampled, no sampler.
    ``information`` says how much each interval owes to the missing cells and which variance components rest
    mostly on the prior (:func:`_information`)."""
    groups = [cm] if isinstance(cm, CellMatrix) else list(cm)
    if covariates is not None:
        x = np.asarray(covariates, dtype=float)
        groups = [
            CellMatrix(g.templates, g.docs, g.features, g.mask, g.finalize, g.layout, g.correct, g.name, g.metric, x)
            for g in groups
        ]
    if all(g.mask.all() for g in groups):
        est = estimate_row(groups, baseline, ddof, alpha, floor_mode, n_boot, seed, keep_boot=True, draws=0)
        quantiles, full_run = population_quantiles(est.scores), None
    else:
        est, full_run, low_tau = _sampled_row(
            groups, baseline, ddof, alpha, floor_mode, n_boot, seed, draws, low_tau=bool(n_boot and n_boot > 0)
        )
        quantiles = population_quantiles(full_run, axis=1).mean(1)
    out = est.as_dict()
    order = np.argsort(est.scores, kind="stable")
    cut = np.quantile(est.scores, WORST_DECILE)
    out.update(
        {
            "template_set": "population",
            "quantile_levels": list(QUANTILE_LEVELS),
            "quantiles": [float(q) for q in quantiles],
            "worst_decile": [est.templates[i] for i in order if est.scores[i] <= cut],
            "worst_template": est.templates[int(order[0])],
            "covariates": 0
            if covariates is None
            else int(np.asarray(covariates).reshape(len(groups[0].templates), -1).shape[1]),
        }
    )
    stat_args = (baseline, ddof, alpha, floor_mode, est.n_docs)
    if est.boot_scores is not None:
        zero_inflated = all(zero_one(g) for g in groups)
        ti, broken = resample_templates(est.boot_scores, np.random.default_rng([seed, 2]), zero_inflated)
        pop = _stat_intervals(est.boot_scores, *stat_args, template_idx=ti, broken=broken)
        method = "; templates resampled with replacement on every resample"
        if zero_inflated:
            method += ", the share of broken templates (never right) drawn from its posterior"
            pop["broken_share"] = percentile_ci(broken.mean(1))
        out["ci"] = {**out["ci"], **pop, "resample_templates": True, "method": out["ci"]["method"] + method}
        if full_run is not None:
            full = _stat_intervals(full_run, *stat_args)
            method = "posterior predictive draws of the unobserved cells (these templates and documents)"
            if low_tau is not None:
                full = _envelope(full, _stat_intervals(low_tau, *stat_args))
                method += (
                    f"; widened to hold also under the lowest {LOW_TAU:.0%} of the document sds, which rest on "
                    "their prior"
                )
            out["ci_full_run"] = {**full, "draws": len(full_run), "method": method}
            out["information"] = _information(est, full, pop)
        out["precision"] = _precision(out)
    return out


DEFAULT_TARGETS = {"sharpe": 0.5, "std": 0.02}  # 95 % half-widths the report checks (the planner's examples)


def _precision(record: dict) -> dict:
    """Per default target (:data:`DEFAULT_TARGETS`): the half-width reached by the population interval and by the
    full-run interval, whether each meets the target, and the runs (or templates) the planner
    (:func:`lm_eval_enterprise.harness.cellplan.plan_from_estimate`) says it would take."""
    from ..harness.cellplan import plan_from_estimate

    res = {}
    for stat, target in DEFAULT_TARGETS.items():
        pop, full = (record.get("ci") or {}).get(stat), (record.get("ci_full_run") or {}).get(stat)
        if not pop:
            continue
        plan = plan_from_estimate(record, stat, target)
        hw_full = (full[1] - full[0]) / 2 if full else 0.0
        res[stat] = {
            "target": target,
            "half_width": (pop[1] - pop[0]) / 2,
            "met": (pop[1] - pop[0]) / 2 <= target,
            "half_width_full_run": hw_full,
            "met_full_run": hw_full <= target,
            "runs_needed": plan.runs,
            "templates_needed": plan.templates_needed,
            "runs_needed_full_run": plan.full_run_runs,
        }
    return res


def _sampled_row(groups, baseline, ddof, alpha, floor_mode, n_boot, seed, draws, name="", low_tau=False):
    """(RowEstimate, R × T posterior predictive draws of the full-data scores, the same drawn with the document sds
    low or None) of a sparse row: cell models fitted by Gibbs sampling (:func:`~.sampler.sampled_fitter`); point
    estimates from the draws (:func:`estimate_row`); ``boot_scores``: the document bootstrap's rows, each with the
    unobserved cells drawn afresh from the posterior (no refit), and ``ci`` their per-template intervals and
    method. With ``low_tau``: the draws of :func:`_low_tau_draws` (None when every document sd is identified)."""
    templates = _templates(groups, name)
    fitter = sampled_fitter([seed])
    models = [cell_model(g, fitter) for g in groups]
    keys = sorted(set().union(*(g.docs for g in groups)), key=natural_key)
    col = {k: i for i, k in enumerate(keys)}
    cols = [np.array([col[k] for k in g.docs]) for g in groups]
    width = max(g.features.shape[2] for g in groups)
    chunk = max(1, min(100, 4_000_000 // max(len(keys) * len(templates) * width, 1)))
    rng = np.random.default_rng([seed, 1])
    n_pred = max(draws, 2)
    pred = _predictive(groups, models, n_pred, chunk, rng)
    scores = pred.mean(0)
    st = predictive_stats(pred, scores, baseline, ddof, alpha, floor_mode, len(keys))
    st["baseline"] = _baseline_record(baseline)
    est = RowEstimate(
        name or groups[0].name,
        list(templates),
        scores,
        np.mean([naive_scores(g) for g in groups], axis=0),
        st,
        int(sum(g.mask.sum() for g in groups)),
        int(sum(g.mask.size for g in groups)),
        len(keys),
        models=[m.describe() for m in models],
    )
    if n_boot and n_boot > 0:
        di, _ = draw(seed, n_boot, len(keys), len(templates), False)
        boot = np.zeros((n_boot, len(templates)))
        for start in range(0, n_boot, chunk):
            w_all = multiplicities(di[start : start + chunk], len(keys))
            boot[start : start + len(w_all)] = draw_scores(groups, models, w_all, len(w_all), rng, cols)
        est.boot_scores = boot
        est.ci = {
            "per_template": {t: percentile_ci(boot[:, j]) for j, t in enumerate(templates)},
            "B": int(n_boot),
            "seed": int(seed),
            "method": "document bootstrap; unobserved cells drawn from the sampled cell model's posterior on every "
            "resample",
        }
    low = _low_tau_draws(groups, models, n_pred, chunk, np.random.default_rng([seed, 3])) if low_tau else None
    return est, pred, low


def _predictive(groups, models, n: int, chunk: int, rng) -> np.ndarray:
    """``n`` posterior predictive draws of the full-data scores (n × T), drawn ``chunk`` at a time."""
    return np.vstack([draw_scores(groups, models, None, min(chunk, n - i), rng) for i in range(0, n, chunk)])


RESTS_ON_PRIOR = 0.5  # prior contraction below which a variance component rests mostly on its prior
LOW_TAU = 1 / 3  # the share of the posterior draws, lowest document sd first, that the full-run envelope adds


def _low_tau_draws(groups, models, n: int, chunk: int, rng) -> np.ndarray | None:
    """Posterior predictive draws (``n`` × T) taken only from the draws whose document sd τ is among the lowest
    :data:`LOW_TAU` of the posterior, for every sampled fit whose τ rests mostly on its prior (one cell per
    document: nothing in the cells tells how alike a document's cells are); None when no fit's τ does.

    Why: a document's unobserved cells are predicted from its observed ones through τ, and where τ is not
    identified its prior decides how much one observed cell says about the others. A large τ makes them follow
    the observed cell, and the full-run interval is then too sure of them when the truth's documents differ
    less (docs/populations.md: the rare class's full-run μ at one run covered 85 % with a document sd of 0.5, 88 %
    with 1.0 and 95 % with 2.5; 90, 92 and 95 % with the envelope). The envelope of the two intervals
    (:func:`_envelope`) holds at the low end of τ's prior as well as on average over it. A two-class chain draws
    both classes from one index (its first fit's): its pool is the draws with the lowest mean rank of its weak
    classes' τ."""
    pooled = []
    for m in models:
        fits, joint = m.fits(), getattr(m, "joint", False)
        weak = [
            f
            for f in fits
            if isinstance(f, SampledFit)
            and f.tau_draws is not None
            and f.sampler.get("prior_contraction", {}).get("tau", 1.0) < RESTS_ON_PRIOR
        ]
        if not weak:
            continue
        for part in [weak] if joint else [[f] for f in weak]:
            rank = np.mean([np.argsort(np.argsort(f.tau_draws, kind="stable")) for f in part], axis=0)
            owner = fits[0] if joint else part[0]
            owner.pool = np.flatnonzero(rank < np.quantile(rank, LOW_TAU))
            pooled.append(owner)
    if not pooled:
        return None
    try:
        return _predictive(groups, models, n, chunk, rng)
    finally:
        for f in pooled:
            f.pool = None


def _envelope(a: dict, b: dict) -> dict:
    """The intervals of :func:`_stat_intervals` ``a`` widened to contain those of ``b``."""

    def union(x, y):
        if not x or not y or x[0] is None or y[0] is None:
            return x
        return [min(x[0], y[0]), max(x[1], y[1])]

    out = dict(a)
    for k in ("mean", "std", "sharpe"):
        out[k] = union(a.get(k), b.get(k))
    out["quantiles"] = [union(x, y) for x, y in zip(a["quantiles"], b["quantiles"])]
    return out


def resample_templates(
    rows: np.ndarray, rng: np.random.Generator, zero_inflated: bool
) -> tuple[np.ndarray, np.ndarray | None]:
    """The templates of the population interval's resamples: per row of ``rows`` (R × T resampled full-data scores)
    T template indices drawn with replacement (R × T), and for 0/1 values which of those slots hold a broken
    template (R × T, score 0; else None).

    Resampling the T templates can only draw the broken templates (never right) that the sample holds: a sample of
    30 from a population with 4 % of them holds none in 29 % of the draws (0.96³⁰), and σ's interval then misses the
    population's (docs/populations.md, the simulation study). So with ``zero_inflated`` (0/1 values, the cells the
    sampler's zero inflation models) each row's share of broken templates is drawn from its posterior: with k_r of
    the row's T templates never right (score 0), π_r ~ Beta(a + k_r, b + T − k_r) under the sampler's prior
    (a, b) = :data:`~.sampler.BROKEN_PRIOR`; ⌊π_r·T + U⌋ slots (U uniform: π_r·T on average) hold a broken template
    (score 0, the baseline of a template drawn at random), the others draw from the row's templates right at least
    once. The broken share thus varies by π's posterior, not by the binomial draw of plain resampling, whose
    k_r/T is 0 whenever the sample holds no broken template. A smaller prior pseudo-count a barely narrows σ's
    interval on samples without broken templates, and at a = 1/10 it drops a grammar that breaks 4 % of its
    templates below the band (docs/populations.md, "A smaller broken-share allowance"): Jeffreys' prior is kept."""
    r_n, t_n = rows.shape
    ti = rng.integers(0, t_n, (r_n, t_n))
    if not zero_inflated:
        return ti, None
    good = rows != 0
    n_good = good.sum(1)
    a, b = BROKEN_PRIOR
    pi = rng.beta(a + t_n - n_good, b + n_good)
    n_broken = np.floor(pi * t_n + rng.random(r_n)).astype(int)
    order = np.argsort(~good, axis=1, kind="stable")  # each row's good templates first
    pick = (rng.random((r_n, t_n)) * np.maximum(n_good, 1)[:, None]).astype(int)
    broken = np.arange(t_n)[None, :] < n_broken[:, None]
    ti = np.where(~broken & (n_good[:, None] > 0), np.take_along_axis(order, pick, axis=1), ti)
    return ti, broken


def _stat_intervals(rows, baseline, ddof, alpha, floor_mode, n_docs, template_idx=None, broken=None) -> dict:
    """95 % percentile intervals of μ, σ, S and the quantiles over the rows (R × T scores), templates resampled by
    ``template_idx`` (R × T) when given, the slots marked in ``broken`` (R × T) scored 0
    (:func:`resample_templates`)."""
    base = 0.0 if baseline is None else baseline
    if template_idx is not None:
        rows = np.take_along_axis(rows, template_idx, axis=1)
        if broken is not None:
            rows = np.where(broken, 0.0, rows)
        if baseline is not None and not np.isscalar(baseline):
            base = np.take_along_axis(np.broadcast_to(np.asarray(baseline, dtype=float), rows.shape), template_idx, 1)
    mu, sig, sh, degen = sharpe_matrix(rows, base, ddof, alpha, floor_mode, n_docs)
    valid = np.isfinite(mu)
    return {
        "mean": percentile_ci(mu),
        "std": percentile_ci(sig),
        "sharpe": percentile_ci(sh) if baseline is not None else None,
        "quantiles": [percentile_ci(q) for q in population_quantiles(rows, axis=1)],
        "frac_degenerate": float(degen[valid].mean()) if valid.any() else None,
    }


def _information(est: RowEstimate, full: dict, pop: dict) -> dict:
    """What the estimate rests on: per statistic the share of its population interval's width owed to the
    unobserved cells ((full-run width / population width)², about the share of the variance), and per fitted
    variance component (and a two-class chain's class accuracy correlation, :func:`~.sampler.fit_two_class`) the
    prior contraction 1 − Var(posterior)/Var(prior) (near 1: the cells pin it; below 0.5: it rests mostly on the
    prior) — ``rests_on_prior`` lists those below 0.5. (The templates likely broken are in
    the row's own record, :func:`likely_broken`.)"""

    def share(k):
        a, b = full.get(k), pop.get(k)
        if not a or not b or not (b[1] - b[0]) > 0:
            return None
        return float(min(1.0, ((a[1] - a[0]) / (b[1] - b[0])) ** 2))

    contraction, weak = {}, []
    for i, m in enumerate(est.models):
        for j, f in enumerate(m.get("classes") or [m]):
            c = (f.get("sampler") or {}).get("prior_contraction") or {}
            for k, v in c.items():
                name = f"fit{i + 1}" + (f".class{j + 1}" if "classes" in m else "") + f".{k}"
                contraction[name] = round(v, 3)
                if v < RESTS_ON_PRIOR:
                    weak.append(name)
    return {
        "imputation_share": {k: share(k) for k in ("mean", "std", "sharpe")},
        "prior_contraction": contraction,
        "rests_on_prior": weak,
    }


LIKELY_BROKEN = 0.5  # posterior probability from which a template is reported as likely broken


def likely_broken(models: list[dict]) -> dict[str, float]:
    """The templates whose posterior probability of being broken — never right, :func:`~.sampler._broken_step` —
    is at least :data:`LIKELY_BROKEN` in a zero-inflated fit of the cell models' records (``describe()``), with that
    probability: keyed by the template for the 0/1 values, "t (class j)" for gold class j's correctness, "t (slot
    j hits)" for entity slot j's hits (the largest probability if several records hold the same key)."""
    out: dict[str, float] = {}
    for m in models:
        if "classes" in m:
            parts = [(f" (class {j + 1})", f) for j, f in enumerate(m["classes"])]
        elif "slots" in m:
            parts = [(f" (slot {j + 1} hits)", s["hits"]) for j, s in enumerate(m["slots"]) if s.get("hits")]
        else:
            parts = [("", m)]
        for suffix, f in parts:
            for t, p in ((f.get("sampler") or {}).get("broken_probability") or {}).items():
                if p >= LIKELY_BROKEN:
                    out[t + suffix] = max(p, out.get(t + suffix, 0.0))
    return out
