"""Sparse-design estimator (lm_eval_enterprise/sharpe/sparse.py) and the estimates of sparse runs and template
populations (estimates.py)."""

import json
import math
import re

import numpy as np
import pytest

from lm_eval_enterprise.harness.cellplan import plan_cells
from lm_eval_enterprise.sharpe.estimates import sparse_groups
from lm_eval_enterprise.sharpe.inputs import (
    Diagnostics,
    Options,
    Progress,
    SharpeInputError,
    SharpeUsageError,
    read_inputs,
    select_runs,
)
from lm_eval_enterprise.sharpe.pipeline import aggregate, estimate_populations, estimate_sparse
from lm_eval_enterprise.sharpe.sparse import (
    CellMatrix,
    SparseError,
    cell_model,
    estimate,
    estimate_row,
    fit_two_way,
    naive_scores,
    plugin_scores,
    predictive_stats,
)
from lm_eval_enterprise.sharpe.stats import sharpe
from testkit import synthetic as S

NAN = np.nan


def _sigmoid(x):
    return 1 / (1 + math.exp(-x))


# ============================================================================================ two-way models
def read_sparse(paths, opts):
    """The cell matrices of the sparse run under ``paths`` and the notes reading them raised."""
    diag = Diagnostics()
    inputs = read_inputs([str(p) for p in paths], opts.variant_pattern, Progress(False))
    return sparse_groups(select_runs(inputs, "core", opts, diag), opts, diag), diag.notes


def sparse_inputs(paths) -> bool:
    return read_inputs([str(p) for p in paths], Options().variant_pattern, Progress(False)).sparse


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


# ============================================================================================ reading runs
FAMILIES = [
    "classification_weighted",
    "classification_macro",
    "classification_binary",
    "entity",
    "kpi",
    "ranking",
    "ranking_generate",
    "summarization",
    "multiple_choice",
    "numeric",
]


def _tasks(fam, n, seed=3):
    return [S.family_task(fam, f"t{i}", n, 0.3 + 0.1 * i, p_fail=0.1, seed=seed) for i in range(1, 5)]


@pytest.mark.parametrize("fam", FAMILIES)
def test_full_run_matches_the_sharpe_tool(tmp_path, fam):
    """On a full run the sparse path reproduces the full tool: μ, σ, Sharpe, baseline and bootstrap CIs."""
    S.write_run(tmp_path, "m", _tasks(fam, 60 if "ranking" in fam else 30))
    ref = aggregate([tmp_path], bootstrap=200, seed=0, progress=False)
    rec = next(r for r in ref["records"] if r["level"] == "dataset" and r.get("scoring", "strict") == "strict")
    got = estimate_sparse([tmp_path], Options(bootstrap=200, seed=0))["records"][0]
    assert got["estimate"] is False and got["share"] == 1.0
    for key in ("mean", "std", "sharpe"):
        assert got[key] == pytest.approx(rec[key], abs=1e-12), key
    assert got["baseline"] == pytest.approx(rec["baseline"]["value"], abs=1e-12)
    for key in ("mean", "std", "sharpe"):
        assert got["ci"][key] == pytest.approx(rec["ci"][key], abs=1e-12), key


def test_full_dataset_made_of_questions_matches_the_sharpe_tool(tmp_path):
    """A full run of a dataset made of questions: one cell matrix per question, s_t = the mean over them ([QMEAN]),
    intervals from one document draw over all (document, question) units — the full tool's numbers."""
    tasks = [
        S.family_task("classification_weighted", f"t{i}", 30, 0.3 + 0.15 * i, seed=5, questions=("up", "down"))
        for i in range(1, 4)
    ]
    S.write_run(tmp_path, "m", tasks)
    ref = aggregate([tmp_path], bootstrap=100, seed=0, progress=False)
    rec = next(r for r in ref["records"] if r["scoring_mode"] == "strict")
    got = estimate_sparse([tmp_path], Options(bootstrap=100, seed=0))["records"]
    assert len(got) == 1 and sorted(got[0]["questions"]) == ["down", "up"]
    for key in ("mean", "std", "sharpe"):
        assert got[0][key] == pytest.approx(rec[key], abs=1e-12)
        assert got[0]["ci"][key] == pytest.approx(rec["ci"][key], abs=1e-12)


def _sparse_run(root, fam, n, budget=0.5, extra_planned=0):
    """A run made with a cell plan (``budget`` of the 4 templates × n documents); returns (tasks, plan, path)."""
    tasks = _tasks(fam, n)
    units = {"g": [d["qid"] for d in tasks[0].docs]} if fam == "ranking" else None
    plan = plan_cells({"g": list(range(n))}, {"g": [t.task for t in tasks]}, budget, seed=1, units=units)
    meta = plan.metadata()
    meta["cell_design"] = {tasks[0].variant_group: meta["cell_design"]["g"]}
    meta["cells_planned"][tasks[0].task] += extra_planned
    for t in tasks:
        idx = plan.samples[t.task]
        t.docs, t.outputs = [t.docs[i] for i in idx], [t.outputs[i] for i in idx]
        t.extra_metadata = dict(meta)
    return tasks, plan, S.write_run(root, "m", tasks)


