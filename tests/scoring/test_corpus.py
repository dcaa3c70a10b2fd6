"""One definition per metric (lm_eval_enterprise/scoring/corpus.py): the vectorised statistics every consumer
uses (the Sharpe tool's recomputation and bootstrap, parsed-only scoring, the sparse estimator) equal the scalar
metric — lm-eval's aggregation ``hooks.agg_*`` / the mean, which is finalize(Σ stats) — for every metric of every
family, on the full document set, on bootstrap resamples (documents repeated), on the parsed-only subset and on
adversarial subsets (an absent gold class for every F1 average, a single document, all predictions invalid, ties in
ranking), to 1e-12; and the formulas equal independent references (scikit-learn, scipy)."""

from collections import defaultdict

import numpy as np
import pytest
from scipy import stats as scipy_stats
from sklearn.metrics import f1_score, matthews_corrcoef

from lm_eval_enterprise import families
from lm_eval_enterprise.scoring import corpus, hooks
from lm_eval_enterprise.scoring import metrics as M
from lm_eval_enterprise.scoring.metrics import INVALID, MetricInputError
from testkit.synthetic import make_docs, make_outputs

FAMILY_METRICS = {name: dict(f.metrics) for name, f in families.FAMILIES.items()}
CASES = [(fam, m) for fam, ms in FAMILY_METRICS.items() for m in ms]
RANKING = {"ranking", "ranking_generate"}


def _items(family, n=60, p=0.55, fail=0.15, seed=0):
    docs = make_docs(family, n if family not in RANKING else 100, seed, n_candidates=10)
    outs = make_outputs(family, docs, p, fail if family != "ranking" else 0.0, seed + 1)
    proc = getattr(hooks, family)
    results = [[(o[0], False), (o[1], False)] if family == "ranking" else [o] for o in outs]
    return docs, [proc(d, r) for d, r in zip(docs, results)]


def _hook(family, metric, items):
    agg = FAMILY_METRICS[family][metric][0]
    return float(np.mean(items)) if agg == "mean" else getattr(hooks, agg)(items)


def _scorer(family, metric, vals):
    agg = FAMILY_METRICS[family][metric][0]
    if family in RANKING:
        by_q = defaultdict(list)
        for v, d in vals:
            by_q[d["qid"]].append(v)
        return corpus.query_stats(agg, list(by_q.values()), metric), list(by_q)
    return corpus.doc_stats(agg, [v for v, _ in vals], metric), None


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


@pytest.mark.parametrize("family", [f for f in FAMILY_METRICS if f not in RANKING])
def test_parsed_only_equals_hook_on_parsed_docs(family):
    docs, rows = _items(family, seed=4, fail=0.3)
    metric = next(iter(FAMILY_METRICS[family]))
    ok = np.array([r.get("format_failure", 0.0) == 0 for r in rows])
    assert 0 < ok.sum() < len(ok)
    sc = corpus.doc_stats(FAMILY_METRICS[family][metric][0], [r[metric] for r in rows], metric)
    ref = _hook(family, metric, [r[metric] for r, k in zip(rows, ok) if k])
    assert sc.masked(ok).score() == pytest.approx(ref, abs=1e-12)


def test_weighted_f1_prediction_outside_label_set_and_norm():
    items = [
        {"gold": "Positive", "pred": "positive.", "labels": ["positive", "negative"]},
        {"gold": "negative", "pred": "maybe", "labels": ["positive", "negative"]},
        {"gold": "negative", "pred": "[invalid]", "labels": ["positive", "negative"]},
    ]
    for avg, agg in (("weighted", hooks.agg_weighted_f1), ("macro", hooks.agg_macro_f1)):
        assert corpus.f1_items(items, avg).score() == pytest.approx(agg(items))
    with pytest.raises(MetricInputError, match="not in the label set"):
        corpus.f1_items([{"gold": "x", "pred": "y", "labels": ["a"]}], "weighted")


def test_per_doc_values():
    docs, rows = _items("classification_weighted", seed=7)
    sc = corpus.doc_stats("agg_weighted_f1", [r["weighted_f1"] for r in rows], "weighted_f1")
    assert list(sc.per_doc) == [r["accuracy"] for r in rows]
    assert not sc.per_doc_is_metric
    mean = corpus.doc_stats("mean", [r["accuracy"] for r in rows], "accuracy")
    assert mean.per_doc_is_metric and mean.score() == pytest.approx(np.mean(mean.per_doc))


