"""The population estimator's sampled fit (``estimator/sampler.py``: ``sample_two_way``, ``fit_sampled``), its intervals and
precision, the simulation bench's cases (``scripts/bench_population_sim.py``, bounded to seconds: the full study is
the script) and the budget planner (``cellplan.plan_from_*``, ``lm-eval-enterprise population --plan``)."""

import importlib.util
import json
import math
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from lm_eval_enterprise.estimator import (
    CellMatrix,
    SampledFit,
    axis_covariates,
    estimate_population,
    fit_sampled,
    pg_draw,
)
from lm_eval_enterprise.estimator.sampler import (
    _broken_step,
    _doc_marginal,
    _pg_moments,
    censored_draws,
    sample_two_way,
)
from lm_eval_enterprise.harness.cellplan import plan_cells, plan_from_estimate, plan_from_guesses
from lm_eval_enterprise.sharpe.inputs import Options
from lm_eval_enterprise.sharpe.report import _precision_line
from testkit import synthetic as S

REPO = Path(__file__).resolve().parents[2]


def _bench():
    spec = importlib.util.spec_from_file_location("bench_population_sim", REPO / "scripts" / "bench_population_sim.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # its dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("b", [1.0, 3.0])
@pytest.mark.parametrize("z", [0.0, 2.0, 8.0])
def test_polya_gamma_draws_have_the_exact_moments(b, z):
    """E PG(b, z) = b·tanh(z/2)/(2z), Var = b(sinh z − z)/(4z³cosh²(z/2)) (b/4 and b/24 at z = 0)."""
    mean, var = _pg_moments(np.array(b), np.array(z))
    if z == 0:
        assert mean == pytest.approx(b / 4) and var == pytest.approx(b / 24)
    draws = pg_draw(np.random.default_rng(1), np.full(40_000, b), np.full(40_000, z))
    assert draws.mean() == pytest.approx(mean, rel=0.02)
    assert draws.var() == pytest.approx(var, rel=0.06)
    assert draws.min() > 0


def test_document_marginal_by_hand():
    """One document, one cell y = 1 with a = 0: ∫ logistic(b) N(b; 0, τ²) db = ½ for every τ (symmetry); the additive
    model's two cells r = (1, −1) with φ = 1, τ = 1: log N(r; 0, I + 11ᵀ) = −½(log 3 + 2) (constants dropped)."""
    one = np.array([0])
    for tau in (0.5, 2.0):
        got = _doc_marginal(np.zeros(1), np.ones(1), np.ones(1), one, 1, tau, True, 1.0)
        assert got[0] == pytest.approx(math.log(0.5), abs=1e-6)
    got = _doc_marginal(np.zeros(2), np.array([1.0, -1.0]), np.ones(2), np.array([0, 0]), 1, 1.0, False, 1.0)
    assert got[0] == pytest.approx(-0.5 * (math.log(3) + 2))
    # φ = 2: Σ = 2I + 11ᵀ, det = 2·4 = 8 ((n − 1)·log φ + log(φ + nτ²)); r ⟂ 1 so r'Σ⁻¹r = |r|²/2 = 1. The φ terms
    # must be complete: the additive model's collapsed split of τ² + φ compares different φ
    got = _doc_marginal(np.zeros(2), np.array([1.0, -1.0]), np.ones(2), np.array([0, 0]), 1, 1.0, False, 2.0)
    assert got[0] == pytest.approx(-0.5 * (math.log(8) + 1))


def test_censored_draws_are_the_truncated_normal():
    """y* ~ N(η, 1) truncated to y* ≤ 0 (η = 0.5 from the bound): every draw beyond the bound and the mean
    E = η − φ(α)/Φ(α), α = −η (the inverse Mills ratio: 0.5 − 0.35207/0.30854 = −0.64108); above the bound the
    mirror image; a bound 40 sd away still gives finite draws at or beyond it."""
    rng = np.random.default_rng(3)
    n = 200_000
    low = censored_draws(rng, np.full(n, 0.5), 1.0, np.ones(n, bool))
    assert low.max() <= 0 and low.mean() == pytest.approx(-0.64108, abs=0.005)
    high = censored_draws(rng, np.full(n, -0.5), 1.0, np.zeros(n, bool))
    assert high.min() >= 0 and high.mean() == pytest.approx(0.64108, abs=0.005)
    far = censored_draws(rng, np.array([40.0, -40.0]), 1.0, np.array([True, False]))
    assert np.isfinite(far).all() and far[0] <= 0 <= far[1]


def test_additive_fit_is_censored_at_the_bounds():
    """Values clip(0.05 + a_t + b_d + e, 0, 1) with σ_a 0.05, τ 0.05, noise sd 0.15: about 37 % of the cells are
    0. The censored fit recovers the latent level (mean template effect 0.05 + mean a_t = 0.060; the uncensored fit
    of the previous release gave the clipped mean, 0.102) and the noise variance 0.0225 (uncensored: 0.013)."""
    rng = np.random.default_rng(11)
    t_n, d_n = 20, 200
    a, b = rng.normal(0, 0.05, t_n), rng.normal(0, 0.05, d_n)
    y = np.clip(0.05 + a[:, None] + b[None, :] + rng.normal(0, 0.15, (t_n, d_n)), 0, 1)
    assert 0.3 < (y == 0).mean() < 0.45 and y.mean() > 0.09
    mask = np.zeros((t_n, d_n), bool)
    for d in range(d_n):
        mask[rng.choice(t_n, 4, replace=False), d] = True
    f = fit_sampled(y, mask, "gaussian", rng=np.random.default_rng(0))
    assert (f.lo, f.hi) == (0.0, 1.0)
    assert f.a.mean() == pytest.approx(0.05 + a.mean(), abs=0.02)
    assert f.phi == pytest.approx(0.0225, rel=0.15)


def test_one_cell_per_document_leaves_the_noise_split_to_the_priors():
    """With one cell per document only τ² + φ is identified (a document's difficulty and its cell's noise are one
    number). The chain must travel along τ² + φ = v (the collapsed split move) instead of sticking at φ → 0, where
    the imputed cells would copy their documents' observed values with no noise: φ's posterior mean share of v is
    near the middle (under the nearly flat priors the angle of (τ, √φ) on the circle of radius √v is about uniform:
    mean share ½; the chain without the move gave 0.24) and τ² + φ stays at the observed residual variance
    (0.01 + 0.01 = 0.02)."""
    rng = np.random.default_rng(2)
    t_n, d_n = 25, 500
    a, b = rng.normal(0, 0.05, t_n), rng.normal(0, 0.1, d_n)
    y = 0.4 + a[:, None] + b[None, :] + rng.normal(0, 0.1, (t_n, d_n))
    mask = np.zeros((t_n, d_n), bool)
    mask[np.arange(d_n) % t_n, np.arange(d_n)] = True
    f = fit_sampled(y, mask, "gaussian", rng=np.random.default_rng(0))
    v = f.phi + f.tau**2
    assert v == pytest.approx(0.02, rel=0.2)
    assert 0.35 < f.phi / v < 0.65


def test_broken_step_by_hand():
    """The zero-inflation block. A candidate with prior sd → 0 at m = 0 and two cells at b = 0 fails on both with
    L = (1 − ½)² = ¼; with π = 0.2 it is broken with probability 0.2 / (0.2 + 0.8·¼) = ½. With sd 1 and one cell at
    b = 0, L = ∫ (1 − logistic a) φ(a) da = ½ (symmetry), so π = ½ gives ½ / (½ + ½·½) = ⅔; a working candidate's
    effect then has the density 2 (1 − logistic a) φ(a), of mean 2 (E[a] − E[a logistic a]) = −2 E[logistic′ a]
    (Stein's lemma) = −2 E[p (1 − p)], with E[p(1 − p)] = 0.20662 under N(0, 1) (the integral, by quadrature here);
    a broken one's effect is drawn from the prior (mean 0, sd 1). 40,000 candidates at once: binomial sd 0.0025."""
    n = 40_000
    rng = np.random.default_rng(0)
    z, a = _broken_step(rng, 0.2, np.zeros(n), 1e-9, np.zeros((n, 2)), np.ones((n, 2)))
    assert z.mean() == pytest.approx(0.5, abs=0.01)
    z, a = _broken_step(rng, 0.5, np.zeros(n), 1.0, np.zeros((n, 1)), np.ones((n, 1)))
    assert z.mean() == pytest.approx(2 / 3, abs=0.01)
    u, wt = np.polynomial.hermite_e.hermegauss(60)
    p = 1 / (1 + np.exp(-u))
    stein = float((wt * p * (1 - p)).sum() / wt.sum())
    assert stein == pytest.approx(0.20662, abs=1e-5)
    assert a[~z].mean() == pytest.approx(-2 * stein, abs=0.02)
    assert a[z].mean() == pytest.approx(0.0, abs=0.02) and a[z].std() == pytest.approx(1.0, abs=0.02)
    # padding: a cell with n = 0 changes nothing
    cells = np.c_[np.ones((n, 2)), np.zeros(n)]
    z2, _ = _broken_step(np.random.default_rng(0), 0.2, np.zeros(n), 1e-9, np.zeros((n, 3)), cells)
    assert z2.mean() == pytest.approx(0.5, abs=0.01)


def test_broken_templates_are_found_and_imputed_as_failures():
    """Three of 50 templates never succeed (an output format nothing parses), 2 templates per document: the
    zero-inflated fit gives each of them a posterior probability of being broken near 1 and no working template 5 % or more; their
    unobserved cells are drawn as failures in the draws where they are broken (a Rasch fit alone would impute
    them a small positive rate), and the working templates are unaffected. Without any candidate (no template
    with only failures) the zero inflation draws nothing: the chain is the plain one, draw for draw."""
    rng = np.random.default_rng(1)
    t_n, d_n = 50, 400
    a, b = rng.normal(0, 0.8, t_n), rng.normal(0, 1.5, d_n)
    y = (rng.random((t_n, d_n)) < 1 / (1 + np.exp(-(0.2 + a[:, None] + b[None, :])))).astype(float)
    y[:3] = 0.0
    mask = np.zeros((t_n, d_n), bool)
    for d in range(d_n):
        mask[rng.choice(t_n, 2, replace=False), d] = True
    f = fit_sampled(y, mask, "binomial", rng=np.random.default_rng(0), broken=True)
    prob = f.sampler["broken_probability"]
    assert set(prob) == {0, 1, 2} and min(prob.values()) > 0.9
    eta = f.draw_eta(np.random.default_rng(2), 200)
    p = f.mean(eta=eta)
    broken = np.isneginf(eta[:, :3, 0])
    assert broken.mean() > 0.9 and np.all(p[:, :3][broken] == 0.0)
    assert np.isfinite(eta[:, 3:]).all()
    # off by default: a population's per-class fits, with template covariates, call fit_sampled without it (a
    # template never right on one class is label bias there, a covariate)
    assert "broken_probability" not in fit_sampled(y, mask, "binomial", rng=np.random.default_rng(0)).sampler
    # a population of 0/1 values uses it; the record and the report name the broken templates
    cm = CellMatrix.from_values(y, mask, templates=[f"p{t:02d}" for t in range(t_n)], name="g")
    rec = estimate_population(cm, 0.2, n_boot=20, seed=0, draws=20)
    broken_named = rec["likely_broken"]
    assert set(broken_named) == {"p00", "p01", "p02"} and min(broken_named.values()) > 0.9
    line = _precision_line({**rec, "model": "m", "group": "g"})
    assert "likely broken (never right): p00 (" in line
    # the population interval draws the broken share: 3 of 50 never right, π ~ Beta(3½, 47½) (mean 3.5/51 = 0.069)
    lo, hi = rec["ci"]["broken_share"]
    assert 0.0 <= lo < 0.069 < hi <= 0.25
    assert f"the population interval allows up to {hi:.0%} broken templates (never right) in the grammar" in line
    y[:3] = np.where(mask[:3], 1.0, 0.0)  # no candidate left
    assert ((y * mask).sum(1) > 0).all()
    args = (y, mask.astype(float), "binomial", None, None, None, 1.0)
    plain = sample_two_way(*args, np.random.default_rng(4))
    inflated = sample_two_way(*args, np.random.default_rng(4), broken=True)
    assert np.array_equal(plain["a"], inflated["a"]) and not inflated["broken"].any()


def test_sampled_fit_recovers_the_generating_spreads():
    """0/1 cells from the fit's own model (σ_a 0.8, τ 1.5), 40 templates × 300 documents, 2 templates per
    document: the posterior intervals of both spreads contain the truth, the draws mix, and the fit is a
    SampledFit whose η draws have the matrix's shape."""
    rng = np.random.default_rng(5)
    t_n, d_n = 40, 300
    a, b = rng.normal(0, 0.8, t_n), rng.normal(0, 1.5, d_n)
    y = (rng.random((t_n, d_n)) < 1 / (1 + np.exp(-(0.3 + a[:, None] + b[None, :])))).astype(float)
    mask = np.zeros((t_n, d_n), bool)
    for d in range(d_n):
        mask[rng.choice(t_n, 2, replace=False), d] = True
    f = fit_sampled(y, mask, "binomial", rng=np.random.default_rng(0))
    assert isinstance(f, SampledFit) and f.converged
    lo, hi = f.sampler["template_effect_sd_interval"]
    assert lo < 0.8 < hi
    lo, hi = f.sampler["doc_effect_sd_interval"]
    assert lo < 1.5 < hi
    assert f.draw_eta(np.random.default_rng(1), 3).shape == (3, t_n, d_n)


def test_sparse_population_reports_both_intervals_and_its_precision():
    bench = _bench()
    truth = bench.TRUTHS["additive"]
    axes, full, base, dense = bench.instance(truth, 30, 100, 0)
    cm = full.subset(bench.sparse_design(full, 2, 0))
    est = estimate_population(cm, base, covariates=axis_covariates(axes), n_boot=100, seed=0)
    for key in ("mean", "std", "sharpe"):
        lo, hi = est["ci"][key]
        rlo, rhi = est["ci_full_run"][key]
        assert lo <= est[key] <= hi and rlo <= est[key] <= rhi
    assert len(est["ci_full_run"]["quantiles"]) == 5
    info = est["information"]
    assert set(info["imputation_share"]) == {"mean", "std", "sharpe"}
    assert all(0 <= v <= 1 for v in info["imputation_share"].values())
    prec = est["precision"]
    assert prec["sharpe"]["target"] == 0.5 and prec["std"]["target"] == 0.02
    assert prec["std"]["met"] == (prec["std"]["half_width"] <= 0.02)
    # a dense population: exact, no full-run interval, its precision planned as "a dense run"
    dense_est = estimate_population(full, base, covariates=axis_covariates(axes), n_boot=50, seed=0)
    assert "ci_full_run" not in dense_est and dense_est["std"] == pytest.approx(dense["std"])
    assert plan_from_estimate(dense_est, "std", 1.0).basis == "a dense run"


def test_bench_calls_the_estimator_as_the_sharpe_tool_does(tmp_path, capsys):
    """The simulation bench's :func:`estimate` (scripts/bench_population_sim.py) gives the record the Sharpe tool
    gives for the same cells written as a sparse population run (``sharpe.pipeline.estimate_populations``)."""
    from lm_eval_enterprise.sharpe.estimates import sparse_groups
    from lm_eval_enterprise.sharpe.inputs import Diagnostics, Progress, read_inputs, select_runs
    from lm_eval_enterprise.sharpe.pipeline import estimate_populations

    bench = _bench()
    tasks = [S.family_task("multiple_choice", f"p{i}", 40, 0.3 + 0.05 * i, seed=3) for i in range(1, 7)]
    plan = plan_cells({"g": list(range(40))}, {"g": [t.task for t in tasks]}, 0.34, seed=1)
    meta = plan.metadata()
    meta["cell_design"] = {tasks[0].variant_group: meta["cell_design"]["g"]}
    for i, t in enumerate(tasks):
        idx = plan.samples[t.task]
        t.docs, t.outputs = [t.docs[j] for j in idx], [t.outputs[j] for j in idx]
        t.variant_group = "ent_syn_population"
        t.extra_metadata = {
            **meta,
            "template_set": "population",
            "population_axes": {"wording": f"w{i % 2}", "lead": f"l{i % 3}"},
        }
    S.write_run(tmp_path, "m", tasks)
    opts = Options(bootstrap=60)
    tool = estimate_populations([tmp_path], opts)["records"][0]
    diag = Diagnostics()
    inputs = read_inputs([str(tmp_path)], opts.variant_pattern, Progress(False))
    g = sparse_groups(select_runs(inputs, "population", opts, diag), opts, diag)[0]
    axes = [g.axes[t] for t in g.cells.templates]
    mine = bench.estimate(g.cells, axes, g.baseline.value, 60)
    for key in ("mean", "std", "sharpe", "quantiles", "ci", "ci_full_run", "scores"):
        assert mine[key] == tool[key], key
    # the report says whether the default targets were met
    from lm_eval_enterprise.cli.sharpe import main as sharpe_main

    assert sharpe_main([str(tmp_path), "--bootstrap", "60"]) == 0
    out = capsys.readouterr().out
    assert "Precision (95 % half-widths" in out and "(target ±0.5: " in out and "(target ±0.02: " in out


def test_bench_case_compares_with_the_dense_and_population_values():
    """One bench case (30 templates × 100 documents, 2 runs): the estimate, the dense and the population values and
    the coverage flags of both interval kinds, each 0, 1 or None; the population values with their Monte Carlo
    standard errors (fewer document samples here than the bench's 400, for time: the error grows as 1/√n)."""
    bench = _bench()
    bench.POP_DRAWS = 16
    case = bench.one_case(("additive", 30, 100, 2, 0, 60))
    se = case["pop"]["mc_se"]
    assert 0 < se["mean"] < 0.02 and 0 < se["std"] < 0.01 and len(se["quantiles"]) == 5
    assert case["share"] == pytest.approx(2 / 30, abs=0.01)
    assert abs(case["est"]["std"] - case["dense"]["std"]) < 0.5 * case["dense"]["std"]
    for kind in ("cover_pop", "cover_dense"):
        flags = [case[kind][k] for k in ("mean", "std", "sharpe")] + case[kind]["quantiles"]
        assert all(f in (0.0, 1.0) for f in flags)
    agg = bench.aggregate([case])
    row = agg["additive|30|100|2"]
    assert row["n"] == 1 and row["std_bias"] == pytest.approx(case["est"]["std"] - case["dense"]["std"])


def test_bench_truth_with_another_document_sd_is_paired_with_its_base():
    """``--doc-sd``: "additive@doc_sd=0.5" is the additive truth with its document effects scaled from sd 1.5 to
    0.5 — the same standard normal draws (a paired comparison) — and its cases are labelled by that name."""
    bench = _bench()
    bench.POP_DRAWS = 16
    base, variant = bench.TRUTHS["additive"], bench.truth_named("additive@doc_sd=0.5")
    assert variant.doc_sd == 0.5 and variant.name == base.name and bench.truth_named("additive") is base
    b0 = bench.draw_documents(base, 7, np.random.default_rng(5))
    b1 = bench.draw_documents(variant, 7, np.random.default_rng(5))
    assert np.allclose(b1, b0 / 3)
    case = bench.one_case(("additive@doc_sd=0.5", 10, 40, 2, 0, 0))
    assert case["truth"] == "additive@doc_sd=0.5" and "additive@doc_sd=0.5|10|40|2" in bench.aggregate([case])


def test_bench_truth_variant_by_parameters_is_paired_and_checked():
    """``--vary``: "rare_class@axis_sd=0.4@discrimination_sd=1" changes those numeric fields only and keeps the name
    (paired draws: the discriminations 2 + 0.5·z become 2 + 1·z from the same z); a field that is not a numeric
    parameter of a truth, a part without "=" or a value of the wrong type fails in one line naming the variant."""
    bench = _bench()
    base = bench.TRUTHS["rare_class"]
    v = bench.truth_named("rare_class@axis_sd=0.4@discrimination_sd=1")
    assert (v.axis_sd, v.discrimination_sd, v.noise_sd, v.name) == (0.4, 1.0, base.noise_sd, base.name)
    a = np.zeros(6)
    b = np.zeros(30)
    c0 = bench.cells(base, a, np.zeros(6, bool), b, np.random.default_rng(2))
    c1 = bench.cells(replace(base, discrimination_sd=0.0), a, np.zeros(6, bool), b, np.random.default_rng(2))
    assert np.array_equal(c0["gold"], c1["gold"]) and not np.array_equal(c0["pred"], c1["pred"])
    assert bench.truth_named("additive@choices=4").choices == 4  # an integer field stays an integer
    for bad in ("rare_class@metric=1", "rare_class@axis_sd", "rare_class@nope=2", "additive@choices=4.5"):
        with pytest.raises(ValueError, match="is not <numeric Truth field>=<value>"):
            bench.truth_named(bad)


def test_precision_line_names_what_rests_on_the_prior_in_words():
    """The report's precision line names the variance components that rest mostly on their prior in words, and
    says what a document sd resting on its prior means for the full-run interval."""
    from lm_eval_enterprise.sharpe.report import _component

    assert _component("fit1.class2.tau") == "document sd (fit 1, class 2)"
    assert _component("fit2.sigma_a") == "template sd (fit 2)" and _component("fit1.class1.bias_sd").startswith("label")
    assert _component("fit1.class2.class_accuracy_correlation") == "class accuracy correlation (fit 1, class 2)"
    rec = {
        "model": "m",
        "group": "g",
        "precision": {},
        "information": {"rests_on_prior": ["fit1.tau", "fit1.sigma_a"]},
    }
    line = _precision_line(rec)
    assert "resting mostly on the prior: document sd (fit 1), template sd (fit 1)" in line
    assert "the full-run interval holds over the low end of the document sd's prior too" in line
    rec["information"]["rests_on_prior"] = ["fit1.sigma_a"]
    assert "full-run interval" not in _precision_line(rec)
    assert "broken templates" not in _precision_line(rec)
    rec["ci"] = {"broken_share": [0.0, 0.1]}  # 0/1 values: the broken share the population interval drew
    assert _precision_line(rec).endswith(
        "; the population interval allows up to 10% broken templates (never right) in the grammar"
    )
    # whole percents, but one decimal below 1 % (one broken slot among hundreds of templates), not "0%"
    for hi, text in ((0.004, "0.4%"), (0.0956, "10%"), (0.1234, "12%"), (0.995, "100%"), (0.0, "0%")):
        rec["ci"] = {"broken_share": [0.0, hi]}
        assert f"allows up to {text} broken templates" in _precision_line(rec)


def test_plan_from_guesses_by_hand():
    """σ's sampling half-width at T templates is z·σ/sqrt(2(T − 1)): 1.96·0.1/sqrt(98) = 0.0198 at T = 50, so
    ±0.02 on σ is out of reach of 49 templates or fewer, and a target of 0.01 needs about 4× the templates."""
    plan = plan_from_guesses("std", 0.01, 50, 400, mean=0.5, std=0.1)
    assert plan.runs is None and plan.floor == pytest.approx(1.959964 * 0.1 / math.sqrt(98))
    assert plan.templates_needed == math.ceil(50 * (plan.floor / 0.01) ** 2)
    easy = plan_from_guesses("std", 0.05, 50, 400, mean=0.5, std=0.1)
    assert easy.runs == 1 and easy.table[0][1] <= 0.05
    # more runs never widen, and the full-run half-width vanishes with every cell
    hws = [h for _, h, _ in plan_from_guesses("sharpe", 0.01, 20, 200).table]
    assert hws == sorted(hws, reverse=True)


def test_plan_from_a_first_run_predicts_the_bench():
    """The planner's answer tested on the bench: from a first sparse run at 2 runs' budget it predicts the
    half-widths at 4 runs; the estimator run at 4 runs on the same instance lands within 35 % of the prediction
    (σ and S, population and full-run intervals)."""
    bench = _bench()
    truth = bench.TRUTHS["additive"]
    axes, full, base, _ = bench.instance(truth, 50, 400, 3)
    first = bench.estimate(full.subset(bench.sparse_design(full, 2, 3)), axes, base, 300)
    later = bench.estimate(full.subset(bench.sparse_design(full, 4, 3)), axes, base, 300)
    for stat in ("std", "sharpe"):
        plan = plan_from_estimate(first, stat, 1e-9)
        predicted = {r: (pop, run) for r, pop, run in plan.table}[4]
        got_pop = (later["ci"][stat][1] - later["ci"][stat][0]) / 2
        got_run = (later["ci_full_run"][stat][1] - later["ci_full_run"][stat][0]) / 2
        assert got_pop == pytest.approx(predicted[0], rel=0.35), stat
        assert got_run == pytest.approx(predicted[1], rel=0.35), stat


def test_population_plan_command(tmp_path, capsys):
    from lm_eval_enterprise.cli import main

    assert main(["population", "--plan", "--docs", "400", "--size", "50", "--target_std", "0.015"]) == 0
    out = capsys.readouterr().out
    assert "σ to ±0.015" in out and "not reachable with 50 templates" in out and "about" in out
    record = {"group": "g", "templates": [f"p{i}" for i in range(50)], "n_docs": 400, "share": 0.02}
    record["ci"] = {"sharpe": [1.5, 2.7]}
    record["ci_full_run"] = {"sharpe": [1.9, 2.5]}
    path = tmp_path / "population_estimates.json"
    path.write_text(json.dumps({"records": [record]}))
    assert main(["population", "--plan", "--from_estimates", str(path), "--target_sharpe", "0.57"]) == 0
    out = capsys.readouterr().out
    # sampling part sqrt(0.6² − 0.3²) = 0.520; imputation 0.3 at 1 run → 0.3·sqrt((1/2 − 1/50)/(1 − 1/50)) at 2
    assert "→ 2 single-template run(s)" in out
    assert main(["population", "--plan", "--docs", "400"]) == 2
    assert "--plan needs a target" in capsys.readouterr().err
    assert main(["population", "--plan", "--from_estimates", str(tmp_path / "nope.json"), "--target_std", "1"]) == 1
    assert "not a readable population_estimates.json" in capsys.readouterr().err


def _two_class_cells(seed=3, t_n=40, d_n=300, bias_sd=0.9, skill_sd=0.4, share=0.3, per_doc=4):
    """0/1 correctness from the two-class model: ``share`` of the documents in class 2, η = c_k ± θ_t + δ_t + b_d,
    ``per_doc`` observed cells per document."""
    rng = np.random.default_rng(seed)
    theta, delta, b = rng.normal(0, bias_sd, t_n), rng.normal(0, skill_sd, t_n), rng.normal(0, 1.0, d_n)
    second = rng.random(d_n) < share
    sign = np.where(second, -1.0, 1.0)
    c = np.where(second, 0.5, 1.0)
    eta = c[None, :] + sign[None, :] * theta[:, None] + delta[:, None] + b[None, :]
    y = (rng.random((t_n, d_n)) < 1 / (1 + np.exp(-eta))).astype(float)
    mask = np.zeros((t_n, d_n), bool)
    for d in range(d_n):
        mask[rng.choice(t_n, per_doc, replace=False), d] = True
    classes = [np.flatnonzero(~second), np.flatnonzero(second)]
    return y, mask, classes, [1.0 + theta + delta, 0.5 - theta + delta]


def test_two_class_fit_recovers_opposite_label_bias():
    """A label bias θ_t (sd 0.9) raises one class's accuracy and lowers the other's, a skill δ_t (sd 0.4) raises
    both: the true class effects correlate (0.16 − 0.81)/(0.16 + 0.81) = −0.67 over the templates. One chain for
    both classes finds each class's template effects (posterior means against the truth: r > 0.6, from 4 cells
    per document) and the negative correlation between them; its bias sd exceeds its skill sd."""
    from lm_eval_enterprise.estimator.sampler import fit_two_class

    y, mask, classes, truth = _two_class_cells()
    fits = fit_two_class(y, mask, classes, None, np.random.default_rng(0))
    assert len(fits) == 2 and all(isinstance(f, SampledFit) for f in fits)
    for f, true in zip(fits, truth):
        assert np.corrcoef(f.a[0], true)[0, 1] > 0.6
    assert np.corrcoef(fits[0].a[0], fits[1].a[0])[0, 1] < -0.3
    info = fits[0].sampler
    assert info["label_bias_sd"] > info["skill_sd"]
    # how much the cells say about each scale, shared parts alike in both classes' records
    for f in fits:
        pc = f.sampler["prior_contraction"]
        assert set(pc) == {"bias_sd", "skill_sd", "tau", "class_accuracy_correlation"}
        assert all(v <= 1 for v in pc.values())
        assert pc["bias_sd"] == info["prior_contraction"]["bias_sd"]
        assert pc["class_accuracy_correlation"] == info["prior_contraction"]["class_accuracy_correlation"]
    assert info["prior_contraction"]["bias_sd"] > 0.5  # 40 templates × 4 cells per document pin the bias sd
    assert info["class_accuracy_correlation"] < -0.3 and info["prior_contraction"]["class_accuracy_correlation"] > 0.5
    assert fits[0].b_draws.shape[1] == len(classes[0]) and fits[1].b_draws.shape[1] == len(classes[1])


def test_class_correlation_by_hand():
    """Rows of two classes' template effects: (1, 2, 3) against (3, 2, 1) correlate −1; (1, 2, 3) against (1, 3, 2):
    deviations (−1, 0, 1) and (−1, 1, 0), Σxy = 1, Σx² = Σy² = 2, so 1/2; a constant row gives 0."""
    from lm_eval_enterprise.estimator.sampler import class_correlation

    a0 = np.array([[1.0, 2.0, 3.0], [1.0, 2.0, 3.0], [2.0, 2.0, 2.0]])
    a1 = np.array([[3.0, 2.0, 1.0], [1.0, 3.0, 2.0], [1.0, 5.0, 0.0]])
    assert class_correlation(a0, a1) == pytest.approx([-1.0, 0.5, 0.0])


def test_class_correlation_prior_variance_against_an_independent_draw():
    """ρ = (V_δ − V_θ)/(V_δ + V_θ) with V a sum of squared half-t(3) sds: drawn again as t = z/sqrt(χ²₃/3) from
    another seed, its variance agrees within 2 %; with two parts per V the sums are more alike and ρ varies less."""
    from lm_eval_enterprise.estimator.sampler import TWO_CLASS_DF, class_correlation_prior_variance

    rng = np.random.default_rng(11)
    n = 200_000

    def v(parts):
        return sum(rng.standard_normal(n) ** 2 / (rng.chisquare(TWO_CLASS_DF, n) / TWO_CLASS_DF) for _ in range(parts))

    for parts in (1, 2):
        vt, vd = v(parts), v(parts)
        assert class_correlation_prior_variance(parts) == pytest.approx(np.var((vd - vt) / (vd + vt)), rel=0.02)
    assert class_correlation_prior_variance(2) < class_correlation_prior_variance(1)


def test_two_class_fit_says_when_the_class_correlation_rests_on_the_prior():
    """How a template's accuracy on the rare class follows its accuracy on the common one sets the spread of a
    binary F1 over the templates. With 8 % of 300 documents in class 2 and one cell per document (33 cells of class
    2 over 40 templates) the correlation's posterior is nearly the prior's (contraction below ½) although the bias
    and skill sds each look pinned (above ½); with 30 % and four cells per document it is pinned (above 0.9)."""
    from lm_eval_enterprise.estimator.sampler import fit_two_class

    y, mask, classes, _ = _two_class_cells(share=0.08, per_doc=1)
    sparse = fit_two_class(y, mask, classes, None, np.random.default_rng(0))[0].sampler["prior_contraction"]
    assert sparse["class_accuracy_correlation"] < 0.5 and min(sparse["bias_sd"], sparse["skill_sd"]) > 0.5
    y, mask, classes, _ = _two_class_cells()
    dense = fit_two_class(y, mask, classes, None, np.random.default_rng(0))[0].sampler["prior_contraction"]
    assert dense["class_accuracy_correlation"] > 0.9


def test_two_class_draws_share_their_index():
    """Both classes' η come from the same posterior draw when given one index (a row of the imputed cells is one
    draw of the joint posterior), and the fit is deterministic for a given generator; a class whose observed cells
    are all right has no model to fit (None: the classes are fitted apart)."""
    from lm_eval_enterprise.estimator.sampler import SamplerSettings, fit_two_class

    y, mask, classes, _ = _two_class_cells(t_n=12, d_n=80)
    quick = SamplerSettings(burn=50, keep=30, thin=1)
    fits = fit_two_class(y, mask, classes, None, np.random.default_rng(1), quick)
    again = fit_two_class(y, mask, classes, None, np.random.default_rng(1), quick)
    assert np.array_equal(fits[0].a_draws, again[0].a_draws)
    index = np.array([3, 3, 17])
    for f in fits:
        eta = f.draw_eta(np.random.default_rng(9), 3, index)
        assert np.allclose(eta, f.a_draws[index][:, :, None] + f.b_draws[index][:, None, :])
    y_all_right = y.copy()
    y_all_right[:, classes[1]] = 1.0
    assert fit_two_class(y_all_right, mask, classes, None, np.random.default_rng(1), quick) is None


def test_binary_classification_population_uses_the_two_class_fit():
    """The sampled fitter's classification model (a population's, a sparse run's) fits a binary task's two gold
    classes in one chain; the Laplace fitter keeps one fit per class."""
    from lm_eval_enterprise.estimator.cellmodels import cell_model
    from lm_eval_enterprise.estimator.sampler import sampled_fitter

    bench = _bench()
    axes, full, _, _ = bench.instance(bench.TRUTHS["rare_class"], 30, 100, 0)
    cm = full.subset(bench.sparse_design(full, 4, 0))
    cm.covariates = axis_covariates(axes)
    joint = cell_model(cm, sampled_fitter([0]))
    assert joint.joint and joint.fit[0].sampler["model"].startswith("two-class")
    assert not cell_model(cm).joint


def test_classes_are_zero_inflated_without_template_covariates():
    """Macro F1 over 3 classes, 4 templates, 30 documents (10 per class), half the cells observed (template t
    sees the documents d with (t + d) even). t1 answers class 0 on every document, so it is never right on classes
    1 and 2; t2–t4 are right on every document but those with d % 5 == t (wrong: class (gold + 1) % 3). Without
    template covariates (a sparse run) each class's correctness fit is zero-inflated: t1 is broken on classes 1 and
    2 with a posterior probability above ½, and its score is its exact full-data macro F1 (precision 10/30 on
    class 0, recall 1: F1 ½ there, 0 elsewhere, 1/6) within 0.02, as every unobserved cell of it is imputed wrong on
    those classes. With covariates (a population's axis values) the per-class fits stay plain (no broken
    templates): there the template's label bias is a covariate instead."""
    from lm_eval_enterprise.estimator import estimate
    from lm_eval_enterprise.estimator.cellmodels import cell_model
    from lm_eval_enterprise.estimator.sampler import sampled_fitter

    t_n, d_n = 4, 30
    gold = np.arange(d_n) // 10
    pred = np.tile(gold, (t_n, 1))
    pred[0] = 0
    for t in range(1, t_n):
        wrong = np.arange(d_n) % 5 == t
        pred[t, wrong] = (gold[wrong] + 1) % 3
    mask = (np.arange(t_n)[:, None] + np.arange(d_n)[None, :]) % 2 == 0
    cm = CellMatrix.from_labels(gold, pred, 3, "macro", mask=mask)
    classes = cell_model(cm, sampled_fitter([0])).describe()["classes"]
    assert [c["sampler"].get("broken_probability", {}).get("t1", 0) > 0.5 for c in classes] == [False, True, True]
    sparse = estimate(cm, 0.0, n_boot=0)
    assert sparse.scores[0] == pytest.approx(1 / 6, abs=0.02)
    assert set(sparse.as_dict()["likely_broken"]) == {"t1 (class 2)", "t1 (class 3)"}  # named per gold class
    cm.covariates = axis_covariates([{"a": "x"}, {"a": "x"}, {"a": "y"}, {"a": "y"}])
    plain = cell_model(cm, sampled_fitter([0])).describe()["classes"]
    assert not any("broken_probability" in c["sampler"] for c in plain)


def test_prior_variances_of_the_scale_priors_by_hand():
    """Half-normal of scale 2: 4·(1 − 2/π) = 1.453521; half-t(3) of scale ½: E t² = 3, E|t| = 2√3/π = 1.102658, so
    ¼·(3 − 12/π²) = ¼·1.784146 = 0.446037 (E|t₃| checked on 400,000 draws within 1 %; their variance converges
    too slowly: E t⁴ is infinite). The contraction of a chain with the prior's variance is 0, of a constant chain 1."""
    from lm_eval_enterprise.estimator.sampler import half_prior_variance, prior_contraction

    assert half_prior_variance(2.0) == pytest.approx(1.453521, abs=1e-6)
    assert half_prior_variance(0.5, 3) == pytest.approx(0.446037, abs=1e-6)
    assert np.abs(np.random.default_rng(0).standard_t(3, 400_000)).mean() == pytest.approx(1.102658, rel=0.01)
    chain = np.array([1.0, 3.0])  # variance 1
    assert prior_contraction(chain, 1.0) == 0.0 and prior_contraction(np.ones(5), 1.0) == 1.0
    assert prior_contraction(chain, 4.0) == 0.75


def test_a_sparse_run_names_its_broken_templates():
    """A sparse run (no template covariates) of 0/1 values in which template p00 fails on each of its observed
    cells, 10 templates × 300 documents at 2 templates per document: the row's record lists it as likely broken
    and the sparse report names it; the working templates are not listed."""
    from lm_eval_enterprise.estimator import estimate
    from lm_eval_enterprise.sharpe.report import sparse_markdown

    rng = np.random.default_rng(3)
    t_n, d_n = 10, 300
    a, b = rng.normal(0, 0.5, t_n), rng.normal(0, 1.0, d_n)
    y = (rng.random((t_n, d_n)) < 1 / (1 + np.exp(-(0.8 + a[:, None] + b[None, :])))).astype(float)
    y[0] = 0.0
    mask = np.zeros((t_n, d_n), bool)
    for d in range(d_n):
        mask[rng.choice(t_n, 2, replace=False), d] = True
    cm = CellMatrix.from_values(y, mask, templates=[f"p{t:02d}" for t in range(t_n)], name="g")
    rec = estimate(cm, 0.2, n_boot=0).as_dict()
    assert set(rec["likely_broken"]) == {"p00"} and rec["likely_broken"]["p00"] > 0.9
    rec.update(model="m", metric="accuracy", baseline_method="chance", ddof=1)
    text = sparse_markdown({"records": [rec]})
    assert "* m g: p00 (" in text and "likely broken" in text


def test_draw_index_takes_from_the_pool_or_from_every_draw():
    """Without a pool a fit takes its stored draws as the generator's integers over the whole chain (the draws of
    every estimate before pools existed); with one, only the pool's draws."""
    f = SampledFit("binomial", np.zeros((1, 2)), np.zeros(1), np.zeros((1, 3)), 1.0, 1.0)
    f.a_draws, f.b_draws = np.zeros((10, 2)), np.zeros((10, 3))
    assert np.array_equal(f.draw_index(np.random.default_rng(4), 50), np.random.default_rng(4).integers(0, 10, 50))
    f.pool = np.array([2, 7])
    assert set(f.draw_index(np.random.default_rng(4), 200).tolist()) == {2, 7}


def test_envelope_of_two_interval_records_by_hand():
    """Each interval widened to contain the other's; a statistic without an interval in either stays as it is."""
    from lm_eval_enterprise.estimator.estimate import _envelope

    a = {"mean": [0.40, 0.50], "std": [0.10, 0.20], "sharpe": None, "quantiles": [[0.1, 0.2], None], "frac": 0.0}
    b = {"mean": [0.42, 0.55], "std": [0.05, 0.15], "sharpe": [1.0, 2.0], "quantiles": [[0.0, 0.15], [0.3, 0.4]]}
    out = _envelope(a, b)
    assert out["mean"] == [0.40, 0.55] and out["std"] == [0.05, 0.20]
    assert out["sharpe"] is None and out["quantiles"] == [[0.0, 0.2], None] and out["frac"] == 0.0


def test_full_run_interval_holds_over_an_unidentified_document_sd():
    """One cell per document (one run): how alike a document's cells are (τ) is not in the cells, τ rests on its
    prior, and the full-run interval is the envelope of the posterior predictive's and of the predictive from the
    draws with the lowest third of τ; those draws' τ are all below the others'. With four cells per document τ is
    identified (prior contraction above ½) and the full-run interval is the posterior predictive's alone."""
    from lm_eval_enterprise.estimator.cellmodels import cell_model
    from lm_eval_enterprise.estimator.estimate import _low_tau_draws
    from lm_eval_enterprise.estimator.sampler import sampled_fitter

    bench = _bench()
    axes, full, base, _ = bench.instance(bench.TRUTHS["additive"], 30, 100, 0)
    x = axis_covariates(axes)
    one = full.subset(bench.sparse_design(full, 1, 0))
    est = estimate_population(one, base, covariates=x, n_boot=20, seed=0)
    assert est["information"]["prior_contraction"]["fit1.tau"] < 0.5
    assert "lowest 33% of the document sds" in est["ci_full_run"]["method"]
    one.covariates = x
    model = cell_model(one, sampled_fitter([0]))
    fit = model.fit
    seen = []
    draw_index = fit.draw_index

    def spy(rng, n):
        idx = draw_index(rng, n)
        seen.append(idx)
        return idx

    fit.draw_index = spy
    low = _low_tau_draws([one], [model], 40, 40, np.random.default_rng(0))
    assert low.shape == (40, 30) and fit.pool is None  # the pool is cleared after use
    taken = np.concatenate(seen)
    assert fit.tau_draws[taken].max() <= np.quantile(fit.tau_draws, 1 / 3) + 1e-12
    four = full.subset(bench.sparse_design(full, 4, 0))
    est4 = estimate_population(four, base, covariates=x, n_boot=20, seed=0)
    assert est4["information"]["prior_contraction"]["fit1.tau"] > 0.5
    assert "document sds" not in est4["ci_full_run"]["method"]
