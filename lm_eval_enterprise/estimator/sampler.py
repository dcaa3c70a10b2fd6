"""The population estimator's cell-model fit: a Gibbs sampler for the two-way model with template covariates.

Model of one cell matrix (observed cells i = (t, d); :func:`.twoway.fit_two_way` fits the
same model by Laplace-approximate empirical Bayes, which for 0/1 cells with a few cells per template and one or
two per document shrinks the variance components — σ of a population came out 20–50 % low, docs/populations.md):

    y_i ~ Binomial(n_i, (1 − z_t)·logistic(η_i))  or  y_i = clip(y*_i, lo, hi), y*_i ~ N(η_i, φ)     η_i = a_t + b_d
    a_t ~ N(c + x_t·β, σ_a²)    b_d ~ N(0, τ²)    z_t ~ Bernoulli(π), π ~ Beta(½, ½)  (binomial: broken templates)
    β_j ~ N(0, s²) for the weak (one-hot axis) columns, s shared;  β_j ~ N(0, κ²) for the strong columns
    σ_a ~ N⁺(0, A²),  τ ~ N⁺(0, B²),  s ~ N⁺(0, C²),  √φ ~ N⁺(0, E²)  (half-normal),  c flat

with the prior scales of :data:`PRIOR_SCALES` times the effect scale (1 on the logit scale, the observed std of
the values for the additive model). The posterior is sampled, not approximated at its mode, so the variance
components carry their full uncertainty into the imputed cells:

* Pólya-Gamma augmentation (Polson, Scott & Windle 2013): given ω_i ~ PG(n_i, η_i) every conditional of the effects
  is Gaussian, with pseudo-observations κ_i/ω_i (κ_i = y_i − n_i/2) of precision ω_i; ω is drawn by
  :func:`pg_draw`. The additive model has ω_i = 1/φ, κ_i = y_i/φ.
* the additive model is censored at its range (a Tobit model): a value at a bound (a ROUGE of 0, an exact match's
  1) says only that y* lies beyond it, and its latent y* is drawn from N(η_i, φ) truncated there on every
  iteration (:func:`censored_draws`, data augmentation, Chib 1992) — the same clip(η + noise) the imputed cells
  are drawn from, so the fit does not count the atoms at the bounds into the additive effects;
* a | rest and b | rest: independent Gaussians per template / per document; (c, β) | a: a Bayesian ridge
  regression of a on [1, x].
* zero inflation (binomial family, ``broken``): a template whose output nothing parses never succeeds, which no
  normal template effect reproduces — the Rasch model alone imputes its unobserved cells a small positive rate and
  puts the lowest quantile of the template scores above 0, confidently. A template whose observed cells are all
  failures is broken (z_t = 1) with probability π / (π + (1 − π)·L_t), L_t the chance that a working template
  with its prior fails on all its cells; (z_t, a_t) are drawn jointly with a_t integrated out (:func:`_broken_step`),
  π from its Beta conditional; a broken template's cells leave the other steps, and in a draw where it is broken
  its unobserved cells are failures.
* every scale (σ_a, τ, s) by interweaving (ASIS, Yu & Meng 2011) a centred step — σ² | effects by Metropolis with
  the inverse-gamma proposal of the flat prior, accepted with probability exp(−(σ'² − σ²)/(2A²)) — and a
  non-centred step — σ | standardised effects, data, Gaussian under the half-normal prior (Frühwirth-Schnatter &
  Wagner 2010) — so the chain mixes whether the data pin the effects down (many cells per template) or not.
* with one or two cells per document (a single run) τ also moves with the document effects integrated out
  (:func:`_tau_collapsed`), and in the additive model so does the split of a cell's variance τ² + φ between
  document and noise (:func:`_split_collapsed`), which one cell per document cannot identify: a proper prior on
  √φ and that move keep the chain from settling at φ → 0, where the imputed cells would carry no noise and the
  intervals would be too narrow (docs/populations.md).

Pure numpy; deterministic for a given generator.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache

import numpy as np
from scipy.special import ndtr, ndtri

from .twoway import TwoWayFit, centred_covariates, constant_outcome, fit_two_way, range_and_scale

PRIOR_SCALES = {"sigma_a": 1.0, "tau": 2.0, "axis": 1.0, "strong": 1.0, "noise": 1.0}
REJECT_CANDIDATES = 8
TWO_CLASS_PART = 0.5  # prior scale of each of the four parts of a class's template effect (sample_two_class)
TWO_CLASS_DF = 3  # their half-t priors' degrees of freedom: a template that never answers a class stays possible
COLLAPSE_CELLS = 1.5  # at most this many observed cells per document (on average): the collapsed τ step
SPLIT_STEP = 1.0  # random-walk step of logit ρ in the additive model's collapsed split of τ² + φ (_split_collapsed)
BROKEN_PRIOR = (0.5, 0.5)  # Beta prior of the share π of broken templates (Jeffreys)
BROKEN_GRID = np.linspace(-8.0, 8.0, 321)  # a candidate's template effect in prior sds around its prior mean


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


def censored_draws(rng, eta: np.ndarray, sd: float, below: np.ndarray) -> np.ndarray:
    """Draws of y* ~ N(η, sd²) truncated to y* ≤ 0 where ``below``, else to y* ≥ 0 (``eta`` already measured from the
    bound: η − lo, resp. η − hi), by the inverse CDF: with p = P(beyond the bound) = Φ(∓η/sd),
    y* = η ± sd·Φ⁻¹(u·p), u ~ U(0, 1]. Returns y* − bound."""
    sign = np.where(below, 1.0, -1.0)
    p = ndtr(-sign * eta / sd)
    u = np.maximum((1.0 - rng.random(len(eta))) * p, 1e-300)
    return eta + sign * sd * np.minimum(ndtri(u), -sign * eta / sd)


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
    return -0.5 * ((n - 1) * math.log(phi) + np.log(v) + (s2 - tau**2 * s1**2 / v) / phi)


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


def _split_collapsed(rng, tau, phi, a_i, yi, ni, di, d_n, prior_t, prior_n, step=SPLIT_STEP) -> tuple[float, float]:
    """The additive model's split of a cell's variance between its document and its noise, v = τ² + φ held, moved
    with the document effects integrated out (:func:`_doc_marginal`): with one cell per document only v is
    identified, and τ and φ, each drawn given the other, crawl along τ² + φ = v. Random walk on logit ρ, ρ = τ²/v,
    under the half-normal priors τ ~ N⁺(0, B²) and √φ ~ N⁺(0, E²) (``prior_t``, ``prior_n``); the map
    (τ, √φ) → (v, ρ) has Jacobian 1/(4√(ρ(1 − ρ))) and the logit walk ρ(1 − ρ), so
    log r = Δ log L − Δτ²/(2B²) − Δφ/(2E²) + ½ Δ log(ρ(1 − ρ)). Returns (τ, φ)."""
    v = tau * tau + phi
    rho = tau * tau / v
    new_rho = 1 / (1 + math.exp(-(math.log(rho / (1 - rho)) + step * rng.standard_normal())))
    new_tau, new_phi = math.sqrt(new_rho * v), (1 - new_rho) * v
    cur = _doc_marginal(a_i, yi, ni, di, d_n, tau, False, phi).sum()
    prop = _doc_marginal(a_i, yi, ni, di, d_n, new_tau, False, new_phi).sum()
    log_prior = -(new_tau**2 - tau**2) / (2 * prior_t**2) - (new_phi - phi) / (2 * prior_n**2)
    log_r = prop - cur + log_prior + 0.5 * math.log(new_rho * (1 - new_rho) / (rho * (1 - rho)))
    return (new_tau, new_phi) if math.log(rng.random()) < log_r else (tau, phi)


def _broken_candidates(ti, yi, ni, t_n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The templates whose observed cells are all failures (candidates for :func:`_broken_step`), their cells'
    indices and trials, candidates × cells padded with index 0 and 0 trials."""
    cand = np.flatnonzero((np.bincount(ti, yi, t_n) == 0) & (np.bincount(ti, minlength=t_n) > 0))
    per = [np.flatnonzero(ti == t) for t in cand]
    width = max((len(c) for c in per), default=0)
    cells_of = np.array([np.r_[c, np.zeros(width - len(c), int)] for c in per], dtype=int).reshape(len(cand), width)
    n_cells = np.array([np.r_[ni[c], np.zeros(width - len(c))] for c in per]).reshape(len(cand), width)
    return cand, cells_of, n_cells