@pytest.mark.parametrize("fam", ["classification_weighted", "entity", "ranking"])
def test_sparse_run_reader(tmp_path, fam):
    """A run made with a cell plan: observed cells = the plan, naive scores = lm-eval's per-template results."""
    n = 200 if fam == "ranking" else 40
    # a planned document that was not evaluated → a message
    tasks, plan, path = _sparse_run(tmp_path, fam, n, extra_planned=1)
    results = json.loads(path.read_text())["results"]
    groups, messages = read_sparse([tmp_path], Options())
    (g,) = groups
    cm = g.cells
    unit = 20 if fam == "ranking" else 1
    for ti, t in enumerate(tasks):
        observed = [int(k[1:]) * unit if fam == "ranking" else int(k[1:]) for k in np.array(cm.docs)[cm.mask[ti]]]
        assert observed == plan.samples[t.task][::unit]
        metric = t.primary_metric
        assert naive_scores(cm)[ti] == pytest.approx(results[t.task][f"{metric},{t.filter}"], abs=1e-12)
    assert g.plan["cell_budget"] == 0.5
    assert any("planned 21 documents, 20 evaluated" in m or "planned" in m for m in messages)
    est = estimate_row([cm], g.baseline.value, n_boot=30)
    assert est.share == pytest.approx(0.5)


@pytest.mark.parametrize(
    "family,metric", [("classification_mcc", "mcc"), ("similarity", "pearson"), ("similarity", "spearman")]
)
def test_metric_without_a_cell_model_is_an_error(tmp_path, family, metric):
    S.write_run(tmp_path, "m", _tasks(family, 20))
    with pytest.raises(SparseError, match="has no cell model"):
        read_sparse([tmp_path], Options(metrics=[metric]))


# ============================================================================================ `sharpe` detects them
def test_sharpe_detects_sparse_runs_and_reports_estimates(tmp_path, capsys):
    from lm_eval_enterprise.cli.sharpe import main as sharpe_main

    _sparse_run(tmp_path / "sparse", "classification_weighted", 40)
    S.write_run(tmp_path / "full", "m", _tasks("classification_weighted", 40))
    assert sparse_inputs([tmp_path / "sparse"]) is True
    assert sparse_inputs([tmp_path / "full"]) is False
    with pytest.raises(SharpeInputError, match="missing: no such file or folder"):  # one reading, one error
        sparse_inputs([tmp_path / "missing"])
    assert sharpe_main([str(tmp_path / "sparse"), "--bootstrap", "20", "--out", str(tmp_path / "o")]) == 0
    out = capsys.readouterr().out
    # 40 documents × 4 templates, budget 0.5: 80 of 160 cells
    assert out.startswith("ESTIMATES") and "| 80/160 (50%) |" in out
    data = json.loads((tmp_path / "o" / "sparse_estimates.json").read_text())
    assert data["estimate"] is True and data["share_observed"] == 0.5  # the file says it holds estimates
    rec = data["records"][0]
    want = estimate_sparse([tmp_path / "sparse"], Options(bootstrap=20, seed=0))["records"][0]
    assert rec["estimate"] is True and (rec["cells_observed"], rec["cells_total"]) == (80, 160)
    assert (rec["mean"], rec["std"], rec["sharpe"]) == (want["mean"], want["std"], want["sharpe"])
    assert (tmp_path / "o" / "sparse_estimates.md").read_text() == out
    # the full run goes through the full tool, untouched
    assert sharpe_main([str(tmp_path / "full"), "--bootstrap", "20"]) == 0
    assert "ESTIMATES" not in capsys.readouterr().out
    # the first version's `sharpe-sparse` is gone: `sharpe` routes by what the inputs hold
    from lm_eval_enterprise import cli

    assert cli.main(["sharpe-sparse", str(tmp_path / "full"), "--bootstrap", "0"]) == 2
    assert "invalid choice: 'sharpe-sparse'" in capsys.readouterr().err
    # options the estimator does not implement are refused in one line, not ignored
    assert sharpe_main([str(tmp_path / "sparse"), "--compare", "m,x"]) == 2
    assert capsys.readouterr().err == "error: --compare is not supported for estimates from a --cell_budget run\n"
    assert sharpe_main([str(tmp_path / "sparse"), "--metric", "weighted_f1", "--metric", "accuracy"]) == 2
    assert "one --metric at a time" in capsys.readouterr().err


def test_budget_one_is_a_full_run(tmp_path):

    _sparse_run(tmp_path, "classification_weighted", 10, budget=1.0)
    assert sparse_inputs([tmp_path]) is False


