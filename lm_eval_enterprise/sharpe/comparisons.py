"""Across models (docs/sharpe.md: #comparisons, #statistics, #grouping, #cross-lingual): paired model comparisons per
dataset row and metric (same templates, same documents: Δ_t = s_{A,t} − s_{B,t}, sign test and Wilcoxon over the
templates, ΔSharpe and per-template Δ_t intervals from the shared document resamples, a paired sign-flip permutation
test per template where the score is a mean of per-document values, Holm over all pairs), the greedy vs
regex-constrained comparison of each model (``--compare_decoding``, the same machinery), rank stability per row,
the domain and overall roll-ups (equal-weight means over datasets; one overall roll-up per suite, never pooled) and
the cross-lingual pairs of datasets (``metadata.pair``; :func:`cross_lingual_rows`).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from itertools import combinations

import numpy as np

from ..scoring import metrics as M
from ..scoring.bootstrap import percentile_ci
from ..scoring.sharpe_score import EPS, sharpe_matrix
from ..text import natural_key
from . import stats as ST
from .inputs import Diagnostics, Options
from .records import Record, RecordSet, baseline_arg
from .rows import Row


def _pairs(models: list[str], compare: list[str] | None) -> list[tuple[str, str]]:
    """Every pair, or the pairs asked for with ``--compare A,B`` (in the order asked)."""
    pairs = list(combinations(models, 2))
    if compare is None:
        return pairs
    wanted = {tuple(c.split(",", 1)) for c in compare}
    return [(a, b) if (a, b) in wanted else (b, a) for a, b in pairs if (a, b) in wanted or (b, a) in wanted]


def _resampled(mat: np.ndarray, rec: Record, b_arg, higher_is_better: bool, opts: Options):
    """(μ, σ, S) per resample of one record's B × T resampled template scores (S None without a baseline; μ on the
    metric's own scale)."""
    sign = 1.0 if higher_is_better else -1.0
    mu, sd, sh, _ = sharpe_matrix(
        sign * mat, sign * (b_arg if b_arg is not None else 0.0), opts.ddof, opts.alpha, opts.floor_mode(), rec.n_docs
    )
    return sign * mu, sd, (sh if b_arg is not None else None)


def _bootstrap_fields(
    comp: dict, ra: Record, rb: Record, tids: list[str], higher_is_better: bool, opts: Options
) -> dict | None:
    """Per-template intervals of Δ_t and the ΔSharpe interval from the shared document resamples; returns the
    resampled (μ, σ, S) of both records (None without resamples)."""
    ma, mb = ra.scores_bt, rb.scores_bt
    if ma is None or mb is None:
        comp.update(delta_ci=None, delta_sharpe_ci=None, bootstrap=None)
        return None
    d_bt = ma - mb
    comp["delta_ci"] = {t: percentile_ci(d_bt[:, j]) for j, t in enumerate(tids)}
    b_arg = baseline_arg(ra.baseline, tids)
    res_a = _resampled(ma, ra, b_arg, higher_is_better, opts)
    res_b = _resampled(mb, rb, b_arg, higher_is_better, opts)
    comp["delta_sharpe_ci"] = percentile_ci(res_a[2] - res_b[2]) if b_arg is not None else None
    comp["bootstrap"] = {"B": opts.bootstrap, "seed": opts.seed, "shared_doc_indices": True}
    return {"a": res_a, "b": res_b}


def _compare(row: Row, metric: str, ra: Record, rb: Record, higher_is_better: bool, opts: Options) -> dict | None:
    tids = ra.templates
    sa = np.array([ra.template_scores[t] for t in tids], dtype=float)
    sb = np.array([rb.template_scores[t] for t in tids], dtype=float)
    if not (np.all(np.isfinite(sa)) and np.all(np.isfinite(sb))):
        return None
    delta = sa - sb
    comp = {
        "group": row.name,
        "metric": metric,
        "model_a": ra.model,
        "model_b": rb.model,
        "templates": tids,
        "delta": {t: float(d) for t, d in zip(tids, delta)},
        "mean_delta": float(delta.mean()),
    }
    sign = ST.sign_test(delta)
    comp.update({"a_wins": sign["wins"], "b_wins": sign["losses"], "ties": sign["ties"], "sign_test_p": sign["p"]})
    wx = ST.wilcoxon(delta)
    comp["wilcoxon_statistic"], comp["wilcoxon_p"] = wx["statistic"], wx["p"]
    sha, shb = ra.sharpe, rb.sharpe
    comp["delta_sharpe"] = (sha - shb) if sha is not None and shb is not None else None
    comp["delta_sharpe_status"] = (
        "ok" if comp["delta_sharpe"] is not None else f"{ra.sharpe_status} vs {rb.sharpe_status}"
    )
    comp["_resampled"] = _bootstrap_fields(comp, ra, rb, tids, higher_is_better, opts)
    comp["permutation_p"] = None
    comp["permutation_note"] = (
        "no per-document metric values (corpus-level metric, dataset with subtasks, or no samples)"
    )
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