def _broken_step(rng, pi: float, mean_t, sd: float, b_cells, n_cells) -> tuple[np.ndarray, np.ndarray]:
    """The zero-inflation block of the candidates (templates whose observed cells are all failures), (z_t, a_t)
    jointly with a_t integrated out: each candidate is broken (z_t = 1: it never succeeds) with probability
    π / (π + (1 − π)·L_t), L_t = ∫ Π_i (1 − logistic(a + b_i))^{n_i} N(a; m_t, σ_a²) da the chance that a working
    template with that prior fails on all its observed cells; then a_t | z_t: the prior N(m_t, σ_a²) when broken
    (its cells say nothing about it), else its posterior given the failures. Both on :data:`BROKEN_GRID` (the
    integrand is smooth and monotone in a: 321 points over ±8 sd). ``b_cells``, ``n_cells``: candidates × cells,
    padded with n = 0. Returns (z, a)."""
    a = mean_t[:, None] + sd * BROKEN_GRID[None, :]  # candidates × grid
    eta = a[:, :, None] + b_cells[:, None, :]
    log_fail = _cell_loglik(eta, 0.0, n_cells[:, None, :], True, 1.0).sum(2)  # every observed cell a failure
    log_w = log_fail - 0.5 * BROKEN_GRID**2
    top = log_w.max(1, keepdims=True)
    w = np.exp(log_w - top)
    step = BROKEN_GRID[1] - BROKEN_GRID[0]
    like = np.exp(top[:, 0]) * w.sum(1) * step / math.sqrt(2 * math.pi)  # L_t (Riemann sum)
    z = rng.random(len(mean_t)) < pi / (pi + (1 - pi) * like)
    cdf = np.cumsum(w, 1)
    j = (cdf < rng.random((len(mean_t), 1)) * cdf[:, -1:]).sum(1)
    working = a[np.arange(len(mean_t)), j] + sd * step * (rng.random(len(mean_t)) - 0.5)
    return z, np.where(z, mean_t + sd * rng.standard_normal(len(mean_t)), working)


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
    bounds: tuple[float, float] = (-math.inf, math.inf),
    broken: bool = False,
) -> dict:
    """Posterior draws of the module's model for the observed cells (``m`` > 0) of a T × D matrix ``y`` (binomial:
    successes of ``trials``, default 1; ``gaussian``: values, censored at ``bounds``: a value at a bound is a latent
    value beyond it). ``x``: T × p centred covariates (None: none),
    ``strong``: which columns get the fixed prior. Returns arrays of ``keep`` draws: ``a`` (keep × T, the full
    template effects, c included), ``b`` (keep × D), ``sigma_a``, ``tau``, ``axis_sd``, ``phi``, ``c``, ``broken``
    (keep × T: which templates are broken in the draw; all False unless ``broken``, the zero inflation of the
    binomial family, :func:`_broken_step`) and the acceptance rates of the centred steps."""
    t_n, d_n = m.shape
    ti, di = np.nonzero(m > 0)
    yi = y[ti, di].astype(float)
    ni = np.ones(len(yi)) if trials is None else np.broadcast_to(trials, y.shape)[ti, di].astype(float)
    binomial = family == "binomial"
    lo, hi = bounds
    below, above = (yi <= lo, yi >= hi) if not binomial else (np.zeros(len(yi), bool),) * 2
    censored = below | above
    bound_of = np.where(below, lo, hi)[censored]
    y_obs = yi
    x = np.zeros((t_n, 0)) if x is None else np.asarray(x, dtype=float)
    strong = np.zeros(x.shape[1], bool) if strong is None else np.asarray(strong, bool)
    weak = ~strong
    z_mat = np.column_stack([np.ones(t_n), x])
    p = z_mat.shape[1]
    ztz = z_mat.T @ z_mat
    prior_a, prior_t, prior_s, prior_n = (PRIOR_SCALES[k] * scale for k in ("sigma_a", "tau", "axis", "noise"))
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
    # zero inflation: the templates whose observed cells are all failures may be broken (never succeed)
    cand, cells_of, n_cells = _broken_candidates(ti, yi, ni, t_n) if broken and binomial else (np.zeros(0, int),) * 3
    z = np.zeros(t_n, bool)
    act = np.ones(len(yi), bool)  # the cells of working templates
    pi = BROKEN_PRIOR[0] / sum(BROKEN_PRIOR)
    out["broken"] = np.zeros((keep_n, t_n), bool)
    total = settings.burn + keep_n * settings.thin
    for it in range(total):
        eta = a[ti] + b[di]
        if binomial:
            w = pg_draw(rng, ni, eta, settings.pg_terms)
            kappa = yi - ni / 2
            if z.any():  # a broken template's cells say nothing about the effects
                act = ~z[ti]
                w, kappa = w * act, kappa * act
        else:
            if censored.any():  # the latent values of the cells at a bound
                yi = y_obs.copy()
                yi[censored] = bound_of + censored_draws(rng, eta[censored] - bound_of, math.sqrt(phi), below[censored])
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
            cells = (a[ti], yi, ni, di) if act.all() else (a[ti][act], yi[act], ni[act], di[act])
            tau, moved = _tau_collapsed(rng, math.sqrt(tau2), step, *cells, d_n, binomial, phi, prior_t)
            if not binomial:
                tau, phi = _split_collapsed(rng, tau, phi, *cells, d_n, prior_t, prior_n)
            tau2 = tau * tau
            b = _draw_doc_effects(rng, tau, *cells, d_n, binomial, phi, b)
            if it < settings.burn:  # adapt the step towards an acceptance of about 0.4 while burning in
                step *= math.exp((moved - 0.4) / math.sqrt(it + 1))
        # the shared prior sd of the weak covariate columns
        if weak.any():
            bw = coef[1:][weak]
            rest = a - z_mat @ coef + x[:, weak] @ bw  # a − c − strong part
            coef[1:][weak], s2, moved = _shared_sd(rng, bw, s2, x[:, weak], rest, sa2, prior_s, 1e-12 * scale**2)
            accepted[2] += moved
        if not binomial:
            res = yi - (a[ti] + b[di])
            phi = max(_scale_centred(rng, phi, float(res @ res), len(yi), prior_n), 1e-12 * scale**2)
        if len(cand):  # which candidates are broken, their effects, and the share π ~ Beta
            zc, a[cand] = _broken_step(rng, pi, (z_mat @ coef)[cand], math.sqrt(sa2), b[di[cells_of]], n_cells)
            z[cand] = zc
            pi = rng.beta(BROKEN_PRIOR[0] + z.sum(), BROKEN_PRIOR[1] + t_n - z.sum())
            act = ~z[ti]
        if it >= settings.burn and (it - settings.burn) % settings.thin == 0:
            j = (it - settings.burn) // settings.thin
            out["a"][j], out["b"][j] = a, b
            out["sigma_a"][j], out["tau"][j], out["axis_sd"][j] = math.sqrt(sa2), math.sqrt(tau2), math.sqrt(s2)
            out["phi"][j], out["c"][j] = phi, coef[0]
            out["broken"][j] = z
    out["acceptance"] = accepted / total
    return out


