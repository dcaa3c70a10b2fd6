"""docs/sharpe.md#worked-examples (both ddof, and the properties listed there) and #degenerate-cases, on the
statistics functions. The same examples run through the whole tool (files → records) in test_full_run.py."""

import math

import numpy as np
import pytest

from lm_eval_enterprise.scoring import bootstrap as BS
from lm_eval_enterprise.scoring import sharpe_score as SS
from lm_eval_enterprise.scoring.corpus import mean_values as mean_scorer
from lm_eval_enterprise.sharpe import stats as ST

TOL = 1e-6


# ---------------------------------------------------------------------------------------------- Ex 1
def test_ex1_five_way_qa():
    s = [0.62, 0.58, 0.70, 0.66, 0.54]
    r1 = SS.sharpe(s, 0.2, ddof=1)
    assert r1["mean"] == pytest.approx(0.62)
    assert r1["std"] == pytest.approx(0.0632455532, abs=1e-9)
    assert r1["sharpe"] == pytest.approx(6.640783086, abs=1e-8)
    r0 = SS.sharpe(s, 0.2, ddof=0)
    assert r0["std"] == pytest.approx(0.0565685425, abs=1e-9)
    assert r0["sharpe"] == pytest.approx(7.424621202, abs=1e-8)
    assert r1["sharpe"] / r0["sharpe"] == pytest.approx(0.894427191, abs=1e-9)
    d = ST.describe(s)
    assert (d["min"], d["max"]) == (0.54, 0.70)
    assert d["spread"] == pytest.approx(0.16)
    assert d["cps"] == pytest.approx(0.644)
    assert list(d["quantiles"].values()) == pytest.approx([0.548, 0.58, 0.62, 0.66, 0.692])


# ---------------------------------------------------------------------------------------------- Ex 2
EX2 = {"A": [0.80, 0.40, 0.78, 0.42], "B": [0.55, 0.57, 0.53, 0.55]}


@pytest.mark.parametrize(
    "model,mu,s1,sh1,s0,sh0,spread,cps",
    [
        ("A", 0.600, 0.2196967607, 1.213794258, 0.1902629759, 1.401568883, 0.40, 0.64),
        ("B", 0.550, 0.0163299316, 13.26806944, 0.0141421356, 15.32064693, 0.04, 0.5586),
    ],
)
def test_ex2_nli(model, mu, s1, sh1, s0, sh0, spread, cps):
    r1, r0 = SS.sharpe(EX2[model], 1 / 3, ddof=1), SS.sharpe(EX2[model], 1 / 3, ddof=0)
    assert r1["mean"] == pytest.approx(mu)
    assert (r1["std"], r1["sharpe"]) == (pytest.approx(s1, abs=1e-9), pytest.approx(sh1, abs=1e-7))
    assert (r0["std"], r0["sharpe"]) == (pytest.approx(s0, abs=1e-9), pytest.approx(sh0, abs=1e-7))
    d = ST.describe(EX2[model])
    assert d["spread"] == pytest.approx(spread) and d["cps"] == pytest.approx(cps)


def test_ex2_flip_and_paired_tests():
    means = {m: float(np.mean(v)) for m, v in EX2.items()}
    shs = {m: SS.sharpe(v, 1 / 3)["sharpe"] for m, v in EX2.items()}
    assert ST.flips(means, shs) == [["A", "B"]]
    cps = {m: ST.describe(v)["cps"] for m, v in EX2.items()}
    assert ST.order(cps) == ["A", "B"]
    delta = np.array(EX2["A"]) - np.array(EX2["B"])
    assert list(delta) == pytest.approx([0.25, -0.17, 0.25, -0.13])
    assert delta.mean() == pytest.approx(0.05)
    sign = ST.sign_test(delta)
    assert (sign["wins"], sign["p"]) == (2, pytest.approx(1.0))
    wx = ST.wilcoxon(delta)
    assert wx["statistic"] == pytest.approx(3.0) and wx["p"] == pytest.approx(0.5)


# ---------------------------------------------------------------------------------------------- Ex 3
def test_ex3_sts_and_degenerate():
    s = [0.71, 0.65, 0.68]
    r1, r0 = SS.sharpe(s, 0.0, ddof=1), SS.sharpe(s, 0.0, ddof=0)
    assert r1["mean"] == pytest.approx(0.68)
    assert (r1["std"], r1["sharpe"]) == (pytest.approx(0.03), pytest.approx(22.66666667, abs=1e-7))
    assert (r0["std"], r0["sharpe"]) == (pytest.approx(0.0244948974, abs=1e-9), pytest.approx(27.76088375, abs=1e-7))
    assert ST.describe(s)["cps"] == pytest.approx(0.6887)
    for ddof in (0, 1):
        u = SS.sharpe([0.5, 0.5, 0.5], 0.5, ddof=ddof)
        assert u["sharpe_status"] == "undefined" and u["degenerate_std"] and math.isnan(u["sharpe"])
        inf = SS.sharpe([0.9, 0.9], 0.25, ddof=ddof)
        assert inf["sharpe_status"] == "inf" and inf["sharpe"] == math.inf and inf["degenerate_std"]
        neg = SS.sharpe([0.1, 0.1], 0.25, ddof=ddof)
        assert neg["sharpe_status"] == "-inf"
        single = SS.sharpe([0.7], 0.25, ddof=ddof)
        assert single["sharpe_status"] == "single_template" and single["sharpe"] is None
    fl = SS.sharpe([0.9, 0.9], 0.25, ddof=1, floor_mode="binomial", n_docs=100)
    assert fl["sigma_eff"] == pytest.approx(0.03) and fl["sigma_floor_active"]
    assert fl["sharpe"] == pytest.approx(21.6666667, abs=1e-6)
    assert SS.sharpe([0.9, 0.9], 0.25, floor_mode=0.05)["sharpe"] == pytest.approx(13.0)