def _compare_pairs(recs: RecordSet, rows: list[Row], opts: Options, pairs_of, extend=None) -> list[dict]:
    """Paired comparisons of the model pairs ``pairs_of(models of a row)`` on every dataset row and metric (strict
    scores): per-template Δ_t and tests, ΔSharpe with its shared-resample interval, permutation tests, Holm over
    the returned comparisons. ``extend(comp, row, spec, record_a, record_b)`` adds fields to each comparison."""
    out: list[dict] = []
    for row in rows:
        for spec in row.metrics:
            models = [m for m in row.models if recs.get(row.name, m, spec.name) is not None]
            pending: list[tuple[int, list[str], np.ndarray]] = []
            for a, b in pairs_of(models):
                ra, rb = recs.get(row.name, a, spec.name), recs.get(row.name, b, spec.name)
                comp = _compare(row, spec.name, ra, rb, spec.higher_is_better, opts)
                if comp is None:
                    continue
                resampled = comp.pop("_resampled")
                if extend is not None:
                    extend(comp, row, spec, ra, rb, resampled)
                pa, pb = recs.per_doc.get((row.name, a, spec.name)), recs.per_doc.get((row.name, b, spec.name))
                if pa is not None and pb is not None and pa[2] and pb[2]:
                    pending.append((len(out), comp["templates"], pa[0] - pb[0]))
                out.append(comp)
            _permutation_tests(out, pending, opts)
    _holm(out)
    return out


def comparisons(recs: RecordSet, rows: list[Row], opts: Options) -> list[dict]:
    """Every reported model pair of every dataset row and metric (strict scores)."""
    return _compare_pairs(recs, rows, opts, lambda models: _pairs(models, opts.compare))


# ============================================================================================== decoding
def decoding_pairs(rows: list[Row], diag: Diagnostics) -> list[tuple[str, str, str]]:
    """(model, unconstrained run, regex-constrained run) for every model with exactly one run of each decoding mode
    (the display names of :func:`.inputs.name_models`); a model with several settings in one mode is reported."""
    modes: dict[str, dict[str, set[str]]] = {}
    for row in rows:
        for name, by_t in row.runs.items():
            r = next(iter(by_t.values()))
            modes.setdefault(r.base_model or name, {}).setdefault(r.decoding, set()).add(name)
    pairs = []
    for base, by_mode in sorted(modes.items()):
        u, c = sorted(by_mode.get("unconstrained", ())), sorted(by_mode.get("regex_constrained", ()))
        if len(u) == 1 and len(c) == 1:
            pairs.append((base, u[0], c[0]))
        elif u and c:
            diag.note(
                f"--compare_decoding: model {base} has {len(u)} unconstrained and {len(c)} "
                f"regex-constrained runs with different settings ({', '.join(u + c)}); not compared "
                "(pick a pair with --compare A,B)"
            )
    if not pairs:
        diag.note("--compare_decoding: no model has both an unconstrained and a regex-constrained run")
    return pairs


def _mean_of(values: dict[str, float | None] | None) -> float | None:
    if not values or any(v is None for v in values.values()):
        return None
    return float(np.mean(list(values.values())))


