"""The estimator of a partial cell table (``lm_eval_enterprise/estimator/``): the two-way models fitted by hand-worked
cases, the cell models of every layout, plug-in scores and the predictive statistics."""

import json
import math

import numpy as np
import pytest

from lm_eval_enterprise.estimator import (
    CellMatrix,
    SparseError,
    cell_model,
    estimate,
    fit_two_way,
    naive_scores,
    plugin_scores,
    predictive_stats,
)
from lm_eval_enterprise.scoring.sharpe_score import sharpe

NAN = np.nan


def _sigmoid(x):
    return 1 / (1 + math.exp(-x))


def test_additive_model_fills_the_missing_cell_by_hand():
    # y = c + a_t + b_d fits the three observed cells exactly; the fourth is 0.3 + 0.2 − 0.1 = 0.4
    y = np.array([[0.1, 0.2], [0.3, NAN]])
    f = fit_two_way(np.nan_to_num(y), ~np.isnan(y), "gaussian", tau=1e3, sigma_a=1e3, phi=1.0)
    assert f.mean()[0, 1, 1] == pytest.approx(0.4, abs=1e-6)
    assert f.mean()[0][~np.isnan(y)] == pytest.approx([0.1, 0.2, 0.3], abs=1e-6)
    cm = CellMatrix.from_values(y)
    model = cell_model(cm)
    model.fit = f  # the hand-worked (nearly unpenalised) fit; estimate() uses EB
    assert plugin_scores(cm, model) == pytest.approx([0.15, 0.35], abs=1e-6)  # template 2: (0.3 + 0.4) / 2
    assert naive_scores(cm) == pytest.approx([0.15, 0.3])


def test_rasch_symmetric_case_by_hand():
    # t1 sees d1 = 1, d2 = 0; t2 sees d3 = 1, d4 = 0. By the two symmetries (t1↔t2 with d1↔d3, d2↔d4; y↔1−y) the
    # penalised optimum has c = a_1 = a_2 = 0 and b_1 = b_3 = β = −b_2 = −b_4, where the b_1 equation of
    # y − σ(η) − b/τ² = 0 with τ = 1 reads β = 1 − σ(β). The unobserved cells are σ(±β), so each template's
    # plug-in accuracy is (1 + 0 + σ(β) + σ(−β)) / 4 = 1/2.
    lo, hi = 0.0, 1.0
    for _ in range(100):  # bisection of β − (1 − σ(β)) = 0
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if mid - (1 - _sigmoid(mid)) < 0 else (lo, mid)
    beta = (lo + hi) / 2
    y = np.array([[1, 0, NAN, NAN], [NAN, NAN, 1, 0]])
    f = fit_two_way(np.nan_to_num(y), ~np.isnan(y), "binomial", tau=1.0, sigma_a=1.0)
    assert f.c[0] == pytest.approx(0, abs=1e-7) and f.a[0] == pytest.approx([0, 0], abs=1e-7)
    assert f.b[0] == pytest.approx([beta, -beta, beta, -beta], abs=1e-7)
    assert f.mean()[0, 0, 2] == pytest.approx(_sigmoid(beta), abs=1e-7)
    cm = CellMatrix.from_values(y)
    model = cell_model(cm)
    model.fit = f  # the hand-worked fit at τ = σ_a = 1 (estimate() would use EB)
    assert plugin_scores(cm, model) == pytest.approx([0.5, 0.5], abs=1e-9)


def test_empirical_bayes_recovers_generating_spreads():
    # additive (Gaussian) cells: EM recovers the document spread, the template spread and the noise
    rng = np.random.default_rng(0)
    a = np.array([0.08, 0.02, -0.03, -0.07, 0.0])
    y = 0.4 + a[:, None] + rng.normal(0, 0.1, 3000)[None, :] + rng.normal(0, 0.05, (5, 3000))
    f = fit_two_way(y, np.ones_like(y, bool), "gaussian")
    assert f.converged
    assert f.tau == pytest.approx(0.1, rel=0.05) and math.sqrt(f.phi) == pytest.approx(0.05, rel=0.05)
    assert f.a[0] - f.a[0].mean() == pytest.approx(a - a.mean(), abs=0.005)
    # 0/1 cells (Rasch): template effects are recovered; the Laplace EM under-estimates the document spread
    # (a known property of this approximation for binary data: 1.18 for a true 1.5 with 5 templates per document)
    b = rng.normal(0, 1.5, 2000)
    a = a * 10
    z = (rng.random((5, 2000)) < 1 / (1 + np.exp(-(a[:, None] + b[None, :])))).astype(float)
    f = fit_two_way(z, np.ones_like(z, bool), "binomial")
    assert f.converged and 1.0 < f.tau < 1.5
    assert f.a[0] - f.a[0].mean() == pytest.approx((a - a.mean()) * f.tau / 1.5, abs=0.1)


