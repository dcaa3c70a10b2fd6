"""The estimates of sparse runs and template populations (``sharpe/estimates.py``): cell matrices read from the
runs, full runs matching the Sharpe tool, the routing and the one-line errors."""

import json
import re

import numpy as np
import pytest

from lm_eval_enterprise.estimator import (
    SparseError,
    estimate_row,
    naive_scores,
)
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
from testkit import synthetic as S

NAN = np.nan


def read_sparse(paths, opts):
    """The cell matrices of the sparse run under ``paths`` and the notes reading them raised."""
    diag = Diagnostics()
    inputs = read_inputs([str(p) for p in paths], opts.variant_pattern, Progress(False))
    return sparse_groups(select_runs(inputs, "core", opts, diag), opts, diag), diag.notes


def sparse_inputs(paths) -> bool:
    return read_inputs([str(p) for p in paths], Options().variant_pattern, Progress(False)).sparse


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
