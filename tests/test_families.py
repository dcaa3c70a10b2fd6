"""The task-family registry (lm_eval_enterprise.families) and the Sharpe tool's independence from lm-eval."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lm_eval_enterprise import TASK_DIR, families
from lm_eval_enterprise.data import iter_sources
from lm_eval_enterprise.prompting.templating import all_specs
from lm_eval_enterprise.scoring import hooks
from lm_eval_enterprise.scoring.filters import READERS

PACKAGE_DIR = Path(__file__).resolve().parents[1] / "lm_eval_enterprise"


@pytest.mark.parametrize("name", list(families.FAMILIES))
def test_every_family_has_its_hooks_and_aggregations(name):
    fam = families.get(name)
    assert fam.name == name and callable(getattr(hooks, name))
    for table in (fam.metrics, fam.helm_metrics):
        for metric, (agg, hib) in table.items():
            assert agg == "mean" or callable(getattr(hooks, agg)), (name, metric)
            assert isinstance(hib, bool)
    if fam.helm_metrics:
        assert callable(getattr(hooks, f"{name}_helm"))
    assert fam.metrics[fam.primary][1] is True  # the primary metric is higher-is-better ("score")
    assert fam.reader is None or fam.reader in READERS
    assert fam.loglikelihood == (fam.output_type != "generate_until")
    assert fam.units in ("doc", "query")


def test_every_reader_of_the_registry_has_an_entry_in_the_dispatch_table():
    """The filter looks readers up in one table (reader name → function); every ``Family.reader`` the registry
    names has its function there, and the table holds no reader that no family uses."""
    named = {fam.reader for fam in families.FAMILIES.values() if fam.reader is not None}
    assert named and all(callable(READERS[name]) for name in named)
    assert set(READERS) == named


def test_unknown_family_is_one_clear_error():
    with pytest.raises(KeyError, match=r"unknown task family 'classification' \(one of classification_weighted, "):
        families.get("classification")
    assert families.find("classification") is None and families.find(None) is None


def test_loaders_and_template_tables_use_the_registry_names():
    """One name per family: a loader's task_type is a family, every table of its folder is scored as a family that
    reads the same records (ranking and its generation-based table), and the metadata carries the table's family."""
    by_id = {src.id: src for src in iter_sources()}
    assert by_id and all(src.task_type in families.FAMILIES for src in by_id.values())
    specs = all_specs(Path(TASK_DIR))
    assert specs
    for _, spec in specs:
        data_family = families.get(by_id[spec.dataset].task_type)
        assert families.get(spec.family).same_records(data_family), (spec.table_id, spec.family)
        assert spec.family == data_family.name or spec.variant, spec.table_id


def test_the_sharpe_tool_has_no_lm_eval_import_in_its_source():
    hits = [
        f"{p.name}:{i}"
        for p in sorted((PACKAGE_DIR / "sharpe").glob("*.py"))
        for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if "import lm_eval" in line or "from lm_eval" in line
    ]
    assert hits == []


def test_importing_every_sharpe_module_loads_no_lm_eval_module():
    mods = sorted(f"lm_eval_enterprise.sharpe.{p.stem}" for p in (PACKAGE_DIR / "sharpe").glob("*.py"))
    code = (
        "import importlib, json, sys\n"
        f"for m in {mods!r}: importlib.import_module(m)\n"
        "print(json.dumps(sorted(m for m in sys.modules if m == 'lm_eval' or m.startswith('lm_eval.'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []
    assert "lm_eval_enterprise.sharpe.pipeline" in mods and "lm_eval_enterprise.sharpe.estimates" in mods


def test_the_budget_finds_each_table_through_the_dataset_registry():
    """The variant YAMLs do not copy their table's other templates: the context budget finds the table from the
    variant's metadata through the dataset registry and plans over all of it, the own template first."""
    from testkit.testing import run_oracle

    res = run_oracle(["ent_sumo_claims__t2", "ent_kpi_edgar__t1", "ent_fiqa_qa_gen__t3"], "embedded")
    planned = {t: c["metadata"]["prompt_budget"]["planned_over_templates"] for t, c in res["configs"].items()}
    assert planned == {
        "ent_sumo_claims__t2": ["t2", "t1", "t3", "t4", "t5"],
        "ent_kpi_edgar__t1": ["t1", "t2", "t3", "t4", "t5"],
        "ent_fiqa_qa_gen__t3": ["t3", "t1", "t2", "t4", "t5"],  # a further table of a dataset folder
    }
    assert not [p.name for p in Path(TASK_DIR).glob("*/*/*.yaml") if "budget_templates" in p.read_text()]
