"""Stage 4 — bootstrap of a dataset row: B resampled per-template scores for every (model, metric, mode).

One document index vector per resample is shared by every template and model of the row (its unit keys), drawn
by :func:`.bootstrap.draw` from the row's own seed. Linear scorers are
finalised from one matrix product ``W @ features`` per chunk of resamples; the others score each resample.
"""

from __future__ import annotations

import numpy as np

from . import bootstrap as BS
from .grouping import Group, Row
from .options import Options, natural_key


def _resample_group(g: Group, keys: list, di: np.ndarray, opts: Options, kind: str) -> None:
    """``g.boot[(model, metric, mode, kind)]`` = B × T matrix of the group's templates."""
    col = {k: i for i, k in enumerate(keys)}
    cols = np.array([col[k] for k in g.keys])
    entries = [(k, s) for k, s in g.scorers.items() if k[0] in g.tables and k[3] in opts.modes]
    lin = [(k, s) for k, s in entries if s.linear]
    nonlin = [(k, s) for k, s in entries if not s.linear]
    out = {k: np.empty(opts.bootstrap) for k, _ in entries}
    if lin:
        feats = np.hstack([s.features for _, s in lin])
        bounds = np.cumsum([0] + [s.features.shape[1] for _, s in lin])
    chunk = max(
        1, min(opts.bootstrap, 4_000_000 // max(len(keys), 1), 8_000_000 // max(feats.shape[1] if lin else 1, 1))
    )
    for start in range(0, opts.bootstrap, chunk):
        w = BS.multiplicities(di[start : start + chunk], len(keys))[:, cols]
        if lin:
            sums = w @ feats
            for j, (k, s) in enumerate(lin):
                out[k][start : start + len(w)] = s.finalize(sums[:, bounds[j] : bounds[j + 1]])
        for k, s in nonlin:
            out[k][start : start + len(w)] = s.scores(w)
    for model in g.tables:
        for spec in g.metrics:
            for mode in opts.modes:
                if (model, g.templates[0], spec.name, mode) not in g.scorers:
                    continue
                g.boot[(model, spec.name, mode, kind)] = np.column_stack(
                    [out[(model, t, spec.name, mode)] for t in g.templates]
                )


def bootstrap_row(row: Row, opts: Options) -> dict[str, np.ndarray | None]:
    """Fill ``g.boot`` for every group of the row with samples: kind "docs" (document resampling) and, with
    ``--bootstrap_templates``, "docs+templates" (its own draw stream). Returns the template index matrices per
    kind (None for "docs")."""
    template_idx: dict[str, np.ndarray | None] = {}
    if opts.bootstrap <= 0:
        return template_idx
    groups = [g for g in row.groups if g.tables]
    if not groups:
        return template_idx
    keys = sorted(set().union(*(set(g.keys) for g in groups)), key=natural_key)
    row.keys = keys
    kinds = [("docs", False)] + ([("docs+templates", True)] if opts.bootstrap_templates else [])
    for kind, tpl in kinds:
        di, ti = BS.draw(opts.seed, opts.bootstrap, len(keys), len(row.templates), tpl)
        template_idx[kind] = ti
        for g in groups:
            _resample_group(g, keys, di, opts, kind)
    return template_idx
