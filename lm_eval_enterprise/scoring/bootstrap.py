"""The document bootstrap shared by the Sharpe tool (:mod:`lm_eval_enterprise.sharpe`) and the estimator of partial
cell tables (:mod:`lm_eval_enterprise.estimator`): the reference draw order of the resamples, their multiplicity
matrix and percentile intervals (docs/sharpe.md#bootstrap). Pure functions on numbers; no I/O.

One generator ``np.random.default_rng(seed)`` per dataset row (a row's intervals do not depend on which other datasets
or models are in the run). Per resample b = 1..B: a unit index vector rng.integers(0, D, D) shared by every
template and model of the row, then — with template resampling — a template index vector rng.integers(0, T, T):
the reference draw order (example 5 of docs/sharpe.md#worked-examples). Without template resampling the B draws
are one rng.integers(0, D, (B, D)) call, which yields the identical stream. Unit indices become a multiplicity
matrix W (B × D): the resampled score of every template is Stats.finalize(W @ features)
(:mod:`lm_eval_enterprise.scoring.corpus`).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np


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


def percentile_ci(values: Iterable[float], lo: float = 2.5, hi: float = 97.5) -> list[float] | None:
    """[p2.5, p97.5] of the finite values (numpy linear interpolation), None if there are none."""
    v = np.asarray(list(values) if not isinstance(values, np.ndarray) else values, dtype=float)
    v = v[np.isfinite(v)]
    if v.size == 0:
        return None
    a, b = np.percentile(v, [lo, hi])
    return [float(a), float(b)]
