"""One ``sharpe`` call parses every results file once, whatever the inputs hold: full runs with a template population
beside them, a sparse run with a population, a population alone (a counting reader around the one parser)."""

from collections import Counter

import pytest

from lm_eval_enterprise.cli import sharpe as cli
from lm_eval_enterprise.harness.cellplan import plan_cells
from lm_eval_enterprise.sharpe import inputs
from lm_eval_enterprise.sharpe.pipeline import aggregate
from testkit import synthetic as S


@pytest.fixture
def reads(monkeypatch):
    """path → how often it was parsed."""
    counts: Counter = Counter()
    parse = inputs.read_results_file

    def counting(path):
        counts[str(path)] += 1
        return parse(path)

    monkeypatch.setattr(inputs, "read_results_file", counting)
    return counts


def _core(n=20, seed=3):
    return [S.family_task("classification_weighted", f"t{i}", n, 0.3 + 0.1 * i, seed=seed) for i in range(1, 4)]


def _population(n=20):
    tasks = _core(n, seed=5)
    for i, t in enumerate(tasks):
        t.variant_group, t.task = "ent_syn_c_population", f"ent_syn_c_population__p{i}"
        t.extra_metadata = {"template_set": "population", "population_axes": {"wording": f"w{i % 2}"}}
    return tasks


def _sparse(n=20):
    tasks = _core(n)
    plan = plan_cells({"g": list(range(n))}, {"g": [t.task for t in tasks]}, 0.5, seed=1)
    meta = plan.metadata()
    meta["cell_design"] = {tasks[0].variant_group: meta["cell_design"]["g"]}
    for t in tasks:
        idx = plan.samples[t.task]
        t.docs, t.outputs, t.extra_metadata = [t.docs[i] for i in idx], [t.outputs[i] for i in idx], dict(meta)
    return tasks


@pytest.mark.parametrize(
    "runs,sections",
    [
        ({"a": _core() + _population(), "b": _core(seed=4)}, ["## Sharpe leaderboard", "## ESTIMATES: template"]),
        ({"a": _sparse(), "b": _population()}, ["ESTIMATES from a sparse design", "## ESTIMATES: template"]),
        ({"a": _population()}, ["## ESTIMATES: template"]),
    ],
    ids=["full+population", "sparse+population", "population"],
)
def test_each_results_file_is_parsed_once_per_call(tmp_path, reads, capsys, runs, sections):
    files = [S.write_run(tmp_path, model, tasks) for model, tasks in runs.items()]
    assert cli.main([str(tmp_path), "--bootstrap", "10", "--no_progress", "--output_path", str(tmp_path / "o")]) == 0
    out = capsys.readouterr().out
    assert [s for s in sections if s in out] == sections
    assert reads == Counter({str(p): 1 for p in files})


def test_the_api_parses_each_results_file_once(tmp_path, reads):
    files = [S.write_run(tmp_path, m, _core(seed=s)) for m, s in (("a", 3), ("b", 4))]
    aggregate([tmp_path], bootstrap=0, progress=False)
    assert reads == Counter({str(p): 1 for p in files})
