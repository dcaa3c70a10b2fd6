"""Regex-constrained decoding libraries compared on SmolLM2-135M-Instruct's tokenizer (49,152 tokens).

Runs in the vLLM environment (``make install-vllm``), which ships all three candidates as vLLM dependencies:
xgrammar, outlines-core and lm-format-enforcer. For a few answer formats of our templates (as constraint regexes,
:func:`lm_eval_enterprise.harness.constrained.constraint_regex`) it measures

* ``setup``: one-time tokenizer preprocessing (xgrammar ``TokenizerInfo``, outlines-core ``Vocabulary``,
  lm-format-enforcer tokenizer data);
* ``compile``: regex → token-level automaton, per regex (no cache);
* ``step``: mean time of one decoding step (compute the allowed-token mask, check the next token is allowed,
  accept it) along the tokens of a completion that matches the format.

A library that masks a valid token of such a completion is reported as wrong for that format.

Usage: ``.venv-vllm/bin/python scripts/bench_constrained.py [--repeats 5]``. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import statistics
import time
from importlib.metadata import version

from lm_eval_enterprise.harness.constrained import constraint_regex

FORMATS = [  # (name, answer format, a completion that matches the constraint)
    ("label (3)", "(positive|neutral|negative)", " neutral"),
    ("yes/no", "(Yes|No)", " Yes"),
    (
        "entity list",
        r"(None|[^\n()]+ \((PER|ORG|LOC)\)(, [^\n()]+ \((PER|ORG|LOC)\))*)",
        " Acme Corp (ORG), John Smith (PER), Berlin (LOC)",
    ),
    ("number", r"-?[0-9]+(\.[0-9]+)?%?", " 12.5%"),
    ("free line", r"[^\n]+", " Gold prices rise as the dollar weakens"),
]


class Masked(Exception):
    pass


def xgrammar_lib(tok, vocab_size):
    import xgrammar as xgr

    info = xgr.TokenizerInfo.from_huggingface(tok, vocab_size=vocab_size)

    def run(rx, ids):
        compiler = xgr.GrammarCompiler(info, cache_enabled=False)
        t0 = time.perf_counter()
        compiled = compiler.compile_regex(rx)
        t_compile = time.perf_counter() - t0
        matcher = xgr.GrammarMatcher(compiled)
        mask = xgr.allocate_token_bitmask(1, vocab_size)
        t0 = time.perf_counter()
        for t in ids:
            matcher.fill_next_token_bitmask(mask, 0)
            if not (int(mask[0, t // 32]) >> (t % 32)) & 1:
                raise Masked(t)
            matcher.accept_token(t)
        return t_compile, (time.perf_counter() - t0) / len(ids)

    return run


def outlines_core_lib(tok, vocab_size):
    import outlines_core as oc
    import torch
    from vllm.v1.structured_output.utils import get_outlines_vocabulary  # vLLM's byte-level vocabulary builder

    vocab = get_outlines_vocabulary(tok).inner

    def run(rx, ids):
        t0 = time.perf_counter()
        index = oc.Index(rx, vocab)
        t_compile = time.perf_counter() - t0
        guide = oc.Guide(index)
        mask = torch.zeros(((vocab_size + 31) // 32,), dtype=torch.int32)
        t0 = time.perf_counter()
        for t in ids:
            guide.write_mask_into(mask.data_ptr(), mask.numel(), mask.element_size())
            if not (int(mask[t // 32]) >> (t % 32)) & 1:
                raise Masked(t)
            guide.advance(t)
        return t_compile, (time.perf_counter() - t0) / len(ids)

    return run


def lm_format_enforcer_lib(tok, vocab_size):
    from lmformatenforcer import RegexParser, TokenEnforcer, TokenEnforcerTokenizerData

    # lm-format-enforcer 0.11.3's own integrations do not import with transformers 5 / vLLM 0.32, so the
    # tokenizer data is built here the way its transformers integration does
    zero = tok.encode("0", add_special_tokens=False)[-1]
    special = set(tok.all_special_ids)
    regular = []
    for i in range(vocab_size):
        if i not in special:
            after_zero = tok.decode([zero, i])[1:]
            regular.append((i, after_zero, len(after_zero) > len(tok.decode([i]))))
    data = TokenEnforcerTokenizerData(
        regular, lambda ids: tok.decode(ids).rstrip("\ufffd"), tok.eos_token_id, False, vocab_size
    )

    def run(rx, ids):
        t0 = time.perf_counter()
        enforcer = TokenEnforcer(data, RegexParser(rx))
        t_compile = time.perf_counter() - t0
        t0 = time.perf_counter()
        for i, t in enumerate(ids):
            if not enforcer.get_allowed_tokens(ids[:i]).is_token_allowed(t):
                raise Masked(t)
        return t_compile, (time.perf_counter() - t0) / len(ids)

    return run


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args(argv)
    from transformers import AutoConfig, AutoTokenizer

    from lm_eval_enterprise.harness.models import smollm2_dir

    path = smollm2_dir()
    tok = AutoTokenizer.from_pretrained(path)
    vocab_size = AutoConfig.from_pretrained(path).vocab_size
    print("| library | version | setup (s) | format | compile (ms) | step (µs) |\n|---|---|---|---|---|---|")
    for lib, dist, factory in [
        ("xgrammar", "xgrammar", xgrammar_lib),
        ("outlines-core", "outlines_core", outlines_core_lib),
        ("lm-format-enforcer", "lm-format-enforcer", lm_format_enforcer_lib),
    ]:
        t0 = time.perf_counter()
        try:
            run = factory(tok, vocab_size)
        except Exception as exc:  # a library that cannot run here is reported, not hidden
            print(f"| {lib} | {version(dist)} | failed: {type(exc).__name__}: {str(exc)[:80]} | | | |")
            continue
        head = f"| {lib} | {version(dist)} | {time.perf_counter() - t0:.2f} |"
        for name, fmt, text in FORMATS:
            ids = tok(text, add_special_tokens=False).input_ids
            try:
                res = [run(constraint_regex(fmt), ids) for _ in range(args.repeats)]
                cells = (
                    f"{statistics.median(r[0] for r in res) * 1e3:.1f} | "
                    f"{statistics.median(r[1] for r in res) * 1e6:.0f}"
                )
            except Masked as exc:
                cells = f"WRONG: masks valid token {tok.convert_ids_to_tokens(exc.args[0])!r} of {text!r} |"
            print(f"{head} {name} | {cells} |")
            head = "| | | |"
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
