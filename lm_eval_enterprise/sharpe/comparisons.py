"""Stage 6 — paired model comparisons per dataset row and metric (same templates, same documents).

Per pair: Δ_t = s_{A,t} − s_{B,t}, sign test and Wilcoxon over the templates, ΔSharpe with its interval from the
shared document bootstrap, per-template bootstrap intervals of Δ_t and — where the score is a mean of
per-document values — a paired sign-flip permutation test per template. Holm correction across all pairs.
"""
from __future__ import annotations

from itertools import combinations

import numpy as np

from . import stats as ST
from .grouping import Row
from .options import Options
from .records import Record, RecordSet


def _pairs(models: list[str], compare: list[str] | None) -> list[tuple[str, str]]:
    """Every pair, or the pairs asked for with ``--compare A,B`` (in the order asked)."""
    pairs = list(combinations(models, 2))
    if compare is None:
        return pairs
    wanted = set()
    for c in compare:
        a, _, b = c.partition(",")
        wanted.add((a, b))
    return [(a, b) if (a, b) in wanted else (b, a) for a, b in pairs if (a, b) in wanted or (b, a) in wanted]


def _bootstrap_fields(comp: dict, ra: Record, rb: Record, tids: list[str], higher_is_better: bool,
                      opts: Options) -> None:
    """Per-template intervals of Δ_t and the ΔSharpe interval from the shared document resamples."""
    ma, mb = ra.scores_bt, rb.scores_bt
    if ma is None or mb is None:
        comp["delta_ci"], comp["delta_sharpe_ci"] = None, None
        comp["bootstrap"] = None
        return
    d_bt = ma - mb
    if np.isfinite(d_bt).all():
        lo_hi = np.percentile(d_bt, [2.5, 97.5], axis=0)
        comp["delta_ci"] = {t: [float(lo_hi[0, j]), float(lo_hi[1, j])] for j, t in enumerate(tids)}
    else:
        comp["delta_ci"] = {t: ST.percentile_ci(d_bt[:, j]) for j, t in enumerate(tids)}
    b_arg = ra.baseline["value"]
    if ra.baseline.get("per_template") and b_arg is not None:
        b_arg = np.array([ra.baseline["per_template"][t] for t in tids])
    if b_arg is not None:
        sign = 1.0 if higher_is_better else -1.0
        _, _, sh_a, _ = ST.sharpe_matrix(sign * ma, sign * b_arg, opts.ddof, opts.alpha, opts.floor_mode(),
                                         ra.n_docs)
        _, _, sh_b, _ = ST.sharpe_matrix(sign * mb, sign * b_arg, opts.ddof, opts.alpha, opts.floor_mode(),
                                         rb.n_docs)
        comp["delta_sharpe_ci"] = ST.percentile_ci(sh_a - sh_b)
    else:
        comp["delta_sharpe_ci"] = None
    comp["bootstrap"] = {"B": opts.bootstrap, "seed": opts.seed, "shared_doc_indices": True}


def _compare(row: Row, metric: str, ra: Record, rb: Record, higher_is_better: bool, opts: Options) -> dict | None:
    tids = ra.templates
    sa = np.array([ra.template_scores[t] for t in tids], dtype=float)
    sb = np.array([rb.template_scores[t] for t in tids], dtype=float)
    if not (np.all(np.isfinite(sa)) and np.all(np.isfinite(sb))):
        return None
    delta = sa - sb
    comp = {"group": row.name, "metric": metric, "model_a": ra.model, "model_b": rb.model, "templates": tids,
            "delta": {t: float(d) for t, d in zip(tids, delta)}, "mean_delta": float(delta.mean())}
    sign = ST.sign_test(delta)
    comp.update({"a_wins": sign["wins"], "b_wins": sign["losses"], "ties": sign["ties"], "sign_test_p": sign["p"]})
    wx = ST.wilcoxon(delta)
    comp["wilcoxon_statistic"], comp["wilcoxon_p"] = wx["statistic"], wx["p"]
    sha, shb = ra.sharpe, rb.sharpe
    comp["delta_sharpe"] = (sha - shb) if sha is not None and shb is not None else None
    comp["delta_sharpe_status"] = ("ok" if comp["delta_sharpe"] is not None else
                                   f"{ra.sharpe_status} vs {rb.sharpe_status}")
    _bootstrap_fields(comp, ra, rb, tids, higher_is_better, opts)
    comp["permutation_p"] = None
    comp["permutation_note"] = ("no per-document metric values (corpus-level metric, dataset with subtasks, or no "
                                "samples)")
    return comp


def _permutation_tests(out: list[dict], pending: list[tuple[int, list[str], np.ndarray]], opts: Options) -> None:
    """One batched sign-flip test per row × metric (shared sign vectors; each p-value is exact/valid)."""
    if not pending:
        return
    p_all = ST.sign_flip_pvalues(np.vstack([d for _, _, d in pending]), opts.permutations, opts.seed)
    pos = 0
    for i, tids, d in pending:
        out[i]["permutation_p"] = {t: float(p_all[pos + j]) for j, t in enumerate(tids)}
        n_perm = "all" if 2 ** d.shape[1] <= opts.permutations else str(opts.permutations)
        out[i]["permutation_note"] = f"paired sign-flip test on per-document values, {n_perm} permutations"
        pos += len(tids)


def _holm(out: list[dict]) -> None:
    for key in ("sign_test_p", "wilcoxon_p"):
        adj = ST.holm([c[key] for c in out])
        for c, v in zip(out, adj):
            c[key + "_holm"] = v
    flat = [(i, t, p) for i, c in enumerate(out) for t, p in (c["permutation_p"] or {}).items()]
    adj = ST.holm([p for _, _, p in flat])
    for c in out:
        c["permutation_p_holm"] = {} if c["permutation_p"] is not None else None
    for (i, t, _), v in zip(flat, adj):
        out[i]["permutation_p_holm"][t] = v


def comparisons(recs: RecordSet, rows: list[Row], opts: Options) -> list[dict]:
    """Every reported model pair of every dataset row and metric (strict scores)."""
    out: list[dict] = []
    for row in rows:
        for spec in row.groups[0].metrics:
            models = [m for m in row.models if recs.get(row.name, m, spec.name) is not None]
            pending: list[tuple[int, list[str], np.ndarray]] = []
            for a, b in _pairs(models, opts.compare):
                ra, rb = recs.get(row.name, a, spec.name), recs.get(row.name, b, spec.name)
                comp = _compare(row, spec.name, ra, rb, spec.higher_is_better, opts)
                if comp is None:
                    continue
                pa, pb = recs.per_doc.get((row.name, a, spec.name)), recs.per_doc.get((row.name, b, spec.name))
                if pa is not None and pb is not None and pa[2] and pb[2]:
                    pending.append((len(out), comp["templates"], pa[1] - pb[1]))
                out.append(comp)
            _permutation_tests(out, pending, opts)
    _holm(out)
    return out