def test_malformed_values_raise():
    with pytest.raises(MetricInputError, match="not numbers"):
        corpus.doc_stats("mean", [{"a": 1}], "accuracy")
    with pytest.raises(MetricInputError, match="malformed"):
        corpus.doc_stats("agg_weighted_f1", [0.5, 0.2], "weighted_f1")
    with pytest.raises(corpus.UnknownAggregation, match="no statistic"):
        corpus.doc_stats("agg_does_not_exist", [{"x": 1}], "m")


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
    sc = corpus.doc_stats("agg_weighted_f1", items, "weighted_f1")
    assert sc.score() == pytest.approx(hooks.agg_weighted_f1(items), abs=1e-12)
    w = np.stack([np.bincount(rng.integers(0, 40, 40), minlength=40) for _ in range(6)]).astype(float)
    w[0, [i for i in range(40) if i % 4 == 2]] = 0  # question q2 absent from this resample
    got = sc.scores(w)
    for b in range(len(w)):
        rep = [it for it, n in zip(items, w[b].astype(int)) for _ in range(n)]
        assert got[b] == pytest.approx(hooks.agg_weighted_f1(rep), abs=1e-12)
    pooled = [{k: v for k, v in it.items() if k != "question_id"} for it in items]
    assert sc.score() != pytest.approx(hooks.agg_weighted_f1(pooled))  # not the pooled corpus F1


# ============================================================================================ one definition
def test_macro_f1_with_an_absent_gold_class_is_the_same_number_everywhere():
    """The drift the old copies had (lm-eval 0.583, the Sharpe tool 0.389): golds a, a, b, b; predictions a, b, b,
    c; labels a, b, c, and no gold c. Class c has no gold support and is not averaged; the prediction c costs
    document 4 a false negative of b."""
    golds, preds, labels = ["a", "a", "b", "b"], ["a", "b", "b", "c"], ["a", "b", "c"]
    # worked: a: TP=1 (d1), FN=1 (d2 said b) → 2/(2+0+1) = 2/3; b: TP=1 (d3), FP=1 (d2), FN=1 (d4 said c) → 1/2
    expected = (2 / 3 + 1 / 2) / 2
    items = [{"gold": g, "pred": p, "labels": labels} for g, p in zip(golds, preds)]
    assert M.macro_f1(golds, preds, labels) == pytest.approx(expected, abs=1e-12)
    assert hooks.agg_macro_f1(items) == pytest.approx(expected, abs=1e-12)
    assert corpus.doc_stats("agg_macro_f1", items).score() == pytest.approx(expected, abs=1e-12)
    # the sparse estimator's cell matrix (every cell observed) and its finalize
    from lm_eval_enterprise.estimator import CellMatrix, naive_scores

    cm = CellMatrix.from_labels([0, 0, 1, 1], np.array([[0, 1, 1, 2]]), 3, "macro")
    assert naive_scores(cm)[0] == pytest.approx(expected, abs=1e-12)
    # scikit-learn on the present classes (labels=G)
    assert f1_score(golds, preds, labels=["a", "b"], average="macro", zero_division=0) == pytest.approx(expected)


def _weights(n: int, rng, b: int = 6) -> np.ndarray:
    w = np.stack([np.bincount(rng.integers(0, n, n), minlength=n) for _ in range(b)]).astype(float)
    w[0] = 1.0  # the full data
    if n > 1:
        w[1] = 0.0
        w[1, 0] = 1.0  # a single unit
    return w


def _check_resamples(agg: str, units: list, query: bool = False, seed: int = 0) -> None:
    """Vectorised scores of resamples == the scalar (lm-eval's aggregation) on the repeated units."""
    st = corpus.query_stats(agg, units) if query else corpus.doc_stats(agg, units)
    w = _weights(len(units), np.random.default_rng(seed))
    got = st.scores(w)
    for b in range(len(w)):
        rep = []
        for u, cnt in zip(units, w[b].astype(int)):
            for c in range(cnt):  # a repeated query is a new query
                rep += [[f"{v[0]}#{c}", *v[1:]] for v in u] if query else [u]
        if agg != "mean":
            expected = corpus.aggregate(agg, rep)
        else:  # lm-eval's mean over documents (or over the candidates of the queries)
            expected = float(np.mean([v for u in rep for v in u] if query else rep))
        assert got[b] == pytest.approx(expected, abs=1e-12), (agg, b)


