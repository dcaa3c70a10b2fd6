"""The Sharpe score shared by the Sharpe tool and the estimator (lm_eval_enterprise.scoring.sharpe_score): its
properties (docs/sharpe.md#ddof, #properties) and the row-wise form used on resamples. The worked examples run in
tests/sharpe/test_stats.py."""

import math

import numpy as np
import pytest

from lm_eval_enterprise.scoring import sharpe_score as SS


def test_property_ddof_conversion_and_invariances():
    rng = np.random.default_rng(1)
    for _ in range(50):
        t = int(rng.integers(2, 9))
        s = rng.random(t)
        b = float(rng.random() * 0.5)
        s1, s0 = SS.sharpe(s, b, 1)["sharpe"], SS.sharpe(s, b, 0)["sharpe"]
        assert s1 == pytest.approx(s0 * math.sqrt((t - 1) / t))
        assert SS.sharpe(rng.permutation(s), b)["sharpe"] == pytest.approx(s1)
        c = float(rng.random())
        assert SS.sharpe(s + c, b + c)["sharpe"] == pytest.approx(s1)
        k = float(rng.random() * 3 + 0.1)
        assert SS.sharpe(s * k, b * k)["sharpe"] == pytest.approx(s1)
        assert SS.sharpe(s, b, alpha=2.0)["sharpe"] == pytest.approx(s1 / 2)


def test_sharpe_matrix_matches_scalar():
    rng = np.random.default_rng(2)
    m = rng.random((20, 4))
    m[3] = 0.5
    mu, sig, sh, deg = SS.sharpe_matrix(m, 0.25, 1)
    for i in range(20):
        r = SS.sharpe(m[i], 0.25, 1)
        assert mu[i] == pytest.approx(r["mean"])
        assert sig[i] == pytest.approx(r["std"], abs=1e-15)
        if r["sharpe_status"] == "ok":
            assert sh[i] == pytest.approx(r["sharpe"])
        else:
            assert math.isnan(sh[i]) and deg[i]


def test_per_template_baseline():
    s, b = [0.6, 0.7, 0.8], [0.2, 0.25, 0.3]
    r = SS.sharpe(s, b)
    ex = np.array(s) - np.array(b)
    assert r["sharpe"] == pytest.approx(ex.mean() / ex.std(ddof=1))
