"""templating: several template tables in one dataset folder (TASKS as a list; extra tables set `variant`).

Used by the ranking datasets (log-probability table + generation-based table). Checks names, files, metadata,
the domain group membership and that the checked-in YAMLs of those datasets are current.
"""

import sys
import types
from pathlib import Path

import pytest
import yaml

from lm_eval_enterprise import TASK_DIR
from lm_eval_enterprise.prompting.templating import (
    DatasetTasks,
    Template,
    all_specs,
    generate,
    load_spec,
    load_specs,
    render,
)

ROOT = Path(TASK_DIR)
TPL = [Template("t1", doc_to_text="Q: {{question}}\nA:")]


def _spec(**kw):
    base = dict(
        dataset="toy",
        domain="finance",
        family="ranking_generate",
        primary_metric="rr_at_10",
        templates=TPL,
        num_fewshot=0,
    )
    return DatasetTasks(**{**base, **kw})


def test_variant_table_names_files_and_metadata():
    main, gen = _spec(), _spec(variant="gen", in_domain_group=False)
    assert (main.table_id, main.base_name) == ("toy", "ent_toy")
    assert (gen.table_id, gen.base_name, gen.task_names()) == ("toy_gen", "ent_toy_gen", ["ent_toy_gen__t1"])
    files = render(gen)
    assert set(files) == {"_toy_gen_template_yaml", "ent_toy_gen__t1.yaml", "_ent_toy_gen.yaml"}
    base = yaml.safe_load(files["_toy_gen_template_yaml"].split("\n", 1)[1].replace("!function ", ""))
    assert base["dataset_kwargs"] == {"dataset_id": "toy"}  # same loader as the main table
    variant = yaml.safe_load(files["ent_toy_gen__t1.yaml"].split("\n", 1)[1].replace("!function ", ""))
    assert variant["include"] == "_toy_gen_template_yaml"
    assert variant["metadata"]["dataset"] == "toy_gen" and variant["metadata"]["source_dataset"] == "toy"
    assert variant["metadata"]["variant_group"] == "ent_toy_gen"
    assert not set(render(main)) & set(files)  # the two tables never share a file
    assert (
        "source_dataset"
        not in yaml.safe_load(render(main)["ent_toy__t1.yaml"].split("\n", 1)[1].replace("!function ", ""))["metadata"]
    )


@pytest.fixture
def fake_dataset(monkeypatch):
    """Register a templates module lm_eval_enterprise.tasks.finance.fake_ds.templates with a given TASKS."""

    def make(tasks):
        mod = types.ModuleType("lm_eval_enterprise.tasks.finance.fake_ds.templates")
        mod.TASKS = tasks
        monkeypatch.setitem(sys.modules, mod.__name__, mod)
        return "fake_ds"

    return make


def test_load_specs_accepts_one_table_or_a_list(fake_dataset):
    one = _spec()
    name = fake_dataset(one)
    assert load_specs(ROOT, "finance", name) == [one] and load_spec(ROOT, "finance", name) is one
    two = [_spec(), _spec(variant="gen")]
    name = fake_dataset(two)
    assert load_specs(ROOT, "finance", name) == two and load_spec(ROOT, "finance", name) is two[0]
    name = fake_dataset([_spec(), _spec()])  # same table id twice → refused
    with pytest.raises(ValueError, match="distinct tables"):
        load_specs(ROOT, "finance", name)
    name = fake_dataset([])
    with pytest.raises(ValueError, match="non-empty"):
        load_specs(ROOT, "finance", name)


def test_ranking_datasets_have_two_tables_and_only_the_logprob_one_is_in_the_domain_group():
    specs = {s.base_name: s for _, s in all_specs(ROOT)}
    for ds in ("fiqa_qa", "insurance_qa"):
        main, gen = specs[f"ent_{ds}"], specs[f"ent_{ds}_gen"]
        assert (main.output_type, main.family, main.in_domain_group) == ("multiple_choice", "ranking", True)
        assert (gen.output_type, gen.family, gen.in_domain_group) == ("generate_until", "ranking_generate", False)
        assert [t.id for t in main.templates] == [t.id for t in gen.templates] == ["t1", "t2", "t3", "t4", "t5"]
        assert all(t.choices == ("No", "Yes") for t in main.templates)  # index 0 = No
    files = generate(ROOT, write=False)
    finance = yaml.safe_load(files[ROOT / "finance" / "_enterprise_finance.yaml"].split("\n", 1)[1])
    assert {"ent_fiqa_qa", "ent_insurance_qa"} <= set(finance["task"])
    assert not {"ent_fiqa_qa_gen", "ent_insurance_qa_gen"} & set(finance["task"])


@pytest.mark.parametrize("dataset", ["fiqa_qa", "insurance_qa"])
def test_checked_in_yamls_are_current(dataset):
    folder = ROOT / "finance" / dataset
    expected = {
        folder / name: text for spec in load_specs(ROOT, "finance", dataset) for name, text in render(spec).items()
    }
    stale = [p.name for p, text in expected.items() if not p.exists() or p.read_text() != text]
    assert not stale, f"regenerate with `make tasks`: {stale}"
    on_disk = {p for p in folder.iterdir() if p.suffix == ".yaml" or p.name.endswith("_template_yaml")}
    assert on_disk == set(expected)
