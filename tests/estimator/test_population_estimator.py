"""The population estimator (``estimator.estimate_population``, covariates in ``fit_two_way``): hand-worked
values on tiny matrices."""

import math

import numpy as np
import pytest

from lm_eval_enterprise.estimator import (
    CellMatrix,
    axis_covariates,
    estimate,
    estimate_population,
    plugin_scores,
    population_quantiles,
)
from lm_eval_enterprise.estimator.twoway import _newton, centred_covariates
from lm_eval_enterprise.harness.cellplan import runs_to_share


def test_axis_covariates_one_hot_sorted_columns():
    x = axis_covariates(
        [{"casing": "upper", "lead": "A"}, {"casing": "lower", "lead": "A"}, {"casing": "upper", "lead": "A"}]
    )
    # columns: (casing, lower), (casing, upper), (lead, A)
    assert x.tolist() == [[0, 1, 1], [1, 0, 1], [0, 1, 1]]
    c, strong = centred_covariates(x, 3, strong=1)  # the constant lead column is dropped, the others centred
    assert strong.tolist() == [False, False]  # the last column (lead) was the strong one, and it is dropped
    assert c.shape == (3, 2)
    assert np.allclose(c[:, 0], [-1 / 3, 2 / 3, -1 / 3]) and np.allclose(c[:, 1], [1 / 3, -2 / 3, 1 / 3])


def test_prior_mean_of_the_template_effects_by_hand():
    """T = 2 templates, one document, y = [1, 0], τ = σ_a = φ = 1. The objective
    Σ_t (y_t − c − a_t − b)²/2 + Σ_t (a_t − m_t)²/2 + b²/2 (c free) has b = 0, c = mean(y − m),
    a_t = (y_t − c + m_t)/2. m = 0: c = 0.5, a = ±0.25 (fitted 0.75 / 0.25); m = (0.5, −0.5): c = 0.5, a = ±0.5
    (fitted 1 / 0)."""
    y, mask, w = np.array([[1.0], [0.0]]), np.ones((2, 1)), np.ones((1, 1))
    for m, a_exp in (((0.0, 0.0), (0.25, -0.25)), ((0.5, -0.5), (0.5, -0.5))):
        zeros = (np.zeros((1, 2)), np.zeros(1), np.zeros((1, 1)))
        a, c, b, *_ = _newton(y, mask, "gaussian", None, w, 1.0, 1.0, 1.0, *zeros, a_mean=np.array(m))
        assert c[0] == pytest.approx(0.5, abs=1e-5)
        assert a[0] == pytest.approx(a_exp, abs=1e-5)
        assert b[0, 0] == pytest.approx(0.0, abs=1e-5)


def test_covariates_pull_a_sparse_template_towards_its_axis_group():
    """Twelve templates of two axis values on 0/1 cells: the x templates are right on 85 % of the 80 documents,
    the y templates on 25 %. Template 0 (an x template) is seen on 2 documents only, right on one of them — weak
    data. Without covariates it is pulled towards the grand mean (about 0.55); with them towards its x group."""
    rng = np.random.default_rng(0)
    t_n, d_n = 12, 80
    level = np.where(np.arange(t_n) < 6, 0.85, 0.25)
    v = (rng.random((t_n, d_n)) < level[:, None]).astype(float)
    mask = np.ones((t_n, d_n), bool)
    mask[0, 2:] = False
    v[0, :2] = [1.0, 0.0]
    axes = [{"g": "x"}] * 6 + [{"g": "y"}] * 6
    cm = CellMatrix.from_values(v, mask)
    plain = estimate_population(cm, 0.0, n_boot=0)
    with_x = estimate_population(cm, 0.0, covariates=axis_covariates(axes), n_boot=0)
    group = float(v[1:6].mean())  # its group's level
    assert abs(with_x["scores"]["t1"] - group) < abs(plain["scores"]["t1"] - group)
    assert with_x["scores"]["t1"] > 0.7
    assert with_x["covariates"] == 2 and plain["covariates"] == 0


