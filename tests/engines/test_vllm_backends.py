"""The tasks on the engines users scale on, checked against the ``hf`` backend on the same documents.

One session runs SmolLM2-135M-Instruct (fp32, greedy) on the embedded fixture data through

* ``hf`` (the reference), ``vllm`` (in-process engine) and ``local-completions`` (a ``vllm serve`` the session
  starts on 127.0.0.1 and stops by its own PID) on two datasets × 5 templates: ``ent_gold_news``
  (generation, yes/no) and ``ent_insurance_qa`` (log-likelihood ranking, prompt log-probs over HTTP);
* ``hf`` with the chat template and ``local-chat-completions`` on the generation-based ranking variants
  ``ent_insurance_qa_gen`` (what chat-only backends run);
* the constrained wrappers: ``hf-constrained`` and ``vllm-constrained`` as twins of the loaded ``hf`` model and
  vLLM engine (:func:`~lm_eval_enterprise.harness.constrained.constrained_twin`), ``local-completions-constrained`` by
  its registered name, as a user runs it.

Each model is loaded once per session and each run made once (session fixtures; engine_support.py). Checked per
document: the prompt, the raw and the parsed answer and every per-document metric item are equal; log-likelihoods
agree within :data:`LL_ATOL` (fp32 kernels of two engines; the ranking scores are recomputed from them); every
aggregated score is equal. Every tolerated difference is named where it is allowed.
"""

from __future__ import annotations

import json
import math
import re

import pytest
from engine_support import MAX_MODEL_LEN, MEASURED, SERVED_NAME, by_doc, evaluate, timed

pytest_plugins = ["engine_support"]  # the session fixtures (smollm2, task_manager, server, hf_lm, vllm_lm), once

pytest.importorskip("vllm", reason="vLLM is not installed: run `make test-vllm` (own environment)")
pytestmark = pytest.mark.vllm

GEN_TASK = "ent_gold_news"  # 5 templates, generate_until (yes/no questions about a headline)
LL_TASK = "ent_insurance_qa"  # 5 templates, loglikelihood (multiple_choice over No/Yes)
CHAT_TASK = "ent_insurance_qa_gen"  # 5 templates, generate_until; what chat-only backends run
LIMIT = 2  # documents per template
# fp32 on two engines (PyTorch eager vs vLLM's CPU kernels, different summation order): measured max |Δ| of a
# continuation log-prob here was ~2e-5 (in-process) and the same over HTTP; 1e-3 leaves room and is still far below
# the gaps that decide a ranking in these documents (checked: every ranking item is compared below).
LL_ATOL = 1e-3


@pytest.fixture(scope="session")
def hf_runs(hf_lm, task_manager):
    """The reference runs, made once: plain (generation + log-likelihood), chat template, constrained."""
    from lm_eval_enterprise.harness.constrained import constrained_twin

    return {
        "hf": timed("hf", lambda: evaluate(hf_lm, [GEN_TASK, LL_TASK], task_manager, LIMIT)),
        "hf_chat": timed(
            "hf_chat",
            lambda: evaluate(
                hf_lm, [CHAT_TASK], task_manager, LIMIT, apply_chat_template=True, fewshot_as_multiturn=True
            ),
        ),
        "hf_constrained": timed(
            "hf_constrained", lambda: evaluate(constrained_twin(hf_lm), [GEN_TASK], task_manager, LIMIT)
        ),
    }


@pytest.fixture(scope="session")
def vllm_runs(vllm_lm, task_manager):
    from lm_eval_enterprise.harness.constrained import constrained_twin

    return {
        "vllm": timed("vllm", lambda: evaluate(vllm_lm, [GEN_TASK, LL_TASK], task_manager, LIMIT)),
        "vllm_constrained": timed(
            "vllm_constrained", lambda: evaluate(constrained_twin(vllm_lm), [GEN_TASK], task_manager, LIMIT)
        ),
    }


