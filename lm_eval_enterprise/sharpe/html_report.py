"""``report.html``: one self-contained page (plots embedded as PNG, no scripts, no external resources).

The text part is the Markdown of :func:`.report.markdown` rendered to HTML by :func:`markdown_to_html`, which
handles exactly the Markdown that module writes: headings, paragraphs, ``- `` lists, ``> `` notes, tables,
inline ``code`` and ``**bold**``, and footnotes (``[^n]`` references, ``[^n]: text`` definitions).

The plots (matplotlib, PNG): per-template scores, Sharpe with intervals, rank per template, format failures, mean
excess vs std. Readability rules: models are on the vertical axis (names read horizontally, the left margin is
sized to the longest name), panels share that axis so names are written once per row of panels, text is 9–13 pt
at 100 dpi, and the iso-Sharpe guides of the scatter plot never set its limits (the data does).
"""

from __future__ import annotations

import base64
import html
import io
import math
import re
from itertools import groupby

import numpy as np

from ..text import natural_key
from .report import dataset_records, markdown, model_order, shown_groups, to_json

_CODE = re.compile(r"`([^`]+)`")
_BOLD = re.compile(r"\*\*(.+?)\*\*")
_FNREF = re.compile(r"\[\^(\d+)\]")
_FNDEF = re.compile(r"^\[\^(\d+)\]:\s*(.*)$")
_NUMERIC = re.compile(r"^([−+\-]?\d|[−+]?∞|–|n/a|undefined|excluded)")

PLOT_TEXT = {
    "strip": (
        "Per-template scores",
        "Each dot is one template's score; the black bar is the mean μ and the dashed "
        "line the baseline b. A wide spread means the model's score depends on the "
        "instruction wording.",
    ),
    "sharpe": (
        "Sharpe score with confidence intervals",
        "S = (μ − b)/σ per model and dataset; whiskers: 95% bootstrap interval over documents.",
    ),
    "bump": (
        "Rank per template",
        "Model ranks under each template; crossing lines mean the templates disagree on which model is better.",
    ),
    "failures": (
        "Format failures",
        "Share of outputs (%) that the template's answer pattern could not parse, per "
        "dataset and template; one panel per model.",
    ),
    "scatter": (
        "Mean vs std",
        "Mean excess score μ − b against the standard deviation σ across templates; points "
        "on the same dotted line have the same Sharpe score.",
    ),
}

CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:2em auto;max-width:1500px;padding:0 1.5em;
color:#222;line-height:1.45}
h1{font-size:1.7em;margin-bottom:.2em}h2{margin-top:1.6em;border-bottom:1px solid #ddd;padding-bottom:.2em}
h3{margin-top:1.4em}
.table-wrap{overflow-x:auto;max-width:100%}table{border-collapse:collapse;font-size:13px;margin:.6em 0}
td,th{border:1px solid #ccc;padding:3px 7px;text-align:left;vertical-align:top}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
th{background:#f3f3f3}tr:nth-child(even) td{background:#fafafa}
code{background:#f1f1f1;border-radius:3px;padding:0 3px;font-size:.92em}
.note{border-left:5px solid #999;background:#f6f6f6;padding:.6em 1em;margin:1em 0}
.note.toy{border-color:#c62828;background:#fdecea;font-size:1.05em}
.toy-tag{background:#c62828;color:#fff;border-radius:3px;padding:1px 6px;font-size:.8em;vertical-align:middle}
figure{margin:1em 0}figcaption{color:#444;margin:.3em 0 .6em}img{max-width:100%;height:auto;display:block}
.footnotes{font-size:13px;color:#333}.footnotes li{margin:.2em 0}
sup a{text-decoration:none}
pre{font-size:11px;background:#f6f6f6;padding:.6em;overflow:auto}
"""


def _inline(text: str) -> str:
    """Escape, then inline code, bold and footnote references."""
    out = html.escape(text, quote=False)
    out = _CODE.sub(lambda m: f"<code>{m.group(1)}</code>", out)
    out = _BOLD.sub(lambda m: f"<strong>{m.group(1)}</strong>", out)
    return _FNREF.sub(lambda m: f'<sup><a href="#fn-{m.group(1)}">{m.group(1)}</a></sup>', out)


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _table(lines: list[str]) -> str:
    rows = [_cells(r) for r in lines if not set(r.strip()) <= set("|-: ")]
    head, body = rows[0], rows[1:]
    num = [bool(body) and all(_NUMERIC.match(r[j]) for r in body if j < len(r)) for j in range(len(head))]

    def cls(j: int) -> str:
        return ' class="num"' if num[j] else ""

    h = "".join(f"<th{cls(j)}>{_inline(c)}</th>" for j, c in enumerate(head))
    b = "".join("<tr>" + "".join(f"<td{cls(j)}>{_inline(c)}</td>" for j, c in enumerate(r)) + "</tr>" for r in body)
    return f'<div class="table-wrap"><table><thead><tr>{h}</tr></thead><tbody>{b}</tbody></table></div>'


def _block_kind(line: str) -> str | None:
    """The kind of block a line of the report's Markdown belongs to; None for a line that stands alone (a heading,
    a footnote definition) or a blank line."""
    for prefix, kind in (("|", "table"), ("- ", "list"), (">", "note")):
        if line.startswith(prefix):
            return kind
    return "para" if line.strip() and not _FNDEF.match(line) and not line.startswith("#") else None


def _block(kind: str, block: list[str]) -> str:
    if kind == "table":
        return _table(block)
    if kind == "list":
        return "<ul>" + "".join(f"<li>{_inline(x[2:])}</li>" for x in block) + "</ul>"
    if kind == "note":
        text = " ".join(x[1:].strip() for x in block)
        extra = " toy" if text.startswith("**Toy data") else ""
        return f'<div class="note{extra}" role="note">{_inline(text)}</div>'
    return f"<p>{_inline(' '.join(block))}</p>"


def markdown_to_html(md: str) -> str:
    """HTML of the report's Markdown (see the module docstring for the subset handled): consecutive lines of one
    kind make one block."""
    out: list[str] = []
    footnotes: list[tuple[str, str]] = []
    for kind, lines in groupby(md.splitlines(), key=_block_kind):
        if kind is not None:
            out.append(_block(kind, list(lines)))
            continue
        for line in lines:
            if m := _FNDEF.match(line):
                footnotes.append((m.group(1), m.group(2)))
            elif line.startswith("### "):
                out.append(f"<h3>{_inline(line[4:])}</h3>")
            elif line.startswith("## "):
                out.append(f"<h2>{_inline(line[3:])}</h2>")
    if footnotes:
        items = "".join(f'<li id="fn-{n}">{_inline(t)}</li>' for n, t in footnotes)
        out.append(f'<section class="footnotes"><h3>Notes</h3><ol>{items}</ol></section>')
    return "\n".join(out)


def html_report(result: dict, md: str | None = None) -> str:
    imgs = plots(result)
    md = md if md is not None else markdown(result)
    toy = result.get("toy_data") or {}
    tag = ' <span class="toy-tag">TOY DATA</span>' if toy else ""
    figs = "\n".join(
        f"<figure><h3>{PLOT_TEXT[k][0]}</h3><figcaption>{PLOT_TEXT[k][1]}</figcaption>"
        f"<img alt='{PLOT_TEXT[k][0]}' src='data:image/png;base64,{v}'/></figure>"
        for k, v in imgs.items()
    )
    msgs = "".join(f"<li>{html.escape(m)}</li>" for m in result["messages"])
    prov = html.escape(to_json(result["provenance"]))
    title = "Sharpe score report" + (" (TOY DATA)" if toy else "")
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>{CSS}</style></head><body>
<h1>Sharpe score across instruction templates{tag}</h1>
{markdown_to_html(md)}
<h2>Plots</h2>
{figs}
<h2>Messages</h2><ul>{msgs or "<li>none</li>"}</ul>
<h2>Provenance</h2><details><summary>inputs, versions, settings</summary><pre>{prov}</pre></details>
</body></html>
"""


# ============================================================================================== plots
DPI = 100
RC = {
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.labelsize": 10,
    "xtick.labelsize": 9,
    "ytick.labelsize": 9,
    "legend.fontsize": 9,
    "figure.titlesize": 13,
}
CHAR_IN = 0.075  # width of one 9-pt label character, inches (DejaVu Sans, generous)


def _label_width(labels) -> float:
    return 0.35 + CHAR_IN * max((len(str(x)) for x in labels), default=4)


def _panels(plt, n: int, n_rows_each: int, labels, per_row=3, panel_w=3.3, row_h=0.34, extra_top=0.0):
    """A grid of ``n`` panels sharing the y axis (``n_rows_each`` categories labelled ``labels``), with fixed
    margins in inches (constrained layout is several times slower on 25+ panels)."""
    cols = min(per_row, max(n, 1))
    rows = max(1, math.ceil(n / cols))
    left = _label_width(labels)
    panel_h = max(1.5, row_h * n_rows_each + 0.3)
    gap_h, top, bottom, right = 0.85, 0.4 + extra_top, 0.55, 0.25
    fig_w = left + cols * panel_w + (cols - 1) * 0.2 + right
    fig_h = top + rows * panel_h + (rows - 1) * gap_h + bottom
    fig, axes = plt.subplots(rows, cols, figsize=(fig_w, fig_h), squeeze=False, sharey=True)
    fig.subplots_adjust(
        left / fig_w, bottom / fig_h, 1 - right / fig_w, 1 - top / fig_h, 0.2 / panel_w, gap_h / panel_h
    )
    for ax in axes.ravel()[n:]:
        ax.set_visible(False)
    return fig, axes.ravel()


def _model_axis(ax, models: list[str]) -> None:
    ax.set_yticks(range(len(models)), models)
    ax.set_ylim(len(models) - 0.5, -0.5)  # first model (best mean rank) on top
    ax.grid(axis="x", color="#dddddd", lw=0.6)
    ax.set_axisbelow(True)


def _strip_figure(plt, result, recs, models, groups, colors):
    fig, axes = _panels(plt, len(groups), len(models), models)
    for ax, g in zip(axes, groups):
        r0 = next(recs[(g, m)] for m in models if (g, m) in recs)
        for i, m in enumerate(models):
            r = recs.get((g, m))
            vals = [v for v in (r["template_scores"].values() if r else []) if v is not None]
            if not vals:
                continue
            ax.plot([min(vals), max(vals)], [i, i], color=colors[m], lw=1.5, alpha=0.5)
            ax.scatter(vals, np.full(len(vals), i), s=26, color=colors[m], zorder=3, edgecolor="white", lw=0.5)
            if r["mean"] is not None:
                ax.plot([r["mean"]] * 2, [i - 0.3, i + 0.3], color="black", lw=1.2)
        b = r0["baseline"]["value"]
        if b is not None:
            ax.axvline(b, color="grey", ls="--", lw=1)
        _model_axis(ax, models)
        ax.set_title(f"{g} ({r0['metric']})", loc="left")
    return fig


def _sharpe_figure(plt, result, recs, models, groups, colors):
    fig, axes = _panels(plt, len(groups), len(models), models)
    for ax, g in zip(axes, groups):
        finite = [
            abs(recs[(g, m)]["sharpe"]) for m in models if (g, m) in recs and recs[(g, m)]["sharpe_status"] == "ok"
        ]
        span = max(finite, default=1.0) or 1.0
        for i, m in enumerate(models):
            r = recs.get((g, m))
            if r is None:
                continue
            if r["sharpe_status"] == "ok":
                ax.barh(i, r["sharpe"], color=colors[m], height=0.6)
                c = (r.get("ci") or {}).get("sharpe")
                if c:
                    err = [[max(r["sharpe"] - c[0], 0)], [max(c[1] - r["sharpe"], 0)]]
                    ax.errorbar(r["sharpe"], i, xerr=err, fmt="none", ecolor="black", capsize=3, lw=1)
            else:
                label = {"inf": "+∞ (σ = 0)", "-inf": "−∞ (σ = 0)"}.get(r["sharpe_status"], "undefined")
                ax.text(0.02 * span, i, label, va="center", ha="left", fontsize=9, color="#444444")
        ax.axvline(0, color="black", lw=0.6)
        _model_axis(ax, models)
        ax.set_title(g, loc="left")
    return fig


def _bump_figure(plt, result, models, groups, colors):
    rk_groups = [g for g in groups if (result["rank_stability"].get(g) or {}).get("ranks_per_template")]
    if not rk_groups:
        return None
    n_models = max(len(result["rank_stability"][g]["ranks_per_template"]) for g in rk_groups)
    fig, axes = _panels(plt, len(rk_groups), n_models, ["rank 10"], row_h=0.4, extra_top=0.35)
    for ax, g in zip(axes, rk_groups):
        rk = result["rank_stability"][g]
        tids = rk["templates"]
        for m, ranks in rk["ranks_per_template"].items():
            ax.plot(range(len(tids)), ranks, marker="o", color=colors.get(m), label=m)
        ax.set_xticks(range(len(tids)), tids)
        ax.set_yticks(range(1, n_models + 1), [f"rank {k}" for k in range(1, n_models + 1)])
        ax.set_ylim(n_models + 0.5, 0.5)
        ax.set_title(f"{g}: W = {rk['kendall_w']:.2f}", loc="left")
    handles = [plt.Line2D([], [], color=colors[m], marker="o", label=m) for m in models]
    anchor = (0.01, 1 - 0.05 / fig.get_figheight())
    fig.legend(handles=handles, loc="upper left", bbox_to_anchor=anchor, ncol=min(len(models), 4), frameon=False)
    return fig


def _failure_figure(plt, result, recs, models, groups):
    tids = sorted({t for r in recs.values() for t in r["templates"]}, key=natural_key)

    def rate(g: str, m: str, t: str) -> float:
        v = ((recs.get((g, m)) or {}).get("format_failure") or {}).get(t)
        return np.nan if v is None else v

    mats = {m: np.array([[rate(g, m, t) for t in tids] for g in groups], dtype=float) for m in models}
    if not any(np.isfinite(mat).any() for mat in mats.values()):
        return None
    width = 0.55 * len(tids) + 0.6
    fig, axes = _panels(plt, len(models), len(groups), groups, per_row=3, panel_w=width, row_h=0.3, extra_top=0.1)
    for ax, m in zip(axes, models):
        mat = mats[m]
        extent = (-0.5, len(tids) - 0.5, len(groups) - 0.5, -0.5)
        ax.imshow(np.ma.masked_invalid(mat), aspect="auto", cmap="Reds", vmin=0, vmax=1, extent=extent)
        for (i, j), v in np.ndenumerate(mat):
            txt, dark = ("–", False) if not np.isfinite(v) else (f"{100 * v:.0f}", v > 0.6)
            ax.text(j, i, txt, ha="center", va="center", fontsize=8, color="white" if dark else "black")
        ax.set_xticks(range(len(tids)), tids)
        ax.set_yticks(range(len(groups)), groups)
        ax.set_ylim(len(groups) - 0.5, -0.5)
        ax.set_title(m, loc="left")
    return fig


def _scatter_figure(plt, result, recs, models, groups, colors):
    pts = {
        m: [
            (r["std"], r["mean"] - r["baseline"]["value"])
            for g in groups
            for r in [recs.get((g, m))]
            if r and r["std"] is not None and r["mean"] is not None and r["baseline"]["value"] is not None
        ]
        for m in models
    }
    if not any(pts.values()):
        return None
    label_w = _label_width(models)
    fig_w, fig_h = 7.0 + label_w, 5.0
    fig, ax = plt.subplots(figsize=(fig_w, fig_h))
    fig.subplots_adjust(0.9 / fig_w, 0.7 / fig_h, (fig_w - label_w - 0.3) / fig_w, 1 - 0.3 / fig_h)
    xs = [x for p in pts.values() for x, _ in p]
    ys = [y for p in pts.values() for _, y in p]
    xmax = max(max(xs) * 1.15, 1e-3)
    lo, hi = min(0.0, min(ys)), max(0.0, max(ys))
    pad = max(0.08 * (hi - lo), 0.01)
    ylo, yhi = lo - pad, hi + pad
    markers = "osD^v<>Ph*"
    for k, m in enumerate(models):
        if pts[m]:
            style = {"marker": markers[k % len(markers)], "s": 40, "zorder": 3, "edgecolor": "white", "lw": 0.5}
            ax.scatter(*zip(*pts[m]), color=colors[m], label=m, **style)
    xline = np.linspace(0, xmax, 50)
    for s in (0.5, 1, 2, 5, 10, 20):
        ax.plot(xline, s * xline, color="grey", lw=0.7, ls=":", zorder=1)
        x_end, y_end = (xmax, s * xmax) if s * xmax <= yhi else (yhi / s, yhi)
        if y_end > ylo + 0.05 * (yhi - ylo) and x_end > 0.05 * xmax:
            ha, va = ("right", "bottom") if x_end >= xmax else ("left", "top")
            ax.text(x_end, y_end, f" S={s:g}", fontsize=9, color="grey", ha=ha, va=va)
    ax.set_xlim(0, xmax)
    ax.set_ylim(ylo, yhi)
    ax.axhline(0, color="black", lw=0.6)
    ax.set_xlabel("σ across templates")
    ax.set_ylabel("μ − b")
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False)
    return fig


def figures(result: dict) -> dict[str, object]:
    """The report's matplotlib figures by name (strip, sharpe, bump, failures, scatter; absent when empty)."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    recs = dataset_records(result)
    models = model_order(result)
    groups = shown_groups(result, recs)
    colors = {m: plt.get_cmap("tab10")(i % 10) for i, m in enumerate(models)}
    if not groups:
        return {}
    with plt.rc_context(RC):
        figs = {
            "strip": _strip_figure(plt, result, recs, models, groups, colors),
            "sharpe": _sharpe_figure(plt, result, recs, models, groups, colors),
            "bump": _bump_figure(plt, result, models, groups, colors),
            "failures": _failure_figure(plt, result, recs, models, groups),
            "scatter": _scatter_figure(plt, result, recs, models, groups, colors),
        }
    return {name: fig for name, fig in figs.items() if fig is not None}


def plots(result: dict) -> dict[str, str]:
    """Base64 PNGs of :func:`figures` (each figure closed once saved)."""
    import matplotlib.pyplot as plt

    out = {}
    for name, fig in figures(result).items():
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=DPI)
        plt.close(fig)
        out[name] = base64.b64encode(buf.getvalue()).decode("ascii")
    return out
