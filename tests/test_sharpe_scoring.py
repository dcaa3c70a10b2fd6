"""The vectorised per-template scorers equal the lm-eval hook aggregations (hooks.agg_* / mean) for every metric of
every family in hooks.FAMILY_METRICS — on the full document set, on bootstrap resamples (documents repeated) and on
the parsed-only subset."""

from collections import defaultdict

import numpy as np
import pytest

from lm_eval_enterprise.scoring import hooks
from lm_eval_enterprise.sharpe.scoring import (
    ItemScorer,
    ScoringError,
    build_doc_scorer,
    build_query_scorer,
    classification_scorer,
)
from testkit.synthetic import make_docs, make_outputs

CASES = [(fam, m) for fam, ms in hooks.FAMILY_METRICS.items() for m in ms]
RANKING = {"ranking", "ranking_generate"}


def _items(family, n=60, p=0.55, fail=0.15, seed=0):
    docs = make_docs(family, n if family not in RANKING else 100, seed, n_candidates=10)
    outs = make_outputs(family, docs, p, fail if family != "ranking" else 0.0, seed + 1)
    proc = getattr(hooks, family)
    results = [[(o[0], False), (o[1], False)] if family == "ranking" else [o] for o in outs]
    return docs, [proc(d, r) for d, r in zip(docs, results)]


def _hook(family, metric, items):
    agg = hooks.FAMILY_METRICS[family][metric][0]
    return float(np.mean(items)) if agg == "mean" else getattr(hooks, agg)(items)


def _scorer(family, metric, vals):
    agg = hooks.FAMILY_METRICS[family][metric][0]
    if family in RANKING:
        by_q = defaultdict(list)
        for v, d in vals:
            by_q[d["qid"]].append(v)
        return build_query_scorer(agg, list(by_q.values()), metric), list(by_q)
    return build_doc_scorer(agg, [v for v, _ in vals], metric), None


@pytest.mark.parametrize("family,metric", CASES)
def test_full_set_equals_hook(family, metric):
    docs, rows = _items(family)
    vals = [(r[metric], d) for r, d in zip(rows, docs)]
    sc, _ = _scorer(family, metric, vals)
    assert sc.score() == pytest.approx(_hook(family, metric, [v for v, _ in vals]), abs=1e-12)


@pytest.mark.parametrize("family,metric", CASES)
def test_resamples_equal_hook_on_repeated_items(family, metric):
    docs, rows = _items(family, seed=3)
    vals = [(r[metric], d) for r, d in zip(rows, docs)]
    sc, qids = _scorer(family, metric, vals)
    rng = np.random.default_rng(5)
    n = sc.n_units
    w = np.stack([np.bincount(rng.integers(0, n, n), minlength=n) for _ in range(4)]).astype(float)
    got = sc.scores(w)
    for b in range(4):
        rep = []
        if family in RANKING:
            by_q = defaultdict(list)
            for v, d in vals:
                by_q[d["qid"]].append(v)
            for q, cnt in zip(qids, w[b].astype(int)):
                for c in range(cnt):  # a repeated query is a new query: rename its id
                    rep += [[f"{q}#{c}", *v[1:]] if isinstance(v, list) else v for v in by_q[q]]
        else:
            for (v, _), cnt in zip(vals, w[b].astype(int)):
                rep += [v] * cnt
        assert got[b] == pytest.approx(_hook(family, metric, rep), abs=1e-12)


@pytest.mark.parametrize("family", [f for f in hooks.FAMILY_METRICS if f not in RANKING])
def test_parsed_only_equals_hook_on_parsed_docs(family):
    docs, rows = _items(family, seed=4, fail=0.3)
    metric = next(iter(hooks.FAMILY_METRICS[family]))
    ok = np.array([r.get("format_failure", 0.0) == 0 for r in rows])
    assert 0 < ok.sum() < len(ok)
    sc = build_doc_scorer(hooks.FAMILY_METRICS[family][metric][0], [r[metric] for r in rows], metric)
    ref = _hook(family, metric, [r[metric] for r, k in zip(rows, ok) if k])
    assert sc.masked(ok).score() == pytest.approx(ref, abs=1e-12)


