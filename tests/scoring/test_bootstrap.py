"""The document bootstrap shared by the Sharpe tool and the estimator (lm_eval_enterprise.scoring.bootstrap): the
reference draw order, the multiplicity matrix, percentile intervals."""

import numpy as np
import pytest

from lm_eval_enterprise.scoring import bootstrap as BS


def test_reference_draw_order_is_the_loop():
    rng = np.random.default_rng(7)
    loop = np.stack([rng.integers(0, 9, 9) for _ in range(50)])
    di, _ = BS.draw(7, 50, 9, 4, False)
    assert (di == loop).all()
    w = BS.multiplicities(di, 9)
    assert (w.sum(1) == 9).all() and w[0, di[0, 0]] >= 1


def test_percentile_ci_ignores_non_finite():
    assert BS.percentile_ci([np.nan, np.inf, 1.0, 2.0, 3.0]) == pytest.approx([1.05, 2.95])
    assert BS.percentile_ci([np.nan]) is None
