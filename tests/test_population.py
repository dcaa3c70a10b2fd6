"""Template populations (``lm_eval_enterprise.prompting.population``): the grammar, the command and its include folder, and
every population template through the answer-probe table and the oracle.

Cost is bounded: the grammar checks run on all 25 datasets (pure Python); the probe table on every label-reading
dataset for a seeded sample of templates and on securenlp for all 50; the oracle / garbage runs through lm-eval
on a seeded sample of 2 templates of every dataset (gold_news: of one subtask) plus all 50 of securenlp.
"""

import random
from dataclasses import replace
from pathlib import Path

import pytest
from test_parse_table import _doc, assert_reading_table

from lm_eval_enterprise import TASK_DIR
from lm_eval_enterprise.cli import main
from lm_eval_enterprise.data.tasktree import registry
from lm_eval_enterprise.harness.runner import evaluate, load_tasks, make_task_manager
from lm_eval_enterprise.prompting.population import (
    PopulationError,
    axes_of,
    population,
    render_population,
    write_population,
)
from lm_eval_enterprise.prompting.templating import all_specs, answer_filter, answer_lead_ins, output_field
from lm_eval_enterprise.scoring.filters import GENERIC_FIELDS, GENERIC_FIELDS_JA, norm_field
from testkit.testing import GarbageLM, OracleLM

SPECS = {s.dataset: s for _, s in all_specs(Path(TASK_DIR)) if not s.variant}
SIZE, SEED = 50, 0
FULL = "securenlp"  # the dataset checked on all its population templates


@pytest.fixture(scope="module")
def pops():
    return {d: population(s, SIZE, SEED) for d, s in SPECS.items()}


def test_every_dataset_has_a_population_of_distinct_valid_templates(pops):
    assert sum(s.suite == "enterprise" for s in SPECS.values()) == 25
    assert set(SPECS) == set(registry())  # every dataset of both suites
    for d, pop in pops.items():
        spec = SPECS[d]
        assert [p.template.id for p in pop] == [f"p{k:03d}" for k in range(1, SIZE + 1)]
        prompts = {(p.template.description, p.template.doc_to_text) for p in pop}
        core = {(t.description, t.doc_to_text) for t in spec.templates}
        assert len(prompts) == SIZE and not prompts & core, d
        axes = axes_of(spec, [None] * 3)
        for p in pop:
            assert set(p.axes) == set(axes) and all(p.axes[a] in axes[a] for a in axes if a != "wording"), p.axes
            assert p.template.regex == spec.templates[0].regex  # t1's answer format
            assert "helm" not in p.template.axes


def test_population_is_seeded_and_prefix_stable():
    spec = SPECS["tram"]
    a, b = population(spec, SIZE, SEED), population(spec, 20, SEED)
    assert [p.axes for p in a[:20]] == [p.axes for p in b]
    assert [p.template for p in a[:20]] == [replace(p.template) for p in b]
    assert [p.axes for p in population(spec, 20, 1)] != [p.axes for p in b]


def test_every_lead_is_one_the_datasets_reader_accepts(pops):
    for d, pop in pops.items():
        generic = (*GENERIC_FIELDS, *GENERIC_FIELDS_JA) if SPECS[d].language == "ja" else GENERIC_FIELDS
        accepted = {norm_field(f) for f in (*generic, *answer_lead_ins(SPECS[d]))}
        leads = {norm_field(output_field(p.template)) for p in pop}
        assert leads <= accepted, (d, leads - accepted)


def test_one_reading_rule_for_core_and_population(pops):
    """The population's filter is the core set's: same reader, lead-ins, aliases and stop sequence."""
    for d, pop in pops.items():
        spec = SPECS[d]
        if spec.output_type != "generate_until":
            continue
        core = answer_filter(spec, spec.templates[0])
        pspec = replace(spec, templates=[p.template for p in pop])
        for p in pop:
            f = answer_filter(pspec, p.template, reading=spec)
            assert (f.reader, f.lead_ins, f.aliases, f.stop) == (core.reader, core.lead_ins, core.aliases, core.stop)


