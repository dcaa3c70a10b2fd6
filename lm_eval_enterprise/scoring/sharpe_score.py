"""The Sharpe score of a model's per-template scores (docs/sharpe.md: #sharpe-score, #ddof, #degenerate-cases), shared
by the Sharpe tool (:mod:`lm_eval_enterprise.sharpe`) and the estimator of partial cell tables
(:mod:`lm_eval_enterprise.estimator`). Pure functions on numbers; no I/O.

Sharpe: S = (μ − b) / (α·σ_eff), μ = mean_t s_t, σ = sqrt(Σ_t (s_t − μ)² / (T − ddof)), σ_eff = max(σ, floor).
Degenerate cases (eps = 1e-12): T < 2 → undefined (``single_template``, both ddof); σ_eff < eps → +inf / −inf by the
sign of μ − b beyond eps, else undefined (``degenerate_std``). JSON carries ``sharpe: null`` plus ``sharpe_status``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

EPS = 1e-12


def sigma_floor(mode: str | float | None, mu: float, n_docs: int | None) -> float:
    """Floor for σ: ``off`` → 0, ``binomial`` → sqrt(μ(1−μ)/D), a number → that value."""
    if mode in (None, "off"):
        return 0.0
    if mode == "binomial":
        if not n_docs:
            return 0.0
        m = min(max(mu, 0.0), 1.0)
        return math.sqrt(m * (1 - m) / n_docs)
    return float(mode)


def sharpe(
    scores: Sequence[float],
    baseline: float | Sequence[float] | None,
    ddof: int = 1,
    alpha: float = 1.0,
    floor_mode: str | float | None = "off",
    n_docs: int | None = None,
) -> dict:
    """Point statistics of one (model, group, metric): mean, std, σ_eff, Sharpe and its status.

    ``baseline`` may be per template (a sequence): then S = mean_t(s_t − b_t)/σ(s_t − b_t) (docs/sharpe.md#baselines).
    A ``None`` baseline (unavailable) gives ``sharpe_status = "no_baseline"`` and no Sharpe.
    """
    s = np.asarray(scores, dtype=float)
    t = len(s)
    if t == 0:
        raise ValueError("sharpe: no template scores")
    if ddof not in (0, 1):
        raise ValueError("ddof must be 0 or 1")
    mu = float(s.mean())
    per_template_b = baseline is not None and not np.isscalar(baseline)
    if per_template_b:
        b_arr = np.asarray(baseline, dtype=float)
        excess = s - b_arr
        b = float(b_arr.mean())
    else:
        b = None if baseline is None else float(baseline)
        excess = s - (b if b is not None else 0.0)
    out = {
        "mean": mu,
        "std": None,
        "sigma_eff": None,
        "sharpe": None,
        "sharpe_status": "ok",
        "degenerate_std": False,
        "sigma_floor_active": False,
        "excess_mean": None if b is None else float(excess.mean()),
    }
    if t < 2:
        out["sharpe_status"] = "single_template"
        return out
    sig = float(np.sqrt(((excess - excess.mean()) ** 2).sum() / (t - ddof)))
    out["std"] = sig
    floor = sigma_floor(floor_mode, mu, n_docs)
    sig_eff = max(sig, floor)
    out["sigma_eff"] = sig_eff
    out["sigma_floor_active"] = floor > sig
    if b is None:
        out["sharpe_status"] = "no_baseline"
        return out
    num = float(excess.mean())
    if sig_eff < EPS:
        out["degenerate_std"] = True
        if num > EPS:
            out["sharpe"], out["sharpe_status"] = math.inf, "inf"
        elif num < -EPS:
            out["sharpe"], out["sharpe_status"] = -math.inf, "-inf"
        else:
            out["sharpe"], out["sharpe_status"] = math.nan, "undefined"
        return out
    out["sharpe"] = num / (alpha * sig_eff)
    return out


def sharpe_matrix(
    scores: np.ndarray,
    baseline: float | np.ndarray,
    ddof: int,
    alpha: float = 1.0,
    floor_mode: str | float | None = "off",
    n_docs: int | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Row-wise (mean, std, Sharpe, degenerate) of a B × T score matrix (bootstrap); Sharpe NaN when σ_eff < eps.

    Rows with a NaN score (metric undefined on that resample) give NaN everywhere and degenerate False.
    """
    s = np.asarray(scores, dtype=float)
    t = s.shape[1]
    ex = s - np.asarray(baseline, dtype=float)
    mu = s.mean(1)
    if t < 2:
        nan = np.full(s.shape[0], np.nan)
        return mu, nan, nan, np.zeros(s.shape[0], bool)
    exm = ex.mean(1)
    sig = np.sqrt(((ex - exm[:, None]) ** 2).sum(1) / (t - ddof))
    if floor_mode == "binomial":
        m = np.clip(mu, 0, 1)
        floor = np.sqrt(m * (1 - m) / n_docs) if n_docs else np.zeros_like(mu)
    else:
        floor = np.full_like(mu, sigma_floor(floor_mode, 0.0, n_docs))
    sig_eff = np.maximum(sig, floor)
    degen = sig_eff < EPS
    with np.errstate(divide="ignore", invalid="ignore"):
        sh = np.where(degen, np.nan, exm / (alpha * sig_eff))
    return mu, sig, sh, degen & np.isfinite(mu)