def test_degenerate_all_wrong_predicts_zero_exactly():
    y = np.array([[0, NAN, 0], [NAN, 0, 0]])
    cm = CellMatrix.from_values(y)
    assert plugin_scores(cm) == pytest.approx([0, 0], abs=0)
    est = estimate(cm, 0.25, n_boot=20)
    assert est.stats["sharpe_status"] == "-inf"


# ============================================================================================ layouts
def test_classification_error_distribution_by_hand():
    # gold [0, 0, 1, 1], labels {0, 1}; every observed answer is wrong → correctness is constantly 0, so a missing
    # cell is exactly its template's error row. Categories: label 0, label 1, none.
    # gold 0, pooled over templates: t1/d1 → 1, t2/d2 → none: [0, .5, .5];
    #   t1 own: [0, 1, 0] → q = ([0,1,0] + [0,.5,.5]) / 2 = [0, .75, .25]; t2 own: none → [0, .25, .75]
    # gold 1, pooled: t1/d3 → 0, t2/d4 → 0: [1, 0, 0] → q = [1, 0, 0] for both templates.
    gold = [0, 0, 1, 1]
    pred = np.array([[1, NAN, 0, NAN], [NAN, -1, NAN, 0]])
    cm = CellMatrix.from_labels(gold, pred, 2, "macro")
    m = cell_model(cm)
    assert m.q[0, 1] == pytest.approx([0, 0.75, 0.25]) and m.q[1, 0] == pytest.approx([0, 0.25, 0.75])
    assert m.q[0, 3] == pytest.approx([1, 0, 0]) and m.q[1, 2] == pytest.approx([1, 0, 0])
    sums = m.sums(np.ones((1, 4)))[0]
    # [tp0, tp1, gold0, gold1, pred0, pred1]: t1 preds d1 [0,1] + d3 [1,0] + E d2 [0,.75] + E d4 [1,0]
    assert sums[0] == pytest.approx([0, 0, 2, 2, 2, 1.75])
    assert sums[1] == pytest.approx([0, 0, 2, 2, 2, 0.25])  # [0,0] + [1,0] + E d1 [0,.25] + E d3 [1,0]
    assert plugin_scores(cm, m) == pytest.approx([0, 0])


def test_classification_mixture_assembly():
    rng = np.random.default_rng(1)
    gold = rng.integers(0, 3, 40)
    pred = np.where(rng.random((4, 40)) < 0.6, gold[None, :], rng.integers(-1, 3, (4, 40))).astype(float)
    pred[rng.random((4, 40)) < 0.5] = NAN
    pred[0, np.isnan(pred).all(0)] = gold[np.isnan(pred).all(0)]
    cm = CellMatrix.from_labels(gold, pred, 3, "weighted")
    m = cell_model(cm)
    p = np.empty((4, 40, 1))  # correctness, fitted per gold class
    for f, cols in zip(m.fit, m.classes):
        assert sorted(set(gold[cols])) == [gold[cols][0]]  # one class per fit
        p[:, cols, 0] = f.mean()[0]
    expected = p * m.right[None] + (1 - p) * m.err  # T × D × 9
    manual = np.where(cm.mask[..., None], cm.features, expected).sum(1)
    assert m.sums(np.ones((1, 40)))[0] == pytest.approx(manual)
    # a wrong answer never adds a true positive, and every cell keeps the document's gold row
    assert np.all(m.err[..., :3] == 0) and np.all(m.err[..., 3:6] == m.right[None, :, 3:6])


