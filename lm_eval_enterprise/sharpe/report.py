"""The writers of text and tables: ``aggregate.json`` (valid JSON without NaN/inf, private fields dropped),
``leaderboard.md``, the CSVs and the Markdown of the estimates (``sparse_estimates.md``, ``population_estimates.md``),
with the record helpers the HTML page shares (HTML: :mod:`.html_report`, leaderboard layouts: :mod:`.export`, every
output into one folder: :func:`.pipeline.write_outputs`).

The full tool's writers take the dict of :func:`lm_eval_enterprise.sharpe.pipeline.full_run`, the estimates' those of
:mod:`.estimates`.
"""

from __future__ import annotations

import csv
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..scoring.chance import ROUGE_METRICS

PRIVATE = ("_per_doc", "_scores_bt")


def clean(obj: Any) -> Any:
    """JSON-ready copy: private fields dropped, numpy scalars converted, non-finite floats → None (status says why)."""
    if isinstance(obj, dict):
        return {str(k): clean(v) for k, v in obj.items() if k not in PRIVATE}
    if isinstance(obj, (list, tuple)):
        return [clean(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return clean(obj.tolist())
    if isinstance(obj, (np.floating, float)):
        v = float(obj)
        return v if math.isfinite(v) else None
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.bool_):
        return bool(obj)
    return obj


def to_json(result: dict) -> str:
    return json.dumps(clean(result), indent=1, allow_nan=False, ensure_ascii=False)


# flags that describe a dataset row (every model's record carries them); shown once under the row's table
ROW_FLAGS = tuple(
    "high_failure broken_template templates_dropped doc_set_intersected excluded_templates grouped_by_name cut_queries".split()
)
HIDDEN_FLAGS = ("negated_metric",)


# ============================================================================================== formatting
def fmt(v: Any, nd: int = 3) -> str:
    if v is None:
        return "–"
    if isinstance(v, float):
        return f"{v:.{nd}f}"
    return str(v)


STATUS_TEXT = {
    "inf": "∞ (σ=0)",
    "-inf": "−∞ (σ=0)",
    "single_template": "n/a (1 template)",
    "no_baseline": "n/a (no baseline)",
}


def fmt_sharpe(rec: dict, nd: int = 2, ci: bool = True) -> str:
    st = rec["sharpe_status"]
    undefined = "undefined (σ=0, μ=b)" if rec.get("degenerate_std") else "undefined"
    out = f"{rec['sharpe']:.{nd}f}" if st == "ok" else STATUS_TEXT.get(st, undefined)
    c = (rec.get("ci") or {}).get("sharpe") if ci else None
    if c and st == "ok":
        out += f" [{c[0]:.{nd}f}, {c[1]:.{nd}f}]"
    return out


def fmt_mean_std(rec: dict) -> str:
    if rec["mean"] is None:
        return "–"
    return f"{rec['mean']:.3f} ± {rec['std']:.3f}" if rec["std"] is not None else f"{rec['mean']:.3f}"


def mean_failure(rec: dict) -> float | None:
    vals = [v for v in (rec.get("format_failure") or {}).values() if v is not None]
    return float(np.mean(vals)) if vals else None


def table(head: list[str], rows: list[list[str]]) -> list[str]:
    """A Markdown table: the header line, its rule and one line per row."""
    return ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)] + ["| " + " | ".join(r) + " |" for r in rows]


# ============================================================================================== record helpers
def dataset_records(result: dict, mode: str = "strict") -> dict[tuple[str, str], dict]:
    """(group, model) → record of the row's primary metric at dataset level."""
    primary = result["macro"]["overall"]["metrics"]
    out = {}
    for r in result["records"]:
        if r["level"] == "dataset" and r["scoring_mode"] == mode and primary.get(r["group"]) == r["metric"]:
            out[(r["group"], r["model"])] = r
    return out


def rollup_blocks(result: dict) -> list[tuple[str, dict]]:
    """(scope, roll-up) of the overall roll-ups: ``overall``, or one ``<suite> overall`` per suite when the rows
    come from several suites (never pooled: :func:`.comparisons.rollup`)."""
    suites = result["macro"].get("suites")
    if not suites:
        return [("overall", result["macro"]["overall"])]
    return [(f"{s} overall", blk) for s, blk in suites.items()]