LABELS3 = ["a", "b", "c"]


def _label_items(golds, preds, labels=LABELS3):
    return [{"gold": g, "pred": p, "labels": labels} for g, p in zip(golds, preds)]


ADVERSARIAL_LABELS = {
    "absent gold class": (["a", "a", "b", "b", "a"], ["a", "c", "b", "c", INVALID]),
    "single document": (["b"], ["b"]),
    "all predictions invalid": (["a", "b", "c", "a"], [INVALID] * 4),
    "one gold class": (["a", "a", "a"], ["a", "b", INVALID]),
}


@pytest.mark.parametrize("case", list(ADVERSARIAL_LABELS))
@pytest.mark.parametrize(
    "agg", ["agg_weighted_f1", "agg_macro_f1", "agg_weighted_precision", "agg_weighted_recall", "agg_mcc"]
)
def test_label_statistics_on_adversarial_subsets(agg, case):
    golds, preds = ADVERSARIAL_LABELS[case]
    _check_resamples(agg, _label_items(golds, preds))


@pytest.mark.parametrize("case", list(ADVERSARIAL_LABELS))
def test_binary_f1_on_adversarial_subsets(case):
    golds, preds = ADVERSARIAL_LABELS[case]
    _check_resamples("agg_binary_f1", [{"gold": g, "pred": p, "positive": "a"} for g, p in zip(golds, preds)])


def test_f1_and_mcc_equal_scikit_learn_on_random_labels():
    rng = np.random.default_rng(2)
    for n in (1, 2, 7, 50, 400):
        golds = [str(x) for x in rng.choice(LABELS3, n)]
        preds = [str(x) for x in rng.choice(LABELS3 + [INVALID, "zzz"], n)]
        present = [lab for lab in LABELS3 if lab in golds]
        norm_preds = [p if p in LABELS3 else "∅" for p in preds]
        for avg in ("weighted", "macro"):
            ref = f1_score(
                golds, norm_preds, labels=LABELS3 if avg == "weighted" else present, average=avg, zero_division=0
            )
            assert M.classification_f1(golds, preds, LABELS3, avg) == pytest.approx(ref, abs=1e-12)
        assert M.matthews_corrcoef(golds, preds, LABELS3) == pytest.approx(
            matthews_corrcoef(golds, norm_preds), abs=1e-12
        )


SIMILARITY_CASES = {
    "random": None,
    "single document": ([3.0], [2.2]),
    "all predictions invalid (2.5)": ([2.5] * 5, [0.0, 1.2, 3.3, 4.0, 5.0]),
    "ties": ([1.0, 1.0, 4.0, 4.0, 2.0, 2.0], [0.5, 1.5, 4.5, 4.0, 2.0, 2.0]),
}


@pytest.mark.parametrize("case", list(SIMILARITY_CASES))
@pytest.mark.parametrize("agg", ["agg_pearson", "agg_spearman"])
def test_correlations_on_random_and_adversarial_inputs(agg, case):
    rng = np.random.default_rng(4)
    pair = SIMILARITY_CASES[case]
    x, y = (rng.integers(0, 6, 40).astype(float), rng.uniform(0, 5, 40)) if pair is None else pair
    items = [{"pred": float(a), "gold": float(b)} for a, b in zip(x, y)]
    _check_resamples(agg, items, seed=7)
    if len(set(x)) > 1 and len(set(y)) > 1:  # scipy defines both only for non-constant inputs
        ref = scipy_stats.pearsonr(x, y)[0] if agg == "agg_pearson" else scipy_stats.spearmanr(x, y)[0]
        assert corpus.aggregate(agg, items) == pytest.approx(ref, abs=1e-10)


def test_spearman_resample_ranks_equal_scipy_on_the_repeated_items():
    rng = np.random.default_rng(9)
    x, y = rng.integers(0, 6, 30).astype(float), rng.uniform(0, 5, 30)
    w = _weights(30, rng)
    got = M.spearman_scores(x, y, w)
    for b in range(2, len(w)):
        xs, ys = np.repeat(x, w[b].astype(int)), np.repeat(y, w[b].astype(int))
        assert got[b] == pytest.approx(scipy_stats.spearmanr(xs, ys)[0], abs=1e-10)


