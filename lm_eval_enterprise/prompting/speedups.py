"""Faster prompt rendering for our task class (identical output; no lm-eval function is replaced).

lm-eval 0.4.13 renders a Jinja prompt with ``lm_eval.utils.apply_template``, which compiles the template string on
*every* call (once per document and per few-shot example) and renders through ``Template.render``, which copies
Jinja's global ChainMap into a new dict twice per call. Building the prompts of the whole ``enterprise`` group
renders ~65k templates, so this was most of the start-up before this module existed.

:func:`render` is what :class:`lm_eval_enterprise.harness.task.EnterpriseTask` uses instead, through lm-eval's own
extension point (the task class overrides ``doc_to_text`` / ``doc_to_target`` / ``doc_to_choice`` /
``resolve_field``). It

1. caches the compiled template by its source string (compiled templates are immutable), compiled in lm-eval's own
   Jinja environment ``lm_eval.utils.env`` (StrictUndefined, ``regex_replace``, trailing newlines kept), and
2. renders with the template's globals pre-merged into one plain dict: the context Jinja builds is the same
   (``parent = {**globals, **doc}``), only without re-walking the ChainMap on every call.

Version guard: the fast path is used only with the lm-eval and Jinja versions it was verified against
(:data:`VERIFIED_LM_EVAL`, Jinja 3.1), because it reproduces lm-eval's rendering rules and uses Jinja's
``new_context``/``root_render_func``. Anything else — or ``LM_EVAL_ENTERPRISE_FAST_TEMPLATES=0`` — renders with
``lm_eval.utils.apply_template`` itself (slower start-up, same prompts). ``tests/test_speedups.py`` checks equality.
"""

from __future__ import annotations

import functools
import os

VERIFIED_LM_EVAL = ("0.4.13",)
VERIFIED_JINJA = "3.1."
ENV_SWITCH = "LM_EVAL_ENTERPRISE_FAST_TEMPLATES"


@functools.lru_cache(maxsize=1)
def enabled() -> bool:
    """True when the fast renderer may be used (verified versions and not switched off by the environment)."""
    import jinja2
    import lm_eval

    if os.environ.get(ENV_SWITCH, "1").strip().lower() in ("0", "false", "no", "off"):
        return False
    return lm_eval.__version__ in VERIFIED_LM_EVAL and jinja2.__version__.startswith(VERIFIED_JINJA)


def _fast_renderer(template):
    """A ``doc -> str`` function equal to ``template.render(**doc)``."""
    from jinja2 import runtime

    env = template.environment
    merged = dict(template.globals)  # ChainMap(template globals, env.globals) → one plain dict, once
    name, blocks, root = template.name, template.blocks, template.root_render_func

    def render(doc: dict) -> str:
        ctx = runtime.new_context(env, name, blocks, {**merged, **doc}, True, merged)
        try:
            return env.concat(root(ctx))
        except Exception:
            env.handle_exception()

    return render


@functools.lru_cache(maxsize=8192)
def _renderer(source: str):
    from lm_eval.utils import env

    return _fast_renderer(env.from_string(source))


def render(template: str, doc: dict) -> str:
    """``lm_eval.utils.apply_template(template, doc)``, faster when :func:`enabled`."""
    if not enabled():
        from lm_eval.utils import apply_template

        return apply_template(template, doc)
    return _renderer(template)(doc)
