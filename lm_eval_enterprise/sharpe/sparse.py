"""Template-robust statistics from a sparse (template × document) design (``cellplan.py`` runs).

A sparse run evaluates each document under only some templates. Per template the score is estimated by
**plug-in** (PromptEval, Polo et al. 2024): observed cells keep their observed per-document sufficient statistics
(the ``Stats.features`` of :mod:`lm_eval_enterprise.scoring.corpus`), every unobserved cell (t, d) contributes its expectation under a model
with template and document effects, and the template's score is the metric's own ``finalize`` of the sum over all
documents:

    ŝ_t = finalize( Σ_{d observed under t} F_td + Σ_{d not observed under t} E[F_td] ).

With every cell observed ŝ_t is exactly the full-data score, and every statistic below is the full tool's.

Cell models: two-way generalised linear models η_td = c + a_t + b_d with template effects a_t ~ N(0, σ_a²),
document effects b_d ~ N(0, τ²) and a free intercept c, fitted by penalised Newton steps (the [a, c] block through
its Schur complement); σ_a, τ (and the Gaussian noise variance φ) by empirical Bayes, EM with the Laplace posterior
variances. For 0/1 data this approximation is known to under-estimate τ somewhat (tested: 1.18 for 1.5).

* ``mean`` layout, features [y, 1] (accuracy, yes/no, ROUGE, per-query RR@k/NDCG@k): 0/1 values → Rasch model
  P(y_td = 1) = σ(η_td); other values → additive model y_td = η_td + ε, ε ~ N(0, φ), predictions clipped to the
  observed range (to [0, 1] for values inside it).
* ``classification`` layout, features [tp_1..k, gold_1..k, pred_1..k] (weighted / macro / binary F1): a Rasch
  model of correctness c_td (the hooks' exact-match accuracy) fitted within each gold class (template effects per
  class: a template's label bias makes its accuracy depend on the class) and, for a wrong answer, template t's error
  distribution q_t,j over the categories "feature label i" / "none" (unparsable, or a label outside the feature
  columns) for the document's gold class j: t's observed wrong cells of class j plus one pseudo-cell spread as all
  templates' wrong cells of class j (no wrong cell of class j anywhere: "none").
  E[F_td] = p_td·[g_d, g_d, g_d] + (1 − p_td)·[0, g_d, q_t,j(d)] — expected confusion counts, from which every F1
  average follows through ``finalize``.
* ``counts`` layout (entity F1: per document [TP, FP, FN]; KPI F1: per tag [O, P, G]): gold counts g_d are document
  properties (known from any observed cell); hits TP_td ~ Binomial(g_d, σ(η_td)) and false positives
  FP_td ~ Poisson(exp(η'_td)); E[F_td] is rebuilt from (E TP, E FP, g_d).

σ and Sharpe: the spread of the plug-in scores mixes the true template spread with estimation noise, so σ is the
posterior predictive mean of the full-data variance: R draws of every unobserved cell (parameters from the Laplace
posterior, then the outcome), σ = sqrt(mean_r σ_r²), S = (μ − b)/(α·max(σ, floor)) (:func:`predictive_stats`).
Intervals: the full tool's document bootstrap (:func:`.bootstrap.draw`), with the model refitted and the
unobserved cells drawn once on every resample, so they include the imputation uncertainty.

Supported metrics (every primary metric of the 25 enterprise datasets): any per-document metric with aggregation
``mean`` (accuracy, exact match, ROUGE-1/2/L, SQuAD F1, ...), weighted / macro / binary F1 and weighted precision /
recall, entity F1 / precision / recall, the KPI adjusted and word macro F1, per-query RR@k and NDCG@k — every
statistic of :data:`lm_eval_enterprise.scoring.corpus.STATISTICS` whose ``layout`` is one of the above.

Not supported (a one-line :class:`SparseError` naming the metric, never a silent fallback): statistics without a
cell model (``layout`` None: MCC's confusion counts, Pearson's moments, Spearman's ranks); the
parsed-only scoring mode (it drops each template's unparsable documents, so which cells are missing would depend
on the outcome, while the cell models assume the planner's outcome-independent missingness). Composite datasets
(subtasks) use s_t = mean over subtasks, as the full tool does.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial

import numpy as np
from scipy.special import expit

from ..scoring import metrics as M
from .inputs import natural_key
from .stats import draw, multiplicities, percentile_ci, sharpe, sharpe_matrix

PREDICTIVE_DRAWS = 400  # posterior predictive draws of the unobserved cells for the point estimates of σ and S
ERROR_SHRINK = 1.0  # pseudo-cells pulling a template's error distribution towards the pooled one


class SparseError(ValueError):
    """A metric or input the sparse estimator cannot handle (one line)."""


# ============================================================================================ two-way GLM
@dataclass
class TwoWayFit:
    """η_td = c + a_t + b_d fitted on the observed cells; ``a`` B × T, ``c`` B, ``b`` B × D (B = 1 for a point fit,
    B resamples for a weighted fit). ``prec``, ``hab``, ``hbb``: blocks of the negative Hessian at the optimum
    ((T+1) × (T+1) Schur complement of the template block [a, c], its cross terms with b, and b's diagonal), for
    Laplace draws of the parameters."""

    family: str
    a: np.ndarray
    c: np.ndarray
    b: np.ndarray
    tau: float
    sigma_a: float
    phi: float = 1.0
    prec: np.ndarray | None = None
    hab: np.ndarray | None = None
    hbb: np.ndarray | None = None
    iterations: int = 0
    converged: bool = True
    lo: float = -math.inf
    hi: float = math.inf
    constant: float | None = None  # every observed cell at the same bound (all 0, or all successes)
    a_mean: np.ndarray | None = None  # prior mean of the template effects, X·β (covariates), T; None: 0

    def eta(self, a=None, c=None, b=None) -> np.ndarray:
        a, c, b = (self.a if a is None else a), (self.c if c is None else c), (self.b if b is None else b)
        return c[:, None, None] + a[:, :, None] + b[:, None, :]

    def mean(self, trials=None, eta: np.ndarray | None = None) -> np.ndarray:
        """Expected value of every cell, B × T × D (at the fitted or the given linear predictor)."""
        eta = self.eta() if eta is None else eta
        if self.constant is not None:  # the likelihood has no finite maximum: predict the bound itself
            full = np.ones_like(eta) if trials is None else np.broadcast_to(trials, eta.shape).astype(float)
            return self.constant * full
        return _mean(self.family, eta, trials, self.lo, self.hi)

    def draw_eta(self, rng: np.random.Generator, n: int | None = None) -> np.ndarray:
        """Linear predictors from the Laplace posterior: n draws of a point fit, or one per row of a weighted fit.
        [a, c] ~ N(θ̂, prec⁻¹), then b_d | [a, c] ~ N(b̂_d − hab_d·Δ/hbb_d, 1/hbb_d)."""
        rows = self.a.shape[0] if n is None else n
        idx = np.arange(rows) if n is None else np.zeros(rows, dtype=int)
        if self.constant is not None or self.prec is None:
            return self.eta(self.a[idx], self.c[idx], self.b[idx])
        t_n = self.a.shape[1]
        prec = self.prec[idx] if n is None else np.broadcast_to(self.prec[0], (rows,) + self.prec.shape[1:])
        try:
            chol = np.linalg.cholesky(prec)
        except np.linalg.LinAlgError:
            chol = np.linalg.cholesky(prec + 1e-9 * np.eye(t_n + 1))
        z = rng.standard_normal((rows, t_n + 1))
        delta = np.linalg.solve(np.swapaxes(chol, 1, 2), z[:, :, None])[:, :, 0]
        a = self.a[idx] + delta[:, :t_n]
        c = self.c[idx] + delta[:, t_n]
        hbb = self.hbb[idx]
        shift = (
            np.einsum("pd,bp->bd", self.hab[0], delta) if n is not None else np.einsum("bpd,bp->bd", self.hab, delta)
        )
        sd = np.divide(1.0, np.sqrt(hbb), out=np.zeros_like(hbb), where=hbb > 0)
        b = self.b[idx] - shift * sd**2 + rng.standard_normal(hbb.shape) * sd
        return self.eta(a, c, b)


def _mean(family: str, eta: np.ndarray, trials, lo: float = -math.inf, hi: float = math.inf) -> np.ndarray:
    if family == "binomial":
        p = expit(eta)
        return p if trials is None else p * trials
    if family == "poisson":
        return np.exp(np.minimum(eta, 30.0))
    return np.clip(eta, lo, hi)


def _newton(y, m, family, trials, w, lam_b, lam_a, phi, a, c, b, max_iter=200, tol=1e-8, a_mean=0.0):
    """Penalised Newton iterations, batched over the rows of ``w`` (B × D document weights).

    Maximises Σ_td w_d m_td ℓ(y_td; c + a_t + b_d)/φ − λ_a/2 Σ_t (a_t − m_t)² − λ_c/2 c² − λ_b/2 Σ_d w_d b_d² per row
    (m = ``a_mean``: the covariates' prior mean of the template effects, 0 without covariates); the
    document prior is weighted like the document, so a document drawn twice behaves as two documents with equal
    effects. The (T + 1 + D)-dimensional system is solved through the Schur complement of the [a, c] block."""
    n = 1.0 if trials is None else trials
    t_n = a.shape[1]
    p_n = t_n + 1
    lam_c = 1e-6
    wt = w[:, None, :]
    diag = np.arange(t_n)
    out = None
    for it in range(1, max_iter + 1):
        eta = c[:, None, None] + a[:, :, None] + b[:, None, :]
        if family == "binomial":
            p = 1.0 / (1.0 + np.exp(-np.clip(eta, -40, 40)))
            mu, v = n * p, n * p * (1 - p)
        elif family == "poisson":
            mu = np.exp(np.minimum(eta, 30.0))
            v = mu
        else:
            mu, v = eta, np.ones_like(eta)
        r = m * (y - mu) / phi
        h = m * v / phi
        wr, wh = wt * r, wt * h
        ga = np.empty((len(w), p_n))
        ga[:, :t_n] = wr.sum(2) - lam_a * (a - a_mean)
        ga[:, t_n] = wr.sum((1, 2)) - lam_c * c
        gb = w * (r.sum(1) - lam_b * b)
        hbb = w * (h.sum(1) + lam_b)
        hab = np.empty((len(w), p_n, w.shape[1]))
        hab[:, :t_n] = wh
        hab[:, t_n] = wh.sum(1)
        haa = np.zeros((len(w), p_n, p_n))
        rows = wh.sum(2)
        haa[:, diag, diag] = rows + lam_a
        haa[:, diag, t_n] = haa[:, t_n, diag] = rows
        haa[:, t_n, t_n] = rows.sum(1) + lam_c
        invb = np.divide(1.0, hbb, out=np.zeros_like(hbb), where=hbb > 0)
        prec = haa - np.einsum("bpd,bd,bqd->bpq", hab, invb, hab)
        rhs = ga - np.einsum("bpd,bd,bd->bp", hab, invb, gb)
        dth = np.linalg.solve(prec, rhs[:, :, None])[:, :, 0]
        db = invb * (gb - np.einsum("bpd,bp->bd", hab, dth))
        step = max(float(np.abs(dth).max()), float(np.abs(db).max()))
        if step > 4.0:  # damp large first steps (separable cells); the objective is concave
            dth, db, step = dth * 4.0 / step, db * 4.0 / step, 4.0
        a, c, b = a + dth[:, :t_n], c + dth[:, t_n], b + db
        out = (prec, hab, hbb)
        if step < tol:
            return a, c, b, it, True, out
    return a, c, b, max_iter, False, out


def _range_and_scale(y: np.ndarray, m: np.ndarray, family: str) -> tuple[float, float, float]:
    """Prediction range and effect scale: Gaussian — the observed range (``[0, 1]`` when inside it) and the
    observed std; binomial / Poisson — unbounded on the link scale, scale 1."""
    if family == "gaussian":
        obs = y[m > 0]
        lo, hi = (float(obs.min()), float(obs.max())) if obs.size else (0.0, 1.0)
        if lo >= 0 and hi <= 1:
            lo, hi = 0.0, 1.0
        return lo, hi, max(float(obs.std()) if obs.size > 1 else 1.0, 1e-6)
    if family not in ("binomial", "poisson"):
        raise ValueError(f"unknown family {family!r}")
    return -math.inf, math.inf, 1.0


def _constant_outcome(y: np.ndarray, m: np.ndarray, family: str, trials: np.ndarray | None) -> float | None:
    """0.0 when every observed count is 0, 1.0 when every binomial cell is all successes (no model to fit), else
    None."""
    if family == "gaussian" or m.sum() <= 0:
        return None
    if not (y * m).any():
        return 0.0
    if family == "binomial" and np.all((y == (1.0 if trials is None else trials))[m > 0]):
        return 1.0
    return None


def fit_two_way(
    y: np.ndarray,
    mask: np.ndarray,
    family: str,
    trials: np.ndarray | None = None,
    tau: float | None = None,
    sigma_a: float | None = None,
    weights: np.ndarray | None = None,
    phi: float | None = None,
    start: TwoWayFit | None = None,
    em_iter: int = 300,
    covariates: np.ndarray | None = None,
    strong: int = 0,
) -> TwoWayFit:
    """Fit η_td = c + a_t + b_d to the observed cells (``mask``) of a T × D matrix ``y``, with template effects
    a_t ~ N(0, σ_a²), document effects b_d ~ N(0, τ²) and a free intercept c.

    ``family``: ``binomial`` (y = successes of ``trials``, default 1: the Rasch model), ``poisson`` (counts) or
    ``gaussian`` (additive model; predictions clipped to the observed range, to [0, 1] when inside it).
    ``tau``/``sigma_a`` None: empirical Bayes by EM with the Laplace posterior variances (σ_a² ← mean_t(â_t² + V_tt),
    τ² ← mean_d(b̂_d² + V_dd); Gaussian family also φ ← (Σ residual² + Σ cell posterior variances)/N_obs).
    ``weights`` (B × D): a batched fit of bootstrap resamples at fixed τ, σ_a and φ (``start``: warm start; its
    prior mean of the template effects is kept).
    ``covariates`` (T × p, e.g. :func:`axis_covariates` of a template population): the template effects get the
    prior a_t ~ N(x_t·β, σ_a²) (PromptEval's prompt features), β by EM with a ridge prior: the last ``strong``
    columns (the label-bias column of a classification fit) β_j ~ N(0, s²) (s = 1 on the link scale, the observed
    std for the additive model); the others — many weak one-hot axis columns — share one prior variance
    estimated by EM (empirical Bayes, at most s²), so that with a few noisy cells per template they are shrunk
    instead of fitting the noise: a template with few observed cells borrows from the templates that share its
    axis values as far as the data support it."""
    y = np.where(mask, np.asarray(y, dtype=float), 0.0)
    m = np.asarray(mask, dtype=float)
    if trials is not None:
        trials = np.broadcast_to(np.asarray(trials, dtype=float), y.shape)
        m = m * (trials > 0)
    t_n, d_n = y.shape
    lo, hi, scale = _range_and_scale(y, m, family)
    bounds = (1e-2 * scale, 20.0 * scale)  # below 1 % of the scale an effect spread is immaterial (and EM crawls)
    b_rows = 1 if weights is None else len(np.atleast_2d(weights))
    constant = _constant_outcome(y, m, family, trials)
    if constant is not None:
        return TwoWayFit(
            family, np.zeros((b_rows, t_n)), np.zeros(b_rows), np.zeros((b_rows, d_n)), 0.0, 0.0, constant=constant
        )
    if weights is not None:
        w = np.atleast_2d(np.asarray(weights, dtype=float))
        if tau is None or sigma_a is None or (family == "gaussian" and phi is None):
            raise ValueError("a weighted (bootstrap) fit needs fixed tau and sigma_a (and phi for gaussian)")
        if start is not None:
            a0, c0 = np.repeat(start.a, len(w), 0), np.repeat(start.c, len(w), 0)
            b0 = np.repeat(start.b, len(w), 0) * (w > 0)
        else:
            a0, c0, b0 = np.zeros((len(w), t_n)), np.zeros(len(w)), np.zeros((len(w), d_n))
        prior = start.a_mean if start is not None and start.a_mean is not None else np.zeros(t_n)
        a, c, b, it, ok, (prec, hab, hbb) = _newton(
            y, m, family, trials, w, 1 / tau**2, 1 / sigma_a**2, phi or 1.0, a0, c0, b0, a_mean=prior
        )
        return TwoWayFit(family, a, c, b, tau, sigma_a, phi or 1.0, prec, hab, hbb, it, ok, lo, hi, a_mean=prior)
    w = (m.sum(0) > 0).astype(float)[None, :]
    used = w[0] > 0
    n_obs = float(m.sum())
    phi = phi or (scale**2 if family == "gaussian" else 1.0)
    if family != "gaussian":
        phi = 1.0
    fixed = tau is not None and sigma_a is not None
    tau = tau if tau is not None else (scale if family == "gaussian" else 1.0)
    sigma_a = sigma_a if sigma_a is not None else (scale / 2 if family == "gaussian" else 0.5)
    a, c, b = np.zeros((1, t_n)), np.zeros(1), np.zeros((1, d_n))
    if start is not None:
        a, c, b = start.a.copy(), start.c.copy(), start.b.copy()
    total_it, ok = 0, True
    x, strong_cols = (None, None) if covariates is None else _centred(covariates, t_n, strong)
    x = None if x is None or x.shape[1] == 0 else x
    a_mean = np.zeros(t_n)
    weak_sd = scale  # prior sd of the weak (axis) coefficients, empirical Bayes below; strong ones keep the scale
    for _ in range(1 if fixed else em_iter):
        a, c, b, it, ok, (prec, hab, hbb) = _newton(
            y, m, family, trials, w, 1 / tau**2, 1 / sigma_a**2, phi, a, c, b, a_mean=a_mean
        )
        total_it += it
        if fixed:
            break
        v_th = np.linalg.inv(prec[0])
        u = np.divide(hab[0], hbb[0], out=np.zeros_like(hab[0]), where=hbb[0] > 0)  # (T+1) × D
        v_b = np.divide(1.0, hbb[0], out=np.zeros(d_n), where=hbb[0] > 0) + np.einsum("pd,pq,qd->d", u, v_th, u)
        new_tau = math.sqrt(float(np.mean(b[0, used] ** 2 + v_b[used]))) if used.any() else tau
        old_mean = a_mean
        if x is not None:  # β ← ridge regression of the posterior template effects on the covariates
            sd = np.where(strong_cols, scale, weak_sd)
            gram = x.T @ x + np.diag((sigma_a / sd) ** 2)
            beta = np.linalg.solve(gram, x.T @ a[0])
            a_mean = x @ beta
            if (~strong_cols).any():  # the many weak columns share one prior variance: E[β²] over them
                var = beta**2 + sigma_a**2 * np.diag(np.linalg.inv(gram))
                weak_sd = min(max(math.sqrt(float(var[~strong_cols].mean())), bounds[0]), scale)
        new_sa = math.sqrt(float(np.mean((a[0] - a_mean) ** 2 + np.diag(v_th)[:t_n])))
        new_tau, new_sa = (min(max(x, bounds[0]), bounds[1]) for x in (new_tau, new_sa))
        new_phi = phi
        if family == "gaussian" and n_obs > 0:
            res = m * (y - (c[0] + a[0][:, None] + b[0][None, :])) ** 2
            e = np.zeros((t_n + 1, t_n))  # η_td loads on a_t and c
            e[np.arange(t_n), np.arange(t_n)] = 1.0
            e[t_n] = 1.0
            q = v_th @ e  # Cov([a, c], η_t·)
            cell_var = (e * q).sum(0)[:, None] + v_b[None, :] - 2 * (u.T @ q).T  # Var(c + a_t + b_d | y)
            new_phi = max(float((res.sum() + (m * cell_var).sum()) / n_obs), 1e-12)
        done = (
            abs(new_tau - tau) < 1e-3 * scale
            and abs(new_sa - sigma_a) < 1e-3 * scale
            and abs(new_phi - phi) < 1e-3 * phi
            and float(np.max(np.abs(a_mean - old_mean), initial=0.0)) < 1e-3 * scale  # the prior means too
        )
        tau, sigma_a, phi = new_tau, new_sa, new_phi
        if done:
            break
    if not fixed:  # final fit at the converged hyper-parameters
        a, c, b, it, ok, (prec, hab, hbb) = _newton(
            y, m, family, trials, w, 1 / tau**2, 1 / sigma_a**2, phi, a, c, b, a_mean=a_mean
        )
        total_it += it
    return TwoWayFit(family, a, c, b, tau, sigma_a, phi, prec, hab, hbb, total_it, ok, lo, hi, a_mean=a_mean)


def _centred(covariates: np.ndarray, t_n: int, strong: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Covariate columns centred over the templates (the free intercept c carries their mean); constant columns
    dropped. Also which kept columns are among the last ``strong`` (see :func:`fit_two_way`)."""
    x = np.asarray(covariates, dtype=float).reshape(t_n, -1)
    x = x - x.mean(0)
    keep = np.abs(x).max(0) > 0 if x.size else np.zeros(x.shape[1], bool)
    is_strong = np.arange(x.shape[1]) >= x.shape[1] - strong
    return (x[:, keep] if x.size else np.zeros((t_n, 0))), is_strong[keep]


def axis_covariates(axes: Sequence[dict]) -> np.ndarray:
    """T × p one-hot matrix of the templates' axis values (``metadata.population_axes``): one column per (axis,
    value) seen, in sorted order; axes with a single value add nothing after centring."""
    cols = sorted({(k, str(v)) for a in axes for k, v in a.items()})
    return np.array([[float(str(a.get(k)) == v) for k, v in cols] for a in axes]).reshape(len(axes), len(cols))


# ============================================================================================ sampled fit
@dataclass
class SampledFit(TwoWayFit):
    """A two-way model fitted by Gibbs sampling (the population fit, below): ``a_draws`` (S × T, the template effects with the
    intercept), ``b_draws`` (S × D); ``a``/``b`` their posterior means (``c`` 0), ``tau``/``sigma_a``/``phi`` the
    posterior means of the scales. :meth:`draw_eta` takes stored draws (no refit: a bootstrap over a sampled fit
    draws the cells from the posterior instead)."""

    a_draws: np.ndarray | None = None
    b_draws: np.ndarray | None = None
    sampler: dict = field(default_factory=dict)

    def draw_eta(self, rng: np.random.Generator, n: int | None = None) -> np.ndarray:
        """η of ``n`` posterior draws (stored draws taken at random), n × T × D."""
        if n is None:
            raise ValueError("a sampled fit is not refitted per resample: draw n rows")
        idx = rng.integers(0, len(self.a_draws), n)
        return self.a_draws[idx][:, :, None] + self.b_draws[idx][:, None, :]


def fit_sampled(
    y: np.ndarray,
    mask: np.ndarray,
    family: str,
    trials: np.ndarray | None = None,
    covariates: np.ndarray | None = None,
    strong: int = 0,
    rng: np.random.Generator | None = None,
    settings: SamplerSettings | None = None,
) -> TwoWayFit:
    """The model of :func:`fit_two_way` (same arguments) fitted by the Gibbs sampler below (:func:`sample_two_way`): template
    effects a_t ~ N(c + x_t·β, σ_a²), document effects b_d ~ N(0, τ²), half-normal priors on σ_a, τ and the axis
    columns' shared sd (:data:`PRIOR_SCALES` × the effect scale). Cells with every observed value at a bound
    and the Poisson family (false-positive counts) keep :func:`fit_two_way`."""
    y = np.where(mask, np.asarray(y, dtype=float), 0.0)
    m = np.asarray(mask, dtype=float)
    if trials is not None:
        trials = np.broadcast_to(np.asarray(trials, dtype=float), y.shape)
        m = m * (trials > 0)
    if family == "poisson" or _constant_outcome(y, m, family, trials) is not None:
        return fit_two_way(y, mask, family, trials=trials, covariates=covariates, strong=strong)
    t_n, d_n = y.shape
    lo, hi, scale = _range_and_scale(y, m, family)
    x, strong_cols = (None, None) if covariates is None else _centred(covariates, t_n, strong)
    rng = rng if rng is not None else np.random.default_rng(0)
    out = sample_two_way(y, m, family, trials, x, strong_cols, scale, rng, settings or SamplerSettings())
    a, b = out["a"], out["b"]
    info = {
        "draws": len(a),
        "effective_draws": {k: round(effective_draws(out[k]), 1) for k in ("sigma_a", "tau")},
        "template_effect_sd_interval": [float(v) for v in np.percentile(out["sigma_a"], [2.5, 97.5])],
        "doc_effect_sd_interval": [float(v) for v in np.percentile(out["tau"], [2.5, 97.5])],
        "prior_contraction": {  # 1 − posterior variance / prior variance: how much the cells say about the scale
            k: float(1 - np.var(out[k]) / ((PRIOR_SCALES[p] * scale) ** 2 * (1 - 2 / math.pi)))
            for k, p in (("sigma_a", "sigma_a"), ("tau", "tau"))
        },
    }
    return SampledFit(
        family,
        a.mean(0)[None, :],
        np.zeros(1),
        b.mean(0)[None, :],
        float(out["tau"].mean()),
        float(out["sigma_a"].mean()),
        float(out["phi"].mean()) if family == "gaussian" else 1.0,
        iterations=len(a),
        converged=min(info["effective_draws"].values()) >= 50,
        lo=lo,
        hi=hi,
        a_draws=a,
        b_draws=b,
        sampler=info,
    )


def sampled_fitter(seed) -> Callable:
    """A ``fitter`` for :func:`cell_model`: :func:`fit_sampled` with one seeded generator per fit, in the order the
    cell model fits (deterministic)."""
    calls = iter(range(1_000_000))

    def fit(y, mask, family, trials=None, covariates=None, strong=0):
        rng = np.random.default_rng([*np.atleast_1d(seed).tolist(), 7, next(calls)])
        return fit_sampled(y, mask, family, trials, covariates, strong, rng)

    return fit


# ============================================================================================ cell matrices
@dataclass
class CellMatrix:
    """Observed cells of one variant group: ``features`` T × D × K (anything where unobserved), ``mask`` T × D,
    the metric's ``finalize`` (rows of K summed features → scores) and the feature ``layout``:

    * ``("mean",)`` — [value, 1];
    * ``("classification", k)`` — [tp_1..k, gold_1..k, pred_1..k], with ``correct`` (T × D, 0/1);
    * ``("counts", slots)`` — ``slots``: list of ("tp_fp_fn" | "o_p_g", first column).
    """

    templates: list[str]
    docs: list[str]
    features: np.ndarray
    mask: np.ndarray
    finalize: Callable[[np.ndarray], np.ndarray]
    layout: tuple
    correct: np.ndarray | None = None
    name: str = ""
    metric: str = ""
    covariates: np.ndarray | None = None  # T × p template features (population axes), for the cell models

    def __post_init__(self):
        self.features = np.asarray(self.features, dtype=float)
        self.mask = np.asarray(self.mask, dtype=bool)
        t, d = self.mask.shape
        if self.features.shape[:2] != (t, d) or (len(self.templates), len(self.docs)) != (t, d):
            raise SparseError(
                f"{self.name}: features {self.features.shape}, mask {self.mask.shape}, "
                f"{len(self.templates)} templates and {len(self.docs)} documents disagree"
            )
        if t < 1 or not self.mask.any(0).all():
            missing = [self.docs[i] for i in np.flatnonzero(~self.mask.any(0))[:3]]
            raise SparseError(f"{self.name}: documents without any observed template (e.g. {missing})")
        if not self.mask.any(1).all():
            missing = [self.templates[i] for i in np.flatnonzero(~self.mask.any(1))]
            raise SparseError(f"{self.name}: templates without any observed document: {missing}")
        self.features = np.where(self.mask[:, :, None], np.nan_to_num(self.features), 0.0)
        if self.layout[0] == "classification":
            if self.correct is None:
                raise SparseError(f"{self.name}: the classification layout needs per-cell correctness")
            self.correct = np.where(self.mask, np.asarray(self.correct, dtype=float), 0.0)

    @property
    def share(self) -> float:
        return float(self.mask.mean())

    def subset(self, keep: np.ndarray) -> CellMatrix:
        """The same matrix with only the cells ``keep`` & ``mask`` observed (subsampling a full run)."""
        keep = np.asarray(keep, dtype=bool) & self.mask
        return CellMatrix(
            self.templates,
            self.docs,
            self.features,
            keep,
            self.finalize,
            self.layout,
            correct=self.correct,
            name=self.name,
            metric=self.metric,
            covariates=self.covariates,
        )

    # --------------------------------------------------------------------------- constructors for plain matrices
    @classmethod
    def from_values(
        cls, values: np.ndarray, mask: np.ndarray | None = None, templates=None, docs=None, name: str = ""
    ) -> CellMatrix:
        """Mean metric from a T × D matrix of per-document values (NaN = unobserved when ``mask`` is None)."""
        v = np.asarray(values, dtype=float)
        mask = ~np.isnan(v) if mask is None else np.asarray(mask, dtype=bool)
        feats = np.stack([np.nan_to_num(v), np.ones_like(v)], axis=2)
        return cls(
            list(templates or [f"t{i + 1}" for i in range(v.shape[0])]),
            list(docs or [str(j) for j in range(v.shape[1])]),
            feats,
            mask,
            M.mean_finalize,
            ("mean",),
            name=name,
        )

    @classmethod
    def from_labels(
        cls,
        gold: Sequence[int],
        pred: np.ndarray,
        k: int,
        average: str,
        mask: np.ndarray | None = None,
        positive: int | None = None,
        templates=None,
        docs=None,
        name: str = "",
    ) -> CellMatrix:
        """Classification from gold class indices (D) and predicted indices (T × D; −1 = no label / unparsable,
        NaN or ``mask`` False = unobserved). ``average`` weighted | macro | binary (``positive`` class)."""
        g = np.asarray(gold, dtype=int)
        p = np.asarray(pred, dtype=float)
        mask = ~np.isnan(p) if mask is None else np.asarray(mask, dtype=bool)
        p = np.where(mask, np.nan_to_num(p, nan=-1), -1).astype(int)
        cols = [positive] if average == "binary" else list(range(k))
        g1 = np.stack([(g == c) for c in cols], 1).astype(float)  # D × k'
        p1 = np.stack([(p == c) for c in cols], 2).astype(float)  # T × D × k'
        feats = np.concatenate([p1 * g1[None], np.broadcast_to(g1, p1.shape), p1], axis=2)
        correct = (p == g[None, :]).astype(float)
        return cls(
            list(templates or [f"t{i + 1}" for i in range(p.shape[0])]),
            list(docs or [str(j) for j in range(len(g))]),
            feats,
            mask,
            partial(M.f1_finalize, average=average),
            ("classification", len(cols)),
            correct=correct,
            name=name,
        )


# ============================================================================================ cell models
class _CellModel:
    """A fitted model of the unobserved cells. :meth:`sums` gives, per row of document weights ``w`` (B × D),
    Σ_d w_bd · (observed F_td, or for an unobserved cell its expectation (``mode="mean"``) or a posterior
    predictive draw (``mode="draw"``: parameters from the Laplace posterior, then the cell outcome)), B × T × K.
    ``refit``: fit the model again on the weighted documents (bootstrap) at the point fit's hyper-parameters."""

    def __init__(self, cm: CellMatrix, fitter: Callable | None = None):
        self.cm = cm
        self.m = cm.mask.astype(float)
        self.obs_f = cm.features * self.m[:, :, None]
        self.fitter = fitter or fit_two_way  # (y, mask, family, trials=, covariates=, strong=) → fit

    def fits(self) -> list[TwoWayFit]:
        raise NotImplementedError

    def refit(self, w: np.ndarray) -> list[TwoWayFit]:
        raise NotImplementedError

    def cells(self, fits: list[TwoWayFit], mode: str, rng, n: int | None) -> np.ndarray:
        """Values of every cell (rows × T × D × K) under ``mode``."""
        raise NotImplementedError

    def sums(self, w: np.ndarray, refit: bool = False, mode: str = "mean", rng=None) -> np.ndarray:
        fits = self.refit(w) if refit else self.fits()
        n = None if refit else (len(w) if mode == "draw" else None)
        x = self.cells(fits, mode, rng, n)
        miss = (1.0 - self.m)[None, :, :] * w[:, None, :]
        return np.einsum("bd,tdk->btk", w, self.obs_f) + np.matmul(miss[:, :, None, :], x)[:, :, 0, :]

    def describe(self) -> dict:
        raise NotImplementedError


def _refit(f: TwoWayFit, y, mask, w, trials=None) -> TwoWayFit:
    return (
        fit_two_way(y, mask, f.family, trials=trials, tau=f.tau, sigma_a=f.sigma_a, weights=w, phi=f.phi, start=f)
        if f.constant is None
        else TwoWayFit(
            f.family,
            np.zeros((len(w),) + f.a.shape[1:]),
            np.zeros(len(w)),
            np.zeros((len(w),) + f.b.shape[1:]),
            f.tau,
            f.sigma_a,
            constant=f.constant,
        )
    )


def _eta(f: TwoWayFit, mode: str, rng, n: int | None) -> np.ndarray:
    return f.draw_eta(rng, n) if mode == "draw" else f.eta()


def _fit_info(f: TwoWayFit) -> dict:
    return {
        "family": f.family,
        "doc_effect_sd": f.tau,
        "template_effect_sd": f.sigma_a,
        "noise_var": f.phi if f.family == "gaussian" else None,
        "converged": f.converged,
        "degenerate": f.constant,
        **({"sampler": f.sampler} if isinstance(f, SampledFit) else {}),
    }


class _MeanModel(_CellModel):
    def __init__(self, cm: CellMatrix, fitter: Callable | None = None):
        super().__init__(cm, fitter)
        self.y = cm.features[:, :, 0]
        obs = self.y[cm.mask]
        self.family = "binomial" if np.all((obs == 0) | (obs == 1)) else "gaussian"
        self.fit = self.fitter(self.y, cm.mask, self.family, covariates=cm.covariates)

    def fits(self):
        return [self.fit]

    def refit(self, w):
        return [_refit(self.fit, self.y, self.cm.mask, w)]

    def cells(self, fits, mode, rng, n):
        f = fits[0]
        eta = _eta(f, mode, rng, n)
        mu = f.mean(eta=eta)
        out = np.empty(mu.shape + (2,))
        out[..., 1] = 1.0
        if mode != "draw":
            out[..., 0] = mu
        elif self.family == "binomial":
            out[..., 0] = rng.random(mu.shape) < mu
        else:
            out[..., 0] = np.clip(mu + rng.standard_normal(mu.shape) * math.sqrt(f.phi), f.lo, f.hi)
        return out

    def describe(self):
        kind = "Rasch (logit) model of 0/1 values" if self.family == "binomial" else "additive model of values"
        return {"model": kind, **_fit_info(self.fit)}


class _ClassificationModel(_CellModel):
    """Correctness ~ Rasch within each gold class (template effects per class: a template's accuracy depends on the
    class through its label bias); a wrong answer's predicted label ~ template t's error distribution for the
    document's gold class (categories: the k feature labels and "none" = no feature label, e.g. unparsable)."""

    def __init__(self, cm: CellMatrix, fitter: Callable | None = None):
        super().__init__(cm, fitter)
        k = cm.layout[1]
        self.k = k
        d_idx = np.arange(len(cm.docs))
        first = cm.mask.argmax(0)
        self.g = cm.features[first, d_idx, k : 2 * k]  # D × k (document's)
        self.sig = np.where(self.g.sum(1) > 0, self.g.argmax(1), -1)  # gold class (−1: none)
        pred = cm.features[:, :, 2 * k : 3 * k]
        cat = np.where(pred.sum(2) > 0, pred.argmax(2), k)  # T × D category
        wrong = cm.mask & (cm.correct < 0.5)
        t_n = len(cm.templates)
        q = np.zeros((t_n, len(cm.docs), k + 1))
        for s in np.unique(self.sig):
            cols = self.sig == s
            cw, cc = wrong[:, cols], cat[:, cols]
            pooled = np.bincount(cc[cw], minlength=k + 1).astype(float)
            pooled = pooled / pooled.sum() if pooled.sum() else np.eye(k + 1)[k]  # unseen: "none"
            for t in range(t_n):
                own = np.bincount(cc[t][cw[t]], minlength=k + 1).astype(float)
                q[t, cols] = (own + ERROR_SHRINK * pooled) / (own.sum() + ERROR_SHRINK)
        self.q = q
        self.cum = np.cumsum(q, axis=2)
        onehot = np.vstack([np.eye(k), np.zeros((1, k))])  # category → pred part
        self.onehot = onehot
        zeros = np.zeros((t_n, len(cm.docs), k))
        self.err = np.concatenate([zeros, np.broadcast_to(self.g, zeros.shape), q @ onehot], axis=2)
        self.right = np.concatenate([self.g, self.g, self.g], axis=1)  # D × 3k
        self.classes = [np.flatnonzero(self.sig == s) for s in np.unique(self.sig)]
        self.fit = [
            self.fitter(cm.correct[:, c], cm.mask[:, c], "binomial", covariates=x, strong=strong)
            for c, (x, strong) in zip(self.classes, self._class_covariates(cat))
        ]

    def _class_covariates(self, cat: np.ndarray) -> list[tuple[np.ndarray | None, int]]:
        """Covariates of each gold class's correctness fit. Without template covariates (a sparse run): none. With
        them (a template population): the axis values plus the template's **label bias** towards the class — the
        template effects of a Rasch model of "answers class s" (its feature label; for the class outside the
        feature columns, no feature label) fitted on the documents of the other classes. A template that rarely
        answers "relevant" on irrelevant documents rarely answers it on relevant ones: with few observed cells of
        a rare class per template, its accuracy there is read from the many cells of the other classes."""
        x = self.cm.covariates
        if x is None or len(self.classes) < 2:
            return [(x, 0)] * len(self.classes)
        out = []
        for s, cols in zip(np.unique(self.sig), self.classes):
            other = np.setdiff1d(np.arange(len(self.cm.docs)), cols)
            says = (cat[:, other] == (s if s >= 0 else self.k)).astype(float)
            bias = fit_two_way(says, self.cm.mask[:, other], "binomial", covariates=x).a[0]
            out.append((np.column_stack([np.asarray(x, dtype=float).reshape(len(bias), -1), bias]), 1))
        return out

    def fits(self):
        return list(self.fit)

    def refit(self, w):
        return [_refit(f, self.cm.correct[:, c], self.cm.mask[:, c], w[:, c]) for f, c in zip(self.fit, self.classes)]

    def cells(self, fits, mode, rng, n):
        rows = n if n is not None else fits[0].a.shape[0]
        p = np.empty((rows,) + self.m.shape)
        for f, c in zip(fits, self.classes):
            p[:, :, c] = f.mean(eta=_eta(f, mode, rng, n))
        if mode != "draw":
            p = p[..., None]
            return p * self.right[None, None] + (1 - p) * self.err[None]
        ok = rng.random(p.shape) < p
        u = rng.random(p.shape)
        cat = (u[..., None] > self.cum[None]).sum(-1).clip(max=self.k)  # rows × T × D
        k = self.k
        out = np.empty(p.shape + (3 * k,))
        out[..., :k] = 0.0
        out[..., k : 2 * k] = self.g[None, None]
        out[..., 2 * k :] = self.onehot[cat]
        return np.where(ok[..., None], self.right[None, None], out)

    def describe(self):
        return {
            "model": "Rasch (logit) model of correctness per gold class + per-template error distribution",
            "classes": [_fit_info(f) for f in self.fit],
        }


class _CountModel(_CellModel):
    """Per slot: hits TP ~ Binomial(g_d, logit⁻¹ η), false positives FP ~ Poisson(exp η')."""

    def __init__(self, cm: CellMatrix, fitter: Callable | None = None):
        super().__init__(cm, fitter)
        first = cm.mask.argmax(0)
        d_idx = np.arange(len(cm.docs))
        self.parts = []
        for kind, c in cm.layout[1]:
            f = cm.features[:, :, c : c + 3]
            if kind == "tp_fp_fn":
                tp, fp, g = f[:, :, 0], f[:, :, 1], (f[:, :, 0] + f[:, :, 2])[first, d_idx]
            elif kind == "o_p_g":
                tp, fp, g = f[:, :, 0], f[:, :, 1] - f[:, :, 0], f[:, :, 2][first, d_idx]
            else:
                raise SparseError(f"unknown count slot {kind!r}")
            x = cm.covariates
            fit_tp = self.fitter(tp, cm.mask, "binomial", trials=g[None, :], covariates=x) if (g > 0).any() else None
            fit_fp = self.fitter(fp, cm.mask, "poisson", covariates=x)
            self.parts.append((kind, c, tp, fp, g, fit_tp, fit_fp))

    def fits(self):
        return [f for p in self.parts for f in p[5:7]]

    def refit(self, w):
        out = []
        for _kind, _c, tp, fp, g, fit_tp, fit_fp in self.parts:
            out.append(None if fit_tp is None else _refit(fit_tp, tp, self.cm.mask, w, trials=g[None, :]))
            out.append(_refit(fit_fp, fp, self.cm.mask, w))
        return out

    def cells(self, fits, mode, rng, n):
        t_n, d_n = self.m.shape
        rows = n if n is not None else next(f.a.shape[0] for f in fits if f is not None)
        out = np.zeros((rows, t_n, d_n, self.cm.features.shape[2]))
        for j, (kind, c, _tp, _fp, g, _, _) in enumerate(self.parts):
            f_tp, f_fp = fits[2 * j], fits[2 * j + 1]
            gg = np.broadcast_to(g[None, None, :], (rows, t_n, d_n))
            if f_tp is None:
                etp = np.zeros((rows, t_n, d_n))
            else:
                p = f_tp.mean(eta=_eta(f_tp, mode, rng, n))
                etp = rng.binomial(gg.astype(int), np.clip(p, 0, 1)).astype(float) if mode == "draw" else p * gg
            efp = f_fp.mean(eta=_eta(f_fp, mode, rng, n))
            if mode == "draw":
                efp = rng.poisson(efp).astype(float)
            efp = np.broadcast_to(efp, (rows, t_n, d_n))
            etp = np.broadcast_to(etp, (rows, t_n, d_n))
            if kind == "tp_fp_fn":
                out[..., c], out[..., c + 1], out[..., c + 2] = etp, efp, gg - etp
            else:
                out[..., c], out[..., c + 1], out[..., c + 2] = etp, etp + efp, gg
        return out

    def describe(self):
        return {
            "model": "binomial (logit) model of hits out of the gold count + Poisson (log) model of false "
            "positives, per slot",
            "slots": [
                {"hits": None if p[5] is None else _fit_info(p[5]), "false_positives": _fit_info(p[6])}
                for p in self.parts
            ],
        }


def cell_model(cm: CellMatrix, fitter: Callable | None = None) -> _CellModel:
    """The cell model of ``cm``'s layout; ``fitter`` fits its two-way models (default :func:`fit_two_way`, the
    Laplace empirical-Bayes fit; the population estimator passes :func:`sampled_fitter`)."""
    kind = cm.layout[0]
    if kind == "mean":
        return _MeanModel(cm, fitter)
    if kind == "classification":
        return _ClassificationModel(cm, fitter)
    if kind == "counts":
        return _CountModel(cm, fitter)
    raise SparseError(f"{cm.name}: unknown feature layout {cm.layout!r}")


# ============================================================================================ estimates
def naive_scores(cm: CellMatrix) -> np.ndarray:
    """Per-template score from the observed cells only (what lm-eval reports for a sparse run)."""
    return cm.finalize((cm.features * cm.mask[:, :, None]).sum(1))


def plugin_scores(cm: CellMatrix, model: _CellModel | None = None) -> np.ndarray:
    """ŝ_t = finalize(Σ observed F_td + Σ unobserved E[F_td]) at the fitted parameters."""
    model = model or cell_model(cm)
    return cm.finalize(model.sums(np.ones((1, len(cm.docs))))[0])


def _draw_scores(groups, models, w_rows: np.ndarray | None, n: int, rng, refit: bool, cols=None) -> np.ndarray:
    """Scores (rows × T, mean over groups) with every unobserved cell drawn from the posterior predictive."""
    out = 0.0
    for gi, (g, m) in enumerate(zip(groups, models)):
        w = np.ones((n, len(g.docs))) if w_rows is None else w_rows[:, cols[gi]]
        sums = m.sums(w, refit=refit, mode="draw", rng=rng)
        out = out + g.finalize(sums.reshape(-1, sums.shape[2])).reshape(len(w), -1)
    return out / len(groups)


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
        }


def predictive_stats(
    draws: np.ndarray, scores: np.ndarray, baseline, ddof: int, alpha: float, floor_mode, n_docs: int
) -> dict:
    """Point statistics from posterior predictive draws of the full-data scores (R × T): μ from the plug-in
    scores, σ = sqrt(mean_r σ_r²) (the predictive mean of the full-data variance), S = (μ − b)/(α·max(σ, floor))
    with the degenerate-case rules of :func:`.stats.sharpe` (evaluated on a score vector with that σ)."""
    _, sig, _, _ = sharpe_matrix(draws, 0.0 if baseline is None else baseline, ddof, alpha, floor_mode, n_docs)
    base = sharpe(scores, baseline, ddof, alpha, floor_mode, n_docs)
    if base["std"] is None:
        return base
    sigma = float(np.sqrt(np.nanmean(sig**2)))
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

    Point estimates: per-template plug-in scores ŝ_t, μ = mean_t ŝ_t; σ and S from ``draws`` posterior predictive
    draws of the unobserved cells (:func:`predictive_stats`; ``np.random.default_rng(seed)``). Intervals: document
    bootstrap as the full tool (documents = the sorted union of the groups' document keys, one
    :func:`.bootstrap.draw` per row, B = ``n_boot``, 0: none); on every resample the cell model is refitted and
    the unobserved cells are drawn once from its posterior predictive, so the intervals include the imputation
    uncertainty. With every cell observed all of this reduces to the full tool's statistics."""
    if not groups:
        raise SparseError(f"{name}: no groups")
    templates = groups[0].templates
    if any(g.templates != templates for g in groups):
        raise SparseError(f"{name}: subtask groups have different templates")
    models = [cell_model(g) for g in groups]
    scores = np.mean([plugin_scores(g, m) for g, m in zip(groups, models)], axis=0)
    naive = np.mean([naive_scores(g) for g in groups], axis=0)
    keys = sorted(set().union(*(g.docs for g in groups)), key=natural_key)
    complete = all(g.mask.all() for g in groups)
    rng = np.random.default_rng([seed, 1])
    predictive = None
    if complete or draws <= 0:
        st = sharpe(scores, baseline, ddof, alpha, floor_mode, len(keys))
    else:
        pred = np.vstack(
            [_draw_scores(groups, models, None, min(100, draws - i), rng, False) for i in range(0, draws, 100)]
        )
        st = predictive_stats(pred, scores, baseline, ddof, alpha, floor_mode, len(keys))
        if keep_boot:
            predictive = pred
    st["baseline"] = (
        None if baseline is None else (float(baseline) if np.isscalar(baseline) else [float(x) for x in baseline])
    )
    est = RowEstimate(
        name or groups[0].name,
        list(templates),
        scores,
        naive,
        st,
        int(sum(g.mask.sum() for g in groups)),
        int(sum(g.mask.size for g in groups)),
        len(keys),
        models=[m.describe() for m in models],
        pred_draws=predictive,
    )
    if n_boot and n_boot > 0:
        col = {k: i for i, k in enumerate(keys)}
        cols = [np.array([col[k] for k in g.docs]) for g in groups]
        di, _ = draw(seed, n_boot, len(keys), len(templates), False)
        boot = np.zeros((n_boot, len(templates)))
        width = max(g.features.shape[2] for g in groups)
        chunk = max(1, min(n_boot, 4_000_000 // max(len(keys) * len(templates) * width, 1)))
        for start in range(0, n_boot, chunk):
            w_all = multiplicities(di[start : start + chunk], len(keys))
            if complete:
                boot[start : start + len(w_all)] = np.mean(
                    [
                        g.finalize(
                            np.einsum("bd,tdk->btk", w_all[:, c], g.features).reshape(-1, g.features.shape[2])
                        ).reshape(len(w_all), -1)
                        for g, c in zip(groups, cols)
                    ],
                    axis=0,
                )
            else:
                boot[start : start + len(w_all)] = _draw_scores(groups, models, w_all, len(w_all), rng, True, cols)
        mu, sig, sh, degen = sharpe_matrix(
            boot, 0.0 if baseline is None else baseline, ddof, alpha, floor_mode, len(keys)
        )
        valid = np.isfinite(mu)
        est.ci = {
            "mean": percentile_ci(mu),
            "std": percentile_ci(sig),
            "sharpe": percentile_ci(sh) if baseline is not None else None,
            "per_template": {t: percentile_ci(boot[:, j]) for j, t in enumerate(templates)},
            "B": int(n_boot),
            "seed": int(seed),
            "resample_templates": False,
            "frac_degenerate": float(degen[valid].mean()) if valid.any() else None,
            "method": (
                "document bootstrap"
                if complete
                else "document bootstrap; cell model refitted and unobserved cells drawn on every resample"
            ),
        }
        if keep_boot:
            est.boot_scores = boot
    return est


def estimate(cm: CellMatrix, baseline: float | Sequence[float] | None, **kwargs) -> RowEstimate:
    """:func:`estimate_row` of a single variant group."""
    return estimate_row([cm], baseline, **kwargs)


# ============================================================================================ template populations
QUANTILE_LEVELS = (0.05, 0.25, 0.5, 0.75, 0.95)
WORST_DECILE = 0.1


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
    The cell models are :func:`estimate_row`'s with the templates' axis values as ``covariates`` (T × p, see
    :func:`axis_covariates`; template effects a_t ~ N(c + x_t·β, σ_a²)), fitted by Gibbs sampling
    (:func:`fit_sampled`, :func:`sample_two_way`): the variance components carry their posterior uncertainty instead of
    a Laplace mode, which shrank σ (docs/populations.md, the simulation study).

    Point estimates from ``draws`` posterior predictive draws of the full-data scores (every unobserved cell drawn,
    the observed ones kept): the template scores their posterior means, μ their mean, σ and S as
    :func:`predictive_stats`, the quantiles (:data:`QUANTILE_LEVELS`) the posterior means of the full-data
    quantiles. The worst decile: the templates whose estimated score is at or below the 10 % quantile of the
    estimated scores. Intervals (``n_boot`` > 0), two kinds:

    * ``ci`` — the population's values (the grammar's templates on the dataset's documents): per resample the
      documents resampled (:func:`.bootstrap.draw`), the unobserved cells drawn from the posterior and the
      templates resampled with replacement; imputation, document and template sampling together;
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
        quantiles, full_run = np.quantile(est.scores, QUANTILE_LEVELS), None
    else:
        est, full_run = _sampled_population(groups, baseline, ddof, alpha, floor_mode, n_boot, seed, draws)
        quantiles = np.quantile(full_run, QUANTILE_LEVELS, axis=1).mean(1)
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
        ti = np.random.default_rng([seed, 2]).integers(0, est.boot_scores.shape[1], est.boot_scores.shape)
        pop = _stat_intervals(est.boot_scores, *stat_args, template_idx=ti)
        out["ci"] = {
            **out["ci"],
            **pop,
            "resample_templates": True,
            "method": out["ci"]["method"] + "; templates resampled with replacement on every resample",
        }
        if full_run is not None:
            out["ci_full_run"] = {
                **_stat_intervals(full_run, *stat_args),
                "draws": len(full_run),
                "method": "posterior predictive draws of the unobserved cells (these templates and documents)",
            }
            out["information"] = _information(est, full_run, pop, stat_args)
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


def _sampled_population(groups, baseline, ddof, alpha, floor_mode, n_boot, seed, draws):
    """(RowEstimate, R × T posterior predictive draws of the full-data scores) of a sparse population: sampled cell
    models; the bootstrap rows each draw the unobserved cells afresh from the posterior (no refit)."""
    templates = groups[0].templates
    if any(g.templates != templates for g in groups):
        raise SparseError(f"{groups[0].name}: subtask groups have different templates")
    fitter = sampled_fitter([seed])
    models = [cell_model(g, fitter) for g in groups]
    keys = sorted(set().union(*(g.docs for g in groups)), key=natural_key)
    col = {k: i for i, k in enumerate(keys)}
    cols = [np.array([col[k] for k in g.docs]) for g in groups]
    width = max(g.features.shape[2] for g in groups)
    chunk = max(1, min(100, 4_000_000 // max(len(keys) * len(templates) * width, 1)))
    rng = np.random.default_rng([seed, 1])
    n_pred = max(draws, 2)
    pred = np.vstack(
        [_draw_scores(groups, models, None, min(chunk, n_pred - i), rng, False) for i in range(0, n_pred, chunk)]
    )
    scores = pred.mean(0)
    st = predictive_stats(pred, scores, baseline, ddof, alpha, floor_mode, len(keys))
    st["baseline"] = (
        None if baseline is None else (float(baseline) if np.isscalar(baseline) else [float(x) for x in baseline])
    )
    est = RowEstimate(
        groups[0].name,
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
            boot[start : start + len(w_all)] = _draw_scores(groups, models, w_all, len(w_all), rng, False, cols)
        est.boot_scores = boot
        est.ci = {
            "per_template": {t: percentile_ci(boot[:, j]) for j, t in enumerate(templates)},
            "B": int(n_boot),
            "seed": int(seed),
            "method": "document bootstrap; unobserved cells drawn from the sampled cell model's posterior on every "
            "resample",
        }
    return est, pred


def _stat_intervals(rows, baseline, ddof, alpha, floor_mode, n_docs, template_idx=None) -> dict:
    """95 % percentile intervals of μ, σ, S and the quantiles over the rows (R × T scores), templates resampled by
    ``template_idx`` (R × T) when given."""
    base = 0.0 if baseline is None else baseline
    if template_idx is not None:
        rows = np.take_along_axis(rows, template_idx, axis=1)
        if baseline is not None and not np.isscalar(baseline):
            base = np.take_along_axis(np.broadcast_to(np.asarray(baseline, dtype=float), rows.shape), template_idx, 1)
    mu, sig, sh, degen = sharpe_matrix(rows, base, ddof, alpha, floor_mode, n_docs)
    valid = np.isfinite(mu)
    return {
        "mean": percentile_ci(mu),
        "std": percentile_ci(sig),
        "sharpe": percentile_ci(sh) if baseline is not None else None,
        "quantiles": [percentile_ci(q) for q in np.quantile(rows, QUANTILE_LEVELS, axis=1)],
        "frac_degenerate": float(degen[valid].mean()) if valid.any() else None,
    }


def _information(est: RowEstimate, full_run: np.ndarray, pop: dict, stat_args: tuple) -> dict:
    """What the estimate rests on: per statistic the share of its population interval's width owed to the
    unobserved cells ((full-run width / population width)², about the share of the variance), and per fitted
    variance component the prior contraction 1 − Var(posterior)/Var(prior) (near 1: the cells pin it; below 0.5:
    it rests mostly on the prior) — ``rests_on_prior`` lists those below 0.5."""
    full = _stat_intervals(full_run, *stat_args)

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
                if v < 0.5:
                    weak.append(name)
    return {
        "imputation_share": {k: share(k) for k in ("mean", "std", "sharpe")},
        "prior_contraction": contraction,
        "rests_on_prior": weak,
    }


# ============================================================================================ the population fit
# The population estimator's cell-model fit: a Gibbs sampler for the two-way model with template covariates.
#
# Model of one cell matrix (observed cells i = (t, d); :func:`lm_eval_enterprise.sharpe.sparse.fit_two_way` fits the
# same model by Laplace-approximate empirical Bayes, which for 0/1 cells with a few cells per template and one or
# two per document shrinks the variance components — σ of a population came out 20–50 % low, docs/populations.md):
#
#     y_i ~ Binomial(n_i, logistic(η_i))   or   y_i ~ N(η_i, φ)          η_i = a_t + b_d
#     a_t ~ N(c + x_t·β, σ_a²)     b_d ~ N(0, τ²)
#     β_j ~ N(0, s²) for the weak (one-hot axis) columns, s shared;  β_j ~ N(0, κ²) for the strong columns
#     σ_a ~ N⁺(0, A²),  τ ~ N⁺(0, B²),  s ~ N⁺(0, C²)  (half-normal),  c flat,  p(φ) ∝ 1/φ
#
# with the prior scales of :data:`PRIOR_SCALES` times the effect scale (1 on the logit scale, the observed std of
# the values for the additive model). The posterior is sampled, not approximated at its mode, so the variance
# components carry their full uncertainty into the imputed cells:
#
# * Pólya-Gamma augmentation (Polson, Scott & Windle 2013): given ω_i ~ PG(n_i, η_i) every conditional of the effects
#   is Gaussian, with pseudo-observations κ_i/ω_i (κ_i = y_i − n_i/2) of precision ω_i; ω is drawn by
#   :func:`pg_draw`. The additive model has ω_i = 1/φ, κ_i = y_i/φ.
# * a | rest and b | rest: independent Gaussians per template / per document; (c, β) | a: a Bayesian ridge
#   regression of a on [1, x].
# * every scale (σ_a, τ, s) by interweaving (ASIS, Yu & Meng 2011) a centred step — σ² | effects by Metropolis with
#   the inverse-gamma proposal of the flat prior, accepted with probability exp(−(σ'² − σ²)/(2A²)) — and a
#   non-centred step — σ | standardised effects, data, Gaussian under the half-normal prior (Frühwirth-Schnatter &
#   Wagner 2010) — so the chain mixes whether the data pin the effects down (many cells per template) or not.
#
# Pure numpy; deterministic for a given generator.
PRIOR_SCALES = {"sigma_a": 1.0, "tau": 2.0, "axis": 1.0, "strong": 1.0}
REJECT_CANDIDATES = 8
COLLAPSE_CELLS = 1.5  # at most this many observed cells per document (on average): the collapsed τ step


@dataclass(frozen=True)
class SamplerSettings:
    """Length of the chain: ``burn`` iterations discarded, then ``keep`` draws kept every ``thin`` iterations."""

    burn: int = 500
    keep: int = 500
    thin: int = 2
    pg_terms: int = 4


# ============================================================================================ Pólya-Gamma
def _pg_moments(b: np.ndarray, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and variance of PG(b, z): E = b·tanh(z/2)/(2z), Var = b·(sinh z − z)/(4z³·cosh²(z/2)) (b/4 and b/24
    at z = 0)."""
    z = np.minimum(np.abs(z), 40.0)
    small = z < 1e-3
    zs = np.where(small, 1.0, z)
    mean = np.where(small, b * (0.25 - z**2 / 48), b * np.tanh(zs / 2) / (2 * zs))
    diff = np.where(small, z**3 / 6 + z**5 / 120, np.sinh(zs) - zs)
    var = np.where(small, b * (1 / 24 - z**2 / 120), b * 2 * diff / (4 * zs**3 * (np.cosh(zs) + 1)))
    return mean, var


def pg_draw(rng: np.random.Generator, b: np.ndarray, z: np.ndarray, terms: int = 4) -> np.ndarray:
    """Draws of PG(b, z) (b > 0, elementwise): the first ``terms`` terms of its series
    ω = Σ_k g_k / (2π²((k − ½)² + z²/(4π²))), g_k ~ Gamma(b, 1), exactly, and the rest of the series by a gamma
    variable with its exact mean and variance (the tail is a sum of many small gamma terms: its shape is about
    3·b·terms, close to normal)."""
    b = np.broadcast_to(np.asarray(b, dtype=float), np.shape(z))
    z = np.asarray(z, dtype=float)
    z2 = (np.minimum(np.abs(z), 40.0) / (2 * math.pi)) ** 2
    out = np.zeros(z.shape)
    head_mean = np.zeros(z.shape)
    head_var = np.zeros(z.shape)
    ones = bool(np.all(b == 1.0))  # 0/1 cells: Gamma(1, 1) is the (faster) exponential
    for k in range(1, terms + 1):
        d = 2 * math.pi**2 * ((k - 0.5) ** 2 + z2)
        out += (rng.standard_exponential(z.shape) if ones else rng.standard_gamma(b)) / d
        head_mean += b / d
        head_var += b / d**2
    mean, var = _pg_moments(b, z)
    tail_mean = np.maximum(mean - head_mean, 1e-12)
    tail_var = np.maximum(var - head_var, 1e-16)
    return out + rng.standard_gamma(tail_mean**2 / tail_var) * (tail_var / tail_mean)


# ============================================================================================ the sampler
def _scale_centred(rng, v: float, ss: float, n: int, prior: float) -> float:
    """σ² | effects (n of them, sum of squares ``ss``) under the half-normal prior N⁺(0, prior²) on σ: Metropolis
    with the flat-prior proposal IG((n − 1)/2, ss/2)."""
    if n < 2 or ss <= 0:
        return v
    prop = (ss / 2) / rng.standard_gamma((n - 1) / 2)
    return prop if math.log(rng.random()) < -(prop - v) / (2 * prior**2) else v


def _scale_noncentred(rng, u: np.ndarray, resid: np.ndarray, w: np.ndarray, prior: float) -> float:
    """The signed scale σ of η = offset + σ·u given the Pólya-Gamma pseudo-data (``resid`` = κ − ω·offset, ``w`` =
    ω): Gaussian with precision Σ ω u² + 1/prior² (half-normal prior on |σ|)."""
    prec = float(w @ (u * u)) + 1 / prior**2
    return float(u @ resid) / prec + rng.standard_normal() / math.sqrt(prec)


GH_NODES, GH_WEIGHTS = np.polynomial.hermite.hermgauss(16)
LOG_GH = np.log(GH_WEIGHTS / math.sqrt(math.pi))


def _cell_loglik(eta, yi, ni, binomial: bool, phi: float):
    """log p(y_i | η) up to constants: y·η − n·log(1 + e^η), or −(y − η)²/(2φ)."""
    if not binomial:
        return -0.5 * (yi - eta) ** 2 / phi
    return yi * eta - ni * (np.maximum(eta, 0.0) + np.log1p(np.exp(-np.abs(eta))))  # log(1 + e^η), stable


def _doc_marginal(a_i, yi, ni, di, d_n: int, tau: float, binomial: bool, phi: float) -> np.ndarray:
    """log ∫ Π_{i∈d} p(y_i | a_i + b) N(b; 0, τ²) db per document: Gauss–Hermite (16 nodes) for the binomial
    family, exact for the additive one (compound-symmetric normal: log-det (n−1)·log φ + log(φ + nτ²), quadratic
    form (Σr² − τ²(Σr)²/(φ + nτ²))/φ)."""
    if binomial:
        g = len(GH_NODES)
        eta = a_i[:, None] + math.sqrt(2) * tau * GH_NODES[None, :]
        ll = _cell_loglik(eta, yi[:, None], ni[:, None], True, phi)
        grid = np.bincount((di[:, None] * g + np.arange(g)).ravel(), ll.ravel(), d_n * g).reshape(d_n, g) + LOG_GH
        top = grid.max(1)
        return top + np.log(np.exp(grid - top[:, None]).sum(1))
    r = yi - a_i
    n = np.bincount(di, minlength=d_n)
    s1, s2 = np.bincount(di, r, d_n), np.bincount(di, r * r, d_n)
    v = phi + n * tau**2
    return -0.5 * ((n - 1) * math.log(phi) + np.log(v) - math.log(phi) + (s2 - tau**2 * s1**2 / v) / phi)


def _draw_doc_effects(rng, tau: float, a_i, yi, ni, di, d_n: int, binomial: bool, phi: float, b_old) -> np.ndarray:
    """Exact draws of b_d | τ, a, y per document: the additive model's normal conditional; for the binomial family
    rejection sampling from the prior N(0, τ²) with the document's likelihood over its maximum (Newton; 1 for a
    document whose cells are all at one bound). A document not accepted within 25 rounds of 8 candidates keeps its old effect."""
    if not binomial:
        n = np.bincount(di, minlength=d_n)
        prec = n / phi + 1 / tau**2
        return np.bincount(di, yi - a_i, d_n) / phi / prec + rng.standard_normal(d_n) / np.sqrt(prec)
    n_d, y_d = np.bincount(di, ni, d_n), np.bincount(di, yi, d_n)
    mixed = (y_d > 0) & (y_d < n_d)
    top = np.zeros(d_n)
    for _ in range(8 if mixed.any() else 0):
        p = 1 / (1 + np.exp(-(a_i + top[di])))
        grad = y_d - np.bincount(di, ni * p, d_n)
        hess = np.bincount(di, ni * p * (1 - p), d_n) + 1e-12
        top = np.where(mixed, top + np.clip(grad / hess, -2.0, 2.0), top)
    lmax = np.where(mixed, np.bincount(di, _cell_loglik(a_i + top[di], yi, ni, True, phi), d_n), 0.0)
    b = np.array(b_old, dtype=float)
    pending = np.ones(d_n, bool)
    for _ in range(25):  # REJECT_CANDIDATES candidates per pending document and round; the first accepted one
        idx = np.flatnonzero(pending)
        pos = np.full(d_n, -1)
        pos[idx] = np.arange(len(idx))
        sel = pending[di]
        cand = tau * rng.standard_normal((len(idx), REJECT_CANDIDATES))
        ll = _cell_loglik(a_i[sel, None] + cand[pos[di[sel]]], yi[sel, None], ni[sel, None], True, phi)
        flat = (pos[di[sel]][:, None] * REJECT_CANDIDATES + np.arange(REJECT_CANDIDATES)).ravel()
        ll = np.bincount(flat, ll.ravel(), len(idx) * REJECT_CANDIDATES).reshape(len(idx), -1)
        ok = np.log(rng.random(ll.shape)) < ll - lmax[idx, None]
        hit = ok.any(1)
        b[idx[hit]] = cand[hit, ok[hit].argmax(1)]
        pending[idx[hit]] = False
        if not pending.any():
            break
    return b


def _tau_collapsed(rng, tau: float, step: float, a_i, yi, ni, di, d_n, binomial, phi, prior) -> tuple[float, bool]:
    """Random-walk Metropolis on log τ with the document effects integrated out (:func:`_doc_marginal`), under the
    half-normal prior: the move that lets τ travel when each document has one or two cells (then the effects barely
    pin τ and the conditional steps crawl)."""
    new = tau * math.exp(step * rng.standard_normal())
    cur = _doc_marginal(a_i, yi, ni, di, d_n, tau, binomial, phi).sum()
    prop = _doc_marginal(a_i, yi, ni, di, d_n, new, binomial, phi).sum()
    log_r = prop - cur - (new**2 - tau**2) / (2 * prior**2) + math.log(new / tau)
    return (new, True) if math.log(rng.random()) < log_r else (tau, False)


def sample_two_way(
    y: np.ndarray,
    m: np.ndarray,
    family: str,
    trials: np.ndarray | None,
    x: np.ndarray | None,
    strong: np.ndarray | None,
    scale: float,
    rng: np.random.Generator,
    settings: SamplerSettings = SamplerSettings(),
) -> dict:
    """Posterior draws of the module's model for the observed cells (``m`` > 0) of a T × D matrix ``y`` (binomial:
    successes of ``trials``, default 1; ``gaussian``: values). ``x``: T × p centred covariates (None: none),
    ``strong``: which columns get the fixed prior. Returns arrays of ``keep`` draws: ``a`` (keep × T, the full
    template effects, c included), ``b`` (keep × D), ``sigma_a``, ``tau``, ``axis_sd``, ``phi``, ``c`` and the
    acceptance rates of the centred steps."""
    t_n, d_n = m.shape
    ti, di = np.nonzero(m > 0)
    yi = y[ti, di].astype(float)
    ni = np.ones(len(yi)) if trials is None else np.broadcast_to(trials, y.shape)[ti, di].astype(float)
    binomial = family == "binomial"
    x = np.zeros((t_n, 0)) if x is None else np.asarray(x, dtype=float)
    strong = np.zeros(x.shape[1], bool) if strong is None else np.asarray(strong, bool)
    weak = ~strong
    z_mat = np.column_stack([np.ones(t_n), x])
    p = z_mat.shape[1]
    ztz = z_mat.T @ z_mat
    prior_a, prior_t, prior_s = (PRIOR_SCALES[k] * scale for k in ("sigma_a", "tau", "axis"))
    prior_strong = PRIOR_SCALES["strong"] * scale
    # start: the overall level, no effects
    if binomial:
        rate = (yi.sum() + 0.5) / (ni.sum() + 1.0)
        level = math.log(rate / (1 - rate))
    else:
        level = float(yi.mean())
    a = np.full(t_n, level)
    b = np.zeros(d_n)
    coef = np.zeros(p)
    coef[0] = level
    sa2, tau2, s2, phi = (0.5 * scale) ** 2, (1.0 * scale) ** 2, (0.5 * scale) ** 2, scale**2
    if not binomial:
        phi = max(float(np.var(yi)), 1e-8 * scale**2)
    keep_n = settings.keep
    out = {k: np.empty((keep_n, n)) for k, n in (("a", t_n), ("b", d_n))}
    for k in ("sigma_a", "tau", "axis_sd", "phi", "c"):
        out[k] = np.empty(keep_n)
    accepted = np.zeros(3)
    step = 0.3  # random-walk step of log τ (adapted while burning in)
    # one or two cells per document barely pin the document effects: τ then also moves with them integrated out
    seen = np.bincount(di, minlength=d_n)
    collapse = float(seen[seen > 0].mean()) <= COLLAPSE_CELLS if len(di) else False
    total = settings.burn + keep_n * settings.thin
    for it in range(total):
        eta = a[ti] + b[di]
        if binomial:
            w = pg_draw(rng, ni, eta, settings.pg_terms)
            kappa = yi - ni / 2
        else:
            w = np.full(len(yi), 1 / phi)
            kappa = yi / phi
        # template effects
        mean_a = z_mat @ coef
        prec = np.bincount(ti, w, t_n) + 1 / sa2
        num = np.bincount(ti, kappa - w * b[di], t_n) + mean_a / sa2
        a = num / prec + rng.standard_normal(t_n) / np.sqrt(prec)
        # document effects
        prec = np.bincount(di, w, d_n) + 1 / tau2
        num = np.bincount(di, kappa - w * a[ti], d_n)
        b = num / prec + rng.standard_normal(d_n) / np.sqrt(prec)
        # intercept and covariate coefficients
        lam = np.r_[1e-6, np.where(strong, 1 / prior_strong**2, 1 / s2)]
        prec_c = ztz / sa2 + np.diag(lam)
        chol = np.linalg.cholesky(prec_c)
        mean_c = np.linalg.solve(prec_c, z_mat.T @ a / sa2)
        coef = mean_c + np.linalg.solve(chol.T, rng.standard_normal(p))
        # σ_a: centred, then non-centred
        mean_a = z_mat @ coef
        resid_a = a - mean_a
        new = _scale_centred(rng, sa2, float(resid_a @ resid_a), t_n, prior_a)
        accepted[0] += new != sa2
        sa2 = new
        e = resid_a / math.sqrt(sa2)
        u = e[ti]
        sig = _scale_noncentred(rng, u, kappa - w * (mean_a[ti] + b[di]), w, prior_a)
        a = mean_a + sig * e
        sa2 = max(sig * sig, 1e-12 * scale**2)
        # τ: centred, then non-centred
        new = _scale_centred(rng, tau2, float(b @ b), d_n, prior_t)
        accepted[1] += new != tau2
        tau2 = new
        f = b / math.sqrt(tau2)
        sig = _scale_noncentred(rng, f[di], kappa - w * a[ti], w, prior_t)
        b = sig * f
        tau2 = max(sig * sig, 1e-12 * scale**2)
        if collapse:  # τ with the document effects integrated out, then the document effects afresh
            tau, moved = _tau_collapsed(rng, math.sqrt(tau2), step, a[ti], yi, ni, di, d_n, binomial, phi, prior_t)
            tau2 = tau * tau
            b = _draw_doc_effects(rng, tau, a[ti], yi, ni, di, d_n, binomial, phi, b)
            if it < settings.burn:  # adapt the step towards an acceptance of about 0.4 while burning in
                step *= math.exp((moved - 0.4) / math.sqrt(it + 1))
        # the shared prior sd of the weak covariate columns
        if weak.any():
            bw = coef[1:][weak]
            new = _scale_centred(rng, s2, float(bw @ bw), int(weak.sum()), prior_s)
            accepted[2] += new != s2
            s2 = new
            xs = x[:, weak] @ (bw / math.sqrt(s2))
            rest = a - z_mat @ coef + xs * math.sqrt(s2)  # a − c − strong part
            prec_s = float(xs @ xs) / sa2 + 1 / prior_s**2
            sig = float(xs @ rest) / sa2 / prec_s + rng.standard_normal() / math.sqrt(prec_s)
            coef[1:][weak] = bw / math.sqrt(s2) * sig
            s2 = max(sig * sig, 1e-12 * scale**2)
        if not binomial:
            res = yi - (a[ti] + b[di])
            phi = float(res @ res) / 2 / rng.standard_gamma(len(yi) / 2)
        if it >= settings.burn and (it - settings.burn) % settings.thin == 0:
            j = (it - settings.burn) // settings.thin
            out["a"][j], out["b"][j] = a, b
            out["sigma_a"][j], out["tau"][j], out["axis_sd"][j] = math.sqrt(sa2), math.sqrt(tau2), math.sqrt(s2)
            out["phi"][j], out["c"][j] = phi, coef[0]
    out["acceptance"] = accepted / total
    return out


def effective_draws(chain: np.ndarray) -> float:
    """Effective sample size of a chain (initial positive sequence of autocorrelations, Geyer 1992)."""
    x = np.asarray(chain, dtype=float)
    n = len(x)
    if n < 4 or np.var(x) <= 0:
        return float(n)
    x = x - x.mean()
    f = np.fft.rfft(x, 2 * n)
    acf = np.fft.irfft(f * np.conj(f))[:n] / (np.arange(n, 0, -1) * np.var(x))
    s = 0.0
    for k in range(0, n - 1, 2):  # Γ_m = ρ_2m + ρ_2m+1 while positive; τ = −1 + 2 Σ Γ_m
        pair = acf[k] + acf[k + 1]
        if pair <= 0:
            break
        s += pair
    return float(n / max(1.0, 2 * s - 1))