def test_weighted_f1_prediction_outside_label_set_and_norm():
    items = [
        {"gold": "Positive", "pred": "positive.", "labels": ["positive", "negative"]},
        {"gold": "negative", "pred": "maybe", "labels": ["positive", "negative"]},
        {"gold": "negative", "pred": "[invalid]", "labels": ["positive", "negative"]},
    ]
    for avg, agg in (("weighted", hooks.agg_weighted_f1), ("macro", hooks.agg_macro_f1)):
        assert classification_scorer(items, avg).score() == pytest.approx(agg(items))
    with pytest.raises(ScoringError, match="not in the label set"):
        classification_scorer([{"gold": "x", "pred": "y", "labels": ["a"]}], "weighted")


def test_item_scorer_fallback_is_exact():
    docs, rows = _items("classification_macro", seed=6)
    items = [r["macro_f1"] for r in rows]
    fallback = ItemScorer(items, hooks.agg_macro_f1, None)
    fast = build_doc_scorer("agg_macro_f1", items, "macro_f1")
    w = np.stack([np.bincount(np.random.default_rng(i).integers(0, 60, 60), minlength=60) for i in range(3)])
    assert fallback.scores(w) == pytest.approx(fast.scores(w.astype(float)), abs=1e-12)


def test_per_doc_values():
    docs, rows = _items("classification_weighted", seed=7)
    sc = build_doc_scorer("agg_weighted_f1", [r["weighted_f1"] for r in rows], "weighted_f1")
    assert list(sc.per_doc) == [r["accuracy"] for r in rows]
    assert not sc.per_doc_is_metric
    mean = build_doc_scorer("mean", [r["accuracy"] for r in rows], "accuracy")
    assert mean.per_doc_is_metric and mean.score() == pytest.approx(np.mean(mean.per_doc))


def test_malformed_values_raise():
    with pytest.raises(ScoringError, match="not numbers"):
        build_doc_scorer("mean", [{"a": 1}], "accuracy")
    with pytest.raises(ScoringError, match="malformed"):
        build_doc_scorer("agg_weighted_f1", [0.5, 0.2], "weighted_f1")
    with pytest.raises(ScoringError, match="not a function"):
        build_doc_scorer("agg_does_not_exist", [{"x": 1}], "m")


def test_documents_made_of_questions_score_the_mean_over_questions_on_every_resample():
    """gold_news documents are (headline, question): the fast scorer equals the hook ([QMEAN]: weighted F1 per
    question, then the mean over the questions present) on the full data and on bootstrap resamples, including a
    question with a single gold class and resamples that drop a question entirely."""
    rng = np.random.default_rng(11)
    labels = ["Yes", "No"]
    items = []
    for i in range(40):
        q = f"q{i % 4}"
        gold = "Yes" if q == "q3" else str(rng.choice(labels))  # q3: a single class in the gold answers
        pred = str(rng.choice(labels + ["[invalid]"]))
        items.append({"gold": gold, "pred": pred, "labels": labels, "question_id": q})
    sc = build_doc_scorer("agg_weighted_f1", items, "weighted_f1")
    assert sc.score() == pytest.approx(hooks.agg_weighted_f1(items), abs=1e-12)
    w = np.stack([np.bincount(rng.integers(0, 40, 40), minlength=40) for _ in range(6)]).astype(float)
    w[0, [i for i in range(40) if i % 4 == 2]] = 0  # question q2 absent from this resample
    got = sc.scores(w)
    for b in range(len(w)):
        rep = [it for it, n in zip(items, w[b].astype(int)) for _ in range(n)]
        assert got[b] == pytest.approx(hooks.agg_weighted_f1(rep), abs=1e-12)
    pooled = [{k: v for k, v in it.items() if k != "question_id"} for it in items]
    assert sc.score() != pytest.approx(hooks.agg_weighted_f1(pooled))  # not the pooled corpus F1