def _two_by_two_draws(rng, a11, a12, a22, r1, r2) -> tuple[np.ndarray, np.ndarray]:
    """Draws of (u, v) ~ N(A⁻¹r, A⁻¹) per row for the symmetric positive-definite 2 × 2 precisions
    A = [[a11, a12], [a12, a22]] (vectors): mean by Cramer's rule, noise L⁻ᵀz with A = LLᵀ (Cholesky)."""
    det = a11 * a22 - a12 * a12
    l11 = np.sqrt(a11)
    l21 = a12 / l11
    l22 = np.sqrt(np.maximum(a22 - l21 * l21, 1e-300))
    z1, z2 = rng.standard_normal(len(a11)), rng.standard_normal(len(a11))
    v = z2 / l22
    return (a22 * r1 - a12 * r2) / det + (z1 - l21 * v) / l11, (a11 * r2 - a12 * r1) / det + v


def _shared_sd(rng, coef, s2, x, rest, sa2, prior_s, floor=1e-12):
    """The shared prior sd s of coefficients β_j ~ N(0, s²) whose fit x·β explains ``rest`` with noise variance
    ``sa2``: the centred step (:func:`_scale_centred` on Σβ²), then the non-centred one (β = s·u, s | u Gaussian
    under the half-normal prior). Returns (β, s², whether the centred step moved)."""
    new = _scale_centred(rng, s2, float(coef @ coef), len(coef), prior_s)
    xs = x @ (coef / math.sqrt(new))
    prec_s = float(xs @ xs) / sa2 + 1 / prior_s**2
    sig = float(xs @ rest) / sa2 / prec_s + rng.standard_normal() / math.sqrt(prec_s)
    return coef / math.sqrt(new) * sig, max(sig * sig, floor), new != s2


