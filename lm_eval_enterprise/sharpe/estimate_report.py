"""Markdown of the estimates (``sparse_estimates.md``, ``population_estimates.md``): each says in its title that
it shows ESTIMATES and gives the share of (template, document) cells observed. Written by :mod:`.outputs`; the
results come from :func:`.sparse_io.aggregate_sparse` and :func:`.populations.population_records`."""

from __future__ import annotations

import math

POPULATION_TITLE = "ESTIMATES: template populations (never pooled with the core set)"


def _f(x, fmt: str = ".3f") -> str:
    return "–" if x is None or (isinstance(x, float) and not math.isfinite(x)) else format(x, fmt)


def _ci(ci, fmt: str = ".3f") -> str:
    return "" if not ci else f" [{_f(ci[0], fmt)}, {_f(ci[1], fmt)}]"


def sparse_markdown(result: dict) -> str:
    """The estimates of a sparse run: one line per model × dataset row."""
    recs = result["records"]
    shares = sorted({round(r["share"], 4) for r in recs})
    lines = [
        "ESTIMATES from a sparse design (model-based plug-in; observed cells kept, missing cells imputed by a "
        "template + document effect model) — share of (template, document) cells observed: "
        + ", ".join(f"{s:.1%}" for s in shares),
        "",
        "| dataset | model | cells | mean μ [95% CI] | std σ [95% CI] | Sharpe [95% CI] | per template "
        "(naive: observed cells only) |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in recs:
        ci = r.get("ci") or {}
        sh = _f(r["sharpe"], ".2f") if r["sharpe"] is not None else r["sharpe_status"]
        per = ", ".join(f"{t} {_f(r['scores'][t])} ({_f(r['naive_scores'][t])})" for t in r["templates"])
        lines.append(
            f"| {r['name']} ({r['metric']}) | {r['model']} | "
            f"{r['cells_observed']}/{r['cells_total']} ({r['share']:.0%}) | "
            f"{_f(r['mean'])}{_ci(ci.get('mean'))} | {_f(r['std'])}{_ci(ci.get('std'))} | "
            f"{sh}{_ci(ci.get('sharpe'), '.2f')} | {per} |"
        )
    lines.append("")
    lines.append(
        f"baseline b: {', '.join(sorted({str(r['baseline_method']) for r in recs}))}; ddof "
        f"{recs[0]['ddof'] if recs else ''}; intervals: document bootstrap with the cell model refitted"
    )
    return "\n".join(lines) + "\n"


def population_markdown(result: dict) -> str:
    """The population section: one line per model × population group ("" without any)."""
    recs = result.get("records") or []
    if not recs:
        return ""
    lines = [
        f"## {POPULATION_TITLE}",
        "",
        "Each population group is scored on its own: μ, σ and S over its templates, with 95 % intervals over "
        "documents and templates; q05…q95 are the quantiles of the template scores; 'cells' is the share of "
        "(template, document) cells observed (below 100 %: model-based estimates). Compare with the core-set row "
        "of the same dataset above; the two are never averaged.",
        "",
        "| model | population group | metric | templates | cells | μ | σ | S | q05 / q25 / q50 / q75 / q95 | "
        "worst decile |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in sorted(recs, key=lambda r: (r["model"], r["group"])):
        ci = r.get("ci") or {}
        q = " / ".join(_f(v) for v in r["quantiles"])
        worst = ", ".join(r["worst_decile"][:5]) + (" …" if len(r["worst_decile"]) > 5 else "")
        lines.append(
            f"| {r['model']} | {r['group']} | {r['metric']} | {len(r['templates'])} | {r['share']:.1%} | "
            f"{_f(r['mean'])}{_ci(ci.get('mean'))} | {_f(r['std'])}{_ci(ci.get('std'))} | "
            f"{_f(r['sharpe'], '.2f')}{_ci(ci.get('sharpe'))} | {q} | {worst} |"
        )
    notes = [_precision_line(r) for r in sorted(recs, key=lambda r: (r["model"], r["group"])) if r.get("precision")]
    if notes:
        lines += [
            "",
            "Precision (95 % half-widths; targets ±0.5 on S, ±0.02 on σ; `population --plan` for others):",
            "",
        ]
        lines += notes
    return "\n".join(lines) + "\n"


def _precision_line(r: dict) -> str:
    """One record's precision against the default targets: reached or not, and the planner's runs."""
    names = {"sharpe": "S", "std": "σ"}
    parts = []
    for stat, p in r["precision"].items():
        if p["met"]:
            verdict = "met"
        elif p["runs_needed"]:
            verdict = f"not met; about {p['runs_needed']} single-template runs would meet it"
        else:
            verdict = "not met; more runs cannot meet it" + (
                f" (about {p['templates_needed']} templates would)" if p.get("templates_needed") else ""
            )
        run = f", a full run of these templates ±{_f(p['half_width_full_run'])}" if r.get("ci_full_run") else ""
        parts.append(f"{names.get(stat, stat)} ±{_f(p['half_width'])}{run} (target ±{p['target']:g}: {verdict})")
    rests = (r.get("information") or {}).get("rests_on_prior") or []
    prior = f"; resting mostly on the prior: {', '.join(rests)}" if rests else ""
    return f"* {r['model']} {r['group']}: " + "; ".join(parts) + prior
