"""Cache lm-eval's compiled Jinja prompt templates (pure speed-up, identical output).

lm-eval 0.4.13's ``lm_eval.utils.apply_template`` compiles the template string on *every* call (once per document
and per few-shot example): ~90 % of task-building time, ~10 s of CLI start-up for the ``enterprise`` group
(``scripts/bench_startup.py``). Compiled templates are immutable, so caching them by source string changes nothing
but the time. Installed when this package is imported from an lm-eval run (our YAML hooks), and explicitly by our
CLI, demo and test helpers.
"""
from __future__ import annotations

import functools


def install() -> bool:
    """Replace ``lm_eval.utils.apply_template`` by a cached equivalent (idempotent). Returns True if installed."""
    try:
        import lm_eval.utils as lm_utils
    except ImportError:  # pragma: no cover - lm-eval is a dependency
        return False
    if getattr(lm_utils.apply_template, "_lmee_cached", False):
        return True
    compile_template = functools.lru_cache(maxsize=8192)(lm_utils.env.from_string)

    def apply_template(template: str, doc: dict) -> str:
        return compile_template(template).render(**doc)

    apply_template._lmee_cached = True
    apply_template.__doc__ = lm_utils.apply_template.__doc__
    lm_utils.apply_template = apply_template
    return True