def _axis_part(rng, s2, effects, x, sa2, prior_s):
    """The axis coefficients β | effects ~ N(x·β, σ²) with β_j ~ N(0, s²) (a ridge regression), then their shared sd
    s (:func:`_shared_sd`); returns (β, s²)."""
    p = x.shape[1]
    prec = x.T @ x / sa2 + np.eye(p) / s2
    chol = np.linalg.cholesky(prec)
    coef = np.linalg.solve(prec, x.T @ effects / sa2) + np.linalg.solve(chol.T, rng.standard_normal(p))
    coef, s2, _ = _shared_sd(rng, coef, s2, x, effects, sa2, prior_s)
    return coef, s2


def sample_two_class(
    y: np.ndarray,
    m: np.ndarray,
    sign: np.ndarray,
    x: np.ndarray | None,
    rng: np.random.Generator,
    settings: SamplerSettings = SamplerSettings(),
) -> dict:
    """Posterior draws of the two-class model of 0/1 correctness (a binary classification's two gold classes, the
    documents' ``sign`` +1 or −1; observed cells ``m`` > 0 of the T × D matrix ``y``):

        y_i ~ Bernoulli(logistic(η_i)),   η_i = c_k(d) + sign_d·θ_t + δ_t + b_d
        θ_t ~ N(x_t·β_θ, σ_θ²)   the template's label bias: raises one class's accuracy and lowers the other's
        δ_t ~ N(x_t·β_δ, σ_δ²)   its skill: raises both
        β_θ,j ~ N(0, s_θ²), β_δ,j ~ N(0, s_δ²);  b_d ~ N(0, τ_k²) per class;  c_k flat

    with a half-normal prior on τ_k and half-t priors (:data:`TWO_CLASS_DF` degrees of freedom, as half-normal
    scale mixtures with a Gibbs step for the mixing variable) on the sd of each of the four parts of a class's
    template effect — the label bias's and the skill's axis parts (x·β over the templates: s·sqrt(Σ_j var x_j)) and
    their template noise (σ_θ, σ_δ) — of scale :data:`TWO_CLASS_PART` × the one-class prior scale: a class's total
    template variance has a prior scale of the one-class σ_a's (1 on the logit scale) spread evenly over its parts,
    and the heavy tail lets the data reach large effects (a template that never answers the rare class) that a
    half-normal of that scale would forbid. (The one-class
    model's per-column axis prior implies an axis variance of Σ_j var x_j ≈ 5.5 for securenlp's 31 columns, far
    above any measured one: with a cell or two per template the imputed effects spread that widely.) A class's template effects
    a_kt = c_k + sign_k·θ_t + δ_t are thereby correlated across the classes, with a correlation the data set:
    a template's answers on the common class, which a sparse design observes often, inform its accuracy on the
    rare one (fitted apart, the rare class's few cells per template leave its effects to the prior, and the two
    classes' accuracies vary independently over the templates, which spreads F1 too widely). Returns per class k
    (in the order of sign +1, −1) ``a`` (keep × T) and the common ``b`` (keep × D), ``sigma_a`` (keep × 2: the
    classes' template sd), ``tau`` (keep × 2), ``bias_sd``, ``skill_sd``."""
    t_n, d_n = m.shape
    ti, di = np.nonzero(m > 0)
    yi = y[ti, di].astype(float)
    k_doc = (np.asarray(sign) < 0).astype(int)
    sg_doc = np.where(k_doc == 0, 1.0, -1.0)
    ki, sg = k_doc[di], sg_doc[di]
    kappa = yi - 0.5
    ones = np.ones(len(yi))
    x = np.zeros((t_n, 0)) if x is None else np.asarray(x, dtype=float)
    has_x = x.shape[1] > 0
    prior_a = PRIOR_SCALES["sigma_a"] * TWO_CLASS_PART
    # a prior on the sd of the axis part over the templates: s·sqrt(Σ_j var x_j) ~ N⁺(0, (A/2)²)
    prior_s = PRIOR_SCALES["axis"] * TWO_CLASS_PART / math.sqrt(max(float((x**2).sum()) / t_n, 1e-12))
    prior_t = PRIOR_SCALES["tau"]
    cls = [np.flatnonzero(k_doc == k) for k in (0, 1)]
    cells = [np.flatnonzero(ki == k) for k in (0, 1)]
    local = np.zeros(d_n, int)
    for docs in cls:
        local[docs] = np.arange(len(docs))
    collapse = [len(cells[k]) <= COLLAPSE_CELLS * len(cls[k]) for k in (0, 1)]
    c = np.zeros(2)
    for k in (0, 1):
        rate = (yi[cells[k]].sum() + 0.5) / (len(cells[k]) + 1.0)
        c[k] = math.log(rate / (1 - rate))
    th, de, b = np.zeros(t_n), np.zeros(t_n), np.zeros(d_n)
    bth, bde = np.zeros(x.shape[1]), np.zeros(x.shape[1])
    sth2, sde2, s_th, s_de = 0.25, 0.25, 0.25, 0.25
    tau2 = np.ones(2)
    steps = np.full(2, 0.3)
    lam = np.ones(4)  # the four parts' half-t priors as scale mixtures: σ ~ N⁺(0, A²λ), λ ~ IG(ν/2, ν/2)
    keep_n = settings.keep
    out = {"a": np.empty((2, keep_n, t_n)), "b": np.empty((keep_n, d_n))}
    for k in ("sigma_a", "tau"):
        out[k] = np.empty((keep_n, 2))
    for k in ("bias_sd", "skill_sd"):
        out[k] = np.empty(keep_n)
    total = settings.burn + keep_n * settings.thin
    for it in range(total):
        w = pg_draw(rng, ones, c[ki] + sg * th[ti] + de[ti] + b[di], settings.pg_terms)
        # (θ_t, δ_t) jointly per template
        r = kappa - w * (c[ki] + b[di])
        mth, mde = x @ bth, x @ bde
        wt = np.bincount(ti, w, t_n)
        th, de = _two_by_two_draws(
            rng,
            wt + 1 / sth2,
            np.bincount(ti, w * sg, t_n),
            wt + 1 / sde2,
            np.bincount(ti, sg * r, t_n) + mth / sth2,
            np.bincount(ti, r, t_n) + mde / sde2,
        )
        # the class intercepts (flat prior)
        tmpl = sg * th[ti] + de[ti]
        for k in (0, 1):
            sel = cells[k]
            prec = float(w[sel].sum())
            c[k] = float(
                (kappa[sel] - w[sel] * (tmpl[sel] + b[di[sel]])).sum()
            ) / prec + rng.standard_normal() / math.sqrt(prec)
        # axis coefficients and their shared sds
        if has_x:
            bth, s_th = _axis_part(rng, s_th, th, x, sth2, prior_s * math.sqrt(lam[2]))
            bde, s_de = _axis_part(rng, s_de, de, x, sde2, prior_s * math.sqrt(lam[3]))
            mth, mde = x @ bth, x @ bde
        # σ_θ and σ_δ: centred, then non-centred
        for part in ("bias", "skill"):
            eff, mean, v = (th, mth, sth2) if part == "bias" else (de, mde, sde2)
            resid = eff - mean
            pa = prior_a * math.sqrt(lam[0 if part == "bias" else 1])
            v = _scale_centred(rng, v, float(resid @ resid), t_n, pa)
            e = resid / math.sqrt(v)
            load = sg if part == "bias" else 1.0
            offset = c[ki] + b[di] + (sg * mth[ti] + de[ti] if part == "bias" else sg * th[ti] + mde[ti])
            sig = _scale_noncentred(rng, load * e[ti], kappa - w * offset, w, pa)
            eff = mean + sig * e
            v = max(sig * sig, 1e-12)
            if part == "bias":
                th, sth2 = eff, v
            else:
                de, sde2 = eff, v
        # λ | σ ~ IG((ν + 1)/2, (ν + σ²/A²)/2)
        rel = np.array([sth2 / prior_a**2, sde2 / prior_a**2, s_th / prior_s**2, s_de / prior_s**2])
        lam = (TWO_CLASS_DF + rel) / 2 / rng.standard_gamma((TWO_CLASS_DF + 1) / 2, 4)
        # document effects and τ per class
        a_i = c[ki] + sg * th[ti] + de[ti]
        prec = np.bincount(di, w, d_n) + 1 / tau2[k_doc]
        b = np.bincount(di, kappa - w * a_i, d_n) / prec + rng.standard_normal(d_n) / np.sqrt(prec)
        for k in (0, 1):
            docs, sel = cls[k], cells[k]
            new = _scale_centred(rng, tau2[k], float(b[docs] @ b[docs]), len(docs), prior_t)
            f = b[docs] / math.sqrt(new)
            sig = _scale_noncentred(rng, f[local[di[sel]]], kappa[sel] - w[sel] * a_i[sel], w[sel], prior_t)
            b[docs], tau2[k] = sig * f, max(sig * sig, 1e-12)
            if collapse[k]:
                args = (a_i[sel], yi[sel], ones[sel], local[di[sel]], len(docs), True, 1.0)
                tau, moved = _tau_collapsed(rng, math.sqrt(tau2[k]), steps[k], *args, prior_t)
                tau2[k] = tau * tau
                b[docs] = _draw_doc_effects(rng, tau, *args[:-2], True, 1.0, b[docs])
                if it < settings.burn:
                    steps[k] *= math.exp((moved - 0.4) / math.sqrt(it + 1))
        if it >= settings.burn and (it - settings.burn) % settings.thin == 0:
            j = (it - settings.burn) // settings.thin
            out["a"][0, j], out["a"][1, j] = c[0] + th + de, c[1] - th + de
            out["b"][j] = b
            sd = math.sqrt(sth2 + sde2)
            out["sigma_a"][j] = sd, sd
            out["tau"][j] = np.sqrt(tau2)
            out["bias_sd"][j], out["skill_sd"][j] = math.sqrt(sth2), math.sqrt(sde2)
    return out


