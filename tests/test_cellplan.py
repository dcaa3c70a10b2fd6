"""Sparse run planner (lm_eval_enterprise/harness/cellplan.py) and its wiring into ``lm-eval-enterprise run``."""

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import OFFLINE_ENV
from lm_eval_enterprise import cli
from lm_eval_enterprise.harness.cellplan import CellPlanError, design, plan_cells

BIN = Path(sys.executable).parent
ENV = OFFLINE_ENV


class NoShuffle(random.Random):
    """A generator whose shuffle keeps the order: the design is then fully determined by hand."""

    def shuffle(self, x):  # noqa: D401 - keeps x unchanged
        return None


# ============================================================================================ design
def test_design_by_hand_identity_shuffles():
    # 3 units × 3 templates at 2/3: 6 cells, k = 2 per unit. Units in order 0, 1, 2; permutation stream 0 1 2 | 0 1 2:
    # unit 0 ← [0, 1]; unit 1 ← [2] + next permutation with 2 moved to its end → [0, 1, 2] → takes 0 → {0, 2};
    # unit 2 ← [1, 2].
    assert design(3, 3, 2 / 3, NoShuffle()) == [[0, 1], [0, 2], [1, 2]]


def test_design_fractional_budget_mixes_k():
    # 0.3 × 5 templates × 4 units = 6 cells: two units get 2 templates, two get 1 (not round(1.5) = 2 for all)
    sets = design(4, 5, 0.3, random.Random(0))
    assert sorted(len(s) for s in sets) == [1, 1, 2, 2]
    loads = [sum(t in s for s in sets) for t in range(5)]
    assert sorted(loads) == [1, 1, 1, 1, 2]
    assert all(len(set(s)) == len(s) for s in sets)