@pytest.fixture(scope="session")
def server_runs(server, smollm2, task_manager):
    server.wait_ready()
    comp_args = (
        f"model={SERVED_NAME},base_url={server.base}/v1/completions,tokenizer={smollm2},"
        f"tokenizer_backend=huggingface,max_length={MAX_MODEL_LEN},batch_size=8,max_retries=1"
    )
    chat_args = (
        f"model={SERVED_NAME},base_url={server.base}/v1/chat/completions,tokenizer={smollm2},"
        "tokenizer_backend=huggingface,num_concurrent=1,max_retries=1"
    )
    return {
        "completions": timed(
            "completions", lambda: evaluate("local-completions", [GEN_TASK, LL_TASK], task_manager, LIMIT, comp_args)
        ),
        "completions_constrained": timed(
            "completions_constrained",
            lambda: evaluate("local-completions-constrained", [GEN_TASK], task_manager, LIMIT, comp_args),
        ),
        "chat": timed(
            "chat",
            lambda: evaluate(
                "local-chat-completions",
                [CHAT_TASK],
                task_manager,
                LIMIT,
                chat_args,
                apply_chat_template=True,
                fewshot_as_multiturn=True,
            ),
        ),
    }


def _variants(res, group):
    return sorted(t for t in res["samples"] if t.startswith(group + "__t"))


def _num_close(a, b, atol):
    return isinstance(a, (int, float)) and isinstance(b, (int, float)) and math.isclose(a, b, abs_tol=atol)


def _same(a, b, atol=0.0) -> bool:
    """Structural equality with an absolute tolerance on floats (log-likelihoods and scores derived from them)."""
    if isinstance(a, float) or isinstance(b, float):
        return _num_close(a, b, atol) if atol else a == b
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y, atol) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k], atol) for k in a)
    return a == b


def _compare(ref, other, tasks, atol=0.0, prompt_of=None) -> list[str]:
    """Differences between two runs on the same documents: prompt, raw and parsed answer, every per-document
    metric item and every aggregated metric."""
    diffs = []
    for task in tasks:
        r, o = by_doc(ref, task), by_doc(other, task)
        if r.keys() != o.keys():
            diffs.append(f"{task}: documents {sorted(r)} vs {sorted(o)}")
            continue
        metrics = [m for m in ref["results"][task] if "," in m and "_stderr" not in m]
        for d in r:
            rp = [list(a) for a in r[d]["arguments"]]
            op = [prompt_of(a) if prompt_of else list(a) for a in o[d]["arguments"]]
            if not _same(rp, op):
                diffs.append(f"{task}#{d}: prompt differs")
            if not _same(r[d]["resps"], o[d]["resps"], atol):
                diffs.append(f"{task}#{d}: response {r[d]['resps']} vs {o[d]['resps']}")
            if not _same(r[d]["filtered_resps"], o[d]["filtered_resps"], atol):
                diffs.append(f"{task}#{d}: parsed {r[d]['filtered_resps']} vs {o[d]['filtered_resps']}")
            for m in {m.split(",")[0] for m in metrics}:
                if not _same(r[d].get(m), o[d].get(m), atol):
                    diffs.append(f"{task}#{d}: {m} item {r[d].get(m)} vs {o[d].get(m)}")
        for m in metrics:
            if not _same(ref["results"][task][m], other["results"][task][m], atol):
                diffs.append(f"{task}: {m} {ref['results'][task][m]} vs {other['results'][task][m]}")
    return diffs


def _without_regex(args):
    """One request's arguments of a constrained run minus the constraint the wrapper added."""
    return [args[0], {k: v for k, v in args[1].items() if k != "constrain_regex"}]


def _max_ll_delta(ref, other) -> float:
    """Largest |Δ log-likelihood| between two runs over every continuation of the log-likelihood task."""
    deltas = [0.0]
    for task in _variants(ref, LL_TASK):
        r, o = by_doc(ref, task), by_doc(other, task)
        for d in r:
            for (rl, _), (ol, _) in zip((x[0] for x in r[d]["resps"]), (x[0] for x in o[d]["resps"])):
                deltas.append(abs(rl - ol))
    return max(deltas)