def half_prior_variance(scale: float, df: float | None = None) -> float:
    """Variance of a half-normal (``df`` None) or half-t(ν = ``df`` > 2) prior of scale A, the priors of the sds:
    half-normal A²(1 − 2/π); half-t A²(ν/(ν − 2) − m²), m = E|t_ν| = 2√ν Γ((ν + 1)/2) / (√π (ν − 1) Γ(ν/2))
    (ν = 3: A²(3 − 12/π²))."""
    if df is None:
        return scale**2 * (1 - 2 / math.pi)
    m = 2 * math.sqrt(df) * math.gamma((df + 1) / 2) / (math.sqrt(math.pi) * (df - 1) * math.gamma(df / 2))
    return scale**2 * (df / (df - 2) - m * m)


def class_correlation(a0: np.ndarray, a1: np.ndarray) -> np.ndarray:
    """Per draw (rows of the S × T template effects of two classes), the correlation over the templates of the two
    classes' effects: Σ_t x_t·y_t / sqrt(Σ x_t² · Σ y_t²), x and y the rows' deviations from their means (0 where a
    row is constant)."""
    x = a0 - a0.mean(1, keepdims=True)
    y = a1 - a1.mean(1, keepdims=True)
    den = np.sqrt((x * x).sum(1) * (y * y).sum(1))
    return np.where(den > 0, (x * y).sum(1) / np.where(den > 0, den, 1.0), 0.0)


