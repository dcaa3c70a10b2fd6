"""Faster prompt rendering for lm-eval (pure speed-ups, identical output).

lm-eval 0.4.13's ``lm_eval.utils.apply_template`` compiles the template string on *every* call (once per document
and per few-shot example) and renders through ``Template.render``, which copies Jinja's global ChainMap into a new
dict twice per call. Building the prompts of the whole ``enterprise`` group renders ~65k templates, so this is
most of the CLI's start-up (``scripts/bench_startup.py``: 11.9 s before this module). :func:`install` replaces
``apply_template`` with an equivalent that

1. caches the compiled template by its source string (compiled templates are immutable), and
2. renders with the template's globals pre-merged into one plain dict: the context Jinja builds is the same
   (``parent = {**globals, **doc}``), only without re-walking the ChainMap on every call.

Installed when this package is imported from an lm-eval run (our YAML hooks), and explicitly by our CLI, demo and
test helpers. If Jinja's internals ever differ, it falls back to ``Template.render`` (still cached compile).
"""
from __future__ import annotations

import functools


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


def install() -> bool:
    """Replace ``lm_eval.utils.apply_template`` by the faster equivalent (idempotent). True if installed."""
    try:
        import lm_eval.utils as lm_utils
    except ImportError:  # pragma: no cover - lm-eval is a dependency
        return False
    if getattr(lm_utils.apply_template, "_lmee_cached", False):
        return True
    env = lm_utils.env

    @functools.lru_cache(maxsize=8192)
    def renderer(source: str):
        template = env.from_string(source)
        try:
            return _fast_renderer(template)
        except Exception:  # pragma: no cover - unexpected Jinja internals: keep the public API
            return lambda doc: template.render(**doc)

    def apply_template(template: str, doc: dict) -> str:
        return renderer(template)(doc)

    apply_template._lmee_cached = True
    apply_template.__doc__ = lm_utils.apply_template.__doc__
    lm_utils.apply_template = apply_template
    return True
