"""Context-budget few-shot sampler (lm_eval_enterprise.prompt_budget): pure planning + real lm-eval runs.

The lm-eval runs use a throw-away task folder in tmp_path (its own custom_dataset in utils.py) and a fake
backend that records the prompts, so they check exactly what a vLLM/OpenAI server would receive.
"""
import json
import textwrap

import lm_eval
import pytest
from lm_eval.api.model import LM
from lm_eval.tasks import TaskManager, get_task_dict

from lm_eval_enterprise import prompt_budget as PB
from lm_eval_enterprise.testing import leaf_tasks


# ------------------------------------------------------------------------------------------------ pure parts
def test_fit_prefix_drops_trailing_shots_only():
    # fixed 100 + shots 30, 50, 20 ; budget 180 → 100+30+50 = 180 fits, +20 does not
    assert PB.fit_prefix(100, [30, 50, 20], 180) == 2
    assert PB.fit_prefix(100, [30, 50, 20], 200) == 3
    # a short trailing shot is NOT used to fill the gap left by a long one (HELM drops from the end)
    assert PB.fit_prefix(100, [30, 90, 5], 180) == 1
    assert PB.fit_prefix(190, [1], 180) == 0
    assert PB.fit_prefix(10 ** 6, [1, 2], None) == 2


def test_truncate_words_keeps_the_beginning():
    text = "one two three four five six"
    assert PB.truncate_words_to_fit(text, lambda t: len(t) <= 13) == "one two three"
    assert PB.truncate_words_to_fit(text, lambda t: True) == text
    assert PB.truncate_words_to_fit(text, lambda t: len(t) <= 2) == ""


def test_char_estimate_is_ceiling_and_conservative():
    c = PB.TokenCounter(chars_per_token=3.0)
    assert (c(""), c("ab"), c("abc"), c("abcd")) == (0, 1, 1, 2)
    assert c.describe() == "chars/3" and c.special_tokens == 1
    with pytest.raises(ValueError):
        PB.TokenCounter(chars_per_token=0)


def test_settings_from_metadata():
    s = PB.BudgetSettings.from_metadata({})
    assert s.max_context_tokens == 2048 and s.counter.chars_per_token == 3.0 and s.truncate_field == "text"
    s = PB.BudgetSettings.from_metadata({"max_context_tokens": "512", "context_chars_per_token": 4,
                                         "context_truncate_field": "document"})
    assert (s.max_context_tokens, s.counter.chars_per_token, s.truncate_field) == (512, 4.0, "document")
    assert PB.BudgetSettings.from_metadata({"max_context_tokens": 0}).max_context_tokens is None
    assert PB.BudgetSettings.from_metadata({"max_context_tokens": None}).max_context_tokens is None


def test_exact_counts_with_a_local_tokenizer(tiny_model_dir):
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(tiny_model_dir)
    c = PB.TokenCounter(str(tiny_model_dir))
    text = "Net sales were $ 1,482 million."
    assert c(text) == len(tok(text, add_special_tokens=False)["input_ids"])
    assert c.describe() == f"tokenizer:{tiny_model_dir}"


def test_sampler_outside_a_task_is_first_n():
    s = PB.BudgetFewshotSampler([{"x": i} for i in range(5)], rnd=None)
    assert s.task is None
    assert s.sample(3) == [{"x": 0}, {"x": 1}, {"x": 2}]


# ------------------------------------------------------------------------------------------------ lm-eval runs
UTILS = '''
import datasets

def load(**kwargs):
    pool = [{"id": f"s{i}", "text": " ".join(f"w{i}{j}" for j in range(10)), "label": f"L{i}"} for i in range(6)]
    test = [{"id": "t0", "text": "short query", "label": "L0"},
            {"id": "t1", "text": " ".join(f"long{j}" for j in range(400)), "label": "L1"}]
    return datasets.DatasetDict({"fewshot": datasets.Dataset.from_list(pool),
                                 "test": datasets.Dataset.from_list(test)})

def process_results(doc, results):
    return {"exact_match": float(results[0].strip() == doc["label"])}
'''


