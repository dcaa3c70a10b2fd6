"""The per-row stages as functions from value to value, on hand-made samples: the cell table (pairing, observed
mask, parsed mask, failure rates, per-unit values), template scores, the resampled scores and the records' failure
flags."""

from pathlib import Path

import numpy as np
import pytest

from lm_eval_enterprise.scoring import bootstrap as BS
from lm_eval_enterprise.sharpe.cells import full_cells, pair, question_cells, resample, template_scores, union_cells
from lm_eval_enterprise.sharpe.inputs import Diagnostics, Options, SampleTable, SharpeInputError, TaskRun
from lm_eval_enterprise.sharpe.records import row_records
from lm_eval_enterprise.sharpe.rows import MetricSpec, Row
from testkit.synthetic import SynthTask, write_run


def table(ids, acc, fail=None, name="t"):
    """Samples of an accuracy metric: documents ``ids`` with per-document values ``acc``."""
    docs = [{"id": i} for i in ids]
    return SampleTable(
        Path(f"samples_{name}.jsonl"), docs, [None] * len(ids), list(range(len(ids))), {"accuracy": acc}, fail
    )


class Run:
    """The parts of a task run the per-row stages read."""

    reported = TaskRun.reported

    def __init__(self, task, row, samples=True):
        self.task, self.row, self.meta, self.n_samples = task, row, {}, {"effective": 3}
        self.samples_path = Path("x") if samples else None


ACCURACY = MetricSpec("accuracy", "answer", "mean", True)


def row_of(models, templates=("t1", "t2"), results=None):
    runs = {m: {t: Run(f"x__{t}", (results or {}).get((m, t), {})) for t in templates} for m in models}
    return Row("ent_x", "x", "finance", "multiple_choice", runs, list(templates), [ACCURACY], "doc", {}, {}, {})


def test_a_full_run_pairs_the_shared_documents_in_natural_order():
    row = row_of(["a", "b"])
    tabs = {
        "a": {"t1": table(["d10", "d2", "d1"], [1, 0, 1]), "t2": table(["d1", "d2", "d10"], [0, 0, 1])},
        "b": {"t1": table(["d1", "d2"], [1, 1]), "t2": table(["d2", "d1", "d10"], [1, 0, 0])},
    }
    diag = Diagnostics()
    p = pair(row, tabs, diag)
    assert p.units == ["d1", "d2"] and p.key_source == "id"
    assert p.lines[("a", "t1")].tolist() == [2, 1] and p.lines[("b", "t2")].tolist() == [1, 0]
    assert p.flags["doc_set_intersected"] == {"shared": 2, "sizes": [2, 3]} and "2 shared" in diag.notes[0]
    c = full_cells(row, "a", tabs["a"], p)
    assert c.observed.all() and c.observed.shape == (2, 2) and c.complete == [False, False]
    assert [sc.score() for sc in c.stats["accuracy"]] == [0.5, 0.0]
    values, kind, is_metric = c.per_unit("accuracy")
    assert values.tolist() == [[1, 0], [0, 0]] and kind == "value" and is_metric
    with pytest.raises(SharpeInputError, match="cover different documents"):
        pair(row, tabs, Diagnostics(strict_inputs=True))


def test_parsed_mask_and_failure_rates_of_a_template():
    row = row_of(["a"])
    tabs = {"a": {"t1": table(["d1", "d2", "d3"], [1, 0, 0], [0, 0, 1]), "t2": table(["d1", "d2", "d3"], [1, 1, 0])}}
    c = full_cells(row, "a", tabs["a"], pair(row, tabs, Diagnostics()))
    assert c.parsed(0).tolist() == [True, True, False] and c.parsed(1) is None
    assert c.fail_rates == [pytest.approx(1 / 3), None] and c.complete == [True, True]
    sc = template_scores(row, {"a": c}, Options(), Diagnostics())
    assert sc.scores[("a", "t1", "accuracy", "strict")] == pytest.approx(1 / 3)
    assert sc.scores[("a", "t1", "accuracy", "parsed_only")] == pytest.approx(1 / 2)  # d3 failed to parse
    assert ("a", "t2", "accuracy", "parsed_only") not in sc.scores  # no failures logged: no parsed mask
    assert sc.fail_rate[("a", "t1")] == pytest.approx(1 / 3) and sc.n_docs == {"a": 3}


def test_recomputed_scores_are_checked_against_the_results_file():
    results = {("a", "t1"): {"accuracy,answer": 0.5}, ("a", "t2"): {"accuracy,answer": 1.0}}
    row = row_of(["a", "b"], results=results)
    row.runs["b"]["t1"].row = {"accuracy,answer": 0.25}
    row.runs["b"]["t2"].row = {"accuracy,answer": 0.75}
    tabs = {"a": {"t1": table(["d1", "d2"], [1, 0]), "t2": table(["d1", "d2"], [1, 0])}}
    c = full_cells(row, "a", tabs["a"], pair(row, tabs, Diagnostics()))
    diag = Diagnostics()
    sc = template_scores(row, {"a": c}, Options(), diag)
    assert (
        sc.model_flags == {"a": {"recompute_mismatch": ["t2:accuracy"]}} and "the results file says 1" in diag.notes[0]
    )
    assert sc.scores[("b", "t1", "accuracy", "strict")] == 0.25 and sc.n_docs["b"] == 3  # no samples: results file
    assert ("b", "t1", "accuracy", "strict") not in sc.scorers


