"""Stage 7 — across models: rank stability per dataset row, and domain / overall roll-ups.

Rank stability (≥ 2 models): ranks per template, Kendall τ_b, Kendall's W, Friedman χ², and the model order by
mean, by Sharpe and by CPS with the pairs that flip. Roll-ups: equal-weight means over datasets of μ, σ and S
(finite S only, count reported) and the mean rank by S; a model missing a dataset is excluded (reported); one
overall roll-up per suite when the rows come from several (never pooled).
"""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np

from . import stats as ST
from .grouping import Row
from .records import RecordSet

DEFAULT_SUITE = "enterprise"  # the suite of a variant without ``metadata.suite``


def rank_stability(recs: RecordSet, rows: list[Row]) -> dict:
    """Per row (and ``row::metric`` for a secondary metric) with ≥ 2 models that have statistics."""
    out = {}
    for row in rows:
        for mi, metric in enumerate(m.name for m in row.groups[0].metrics):
            rs = {m: recs.get(row.name, m, metric) for m in row.models}
            rs = {m: r for m, r in rs.items() if r is not None and r.mean is not None}
            if len(rs) < 2:
                continue
            neg = "negated_metric" in next(iter(rs.values())).flags
            table = {m: [r.template_scores[t] for t in row.templates] for m, r in rs.items()}
            if neg:  # lower is better: rank on −s
                table = {m: [-v for v in vs] for m, vs in table.items()}
            res = (
                ST.rank_stability(table)
                if len(row.templates) >= 2
                else {"n_models": len(rs), "n_templates": len(row.templates), "note": "needs ≥ 2 templates"}
            )
            means = {m: (-r.mean if neg else r.mean) for m, r in rs.items()}
            shs = {m: r.sharpe_value() for m, r in rs.items()}
            cps = {m: r.cps for m, r in rs.items()}
            res.update(
                {
                    "metric": metric,
                    "templates": row.templates,
                    "rank_by_mean": ST.order(means),
                    "rank_by_sharpe": ST.order(shs, sharpe_like=True),
                    "rank_by_cps": ST.order(cps),
                    "flips": ST.flips(means, shs),
                    "flips_note": "[better by mean, better by Sharpe]",
                }
            )
            out[row.name if mi == 0 else f"{row.name}::{metric}"] = res
    return out


def _mean_ranks(
    recs: RecordSet, chosen: dict[str, dict[str, Row]], datasets, include: list[str]
) -> dict[str, list[float]]:
    """Rank of every included model per dataset by S (ties: average rank; undefined S: no rank)."""
    ranks: dict[str, list[float]] = defaultdict(list)
    for ds in datasets:
        vals = {m: recs.get(chosen[m][ds].name, m, chosen[m][ds].primary).sharpe_value() for m in include}
        ordered = [m for m in ST.order(vals, sharpe_like=True) if not math.isnan(vals[m])]
        keyed = [ST.sort_key(vals[m]) for m in ordered]
        i = 0
        while i < len(ordered):
            j = i
            while j + 1 < len(ordered) and keyed[j + 1] == keyed[i]:
                j += 1
            for k in range(i, j + 1):
                ranks[ordered[k]].append((i + j) / 2 + 1)
            i = j + 1
    return ranks


def _block(recs: RecordSet, rs: list[Row], models: list[str]) -> dict:
    """One roll-up (a domain, or overall). Each dataset counts once: when a dataset has several rows (e.g. a
    log-likelihood row and its generation-based variant), a model's entry is its first available row in order
    (shortest name first, i.e. the base group); ``rows_used`` says which."""
    by_ds: dict[str, list[Row]] = defaultdict(list)
    for r in sorted(rs, key=lambda r: (len(r.name), r.name)):
        by_ds[r.dataset].append(r)
    chosen: dict[str, dict[str, Row]] = {}
    for m in models:
        chosen[m] = {
            ds: next(r for r in cand if recs.get(r.name, m, r.primary) is not None)
            for ds, cand in by_ds.items()
            if any(recs.get(r.name, m, r.primary) is not None for r in cand)
        }
    include = [m for m in models if len(chosen[m]) == len(by_ds)]
    excluded = {m: sorted(ds for ds in by_ds if ds not in chosen[m]) for m in models if m not in include}
    ranks = _mean_ranks(recs, chosen, by_ds, include)
    per_model = {}
    for m in include:
        rr = [recs.get(r.name, m, r.primary) for r in chosen[m].values()]
        mus = [x.mean for x in rr if x.mean is not None]
        sds = [x.std for x in rr if x.std is not None]
        shs = [x.sharpe for x in rr if x.sharpe_status == "ok"]
        per_model[m] = {
            "mean_mu": float(np.mean(mus)) if mus else None,
            "mean_sigma": float(np.mean(sds)) if sds else None,
            "mean_sharpe": float(np.mean(shs)) if shs else None,
            "n_finite_sharpe": len(shs),
            "n_nonfinite_sharpe": len(rr) - len(shs),
            "mean_rank": float(np.mean(ranks[m])) if ranks[m] else None,
            "n_datasets": len(rr),
            "rows_used": sorted(r.name for r in chosen[m].values()),
        }
    return {
        "datasets": sorted(by_ds),
        "rows": [r.name for r in rs],
        "metrics": {r.name: r.primary for r in rs},
        "models": per_model,
        "excluded_models": excluded,
        "note": "equal weight per dataset; no σ across datasets; Sharpe mean over finite values",
    }


def _unpooled(rows: list[Row], suites: list[str]) -> dict:
    """The ``overall`` entry when the rows come from several suites: their rows and metrics, no model statistics
    (the suites' datasets and templates have nothing in common; each suite has its own roll-up)."""
    return {
        "datasets": sorted({r.dataset for r in rows}),
        "rows": [r.name for r in rows],
        "metrics": {r.name: r.primary for r in rows},
        "models": {},
        "excluded_models": {},
        "note": f"not pooled across the suites {', '.join(suites)}: see suites",
    }


def rollup(recs: RecordSet, rows: list[Row], models: list[str]) -> dict:
    """Domain and overall rows: equal-weight means over datasets of μ, σ and S; mean rank by S. Rows of several
    suites (``metadata.suite``: the enterprise datasets, the NLU suite) are never pooled: then ``suites`` holds
    one overall roll-up per suite and ``overall`` only the rows (:func:`_unpooled`)."""
    domains = sorted({r.domain for r in rows})
    out = {"domains": {d: _block(recs, [r for r in rows if r.domain == d], models) for d in domains}}
    suite_of = {r.name: r.metadata("suite", DEFAULT_SUITE) for r in rows}
    suites = sorted(set(suite_of.values()))
    if len(suites) <= 1:
        out["overall"] = _block(recs, rows, models)
        return out
    out["overall"] = _unpooled(rows, suites)
    out["suites"] = {s: _block(recs, [r for r in rows if suite_of[r.name] == s], models) for s in suites}
    return out