def _task_yaml(name, sampler, num_fewshot=5, fewshot_split="fewshot"):
    return textwrap.dedent(f"""\
        task: {name}
        custom_dataset: !function utils.load
        fewshot_split: {fewshot_split}
        test_split: test
        fewshot_config:
          sampler: {sampler}
        num_fewshot: {num_fewshot}
        output_type: generate_until
        description: "Label the text.\\n\\n"
        doc_to_text: "Text: {{{{text}}}}\\nLabel:"
        doc_to_target: "{{{{label}}}}"
        generation_kwargs:
          until: ["\\n"]
          max_gen_toks: 10
          do_sample: false
        process_results: !function utils.process_results
        metric_list:
          - {{metric: exact_match, aggregation: mean, higher_is_better: true}}
          - {{metric: shots_used, aggregation: mean, higher_is_better: true}}
          - {{metric: prompt_cut, aggregation: mean, higher_is_better: false}}
        metadata: {{version: 1.0}}
        """)


class RecordingLM(LM):
    """A backend stand-in: records every prompt, answers with a constant."""

    def __init__(self):
        super().__init__()
        self.prompts = []

    def generate_until(self, requests, disable_tqdm=False):
        self.prompts += [r.args[0] for r in requests]
        return [" L0" for _ in requests]

    def loglikelihood(self, requests, disable_tqdm=False):
        raise NotImplementedError

    def loglikelihood_rolling(self, requests, disable_tqdm=False):
        raise NotImplementedError


@pytest.fixture()
def task_dir(tmp_path):
    (tmp_path / "utils.py").write_text(UTILS)
    budget = "!function lm_eval_enterprise.prompt_budget.BudgetFewshotSampler"
    (tmp_path / "budget.yaml").write_text(_task_yaml("pb_budget", budget))
    (tmp_path / "firstn.yaml").write_text(_task_yaml("pb_firstn", "first_n"))
    (tmp_path / "budget_test_pool.yaml").write_text(
        _task_yaml("pb_budget_testpool", budget, num_fewshot=1, fewshot_split="test"))
    return tmp_path


def _run(task_dir, tasks, **metadata):
    tm = TaskManager(include_path=str(task_dir), include_defaults=False, metadata=metadata)
    lm = RecordingLM()
    res = lm_eval.simple_evaluate(model=lm, tasks=tasks, task_manager=tm, log_samples=True, bootstrap_iters=0)
    return res, lm


def test_everything_fits_gives_first_n_prompts_byte_for_byte(task_dir):
    res, _ = _run(task_dir, ["pb_budget", "pb_firstn"], max_context_tokens=100000)
    a = [s["arguments"][0][0] for s in res["samples"]["pb_budget"]]
    b = [s["arguments"][0][0] for s in res["samples"]["pb_firstn"]]
    assert a == b and a[0].count("Label:") == 6  # 5 shots + the query
    row = res["results"]["pb_budget"]
    assert row["shots_used,none"] == 5.0 and row["prompt_cut,none"] == 0.0
    meta = res["configs"]["pb_budget"]["metadata"]["prompt_budget"]
    assert meta["prompts"] == 2 and meta["prompts_cut"] == 0 and meta["min_shots_used"] == 5


