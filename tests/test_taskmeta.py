"""The task-metadata schema (lm_eval_enterprise.taskmeta): what the generator writes is what every reader reads."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
import yaml
from lm_eval.tasks._yaml_loader import load_yaml

from lm_eval_enterprise import TASK_DIR
from lm_eval_enterprise.data import get_source
from lm_eval_enterprise.prompting.population import (
    GRAMMAR_VERSION,
    PopulationError,
    population,
    population_templates,
    render_population,
)
from lm_eval_enterprise.prompting.templating import DatasetTasks, Template, all_specs, task_meta, variant_config
from lm_eval_enterprise.taskmeta import TaskMeta

SPECS = [spec for _, spec in all_specs(Path(TASK_DIR))]


class _FunctionAsText(yaml.SafeLoader):
    """YAML with lm-eval's ``!function`` tags read as plain strings."""


_FunctionAsText.add_constructor("!function", lambda loader, node: loader.construct_scalar(node))


def _variant_yaml(task: str) -> dict:
    path = next(Path(TASK_DIR).glob(f"*/*/{task}.yaml"))
    return load_yaml(path, resolve_func=False)


@pytest.mark.parametrize("spec", SPECS, ids=[s.table_id for s in SPECS])
def test_every_generated_variant_reads_back_as_written(spec):
    for tpl in spec.templates:
        meta = _variant_yaml(f"{spec.base_name}__{tpl.id}")["metadata"]
        tm = TaskMeta.from_metadata(meta)
        assert tm == task_meta(spec, tpl)  # the checked-in YAML holds what the schema writes
        assert tm.to_metadata() == meta and list(tm.to_metadata()) == list(meta)  # keys and their order
        assert tm.is_variant and (tm.variant_group, tm.template_id) == (spec.base_name, tpl.id)
        assert (tm.dataset, tm.loader_dataset, tm.domain) == (spec.table_id, spec.dataset, spec.domain)
        assert tm.task_family == spec.family and tm.questions == tuple(spec.questions)


def test_results_of_the_previous_schema_read_the_same():
    """Results written before the schema (with ``budget_templates`` copied into every variant) read the same
    values; the retired key is dropped, nothing else changes name."""
    spec = next(s for s in SPECS if s.dataset == "kpi_edgar")
    new = variant_config(spec, spec.templates[0])["metadata"]
    old = {**new, "budget_templates": [{"id": "t2", "description": "", "doc_to_text": "{{text}}"}]}
    old |= {"data_root": "/data", "prompt_budget": {"prompts": 3}}  # facts of the run, as lm-eval writes them
    tm = TaskMeta.from_metadata(old)
    assert tm == replace(TaskMeta.from_metadata(new), extra={**tm.extra})
    assert "budget_templates" not in tm.extra and tm.extra["data_root"] == "/data"


def test_missing_and_foreign_metadata():
    assert TaskMeta.from_metadata(None) == TaskMeta() and not TaskMeta().is_variant
    assert not TaskMeta.from_metadata({"template_id": "t1"}).is_variant  # a hand-written task
    tm = TaskMeta.from_metadata({"variant_group": "g", "template_id": 3, "candidates_per_query": "20"})
    assert tm.is_variant and tm.template_id == "3" and tm.candidates_per_query == 20
    assert tm.dataset is None and tm.template_set == "core" and tm.primary_filter is None


def test_from_config_reads_lm_eval_task_configs_and_results_entries():
    """lm-eval's ``TaskConfig`` is a ``dict`` subclass holding its fields as attributes (``.get`` finds nothing):
    the metadata must come from the attribute."""
    from lm_eval.config.task import TaskConfig

    meta = {"variant_group": "ent_x", "template_id": "t2", "primary_metric": "accuracy"}
    cfg = TaskConfig(task="ent_x__t2", metadata=meta)
    assert cfg.get("metadata") is None  # why from_config reads the attribute first
    assert TaskMeta.from_config(cfg) == TaskMeta.from_config({"metadata": meta}) == TaskMeta.from_metadata(meta)
    assert TaskMeta.from_config(cfg).primary_metric == "accuracy"


def test_extra_metadata_cannot_overwrite_the_schema():
    spec = next(s for s in SPECS if s.dataset == "securenlp")
    bad = replace(spec, extra_metadata={"context_truncate_field": "text"})
    with pytest.raises(ValueError, match=r"securenlp: extra metadata \['context_truncate_field'\]"):
        variant_config(bad, bad.templates[0])


def test_a_table_takes_dataset_domain_and_family_from_its_source():
    src = type(get_source("securenlp"))
    kw = dict(primary_metric="binary_f1", templates=[Template("t1", "Text: {{text}}\nAnswer:")], num_fewshot=0)
    spec = DatasetTasks(source=src, **kw)
    assert (spec.dataset, spec.domain, spec.family) == ("securenlp", "cyber", src.task_type)
    assert DatasetTasks(source=src, family="classification_weighted", **kw).family == "classification_weighted"
    with pytest.raises(ValueError, match="states domain='finance', its source SecureNLP 'cyber'"):
        DatasetTasks(source=src, domain="finance", **kw)
    with pytest.raises(ValueError, match="no domain, family"):
        DatasetTasks(dataset="x", **kw)
    for spec in SPECS:  # every table of the package names its source
        assert spec.source is not None and spec.source.id == spec.dataset, spec.table_id


def test_a_population_variant_is_planned_over_its_population():
    spec = next(s for s in SPECS if s.dataset == "securenlp")
    pop = population(spec, 4, 0)
    files = render_population(spec, pop, 0)
    meta = yaml.load(files["ent_securenlp__p002.yaml"], Loader=_FunctionAsText)["metadata"]
    tm = TaskMeta.from_metadata(meta)
    assert tm.template_set == "population" and tm.population == {"seed": 0, "size": 4, "grammar_version": 1}
    assert tm.to_metadata() == meta and not tm.template_axes
    assert population_templates(tm) == tuple(p.template for p in pop)
    stale = replace(tm, population={**tm.population, "grammar_version": GRAMMAR_VERSION + 1})
    with pytest.raises(PopulationError, match="written by grammar version 2, this version composes version 1"):
        population_templates(stale)
    assert population_templates(replace(tm, population=None)) is None
