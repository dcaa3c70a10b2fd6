"""The report pages people read: toy-data marks everywhere, dataset flags shown once per dataset (not as a
model's footnote), the Markdown rendered to HTML, definitions, and plots whose text fits the figure. The same page
in a real browser: tests/sharpe/test_report_in_a_browser.py (``make test-browser``)."""

import csv
import json

import numpy as np
import pytest
from html_page import Page

from lm_eval_enterprise.sharpe.html_report import markdown_to_html
from lm_eval_enterprise.sharpe.pipeline import aggregate, write_outputs
from lm_eval_enterprise.sharpe.report import markdown
from testkit.synthetic import REPORT_MODELS, report_scenario

SMOL, QWEN, LOCAL = "HuggingFaceTB/SmolLM2-135M-Instruct", "Qwen/Qwen2.5-0.5B-Instruct", "local-finetune-step-0042"


@pytest.fixture(scope="module")
def toy_report(tmp_path_factory):
    d = tmp_path_factory.mktemp("report")
    res = aggregate([report_scenario(d / "runs")], bootstrap=100, progress=False)
    write_outputs(res, d / "out")
    return res, d / "out"


def test_toy_data_is_marked_everywhere(toy_report):
    res, out = toy_report
    assert sorted(res["toy_data"]) == sorted([SMOL, QWEN, LOCAL]) and len(res["toy_data"][SMOL]) == 10
    md = (out / "leaderboard.md").read_text()
    assert md.splitlines()[2].startswith("> **Toy data.**")
    summary = [line for line in md.splitlines() if line.startswith("| ") and " | toy | " in line]
    assert len(summary) == 3 and "| # | model | data | mean Sharpe |" in md
    html = (out / "report.html").read_text()
    assert "<title>Sharpe score report (TOY DATA)</title>" in html and 'class="note toy"' in html
    with open(out / "leaderboard.csv") as f:
        assert {r["toy_data"] for r in csv.DictReader(f)} == {"True"}
    for path in (out / "hf_leaderboard" / "results").rglob("results_*.json"):
        cfg = json.loads(path.read_text())["config"]
        assert cfg["toy_data"] is True and "not the benchmark" in cfg["data_source"]
    for path in (out / "open_llm_leaderboard").rglob("results_*.json"):
        assert json.loads(path.read_text())["config"]["toy_data"] is True


def test_real_data_is_not_marked(tmp_path):
    res = aggregate([report_scenario(tmp_path / "runs", n_docs=12, toy=False)], bootstrap=0, progress=False)
    assert res["toy_data"] == {} and not any(r["toy_data"] for r in res["records"])
    md = markdown(res)
    assert "Toy data" not in md and len([x for x in md.splitlines() if " | real | " in x]) == len(REPORT_MODELS)


def _section(md: str, group: str) -> str:
    return md.split(f"### {group} ")[1].split("\n### ")[0]


def test_dataset_flags_are_not_a_models_footnote(toy_report):
    res, out = toy_report
    md = (out / "leaderboard.md").read_text()
    sec = _section(md, "ent_legal_summarization")
    smol_row = next(x for x in sec.splitlines() if x.startswith(f"| {SMOL}"))
    assert "[^" not in smol_row and "| 0.0 |" in smol_row  # 0 % failures, no footnote
    flags = sec.split("Dataset flags")[1]
    assert "`high_failure`" in flags and f"{SMOL} 0%" in flags and f"{QWEN} 78%" in flags
    notes = [x for x in md.splitlines() if x.startswith("[^")]
    assert not any("high_failure" in n or "broken_template" in n for n in notes)
    local_row = next(x for x in _section(md, "ent_tram").splitlines() if x.startswith(f"| {LOCAL}"))
    ref = local_row.split("[^")[1].split("]")[0]
    assert any(n.startswith(f"[^{ref}]: ent_tram / {LOCAL}: `no_samples`") for n in notes)


def test_markdown_to_html():
    md = (
        "## Title\n\n> **Toy data.** a `b`\n\ntext with `code`, **bold** and a note[^1].\n\n- **a**: b\n- c\n\n"
        "| model | value |\n|---|---|\n| A[^1] | 1.5 [0.2, 3.0] |\n| B | – |\n\n[^1]: the `note` <x>"
    )
    h = markdown_to_html(md)
    assert (
        "<h2>Title</h2>" in h and '<div class="note toy" role="note"><strong>Toy data.</strong> a <code>b</code>' in h
    )
    assert '<p>text with <code>code</code>, <strong>bold</strong> and a note<sup><a href="#fn-1">1</a></sup>.</p>' in h
    assert "<ul><li><strong>a</strong>: b</li><li>c</li></ul>" in h
    assert '<th>model</th><th class="num">value</th>' in h and '<td class="num">1.5 [0.2, 3.0]</td>' in h
    assert '<li id="fn-1">the <code>note</code> &lt;x&gt;</li>' in h
    assert "`" not in h and "[^" not in h and "**" not in h


def test_html_page_renders_the_markdown_and_defines_its_terms(toy_report):
    _, out = toy_report
    page = Page((out / "report.html").read_text())
    text = "".join(page.text)
    assert "`" not in text and "[^" not in text and "**" not in text
    assert "CPS (combined performance score, Mizrahi et al. 2024) = MaxP·(1 − (MaxP − AvgP))" in text
    refs = {h[1:] for h in page.links if h.startswith("#fn-")}
    assert refs and refs <= page.ids
    assert len(page.imgs) == 5 and all(i["alt"] for i in page.imgs)
    assert "table-wrap" in page.classes


def test_plot_text_fits_and_guides_do_not_set_the_limits(toy_report):
    import matplotlib.text

    from lm_eval_enterprise.sharpe.html_report import figures

    res, _ = toy_report
    figs = figures(res)
    assert set(figs) == {"strip", "sharpe", "bump", "failures", "scatter"}
    for name, fig in figs.items():
        fig.canvas.draw()
        tight = fig.get_tightbbox(fig.canvas.get_renderer())  # inches; everything drawn: labels, titles, legend
        w, h = fig.get_size_inches()
        assert tight.x0 >= -0.01 and tight.y0 >= -0.01 and tight.x1 <= w + 0.01 and tight.y1 <= h + 0.01, (name, tight)
        assert min(t.get_fontsize() for t in fig.findobj(matplotlib.text.Text) if t.get_text().strip()) >= 8, name
    ax = figs["scatter"].axes[0]
    ys = np.concatenate([c.get_offsets()[:, 1] for c in ax.collections])
    lo, hi = min(0.0, ys.min()), max(0.0, ys.max())
    assert ax.get_ylim()[1] <= hi + max(0.08 * (hi - lo), 0.01) + 1e-9  # the S = 20 guide would go far higher
    import matplotlib.pyplot as plt

    for fig in figs.values():
        plt.close(fig)