def test_population_quantiles_by_hand():
    """Median-unbiased (Hyndman & Fan definition 8) on the scores 0, 1, …, 9 (x₍k₎ = k − 1, T = 10):
    h = (10 + ⅓)p + ⅓. 5 %: h = 0.85 < 1 → x₍1₎ = 0; 25 %: h = 2.9167 → 1 + 0.9167 = 23/12; 50 %: h = 5.5 → 4.5;
    75 %: h = 8.0833 → 7 + 1/12 = 85/12; 95 %: h = 10.15 ≥ 10 → x₍10₎ = 9. Linear interpolation (h = 9p + 1) would
    give 0.45, 2.25, 4.5, 6.75, 8.55: the outer quantiles pulled toward the median. Along an axis: one column per
    row, the levels first."""
    scores = np.array([3, 9, 0, 5, 1, 8, 2, 7, 4, 6], dtype=float)
    expected = [0.0, 23 / 12, 4.5, 85 / 12, 9.0]
    assert population_quantiles(scores) == pytest.approx(expected)
    rows = np.stack([scores, 2 * scores])
    q = population_quantiles(rows, axis=1)
    assert q.shape == (5, 2)
    assert q[:, 0] == pytest.approx(expected) and q[:, 1] == pytest.approx([2 * x for x in expected])


def test_complete_population_by_hand():
    """Every cell observed: scores [1, .5, .5, 0] (0/1 cells, 2 documents), b = 0.25. μ = 0.5,
    σ = sqrt(0.5/3) = 0.40825, S = 0.25/σ = 0.61237; quantiles median-unbiased (h = (4 + ⅓)p + ⅓ on the sorted
    [0, .5, .5, 1]): h 0.55 → 0 (clamped), 1.4167 → 0 + 0.4167·0.5 = 5/24, 2.5 → 0.5, 3.5833 → 0.5 + 0.5833·0.5 =
    19/24, 4.45 → 1 (clamped); the worst decile (≤ the linear 10 % quantile 0.15): t4."""
    v = np.array([[1, 1], [1, 0], [0, 1], [0, 0]], dtype=float)
    est = estimate_population(CellMatrix.from_values(v), 0.25, n_boot=50, seed=1)
    assert [est["scores"][t] for t in ("t1", "t2", "t3", "t4")] == [1.0, 0.5, 0.5, 0.0]
    assert est["mean"] == pytest.approx(0.5)
    assert est["std"] == pytest.approx(math.sqrt(0.5 / 3))
    assert est["sharpe"] == pytest.approx(0.25 / math.sqrt(0.5 / 3))
    assert est["quantiles"] == pytest.approx([0.0, 5 / 24, 0.5, 19 / 24, 1.0])
    assert est["worst_decile"] == ["t4"] and est["worst_template"] == "t4"
    assert not est["estimate"] and est["share"] == 1.0
    ci = est["ci"]
    assert ci["resample_templates"] and len(ci["quantiles"]) == 5
    assert all(lo <= hi for lo, hi in ci["quantiles"])
    assert ci["mean"][0] <= 0.5 <= ci["mean"][1]


def test_sparse_population_is_labelled_and_seeded():
    rng = np.random.default_rng(3)
    v = (rng.random((10, 40)) < np.linspace(0.2, 0.8, 10)[:, None]).astype(float)
    mask = np.zeros_like(v, dtype=bool)
    for d in range(40):
        mask[[(2 * d) % 10, (2 * d + 1) % 10], d] = True  # 2 templates per document = 2 runs of 10
    cm = CellMatrix.from_values(v, mask)
    a = estimate_population(cm, 0.5, n_boot=40, seed=7)
    b = estimate_population(cm, 0.5, n_boot=40, seed=7)
    assert a == b
    assert a["estimate"] and a["share"] == pytest.approx(0.2)
    assert a["quantiles"] == sorted(a["quantiles"])


def test_runs_to_share():
    assert runs_to_share(2, 50) == pytest.approx(0.04)
    assert runs_to_share(1, 30) == pytest.approx(1 / 30)
    with pytest.raises(ValueError, match="between 1 and 5"):
        runs_to_share(6, 5)


