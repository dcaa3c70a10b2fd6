"""Writers for the aggregation result: ``leaderboard.md``, CSVs and ``report.html`` (``aggregate.json``:
:mod:`.serialize`; everything at once: :func:`.outputs.write_all`).

All writers take the dict returned by :func:`lm_eval_enterprise.sharpe.engine.aggregate`.
"""
from __future__ import annotations

import base64
import csv
import html
import io
import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from .serialize import clean, to_json  # noqa: F401  (re-exported: writers and tests use them from here)


# ============================================================================================== formatting
def fmt(v: Any, nd: int = 3) -> str:
    if v is None:
        return "–"
    if isinstance(v, float):
        return f"{v:.{nd}f}"
    return str(v)


def fmt_sharpe(rec: dict, nd: int = 2, ci: bool = True) -> str:
    st = rec["sharpe_status"]
    if st == "ok":
        out = f"{rec['sharpe']:.{nd}f}"
    elif st == "inf":
        out = "∞ (σ=0)"
    elif st == "-inf":
        out = "−∞ (σ=0)"
    elif st == "single_template":
        out = "n/a (1 template)"
    elif st == "no_baseline":
        out = "n/a (no baseline)"
    elif rec.get("degenerate_std"):
        out = "undefined (σ=0, μ=b)"
    else:
        out = "undefined"
    c = (rec.get("ci") or {}).get("sharpe") if ci else None
    if c and st == "ok":
        out += f" [{c[0]:.{nd}f}, {c[1]:.{nd}f}]"
    return out


def fmt_mean_std(rec: dict) -> str:
    if rec["mean"] is None:
        return "–"
    return f"{rec['mean']:.3f} ± {rec['std']:.3f}" if rec["std"] is not None else f"{rec['mean']:.3f}"


def mean_failure(rec: dict) -> float | None:
    ff = rec.get("format_failure")
    if not ff:
        return None
    vals = [v for v in ff.values() if v is not None]
    return float(np.mean(vals)) if vals else None


def _dataset_records(result: dict, mode: str = "strict") -> dict[tuple[str, str], dict]:
    """(group, model) → record of the row's primary metric at dataset level."""
    primary = {g: m for d in [result["macro"]["overall"]] for g, m in d["metrics"].items()}
    out = {}
    for r in result["records"]:
        if r["level"] == "dataset" and r["scoring_mode"] == mode and primary.get(r["group"]) == r["metric"]:
            out[(r["group"], r["model"])] = r
    return out


def _model_order(result: dict) -> list[str]:
    ov = result["macro"]["overall"]["models"]
    return sorted(result["models"], key=lambda m: (m not in ov, (ov.get(m) or {}).get("mean_rank") or 1e9,
                                                   -((ov.get(m) or {}).get("mean_sharpe") or -1e9), m))


def _settings_line(result: dict) -> str:
    s = result["settings"]
    tpl = ", templates resampled too" if s["bootstrap_templates"] else ""
    return (f"baseline `{s['baseline']}`, ddof {s['ddof']}, α = {s['alpha']}, σ floor `{s['sigma_floor']}`, "
            f"bootstrap B = {s['bootstrap']} (seed {s['seed']}{tpl}), scoring `{s['scoring']}` (strict shown)")