def test_sharpe_sort_order():
    vals = {"a": 1.0, "b": math.inf, "c": math.nan, "d": -math.inf, "e": 3.0}
    assert ST.order(vals, sharpe_like=True) == ["b", "e", "a", "d", "c"]


# ---------------------------------------------------------------------------------------------- Ex 4
EX4 = {"X": [0.70, 0.55, 0.72, 0.50], "Y": [0.60, 0.65, 0.58, 0.62], "Z": [0.50, 0.45, 0.60, 0.52]}


@pytest.mark.parametrize(
    "m,mu,s1,s0,sh1,sh0",
    [
        ("X", 0.6175, 0.1090489187, 0.0944391338, 2.605864, 3.008993),
        ("Y", 0.6125, 0.0298607881, 0.0258602011, 9.348938, 10.795224),
        ("Z", 0.5175, 0.0623832242, 0.0540254570, 2.952183, 3.408887),
    ],
)
def test_ex4_per_model(m, mu, s1, s0, sh1, sh0):
    r1, r0 = SS.sharpe(EX4[m], 1 / 3, ddof=1), SS.sharpe(EX4[m], 1 / 3, ddof=0)
    assert r1["mean"] == pytest.approx(mu)
    assert r1["std"] == pytest.approx(s1, abs=1e-9) and r0["std"] == pytest.approx(s0, abs=1e-9)
    assert r1["sharpe"] == pytest.approx(sh1, abs=TOL) and r0["sharpe"] == pytest.approx(sh0, abs=TOL)


def test_ex4_rank_stability():
    rs = ST.rank_stability(EX4)
    assert rs["ranks_per_template"]["X"] == [1, 2, 1, 3]
    assert rs["ranks_per_template"]["Y"] == [2, 1, 3, 1]
    assert rs["ranks_per_template"]["Z"] == [3, 3, 2, 2]
    assert rs["kendall_tau_pairs"] == pytest.approx([1 / 3, 1 / 3, -1 / 3, -1 / 3, 1 / 3, -1])
    assert rs["kendall_tau_mean"] == pytest.approx(-0.111111, abs=TOL)
    assert list(rs["rank_sums"].values()) == [7, 7, 10]
    assert rs["kendall_w"] == pytest.approx(0.1875)
    assert rs["friedman_chi2"] == pytest.approx(1.5)
    assert rs["friedman_p"] == pytest.approx(0.472367, abs=TOL)
    means = {m: float(np.mean(v)) for m, v in EX4.items()}
    shs = {m: SS.sharpe(v, 1 / 3)["sharpe"] for m, v in EX4.items()}
    assert ST.order(means) == ["X", "Y", "Z"]
    assert ST.order(shs, sharpe_like=True) == ["Y", "Z", "X"]
    assert ST.flips(means, shs) == [["X", "Y"], ["X", "Z"]]


# ---------------------------------------------------------------------------------------------- Ex 5 / Ex 6
EX5_CORRECT = np.array([[1, 1, 0, 1, 1, 0], [1, 0, 0, 1, 0, 0], [1, 1, 1, 1, 0, 0]], dtype=float)
EX5_OK = np.array([[1, 1, 1, 1, 1, 1], [1, 1, 0, 1, 0, 1], [1, 1, 1, 1, 1, 1]], dtype=bool)


@pytest.mark.parametrize("ddof,s_strict,s_parsed", [(1, 1.154701, 2.886751), (0, 1.414214, 3.535534)])
def test_ex5_strict_and_parsed(ddof, s_strict, s_parsed):
    strict = [mean_scorer(y).score() for y in EX5_CORRECT]
    parsed = [mean_scorer(y).masked(ok).score() for y, ok in zip(EX5_CORRECT, EX5_OK)]
    assert 1 - EX5_OK.mean(1) == pytest.approx([0, 1 / 3, 0])
    assert strict == pytest.approx([2 / 3, 1 / 3, 2 / 3])
    assert parsed == pytest.approx([2 / 3, 0.5, 2 / 3])
    a, b = SS.sharpe(strict, 1 / 3, ddof), SS.sharpe(parsed, 1 / 3, ddof)
    assert a["mean"] == pytest.approx(0.555556, abs=TOL) and b["mean"] == pytest.approx(0.611111, abs=TOL)
    assert a["std"] == pytest.approx({1: 0.192450, 0: 0.157135}[ddof], abs=TOL)
    assert b["std"] == pytest.approx({1: 0.096225, 0: 0.078567}[ddof], abs=TOL)
    assert a["sharpe"] == pytest.approx(s_strict, abs=TOL) and b["sharpe"] == pytest.approx(s_parsed, abs=TOL)


