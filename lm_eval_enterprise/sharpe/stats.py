"""Statistics across templates and over resamples beyond the Sharpe score itself (docs/sharpe.md: #statistics,
#comparisons, #bootstrap): the Sharpe sort order, the across-template description, ProSA's PSS, rank stability,
paired tests and the interval record of a row's resampled scores. Pure functions on numbers; no I/O. The Sharpe
score (:mod:`lm_eval_enterprise.scoring.sharpe_score`) and the bootstrap draws
(:mod:`lm_eval_enterprise.scoring.bootstrap`) are shared with the estimator.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from itertools import combinations

import numpy as np

from ..scoring.bootstrap import percentile_ci
from ..scoring.sharpe_score import EPS, sharpe_matrix

QUANTILES = (5, 25, 50, 75, 95)


def sort_key(value: float | None) -> tuple[int, float]:
    """Sharpe sort order (docs/sharpe.md#degenerate-cases): +inf first, finite descending, −inf, then NaN/undefined."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return (3, 0.0)
    if value == math.inf:
        return (0, 0.0)
    if value == -math.inf:
        return (2, 0.0)
    return (1, -float(value))


def describe(scores: Sequence[float]) -> dict:
    """min, max, spread (FormatSpread), MaxP/AvgP/CPS (Mizrahi et al.), quantiles p05..p95 (linear)."""
    s = np.asarray(scores, dtype=float)
    mx, avg = float(s.max()), float(s.mean())
    return {
        "min": float(s.min()),
        "max": mx,
        "spread": float(s.max() - s.min()),
        "maxp": mx,
        "avgp": avg,
        "cps": mx * (1 - (mx - avg)),
        "quantiles": {f"p{q:02d}": float(v) for q, v in zip(QUANTILES, np.percentile(s, QUANTILES))},
    }


# ------------------------------------------------------------------------------------------------------ ProSA
def pss(per_doc: np.ndarray) -> tuple[float, np.ndarray]:
    """ProSA PromptSensiScore of a T × D matrix of per-document values in [0, 1]:
    S_d = Σ_{t<t'} |y_td − y_t'd| / C(T, 2), PSS = mean_d S_d. Returns (PSS, S_d)."""
    y = np.asarray(per_doc, dtype=float)
    t = y.shape[0]
    if t < 2:
        raise ValueError("PSS needs at least two templates")
    # Σ_{t<t'} |a_t − a_t'| via sorting each column: Σ_i (2i − T + 1)·a_(i)
    ys = np.sort(y, axis=0)
    w = (2 * np.arange(t) - t + 1)[:, None]
    sd = (w * ys).sum(0) / (t * (t - 1) / 2)
    return float(sd.mean()), sd


# ------------------------------------------------------------------------------------------------------ ranks
def rank_desc(values: Sequence[float]) -> np.ndarray:
    """Ranks with 1 = best (largest), average ranks for ties."""
    from scipy.stats import rankdata

    return rankdata(-np.asarray(values, dtype=float), method="average")


def rank_stability(score_table: Mapping[str, Sequence[float]]) -> dict:
    """Rank stability of n models over T templates (docs/sharpe.md#statistics). ``score_table``: model → scores
    per template (same template order for every model). Kendall's W without tie correction; Friedman χ² = T(n−1)W."""
    from scipy.stats import chi2, kendalltau

    models = list(score_table)
    x = np.array([score_table[m] for m in models], dtype=float)  # n × T
    n, t = x.shape
    ranks = np.column_stack([rank_desc(x[:, j]) for j in range(t)])  # n × T
    taus = [float(kendalltau(x[:, a], x[:, b]).statistic) if n >= 2 else math.nan for a, b in combinations(range(t), 2)]
    finite = [v for v in taus if not math.isnan(v)]
    r = ranks.sum(1)
    s_r = float(((r - r.mean()) ** 2).sum())
    w = 12 * s_r / (t**2 * (n**3 - n)) if n >= 2 and t >= 1 else math.nan
    chi = t * (n - 1) * w
    return {
        "n_models": n,
        "n_templates": t,
        "models": models,
        "ranks_per_template": {m: [float(v) for v in ranks[i]] for i, m in enumerate(models)},
        "kendall_tau_pairs": [None if math.isnan(v) else v for v in taus],
        "kendall_tau_mean": float(np.mean(finite)) if finite else None,
        "kendall_tau_undefined_pairs": len(taus) - len(finite),
        "rank_sums": {m: float(r[i]) for i, m in enumerate(models)},
        "kendall_w": float(w),
        "kendall_w_note": "no tie correction",
        "friedman_chi2": float(chi),
        "friedman_df": n - 1,
        "friedman_p": float(chi2.sf(chi, n - 1)) if n >= 2 else None,
    }


def order(values: Mapping[str, float | None], sharpe_like: bool = False) -> list[str]:
    """Models sorted best first (Sharpe order rules when ``sharpe_like``; else descending, None last)."""
    if sharpe_like:
        return sorted(values, key=lambda m: (sort_key(values[m]), m))
    return sorted(values, key=lambda m: (values[m] is None, -(values[m] or 0.0), m))


def flips(by_a: Mapping[str, float | None], by_b: Mapping[str, float | None]) -> list[list[str]]:
    """Model pairs ordered strictly one way by ``by_a`` (means) and strictly the other way by ``by_b`` (Sharpe,
    compared with the Sharpe sort order, undefined last)."""
    out = []
    models = sorted(by_a)
    for x, y in combinations(models, 2):
        a1, a2 = by_a[x], by_a[y]
        if a1 is None or a2 is None:
            continue
        da = (a1 > a2) - (a1 < a2)
        k1, k2 = sort_key(by_b[x]), sort_key(by_b[y])
        db = (k1 < k2) - (k1 > k2)  # +1: x better by b
        if da * db < 0:
            out.append([x, y] if da > 0 else [y, x])  # [better by mean, better by Sharpe]
    return out


# ------------------------------------------------------------------------------------------------------ paired tests
def sign_test(deltas: Sequence[float]) -> dict:
    """Exact two-sided sign test over non-zero Δ_t: p = min(1, 2·P(X ≤ min(wins, losses))), X ~ Bin(n, 1/2)
    (= ``scipy.stats.binomtest(wins, n).pvalue``, tested)."""
    d = np.asarray(deltas, dtype=float)
    pos, neg = int((d > EPS).sum()), int((d < -EPS).sum())
    n = pos + neg  # n = 0 gives p = min(1, 2) = 1
    p = min(1.0, 2 * sum(math.comb(n, i) for i in range(min(pos, neg) + 1)) / 2**n)
    return {"wins": pos, "losses": neg, "ties": int(len(d) - n), "p": float(p)}


def wilcoxon(deltas: Sequence[float]) -> dict:
    """Wilcoxon signed-rank over Δ_t (zeros dropped, mid-ranks for ties; Δ rounded to 12 decimals so float noise
    does not break ties). Exact two-sided p by enumerating the 2^n sign assignments for n ≤ 16 (equal to
    ``scipy.stats.wilcoxon``'s exact p, tested), scipy's default method above."""
    from scipy.stats import rankdata

    d = np.round(np.asarray(deltas, dtype=float), 12)
    d = d[d != 0]
    n = len(d)
    if n < 2:
        return {"statistic": None, "p": None, "note": "fewer than 2 non-zero differences"}
    r = rankdata(np.abs(d))
    w_plus, w_minus = float(r[d > 0].sum()), float(r[d < 0].sum())
    stat = min(w_plus, w_minus)
    if n <= 16:
        signs = (np.arange(2**n)[:, None] >> np.arange(n)[None, :]) & 1
        dist = signs @ r
        centre = r.sum() / 2
        p = float(np.mean(np.abs(dist - centre) >= abs(stat - centre) - 1e-9))
        return {"statistic": stat, "p": p, "method": "exact"}
    import warnings

    from scipy.stats import wilcoxon as _w

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = _w(d)
    return {"statistic": float(res.statistic), "p": float(res.pvalue), "method": "scipy"}


def sign_flip_pvalues(diffs: np.ndarray, n_perm: int = 2000, seed: int = 0) -> np.ndarray:
    """Two-sided paired sign-flip permutation p-values of mean(diff) = 0 for each row of ``diffs`` (tests × D).

    Exact enumeration of all 2^D sign vectors when 2^D ≤ n_perm (p = share with |Σ ± d| ≥ |Σ d|); otherwise
    ``n_perm`` random sign vectors from ``default_rng(seed)``, shared by all rows,
    p = (1 + #{|perm| ≥ |obs|})/(1 + n).
    """
    x = np.atleast_2d(np.asarray(diffs, dtype=float))
    n = x.shape[1]
    if n == 0:
        return np.ones(x.shape[0])
    obs = np.abs(x.sum(1))
    if 2**n <= n_perm:
        signs = 1.0 - 2.0 * ((np.arange(2**n)[:, None] >> np.arange(n)[None, :]) & 1)
        stats = np.abs(signs @ x.T)
        return (stats >= obs[None, :] - 1e-12).mean(0)
    rng = np.random.default_rng(seed)
    signs = 1.0 - 2.0 * rng.integers(0, 2, (n_perm, n))
    stats = np.abs(signs @ x.T)
    return (1 + (stats >= obs[None, :] - 1e-12).sum(0)) / (1 + n_perm)


def holm(pvalues: Sequence[float | None]) -> list[float | None]:
    """Holm–Bonferroni adjusted p-values (None entries are kept and not counted)."""
    idx = [i for i, p in enumerate(pvalues) if p is not None]
    m = len(idx)
    adj: list[float | None] = list(pvalues)
    running = 0.0
    for rank, i in enumerate(sorted(idx, key=lambda i: pvalues[i])):
        v = min(1.0, (m - rank) * float(pvalues[i]))
        running = max(running, v)
        adj[i] = running
    return adj


def summarize(
    scores_bt: np.ndarray,
    baseline,
    ddof: int,
    alpha: float,
    floor_mode,
    n_docs: int,
    template_idx: np.ndarray | None,
    seed: int,
) -> dict:
    """CI record from a B × T matrix of resampled per-template scores (templates resampled with ``template_idx``)."""
    s = scores_bt
    b_arr = np.broadcast_to(np.asarray(baseline, dtype=float), (s.shape[1],)) if not np.isscalar(baseline) else baseline
    if template_idx is not None:
        s = np.take_along_axis(s, template_idx, axis=1)
        if not np.isscalar(b_arr):
            b_arr = np.asarray(b_arr)[template_idx]
    mu, sig, sh, degen = sharpe_matrix(s, b_arr, ddof, alpha, floor_mode, n_docs)
    valid = np.isfinite(mu)
    n_valid = int(valid.sum())
    return {
        "mean": percentile_ci(mu),
        "std": percentile_ci(sig),
        "sharpe": percentile_ci(sh),
        "B": int(s.shape[0]),
        "seed": int(seed),
        "resample_templates": template_idx is not None,
        "frac_degenerate": float(degen[valid].mean()) if n_valid else None,
        "n_undefined_resamples": int(s.shape[0] - n_valid),
        "eps": EPS,
    }