# ============================================================================================== Markdown
def markdown(result: dict, full: bool = True) -> str:
    recs = _dataset_records(result)
    groups = [r["group"] for r in result["rows"] if any((r["group"], m) in recs for m in result["models"])]
    models = _model_order(result)
    ov = result["macro"]["overall"]["models"]
    footnotes: dict[str, int] = {}

    def note(text: str) -> str:
        if text not in footnotes:
            footnotes[text] = len(footnotes) + 1
        return f"[^{footnotes[text]}]"

    lines = ["## Sharpe leaderboard across instruction templates", "",
             f"S = (μ − b)/σ over templates; {_settings_line(result)}. Rows are models, best mean rank first.", ""]
    head = ["#", "model", "mean Sharpe", "mean rank"] + [g for g in groups]
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "---|" * len(head))
    for i, m in enumerate(models, 1):
        o = ov.get(m)
        cells = [str(i), m, fmt((o or {}).get("mean_sharpe"), 2) if o else "excluded" + note(
            f"{m}: missing datasets {result['macro']['overall']['excluded_models'].get(m)}; not in the macro columns"),
                 fmt((o or {}).get("mean_rank"), 2) if o else "–"]
        for g in groups:
            r = recs.get((g, m))
            cells.append(fmt_sharpe(r, ci=False) if r else "–")
        lines.append("| " + " | ".join(cells) + " |")
    if not full:
        return "\n".join(lines) + "\n"
    for row in result["rows"]:
        g = row["group"]
        rs = [recs[(g, m)] for m in models if (g, m) in recs]
        if not rs:
            continue
        r0 = rs[0]
        b = r0["baseline"]
        bdesc = (f"b = {fmt(b['value'])} ({b['method']})" if b["value"] is not None
                 else f"no baseline ({b.get('note', '')})")
        lines += ["", f"### {g} — {r0['metric']} ({row['domain']})", "",
                  f"{r0['n_templates']} templates, {fmt(r0['n_docs'])} documents, {bdesc}."
                  + (f" Subtasks: {', '.join(r0.get('subtasks') or [])}." if r0.get("subtasks") else ""), ""]
        tids = r0["templates"]
        head = ["model", "μ ± σ", "Sharpe [95% CI]", "min", "max", "CPS", "fail%"] + tids
        lines.append("| " + " | ".join(head) + " |")
        lines.append("|" + "---|" * len(head))
        for r in rs:
            fl = [f for f in r["flags"] if f not in ("negated_metric",)]
            mark = note(f"{g} / {r['model']}: " + ", ".join(
                f"{f} ({json.dumps(r['flag_details'][f], ensure_ascii=False)})" if f in r["flag_details"] else f
                for f in fl)) if fl else ""
            mf = mean_failure(r)
            cells = [r["model"] + mark, fmt_mean_std(r), fmt_sharpe(r), fmt(r["min"]), fmt(r["max"]), fmt(r["cps"]),
                     "–" if mf is None else f"{100 * mf:.1f}"]
            for t in tids:
                v = r["template_scores"].get(t)
                ff = (r.get("format_failure") or {}).get(t)
                cells.append(fmt(v) + (f" ({100 * ff:.0f}% fail)" if ff else ""))
            lines.append("| " + " | ".join(cells) + " |")
        rk = result["rank_stability"].get(g)
        if rk and rk.get("kendall_w") is not None:
            flips = ", ".join(f"({a}, {b})" for a, b in rk["flips"]) or "none"
            lines += ["", f"Rank stability: Kendall's W = {rk['kendall_w']:.3f}, mean τ_b = "
                          f"{fmt(rk['kendall_tau_mean'])}, Friedman χ² = {rk['friedman_chi2']:.3f} "
                          f"(p = {fmt(rk['friedman_p'])}); by mean {' > '.join(rk['rank_by_mean'])}; by Sharpe "
                          f"{' > '.join(rk['rank_by_sharpe'])}; pairs that flip: {flips}."]
    dom = result["macro"]["domains"]
    if dom:
        lines += ["", "### Domains and overall", "",
                  "Equal weight per dataset (no σ across datasets); Sharpe averaged over finite values.", "",
                  "| scope | model | datasets | mean μ | mean σ | mean Sharpe (finite/total) | mean rank |",
                  "|---|---|---|---|---|---|---|"]
        for scope, blk in list(dom.items()) + [("overall", result["macro"]["overall"])]:
            for m in models:
                o = blk["models"].get(m)
                if o is None:
                    if m in blk["excluded_models"]:
                        lines.append(f"| {scope} | {m} | excluded (missing {', '.join(blk['excluded_models'][m])}) "
                                     "| – | – | – | – |")
                    continue
                lines.append(f"| {scope} | {m} | {o['n_datasets']} | {fmt(o['mean_mu'])} | {fmt(o['mean_sigma'])} | "
                             f"{fmt(o['mean_sharpe'], 2)} ({o['n_finite_sharpe']}/{o['n_datasets']}) | "
                             f"{fmt(o['mean_rank'], 2)} |")
    if footnotes:
        lines += [""] + [f"[^{i}]: {t}" for t, i in footnotes.items()]
    return "\n".join(lines) + "\n"


