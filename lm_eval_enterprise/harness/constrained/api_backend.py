"""``local-completions-constrained`` / ``local-chat-completions-constrained``: lm-eval's OpenAI-compatible
backends with each generate request constrained by its template's answer format (see
:mod:`lm_eval_enterprise.harness.constrained`): the request body gets ``"structured_outputs": {"regex": ...}`` (vLLM's
server; its older ``guided_regex`` field is silently ignored). A server that does not know the field ignores it
too — check ``format_adherence`` of a constrained run before trusting it with another server.
"""

from __future__ import annotations

from lm_eval.models.openai_completions import LocalChatCompletion, LocalCompletionsAPI

from . import GEN_KWARG, add_constraints, run_label


class _ServerConstrained:
    def generate_until(self, requests, disable_tqdm: bool = False):
        add_constraints(requests)
        return super().generate_until(requests, disable_tqdm=disable_tqdm)

    def _create_payload(self, messages, generate=False, gen_kwargs=None, **kwargs):
        regex = None
        if gen_kwargs:
            gen_kwargs = dict(gen_kwargs)  # the caller may reuse its dict for the next batch
            regex = gen_kwargs.pop(GEN_KWARG, None)
        payload = super()._create_payload(messages, generate=generate, gen_kwargs=gen_kwargs, **kwargs)
        if regex is not None:
            payload["structured_outputs"] = {"regex": regex}
        return payload

    def get_model_info(self) -> dict:
        return run_label("OpenAI-compatible server: structured_outputs.regex")


class LocalCompletionsConstrained(_ServerConstrained, LocalCompletionsAPI):
    """``--model local-completions-constrained`` (same model_args as ``local-completions``)."""


class LocalChatCompletionsConstrained(_ServerConstrained, LocalChatCompletion):
    """``--model local-chat-completions-constrained`` (same model_args as ``local-chat-completions``)."""