def model_order(result: dict, block: dict | None = None) -> list[str]:
    """Models by mean rank in ``block`` (default: the first overall roll-up), then mean Sharpe, name; models
    outside the roll-up last."""
    ov = (block or rollup_blocks(result)[0][1])["models"]

    def key(m: str) -> tuple:
        o = ov.get(m) or {}
        return (m not in ov, o.get("mean_rank") or 1e9, -(o.get("mean_sharpe") or -1e9), m)

    return sorted(result["models"], key=key)


def shown_groups(result: dict, recs: dict) -> list[str]:
    return [r["group"] for r in result["rows"] if any((r["group"], m) in recs for m in result["models"])]


def data_label(result: dict, model: str, recs: dict, groups: list[str]) -> str:
    """``toy``, ``real`` or ``toy (k of n datasets)`` for the summary table's data column."""
    toy = set((result.get("toy_data") or {}).get(model, []))
    mine = [g for g in groups if (g, model) in recs]
    if not toy:
        return "real"
    n_toy = sum(g in toy for g in mine)
    return "toy" if n_toy == len(mine) else f"toy ({n_toy} of {len(mine)} datasets)"


def _settings_line(result: dict) -> str:
    s = result["settings"]
    tpl = ", templates resampled too" if s["bootstrap_templates"] else ""
    gen = s.get("generation_baseline", "zero")
    gen_txt = f", ROUGE baseline `{gen}`" if gen != "zero" else ""
    return (
        f"baseline `{s['baseline']}`{gen_txt}, ddof {s['ddof']}, α = {s['alpha']}, σ floor `{s['sigma_floor']}`, "
        f"bootstrap B = {s['bootstrap']} (seed {s['seed']}{tpl}), scoring `{s['scoring']}` (strict shown)"
    )


# ============================================================================================== Markdown
TOY_BANNER = (
    "> **Toy data.** {who} scored on the package's embedded fixture data (a few synthetic rows per "
    "dataset, for demos and tests), not on the benchmark: these numbers show that the pipeline runs, not "
    "how good a model is. They are marked `toy` in the data column."
)

DEFINITIONS = [
    "**How to read the tables.** Every template t gives a score s_t (the dataset's primary metric on the same "
    "documents, format failures counted as wrong).",
    "- **μ ± σ**: mean and standard deviation of s_t across templates (ddof {ddof}).",
    "- **b**: baseline, the expected score of an uninformative predictor (a random valid label; for ROUGE 0, or "
    "the score of the document's first sentences with `--generation_baseline lead-K`).",
    "- **Sharpe** S = (μ − b)/σ: how many template standard deviations the mean lies above the baseline; "
    "[95% CI] from resampling documents; ∞ when every template scores the same above b.",
    "- **min / max**: worst and best template.",
    "- **CPS** (combined performance score, Mizrahi et al. 2024) = MaxP·(1 − (MaxP − AvgP)) with MaxP the best "
    "template's score and AvgP = μ: high when the best template is good and the average is close to it.",
    "- **fail%**: share of outputs the template's answer pattern could not parse (mean over templates; per "
    "template in parentheses).",
    "- **mean Sharpe / mean rank**: mean over datasets of the finite S and of the model's rank by S.",
    "- **Kendall's W**: agreement of the model ranking across templates (1 = every template ranks the models alike).",
]


@dataclass
class _Footnotes:
    texts: dict[str, int] = field(default_factory=dict)  # footnote text → its number

    def ref(self, text: str) -> str:
        if text not in self.texts:
            self.texts[text] = len(self.texts) + 1
        return f"[^{self.texts[text]}]"

    def lines(self) -> list[str]:
        return [f"[^{i}]: {t}" for t, i in self.texts.items()]


