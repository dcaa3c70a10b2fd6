"""``vllm-constrained``: lm-eval's ``vllm`` backend with each generate request constrained by its template's
answer format (see :mod:`lm_eval_enterprise.harness.constrained`) through vLLM structured outputs
(``SamplingParams(structured_outputs=StructuredOutputsParams(regex=...))``; engine chosen by vLLM's
``structured_outputs_config``, default ``auto`` = xgrammar for our regexes).
"""

from __future__ import annotations

from importlib.metadata import version

from lm_eval.models.vllm_causallms import VLLM
from vllm.sampling_params import StructuredOutputsParams

from . import GEN_KWARG, add_constraints, run_label


class VLLMConstrained(VLLM):
    """``--model vllm-constrained`` (same model_args as ``vllm``)."""

    def generate_until(self, requests, disable_tqdm: bool = False):
        add_constraints(requests)
        return super().generate_until(requests, disable_tqdm=disable_tqdm)

    def modify_gen_kwargs(self, gen_kwargs, eos=None, default_max_gen_toks: int = 256):
        gen_kwargs = dict(gen_kwargs)
        regex = gen_kwargs.pop(GEN_KWARG, None)
        kwargs, until, max_gen_toks = VLLM.modify_gen_kwargs(
            gen_kwargs, eos=eos, default_max_gen_toks=default_max_gen_toks
        )
        if regex is not None:
            # a plain dict here (lm-eval hashes these kwargs as JSON for its request cache); made a
            # StructuredOutputsParams in _model_generate
            kwargs["structured_outputs"] = {"regex": regex}
        return kwargs, until, max_gen_toks

    def _model_generate(self, requests, generate: bool = False, sampling_params=None):
        if generate and sampling_params is not None:
            for sp in sampling_params if isinstance(sampling_params, list) else [sampling_params]:
                if isinstance(sp.structured_outputs, dict):
                    sp.structured_outputs = StructuredOutputsParams(**sp.structured_outputs)
        return super()._model_generate(requests, generate=generate, sampling_params=sampling_params)

    def get_model_info(self) -> dict:
        backend = "auto"
        if self.data_parallel_size <= 1:
            backend = self.model.llm_engine.vllm_config.structured_outputs_config.backend
        return run_label(f"vllm {version('vllm')} structured_outputs (backend {backend})")
