"""The hf constraint, step by step on SmolLM2's tokenizer (no model): which tokens the xgrammar logits
processor leaves open, and how it lets go of a row that ``generate`` has already finished."""

import pytest
import torch

pytest_plugins = ["engine_support"]  # the session fixtures (smollm2)

pytest.importorskip("xgrammar", reason="xgrammar comes with the vLLM environment: run `make test-vllm`")
pytestmark = pytest.mark.vllm


@pytest.fixture(scope="module")
def setup(smollm2):
    import xgrammar as xgr
    from transformers import AutoTokenizer

    from lm_eval_enterprise.harness.constrained import constraint_regex

    tok = AutoTokenizer.from_pretrained(smollm2)
    vocab = 49152
    info = xgr.TokenizerInfo.from_huggingface(tok, vocab_size=vocab)
    compiled = xgr.GrammarCompiler(info).compile_regex(constraint_regex("(Yes|No)"))
    return tok, vocab, compiled


def _allowed(scores_row):
    return set(torch.nonzero(scores_row > -1e30).flatten().tolist())


def test_mask_follows_the_format(setup):
    from lm_eval_enterprise.harness.constrained.hf_backend import RegexLogitsProcessor

    tok, vocab, compiled = setup
    yes, no, space = (tok.convert_tokens_to_ids(t) for t in ("ĠYes", "ĠNo", "Ġ"))
    proc = RegexLogitsProcessor(compiled, batch_size=2, vocab_size=vocab)
    prompt = torch.tensor([[10, 11], [10, 11]])
    first = _allowed(proc(prompt, torch.zeros(2, vocab))[0])
    # " Yes" / " No" as one token, "Y…"/"N…" pieces, or the bare space first; never e.g. " Maybe" or EOS
    assert {yes, no, space} <= first
    assert tok.convert_tokens_to_ids("ĠMaybe") not in first and tok.eos_token_id not in first
    assert all(
        tok.decode([t]).strip() == ""
        or "Yes".startswith(tok.decode([t]).strip())
        or "No".startswith(tok.decode([t]).strip())
        for t in first
    )
    # row 0 took " Yes": the format is complete, only the end of sequence is left
    second = proc(torch.tensor([[10, 11, yes], [10, 11, space]]), torch.zeros(2, vocab))
    assert _allowed(second[0]) == {tok.eos_token_id}
    assert tok.convert_tokens_to_ids("No") in _allowed(second[1]) and yes not in _allowed(second[1])


def test_finished_row_is_released_not_failed(setup):
    from lm_eval_enterprise.harness.constrained.hf_backend import RegexLogitsProcessor

    tok, vocab, compiled = setup
    proc = RegexLogitsProcessor(compiled, batch_size=1, vocab_size=vocab)
    proc(torch.tensor([[10]]), torch.zeros(1, vocab))
    # generate pads a row it finished on a stop sequence; the pad token is outside the format → row released
    pad = tok.convert_tokens_to_ids("ĠMaybe")
    out = proc(torch.tensor([[10, pad]]), torch.zeros(1, vocab))
    assert proc.live == [False] and len(_allowed(out[0])) == vocab
