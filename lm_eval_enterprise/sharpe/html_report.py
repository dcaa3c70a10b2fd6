"""``report.html``: one self-contained page (plots embedded as PNG, no scripts, no external resources).

The text part is the Markdown of :func:`.report.markdown` rendered to HTML by :func:`markdown_to_html`, which
handles exactly the Markdown that module writes: headings, paragraphs, ``- `` lists, ``> `` notes, tables,
inline ``code`` and ``**bold**``, and footnotes (``[^n]`` references, ``[^n]: text`` definitions).
"""

from __future__ import annotations

import html
import json
import re

from .report import markdown, toy_models
from .serialize import clean

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


def markdown_to_html(md: str) -> str:
    """HTML of the report's Markdown (see the module docstring for the subset handled)."""
    out: list[str] = []
    block: list[str] = []
    kind = None
    footnotes: list[tuple[str, str]] = []

    def flush() -> None:
        nonlocal kind
        if not block:
            return
        if kind == "table":
            out.append(_table(block))
        elif kind == "list":
            out.append("<ul>" + "".join(f"<li>{_inline(x[2:])}</li>" for x in block) + "</ul>")
        elif kind == "note":
            text = " ".join(x[1:].strip() for x in block)
            extra = " toy" if text.startswith("**Toy data") else ""
            out.append(f'<div class="note{extra}" role="note">{_inline(text)}</div>')
        else:
            out.append(f"<p>{_inline(' '.join(block))}</p>")
        block.clear()
        kind = None

    for line in md.splitlines():
        m = _FNDEF.match(line)
        new = (
            "table"
            if line.startswith("|")
            else "list"
            if line.startswith("- ")
            else "note"
            if line.startswith(">")
            else "para"
            if line.strip() and not m and not line.startswith("#")
            else None
        )
        if new != kind or new is None:
            flush()
        if m:
            footnotes.append((m.group(1), m.group(2)))
        elif line.startswith("### "):
            out.append(f"<h3>{_inline(line[4:])}</h3>")
        elif line.startswith("## "):
            out.append(f"<h2>{_inline(line[3:])}</h2>")
        elif new is not None:
            kind = new
            block.append(line)
    flush()
    if footnotes:
        items = "".join(f'<li id="fn-{n}">{_inline(t)}</li>' for n, t in footnotes)
        out.append(f'<section class="footnotes"><h3>Notes</h3><ol>{items}</ol></section>')
    return "\n".join(out)


def html_report(result: dict, md: str | None = None) -> str:
    from .plots import plots

    imgs = plots(result)
    md = md if md is not None else markdown(result)
    toy = toy_models(result)
    tag = ' <span class="toy-tag">TOY DATA</span>' if toy else ""
    figs = "\n".join(
        f"<figure><h3>{PLOT_TEXT[k][0]}</h3><figcaption>{PLOT_TEXT[k][1]}</figcaption>"
        f"<img alt='{PLOT_TEXT[k][0]}' src='data:image/png;base64,{v}'/></figure>"
        for k, v in imgs.items()
    )
    msgs = "".join(f"<li>{html.escape(m)}</li>" for m in result["messages"])
    prov = html.escape(json.dumps(clean(result["provenance"]), indent=1, ensure_ascii=False))
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