def _mode_summary(row: Row, spec, rec: Record) -> dict:
    """One decoding mode's side of a decoding comparison; ``format_adherence`` per template as the results file
    reports it (all documents of the run; None where a template's results lack it, e.g. log-likelihood ranking)."""
    sign = 1.0 if spec.higher_is_better else -1.0
    adh = {t: row.runs[rec.model][t].reported(f"format_adherence,{spec.filter}") for t in row.templates}
    return {
        "model": rec.model,
        "mean": None if rec.mean is None else sign * rec.mean,
        "std": rec.std,
        "sharpe": rec.sharpe,
        "sharpe_status": rec.sharpe_status,
        "sharpe_ci": (rec.ci or {}).get("sharpe"),
        "format_failure": _mean_of(rec.format_failure),
        "format_failure_per_template": rec.format_failure,
        "format_adherence": _mean_of(adh),
        "format_adherence_per_template": adh,
    }


def decoding_comparisons(recs: RecordSet, rows: list[Row], opts: Options, diag: Diagnostics) -> list[dict]:
    """``--compare_decoding``: per model with both decoding modes, per dataset row and metric, the paired comparison
    regex-constrained − unconstrained (the comparison stage above, on the shared document resamples) with Δμ, Δσ,
    ΔSharpe and their percentile intervals, plus format failures and adherence of both modes. Holm corrections
    run over these comparisons only."""
    by_pair = {(c, u): base for base, u, c in decoding_pairs(rows, diag)}

    def pairs_of(models: list[str]) -> list[tuple[str, str]]:
        return [(c, u) for (c, u) in by_pair if c in models and u in models]

    def extend(comp: dict, row: Row, spec, rc: Record, ru: Record, resampled: dict | None) -> None:
        comp["model"] = by_pair[(rc.model, ru.model)]
        comp["dataset"], comp["domain"] = row.dataset, row.domain
        comp["direction"] = "regex_constrained − unconstrained"
        comp["delta_mean"] = comp["mean_delta"]
        comp["delta_std"] = None if rc.std is None or ru.std is None else rc.std - ru.std
        comp["delta_mean_ci"] = comp["delta_std_ci"] = None
        if resampled is not None:
            (mu_c, sd_c, _), (mu_u, sd_u, _) = resampled["a"], resampled["b"]
            comp["delta_mean_ci"] = percentile_ci(mu_c - mu_u)
            if len(comp["templates"]) > 1:
                comp["delta_std_ci"] = percentile_ci(sd_c - sd_u)
        comp["unconstrained"], comp["constrained"] = _mode_summary(row, spec, ru), _mode_summary(row, spec, rc)

    return _compare_pairs(recs, rows, opts, pairs_of, extend)


# ============================================================================================== rank stability, roll-ups
def rank_stability(recs: RecordSet, rows: list[Row]) -> dict:
    """Per row (and ``row::metric`` for a secondary metric) with ≥ 2 models that have statistics."""
    out = {}
    for row in rows:
        for mi, metric in enumerate(m.name for m in row.metrics):
            rs = {m: recs.get(row.name, m, metric) for m in row.models}
            rs = {m: r for m, r in rs.items() if r is not None and r.mean is not None}
            if len(rs) < 2:
                continue
            neg = "negated_metric" in next(iter(rs.values())).flags
            table = {m: [r.template_scores[t] for t in row.templates] for m, r in rs.items()}
            if neg:  # lower is better: rank on −s
                table = {m: [-v for v in vs] for m, vs in table.items()}
            res = {"n_models": len(rs), "n_templates": len(row.templates), "note": "needs ≥ 2 templates"}
            if len(row.templates) >= 2:
                res = ST.rank_stability(table)
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
        ranked = [m for m in include if not math.isnan(vals[m])]  # ±inf rank first / last, as S sorts
        for m, r in zip(ranked, ST.rank_desc([vals[m] for m in ranked])):
            ranks[m].append(float(r))
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


def rollup(recs: RecordSet, rows: list[Row], models: list[str]) -> dict:
    """Domain and overall rows: equal-weight means over datasets of μ, σ and S; mean rank by S. Rows of several
    suites (``metadata.suite``: the enterprise datasets, the NLU suite) are never pooled: then ``suites`` holds
    one overall roll-up per suite and ``overall`` only the rows and metrics, with no model statistics (the suites'
    datasets and templates have nothing in common)."""
    domains = sorted({r.domain for r in rows})
    out = {"domains": {d: _block(recs, [r for r in rows if r.domain == d], models) for d in domains}}
    suite_of = {r.name: r.taskmeta.suite for r in rows}
    suites = sorted(set(suite_of.values()))
    if len(suites) <= 1:
        out["overall"] = _block(recs, rows, models)
        return out
    out["overall"] = {**_block(recs, rows, []), "note": f"not pooled across the suites {', '.join(suites)}: see suites"}
    out["suites"] = {s: _block(recs, [r for r in rows if suite_of[r.name] == s], models) for s in suites}
    return out