def test_questions_are_averaged_per_template_by_hand():
    """A dataset made of questions ([QMEAN], gold_news): one matrix per question, a template's score is the mean of
    its per-question scores. Question A (2 documents): scores [1, .5, 0]; question B (2 other documents):
    [0, .5, 1]. Means: [.5, .5, .5] → σ 0, no Sharpe score. With B' = [1, .5, 0] instead: means [1, .5, 0],
    μ .5, σ .5 (ddof 1), S (.5 − .25)/.5 = .5; median-unbiased quantiles of [0, .5, 1] (h = (3 + ⅓)p + ⅓: 0.5,
    1.1667, 2, 2.8333, 3.5) at 5/25/50/75/95 %: 0, 1/12, .5, 11/12, 1; 4 documents in all."""
    a = CellMatrix.from_values(np.array([[1, 1], [1, 0], [0, 0]], dtype=float), docs=["a1", "a2"])
    b = CellMatrix.from_values(np.array([[0, 0], [0, 1], [1, 1]], dtype=float), docs=["b1", "b2"])
    flat = estimate_population([a, b], 0.25, n_boot=0)
    assert [flat["scores"][t] for t in ("t1", "t2", "t3")] == [0.5, 0.5, 0.5]
    assert flat["std"] == 0.0 and flat["sharpe"] is None
    b2 = CellMatrix.from_values(np.array([[1, 1], [0, 1], [0, 0]], dtype=float), docs=["b1", "b2"])
    est = estimate_population([a, b2], 0.25, n_boot=20, seed=3)
    assert [est["scores"][t] for t in ("t1", "t2", "t3")] == [1.0, 0.5, 0.0]
    assert est["mean"] == pytest.approx(0.5) and est["std"] == pytest.approx(0.5)
    assert est["sharpe"] == pytest.approx(0.5)
    assert est["quantiles"] == pytest.approx([0.0, 1 / 12, 0.5, 11 / 12, 1.0])
    assert est["n_docs"] == 4 and est["worst_template"] == "t3"


def test_label_bias_carries_over_to_the_rare_class():
    """Binary F1 (positive class 0), 6 templates, 40 negative and 6 positive documents. Templates t1–t3 answer
    "positive" on every document, t4–t6 never (F1 = 2·6/(2·6 + 40 + 0) = 3/13 ≈ 0.231 and 0). Every negative cell is
    observed, the positive cells only under t1, t2, t4, t5. Fitted apart (one Laplace fit per gold class), t3 and t6
    get the pooled positive-class accuracy (½: F1 2·3/(2·3 + 3) = 0.67 for t6); the sampled two-class fit of a
    sparse run and of a population reads their accuracy on the positives from their answers on the negatives (a
    label bias), with or without axis covariates (here one constant axis): t6 → near 0, t3 → near 3/13."""
    gold = [1] * 40 + [0] * 6
    says_pos = np.array([1, 1, 1, 0, 0, 0], bool)
    pred = np.where(says_pos[:, None], 0, 1) * np.ones((6, 46))
    mask = np.ones((6, 46), bool)
    mask[[2, 5], 40:] = False
    cm = CellMatrix.from_labels(gold, pred, 2, "binary", mask=mask, positive=0)
    apart = dict(zip(cm.templates, plugin_scores(cm)))
    assert apart["t6"] > 0.5
    sparse = dict(zip(cm.templates, estimate(cm, 0.0, n_boot=0).scores))
    for covariates in (None, axis_covariates([{"a": "x"}] * 6)):
        joint = estimate_population(cm, 0.0, covariates=covariates, n_boot=0)["scores"]
        for s in (joint, sparse):
            assert s["t6"] < 0.05 and abs(s["t3"] - 3 / 13) < 0.01
            assert s["t1"] == pytest.approx(3 / 13) and s["t4"] == 0.0  # observed throughout


def test_resample_templates_plain_for_values_that_are_not_zero_one():
    """Not 0/1 values: the plain resampling — T indices with replacement per row, no broken slots."""
    from lm_eval_enterprise.estimator.estimate import resample_templates

    rows = np.array([[0.0, 0.3, 0.7], [0.2, 0.0, 0.9]])
    ti, broken = resample_templates(rows, np.random.default_rng(0), zero_inflated=False)
    assert broken is None and ti.shape == (2, 3) and ((ti >= 0) & (ti < 3)).all()