def _ranking_units(keys_per_query: list[list], rel_per_query: list[list]) -> list[list]:
    return [
        [[f"q{q}", c, [k] if k is not None else None, r] for c, (k, r) in enumerate(zip(keys, rels))]
        for q, (keys, rels) in enumerate(zip(keys_per_query, rel_per_query))
    ]


@pytest.mark.parametrize("agg", ["agg_rr_at_10", "agg_rr_at_5", "agg_ndcg_at_10"])
def test_ranking_statistics_with_ties_and_unretrieved_candidates(agg):
    units = _ranking_units(
        [[1, 1, 1, 1], [0, 0, 1, 0], [None, None, 1, 0], [None, None, None]],  # all tied; one hit; unretrieved
        [[0, 0, 1, 0], [1, 0, 0, 1], [1, 0, 0, 0], [0, 1, 0]],
    )
    _check_resamples(agg, units, query=True)
    # ties keep candidate order: query 0 ranks its candidates 0, 1, 2, 3 → first relevant at rank 3
    assert corpus.aggregate(agg, units[0]) == pytest.approx(
        1 / 3 if agg.startswith("agg_rr") else (1 / np.log2(4)) / 1.0, abs=1e-12
    )


def test_entity_and_kpi_statistics_on_adversarial_subsets():
    types = ["person", "location"]
    ent = [
        {"gold": "Ann (person), Rome (location)", "pred": "Ann (person)", "types": types},
        {"gold": "none", "pred": INVALID, "types": types},
        {"gold": "Bob (person)", "pred": "Bob (location)", "types": types},
    ]
    for agg in ("agg_entity_f1", "agg_entity_precision", "agg_entity_recall"):
        _check_resamples(agg, ent)
        _check_resamples(agg, [{**e, "pred": INVALID} for e in ent])  # all invalid
        _check_resamples(agg, ent[:1])  # a single document
    kpi = [
        {"gold": "5 [cy], 4 [py]", "pred": "5 [cy]"},
        {"gold": "revenue [kpi]", "pred": INVALID},
        {"gold": "3 [py1]", "pred": "3 [py1], 7 [cy]"},
    ]
    for m in M.KPI_METRICS:
        _check_resamples(f"agg_{m}", kpi)
        _check_resamples(f"agg_{m}", [{**k, "pred": INVALID} for k in kpi])


def test_per_document_correctness_of_classification_items_is_exact_match():
    # repeated (gold, prediction) pairs are read once; [NORM] variants, an answer equal to no label and a format
    # failure scored as metrics.exact_match scores each item
    labels = ["yes", "no"]
    pairs = [("yes", "Yes."), ("no", "yes"), ("yes", "Yes."), ("no", INVALID), ("no", "maybe"), ("no", " NO ")]
    items = [{"gold": g, "pred": p, "labels": labels} for g, p in pairs]
    expected = [M.exact_match(g, p) for g, p in pairs]
    assert expected == [1.0, 0.0, 1.0, 0.0, 0.0, 1.0]
    for agg in ("agg_weighted_f1", "agg_macro_f1", "agg_mcc", "agg_weighted_precision"):
        assert corpus.doc_stats(agg, items).per_doc.tolist() == expected
    binary = [{"gold": g, "pred": p, "positive": "yes"} for g, p in pairs]
    assert corpus.doc_stats("agg_binary_f1", binary).per_doc.tolist() == expected


def test_every_statistic_is_tested_and_every_family_aggregation_has_one():
    named = {agg for f in families.FAMILIES.values() for t in (f.metrics, f.helm_metrics) for agg, _ in t.values()}
    assert named <= set(corpus.STATISTICS)
    assert set(corpus.STATISTICS) <= named | {"mean"}
    for agg in named - {"mean"}:
        assert getattr(hooks, agg).__name__ == agg  # lm-eval's aggregation is the statistic of the same name


def test_aggregations_refuse_empty_and_non_finite_input():
    for agg in corpus.STATISTICS:
        if agg == "mean":
            continue
        with pytest.raises(MetricInputError):
            corpus.aggregate(agg, [])