# ============================================================================================== CSV
SCALARS = ["level", "group", "dataset", "domain", "subtask", "model", "metric", "filter", "scoring_mode",
           "n_templates", "n_docs", "mean", "std", "ddof", "sharpe", "sharpe_status", "alpha", "sigma_floor_mode",
           "sigma_floor_active", "degenerate_std", "min", "max", "spread", "maxp", "avgp", "cps", "pss"]


def leaderboard_rows(result: dict) -> list[dict]:
    rows = []
    for r in result["records"]:
        row = {k: r.get(k) for k in SCALARS}
        row["baseline"] = r["baseline"]["value"]
        row["baseline_method"] = r["baseline"]["method"]
        for q, v in (r.get("quantiles") or {}).items():
            row[q] = v
        for field in ("ci", "ci_templates"):
            c = r.get(field) or {}
            for stat in ("mean", "std", "sharpe"):
                iv = c.get(stat)
                row[f"{field}_{stat}_lo"] = iv[0] if iv else None
                row[f"{field}_{stat}_hi"] = iv[1] if iv else None
            row[f"{field}_frac_degenerate"] = c.get("frac_degenerate")
        row["mean_failure_rate"] = mean_failure(r)
        row["flags"] = ";".join(r["flags"])
        rows.append(row)
    return rows


def _write_csv(path: Path, rows: list[dict], fields: list[str] | None = None) -> None:
    fields = fields or (list(rows[0]) if rows else [])
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({k: ("" if v is None else (repr(v) if isinstance(v, float) else v))
                        for k, v in clean(r).items()})


def write_csvs(result: dict, out: Path) -> None:
    lb = leaderboard_rows(result)
    fields = []
    for r in lb:
        for k in r:
            if k not in fields:
                fields.append(k)
    _write_csv(out / "leaderboard.csv", lb, fields)
    pt = []
    for r in result["records"]:
        for t in r["templates"]:
            pt.append({"level": r["level"], "model": r["model"], "group": r["group"], "metric": r["metric"],
                       "scoring_mode": r["scoring_mode"], "template_id": t, "score": r["template_scores"].get(t),
                       "failure_rate": (r.get("format_failure") or {}).get(t),
                       "task": (r.get("tasks") or {}).get(t)})
    _write_csv(out / "per_template.csv", pt, ["level", "model", "group", "metric", "scoring_mode", "template_id",
                                              "task", "score", "failure_rate"])
    with open(out / "per_document.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["level", "model", "group", "metric", "basis", "doc_key", "s_d", "per_template"])
        for r in result["records"]:
            pd_ = r.get("_per_doc")
            if pd_ is None:
                continue
            keys, mat, sd = pd_
            tids = r["templates"]
            for j, k in enumerate(keys):
                w.writerow([r["level"], r["model"], r["group"], r["metric"], r["pss_basis"], k, repr(float(sd[j])),
                            ";".join(f"{t}={mat[i, j]:g}" for i, t in enumerate(tids))])


# ============================================================================================== HTML
def _png(fig) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=72)
    import matplotlib.pyplot as plt

    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _grid(n: int, per_row: int = 4, w: float = 3.6, h: float = 2.8):
    import matplotlib.pyplot as plt

    cols = min(per_row, max(n, 1))
    rows = max(1, math.ceil(n / cols))
    fig, axes = plt.subplots(rows, cols, figsize=(w * cols, h * rows + 1.0), squeeze=False)
    # fixed spacing (constrained layout is several times slower on 25+ panels); room for rotated tick labels
    fig.subplots_adjust(left=0.06, right=0.98, bottom=0.9 / (h * rows + 1.0), top=1 - 0.9 / (h * rows + 1.0),
                        hspace=0.75, wspace=0.3)
    for ax in axes.ravel()[n:]:
        ax.set_visible(False)
    return fig, axes.ravel()