def test_budget_drops_trailing_shots_then_truncates_the_document(task_dir):
    # chars/3: description "Label the text.\n\n" 17 chars = 6 tok; each shot "Text: w00 … w09\nLabel: L0\n\n"
    # 57 chars = 19 tok; short query "Text: short query\nLabel:" 24 chars = 8 tok; + 10 gen + 1 special.
    # budget 77: fixed 25 + 2 shots (38) = 63 fits, a third shot (82) does not
    res, lm = _run(task_dir, ["pb_budget"], max_context_tokens=77)
    samples = {s["doc"]["id"]: s for s in res["samples"]["pb_budget"]}
    short = samples["t0"]["arguments"][0][0]
    assert short.count("Label:") == 3 and "w0" in short and "w1" in short and "w2" not in short
    assert samples["t0"]["shots_used"] == 2.0 and samples["t0"]["prompt_cut"] == 1.0
    # the 400-word query does not fit even alone: 0 shots, text cut from the right, the end cue kept
    long_prompt = samples["t1"]["arguments"][0][0]
    assert "w0" not in long_prompt and long_prompt.startswith("Label the text.\n\nText: long0 long1 ")
    assert long_prompt.endswith("\nLabel:") and "long399" not in long_prompt
    assert len(long_prompt) / 3 + 1 + 10 <= 77
    assert samples["t1"]["shots_used"] == 0.0
    # the logged doc (and so doc_hash, the pairing key across templates) is the untruncated original
    assert len(samples["t1"]["doc"]["text"].split()) == 400
    row = res["results"]["pb_budget"]
    assert row["shots_used,none"] == 1.0 and row["prompt_cut,none"] == 1.0
    meta = res["configs"]["pb_budget"]["metadata"]["prompt_budget"]
    assert meta == {"max_context_tokens": 77, "token_counter": "chars/3", "max_gen_toks": 10,
                    "shots_requested": 5, "prompts": 2, "prompts_cut": 2, "prompts_truncated": 1,
                    "prompts_over_plan": 0, "planned_over_templates": ["own"],
                    "min_shots_used": 0, "mean_shots_used": 1.0}
    assert lm.prompts == [s["arguments"][0][0] for s in res["samples"]["pb_budget"]]


def test_gen_kwargs_override_is_part_of_the_budget(task_dir):
    tm = TaskManager(include_path=str(task_dir), include_defaults=False, metadata={"max_context_tokens": 77})
    res = lm_eval.simple_evaluate(model=RecordingLM(), tasks=["pb_budget"], task_manager=tm, log_samples=True,
                                  bootstrap_iters=0, gen_kwargs="max_gen_toks=31")
    by_id = {s["doc"]["id"]: s for s in res["samples"]["pb_budget"]}
    assert by_id["t0"]["shots_used"] == 1.0  # 21 more generation tokens: fixed 46 + 19 fits, + 38 does not
    assert res["configs"]["pb_budget"]["metadata"]["prompt_budget"]["max_gen_toks"] == 31


def test_eval_doc_is_excluded_when_shots_come_from_the_test_split(task_dir):
    res, _ = _run(task_dir, ["pb_budget_testpool"], max_context_tokens=100000)
    by_id = {s["doc"]["id"]: s["arguments"][0][0] for s in res["samples"]["pb_budget_testpool"]}
    # t0's shot is t1 and t1's shot is t0 (first_n over the test split minus the eval doc)
    assert by_id["t0"].count("short query") == 1 and by_id["t0"].count("long0 ") == 1
    assert by_id["t1"].count("short query") == 1 and by_id["t1"].count("long0 ") == 1


def test_wired_into_generated_yamls():
    from pathlib import Path

    from lm_eval_enterprise import TASK_DIR

    for ds in ("kpi_edgar", "credit_risk_ner", "finer139"):
        base = next(Path(TASK_DIR).glob(f"*/{ds}/_{ds}_template_yaml")).read_text()
        assert "sampler: !function 'lm_eval_enterprise.prompt_budget.BudgetFewshotSampler'" in base, ds
        assert "metric: shots_used" in base and "metric: prompt_cut" in base, ds


def test_budget_constants_match_the_sampler():
    assert PB.BUDGET_SAMPLER == f"{PB.__name__}.{PB.BudgetFewshotSampler.__name__}"
    assert set(PB.BUDGET_METRICS) == set(PB.REPORT_METRICS)
    assert json.dumps(PB.BUDGET_METRICS)  # plain data (goes into the generated YAML)