def test_resample_templates_draws_the_broken_share_from_its_posterior():
    """0/1 values, T = 10 templates of which k = 2 never right (score 0) in every row. Under the Jeffreys prior
    Beta(½, ½) π ~ Beta(½ + 2, ½ + 8): E π = 2.5/11 = 0.22727, Var π = 2.5·8.5/(11²·12) = 0.014635; a row's broken
    slots ⌊10π + U⌋ have mean 10·E π = 2.2727 and variance 100·Var π + E[frac(10π)(1 − frac(10π))] (the rounding),
    at least 1.4635. The other slots draw only from the 8 templates right at least once, each 1/8 of them; a broken
    slot keeps an index drawn from all ten (its baseline). Plain resampling would give 2 broken slots on average,
    binomially spread."""
    from lm_eval_enterprise.estimator.estimate import resample_templates
    from lm_eval_enterprise.estimator.sampler import BROKEN_PRIOR

    assert BROKEN_PRIOR == (0.5, 0.5)
    r_n = 40_000
    scores = np.array([0.0, 0.4, 0.0, 0.5, 0.6, 0.2, 0.9, 0.3, 0.8, 0.7])
    rows = np.tile(scores, (r_n, 1))
    ti, broken = resample_templates(rows, np.random.default_rng(5), zero_inflated=True)
    n_broken = broken.sum(1)
    assert n_broken.mean() == pytest.approx(25 / 11, abs=0.03)  # SE ≈ sqrt(1.7/40000) = 0.0065
    assert n_broken.var() >= 1.42  # the sample variance's SE ≈ 1.7·sqrt(2/40000) = 0.012
    assert (broken == (np.arange(10)[None, :] < n_broken[:, None])).all()  # the first slots of a row
    drawn = ti[~broken]
    assert not np.isin(drawn, [0, 2]).any()  # never a never-right template in a working slot
    share = np.bincount(drawn, minlength=10)[[1, 3, 4, 5, 6, 7, 8, 9]] / drawn.size
    assert share == pytest.approx(np.full(8, 1 / 8), abs=0.004)
    assert set(np.unique(ti[broken])) == set(range(10))


def test_resample_templates_no_broken_template_in_the_sample():
    """k = 0 of T = 30: π ~ Beta(½, 30½), E π = 0.5/31, so a row holds 15/31 = 0.4839 broken slots on average — the
    population may hold broken templates that a sample of 30 missed (plain resampling: never)."""
    from lm_eval_enterprise.estimator.estimate import resample_templates

    rows = np.tile(np.linspace(0.3, 0.8, 30), (40_000, 1))
    _, broken = resample_templates(rows, np.random.default_rng(2), zero_inflated=True)
    assert broken.sum(1).mean() == pytest.approx(15 / 31, abs=0.02)


def test_population_interval_scores_a_broken_slot_zero():
    """Every cell observed, 0/1 values (4 templates on 2 documents): the population interval draws the broken share
    (the record's method says so). By hand through :func:`_stat_intervals` on fixed draws: row [1, .5, .5, 0],
    indices [0, 1, 2, 3], the first slot broken → scores [0, .5, .5, 0]: μ = 0.25, σ = sqrt(4·0.25²/3)."""
    from lm_eval_enterprise.estimator.estimate import _stat_intervals

    v = np.array([[1, 1], [1, 0], [0, 1], [0, 0]], dtype=float)
    est = estimate_population(CellMatrix.from_values(v), 0.25, n_boot=50, seed=1)
    assert "the share of broken templates (never right) drawn from its posterior" in est["ci"]["method"]
    rows = np.array([[1.0, 0.5, 0.5, 0.0]])
    ti = np.array([[0, 1, 2, 3]])
    out = _stat_intervals(rows, 0.0, 1, 1.0, "off", 2, template_idx=ti, broken=np.array([[True, False, False, False]]))
    assert out["mean"] == pytest.approx([0.25, 0.25])
    assert out["std"] == pytest.approx([math.sqrt(1 / 12)] * 2)  # deviations ±0.25 twice: 0.25/3
