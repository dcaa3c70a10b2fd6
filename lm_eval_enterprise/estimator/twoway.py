"""The two-way generalised linear model of a cell matrix, fitted by Laplace-approximate empirical Bayes.

η_td = c + a_t + b_d with template effects a_t ~ N(c + x_t·β, σ_a²) (covariates x optional), document effects
b_d ~ N(0, τ²) and a free intercept c; binomial (Rasch), Poisson or Gaussian outcomes (:func:`fit_two_way`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import expit


@dataclass
class TwoWayFit:
    """η_td = c + a_t + b_d fitted on the observed cells; ``a`` B × T, ``c`` B, ``b`` B × D (B = 1: one fit; the
    Newton solver is batched over rows). ``prec``, ``hab``, ``hbb``: blocks of the negative Hessian at the optimum
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

    def draw_eta(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """n linear predictors (n × T × D) from the Laplace posterior: [a, c] ~ N(θ̂, prec⁻¹), then
        b_d | [a, c] ~ N(b̂_d − hab_d·Δ/hbb_d, 1/hbb_d)."""
        idx = np.zeros(n, dtype=int)
        if self.constant is not None or self.prec is None:
            return self.eta(self.a[idx], self.c[idx], self.b[idx])
        t_n = self.a.shape[1]
        prec = np.broadcast_to(self.prec[0], (n,) + self.prec.shape[1:])
        try:
            chol = np.linalg.cholesky(prec)
        except np.linalg.LinAlgError:
            chol = np.linalg.cholesky(prec + 1e-9 * np.eye(t_n + 1))
        z = rng.standard_normal((n, t_n + 1))
        delta = np.linalg.solve(np.swapaxes(chol, 1, 2), z[:, :, None])[:, :, 0]
        a = self.a[idx] + delta[:, :t_n]
        c = self.c[idx] + delta[:, t_n]
        hbb = self.hbb[idx]
        sd = np.divide(1.0, np.sqrt(hbb), out=np.zeros_like(hbb), where=hbb > 0)
        b = self.b[idx] - np.einsum("pd,bp->bd", self.hab[0], delta) * sd**2 + rng.standard_normal(hbb.shape) * sd
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


def range_and_scale(y: np.ndarray, m: np.ndarray, family: str) -> tuple[float, float, float]:
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


def constant_outcome(y: np.ndarray, m: np.ndarray, family: str, trials: np.ndarray | None) -> float | None:
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
    phi: float | None = None,
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
    ``tau``, ``sigma_a`` (and ``phi``) given: one fit at those values, no EM.
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
    lo, hi, scale = range_and_scale(y, m, family)
    bounds = (1e-2 * scale, 20.0 * scale)  # below 1 % of the scale an effect spread is immaterial (and EM crawls)
    constant = constant_outcome(y, m, family, trials)
    if constant is not None:
        return TwoWayFit(family, np.zeros((1, t_n)), np.zeros(1), np.zeros((1, d_n)), 0.0, 0.0, constant=constant)
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
    total_it, ok = 0, True
    x, strong_cols = (None, None) if covariates is None else centred_covariates(covariates, t_n, strong)
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


def centred_covariates(covariates: np.ndarray, t_n: int, strong: int = 0) -> tuple[np.ndarray, np.ndarray]:
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
