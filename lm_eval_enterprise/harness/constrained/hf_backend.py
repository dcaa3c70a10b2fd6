"""``hf-constrained``: lm-eval's ``hf`` backend with each generate request constrained by its template's answer
format (see :mod:`lm_eval_enterprise.harness.constrained`), through an xgrammar logits processor.

Why xgrammar (``scripts/bench_constrained.py``, SmolLM2 tokenizer, README "Scaling out"): it is vLLM's default
structured-output engine, so ``hf-constrained`` and ``vllm-constrained`` apply the same automaton; it compiled our
label formats in 0.5–3.5 ms and needed 15–70 µs per decoding step (a model step is ~40 ms here); outlines-core
0.2.14 masked valid tokens of two of our formats, and lm-format-enforcer 0.11.3 took ~0.5 s per step on open
formats and its transformers integration does not import with transformers 5. xgrammar depends on triton (~1 GB),
so it is not in the default environment: it comes with the vLLM environment (``make install-vllm``) or
``pip install xgrammar``.
"""

from __future__ import annotations

from importlib.metadata import version

from lm_eval.models.huggingface import HFLM
from transformers import LogitsProcessor, LogitsProcessorList

from . import GEN_KWARG, ConstraintError, add_constraints, run_label


def _xgrammar():
    try:
        import xgrammar
    except ImportError:
        raise ConstraintError(
            "hf-constrained needs xgrammar: use the vLLM environment (make install-vllm) or pip install xgrammar"
        ) from None
    return xgrammar


class RegexLogitsProcessor(LogitsProcessor):
    """Masks, per batch row, every token that cannot continue the compiled regex (xgrammar matchers).

    ``generate`` keeps calling the processor for rows it has finished (a stop sequence matched) and appends
    padding to them; such a row's next token is not accepted by the grammar, and the row is released (no mask)
    instead of failing the batch. One instance serves one ``generate`` call.
    """

    def __init__(self, compiled, batch_size: int, vocab_size: int):
        xgr = _xgrammar()
        self._xgr = xgr
        self.matchers = [xgr.GrammarMatcher(compiled) for _ in range(batch_size)]
        self.live = [True] * batch_size
        self.bitmask = xgr.allocate_token_bitmask(batch_size, vocab_size)
        self.started = False

    def __call__(self, input_ids, scores):
        for i, matcher in enumerate(self.matchers):
            if self.started and self.live[i] and not matcher.is_terminated():
                self.live[i] = matcher.accept_token(int(input_ids[i, -1]))
            if self.live[i] and not matcher.is_terminated():
                matcher.fill_next_token_bitmask(self.bitmask, i)
            else:
                self.bitmask[i].fill_(-1)  # every token allowed: generate pads this row anyway
        self.started = True
        device = scores.device
        scores = scores.to("cpu") if device.type not in ("cpu", "cuda") else scores
        self._xgr.apply_token_bitmask_inplace(scores, self.bitmask.to(scores.device))
        return scores.to(device)


class HFConstrained(HFLM):
    """``--model hf-constrained`` (same model_args as ``hf``)."""

    _compiler = None

    def generate_until(self, requests, disable_tqdm: bool = False):
        add_constraints(requests)
        return super().generate_until(requests, disable_tqdm=disable_tqdm)

    def _vocab_size(self) -> int:
        return int(self.model.get_output_embeddings().weight.shape[0])

    def _compile(self, regex: str):
        if self._compiler is None:
            xgr = _xgrammar()
            info = xgr.TokenizerInfo.from_huggingface(self.tokenizer, vocab_size=self._vocab_size())
            self._compiler = xgr.GrammarCompiler(info)  # caches compiled regexes
        return self._compiler.compile_regex(regex)

    def _model_generate(self, context, max_length, stop, **generation_kwargs):
        regex = generation_kwargs.pop(GEN_KWARG, None)
        if regex is not None:
            processors = list(generation_kwargs.pop("logits_processor", None) or [])
            processors.append(RegexLogitsProcessor(self._compile(regex), context.shape[0], self._vocab_size()))
            generation_kwargs["logits_processor"] = LogitsProcessorList(processors)
        return super()._model_generate(context, max_length, stop, **generation_kwargs)

    def get_model_info(self) -> dict:
        return {**super().get_model_info(), **run_label(f"xgrammar {version('xgrammar')} logits processor")}