def _probe_cases():
    rng = random.Random(0)
    out = []
    for d, spec in SPECS.items():
        if spec.output_type != "generate_until":
            continue
        ks = range(1, SIZE + 1) if d == FULL else sorted(rng.sample(range(1, SIZE + 1), 4))
        out += [(d, k) for k in ks]
    return out


@pytest.mark.parametrize("dataset, k", _probe_cases(), ids=[f"{d}-p{k:03d}" for d, k in _probe_cases()])
def test_answer_probe_table(pops, dataset, k):
    spec = SPECS[dataset]
    tpl = pops[dataset][k - 1].template
    pspec = replace(spec, templates=[p.template for p in pops[dataset]])
    assert_reading_table(spec, tpl, answer_filter(pspec, tpl, reading=spec), _doc(spec))


def test_command_writes_a_reproducible_include_folder(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    for out in (a, b):
        assert (
            main(["population", "--dataset", "gold_news", "--size", "7", "--seed", "3", "--output_dir", str(out)]) == 0
        )
    files = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    assert all((a / f).read_bytes() == (b / f).read_bytes() for f in files)
    names = {f.name for f in files}
    assert "ent_gold_news__p007.yaml" in names and "_ent_gold_news_population.yaml" in names
    assert not any("__t" in n for n in names)  # never a core name
    # usage errors: one line, exit 2
    assert main(["population", "--dataset", "securenlp", "--size", "0", "--output_dir", str(a)]) == 2
    assert main(["population", "--size", "3", "--output_dir", str(a)]) == 2


def test_metadata_groups_and_core_separation():
    spec = SPECS["securenlp"]
    files = render_population(spec, population(spec, 5, SEED), SEED)
    import yaml

    group = yaml.safe_load(files["_ent_securenlp_population.yaml"])
    assert group["group"] == "ent_securenlp_population"
    assert group["task"] == [f"ent_securenlp__p00{k}" for k in range(1, 6)]
    text = files["ent_securenlp__p003.yaml"]
    meta = yaml.load(text, Loader=yaml.BaseLoader)["metadata"]  # BaseLoader: skips the !function tags
    assert meta["template_set"] == "population" and meta["variant_group"] == "ent_securenlp_population"
    assert set(meta["population_axes"]) == set(axes_of(spec, [None] * 3))
    assert meta["dataset"] == "securenlp"  # the context budget plans it with the core table (sibling_templates)


def test_too_small_a_grammar_is_one_clear_error():
    spec = SPECS["securenlp"]
    with pytest.raises(PopulationError, match="securenlp: the grammar yields only"):
        population(replace(spec, templates=spec.templates[:1]), 10_000, SEED, wordings=["a", "b", "c"])


# ------------------------------------------------------------------------------------------ through lm-eval
@pytest.fixture(scope="module")
def pop_runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("population")
    rng = random.Random(1)
    tasks = []
    for d, spec in SPECS.items():
        write_population(d, SIZE, SEED, root)
        group = spec.base_name
        ks = range(1, SIZE + 1) if d == FULL else rng.sample(range(1, SIZE + 1), 2)
        tasks += [f"{group}__p{k:03d}" for k in ks]
    tm = make_task_manager(root, data_root="embedded")
    loaded = load_tasks(tm, tasks)
    out = {}
    for name, lm in (("oracle", OracleLM), ("garbage", GarbageLM)):
        out[name] = evaluate(lm(loaded.leaves), loaded.top, task_manager=tm, log_samples=False)
    return tasks, out


def test_population_oracle_scores_one_and_garbage_fails_format(pop_runs):
    tasks, res = pop_runs
    for task in tasks:
        row, meta = res["oracle"]["results"][task], res["oracle"]["configs"][task]["metadata"]
        key = f"{meta['primary_metric']},{meta['primary_filter']}"
        assert row[key] == pytest.approx(1.0), (task, row)
        assert meta["template_set"] == "population"
        if f"format_failure,{meta['primary_filter']}" in row:
            assert row[f"format_failure,{meta['primary_filter']}"] == 0.0
            garbage = res["garbage"]["results"][task]
            assert garbage[f"format_failure,{meta['primary_filter']}"] == 1.0, task
            assert garbage[key] == 0.0, task