@cache
def class_correlation_prior_variance(parts: int) -> float:
    """Prior variance of the correlation of a two-class chain's class effects over the templates
    (:func:`sample_two_class`): with V_θ and V_δ the variances of the label bias and of the skill, each a sum of
    ``parts`` squared sds (template noise, and the axis part with covariates) with iid half-t(:data:`TWO_CLASS_DF`)
    priors of one scale, the correlation is ρ = (V_δ − V_θ)/(V_δ + V_θ), free of that scale. Monte Carlo, 200,000
    draws from a fixed seed (deterministic; its Monte Carlo error is about 0.3 % of the value). The posterior side
    (:func:`class_correlation`) is the correlation over the T templates of each draw, which adds a sampling spread
    of about (1 − ρ²)²/T to ρ's: the contraction reads up to ~0.05 low at T 50, so it names the correlation as
    resting on the prior a little early, never late."""
    rng = np.random.default_rng(0)
    v = [sum(rng.standard_t(TWO_CLASS_DF, 200_000) ** 2 for _ in range(parts)) for _ in range(2)]
    return float(np.var((v[1] - v[0]) / (v[1] + v[0])))


def prior_contraction(chain: np.ndarray, prior_var: float) -> float:
    """1 − Var(posterior draws)/Var(prior): near 1 the cells pin the scale, below ½ it rests mostly on the prior."""
    return float(1 - np.var(chain) / prior_var)


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


