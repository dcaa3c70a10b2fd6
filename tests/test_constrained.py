"""Regex-constrained decoding, the parts that need no engine: the decoder dialect, per-document constraints,
the request rewriting of the wrappers, the server payload, run labels and registration.

The engines themselves (xgrammar on hf, vLLM in-process and over HTTP) are tested in tests/engines
(``make test-vllm``).
"""

import re
from pathlib import Path

import pytest
import yaml

from lm_eval_enterprise import TASK_DIR
from lm_eval_enterprise.harness.constrained import (
    CONSTRAINED,
    GEN_KWARG,
    MODELS,
    UNCONSTRAINED,
    ConstraintError,
    _render_fallback,
    add_constraints,
    constraint_regex,
    decoder_regex,
    decoding_mode,
    register_models,
    request_constraint,
    task_format,
)

# pattern → its decoder form, worked out by hand from the rules in decoder_regex's docstring
CASES = [
    (r"(?i)^(yes|no)\b", "([yY][eE][sS]|[nN][oO])"),
    (r"(?s)^(.*)$", r"([\s\S]*)"),
    (r"a.b", r"a[^\n]b"),
    (r"\d+(?:\.\d+)?%?", r"[0-9]+(\.[0-9]+)?%?"),
    (
        r"^\W*(?:Technique:\s*)?(\w.*?)\W*$",
        r"[^0-9A-Za-z_]*(Technique:[ \t\n\r\f\v]*)?([0-9A-Za-z_][^\n]*)[^0-9A-Za-z_]*",
    ),
    (r"(?i)[a-c]x", "[a-cA-C][xX]"),
    (r"x{2}y{2,}z{1,3}", "x{2}y{2,}z{1,3}"),
    (r"\(A\)|B\.", r"(\(A\)|B\.)"),
    (r"[^()\n]+ \((PER|ORG)\)", r"[^()\n]+ \((PER|ORG)\)"),
    (r"(?:ab)+", "(ab)+"),
    (r"[\D]", "[^0-9]"),
    ("tab\t!", r"tab\t!"),
]


@pytest.mark.parametrize("pattern,expected", CASES)
def test_decoder_regex(pattern, expected):
    assert decoder_regex(pattern) == expected


# the decoder form accepts exactly the strings the original pattern matches in full (Python semantics)
LANGUAGE = [
    (r"(?i)^(yes|no)\b", ["yes", "No", "YES", "yes!", "nope", " yes", "maybe"]),
    (r"(?s)^\W*(positive|negative)\W*$", ["positive", "**negative**", "'positive'.", "positive\n", "neutral"]),
    (r"^\(?([A-E])\)?$", ["A", "(B)", "C)", "(F)", "AB"]),
    (r"-?\d+(?:\.\d+)?", ["12", "-3.5", "1.", "x1"]),
]


@pytest.mark.parametrize("pattern,texts", LANGUAGE)
def test_decoder_regex_keeps_the_language(pattern, texts):
    dec = decoder_regex(pattern)
    for text in texts:
        assert bool(re.fullmatch(dec, text)) == bool(re.fullmatch(pattern, text)), (pattern, text)


@pytest.mark.parametrize(
    "pattern,what",
    [
        (r"(?=yes)yes", "lookaround"),
        (r"(A)(?![a-z])", "negative lookaround"),
        (r"(?<!x)y", "negative lookaround"),
        (r"(a)\1", "backreference"),
        (r"a^b", "anchor"),
        (r"a\bb", "anchor"),
        (r"[\W_]", "negated class"),
        (r"(unclosed", "not a valid regex"),
    ],
)
def test_decoder_regex_rejects_what_decoders_cannot_do(pattern, what):
    with pytest.raises(ConstraintError, match=re.escape(what)) as err:
        decoder_regex(pattern)
    assert "\n" not in str(err.value) and repr(pattern) in str(err.value)


def test_constraint_regex_allows_one_leading_space():
    rx = constraint_regex(r"(?i)^(yes|no)\b")
    assert rx == "( )?(([yY][eE][sS]|[nN][oO]))"
    assert [bool(re.fullmatch(rx, t)) for t in ["Yes", " Yes", "  Yes", " Yes.", "\nYes"]] == [
        True,
        True,
        False,
        False,
        False,
    ]
    # a [PARSE] format that already starts with an optional space is used as it is (never two spaces)
    assert constraint_regex(" ?([Yy]es|[Nn]o)") == " ?([Yy]es|[Nn]o)"