def plots(result: dict) -> dict[str, str]:
    """Base64 PNGs: strip plots, Sharpe bars with CI whiskers, rank bump chart, failure heatmap, μ–σ scatter."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    recs = _dataset_records(result)
    models = _model_order(result)
    groups = [r["group"] for r in result["rows"] if any((r["group"], m) in recs for m in models)]
    colors = {m: plt.get_cmap("tab10")(i % 10) for i, m in enumerate(models)}
    out = {}
    if not groups:
        return out
    # 1. per-template scores per model (strip + box), baseline line
    fig, axes = _grid(len(groups))
    for ax, g in zip(axes, groups):
        rs = [(m, recs[(g, m)]) for m in models if (g, m) in recs]
        data = [[v for v in r["template_scores"].values() if v is not None] for _, r in rs]
        ax.boxplot(data, widths=0.5, showfliers=False)
        xs = np.concatenate([np.full(len(d), i) + np.linspace(-0.12, 0.12, len(d)) for i, d in enumerate(data, 1)])
        cs = [colors[m] for (m, _), d in zip(rs, data) for _ in d]
        ax.scatter(xs, np.concatenate(data), s=14, c=cs, zorder=3)
        b = rs[0][1]["baseline"]["value"]
        if b is not None:
            ax.axhline(b, color="grey", ls="--", lw=1, label="baseline")
        ax.set_xticks(range(1, len(rs) + 1), [m for m, _ in rs], rotation=30, ha="right", fontsize=7)
        ax.set_title(f"{g} ({rs[0][1]['metric']})", fontsize=8)
    fig.suptitle("Per-template scores per model (dashed: baseline b)", fontsize=10)
    out["strip"] = _png(fig)
    # 2. Sharpe bars with CI whiskers
    fig, axes = _grid(len(groups))
    for ax, g in zip(axes, groups):
        rs = [(m, recs[(g, m)]) for m in models if (g, m) in recs]
        x = np.arange(len(rs))
        finite = [r["sharpe"] if r["sharpe_status"] == "ok" else 0.0 for _, r in rs]
        ax.bar(x, finite, color=[colors[m] for m, _ in rs])
        ex, ey, lo, hi = [], [], [], []
        for i, (m, r) in enumerate(rs):
            c = (r.get("ci") or {}).get("sharpe")
            if r["sharpe_status"] == "ok" and c:
                ex.append(i)
                ey.append(r["sharpe"])
                lo.append(max(r["sharpe"] - c[0], 0))
                hi.append(max(c[1] - r["sharpe"], 0))
            elif r["sharpe_status"] != "ok":
                ax.text(i, 0, {"inf": "∞", "-inf": "−∞"}.get(r["sharpe_status"], "n/a"), ha="center",
                        va="bottom", fontsize=8)
        if ex:
            ax.errorbar(ex, ey, yerr=[lo, hi], fmt="none", ecolor="black", capsize=3, lw=1)
        ax.axhline(0, color="black", lw=0.5)
        ax.set_xticks(x, [m for m, _ in rs], rotation=30, ha="right", fontsize=7)
        ax.set_title(g, fontsize=8)
    fig.suptitle("Sharpe score with 95% bootstrap CI (documents resampled)", fontsize=10)
    out["sharpe"] = _png(fig)
    # 3. rank bump chart
    rk_groups = [g for g in groups if (result["rank_stability"].get(g) or {}).get("ranks_per_template")]
    if rk_groups:
        fig, axes = _grid(len(rk_groups))
        for ax, g in zip(axes, rk_groups):
            rk = result["rank_stability"][g]
            tids = rk["templates"]
            for m, ranks in rk["ranks_per_template"].items():
                ax.plot(range(len(tids)), ranks, marker="o", color=colors.get(m), label=m)
            ax.invert_yaxis()
            ax.set_xticks(range(len(tids)), tids, fontsize=7)
            ax.set_title(f"{g}: W = {rk['kendall_w']:.2f}", fontsize=8)
        axes[0].legend(fontsize=6)
        fig.suptitle("Model rank per template (1 = best)", fontsize=10)
        out["bump"] = _png(fig)
    # 4. format-failure heatmap (model × group/template)
    cols = [(g, t) for g in groups for t in recs[(g, next(m for m in models if (g, m) in recs))]["templates"]]
    mat = np.full((len(models), len(cols)), np.nan)
    for i, m in enumerate(models):
        for j, (g, t) in enumerate(cols):
            r = recs.get((g, m))
            if r and r.get("format_failure"):
                v = r["format_failure"].get(t)
                mat[i, j] = np.nan if v is None else v
    if np.isfinite(mat).any():
        fig, ax = plt.subplots(figsize=(max(6, 0.18 * len(cols) + 2), 0.4 * len(models) + 1.5))
        im = ax.imshow(mat, aspect="auto", cmap="Reds", vmin=0, vmax=1)
        ax.set_yticks(range(len(models)), models, fontsize=7)
        step = max(1, len(cols) // 60)
        ax.set_xticks(range(0, len(cols), step), [f"{g}:{t}" for g, t in cols][::step], rotation=90, fontsize=6)
        fig.colorbar(im, ax=ax, label="format-failure rate")
        ax.set_title("Format failures per model × template", fontsize=10)
        out["failures"] = _png(fig)
    # 5. μ − b vs σ with iso-Sharpe lines
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    smax = 0.0
    for m in models:
        xs, ys = [], []
        for g in groups:
            r = recs.get((g, m))
            if r and r["std"] is not None and r["baseline"]["value"] is not None and r["mean"] is not None:
                xs.append(r["std"])
                ys.append(r["mean"] - r["baseline"]["value"])
        if xs:
            ax.scatter(xs, ys, color=colors[m], label=m, s=18)
            smax = max(smax, max(xs))
    sx = np.linspace(0, smax * 1.1 or 0.1, 50)
    for s in (1, 2, 5, 10):
        ax.plot(sx, s * sx, color="grey", lw=0.6, ls=":")
        ax.text(sx[-1], s * sx[-1], f"S={s}", fontsize=7, color="grey")
    ax.axhline(0, color="black", lw=0.5)
    ax.set_xlabel("σ across templates")
    ax.set_ylabel("μ − b")
    ax.set_title("Mean excess score vs std (one point per model × dataset)", fontsize=10)
    ax.legend(fontsize=7)
    out["scatter"] = _png(fig)
    return out


def _md_table_to_html(md: str) -> str:
    """Minimal Markdown → HTML for the leaderboard text (tables, headings, paragraphs)."""
    out, table = [], []

    def flush():
        if table:
            rows = [r.strip().strip("|").split("|") for r in table if not set(r.strip()) <= set("|-")]
            h = "".join(f"<th>{html.escape(c.strip())}</th>" for c in rows[0])
            body = "".join("<tr>" + "".join(f"<td>{html.escape(c.strip())}</td>" for c in r) + "</tr>"
                           for r in rows[1:])
            out.append(f"<table><thead><tr>{h}</tr></thead><tbody>{body}</tbody></table>")
            table.clear()

    for line in md.splitlines():
        if line.startswith("|"):
            table.append(line)
            continue
        flush()
        if line.startswith("### "):
            out.append(f"<h3>{html.escape(line[4:])}</h3>")
        elif line.startswith("## "):
            out.append(f"<h2>{html.escape(line[3:])}</h2>")
        elif line.strip():
            out.append(f"<p>{html.escape(line)}</p>")
    flush()
    return "\n".join(out)


def html_report(result: dict, md: str | None = None) -> str:
    imgs = plots(result)
    md = md if md is not None else markdown(result)
    titles = {"strip": "Per-template scores", "sharpe": "Sharpe with confidence intervals",
              "bump": "Rank per template", "failures": "Format failures", "scatter": "Mean vs std"}
    figs = "\n".join(f"<h2>{titles[k]}</h2><img alt='{titles[k]}' src='data:image/png;base64,{v}'/>"
                     for k, v in imgs.items())
    msgs = "".join(f"<li>{html.escape(m)}</li>" for m in result["messages"])
    prov = html.escape(json.dumps(clean(result["provenance"]), indent=1, ensure_ascii=False))
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Sharpe score report</title>
<style>body{{font-family:system-ui,sans-serif;margin:2em;max-width:1400px}}table{{border-collapse:collapse;
font-size:12px;margin:0.5em 0}}td,th{{border:1px solid #ccc;padding:2px 6px;text-align:right}}
td:first-child,th:first-child{{text-align:left}}img{{max-width:100%}}pre{{font-size:11px;background:#f6f6f6;
padding:0.5em;overflow:auto}}</style></head><body>
<h1>Sharpe score across instruction templates</h1>
{_md_table_to_html(md)}
{figs}
<h2>Messages</h2><ul>{msgs or '<li>none</li>'}</ul>
<h2>Provenance</h2><pre>{prov}</pre>
</body></html>
"""