def test_chat_template_prompts_are_budgeted_as_rendered(task_dir, tmp_path_factory):
    from lm_eval_enterprise.models import build_tiny_model

    chat_model = build_tiny_model(tmp_path_factory.mktemp("tiny-chat"), chat=True)
    tm = TaskManager(include_path=str(task_dir), include_defaults=False, metadata={"max_context_tokens": 120})
    res = lm_eval.simple_evaluate(model="hf", model_args=f"pretrained={chat_model},dtype=float32", device="cpu",
                                  tasks=["pb_budget"], task_manager=tm, log_samples=True, bootstrap_iters=0,
                                  apply_chat_template=True, gen_kwargs="max_gen_toks=2")
    for s in res["samples"]["pb_budget"]:
        prompt = s["arguments"][0][0]
        assert "<|user|>" in prompt                                  # the chat markup is part of what is counted
        assert PB.TokenCounter()(prompt) + 1 + 2 <= 120              # + special token + max_gen_toks (CLI)
    by_id = {s["doc"]["id"]: s for s in res["samples"]["pb_budget"]}
    assert by_id["t0"]["shots_used"] == 2.0 and by_id["t0"]["arguments"][0][0].count("<|assistant|>") == 3
    assert by_id["t1"]["shots_used"] == 0.0 and "long399" not in by_id["t1"]["arguments"][0][0]


def test_templating_renders_the_sampler_only_when_asked():
    from lm_eval_enterprise.templating import DatasetTasks, Template, base_config

    plain = DatasetTasks(dataset="x", domain="finance", family="entity", primary_metric="entity_f1",
                         templates=[Template("t1", "{{text}}")], num_fewshot=2)
    assert base_config(plain)["fewshot_config"] == {"sampler": "first_n"}
    assert not {"shots_used", "prompt_cut"} & {m["metric"] for m in base_config(plain)["metric_list"]}
    budget = DatasetTasks(dataset="x", domain="finance", family="entity", primary_metric="entity_f1",
                          templates=[Template("t1", "{{text}}")], num_fewshot=2,
                          fewshot_sampler=PB.BUDGET_SAMPLER, extra_metrics=dict(PB.BUDGET_METRICS))
    cfg = base_config(budget)
    assert str(cfg["fewshot_config"]["sampler"]) == PB.BUDGET_SAMPLER
    assert [m["metric"] for m in cfg["metric_list"]][-2:] == ["shots_used", "prompt_cut"]
    assert [m["aggregation"] for m in cfg["metric_list"]][-2:] == ["mean", "mean"]


def test_rebuilding_a_prompt_replaces_its_record(task_dir):
    tm = TaskManager(include_path=str(task_dir), include_defaults=False, metadata={"max_context_tokens": 77})
    task = leaf_tasks(get_task_dict(["pb_budget"], tm))["pb_budget"]
    doc = task.test_docs()[0]
    for _ in range(2):  # e.g. --write_out builds the first prompt twice
        task.fewshot_context(doc, num_fewshot=5)
    meta = task.config.metadata["prompt_budget"]
    assert (meta["prompts"], meta["prompts_cut"], meta["min_shots_used"], meta["mean_shots_used"]) == (1, 1, 2, 2.0)
    out = task.process_results(doc, [" L0"])
    assert out == {"exact_match": 1.0, "shots_used": 2.0, "prompt_cut": 1.0}


