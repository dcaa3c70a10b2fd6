"""Regex-constrained decoding with every answer format of every dataset (the [PARSE] formats as rendered for each
document), on the engines that apply it: xgrammar (``hf-constrained``) and vLLM structured outputs
(``vllm-constrained``, ``local-completions-constrained``).

1. xgrammar, compiled exactly as ``hf-constrained`` compiles it (SmolLM2's tokenizer, the model's vocabulary): for
   every evaluation document of every generate variant of the embedded data, the request's constraint compiles;
   the gold answer as a model emits it (one space, then the target, in SmolLM2's own tokens) is accepted token by
   token and may end there (a constraint never makes the right answer impossible); and xgrammar and Python's
   ``re`` agree on probe strings around it (0-2 leading spaces, a second line, trailing words, garbage).
2. vLLM structured outputs, on the session's in-process engine: every distinct constraint in one batch, prompted
   with the zero-shot question of a document that has it. A closed format (its longest match has n characters)
   gets n + 1 tokens and must finish inside them, fully matching (a token holds at least one character, so even
   a character-by-character spelling fits); an open format gets :data:`MAX_TOKENS` and either finishes, fully
   matching, or is cut there as a prefix of a match (partial matching of the ``regex`` package).
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import pytest
from engine_support import MEASURED, timed

pytest_plugins = ["engine_support"]  # the session fixtures (smollm2, vllm_lm: the engine test_vllm_backends uses)

xgr = pytest.importorskip("xgrammar", reason="xgrammar comes with the vLLM environment: run `make test-vllm`")
pytestmark = pytest.mark.vllm

NAMED = {"iotspotter", "casehold", "cti_to_mitre", "convfinqa"}  # formats once reported as problems: must be here
MAX_TOKENS = 24  # per vLLM output of an open format (checked as a prefix when cut)
CLOSED_MAX = 200  # a format whose longest match has at most this many characters counts as closed
PROMPT_CHARS = 400  # tail of the zero-shot question used as the vLLM prompt


@dataclass(frozen=True)
class Case:
    task: str
    dataset: str
    regex: str  # the request constraint (what every backend receives)
    gold: str  # the document's target
    prompt: str


@pytest.fixture(scope="module")
def cases() -> tuple[list[Case], set[str]]:
    """One case per evaluation document of every generate variant; and every dataset that has such variants."""
    from lm_eval_enterprise import TASK_DIR
    from lm_eval_enterprise.harness.constrained import request_constraint
    from lm_eval_enterprise.prompting.templating import all_specs
    from testkit.testing import build_tasks

    specs = [s for _, s in all_specs(Path(TASK_DIR)) if s.output_type == "generate_until"]
    _, tasks = build_tasks([s.base_name for s in specs], "embedded")
    out = []
    for name, task in sorted(tasks.items()):
        for doc in task.eval_docs:
            out.append(
                Case(
                    name,
                    task.config.dataset_kwargs["dataset_id"],
                    request_constraint(name, doc),
                    str(task.doc_to_target(doc)),
                    task.doc_to_text(doc)[-PROMPT_CHARS:],
                )
            )
    return out, {s.dataset for s in specs}


@pytest.fixture(scope="module")
def tokenizer(smollm2):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(smollm2)


@pytest.fixture(scope="module")
def compiler(tokenizer, smollm2):
    """As ``HFConstrained._compile``: the tokenizer with the model's vocabulary size (its output embeddings)."""
    from transformers import AutoConfig

    vocab = AutoConfig.from_pretrained(smollm2).vocab_size
    return xgr.GrammarCompiler(xgr.TokenizerInfo.from_huggingface(tokenizer, vocab_size=vocab))


def test_cases_cover_every_dataset(cases):
    found, datasets = cases
    assert {c.dataset for c in found} == datasets and NAMED <= datasets
    assert len(found) > 1000


def test_xgrammar_accepts_every_gold_answer_in_the_models_tokens(cases, compiler, tokenizer):
    found, _ = cases
    eos = tokenizer.eos_token_id
    failures = []
    for c in {(c.regex, c.gold): c for c in found}.values():
        matcher = xgr.GrammarMatcher(compiler.compile_regex(c.regex))
        ids = tokenizer(" " + c.gold, add_special_tokens=False).input_ids
        ok = all(matcher.accept_token(t) for t in ids) and matcher.accept_token(eos) and matcher.is_terminated()
        if not ok:
            failures.append(f"{c.task}: {c.gold!r} in {tokenizer.convert_ids_to_tokens(ids)[:8]} vs {c.regex!r}")
    assert failures == []