# ============================================================================================ sampled fit
@dataclass
class SampledFit(TwoWayFit):
    """A two-way model fitted by Gibbs sampling (:func:`sample_two_way`): ``a_draws`` (S × T, the template effects with the
    intercept), ``b_draws`` (S × D); ``a``/``b`` their posterior means (``c`` 0), ``tau``/``sigma_a``/``phi`` the
    posterior means of the scales. :meth:`draw_eta` takes stored draws (a bootstrap over a sampled fit draws the
    cells from the posterior on every resample instead of refitting)."""

    a_draws: np.ndarray | None = None
    b_draws: np.ndarray | None = None
    broken_draws: np.ndarray | None = None  # S × T: the template is broken (never succeeds) in the draw
    sampler: dict = field(default_factory=dict)
    tau_draws: np.ndarray | None = None  # S: the document effects' sd in each draw
    pool: np.ndarray | None = None  # the stored draws that :meth:`draw_index` takes from (None: all)

    def draw_index(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """``n`` stored draws taken at random (from ``pool`` when set)."""
        if self.pool is None:
            return rng.integers(0, len(self.a_draws), n)
        return self.pool[rng.integers(0, len(self.pool), n)]

    def draw_eta(self, rng: np.random.Generator, n: int, index: np.ndarray | None = None) -> np.ndarray:
        """η of ``n`` posterior draws (:meth:`draw_index`, or those of ``index``), n × T × D."""
        idx = self.draw_index(rng, n) if index is None else index
        eta = self.a_draws[idx][:, :, None] + self.b_draws[idx][:, None, :]
        if self.broken_draws is not None and self.broken_draws.any():
            eta[self.broken_draws[idx]] = -np.inf  # a broken template's cells never succeed
        return eta


def fit_sampled(
    y: np.ndarray,
    mask: np.ndarray,
    family: str,
    trials: np.ndarray | None = None,
    covariates: np.ndarray | None = None,
    strong: int = 0,
    rng: np.random.Generator | None = None,
    settings: SamplerSettings | None = None,
    broken: bool = False,
) -> TwoWayFit:
    """The model of :func:`fit_two_way` (same arguments) fitted by the Gibbs sampler (:func:`sample_two_way`): template
    effects a_t ~ N(c + x_t·β, σ_a²), document effects b_d ~ N(0, τ²), half-normal priors on σ_a, τ and the axis
    columns' shared sd (:data:`PRIOR_SCALES` × the effect scale); the additive model censored at the prediction
    range of :func:`range_and_scale` (the range its imputed cells are clipped to); with ``broken`` the binomial
    family zero-inflated: a template whose observed cells are all failures may be broken, i.e. never succeed (an
    output format nothing parses), with a share π ~ Beta(:data:`BROKEN_PRIOR`) of such templates
    (:func:`_broken_step`); its unobserved cells are then failures too, not a small Rasch probability. Cells with
    every observed value at a bound and the Poisson family (false-positive counts) keep :func:`fit_two_way`."""
    y = np.where(mask, np.asarray(y, dtype=float), 0.0)
    m = np.asarray(mask, dtype=float)
    if trials is not None:
        trials = np.broadcast_to(np.asarray(trials, dtype=float), y.shape)
        m = m * (trials > 0)
    if family == "poisson" or constant_outcome(y, m, family, trials) is not None:
        return fit_two_way(y, mask, family, trials=trials, covariates=covariates, strong=strong)
    t_n, d_n = y.shape
    lo, hi, scale = range_and_scale(y, m, family)
    x, strong_cols = (None, None) if covariates is None else centred_covariates(covariates, t_n, strong)
    rng = rng if rng is not None else np.random.default_rng(0)
    out = sample_two_way(
        y, m, family, trials, x, strong_cols, scale, rng, settings or SamplerSettings(), (lo, hi), broken
    )
    a, b = out["a"], out["b"]
    info = {
        "draws": len(a),
        "effective_draws": {k: round(effective_draws(out[k]), 1) for k in ("sigma_a", "tau")},
        "template_effect_sd_interval": [float(v) for v in np.percentile(out["sigma_a"], [2.5, 97.5])],
        "doc_effect_sd_interval": [float(v) for v in np.percentile(out["tau"], [2.5, 97.5])],
        "prior_contraction": {  # how much the cells say about each scale
            k: prior_contraction(out[k], half_prior_variance(PRIOR_SCALES[k] * scale)) for k in ("sigma_a", "tau")
        },
    }
    if out["broken"].any():  # the templates with a posterior probability of being broken of at least 5 %
        prob = out["broken"].mean(0)
        info["broken_probability"] = {int(t): round(float(prob[t]), 3) for t in np.flatnonzero(prob >= 0.05)}
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
        broken_draws=out["broken"] if out["broken"].any() else None,
        sampler=info,
        tau_draws=out["tau"],
    )


