"""Regex-constrained decoding as an opt-in run mode (Sakai et al. 2024): each template's own answer format — the
``metadata.answer_regex`` of its task YAML, rendered for the document — constrains what the model may generate.

lm-eval passes one ``generation_kwargs`` dict per task, so the per-document regex cannot come from the YAML. The
model wrappers registered here (``hf-constrained``, ``vllm-constrained``, ``local-completions-constrained``,
``local-chat-completions-constrained``) look the format up by the request's task name, render it from the
request's document, and add it to that request's generation kwargs under :data:`GEN_KWARG`; lm-eval's backends
batch requests by their generation kwargs, so every batch carries one regex. Each backend then applies it:

* ``hf``: an xgrammar logits processor (:mod:`.hf_backend`);
* ``vllm``: ``SamplingParams(structured_outputs=StructuredOutputsParams(regex=...))`` (:mod:`.vllm_backend`);
* OpenAI-compatible servers: ``"structured_outputs": {"regex": ...}`` in the request body (:mod:`.api_backend`;
  vLLM's server; the older ``guided_regex`` field is silently ignored by current vLLM).

The regex handed to a backend is :func:`constraint_regex`: the format in a small dialect every decoder accepts
(:func:`decoder_regex`), with one optional leading space — after ``Answer:`` a model naturally emits
`` positive`` as one token, so forbidding the space would force an unnatural tokenisation. [PARSE] formats
already begin with `` ?`` and are used as they are; any other format gets ``( )?`` in front.

Log-likelihood requests (the ranking tasks) are never constrained: they score fixed continuations.

Results of constrained runs are labelled in ``results["config"]``: ``model`` is the wrapper's name
(``<backend>-constrained``) and ``decoding`` is ``"regex_constrained"`` (absent in every other run);
:func:`decoding_mode` reads it. Each sample's ``arguments`` also carries the exact regex (``constrain_regex``).

This module imports no backend (no torch, vllm or xgrammar): the wrappers live in the sibling modules and are
registered with lm-eval lazily by :func:`register_models`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Any

from ...taskmeta import TaskMeta

try:  # Python 3.11+
    from re import _constants as _c  # type: ignore[attr-defined]
    from re import _parser as _p  # type: ignore[attr-defined]
except ImportError:  # Python 3.10
    import sre_constants as _c  # type: ignore[no-redef]
    import sre_parse as _p  # type: ignore[no-redef]

GEN_KWARG = "constrain_regex"  # per-request generation kwarg carrying the rendered constraint
DECODING_KEY = "decoding"  # results["config"] key set by the constrained wrappers
CONSTRAINED = "regex_constrained"
UNCONSTRAINED = "unconstrained"
LEADING = "( )?"  # one optional leading space before the format (see the module docstring)

MODELS = {  # registered name → "module:class"
    "hf-constrained": "lm_eval_enterprise.harness.constrained.hf_backend:HFConstrained",
    "vllm-constrained": "lm_eval_enterprise.harness.constrained.vllm_backend:VLLMConstrained",
    "local-completions-constrained": "lm_eval_enterprise.harness.constrained.api_backend:LocalCompletionsConstrained",
    "local-chat-completions-constrained": "lm_eval_enterprise.harness.constrained.api_backend:LocalChatCompletionsConstrained",
}


class ConstraintError(ValueError):
    """A format regex that cannot constrain decoding, or a task without one (one-line message)."""


# --------------------------------------------------------------------------------------------------------------
# regex → decoder dialect

_META = set("\\.^$|?*+()[]{}")
_CLASS_META = set("\\]^-[")
_NAMED = {"\n": r"\n", "\t": r"\t", "\r": r"\r", "\f": r"\f", "\v": r"\v"}
_CATEGORY = {  # ASCII spellings: decoders differ on Unicode classes, so \d \w \s are spelled out
    _c.CATEGORY_DIGIT: (False, "0-9"),
    _c.CATEGORY_NOT_DIGIT: (True, "0-9"),
    _c.CATEGORY_WORD: (False, "0-9A-Za-z_"),
    _c.CATEGORY_NOT_WORD: (True, "0-9A-Za-z_"),
    _c.CATEGORY_SPACE: (False, r" \t\n\r\f\v"),
    _c.CATEGORY_NOT_SPACE: (True, r" \t\n\r\f\v"),
}
_START = {_c.AT_BEGINNING, _c.AT_BEGINNING_STRING}
_END = {_c.AT_END, _c.AT_END_STRING}
_ZERO_WIDTH_EDGE = {_c.AT_BOUNDARY}  # \b at the very start/end of a full match adds nothing for word-char edges


def _esc(ch: str, meta: set[str]) -> str:
    if ch in _NAMED:
        return _NAMED[ch]
    if ch in meta:
        return "\\" + ch
    if ord(ch) < 0x20 or ord(ch) == 0x7F:
        return f"\\x{ord(ch):02x}"
    return ch


def _case_variants(ch: str) -> str:
    variants = dict.fromkeys([ch, ch.lower(), ch.upper()])
    return "".join(v for v in variants if len(v) == 1)


class _Emitter:
    def __init__(self, pattern: str):
        self.pattern = pattern

    def fail(self, what: str) -> ConstraintError:
        return ConstraintError(f"answer format {self.pattern!r} cannot constrain decoding: {what}")

    # a sequence of items; at_start/at_end: this sequence begins/ends the whole match
    def seq(self, items, flags: int, at_start: bool, at_end: bool) -> str:
        items = list(items)
        zero = [op == _c.AT for op, _ in items]
        out = []
        for i, (op, av) in enumerate(items):
            first = at_start and all(zero[:i])
            last = at_end and all(zero[i + 1 :])
            out.append(self.item(op, av, flags, first, last))
        return "".join(out)

    def item(self, op, av, flags: int, first: bool, last: bool) -> str:
        icase = bool(flags & re.IGNORECASE)
        if op == _c.LITERAL:
            ch = chr(av)
            if icase and len(_case_variants(ch)) > 1:
                return "[" + "".join(_esc(v, _CLASS_META) for v in _case_variants(ch)) + "]"
            return _esc(ch, _META)
        if op == _c.NOT_LITERAL:
            ch = chr(av)
            chars = _case_variants(ch) if icase else ch
            return "[^" + "".join(_esc(v, _CLASS_META) for v in chars) + "]"
        if op == _c.ANY:
            return r"[\s\S]" if flags & re.DOTALL else r"[^\n]"
        if op == _c.IN:
            return self.charset(av, icase)
        if op == _c.CATEGORY:
            negate, body = _CATEGORY[av]
            return f"[{'^' if negate else ''}{body}]"
        if op == _c.BRANCH:
            return "(" + "|".join(self.seq(alt, flags, first, last) for alt in av[1]) + ")"
        if op == _c.SUBPATTERN:
            _group, add, delete, sub = av
            inner = self.seq(sub, (flags | add) & ~delete, first, last)
            return inner if len(sub) == 1 and sub[0][0] == _c.BRANCH else f"({inner})"  # a branch has its own
        if op in (_c.MAX_REPEAT, _c.MIN_REPEAT):
            return self.repeat(av, flags)
        if op == _c.AT:
            return self.anchor(av, first, last)
        names = {
            _c.GROUPREF: "backreference",
            _c.GROUPREF_EXISTS: "conditional group",
            _c.ASSERT: "lookaround",
            _c.ASSERT_NOT: "negative lookaround",
        }
        raise self.fail(names.get(op, f"unsupported construct {op}"))

    def repeat(self, av, flags: int) -> str:
        """A repeated item: its body (bracketed unless it is one atom) and the quantifier."""
        lo, hi, sub = av
        body = self.seq(sub, flags, False, False)
        if not (
            len(sub) == 1
            and sub[0][0] in (_c.LITERAL, _c.NOT_LITERAL, _c.ANY, _c.IN, _c.CATEGORY, _c.SUBPATTERN, _c.BRANCH)
        ):
            body = f"({body})"
        if (lo, hi) == (0, _c.MAXREPEAT):
            return body + "*"
        if (lo, hi) == (1, _c.MAXREPEAT):
            return body + "+"
        if (lo, hi) == (0, 1):
            return body + "?"
        if hi == _c.MAXREPEAT:
            return body + f"{{{lo},}}"
        return body + (f"{{{lo}}}" if lo == hi else f"{{{lo},{hi}}}")

    def anchor(self, av, first: bool, last: bool) -> str:
        """``^`` at the start and ``$`` / ``\\b`` at the ends are implied by full-match decoding (dropped)."""
        if av in _START and first:
            return ""
        if av in _END and last:
            return ""
        if av in _ZERO_WIDTH_EDGE and (first or last):
            return ""
        raise self.fail(f"anchor {av} inside the pattern (only ^ at the start, $ and \\b at the ends)")

    def charset(self, items, icase: bool) -> str:
        negate = False
        parts: list[str] = []
        for op, av in items:
            if op == _c.NEGATE:
                negate = True
            elif op == _c.LITERAL:
                chars = _case_variants(chr(av)) if icase else chr(av)
                parts.extend(_esc(ch, _CLASS_META) for ch in chars)
            elif op == _c.RANGE:
                lo, hi = chr(av[0]), chr(av[1])
                parts.append(f"{_esc(lo, _CLASS_META)}-{_esc(hi, _CLASS_META)}")
                if icase:
                    for a, b in (("a", "z"), ("A", "Z")):
                        if a <= lo and hi <= b:
                            parts.append(f"{lo.swapcase()}-{hi.swapcase()}")
            elif op == _c.CATEGORY:
                cat_negate, body = _CATEGORY[av]
                if cat_negate:
                    if len(items) != 1:
                        raise self.fail("a negated class (\\D, \\W, \\S) combined with other class members")
                    negate = not negate
                parts.append(body)
            else:
                raise self.fail(f"unsupported character-class member {op}")
        return "[" + ("^" if negate else "") + "".join(dict.fromkeys(parts)) + "]"


def decoder_regex(pattern: str) -> str:
    """``pattern`` (Python ``re`` syntax, meant to *fully* match the stripped completion) in the dialect that
    regex-constrained decoders accept (xgrammar, outlines-core, vLLM's structured outputs):

    * inline flags are applied and removed: ``(?i)`` spells out case variants (``[yY][eE][sS]``), ``(?s)`` turns
      ``.`` into ``[\\s\\S]`` (without it, ``.`` becomes ``[^\\n]``);
    * ``\\d \\w \\s`` (and negations) become ASCII classes; ``(?:...)`` becomes ``(...)``; lazy quantifiers
      become greedy (same language);
    * ``^`` at the start, ``$`` at the end and ``\\b`` at either end are dropped (the decoder matches the
      whole output); any other anchor, lookaround, backreference or conditional raises :class:`ConstraintError`.

    >>> decoder_regex(r"(?i)^(yes|no)\\b")
    '([yY][eE][sS]|[nN][oO])'
    """
    try:
        parsed = _p.parse(pattern)
    except re.error as exc:
        raise ConstraintError(f"answer format {pattern!r} is not a valid regex: {exc}") from None
    return _Emitter(pattern).seq(parsed, parsed.state.flags, True, True)


def constraint_regex(format_regex: str) -> str:
    """The regex a backend constrains generation with: the format with one optional leading space (kept when
    the format already starts with `` ?``, else ``( )?`` put in front)."""
    dec = decoder_regex(format_regex)
    return dec if dec.startswith(" ?") else f"{LEADING}({dec})"


# --------------------------------------------------------------------------------------------------------------
# per-task formats and per-document rendering


def _render_fallback(pattern: str, doc: Mapping[str, Any]) -> str:
    """Local stand-in for ``filters.render_format_regex``: ``{LABELS}`` → the document's escaped
    ``label_names``, longest first, as one group."""
    if "{LABELS}" not in pattern:
        return pattern
    labels = doc.get("label_names")
    if not labels:
        raise ConstraintError(f"answer format {pattern!r} needs doc['label_names'] for {{LABELS}}")
    alts = "|".join(re.escape(str(x)) for x in sorted(labels, key=lambda s: (-len(str(s)), str(s))))
    return pattern.replace("{LABELS}", f"(?:{alts})")


def render_format(pattern: str, doc: Mapping[str, Any]) -> str:
    """Fill the data-dependent placeholders of a template's answer format for one document
    (``filters.render_format_regex`` when the package provides it, else :func:`_render_fallback`)."""
    from ...scoring import filters

    render = getattr(filters, "render_format_regex", None) or _render_fallback
    return render(pattern, doc)


@functools.cache
def _task_index():
    from lm_eval.tasks import TaskManager

    from ... import TASK_DIR

    return TaskManager(include_path=TASK_DIR, include_defaults=False).task_index


def task_format(task_name: str) -> str:
    """``metadata.answer_regex`` of an enterprise task, read from its YAML (what lm-eval runs)."""
    entry = _task_index().get(task_name)
    regex = TaskMeta.from_config(getattr(entry, "cfg", None) or {}).answer_regex
    if not regex:
        raise ConstraintError(
            f"task {task_name!r} has no metadata.answer_regex: only lm-eval-enterprise "
            "generate tasks can run with regex-constrained decoding"
        )
    return regex


def request_constraint(task_name: str, doc: Mapping[str, Any]) -> str:
    """The constraint regex of one request: the task's answer format, rendered for ``doc``."""
    return constraint_regex(render_format(task_format(task_name), doc))


def add_constraints(requests) -> None:
    """Put each generate request's constraint into its own generation kwargs (in place, so that the logged
    sample shows it). Requests that already carry one are left as they are."""
    for req in requests:
        context, gen_kwargs, *rest = req.arguments
        if GEN_KWARG in gen_kwargs:
            continue
        req.arguments = (context, {**gen_kwargs, GEN_KWARG: request_constraint(req.task_name, req.doc)}, *rest)


# --------------------------------------------------------------------------------------------------------------
# labels and registration


def run_label(engine: str) -> dict[str, str]:
    """What a constrained wrapper adds to ``results["config"]`` (via ``get_model_info``)."""
    return {
        DECODING_KEY: CONSTRAINED,
        "constraint_engine": engine,
        "constraint_regex": "template answer_regex, rendered per document, optional leading space",
    }


def decoding_mode(results: Mapping[str, Any]) -> str:
    """``"regex_constrained"`` for a results file written by a constrained wrapper, else ``"unconstrained"``.

    Keyed on ``results["config"]["decoding"]``; a results file whose ``config.model`` names a constrained
    wrapper but lacks the key (not written by this package) is rejected rather than guessed.
    """
    config = results.get("config") or {}
    mode = config.get(DECODING_KEY)
    if mode is None and str(config.get("model", "")) in MODELS:
        raise ConstraintError(f"results of model {config.get('model')!r} lack config.{DECODING_KEY}")
    return mode or UNCONSTRAINED


_BASES = {  # lm-eval backend class ("module:class") → the name of its constrained wrapper in MODELS
    "lm_eval.models.huggingface:HFLM": "hf-constrained",
    "lm_eval.models.vllm_causallms:VLLM": "vllm-constrained",
    "lm_eval.models.openai_completions:LocalCompletionsAPI": "local-completions-constrained",
    "lm_eval.models.openai_completions:LocalChatCompletion": "local-chat-completions-constrained",
}


def constrained_twin(lm):
    """The constrained wrapper of a backend that is already loaded, sharing its model, engine and tokenizer.

    ``lm_eval.simple_evaluate(model=constrained_twin(lm), ...)`` after a plain run of ``lm`` compares greedy and
    regex-constrained decoding of the same weights with one model load (a vLLM engine start-up is tens of
    seconds on CPU). The twin is a shallow copy: same state, the wrapper's class. ``lm`` must be exactly one of the
    four wrapped lm-eval classes (``HFLM``, ``VLLM``, ``LocalCompletionsAPI``, ``LocalChatCompletion``).
    """
    import importlib

    key = f"{type(lm).__module__}:{type(lm).__qualname__}"
    if key not in _BASES:
        raise ConstraintError(f"no constrained wrapper for {key} (one of {', '.join(sorted(_BASES))})")
    module, cls_name = MODELS[_BASES[key]].split(":")
    cls = getattr(importlib.import_module(module), cls_name)
    twin = cls.__new__(cls)
    twin.__dict__.update(vars(lm))
    return twin


def register_models() -> None:
    """Register the constrained wrappers with lm-eval (lazily: nothing heavy is imported here)."""
    import lm_eval.models  # noqa: F401  (built-in names first: lm-eval imports them only into an empty registry)
    from lm_eval.api.registry import model_registry

    for name, target in MODELS.items():
        if name not in model_registry:
            model_registry.register(name, target=target)
