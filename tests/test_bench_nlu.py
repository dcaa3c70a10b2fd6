"""scripts/bench_nlu.py (issue #25 item 5): the committed NLU cells reproduce lm-eval's numbers with the project's
metric code, hold no prompts or raw outputs, and the report's statistics are the Sharpe tool's."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[1]


def _script():
    spec = importlib.util.spec_from_file_location("bench_nlu", REPO / "scripts" / "bench_nlu.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


B = _script()
pytestmark = pytest.mark.skipif(not B.CELLS.exists(), reason="benchmarks/nlu_cells.json.gz not made yet")


@pytest.fixture(scope="module")
def cells():
    return B.load_cells(B.CELLS)


def _complete(cells):
    return [(d, m) for d, e in cells["datasets"].items() for m, r in e["modes"].items() if r.get("complete")]


def test_cells_reproduce_lm_eval_numbers(cells):
    """Every metric of every template, recomputed from the cells, equals the number lm-eval reported in the run."""
    done = _complete(cells)
    assert done, "no complete dataset in the cells file"
    for dataset, mode in done:
        entry = cells["datasets"][dataset]
        assert len(entry["modes"][mode]["templates"]) == 8, (dataset, mode)
        assert len(entry["docs"]) == cells["limit"] == 100
        B.check_against_lm_eval(entry, mode, dataset)  # raises SystemExit on any difference


def test_cells_hold_no_prompts_or_raw_outputs(cells):
    def keys(x):
        if isinstance(x, dict):
            for k, v in x.items():
                yield k
                yield from keys(v)
        elif isinstance(x, list):
            for v in x:
                yield from keys(v)

    found = set(keys(cells))
    assert not found & {"arguments", "resps", "filtered_resps", "doc", "prompt", "text", "context", "question"}
    assert B.CELLS.stat().st_size < 500_000


def test_report_statistics_are_the_sharpe_tools(cells):
    """μ and σ (ddof 1) of the per-template scores, S = (μ − b)/σ, intervals bracketing their point values."""
    res = B.report(cells)
    for (dataset, mode), r in res.items():
        s = np.array(list(r["templates"].values()))
        assert math.isclose(r["mean"], s.mean(), abs_tol=1e-12)
        assert math.isclose(r["std"], s.std(ddof=1), abs_tol=1e-12)
        if r["std"] > 1e-12:
            assert math.isclose(r["sharpe"], (s.mean() - r["baseline"]) / s.std(ddof=1), rel_tol=1e-9)
        lo, hi = r["ci"]["mean"]
        assert lo <= r["mean"] <= hi, (dataset, mode)


def test_item_split_round_trips():
    item = {"gold": "acceptable", "pred": "[invalid]", "labels": ["unacceptable", "acceptable"]}
    assert B.join_item(*B.split_item(item)) == item
    assert B.join_item(*B.split_item(0.25)) == 0.25


def test_baseline_reads_the_label_list_from_any_metric():
    """jnli's accuracy is a per-document mean (no label in its items); the uniform baseline 1/3 comes from the labels
    its macro-F1 items carry. MCC's uniform baseline is 0."""
    labels = ["含意", "中立", "矛盾"]
    entry = {
        "family": "classification_accuracy",
        "metrics": {"accuracy": "mean", "macro_f1": "agg_macro_f1"},
        "gold": {"accuracy": [None] * 3, "macro_f1": [{"gold": g, "labels": labels} for g in labels]},
    }
    assert B.baseline(entry, "accuracy") == pytest.approx(1 / 3, abs=1e-12)
    entry["gold"]["macro_f1"] = [None] * 3
    with pytest.raises(SystemExit, match="no label list"):
        B.baseline(entry, "accuracy")