# ============================================================================================== cross-lingual
MIN_RANK_TEMPLATES = 3  # a rank correlation over fewer shared templates is not reported


@dataclass
class LanguageSide:
    """One side of a cross-lingual pair for one model: the dataset row's μ, σ and S (its strict record of the
    primary metric) and its best and worst templates among the shared ones (every template tied at the extreme,
    within ``sharpe_score.EPS``; None when all shared templates score the same)."""

    dataset: str
    language: str
    group: str
    metric: str
    mean: float | None
    std: float | None
    sharpe: float | None
    sharpe_status: str
    degenerate_std: bool
    best: list[str] | None
    worst: list[str] | None


@dataclass
class CrossLingualRow:
    """One model on one pair of datasets whose templates translate each other (English side first)."""

    model: str
    pair: list[str]  # the two datasets, in the order of ``sides``
    sides: list[LanguageSide]
    templates: list[str]  # templates both sides scored (finite), natural order
    n: int
    spearman: float | None  # None when undefined (``spearman_status`` says why), never 0 in its place
    spearman_status: str  # ok | too_few_templates | constant
    spearman_note: str
    best_agree: bool | None  # the two sides' best templates share one; None when a side has no best
    worst_agree: bool | None
    unshared: dict[str, list[str]]  # dataset → its templates the other side lacks (or scored undefined)


def _oriented(rec: Record) -> dict[str, float]:
    """The record's finite per-template scores, oriented so that higher is better."""
    sign = -1.0 if "negated_metric" in rec.flags else 1.0
    return {t: sign * v for t, v in rec.template_scores.items() if v is not None and math.isfinite(v)}


def _is_constant(values: Sequence[float]) -> bool:
    return max(values) - min(values) < EPS


def extreme_templates(scores: Mapping[str, float]) -> tuple[list[str] | None, list[str] | None]:
    """(best, worst): the templates at the maximum and at the minimum of ``scores`` (higher is better; ties, within
    ``sharpe_score.EPS``, all listed, natural order); (None, None) when every template scores the same."""
    vals = list(scores.values())
    if not vals or _is_constant(vals):
        return None, None
    hi, lo = max(vals), min(vals)
    order = sorted(scores, key=natural_key)
    return [t for t in order if hi - scores[t] < EPS], [t for t in order if scores[t] - lo < EPS]


def template_rank_correlation(
    a: Mapping[str, float], b: Mapping[str, float], labels: tuple[str, str] = ("a", "b")
) -> tuple[list[str], float | None, str, str]:
    """(shared templates, ρ, status, note): Spearman's ρ (the Pearson r of the average ranks, ties sharing their
    mean rank: :func:`lm_eval_enterprise.scoring.metrics.spearman`) between ``a[t]`` and ``b[t]`` over the
    templates t both have. Undefined (ρ None, never 0) with fewer than :data:`MIN_RANK_TEMPLATES` shared templates
    (``too_few_templates``) or when one side scores every shared template the same (``constant``: no ranking)."""
    shared = sorted(set(a) & set(b), key=natural_key)
    n = len(shared)
    if n < MIN_RANK_TEMPLATES:
        return shared, None, "too_few_templates", f"undefined: {n} shared templates (fewer than {MIN_RANK_TEMPLATES})"
    x, y = [a[t] for t in shared], [b[t] for t in shared]
    flat = [lab for lab, v in zip(labels, (x, y)) if _is_constant(v)]
    if flat:
        return shared, None, "constant", f"undefined: every shared template of {' and '.join(flat)} scores the same"
    return shared, M.spearman(x, y), "ok", ""


def _side(rec: Record, language: str, scores: Mapping[str, float]) -> LanguageSide:
    best, worst = extreme_templates(scores)
    of_record = {
        f.name: getattr(rec, f.name) for f in fields(LanguageSide) if f.name not in ("language", "best", "worst")
    }
    return LanguageSide(language=language, best=best, worst=worst, **of_record)