# ------------------------------------------------------------------------------------------------ template independence
def test_pathological_template_drops_shots_as_last_resort_and_reports_it(task_dir, caplog):
    # the plan is made from the task's own parts; a chat markup longer than chat_overhead_tokens=0 is only
    # seen in the assembled prompt → shots dropped beyond the plan, counted in prompt_cut and the summary
    from lm_eval_enterprise.models import build_tiny_model

    chat_model = build_tiny_model(task_dir / "tiny-chat", chat=True)
    tm = TaskManager(include_path=str(task_dir), include_defaults=False,
                     metadata={"max_context_tokens": 120, "chat_overhead_tokens": 0})
    res = lm_eval.simple_evaluate(model="hf", model_args=f"pretrained={chat_model},dtype=float32", device="cpu",
                                  tasks=["pb_budget"], task_manager=tm, log_samples=True, bootstrap_iters=0,
                                  apply_chat_template=True, gen_kwargs="max_gen_toks=2")
    meta = res["configs"]["pb_budget"]["metadata"]["prompt_budget"]
    assert meta["prompts_over_plan"] >= 1 and meta["prompts_cut"] == 2
    assert "beyond the template-independent plan" in caplog.text
    for s in res["samples"]["pb_budget"]:
        assert PB.TokenCounter()(s["arguments"][0][0]) + 1 + 2 <= 120


def _real_template_runs(dataset, data_root, limit):
    from lm_eval_enterprise import TASK_DIR

    tm = TaskManager(include_path=TASK_DIR, include_defaults=False, metadata={"data_root": data_root})
    names = [f"ent_{dataset}__t{i}" for i in range(1, 6)]
    res = lm_eval.simple_evaluate(model=RecordingLM(), tasks=names, task_manager=tm, log_samples=True,
                                  bootstrap_iters=0, limit=limit)
    return names, res


@pytest.mark.parametrize("dataset", ["kpi_edgar", "credit_risk_ner"])
def test_shots_used_is_identical_across_templates_on_the_real_sample(dataset):
    from conftest import SHARED_DATA, shared_sample

    shared_sample(dataset)  # skips when the real sample is absent
    names, res = _real_template_runs(dataset, str(SHARED_DATA), limit=40)
    per_template = {n: {s["doc_hash"]: s["shots_used"] for s in res["samples"][n]} for n in names}
    reference = per_template[names[0]]
    assert len(reference) == 40
    for n in names:
        assert per_template[n] == reference, n                      # same documents, same shots, every doc
        meta = res["configs"][n]["metadata"]["prompt_budget"]
        assert meta["prompts_over_plan"] == 0, n                    # no template needed the last resort
        assert meta["planned_over_templates"][0] == res["configs"][n]["metadata"]["template_id"]
        assert sorted(meta["planned_over_templates"]) == ["t1", "t2", "t3", "t4", "t5"]
    # the budget really binds on these samples (else the test would prove nothing)
    assert min(reference.values()) < 20
    for s in res["samples"][names[0]]:  # and every prompt of every template fits the default budget
        assert all(PB.TokenCounter()(x["arguments"][0][0]) + 1 + 100 <= 2048
                   for n in names for x in res["samples"][n] if x["doc_hash"] == s["doc_hash"])


def test_sibling_templates_of_a_generated_task_and_of_a_plain_task(task_dir):
    from conftest import SHARED_DATA, shared_sample

    from lm_eval_enterprise import TASK_DIR

    shared_sample("kpi_edgar")
    tm = TaskManager(include_path=TASK_DIR, include_defaults=False, metadata={"data_root": str(SHARED_DATA)})
    task = leaf_tasks(get_task_dict(["ent_kpi_edgar__t3"], tm))["ent_kpi_edgar__t3"]
    sib = PB.sibling_templates(task)
    assert [t.id for t in sib] == ["t3", "t1", "t2", "t4", "t5"]
    assert sib[0].doc_to_text == task.config.doc_to_text and sib[0].description == (task.config.description or "")
    plain = leaf_tasks(get_task_dict(["pb_budget"], TaskManager(include_path=str(task_dir),
                                                                include_defaults=False)))["pb_budget"]
    assert [t.id for t in PB.sibling_templates(plain)] == ["own"]
