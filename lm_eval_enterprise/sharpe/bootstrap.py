"""Bootstrap resampling (docs/sharpe.md#bootstrap).

One generator ``np.random.default_rng(seed)`` per dataset row (so a row's intervals do not depend on which other
datasets or models are in the run). Per iteration b = 1..B: a document index vector ``rng.integers(0, D, D)``
shared by every template and every model of the row, then — with template resampling — a template index vector
``rng.integers(0, T, T)``: the reference draw order (example 5 of docs/sharpe.md#worked-examples). Without template
resampling the B draws are taken as one ``rng.integers(0, D, (B, D))`` call, which yields the identical stream.

Document indices become a multiplicity matrix W (B × D): the resampled score of every template is
``Stats.finalize(W @ features)`` (see :mod:`lm_eval_enterprise.scoring.corpus`).
"""

from __future__ import annotations

import numpy as np

from .stats import EPS, percentile_ci, sharpe_matrix


def draw(
    seed: int, n_boot: int, n_docs: int, n_templates: int, resample_templates: bool
) -> tuple[np.ndarray, np.ndarray | None]:
    """(doc indices B × D, template indices B × T or None) in the reference order."""
    rng = np.random.default_rng(seed)
    if not resample_templates:
        return rng.integers(0, n_docs, (n_boot, n_docs)), None
    di = np.empty((n_boot, n_docs), dtype=np.int64)
    ti = np.empty((n_boot, n_templates), dtype=np.int64)
    for b in range(n_boot):
        di[b] = rng.integers(0, n_docs, n_docs)
        ti[b] = rng.integers(0, n_templates, n_templates)
    return di, ti


def multiplicities(doc_idx: np.ndarray, n_docs: int) -> np.ndarray:
    """B × D matrix of how often each document was drawn in each resample."""
    b = doc_idx.shape[0]
    flat = (np.arange(b)[:, None] * n_docs + doc_idx).ravel()
    return np.bincount(flat, minlength=b * n_docs).reshape(b, n_docs).astype(float)


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