def test_resampled_scores_are_the_statistic_on_each_draw():
    row = row_of(["a"])
    acc = {"t1": [1, 0, 1, 1], "t2": [0, 0, 1, 0]}
    tabs = {"a": {t: table(["d1", "d2", "d3", "d4"], v) for t, v in acc.items()}}
    c = full_cells(row, "a", tabs["a"], pair(row, tabs, Diagnostics()))
    opts = Options(bootstrap=50, seed=3)
    res = resample(row, 4, template_scores(row, {"a": c}, opts, Diagnostics()), opts)
    di, _ = BS.draw(3, 50, 4, 2, False)
    want = np.column_stack([np.array(acc[t])[di].mean(1) for t in ("t1", "t2")])
    assert res.boot[("a", "accuracy", "strict", "docs")] == pytest.approx(want)
    assert res.template_idx == {"docs": None} and ("a", "accuracy", "parsed_only", "docs") not in res.boot
    no_samples = row_of(["a"], results={("a", t): {"accuracy,answer": 0.5} for t in ("t1", "t2")})
    assert resample(no_samples, 4, template_scores(no_samples, {}, opts, Diagnostics()), opts).boot == {}


def test_a_sparse_run_keeps_the_union_of_its_units_as_a_partial_mask():
    tabs = [table(["d1", "d3"], [1, 0], name="t1"), table(["d2", "d3", "d10"], [1, 1, 0], name="t2")]
    c = union_cells("m", ["t1", "t2"], tabs, "doc", "accuracy", "mean")
    assert c.units == ["d1", "d2", "d3", "d10"]
    assert c.observed.tolist() == [[True, False, True, False], [False, True, True, True]]
    assert c.features("accuracy")[:, :, 0].tolist() == [[1, 0, 0, 0], [0, 1, 1, 0]]
    assert c.correct("accuracy").tolist() == [[1, 0, 0, 0], [0, 1, 1, 0]] and c.per_unit("accuracy") is None
    with pytest.raises(SharpeInputError, match="samples_t2.jsonl: no unique document key"):
        dup = SampleTable(Path("samples_t2.jsonl"), [{"id": "d1"}] * 2, [None] * 2, [0, 0], {"accuracy": [0, 1]}, None)
        union_cells("m", ["t1", "t2"], [tabs[0], dup], "doc", "accuracy", "mean")


def test_a_dataset_made_of_questions_splits_into_one_table_per_question():
    items = [
        {"gold": g, "pred": p, "labels": ["Yes", "No"], "question_id": q}
        for g, p, q in [("Yes", "Yes", "up"), ("No", "Yes", "down"), ("No", "No", "up")]
    ]
    tab = SampleTable(
        Path("s.jsonl"),
        [{"id": i} for i in ("a/up", "a/down", "b/up")],
        [None] * 3,
        [0, 1, 2],
        {"weighted_f1": items},
        None,
    )
    c = union_cells("m", ["t1"], [tab], "doc", "weighted_f1", "agg_weighted_f1")
    parts = question_cells(c, "weighted_f1", "agg_weighted_f1")
    assert [(q, p.units) for q, p in parts] == [("down", ["a/down"]), ("up", ["a/up", "b/up"])]
    assert parts[1][1].stats["weighted_f1"][0].score() == 1.0 and parts[1][1].stats["weighted_f1"][0].layout
    assert (
        question_cells(union_cells("m", ["t1"], [table(["d1"], [1])], "doc", "accuracy", "mean"), "accuracy", "mean")
        == []
    )


def test_failure_flags_are_added_to_both_scoring_modes(tmp_path):
    docs = [
        {"id": f"d{i}", "question": "", "choices": ["a", "b"], "answer": 0, "answer_letter": "A"} for i in range(10)
    ]
    tasks = [
        SynthTask(f"ent_x__{t}", "multiple_choice", "ent_x", t, docs, outs, "accuracy", dataset="x")
        for t, outs in (("t1", ["A"] * 8 + ["B"] * 2), ("t2", ["[invalid]"] * 5 + ["A"] * 5))
    ]
    write_run(tmp_path, "m", tasks)
    from lm_eval_enterprise.sharpe.inputs import Progress, read_inputs, select_runs
    from lm_eval_enterprise.sharpe.pipeline import score_row
    from lm_eval_enterprise.sharpe.rows import build_rows

    opts, diag = Options(bootstrap=0), Diagnostics()
    (row,) = build_rows(
        select_runs(read_inputs([tmp_path], opts.variant_pattern, Progress(False)), "core", opts, diag).selected,
        opts,
        diag,
    )
    scored, _ = score_row(row, opts, {})
    recs = row_records(scored, opts)
    assert [(r.scoring_mode, r.flag_details.get("high_failure")) for r in recs] == [
        ("strict", ["t2"]),
        ("parsed_only", ["t2"]),
    ]
    assert all("high_failure" in r.flags for r in recs)