def test_vllm_matches_hf(hf_runs, vllm_runs):  # hf first: the reference runs before the engine starts
    runs = {**hf_runs, **vllm_runs}
    tasks = _variants(runs["hf"], GEN_TASK) + _variants(runs["hf"], LL_TASK)
    assert len(tasks) == 10
    MEASURED["max |Δ log-likelihood| vllm vs hf"] = f"{_max_ll_delta(runs['hf'], runs['vllm']):.2e}"
    assert _compare(runs["hf"], runs["vllm"], tasks, atol=LL_ATOL) == []


def test_local_completions_matches_hf(hf_runs, server_runs):
    runs = {**hf_runs, **server_runs}
    tasks = _variants(runs["hf"], GEN_TASK) + _variants(runs["hf"], LL_TASK)
    MEASURED["max |Δ log-likelihood| local-completions vs hf"] = f"{_max_ll_delta(runs['hf'], runs['completions']):.2e}"
    assert _compare(runs["hf"], runs["completions"], tasks, atol=LL_ATOL) == []


def test_local_chat_completions_matches_hf_chat_template(hf_runs, server_runs, smollm2):
    from transformers import AutoTokenizer

    runs = {**hf_runs, **server_runs}
    tok = AutoTokenizer.from_pretrained(smollm2)

    def rendered(args):
        # the chat backend logs the message list (JsonChatStr, a 1-tuple once logged); the server renders it with
        # the model's chat template, which is what hf --apply_chat_template logs as its prompt
        chat = args[0][0] if isinstance(args[0], tuple) else args[0]
        messages = json.loads(chat)
        return [tok.apply_chat_template(messages, tokenize=False, add_generation_prompt=True), args[1]]

    tasks = _variants(runs["hf_chat"], CHAT_TASK)
    assert len(tasks) == 5
    assert _compare(runs["hf_chat"], runs["chat"], tasks, prompt_of=rendered) == []


def test_constrained_runs_agree_and_follow_the_format(hf_runs, vllm_runs, server_runs):
    """The same regex on three engines gives the same completions, each fully inside the format."""
    from lm_eval_enterprise.harness.constrained import CONSTRAINED, decoding_mode

    runs = {**hf_runs, **vllm_runs, **server_runs}
    tasks = _variants(runs["hf_constrained"], GEN_TASK)
    assert len(tasks) == 5
    # the labels: twins of loaded backends (hf, vllm) and a wrapper run by its registered name (server)
    engines = {"hf_constrained": "xgrammar ", "vllm_constrained": "vllm ", "completions_constrained": "OpenAI"}
    assert runs["completions_constrained"]["config"]["model"] == "local-completions-constrained"
    for name, engine in engines.items():
        res = runs[name]
        assert decoding_mode(res) == CONSTRAINED and res["config"]["constraint_engine"].startswith(engine)
        for task in tasks:
            for s in res["samples"][task]:
                regex = s["arguments"][0][1]["constrain_regex"]
                assert re.fullmatch(regex, s["resps"][0][0]), (name, task, s["resps"], regex)
    assert _compare(runs["hf_constrained"], runs["vllm_constrained"], tasks) == []
    assert _compare(runs["hf_constrained"], runs["completions_constrained"], tasks) == []
    # same prompts as the unconstrained run: only the decoding differs
    for task in tasks:
        for d, s in by_doc(runs["hf_constrained"], task).items():
            assert [_without_regex(a) for a in s["arguments"]] == [
                list(a) for a in by_doc(runs["hf"], task)[d]["arguments"]
            ]
    assert decoding_mode(runs["hf"]) == "unconstrained"


def test_server_structured_outputs_field(server):
    """Over HTTP the regex goes in ``structured_outputs``; the old ``guided_regex`` field is ignored."""
    server.wait_ready()
    body = {
        "model": SERVED_NAME,
        "prompt": "Is gold a metal? Reply in one word.\nAnswer:",
        "max_tokens": 8,
        "temperature": 0,
    }
    forced = server.post("/v1/completions", {**body, "structured_outputs": {"regex": "( )?(MAYBE)"}})
    assert forced["choices"][0]["text"] in (" MAYBE", "MAYBE")
    ignored = server.post("/v1/completions", {**body, "guided_regex": "( )?(MAYBE)"})
    assert "MAYBE" not in ignored["choices"][0]["text"]
