"""The task class of every generated YAML (lm_eval_enterprise.harness.task.EnterpriseTask) against lm-eval's own
ConfigurableTask built from the same YAML: when everything fits, prompts, targets and choices are byte-identical
for every variant of every dataset (the budget and the cached rendering change nothing)."""

import pytest
from lm_eval.api.task import ConfigurableTask
from lm_eval.tasks import TaskManager
from lm_eval.tasks._yaml_loader import load_yaml

from lm_eval_enterprise import TASK_DIR
from lm_eval_enterprise.harness.runner import load_tasks
from lm_eval_enterprise.harness.task import EnterpriseTask
from lm_eval_enterprise.prompting import speedups

GROUPS = ["enterprise", "ent_fiqa_qa_gen", "ent_insurance_qa_gen"]  # every variant (the _gen tables stand alone)
DOCS_PER_VARIANT = 2


def _plain_twin(task) -> ConfigurableTask:
    """lm-eval's ConfigurableTask from the same YAML and run metadata, without our ``class:``."""
    cfg = load_yaml(task.config.metadata["config_source"], resolve_func=True)
    cfg.pop("class")
    cfg["metadata"] = {**cfg.get("metadata", {}), "data_root": "embedded"}
    return ConfigurableTask(config=cfg)


@pytest.fixture(scope="module")
def enterprise_tasks():
    tm = TaskManager(
        include_path=TASK_DIR, include_defaults=False, metadata={"data_root": "embedded", "max_context_tokens": 10**6}
    )
    return load_tasks(tm, GROUPS).leaves


def test_every_variant_uses_the_class(enterprise_tasks):
    n_variant_files = len(list(__import__("pathlib").Path(TASK_DIR).glob("*/*/ent_*__t*.yaml")))
    assert len(enterprise_tasks) == n_variant_files >= 135  # 25 datasets × 5, plus the _gen tables
    assert all(type(t) is EnterpriseTask for t in enterprise_tasks.values())


def test_prompts_are_byte_identical_to_lm_eval_first_n(enterprise_tasks):
    assert speedups.enabled()  # the cached renderer is what is compared (lm-eval 0.4.13, Jinja 3.1)
    checked = 0
    for name, task in sorted(enterprise_tasks.items()):
        twin = _plain_twin(task)
        n = task.config.num_fewshot
        pool = list(twin.sampler.df)
        for doc in list(task.eval_docs)[:DOCS_PER_VARIANT]:
            if "question_id" in doc:  # gold_news: lm-eval's first_n over the document's own question's pool
                twin.sampler = type(twin.sampler)([s for s in pool if s["question_id"] == doc["question_id"]])
            ours, theirs = task.fewshot_context(doc, n), twin.fewshot_context(doc, n)
            assert ours == theirs, name
            assert task.doc_to_target(doc) == twin.doc_to_target(doc), name
            if task.config.doc_to_choice is not None:
                assert task.doc_to_choice(doc) == twin.doc_to_choice(doc), name
            assert task.budget.outcome(doc).shots_used == n, name
            checked += 1
    assert checked >= 2 * 135


def test_rendering_falls_back_to_lm_eval_when_switched_off(enterprise_tasks, monkeypatch):
    task = enterprise_tasks["ent_cti_to_mitre__t1"]  # a Jinja for-loop over the choices
    doc = task.eval_docs[0]
    fast = task.doc_to_text(doc)
    monkeypatch.setenv(speedups.ENV_SWITCH, "0")
    speedups.enabled.cache_clear()
    try:
        assert not speedups.enabled() and task.doc_to_text(doc) == fast
    finally:
        monkeypatch.undo()
        speedups.enabled.cache_clear()


def test_data_facts_are_in_the_metadata(enterprise_tasks):
    meta = enterprise_tasks["ent_finer139__t1"].config.metadata
    assert len(meta["top_k_types"]) == 10 and len(meta["top_k_xbrl"]) == 10  # finer139's Source.task_metadata


def test_evaluation_documents_are_read_once_and_shot_renderings_kept(enterprise_tasks):
    """lm-eval meets the same evaluation documents when it builds the requests and when it scores them (read from
    the dataset once, in its order); a few-shot example's rendering is kept for the next prompt that shows it, an
    evaluation document's is not."""
    task = enterprise_tasks["ent_tram__t2"]
    docs = task.eval_docs
    assert docs is task.eval_docs and docs == list(super(EnterpriseTask, task).eval_docs)
    first = task.fewshot_context(docs[0], task.config.num_fewshot)
    kept = dict(task._shot_texts)
    assert kept and all(task._is_shot(shot) for shot in task.sampler.df) and not task._is_shot(docs[0])
    assert task.fewshot_context(docs[0], task.config.num_fewshot) == first and task._shot_texts == kept
    assert not any(key[0] == id(docs[0]) for key in kept)