def _detail(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(map(str, value))
    return json.dumps(value, ensure_ascii=False)


def _row_flag_lines(result: dict, rs: list[dict]) -> list[str]:
    """Dataset-level flags, once per row; high_failure names every model's failure rate on the template."""
    r0, out = rs[0], []
    thr = result["settings"].get("fail_threshold", 0.2)
    for f in ROW_FLAGS:
        if f not in r0["flags"]:
            continue
        d = r0["flag_details"].get(f)
        if f in ("high_failure", "broken_template"):
            parts = []
            for t in d or []:
                rates = ", ".join(
                    f"{r['model']} {100 * ((r.get('format_failure') or {}).get(t) or 0):.0f}%" for r in rs
                )
                parts.append(f"{t} (failures: {rates})")
            why = (
                f"failure rate above {100 * thr:.0f}% for some model, or far above this dataset's median"
                if f == "high_failure"
                else "for ≥ 80% of the models far below their median template, or high failures"
            )
            out.append(f"- `{f}` ({why}): {'; '.join(parts)}")
        else:
            out.append(f"- `{f}`" + (f": {_detail(d)}" if d is not None else ""))
    return ["", "Dataset flags (they concern the templates, not one model):"] + out if out else []


def _model_note(g: str, r: dict, notes: _Footnotes) -> str:
    fl = [f for f in r["flags"] if f not in HIDDEN_FLAGS and f not in ROW_FLAGS]
    if not fl:
        return ""
    return notes.ref(
        f"{g} / {r['model']}: "
        + ", ".join(f"`{f}` ({_detail(r['flag_details'][f])})" if f in r["flag_details"] else f"`{f}`" for f in fl)
    )


def _baseline_text(r0: dict) -> str:
    b = r0["baseline"]
    if b["value"] is None:
        return f"no baseline ({b.get('note', '')})"
    out = f"b = {fmt(b['value'])} ({b['method']})"
    if b["method"] == "zero" and r0["metric"] in ROUGE_METRICS:
        out += (
            ". With b = 0 for ROUGE, S = μ/σ also rewards a consistently low score (e.g. mostly format "
            "failures): read S with μ and fail%, or use `--generation_baseline lead-3`"
        )
    return out


def _summary_table(
    result: dict, recs: dict, models: list[str], groups: list[str], notes: _Footnotes, block: dict
) -> list[str]:
    head = ["#", "model", "data", "mean Sharpe", "mean rank"] + [g.removeprefix("ent_") for g in groups]
    rows = []
    for i, m in enumerate(models, 1):
        o = block["models"].get(m)
        missing = f"{m}: missing datasets {_detail(block['excluded_models'].get(m))}; not in the macro columns"
        rows.append(
            [str(i), m, data_label(result, m, recs, groups)]
            + (
                [fmt(o.get("mean_sharpe"), 2), fmt(o.get("mean_rank"), 2)]
                if o
                else ["excluded" + notes.ref(missing), "–"]
            )
            + [fmt_sharpe(recs[(g, m)], ci=False) if (g, m) in recs else "–" for g in groups]
        )
    return table(head, rows)


def _dataset_section(result: dict, row: dict, rs: list[dict], notes: _Footnotes) -> list[str]:
    g, r0 = row["group"], rs[0]
    lines = [
        "",
        f"### {g} — {r0['metric']} ({row['domain']})",
        "",
        f"{r0['n_templates']} templates, {fmt(r0['n_docs'])} "
        f"{'queries' if r0.get('key_source') == 'qid' else 'documents'}, {_baseline_text(r0)}.",
        "",
    ]
    tids = r0["templates"]
    rows = []
    for r in rs:
        fails = r.get("format_failure") or {}
        rows.append(
            [r["model"] + _model_note(g, r, notes), fmt_mean_std(r), fmt_sharpe(r)]
            + [fmt(r[k]) for k in ("min", "max", "cps")]
            + [_pct(mean_failure(r))]
            + [
                fmt(r["template_scores"].get(t)) + (f" ({100 * fails[t]:.0f}% fail)" if fails.get(t) else "")
                for t in tids
            ]
        )
    lines += table(["model", "μ ± σ", "Sharpe [95% CI]", "min", "max", "CPS", "fail%"] + tids, rows)
    lines += _row_flag_lines(result, rs)
    rk = result["rank_stability"].get(g)
    if rk and rk.get("kendall_w") is not None:
        flips = ", ".join(f"({a}, {b})" for a, b in rk["flips"]) or "none"
        lines += [
            "",
            f"Rank stability: Kendall's W = {rk['kendall_w']:.3f}, mean τ_b = "
            f"{fmt(rk['kendall_tau_mean'])}, Friedman χ² = {rk['friedman_chi2']:.3f} "
            f"(p = {fmt(rk['friedman_p'])}); by mean {' > '.join(rk['rank_by_mean'])}; by Sharpe "
            f"{' > '.join(rk['rank_by_sharpe'])}; pairs that flip: {flips}.",
        ]
    return lines


def _domain_table(result: dict, models: list[str]) -> list[str]:
    dom = result["macro"]["domains"]
    if not dom:
        return []
    rows = []
    for scope, blk in list(dom.items()) + rollup_blocks(result):
        for m in models:
            o, missing = blk["models"].get(m), blk["excluded_models"].get(m)
            if o is not None:
                sharpe = f"{fmt(o['mean_sharpe'], 2)} ({o['n_finite_sharpe']}/{o['n_datasets']})"
                stats = [str(o["n_datasets"]), fmt(o["mean_mu"]), fmt(o["mean_sigma"]), sharpe, fmt(o["mean_rank"], 2)]
                rows.append([scope, m, *stats])
            elif missing is not None:
                rows.append([scope, m, f"excluded (missing {', '.join(missing)})"] + ["–"] * 4)
    head = ["scope", "model", "datasets", "mean μ", "mean σ", "mean Sharpe (finite/total)", "mean rank"]
    intro = "Equal weight per dataset (no σ across datasets); Sharpe averaged over finite values."
    return ["", "### Domains and overall", "", intro, ""] + table(head, rows)


def _templates_cell(side_a: dict, side_b: dict, key: str, agree: bool | None) -> str:
    """``t2 / t2 (agree)``, ``t1 / t3, t4 (differ)`` or why there is no best / worst template."""
    if agree is None:
        flat = [s["language"] for s in (side_a, side_b) if s[key] is None]
        return f"– ({' and '.join(flat)}: all shared templates equal)"
    return f"{', '.join(side_a[key])} / {', '.join(side_b[key])} ({'agree' if agree else 'differ'})"


def _rho_cell(row: dict) -> str:
    if row["spearman"] is None:
        return f"{row['spearman_note']} (n = {row['n']})"
    return f"{row['spearman']:.3f} (n = {row['n']})"


def cross_lingual_lines(result: dict) -> list[str]:
    """The section "Across languages" (only when the result has cross-lingual rows): per dataset pair and model,
    both sides' μ ± σ and S, Spearman's ρ of the per-template scores over the shared templates, and the best and
    worst templates of each side; then the notes (a missing side, templates one side lacks)."""
    section = result.get("cross_lingual")
    if not section or not section["rows"]:
        return []
    lines = [
        "",
        "### Across languages",
        "",
        "Template t<k> of a dataset is the translation of t<k> of its pair (`metadata.pair`). Per model: μ ± σ and "
        "S of each side, Spearman's ρ between the two sides' scores of the same template over the templates both "
        "have (n; undefined below 3 templates or when one side scores them all alike), and whether the best "
        "and the worst template are the same in both languages (ties: all listed; agree = one in common).",
        "",
    ]
    langs = {tuple(side["language"] for side in r["sides"]) for r in section["rows"]}
    la, lb = langs.pop() if len(langs) == 1 else ("first", "second")
    head = ["pair", "model", "metric", f"μ ± σ ({la})", f"S ({la})", f"μ ± σ ({lb})", f"S ({lb})", "ρ (n)"]
    rows = []
    for r in section["rows"]:
        a, b = r["sides"]
        pair = f"{a['dataset']} ({a['language']}) / {b['dataset']} ({b['language']})"
        metric = a["metric"] if a["metric"] == b["metric"] else f"{a['metric']} / {b['metric']}"
        rows.append(
            [pair, r["model"], metric]
            + [cell for side in (a, b) for cell in (fmt_mean_std(side), fmt_sharpe(side, ci=False))]
            + [_rho_cell(r)]
            + [_templates_cell(a, b, key, r[f"{key}_agree"]) for key in ("best", "worst")]
        )
    lines += table(head + ["best", "worst"], rows)
    unshared = [
        f"{r['model']}: {d} has {', '.join(ts)} without a counterpart"
        for r in section["rows"]
        for d, ts in r["unshared"].items()
    ]
    extra = unshared + list(section.get("notes") or [])
    return lines + ([""] + [f"- {n}" for n in extra] if extra else [])


def markdown(result: dict, full: bool = True) -> str:
    """``leaderboard.md``: toy-data banner, summary table (models × datasets), definitions, one table per dataset
    with its dataset flags, rank stability, domain rows; per-model flags as footnotes."""
    recs = dataset_records(result)
    groups = shown_groups(result, recs)
    models = model_order(result)
    notes = _Footnotes()
    lines = ["## Sharpe leaderboard across instruction templates", ""]
    toy = result.get("toy_data") or {}  # model → dataset rows scored on the embedded fixture data
    if toy:
        who = ", ".join(f"`{m}`" for m in toy)
        lines += [TOY_BANNER.format(who=f"{who} {'was' if len(toy) == 1 else 'were'}"), ""]
    lines += [f"S = (μ − b)/σ over templates; {_settings_line(result)}. Rows are models, best mean rank first.", ""]
    blocks = rollup_blocks(result)
    for i, (scope, blk) in enumerate(blocks):
        shown = groups
        if len(blocks) > 1:  # one table per suite: its datasets, its mean Sharpe and rank (suites never pooled)
            shown = [g for g in groups if g in blk["rows"]]
            lines += ([""] if i else []) + [f"**{scope.removesuffix(' overall')}** (mean over its datasets only)", ""]
        lines += _summary_table(result, recs, model_order(result, blk), shown, notes, blk)
    if full:
        lines += [""] + [d.format(ddof=result["settings"]["ddof"]) for d in DEFINITIONS]
        for row in result["rows"]:
            rs = [recs[(row["group"], m)] for m in models if (row["group"], m) in recs]
            if rs:
                lines += _dataset_section(result, row, rs, notes)
        lines += _domain_table(result, models)
        lines += cross_lingual_lines(result)
    if notes.texts:
        lines += [""] + notes.lines()
    if "decoding_comparisons" in result:
        lines += [""] + decoding_markdown(result).rstrip("\n").split("\n")
    return "\n".join(lines) + "\n"


# ============================================================================================== decoding comparison
def _fmt_delta(v: float | None, ci: list | None, nd: int = 3) -> str:
    return "–" if v is None else f"{v:+.{nd}f}{_ci(ci, f'+.{nd}f')}"


def _pct(v: float | None) -> str:
    return "–" if v is None else f"{100 * v:.1f}"


def decoding_markdown(result: dict) -> str:
    """The ``--compare_decoding`` section (also ``decoding_comparison.md``): per model and dataset row, the
    regex-constrained run minus the unconstrained (greedy) run of the same model."""
    comps = result.get("decoding_comparisons") or []
    lines = [
        "## Greedy vs regex-constrained decoding",
        "",
        "Δ = regex-constrained − unconstrained run of the same model, on the same templates and documents "
        "(strict scores). Intervals: 2.5–97.5 percentiles over the shared document resamples "
        f"(B = {result['settings']['bootstrap']}). fail% and adherence% are the mean over templates of the "
        "format-failure rate and of `format_adherence` (completion in the template's answer format), "
        "unconstrained → constrained.",
        "",
    ]
    if not comps:
        return "\n".join(lines + ["No model has both an unconstrained and a regex-constrained run.", ""])
    head = ["model", "dataset", "metric", "μ (unconstr. → constr.)", "Δμ [95% CI]", "Δσ [95% CI]", "ΔSharpe [95% CI]"]
    rows = []
    for c in comps:
        u, k = c["unconstrained"], c["constrained"]
        dsh = _fmt_delta(c["delta_sharpe"], c.get("delta_sharpe_ci"), 2)
        rows.append(
            [c["model"], c["group"], c["metric"], f"{fmt(u['mean'])} → {fmt(k['mean'])}"]
            + [_fmt_delta(c[f"delta_{x}"], c.get(f"delta_{x}_ci")) for x in ("mean", "std")]
            + [dsh if c["delta_sharpe"] is not None else f"n/a ({c['delta_sharpe_status']})"]
            + [f"{_pct(u[x])} → {_pct(k[x])}" for x in ("format_failure", "format_adherence")]
        )
    return "\n".join(lines + table(head + ["fail%", "adherence%"], rows)) + "\n"


# ============================================================================================== CSV
SCALARS = (  # the scalar fields of a record, as leaderboard.csv columns
    "level group dataset domain subtask model metric filter scoring_mode n_templates n_docs toy_data mean std ddof "
    "sharpe sharpe_status alpha sigma_floor_mode sigma_floor_active degenerate_std min max spread maxp avgp cps pss"
).split()


def leaderboard_rows(result: dict) -> list[dict]:
    rows = []
    for r in result["records"]:
        row = {k: r.get(k) for k in SCALARS}
        row["baseline"] = r["baseline"]["value"]
        row["baseline_method"] = r["baseline"]["method"]
        for q, v in (r.get("quantiles") or {}).items():
            row[q] = v
        for kind in ("ci", "ci_templates"):
            c = r.get(kind) or {}
            for stat in ("mean", "std", "sharpe"):
                iv = c.get(stat)
                row[f"{kind}_{stat}_lo"] = iv[0] if iv else None
                row[f"{kind}_{stat}_hi"] = iv[1] if iv else None
            row[f"{kind}_frac_degenerate"] = c.get("frac_degenerate")
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
            w.writerow(
                {k: ("" if v is None else (repr(v) if isinstance(v, float) else v)) for k, v in clean(r).items()}
            )


def write_csvs(result: dict, out: Path) -> None:
    lb = leaderboard_rows(result)
    _write_csv(out / "leaderboard.csv", lb, list(dict.fromkeys(k for r in lb for k in r)))  # every column, first seen
    ids = ["level", "model", "group", "metric", "scoring_mode"]
    pt = [
        {k: r[k] for k in ids}
        | {"template_id": t, "task": (r.get("tasks") or {}).get(t), "score": r["template_scores"].get(t)}
        | {"failure_rate": (r.get("format_failure") or {}).get(t)}
        for r in result["records"]
        for t in r["templates"]
    ]
    _write_csv(out / "per_template.csv", pt, ids + ["template_id", "task", "score", "failure_rate"])
    with open(out / "per_document.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["level", "model", "group", "metric", "basis", "doc_key", "s_d", "per_template"])
        for r in result["records"]:
            if r.get("_per_doc") is None:
                continue
            keys, mat, sd = r["_per_doc"]
            row = [r[k] for k in ("level", "model", "group", "metric", "pss_basis")]
            for j, k in enumerate(keys):
                per_template = ";".join(f"{t}={mat[i, j]:g}" for i, t in enumerate(r["templates"]))
                w.writerow([*row, k, repr(float(sd[j])), per_template])


# ============================================================================================== estimates
POPULATION_TITLE = "ESTIMATES: template populations (never pooled with the core set)"


def _f(x, fmt: str = ".3f") -> str:
    return "–" if x is None or (isinstance(x, float) and not math.isfinite(x)) else format(x, fmt)


def _ci(ci, fmt: str = ".3f") -> str:
    return "" if not ci else f" [{_f(ci[0], fmt)}, {_f(ci[1], fmt)}]"


def _broken_templates(broken: dict[str, float]) -> str:
    """A record's ``likely_broken`` as "t1 (97%), t4 (class 2) (60%)"."""
    return ", ".join(f"{t} ({p:.0%})" for t, p in broken.items())


COMPONENT_NAMES = {"tau": "document sd", "sigma_a": "template sd", "bias_sd": "label-bias sd", "skill_sd": "skill sd"}


def _component(key: str) -> str:
    """A variance component in words: "fit1.class2.tau" → "document sd (fit 1, class 2)"."""
    *where, name = re.sub(r"(fit|class)(\d+)", r"\1 \2", key).split(".")
    return COMPONENT_NAMES.get(name, name.replace("_", " ")) + (f" ({', '.join(where)})" if where else "")


def sparse_markdown(result: dict) -> str:
    """The estimates of a sparse run: one line per model × dataset row."""
    recs = result["records"]
    shares = sorted({round(r["share"], 4) for r in recs})
    lines = [
        "ESTIMATES from a sparse design (model-based: observed cells kept, missing cells drawn from the posterior "
        "of a template + document effect model) — share of (template, document) cells observed: "
        + ", ".join(f"{s:.1%}" for s in shares),
        "",
    ]
    head = ["dataset", "model", "cells", "mean μ [95% CI]", "std σ [95% CI]", "Sharpe [95% CI]"]
    rows = []
    for r in recs:
        ci = r.get("ci") or {}
        sh = _f(r["sharpe"], ".2f") if r["sharpe"] is not None else r["sharpe_status"]
        rows.append(
            [f"{r['name']} ({r['metric']})", r["model"], f"{r['cells_observed']}/{r['cells_total']} ({r['share']:.0%})"]
            + [f"{_f(r[k])}{_ci(ci.get(k))}" for k in ("mean", "std")]
            + [f"{sh}{_ci(ci.get('sharpe'), '.2f')}"]
            + [", ".join(f"{t} {_f(r['scores'][t])} ({_f(r['naive_scores'][t])})" for t in r["templates"])]
        )
    lines += table(head + ["per template (naive: observed cells only)"], rows)
    lines += [
        "",
        f"baseline b: {', '.join(sorted({str(r['baseline_method']) for r in recs}))}; ddof "
        f"{recs[0]['ddof'] if recs else ''}; intervals: document bootstrap with the unobserved cells drawn from the posterior",
    ]
    broken = [r for r in recs if r.get("likely_broken")]
    if broken:
        lines += ["", "likely broken (never right on the metric or on one of its gold classes or entity slots):"]
        lines += [f"* {r['model']} {r['name']}: {_broken_templates(r['likely_broken'])}" for r in broken]
    return "\n".join(lines) + "\n"


def population_markdown(result: dict) -> str:
    """The population section: one line per model × population group ("" without any)."""
    recs = sorted(result.get("records") or [], key=lambda r: (r["model"], r["group"]))
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
    ]
    head = ["model", "population group", "metric", "templates", "cells", "μ", "σ", "S", "q05 / q25 / q50 / q75 / q95"]
    rows = []
    for r in recs:
        ci = r.get("ci") or {}
        rows.append(
            [r["model"], r["group"], r["metric"], str(len(r["templates"])), f"{r['share']:.1%}"]
            + [f"{_f(r[k])}{_ci(ci.get(k))}" for k in ("mean", "std")]
            + [f"{_f(r['sharpe'], '.2f')}{_ci(ci.get('sharpe'))}", " / ".join(_f(v) for v in r["quantiles"])]
            + [", ".join(r["worst_decile"][:5]) + (" …" if len(r["worst_decile"]) > 5 else "")]
        )
    lines += table(head + ["worst decile"], rows)
    notes = [_precision_line(r) for r in recs if r.get("precision")]
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
    prior = f"; resting mostly on the prior: {', '.join(map(_component, rests))}" if rests else ""
    if any(k.endswith(".tau") for k in rests):
        prior += " (the full-run interval holds over the low end of the document sd's prior too)"
    if r.get("likely_broken"):
        prior += f"; likely broken (never right): {_broken_templates(r['likely_broken'])}"
    if share := (r.get("ci") or {}).get("broken_share"):
        prior += f"; the population interval allows up to {share[1]:.{int(0 < share[1] < 0.01)}%} broken templates (never right) in the grammar"
    return f"* {r['model']} {r['group']}: " + "; ".join(parts) + prior


def estimate_markdown(result: dict, kind: str) -> str:
    """The Markdown of an estimate result of ``kind`` (sparse | population), as printed and written."""
    return {"sparse": sparse_markdown, "population": population_markdown}[kind](result)