def _agree(x: list[str] | None, y: list[str] | None) -> bool | None:
    return None if x is None or y is None else bool(set(x) & set(y))


def cross_lingual_row(model: str, recs: tuple[Record, Record], languages: tuple[str, str]) -> CrossLingualRow:
    """The comparison of one model's records of the two datasets of a pair (see :class:`CrossLingualRow`); best
    and worst templates are taken among the shared templates."""
    oriented = [_oriented(r) for r in recs]
    shared, rho, status, note = template_rank_correlation(*oriented, labels=languages)
    sides = [_side(r, lang, {t: o[t] for t in shared}) for r, lang, o in zip(recs, languages, oriented)]
    unshared = {r.dataset: sorted(set(r.templates) - set(shared), key=natural_key) for r in recs}
    return CrossLingualRow(
        model=model,
        pair=[r.dataset for r in recs],
        sides=sides,
        templates=shared,
        n=len(shared),
        spearman=rho,
        spearman_status=status,
        spearman_note=note,
        best_agree=_agree(sides[0].best, sides[1].best),
        worst_agree=_agree(sides[0].worst, sides[1].worst),
        unshared={d: ts for d, ts in unshared.items() if ts},
    )


def _pairs_of(languages: Mapping[str, tuple[str | None, str]], notes: list[str]) -> list[tuple[str, str]]:
    """The dataset pairs named by ``metadata.pair`` on both sides, English side first (then by language, name);
    a pair named by one side only is a note."""
    out = set()
    for ds, (lang, partner) in sorted(languages.items()):
        if partner not in languages:
            notes.append(f"cross-lingual: {ds} ({lang}) pairs with {partner}, which is not in the inputs; no row")
            continue
        back = languages[partner][1]
        if back != ds:
            notes.append(f"cross-lingual: {ds} pairs with {partner}, but {partner} pairs with {back}; not compared")
            continue
        key = sorted((ds, partner), key=lambda d: (languages[d][0] != "en", str(languages[d][0]), d))
        out.add((key[0], key[1]))
    return sorted(out)


def cross_lingual_rows(
    records: Sequence[Record], languages: Mapping[str, tuple[str | None, str]]
) -> tuple[list[CrossLingualRow], list[str]]:
    """(rows, notes) of every cross-lingual pair and model. ``records``: the strict dataset-level records of each
    row's primary metric (a dataset with several rows is represented by its shortest row name, as in the
    roll-ups); ``languages``: dataset → (language, the paired dataset) from the variants' metadata. Pairs are
    formed by that metadata only (both sides must name each other); a model with only one side of a pair gets no
    row and a note."""
    notes: list[str] = []
    by: dict[tuple[str, str], Record] = {}
    for r in sorted(records, key=lambda r: (len(r.group), r.group)):
        by.setdefault((r.dataset, r.model), r)
    rows = []
    for a, b in _pairs_of(languages, notes):
        models = sorted({m for d, m in by if d in (a, b)})
        for m in models:
            ra, rb = by.get((a, m)), by.get((b, m))
            if ra is None or rb is None:
                have, lack = (a, b) if rb is None else (b, a)
                notes.append(f"cross-lingual {a} / {b}: model {m} has results for {have} only (no {lack}); no row")
                continue
            rows.append(cross_lingual_row(m, (ra, rb), (str(languages[a][0]), str(languages[b][0]))))
    return rows, notes


def cross_lingual(recs: RecordSet, rows: list[Row]) -> tuple[list[dict], list[str]]:
    """The cross-lingual rows (JSON-ready dicts) and notes of the aggregation: languages and pairs from each dataset
    row's ``metadata.language`` / ``metadata.pair``; ([], []) when no row carries a pair."""
    languages = {row.dataset: (row.taskmeta.language, row.taskmeta.pair) for row in rows if row.taskmeta.pair}
    if not languages:
        return [], []
    records = [r for row in rows for m in row.models if (r := recs.get(row.name, m, row.primary)) is not None]
    found, notes = cross_lingual_rows(records, languages)
    return [asdict(r) for r in found], notes