def test_count_layout_constant_case_by_hand():
    # entity (TP, FP, FN) per document, gold counts g = [2, 0, 1]; every observed cell finds all gold entities and
    # no false positive → hits ~ Binomial(g, 1), FP ~ Poisson(0): a missing cell is (g, 0, 0), F1 = 1
    f = np.zeros((2, 3, 3))
    f[0, 0] = [2, 0, 0]
    f[1, 2] = [1, 0, 0]
    mask = np.array([[True, True, False], [False, True, True]])

    def f1(s):
        s = np.atleast_2d(s)
        return 2 * s[:, 0] / (2 * s[:, 0] + s[:, 1] + s[:, 2])

    cm = CellMatrix(["t1", "t2"], ["d1", "d2", "d3"], f, mask, f1, ("counts", [("tp_fp_fn", 0)]))
    m = cell_model(cm)
    assert m.sums(np.ones((1, 3)))[0].ravel() == pytest.approx([3, 0, 0, 3, 0, 0])
    assert plugin_scores(cm, m) == pytest.approx([1.0, 1.0])
    # KPI-style (O, P, G): the same cells as (hits, predicted words, gold words) rebuild (E O, E O + E FP, G)
    kf = f.copy()
    kf[..., 1] = kf[..., 0]  # P = O (no false words)
    kf[..., 2] = kf[..., 0]  # G = O on the observed cells
    cm2 = CellMatrix(["t1", "t2"], ["d1", "d2", "d3"], kf, mask, f1, ("counts", [("o_p_g", 0)]))
    assert cell_model(cm2).sums(np.ones((1, 3)))[0].ravel() == pytest.approx([3, 3, 3, 3, 3, 3])


def test_count_layout_non_degenerate_is_bounded():
    rng = np.random.default_rng(2)
    g = rng.integers(0, 4, 60)
    tp = rng.binomial(np.broadcast_to(g, (4, 60)), 0.6)
    fp = rng.poisson(0.5, (4, 60))
    f = np.stack([tp, fp, g[None, :] - tp], axis=2).astype(float)
    mask = rng.random((4, 60)) < 0.5
    mask[0, ~mask.any(0)] = True
    cm = CellMatrix(
        [f"t{i}" for i in range(4)],
        [str(i) for i in range(60)],
        f,
        mask,
        lambda s: np.atleast_2d(s)[:, 0],
        ("counts", [("tp_fp_fn", 0)]),
    )
    m = cell_model(cm)
    x = m.cells(m.fits(), "mean", None, None)[0]
    assert np.all(x[..., 0] >= 0) and np.all(x[..., 0] <= g[None, :] + 1e-9) and np.all(x[..., 1] >= 0)
    assert x[..., 0] + x[..., 2] == pytest.approx(np.broadcast_to(g, (4, 60)).astype(float))


# ============================================================================================ statistics
def test_predictive_stats_by_hand():
    # plug-in scores [0.5, 0.7] (μ = 0.6); every predictive draw has std 0.2 (|x − y| / √2 with ddof 1),
    # so σ = 0.2 and S = (0.6 − 0.2) / 0.2 = 2
    d = 0.2 * math.sqrt(2)
    draws = np.array([[0.5, 0.5 + d], [0.6, 0.6 - d]])
    st = predictive_stats(draws, np.array([0.5, 0.7]), 0.2, 1, 1.0, "off", 100)
    assert st["mean"] == pytest.approx(0.6) and st["std"] == pytest.approx(0.2) and st["sharpe"] == pytest.approx(2)


def test_full_matrix_is_exact():
    rng = np.random.default_rng(3)
    y = (rng.random((5, 30)) < 0.6).astype(float)
    cm = CellMatrix.from_values(y)
    est = estimate(cm, 0.25, n_boot=0)
    assert est.scores == pytest.approx(y.mean(1)) and est.naive == pytest.approx(y.mean(1))
    ref = sharpe(y.mean(1), 0.25, 1)
    assert est.stats["sharpe"] == pytest.approx(ref["sharpe"]) and est.stats["std"] == pytest.approx(ref["std"])


def test_estimate_deterministic_and_labelled():
    rng = np.random.default_rng(4)
    y = np.where(rng.random((5, 80)) < 0.6, (rng.random((5, 80)) < 0.7).astype(float), NAN)
    y[0, np.isnan(y).all(0)] = 1.0
    cm = CellMatrix.from_values(y)
    e1 = estimate(cm, 0.5, n_boot=50, seed=3).as_dict()
    e2 = estimate(cm, 0.5, n_boot=50, seed=3).as_dict()
    assert json.dumps(e1, sort_keys=True) == json.dumps(e2, sort_keys=True)
    assert e1["estimate"] is True and "estimates from" in e1["note"]
    assert e1["cells_observed"] == int((~np.isnan(y)).sum()) and e1["cells_total"] == 400
    assert e1["ci"]["mean"][0] <= e1["mean"] <= e1["ci"]["mean"][1]


def test_matrix_errors():
    with pytest.raises(SparseError, match="documents without any observed template"):
        CellMatrix.from_values(np.array([[1, NAN], [0, NAN]]))
    with pytest.raises(SparseError, match="templates without any observed document"):
        CellMatrix.from_values(np.array([[1, 0], [NAN, NAN]]))