@pytest.mark.parametrize(
    ("settings", "error"),
    [
        ({}, None),
        (
            {"bootstrap_templates": True},
            "--bootstrap_templates is not supported for estimates from a --cell_budget run",
        ),
        ({"exclude_templates": ["g:t1"]}, "--exclude_template is not supported for estimates from a --cell_budget run"),
        ({"compare": ["a,b"]}, "--compare is not supported for estimates from a --cell_budget run"),
        (
            {"generation_baseline": "lead-3"},
            "--generation_baseline is not supported for estimates from a --cell_budget run",
        ),
        ({"compare_decoding": True}, "--compare_decoding is not supported for estimates from a --cell_budget run"),
        ({"metrics": ["a", "b"]}, "estimates from a --cell_budget run: one --metric at a time"),
        ({"metrics": ["a,answer"]}, "estimates from a --cell_budget run: --metric NAME,FILTER is not supported"),
        ({"scoring": "parsed_only"}, "estimates from a --cell_budget run: --scoring parsed_only is not supported"),
        ({"baseline": "table:b.csv"}, "estimates from a --cell_budget run: --baseline table:PATH is not supported"),
        # what an estimate honours
        ({"metrics": ["accuracy"], "scoring": "strict", "baseline": "majority", "sigma_floor": "binomial"}, None),
    ],
)
def test_options_know_what_an_estimate_cannot_honour(settings, error):
    opts = Options(**settings)
    problem = opts.estimate_problem()
    assert problem == error if error is None else problem.startswith(error)
    if error is not None:  # the estimator itself refuses them too (API callers), with the same text
        with pytest.raises(SharpeUsageError, match=re.escape(problem)):
            estimate_sparse(["unused"], opts)


def test_sparse_runs_are_read_by_the_grouping_stage(tmp_path, capsys):
    """The estimates read their inputs as full runs are read: the newest run per model and task (each file left
    out named in a warning), ``--run`` to pick another, ``--model_names``."""
    from lm_eval_enterprise.cli.sharpe import main as sharpe_main

    old = S.write_run(
        tmp_path, "m", _tasks("classification_weighted", 20, seed=9), timestamp="2025-06-01T00-00-00.000000"
    )
    tasks, _, new = _sparse_run(tmp_path, "classification_weighted", 40)
    assert old.parent == new.parent and old != new
    res = estimate_sparse([tmp_path], Options(bootstrap=0))
    (rec,) = res["records"]
    assert rec["cells_total"] == 160 and res["share_observed"] == 0.5  # the newer, sparse run
    assert any(str(old) in m and "superseded by the newer run" in m for m in res["messages"])
    res = estimate_sparse([tmp_path], Options(bootstrap=0, run="2025-06-01"))
    assert res["records"][0]["cells_total"] == 80 and res["share_observed"] == 1.0
    names = tmp_path / "names.json"
    names.write_text(json.dumps({"m": "Model M"}))
    assert [
        r["model"] for r in estimate_sparse([tmp_path], Options(bootstrap=0, model_names=str(names)))["records"]
    ] == ["Model M"]
    # the CLI prints the warning like the full tool's
    assert sharpe_main([str(tmp_path), "--bootstrap", "0", "--quiet"]) == 0
    assert f"warning: {old}: skipped: superseded by the newer run in {new}" in capsys.readouterr().err


def _population_only_run(root, n_templates=4):
    tasks = _tasks("classification_weighted", 20)[:n_templates]
    for i, t in enumerate(tasks):
        t.variant_group, t.task = "ent_syn_c_population", f"ent_syn_c_population__p{i}"
        t.extra_metadata = {"template_set": "population", "population_axes": {"wording": f"w{i % 2}"}}
    return S.write_run(root, "m", tasks)


def test_population_estimates_are_marked_and_bad_settings_are_one_line(tmp_path, capsys):
    from lm_eval_enterprise.cli.sharpe import main as sharpe_main

    _population_only_run(tmp_path / "in")
    res = estimate_populations([tmp_path / "in"], Options(bootstrap=10))
    assert res["estimate"] is True and res["share_observed"] == 1.0 and len(res["records"]) == 1
    # --metric is the core set's: a population group is scored by its own primary metric
    assert (
        estimate_populations([tmp_path / "in"], Options(bootstrap=10, metrics=["accuracy"]))["records"]
        == res["records"]
    )
    assert sharpe_main([str(tmp_path / "in"), "--bootstrap", "10", "--output_path", str(tmp_path / "o")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("## ESTIMATES: template populations")
    assert (tmp_path / "o" / "population_estimates.md").read_text() + "\n" == out
    assert json.loads((tmp_path / "o" / "population_estimates.json").read_text())["estimate"] is True
    assert sharpe_main([str(tmp_path / "in"), "--sigma_floor", "abc"]) == 2
    assert capsys.readouterr().err == "error: --sigma_floor must be off, binomial or a number, not 'abc'\n"


def test_population_inputs_without_a_usable_group_are_said_not_skipped_silently(tmp_path, capsys):
    from lm_eval_enterprise.cli.sharpe import main as sharpe_main

    _population_only_run(tmp_path, n_templates=1)
    assert sharpe_main([str(tmp_path), "--bootstrap", "0", "--output_path", str(tmp_path / "o")]) == 0
    captured = capsys.readouterr()
    assert captured.out == "" and not (tmp_path / "o" / "population_estimates.json").exists()
    assert captured.err == ("warning: template populations: no variant group with at least two templates; no section\n")