def _probes(gold: str) -> list[str]:
    return [
        gold,
        " " + gold,
        "  " + gold,
        "\n" + gold,
        " " + gold + "\nAnswer: more",
        " " + gold + " and more",
        " " + gold + ".",
        " #### ????",
        "",
    ]


def test_xgrammar_and_python_agree_on_the_language(cases, compiler, tokenizer):
    found, _ = cases
    eos = tokenizer.eos_token_id
    disagreements, checked = [], 0
    for c in {(c.regex, c.gold): c for c in found}.values():
        compiled = compiler.compile_regex(c.regex)
        for text in _probes(c.gold):
            matcher = xgr.GrammarMatcher(compiled)
            xg = matcher.accept_string(text) and matcher.accept_token(eos)
            if xg != bool(re.fullmatch(c.regex, text)):
                disagreements.append(f"{c.task}: {text!r} xgrammar={xg} vs {c.regex!r}")
            checked += 1
    MEASURED["format probes xgrammar = re"] = str(checked)
    assert disagreements == []


def test_vllm_structured_outputs_keep_every_format(cases, vllm_lm):
    """Every distinct constraint through the in-process engine (the path of ``vllm-constrained``; the server's
    ``structured_outputs`` field reaches the same code, see test_vllm_backends)."""
    import regex as partial_re
    from vllm import SamplingParams
    from vllm.sampling_params import StructuredOutputsParams

    found, _ = cases
    first: dict[str, Case] = {}
    datasets = defaultdict(set)
    for c in found:
        first.setdefault(c.regex, c)
        datasets[c.regex].add(c.dataset)
    chosen = list(first.values())
    widths = {c.regex: _closed_width(c.regex) for c in chosen}  # None: open format
    params = [
        SamplingParams(
            temperature=0.0,
            max_tokens=MAX_TOKENS if widths[c.regex] is None else widths[c.regex] + 1,
            structured_outputs=StructuredOutputsParams(regex=c.regex),
        )
        for c in chosen
    ]
    outputs = timed("vllm_formats", lambda: vllm_lm.model.generate([c.prompt for c in chosen], params, use_tqdm=False))
    problems, finished = [], 0
    for c, out in zip(chosen, outputs):
        text, reason = out.outputs[0].text, out.outputs[0].finish_reason
        if reason == "stop":
            finished += 1
            ok = re.fullmatch(c.regex, text) is not None
        else:  # only an open format may be cut
            ok = (
                widths[c.regex] is None
                and reason == "length"
                and partial_re.fullmatch(c.regex, text, partial=True) is not None
            )
        if not ok:
            problems.append(f"{c.task} ({reason}, {len(out.outputs[0].token_ids)} tokens): {text!r} vs {c.regex!r}")
    MEASURED["vllm formats: distinct / closed / finished"] = (
        f"{len(chosen)} / {sum(w is not None for w in widths.values())} / {finished}"
    )
    assert problems == []
    assert set().union(*datasets.values()) >= NAMED
    assert any(w is not None for w in widths.values()) and any(w is None for w in widths.values())


def _closed_width(regex: str) -> int | None:
    """Length of the longest string ``regex`` matches when at most :data:`CLOSED_MAX`, else None (open)."""
    try:
        from re import _parser as sre_parse  # Python 3.11+
    except ImportError:
        import sre_parse
    hi = sre_parse.parse(regex).getwidth()[1]
    return hi if hi <= CLOSED_MAX else None


def test_closed_width():
    assert _closed_width(" ?([Yy]es|[Nn]o)") == 4 and _closed_width(" ?[A-E]") == 2
    assert _closed_width(" ?(Technique: )?(ab|c)") == 14 and _closed_width(" ?[a-z]{0,199}") == 200
    assert _closed_width(" ?[a-z]{0,200}") is None
    assert _closed_width(" ?[^ \\n]*x") is None and _closed_width(" ?a( [^ ]+){0,14}") is None