@pytest.mark.parametrize(
    "units,templates,budget", [(100, 5, 0.4), (37, 5, 0.2), (50, 6, 0.5), (11, 3, 0.9), (200, 7, 0.3)]
)
def test_design_balanced_and_covering(units, templates, budget):
    sets = design(units, templates, budget, random.Random(1))
    cells = sum(map(len, sets))
    assert cells == max(round(budget * templates * units), units)
    assert all(len(s) >= 1 and len(set(s)) == len(s) for s in sets)  # every unit covered, no repeats
    assert {len(s) for s in sets} <= {cells // units, cells // units + 1}
    loads = [sum(t in s for s in sets) for t in range(templates)]
    assert min(loads) >= 1 and max(loads) - min(loads) <= 1  # balanced template loads


def test_design_pairs_vary_when_k_divides_t():
    # T = 6, k = 2: a fixed cyclic design would only ever pair {0,1}, {2,3}, {4,5}; random permutations connect all
    sets = design(60, 6, 2 / 6, random.Random(3))
    pairs = {tuple(s) for s in sets}
    assert len(pairs) > 3


def test_design_errors():
    with pytest.raises(CellPlanError, match=r"in \(0, 1\]"):
        design(10, 5, 0, random.Random(0))
    with pytest.raises(CellPlanError, match=r"in \(0, 1\]"):
        design(10, 5, 1.5, random.Random(0))
    with pytest.raises(CellPlanError, match="number"):
        design(10, 5, "x", random.Random(0))
    # 2 units × 5 templates at 0.2 = 2 cells < 5 templates
    with pytest.raises(CellPlanError, match="every template needs at least one unit"):
        design(2, 5, 0.2, random.Random(0))


# ============================================================================================ plan_cells
def test_plan_two_docs_two_templates_half():
    plan = plan_cells({"g": ["a", "b"]}, {"g": ["g__t1", "g__t2"]}, 0.5, seed=0)
    s = plan.samples
    assert sorted(s) == ["g__t1", "g__t2"]
    assert sorted(s["g__t1"] + s["g__t2"]) == [0, 1] and len(s["g__t1"]) == 1  # each doc once, each template once
    assert plan.cells == 2 and plan.total == 4


def test_plan_full_budget_is_everything():
    plan = plan_cells({"g": list("abcde")}, {"g": ["x", "y", "z"]}, 1.0)
    assert plan.samples == {"x": [0, 1, 2, 3, 4], "y": [0, 1, 2, 3, 4], "z": [0, 1, 2, 3, 4]}


def test_plan_units_keep_queries_together():
    docs = [f"q{q}c{c}" for q in range(10) for c in range(3)]
    units = [f"q{q}" for q in range(10) for c in range(3)]
    plan = plan_cells({"r": docs}, {"r": ["r1", "r2", "r3", "r4", "r5"]}, 0.4, seed=2, units={"r": units})
    for task, idx in plan.samples.items():
        assert idx == sorted(idx)
        queries = {i // 3 for i in idx}
        assert sorted(idx) == sorted(i for q in queries for i in range(3 * q, 3 * q + 3)), task  # whole queries
    g = plan.groups["r"]
    assert (g.n_units, g.n_docs, g.cells) == (10, 30, 20 * 3)  # 20 unit-cells


def test_plan_deterministic_seeded_and_per_group():
    docs = {"a": list(range(40)), "b": list(range(30))}
    tpl = {"a": [f"a{i}" for i in range(5)], "b": [f"b{i}" for i in range(5)]}
    p1 = plan_cells(docs, tpl, 0.4, seed=7).samples
    assert p1 == plan_cells(docs, tpl, 0.4, seed=7).samples
    assert p1 != plan_cells(docs, tpl, 0.4, seed=8).samples
    only_a = plan_cells({"a": docs["a"]}, {"a": tpl["a"]}, 0.4, seed=7).samples
    assert {k: v for k, v in p1.items() if k.startswith("a")} == only_a  # a group's plan ignores other groups


def test_plan_metadata_and_summary():
    plan = plan_cells({"g": list(range(10))}, {"g": ["g__t1", "g__t2", "g__t3", "g__t4", "g__t5"]}, 0.4, seed=3)
    meta = plan.metadata()
    assert meta["cell_budget"] == 0.4 and meta["cell_seed"] == 3
    assert meta["cells_planned"] == {f"g__t{i}": 4 for i in range(1, 6)}  # 20 cells, 4 per template
    assert meta["cell_design"]["g"] == {"docs": 10, "units": 10, "templates": 5, "cells": 20, "share": 0.4}
    assert "20 of 50 cells (40.0%)" in plan.summary()


# ============================================================================================ strata (step 4)
def test_stratum_cells_by_hand():
    from lm_eval_enterprise.harness.cellplan import MINORITY_SHARE, stratum_cells

    assert MINORITY_SHARE == 0.2  # the by-hand numbers below use it
    # 48 positives of 400, 50 templates, two runs (C = 800): max(round(0.2·800) = 160, 48) = 160, below the caps
    # 48·50 = 2400 and C − 352 = 448; the proportional share is 800·48/400 = 96
    assert stratum_cells(48, 352, 50, 800) == 160
    # one run (C = U = 400): C − 352 = 48 = the proportional share, so no stratification
    assert stratum_cells(48, 352, 50, 400) is None
    # securenlp's 12 of 100 at 30 templates, two runs (C = 200): max(40, 12, 30) = 40 cells instead of 24
    assert stratum_cells(12, 88, 30, 200) == 40
    # ... at 50 templates: every template needs a relevant document, max(40, 12, 50) = 50 (below 12·50 and 200 − 88)
    assert stratum_cells(12, 88, 50, 200) == 50
    # too few cells to give every template a unit of each stratum: 3 + 7 units, 10 templates, C = 15 gives
    # min(max(3, 3, 10), 30, 15 − 10) = 5 < T, so the unstratified design
    assert stratum_cells(3, 7, 10, 15) is None
    # capped at every template on every rare unit: 2 units × 5 templates = 10 (proportional 200·2/100 = 4)
    assert stratum_cells(2, 98, 5, 200) == 10
    # 15 % rare: max(40, 15) = 40 above the proportional 200·15/100 = 30
    assert stratum_cells(15, 85, 5, 200) == 40
    # 25 % is not rare: max(40, 25) = 40 below the proportional 50
    assert stratum_cells(25, 75, 5, 200) is None
    # 22 % at 50 templates: the proportional 200·22/100 = 44 would leave six templates without one of its units;
    # max(40, 22, 50) = 50, below 22·50 and 200 − 78
    assert stratum_cells(22, 78, 50, 200) == 50


def test_plan_stratified_by_hand():
    # 20 documents, positives 0 and 10, 5 templates at 0.4: C = 40; the positives get min(max(round(0.2·40) = 8, 2),
    # 2·5 = 10, 40 − 18 = 22) = 8 cells (4 templates each) instead of the proportional 4, the 18 negatives the other
    # 32 (fourteen with 2 templates, four with 1)
    keys = ["positive" if d in (0, 10) else "negative" for d in range(20)]
    tasks = [f"g__t{i}" for i in range(1, 6)]
    plan = plan_cells({"g": list(range(20))}, {"g": tasks}, 0.4, seed=3, strata={"g": keys})
    g = plan.groups["g"]
    per_doc = [len(ts) for ts in g.unit_templates]
    assert per_doc[0] == per_doc[10] == 4
    assert sorted(n for d, n in enumerate(per_doc) if d not in (0, 10)) == [1] * 4 + [2] * 14
    assert g.cells == 40
    assert g.strata == {"positive": {"units": 2, "cells": 8}, "negative": {"units": 18, "cells": 32}}
    pos_loads = [sum(t in g.unit_templates[d] for d in (0, 10)) for t in range(5)]
    assert sorted(pos_loads) == [1, 1, 2, 2, 2]  # 8 cells over 5 templates, balanced within the stratum
    assert plan.metadata()["cell_design"]["g"]["strata"] == g.strata
    assert "strata positive: 8 cells on 2 units, negative: 32 cells on 18 units" in plan.summary()
    assert plan.samples == plan_cells({"g": list(range(20))}, {"g": tasks}, 0.4, seed=3, strata={"g": keys}).samples


def test_plan_stratified_gives_every_template_a_rare_unit():
    # securenlp's layout at 50 templates, two runs: 12 relevant of 100, C = 200; round(0.2·200) = 40 would leave ten
    # templates without a relevant document, so the floor T gives the relevant ones 50 cells: one per template,
    # 4 or 5 per relevant document (two with 5, ten with 4), and the 88 others 150 (62 with 2, 26 with 1)
    import random

    from lm_eval_enterprise.harness.cellplan import stratified_design

    keys = ["positive" if d % 8 == 3 and d < 96 else "negative" for d in range(100)]
    assert keys.count("positive") == 12
    sets, record = stratified_design(keys, 50, 0.04, random.Random(0), "g: ")
    assert record == {"positive": {"units": 12, "cells": 50}, "negative": {"units": 88, "cells": 150}}
    pos = [d for d, k in enumerate(keys) if k == "positive"]
    assert sorted(len(sets[d]) for d in pos) == [4] * 10 + [5] * 2
    assert sorted(sum(t in sets[d] for d in pos) for t in range(50)) == [1] * 50
    neg = [d for d, k in enumerate(keys) if k == "negative"]
    assert sorted(len(sets[d]) for d in neg) == [1] * 26 + [2] * 62
    assert sorted(sum(t in sets[d] for d in neg) for t in range(50)) == [3] * 50  # 150 cells, 3 per template


def test_positive_stratum_compares_as_binary_f1_does():
    """A document is in the positive stratum exactly when binary F1 counts its gold label as the positive class:
    compared after [NORM] (lower-case, punctuation and extra spaces dropped), the one comparison of
    ``scoring.metrics.label_indices``."""
    from lm_eval_enterprise.harness.cellplan import _positive_stratum
    from lm_eval_enterprise.scoring.metrics import binary_f1

    doc = {"label": " Relevant. ", "positive_label": "relevant"}
    assert _positive_stratum("t", doc) == "positive"
    assert binary_f1([doc["label"]], ["relevant"], doc["positive_label"]) == 1.0  # a true positive for binary F1
    assert _positive_stratum("t", {"label": "irrelevant", "positive_label": "relevant"}) == "negative"
    with pytest.raises(CellPlanError, match="task t: a binary classification document without"):
        _positive_stratum("t", {"label": "relevant"})


def test_plan_strata_without_room_or_rarity_is_the_plain_plan():
    docs, tasks = list(range(40)), [f"g__t{i}" for i in range(1, 6)]
    plain = plan_cells({"g": docs}, {"g": tasks}, 0.2, seed=1)
    rare = ["positive" if d < 4 else "negative" for d in docs]
    one_run = plan_cells({"g": docs}, {"g": tasks}, 0.2, seed=1, strata={"g": rare})  # C = U: one template each
    assert one_run.samples == plain.samples and one_run.groups["g"].strata is None
    common = ["positive" if d % 2 else "negative" for d in docs]  # 50 %: not rare
    halves = plan_cells({"g": docs}, {"g": tasks}, 0.4, seed=1, strata={"g": common})
    assert halves.samples == plan_cells({"g": docs}, {"g": tasks}, 0.4, seed=1).samples
    single = plan_cells({"g": docs}, {"g": tasks}, 0.4, seed=1, strata={"g": ["negative"] * 40})  # one stratum
    assert single.samples == halves.samples


def test_plan_strata_errors():
    tasks = ["a", "b", "c"]
    with pytest.raises(CellPlanError, match="group g: 3 strata"):
        plan_cells({"g": [1, 2, 3]}, {"g": tasks}, 0.5, strata={"g": ["x", "y", "z"]})
    with pytest.raises(CellPlanError, match="group g: 2 stratum keys for 3 documents"):
        plan_cells({"g": [1, 2, 3]}, {"g": tasks}, 0.5, strata={"g": ["x", "y"]})
    with pytest.raises(CellPlanError, match="in 2 units"):
        plan_cells({"g": [1, 2, 3]}, {"g": tasks}, 0.5, units={"g": ["q", "q", "r"]}, strata={"g": ["x", "y", "y"]})


def test_plan_input_errors():
    with pytest.raises(CellPlanError, match="at least 2 templates"):
        plan_cells({"g": [1, 2]}, {"g": ["only"]}, 0.5)
    with pytest.raises(CellPlanError, match="unit keys"):
        plan_cells({"g": [1, 2]}, {"g": ["a", "b"]}, 0.5, units={"g": ["q"]})
    with pytest.raises(CellPlanError, match="no documents"):
        plan_cells({"g": []}, {"g": ["a", "b"]}, 0.5)


# ============================================================================================ run argv → plan
@pytest.fixture
def planned(monkeypatch, capsys):
    """``cli.main(["run", "--model", "dummy", *argv])`` up to lm-eval's evaluator: the argv parsed, the tasks built
    and planned by the real code, ``simple_evaluate`` replaced by a recorder of its arguments (no model run).
    Returns a function: argv → (exit code, kwargs given to simple_evaluate or None, stderr)."""
    import lm_eval

    def run(argv):
        seen = {}
        monkeypatch.setattr(lm_eval, "simple_evaluate", lambda **kw: seen.update(kw))  # None: as a non-zero rank
        rc = cli.main(["run", "--model", "dummy"] + argv)
        return rc, seen or None, capsys.readouterr().err

    return run


def _leaves(kwargs):
    """Task name → Task of the objects handed to simple_evaluate."""
    out = {}
    for item in kwargs["tasks"]:
        for task in item.get_all_tasks() if hasattr(item, "get_all_tasks") else [item]:
            out[task.task_name] = task
    return out


SECURENLP_PLAN = ["--tasks", "ent_securenlp", "--limit", "8", "--metadata", '{"data_root": "embedded"}']


@pytest.mark.parametrize(
    "flags",
    [
        ["--cell_budget", "0.4", "--cell_seed", "5"],
        ["--cell-budget=0.4", "--cell-seed", "5"],  # the first version's spellings: hidden aliases, the same plan
    ],
)
def test_run_plans_the_tasks_it_evaluates(planned, flags):
    rc, kw, err = planned(SECURENLP_PLAN + flags)
    assert rc == 0, err
    assert "cell plan (budget 0.4, seed 5): 16 of 40 cells (40.0%)" in err
    samples = kw["samples"]
    assert sorted(samples) == [f"ent_securenlp__t{i}" for i in range(1, 6)]
    assert sum(map(len, samples.values())) == 16 and all(0 <= i < 8 for v in samples.values() for i in v)
    assert kw["limit"] is None  # --limit restricted the plan; lm-eval takes samples or a limit
    leaves = _leaves(kw)
    docs = [str(d["id"]) for d in list(leaves["ent_securenlp__t1"].eval_docs)[:8]]
    expected = plan_cells({"ent_securenlp": docs}, {"ent_securenlp": sorted(leaves)}, 0.4, seed=5)
    assert samples == expected.samples
    for task in leaves.values():  # the plan is in the metadata of the very tasks lm-eval runs
        meta = task.config.metadata
        assert meta["data_root"] == "embedded" and meta["cell_budget"] == 0.4 and meta["cell_seed"] == 5
        assert meta["cells_planned"] == {t: len(v) for t, v in samples.items()}
        assert meta["cell_design"]["ent_securenlp"]["docs"] == 8


def test_run_stratifies_a_binary_classification_on_the_real_sample(planned):
    """securenlp's genuine test split, its first 100 documents (12 relevant): the planner gives the relevant ones
    min(max(round(0.2·200), 12), 12·5, 200 − 88) = 40 of the 200 cells (3 or 4 templates each, against 2 in the
    even plan) and records it."""
    from conftest import SHARED_DATA, shared_sample

    shared_sample("securenlp")  # skips when the real sample is absent
    meta = json.dumps({"data_root": str(SHARED_DATA)})
    rc, kw, err = planned(["--tasks", "ent_securenlp", "--limit", "100", "--metadata", meta, "--cell_budget", "0.4"])
    assert rc == 0, err
    leaves = _leaves(kw)
    docs = list(leaves["ent_securenlp__t1"].eval_docs)[:100]
    keys = ["positive" if d["label"] == d["positive_label"] else "negative" for d in docs]
    assert keys.count("positive") == 12
    strata = {"positive": {"units": 12, "cells": 40}, "negative": {"units": 88, "cells": 160}}
    assert leaves["ent_securenlp__t3"].config.metadata["cell_design"]["ent_securenlp"]["strata"] == strata
    positives = {i for i, k in enumerate(keys) if k == "positive"}
    per_positive = [sum(i in v for v in kw["samples"].values()) for i in sorted(positives)]
    assert sorted(per_positive) == [3] * 8 + [4] * 4  # 40 cells on 12 documents
    expected = plan_cells(
        {"ent_securenlp": [str(d["id"]) for d in docs]},
        {"ent_securenlp": sorted(leaves)},
        0.4,
        0,
        strata={"ent_securenlp": keys},
    )
    assert kw["samples"] == expected.samples
    assert "strata positive: 40 cells on 12 units, negative: 160 cells on 88 units" in err


@pytest.mark.parametrize(
    "extra,match",
    [
        (["--cell_budget", "0.6", "--samples", '{"x": [1]}'], "cannot be combined with --samples"),
        (["--cell_budget", "0.6", "-E", '{"x": [1]}'], "cannot be combined with --samples"),
        (["--cell_budget", "0.6", "--cache_requests", "true"], "request cache"),
        (["--cell_budget", "0.6", "--limit", "2.5"], "--limit must be a whole number of documents, not 2.5"),
        (["--cell_seed", "1"], "--cell_seed needs --cell_budget"),
        (["--cell-budget", "0"], "cell budget must be in (0, 1]"),
        (["--cell_budget", "half"], "argument --cell_budget: invalid float value: 'half'"),
        (["--cell_budget", "0.5", "--cell_seed", "1.5"], "argument --cell_seed: invalid int value: '1.5'"),
        (["--cell_budget", "0.6", "--data_root", "embedded", "--metadata", "data_root=x"], "disagree"),
        (["--cell_budget", "0.6", "--tasks", "ent_fiqa_qa", "--limit", "25"], "cuts a query in two"),
    ],
)
def test_run_refuses_bad_cell_plans_as_usage_errors(planned, extra, match):
    tasks = [] if "--tasks" in extra else ["--tasks", "ent_securenlp"]
    rc, kw, err = planned(tasks + ["--metadata", '{"data_root": "embedded"}'] * ("--metadata" not in extra) + extra)
    assert (rc, kw) == (2, None)
    assert "usage: lm-eval-enterprise run" in err and match in err, err


def test_run_needs_tasks_for_a_cell_plan(planned):
    rc, kw, err = planned(["--cell_budget", "0.5"])
    assert (rc, kw) == (2, None) and "error: --cell_budget needs --tasks" in err


def test_run_plans_ranking_queries_whole(planned):
    rc, kw, err = planned(
        ["--tasks", "ent_fiqa_qa", "--cell_budget", "0.6", "--limit", "40", "--metadata", '{"data_root": "embedded"}']
    )
    assert rc == 0, err
    (design,) = {json.dumps(t.config.metadata["cell_design"]) for t in _leaves(kw).values()}
    # 2 queries × 20 candidates; round(0.6 · 5 templates · 2 units) = 6 unit cells of 20 documents each
    assert json.loads(design) == {"ent_fiqa_qa": {"docs": 40, "units": 2, "templates": 5, "cells": 120, "share": 0.6}}
    for task, idx in kw["samples"].items():
        assert idx in ([*range(20)], [*range(20, 40)], [*range(40)]), task


def test_sparse_run_builds_each_task_once(monkeypatch, tmp_path):
    """One parsed argv, one task build: every variant of a --cell_budget run is constructed exactly once (planned
    and evaluated as the same object), with the real evaluator and lm-eval's dummy model."""
    from collections import Counter

    from lm_eval_enterprise.harness.task import EnterpriseTask

    built = Counter()
    init = EnterpriseTask.__init__

    def counting_init(self, config=None, **kwargs):
        built[(config or {}).get("task")] += 1
        init(self, config=config, **kwargs)

    monkeypatch.setattr(EnterpriseTask, "__init__", counting_init)
    argv = ["run", "--model", "dummy", "--tasks", "ent_securenlp", "--data_root", "embedded"]
    argv += ["--cell_budget", "0.4", "--output_path", str(tmp_path), "--log_samples"]
    assert cli.main(argv) == 0
    assert built == {f"ent_securenlp__t{i}": 1 for i in range(1, 6)}
    (res_file,) = tmp_path.rglob("results_*.json")
    res = json.loads(res_file.read_text())
    assert {t: res["n-samples"][t]["effective"] for t in built} == {t: 4 for t in built}  # 20 of 50 cells


# ============================================================================================ end to end (dummy LM)
def _run(args, out):
    proc = subprocess.run(
        [
            str(BIN / "lm-eval-enterprise"),
            "run",
            "--model",
            "dummy",
            "--tasks",
            "ent_securenlp",
            "--data-root",
            "embedded",
            "--output_path",
            str(out),
            "--log_samples",
        ]
        + args,
        capture_output=True,
        text=True,
        env=ENV,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc


def _lines(out, task):
    (f,) = Path(out).rglob(f"samples_{task}_*.jsonl")
    return [json.loads(x) for x in f.open()]


def test_sparse_run_end_to_end(tmp_path):
    """--cell_budget through lm-eval: exactly the planned documents run, logged doc_ids are the dataset indices,
    prompts (shots included) equal those of a full run, and the plan is recorded in every task's metadata; the
    sparse estimator then reads the folder."""
    proc = _run(["--cell_budget", "0.4", "--cell_seed", "3"], tmp_path / "sparse")
    assert "cell plan (budget 0.4, seed 3): 20 of 50 cells (40.0%)" in proc.stderr
    _run([], tmp_path / "full")
    (res_file,) = (tmp_path / "sparse").rglob("results_*.json")
    res = json.loads(res_file.read_text())
    docs = [f"Invented_Tidewater_Campaign.tokens:{i}" for i in range(5)]
    docs += [f"Synthetic_Mossback_RAT_Whitepaper.tokens:{i}" for i in range(5)]
    plan = plan_cells(
        {"ent_securenlp": docs}, {"ent_securenlp": [f"ent_securenlp__t{i}" for i in range(1, 6)]}, 0.4, seed=3
    )
    for i in range(1, 6):
        task = f"ent_securenlp__t{i}"
        meta = res["configs"][task]["metadata"]
        assert meta["cell_budget"] == 0.4 and meta["cell_seed"] == 3 and meta["cells_planned"][task] == 4
        sparse = _lines(tmp_path / "sparse", task)
        assert [ln["doc_id"] for ln in sparse] == plan.samples[task]
        full = {ln["doc_id"]: ln for ln in _lines(tmp_path / "full", task)}
        for ln in sparse:
            assert ln["doc"] == full[ln["doc_id"]]["doc"]
            assert ln["prompt_hash"] == full[ln["doc_id"]]["prompt_hash"]
    # `sharpe` sees the cell plan in the task metadata and reports estimates
    proc = subprocess.run(
        [
            str(BIN / "lm-eval-enterprise"),
            "sharpe",
            str(tmp_path / "sparse"),
            "--bootstrap",
            "50",
            "--out",
            str(tmp_path / "est"),
        ],
        capture_output=True,
        text=True,
        env=ENV,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("ESTIMATES") and "40.0%" in proc.stdout
    rec = json.loads((tmp_path / "est" / "sparse_estimates.json").read_text())["records"][0]
    assert (rec["cells_observed"], rec["cells_total"]) == (20, 50)
    assert rec["plan"]["cell_budget"] == 0.4 and rec["estimate"] is True