def test_ex5_pss():
    pss, sd = ST.pss(EX5_CORRECT)
    assert list(sd) == pytest.approx([0, 2 / 3, 2 / 3, 0, 2 / 3, 0])
    assert pss == pytest.approx(1 / 3)


def test_ex6_prosa_binary():
    def s_d(k, t=4):
        col = np.array([[1.0]] * k + [[0.0]] * (t - k))
        return ST.pss(col)[1][0]

    assert s_d(2) == pytest.approx(0.666667, abs=TOL)
    assert s_d(1) == pytest.approx(0.5)
    assert s_d(0) == 0 and s_d(4) == 0
    rng = np.random.default_rng(0)
    y = rng.random((5, 30))
    brute = np.mean([np.mean([abs(y[i, d] - y[j, d]) for i in range(5) for j in range(i + 1, 5)]) for d in range(30)])
    assert ST.pss(y)[0] == pytest.approx(brute)


def _ex5_boot(resample_templates: bool):
    scorers = [mean_scorer(y) for y in EX5_CORRECT]
    di, ti = BS.draw(0, 2000, 6, 3, resample_templates)
    w = BS.multiplicities(di, 6)
    mat = np.column_stack([s.scores(w) for s in scorers])
    return ST.summarize(mat, 1 / 3, 1, 1.0, "off", 6, ti, 0)


def test_ex5_reference_bootstrap_docs_only():
    ci = _ex5_boot(False)
    assert ci["mean"] == pytest.approx([0.277778, 0.833333], abs=TOL)
    assert ci["std"] == pytest.approx([0.096225, 0.419435], abs=TOL)
    assert ci["sharpe"] == pytest.approx([-0.288675, 4.618802], abs=TOL)
    assert ci["frac_degenerate"] == pytest.approx(0.016)


def test_ex5_reference_bootstrap_docs_and_templates():
    ci = _ex5_boot(True)
    assert ci["mean"] == pytest.approx([0.166667, 0.888889], abs=TOL)
    assert ci["std"] == pytest.approx([0.0, 0.3849], abs=1e-4)
    assert ci["sharpe"] == pytest.approx([-0.57735, 5.773503], abs=TOL)
    assert ci["frac_degenerate"] == pytest.approx(0.2275)


# ---------------------------------------------------------------------------------------------- paired tests
def sign_flip_test(diff, n_perm: int = 2000, seed: int = 0) -> float:
    return float(ST.sign_flip_pvalues(np.asarray(diff, dtype=float)[None, :], n_perm, seed)[0])


def test_holm_and_sign_flip():
    adj = ST.holm([0.01, 0.04, 0.03, None])
    assert adj[:3] == pytest.approx([0.03, 0.06, 0.06]) and adj[3] is None
    d = np.array([1.0, 1.0, 1.0, 1.0])
    assert sign_flip_test(d, n_perm=2000) == pytest.approx(2 / 16)  # exact: all-plus or all-minus
    assert sign_flip_test(np.zeros(3)) == 1.0
    p = sign_flip_test(np.ones(40) * 0.5, n_perm=500, seed=1)
    assert p == pytest.approx(1 / 501)


def test_sign_test_equals_scipy_binomtest():
    from scipy.stats import binomtest

    for wins in range(0, 9):
        for losses in range(0, 9 - wins):
            d = [1.0] * wins + [-1.0] * losses + [0.0]
            r = ST.sign_test(d)
            assert (r["wins"], r["losses"], r["ties"]) == (wins, losses, 1)
            ref = binomtest(wins, wins + losses).pvalue if wins + losses else 1.0
            assert r["p"] == pytest.approx(ref, abs=1e-12)


def test_wilcoxon_exact_equals_scipy_with_ties():
    from scipy.stats import wilcoxon

    rng = np.random.default_rng(0)
    for i in range(100):
        d = np.round(rng.normal(size=int(rng.integers(2, 10))), 1)
        if i % 3 == 0:
            d[:2] = abs(d[0]) * np.array([1, -1])
        d = d[d != 0]
        if len(d) < 2:
            continue
        ref = wilcoxon(d)
        got = ST.wilcoxon(d)
        assert got["statistic"] == pytest.approx(ref.statistic) and got["p"] == pytest.approx(ref.pvalue)


def test_sign_flip_batch_equals_single():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(4, 30))
    batch = ST.sign_flip_pvalues(x, 500, seed=2)
    assert [sign_flip_test(r, 500, seed=2) for r in x] == pytest.approx(list(batch))
