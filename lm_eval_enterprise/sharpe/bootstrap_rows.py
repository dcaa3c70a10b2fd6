"""Stage 4 — bootstrap of a dataset row: B resampled per-template scores for every (model, metric, mode).

One unit index vector per resample is shared by every template and model of the row (its units), drawn by
:func:`.bootstrap.draw` from the row's own seed. Linear statistics are finalised from one matrix product
``W @ features`` per chunk of resamples; the others score each resample.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import bootstrap as BS
from .grouping import Row
from .options import Options
from .template_scores import TemplateScores


@dataclass(frozen=True)
class Resamples:
    """``boot[(model, metric, mode, kind)]``: B × T resampled s_t; ``template_idx[kind]``: B × T template draws
    (None for the document bootstrap). kind: ``docs``, and ``docs+templates`` with ``--bootstrap_templates``."""

    boot: dict[tuple, np.ndarray]
    template_idx: dict[str, np.ndarray | None]


def _resampled(row: Row, scores: TemplateScores, n_units: int, di: np.ndarray, opts: Options, kind: str) -> dict:
    """(model, metric, mode, kind) → B × T matrix of the row's templates."""
    entries = [(k, s) for k, s in scores.scorers.items() if k[3] in opts.modes]
    lin = [(k, s) for k, s in entries if s.linear]
    nonlin = [(k, s) for k, s in entries if not s.linear]
    out = {k: np.empty(opts.bootstrap) for k, _ in entries}
    if lin:
        feats = np.hstack([s.features for _, s in lin])
        bounds = np.cumsum([0] + [s.features.shape[1] for _, s in lin])
    chunk = max(1, min(opts.bootstrap, 4_000_000 // max(n_units, 1), 8_000_000 // max(feats.shape[1] if lin else 1, 1)))
    for start in range(0, opts.bootstrap, chunk):
        # column-major, as the bootstrap always multiplied: BLAS picks its kernels by layout, and the last bits of
        # W @ features follow them
        w = np.asfortranarray(BS.multiplicities(di[start : start + chunk], n_units))
        if lin:
            sums = w @ feats
            for j, (k, s) in enumerate(lin):
                out[k][start : start + len(w)] = s.finalize(sums[:, bounds[j] : bounds[j + 1]])
        for k, s in nonlin:
            out[k][start : start + len(w)] = s.scores(w)
    boot = {}
    for model in row.models:
        for spec in row.metrics:
            for mode in opts.modes:
                if (model, row.templates[0], spec.name, mode) in scores.scorers:
                    boot[(model, spec.name, mode, kind)] = np.column_stack(
                        [out[(model, t, spec.name, mode)] for t in row.templates]
                    )
    return boot


def resample(row: Row, n_units: int, scores: TemplateScores, opts: Options) -> Resamples:
    """The row's resampled scores over its ``n_units`` shared units: kind "docs" (unit resampling) and, with
    ``--bootstrap_templates``, "docs+templates" (its own draw stream). Nothing without resamples or samples."""
    if opts.bootstrap <= 0 or not scores.scorers:
        return Resamples({}, {})
    boot, template_idx = {}, {}
    for kind, tpl in [("docs", False)] + ([("docs+templates", True)] if opts.bootstrap_templates else []):
        di, ti = BS.draw(opts.seed, opts.bootstrap, n_units, len(row.templates), tpl)
        template_idx[kind] = ti
        boot.update(_resampled(row, scores, n_units, di, opts, kind))
    return Resamples(boot, template_idx)