def test_labels_placeholder_fallback():
    doc = {"label_names": ["iot", "non-iot"]}
    assert _render_fallback(r"^{LABELS}$", doc) == r"^(?:non\-iot|iot)$"
    assert _render_fallback(r"(Yes|No)", {}) == "(Yes|No)"  # nothing to fill
    with pytest.raises(ConstraintError, match="label_names"):
        _render_fallback(r"{LABELS}", {})


def _yaml_regex(task):
    path = next(Path(TASK_DIR).glob(f"*/*/{task}.yaml"))
    text = path.read_text().replace("!function", "")
    return yaml.safe_load(text)["metadata"]["answer_regex"]


def test_task_format_reads_the_task_yaml():
    for task in ["ent_gold_news__t1", "ent_fiqa_sa__t4", "ent_insurance_qa_gen__t2"]:
        assert task_format(task) == _yaml_regex(task)
    with pytest.raises(ConstraintError, match="ent_fiqa_qa__t1"):
        task_format("ent_fiqa_qa__t1")  # a log-likelihood task has no answer format
    with pytest.raises(ConstraintError, match="no_such_task"):
        task_format("no_such_task")


def _instance(task, doc, gen_kwargs):
    from lm_eval.api.instance import Instance

    return Instance(
        request_type="generate_until", doc=doc, arguments=("prompt", gen_kwargs), idx=0, metadata=(task, 0, 1)
    )


def test_add_constraints_rewrites_each_request():
    shared = {"until": ["\n"], "max_gen_toks": 5}  # lm-eval hands every request of a task the same dict
    reqs = [
        _instance("ent_gold_news__t1", {"label_names": ["Yes", "No"]}, shared),
        _instance("ent_fiqa_sa__t2", {"label_names": ["positive", "neutral", "negative"]}, shared),
    ]
    add_constraints(reqs)
    assert shared == {"until": ["\n"], "max_gen_toks": 5}
    for req in reqs:
        ctx, kwargs = req.arguments
        assert ctx == "prompt" and kwargs["until"] == ["\n"]
        assert kwargs[GEN_KWARG] == request_constraint(req.task_name, req.doc)
        assert kwargs[GEN_KWARG] == constraint_regex(_yaml_regex(req.task_name))
    before = [r.arguments for r in reqs]
    add_constraints(reqs)  # idempotent
    assert [r.arguments for r in reqs] == before


def test_gold_answers_pass_their_constraint():
    """Constraining must never make the correct answer impossible: for every generate task variant, the gold
    target (as generated: after one space) fully matches the document's constraint. Formats the decoders cannot
    express are listed and must fail with the one-line reason (lookaround / inner anchor)."""
    from lm_eval_enterprise.prompting.templating import all_specs
    from testkit.testing import build_tasks

    specs = [s for _, s in all_specs(Path(TASK_DIR)) if s.output_type == "generate_until"]
    _, tasks = build_tasks([s.base_name for s in specs], "embedded")
    assert len(tasks) >= 100
    checked, unsupported = 0, []
    for name, task in sorted(tasks.items()):
        for doc in list(task.eval_docs)[:2]:
            try:
                rx = request_constraint(name, doc)
            except ConstraintError as exc:
                assert re.search(r"lookaround|anchor", str(exc)), exc
                unsupported.append(name)
                break
            target = str(task.doc_to_target(doc))
            assert re.fullmatch(rx, " " + target), (name, target, rx)
            checked += 1
    assert checked >= 150
    print(
        f"\n{checked} gold answers pass; formats not expressible for decoders: {len(unsupported)} "
        f"variants {sorted({n.rsplit('__', 1)[0] for n in unsupported})}"
    )


def test_decoding_mode_labels():
    assert decoding_mode({"config": {"model": "hf", "model_args": "pretrained=x"}}) == UNCONSTRAINED
    assert decoding_mode({"config": {"model": "vllm-constrained", "decoding": CONSTRAINED}}) == CONSTRAINED
    with pytest.raises(ConstraintError, match="decoding"):
        decoding_mode({"config": {"model": "hf-constrained"}})