def fit_two_class(
    correct: np.ndarray,
    mask: np.ndarray,
    classes: list[np.ndarray],
    covariates: np.ndarray | None,
    rng: np.random.Generator,
    settings: SamplerSettings | None = None,
) -> list[SampledFit] | None:
    """The two gold classes' correctness fits of a binary classification from one :func:`sample_two_class` chain:
    one :class:`SampledFit` per class (its documents ``classes[k]``), whose draws share their index (a draw of
    both classes' effects is one posterior draw; :meth:`SampledFit.draw_eta` with ``index``). None when a class's
    observed cells are all right or all wrong (then there is no model to fit).

    The records (``sampler``) carry the prior contraction of the bias and skill sds, of each class's τ and of the
    correlation over the templates of the two classes' effects (``class_accuracy_correlation``,
    :func:`class_correlation`): how a template's accuracy on one class follows its accuracy on the other, which sets
    how widely a binary F1 spreads over the templates. With a rare class and one run a template has about one cell
    of it, and that correlation can rest on its prior while each sd looks pinned (docs/populations.md)."""
    m = np.asarray(mask, dtype=float)
    y = np.where(m > 0, np.asarray(correct, dtype=float), 0.0)
    if any(constant_outcome(y[:, c], m[:, c], "binomial", None) is not None for c in classes):
        return None
    t_n, d_n = y.shape
    sign = np.ones(d_n)
    sign[classes[1]] = -1.0
    x = None if covariates is None else centred_covariates(covariates, t_n)[0]
    out = sample_two_class(y, m, sign, x, rng, settings or SamplerSettings())
    effective = {k: round(effective_draws(out[k]), 1) for k in ("bias_sd", "skill_sd")}
    part_var = half_prior_variance(PRIOR_SCALES["sigma_a"] * TWO_CLASS_PART, TWO_CLASS_DF)
    shared = {k: prior_contraction(out[k], part_var) for k in ("bias_sd", "skill_sd")}
    rho = class_correlation(out["a"][0], out["a"][1])
    parts = 1 if x is None or x.shape[1] == 0 else 2
    shared["class_accuracy_correlation"] = prior_contraction(rho, class_correlation_prior_variance(parts))
    fits = []
    for k, cols in enumerate(classes):
        a, b = out["a"][k], out["b"][:, cols]
        info = {
            "draws": len(a),
            "model": "two-class: template effects c_k ± label bias θ_t + skill δ_t, one chain for both classes",
            "effective_draws": effective,
            "label_bias_sd": float(out["bias_sd"].mean()),
            "skill_sd": float(out["skill_sd"].mean()),
            "class_accuracy_correlation": float(rho.mean()),
            "template_effect_sd_interval": [float(v) for v in np.percentile(out["sigma_a"][:, k], [2.5, 97.5])],
            "doc_effect_sd_interval": [float(v) for v in np.percentile(out["tau"][:, k], [2.5, 97.5])],
            "prior_contraction": {
                **shared,
                "tau": prior_contraction(out["tau"][:, k], half_prior_variance(PRIOR_SCALES["tau"])),
            },
        }
        fits.append(
            SampledFit(
                "binomial",
                a.mean(0)[None, :],
                np.zeros(1),
                b.mean(0)[None, :],
                float(out["tau"][:, k].mean()),
                float(out["sigma_a"][:, k].mean()),
                1.0,
                iterations=len(a),
                converged=min(effective.values()) >= 50,
                lo=-math.inf,
                hi=math.inf,
                a_draws=a,
                b_draws=b,
                sampler=info,
                tau_draws=out["tau"][:, k],
            )
        )
    return fits


def sampled_fitter(seed) -> Callable:
    """A ``fitter`` for :func:`cell_model`: :func:`fit_sampled` with one seeded generator per fit, in the order the
    cell model fits (deterministic); ``fit.zero_inflated`` fits 0/1 values with broken templates, ``fit.two_class``
    both classes of a binary classification in one chain."""
    calls = iter(range(1_000_000))

    def rng():
        return np.random.default_rng([*np.atleast_1d(seed).tolist(), 7, next(calls)])

    def fit(y, mask, family, trials=None, covariates=None, strong=0):
        return fit_sampled(y, mask, family, trials, covariates, strong, rng())

    def two_class(correct, mask, classes, covariates=None):
        return fit_two_class(correct, mask, classes, covariates, rng())

    def zero_inflated(y, mask, family, trials=None, covariates=None, strong=0):
        return fit_sampled(y, mask, family, trials, covariates, strong, rng(), broken=True)

    fit.two_class = two_class
    fit.zero_inflated = zero_inflated
    return fit