def test_register_models_keeps_lm_eval_builtins():
    from lm_eval.api.registry import get_model, model_registry

    register_models()
    register_models()  # idempotent
    for name in MODELS:
        assert name in model_registry
    assert get_model("hf").__name__ == "HFLM"
    assert get_model("local-completions-constrained").__name__ == "LocalCompletionsConstrained"


def test_server_payload_carries_structured_outputs():
    from lm_eval_enterprise.harness.constrained.api_backend import (
        LocalChatCompletionsConstrained,
        LocalCompletionsConstrained,
    )

    comp = object.__new__(LocalCompletionsConstrained)
    comp.model, comp._max_gen_toks = "m", 256
    gen = {"until": ["\n"], "max_gen_toks": 5, "do_sample": False, "temperature": 0.0, GEN_KWARG: "( )?(Yes|No)"}
    payload = comp._create_payload([1, 2, 3], generate=True, gen_kwargs=gen, seed=7, eos="</s>")
    assert payload == {
        "prompt": [1, 2, 3],
        "model": "m",
        "max_tokens": 5,
        "temperature": 0.0,
        "stop": ["\n", "</s>"],
        "seed": 7,
        "structured_outputs": {"regex": "( )?(Yes|No)"},
    }
    assert GEN_KWARG in gen  # the caller's dict is not consumed
    unconstrained = {k: v for k, v in gen.items() if k != GEN_KWARG}
    assert "structured_outputs" not in comp._create_payload([1], generate=True, gen_kwargs=unconstrained, eos="</s>")
    # log-likelihood requests are never constrained
    assert "structured_outputs" not in comp._create_payload([1], generate=False)

    chat = object.__new__(LocalChatCompletionsConstrained)
    chat.model, chat._max_gen_toks = "m", 256
    payload = chat._create_payload(
        [{"role": "user", "content": "q"}], generate=True, gen_kwargs=dict(gen), seed=7, eos="</s>"
    )
    assert payload["structured_outputs"] == {"regex": "( )?(Yes|No)"} and GEN_KWARG not in payload
    assert payload["messages"] == [{"role": "user", "content": "q"}] and payload["stop"] == ["\n", "</s>"]


def test_constrained_twin_shares_the_loaded_backend():
    from lm_eval.models.openai_completions import LocalCompletionsAPI

    from lm_eval_enterprise.harness.constrained import constrained_twin
    from lm_eval_enterprise.harness.constrained.api_backend import LocalCompletionsConstrained

    plain = object.__new__(LocalCompletionsAPI)
    plain.model, plain._max_gen_toks, plain.tokenizer = "m", 256, object()
    twin = constrained_twin(plain)
    assert type(twin) is LocalCompletionsConstrained and type(plain) is LocalCompletionsAPI
    assert twin.tokenizer is plain.tokenizer and twin.model == "m"  # shared state, not a reload
    twin.model = "other"  # a shallow copy: own attributes
    assert plain.model == "m"
    gen = {"until": ["\n"], "max_gen_toks": 5, GEN_KWARG: "( )?(Yes|No)"}
    assert twin._create_payload([1], generate=True, gen_kwargs=gen, eos="</s>")["structured_outputs"] == {
        "regex": "( )?(Yes|No)"
    }
    assert twin.get_model_info()["decoding"] == CONSTRAINED
    with pytest.raises(ConstraintError, match="no constrained wrapper for .*LocalCompletionsConstrained"):
        constrained_twin(twin)  # already constrained: exactly the four plain lm-eval classes are accepted
    with pytest.raises(ConstraintError, match="builtins:object"):
        constrained_twin(object())


def test_hf_constrained_names_its_missing_dependency():
    pytest.importorskip("transformers")
    from importlib.util import find_spec

    if find_spec("xgrammar") is not None:
        pytest.skip("xgrammar installed (vLLM environment): tests/engines covers hf-constrained")
    from lm_eval_enterprise.harness.constrained.hf_backend import _xgrammar

    with pytest.raises(ConstraintError, match="make install-vllm"):
        _xgrammar()
