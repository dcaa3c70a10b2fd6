"""Few-shot prompts that fit the model's context ([BAL] last paragraph, [TRUNC]), for any backend.

HELM builds the k-shot prompt and, when it exceeds the model's context window, drops shots from the end until it
fits, then truncates. lm-eval 0.4.13 has nothing like it (``hf`` silently cuts the prompt from the LEFT, losing the
instruction; vLLM/API backends fail or cut as they like), so every task of this package enforces a budget where the
prompt is built: :class:`lm_eval_enterprise.harness.task.EnterpriseTask` (the ``class:`` of every generated task YAML) asks
:class:`PromptBudget` for each document's prompt.

**The budget** (``results["configs"][task]["metadata"]["prompt_budget"]`` says which one applied and why):

1. ``max_context_tokens`` in the task metadata — set by ``lm-eval-enterprise run`` from the model itself for ``hf``
   (the model config / tokenizer, exactly as lm-eval's HF backend resolves ``max_length``) and ``vllm``
   (``max_model_len``), see :func:`model_budget` (source ``model``); or given by the user with ``--metadata
   max_context_tokens=N`` (source ``metadata``; the way for API backends and plain ``lm_eval``);
2. else ``max_length`` / ``max_model_len`` of the model arguments, which lm-eval's CLI merges into the task metadata
   (source ``model_args``);
3. else :data:`DEFAULT_MAX_CONTEXT_TOKENS` = 4,096 with ONE warning per process (source ``default``).

``max_context_tokens: 0`` (or null) switches the budget off. Tokens are counted exactly with ``context_tokenizer``
(a Hugging Face tokenizer name or folder; our CLI sets the model's own), otherwise estimated as
``ceil(chars / context_chars_per_token)`` (default 3.0: conservative; SmolLM2 measures 3.4 characters per token on
number-heavy KPI-EDGAR and 4.4 on loan agreements).

**The rule, per evaluation document** (``n`` = ``num_fewshot``):

1. The shots are lm-eval's ``first_n`` (the first ``n`` items of the [BAL]-ordered few-shot split; the eval
   document is removed from the pool only when shots come from the test split, as ``first_n`` does).
2. ONE shot plan per document for ALL templates of the dataset (templates differ in wording only, never in data or
   shots): for every template of the task's table (:func:`sibling_templates`) the prompt is sized by parts —
   instruction (+ system instruction) + each shot (question + target delimiter + target + few-shot delimiter) + the
   eval question + the reserved answer tokens (``max_gen_toks``; for log-likelihood tasks the longest answer choice)
   + per-message chat markup (``chat_overhead_tokens``) under a chat template. The plan keeps the largest prefix of
   shots (trailing shots dropped) that fits under every template. No template can dictate it through verbosity:
   the generator (:func:`lm_eval_enterprise.prompting.templating.check_repeated_wording`) rejects templates that repeat
   label lists or long wording in every shot, so templates differ by a bounded number of tokens per prompt.
   The plan depends only on the document, the shot pool, the table and the run settings, and is computed once for
   all variants. ``plan_bound_by`` counts, per template, the documents whose shots it limited.
3. If even zero shots do not fit under every template, the eval document's long field (``context_truncate_field``,
   generated per dataset: the document/text/passage/context field) is cut keeping its beginning ([TRUNC]; with
   ``context_truncate_fn``, a dataset-specific cut such as ConvFinQA's, which keeps the dialogue and cuts the
   table) until it fits under every template — the same text for every variant.
4. Last resort, per variant: the assembled prompt is counted as one string (a tokenizer merges differently than
   by parts, or chat markup is longer than estimated); further shots are dropped, then the text cut further,
   while it does not fit. Counted in ``prompts_over_plan``, logged: never silent.

The logged ``doc`` (and ``doc_hash``) is never changed. When everything fits the prompt is byte-identical to
lm-eval's ``first_n`` prompt (the task renders it with lm-eval's own ``fewshot_context``).

Reports: per document ``shots_used`` and ``prompt_cut`` (1 when shots were dropped or the text cut; lm-eval
reports their means per task) and the ``prompt_budget`` summary in the task metadata (budget, source, token
counter, reserved tokens, prompts, prompts cut/truncated/over plan, templates planned over, ``plan_bound_by``,
min/mean shots). Requests loaded with ``--cache_requests`` were not built in this run: their per-document reports
are omitted rather than invented.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import logging
import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..taskmeta import TEMPLATE_SET_POPULATION, TaskMeta
from ..text import truncate_words
from .tokens import DEFAULT_CHARS_PER_TOKEN, TokenCounter, load_tokenizer

log = logging.getLogger("lm_eval_enterprise.prompting.budget")

DEFAULT_MAX_CONTEXT_TOKENS = 4096
DEFAULT_MAX_GEN_TOKS = 256  # lm-eval's default when generation_kwargs has no max_gen_toks
DEFAULT_CHAT_OVERHEAD = 8  # tokens per chat message (role markers, separators)
DEFAULT_TRUNCATE_FIELD = "text"

HF_BACKENDS = ("hf", "hf-auto", "huggingface")
VLLM_BACKENDS = ("vllm",)

_default_warned = False


# ------------------------------------------------------------------------------------------------ pure planning
def fit_prefix(fixed_tokens: int, shot_tokens: Sequence[int], budget: int | None) -> int:
    """Largest k such that ``fixed_tokens + sum(shot_tokens[:k]) <= budget`` (shots kept in order, trailing
    ones dropped). ``budget`` ``None`` → every shot. Returns 0 when even the fixed part does not fit."""
    if budget is None:
        return len(shot_tokens)
    total, k = fixed_tokens, 0
    for t in shot_tokens:
        if total + t > budget:
            break
        total += t
        k += 1
    return k


def truncate_to_fit(text: str, fits: Callable[[str], bool], cut: Callable[[str, int], str] = truncate_words) -> str:
    """Longest ``cut(text, n)`` (``n`` words kept, [TRUNC]: the beginning, never the end) for which ``fits``
    holds; ``text`` itself if it fits, ``cut(text, 0)`` if nothing does. ``fits`` must be monotone in ``n``."""
    if fits(text):
        return text
    lo, hi = 0, len(text.split())  # invariant: cut(text, lo) fits (or lo == 0), cut(text, hi) does not
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if fits(cut(text, mid)):
            lo = mid
        else:
            hi = mid
    return cut(text, lo)


def doc_key(doc: dict) -> str:
    """Content hash of a document (the same dict content at request-building and at scoring time)."""
    blob = json.dumps(doc, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha1(blob.encode("utf-8")).hexdigest()


def _import_dotted(path: str) -> Callable:
    module, _, name = path.rpartition(".")
    return getattr(importlib.import_module(module), name)


# ------------------------------------------------------------------------------------------------ settings
@dataclass
class BudgetSettings:
    """The budget of a task and where it came from (see the module docstring)."""

    max_context_tokens: int | None
    source: str  # model | metadata | model_args | default | off
    detail: str | None
    counter: TokenCounter
    chat_overhead: int
    truncate_field: str
    truncate_fn: str | None

    @classmethod
    def from_metadata(cls, metadata: dict | None) -> BudgetSettings:
        meta = metadata or {}
        task_meta = TaskMeta.from_metadata(meta)
        budget, source = _budget_from_metadata(meta)
        counter = TokenCounter(
            meta.get("context_tokenizer") or None, float(meta.get("context_chars_per_token", DEFAULT_CHARS_PER_TOKEN))
        )
        if source == "default":
            _warn_default_once(counter)
        return cls(
            budget,
            source,
            meta.get("context_budget_detail"),
            counter,
            int(meta.get("chat_overhead_tokens", DEFAULT_CHAT_OVERHEAD)),
            task_meta.context_truncate_field or DEFAULT_TRUNCATE_FIELD,
            task_meta.context_truncate_fn,
        )

    def key(self) -> tuple:
        return (
            self.max_context_tokens,
            self.counter.describe(),
            self.chat_overhead,
            self.truncate_field,
            self.truncate_fn,
        )

    def summary(self) -> dict[str, Any]:
        out = {
            "max_context_tokens": self.max_context_tokens,
            "source": self.source,
            "token_counter": self.counter.describe(),
        }
        if self.detail:
            out["detail"] = self.detail
        return out


def context_tokens_value(raw) -> int | None:
    """``max_context_tokens`` as given in the metadata: a whole number of tokens, or None for none/empty (no
    budget); ``ValueError`` naming the value otherwise."""
    if raw in (None, "", "none", "None"):
        return None
    try:
        return int(raw)
    except (TypeError, ValueError):
        raise ValueError(f"max_context_tokens={raw!r} is not a whole number of tokens (or none)") from None


def check_budget_metadata(meta: dict) -> None:
    """``ValueError`` if the run metadata's ``max_context_tokens`` is no number (a usage error of ``run``)."""
    if "max_context_tokens" in meta:
        context_tokens_value(meta["max_context_tokens"])


def _budget_from_metadata(meta: dict) -> tuple[int | None, str]:
    if "max_context_tokens" in meta:
        budget = context_tokens_value(meta["max_context_tokens"])
        if budget is None or budget <= 0:
            return None, "off"
        return budget, str(meta.get("context_budget_source") or "metadata")
    for key in ("max_model_len", "max_length"):  # --model_args merged into the metadata by lm-eval's CLI
        if meta.get(key):
            return int(meta[key]), "model_args"
    return DEFAULT_MAX_CONTEXT_TOKENS, "default"


def _warn_default_once(counter: TokenCounter) -> None:
    global _default_warned
    if _default_warned:
        return
    _default_warned = True
    log.warning(
        "The model's context window is unknown to the tasks: prompts are fitted to the default %d tokens "
        "(%s). Give the model's window with --metadata max_context_tokens=N context_tokenizer=<HF tokenizer> "
        "(`lm-eval-enterprise run` reads both from hf and vllm models).",
        DEFAULT_MAX_CONTEXT_TOKENS,
        "counted " + counter.describe().replace("chars/", "as characters / "),
    )


def model_budget(model: str, model_args: dict[str, Any]) -> dict[str, Any]:
    """Task metadata stating the context budget of an ``hf`` or ``vllm`` model (``{}`` when it cannot be known).

    ``hf``: ``max_length`` of the model arguments, else lm-eval's own ``resolve_max_length(config, tokenizer)``
    (``n_positions`` / ``max_position_embeddings`` / ``n_ctx`` of the model config, then the tokenizer's
    ``model_max_length``, then lm-eval's default) — the length the HF backend truncates to. ``vllm``:
    ``max_model_len`` (or ``max_length``), else the same resolution from the config (vLLM derives its
    ``max_model_len`` from the same config fields). The tokenizer (``tokenizer`` argument or ``pretrained``) gives
    exact counts. Returns ``max_context_tokens``, ``context_tokenizer``, ``context_budget_source: model`` and
    ``context_budget_detail``; a config or tokenizer that cannot be read is logged and left out.
    """
    if model not in HF_BACKENDS + VLLM_BACKENDS:
        return {}
    pretrained = model_args.get("pretrained")
    if not isinstance(pretrained, str) or not pretrained:
        return {}
    tokenizer_name = model_args.get("tokenizer") if isinstance(model_args.get("tokenizer"), str) else pretrained
    kwargs = {k: model_args[k] for k in ("revision", "trust_remote_code") if k in model_args}
    out: dict[str, Any] = {}
    tok = None
    try:
        tok = load_tokenizer(tokenizer_name) if not kwargs else _hf_tokenizer(tokenizer_name, kwargs)
        out["context_tokenizer"] = tokenizer_name
    except Exception as exc:  # noqa: BLE001 — counts fall back to the character estimate; say so
        log.warning(
            "Cannot load the tokenizer %s for exact prompt counts (%s); estimating tokens from characters",
            tokenizer_name,
            str(exc).splitlines()[0] if str(exc) else type(exc).__name__,
        )
    explicit_keys = ("max_length",) if model in HF_BACKENDS else ("max_model_len", "max_length")
    explicit = next((k for k in explicit_keys if model_args.get(k)), None)
    if explicit:
        out.update(
            max_context_tokens=int(model_args[explicit]),
            context_budget_source="model",
            context_budget_detail=f"{model} model argument {explicit}",
        )
        return out
    try:
        from lm_eval.models.utils import DEFAULT_MAX_LENGTH, resolve_max_length
        from transformers import AutoConfig

        config = AutoConfig.from_pretrained(pretrained, **kwargs)
    except Exception as exc:  # noqa: BLE001 — the task falls back to its default budget, with its warning
        log.warning(
            "Cannot read the model config of %s (%s); the context budget is not known from the model",
            pretrained,
            str(exc).splitlines()[0] if str(exc) else type(exc).__name__,
        )
        return out
    out.update(
        max_context_tokens=resolve_max_length(config, tok, default=DEFAULT_MAX_LENGTH),
        context_budget_source="model",
        context_budget_detail=f"{model}: lm_eval resolve_max_length(config of {pretrained})",
    )
    return out


def _hf_tokenizer(name: str, kwargs: dict):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(name, **kwargs)


# ------------------------------------------------------------------------------------------------ template table
@dataclass(frozen=True)
class TemplateText:
    """The template-dependent prompt parts of one variant: id, ``description`` and ``doc_to_text`` (Jinja)."""

    id: str
    description: str
    doc_to_text: str


def sibling_templates(config) -> list[TemplateText]:
    """Every template variant of the table of a task ``config``: the task's own template first, then the others of
    its table in table order (:func:`table_templates`: found through the dataset registry from the task's metadata).
    A template whose text equals the own one is not repeated. Returns only the task's own template when the
    metadata names no table (e.g. a hand-written YAML). ``ValueError`` when the table's template of the same id
    has another text than the task's (YAMLs generated from an older table: regenerate them)."""
    meta = TaskMeta.from_config(config)
    own = TemplateText(str(meta.template_id or "own"), config.description or "", config.doc_to_text)
    if not isinstance(own.doc_to_text, str):
        return [own]
    out = [own]
    table = table_templates(meta)
    if table is None and meta.is_variant:
        log.warning(
            "[%s] the template table %s of this variant is not in the dataset registry; its shots are planned "
            "over this template only",
            config.task,
            meta.dataset,
        )
    for t in table or ():
        sib = TemplateText(str(t.id), t.description or "", t.doc_to_text)
        if sib.id == own.id and (sib.description, sib.doc_to_text) != (own.description, own.doc_to_text):
            raise ValueError(
                f"[{config.task}] template {own.id} differs from {own.id} of its table {meta.dataset}: the YAML was "
                f"generated from another version of the table; regenerate it ("
                + ("lm-eval-enterprise population" if meta.template_set == TEMPLATE_SET_POPULATION else "make tasks")
                + ")"
            )
        if sib.id != own.id and (sib.description, sib.doc_to_text) != (own.description, own.doc_to_text):
            out.append(sib)
    return out


def table_templates(meta: TaskMeta) -> list | None:
    """The templates of the table a variant belongs to (``Template`` records): a core table from the dataset
    registry (:func:`lm_eval_enterprise.prompting.templating.table_templates`), a template population composed
    again from its seed (:func:`lm_eval_enterprise.prompting.population.population_templates`); None for a task
    outside any table. Imported here, lazily: only a run of generated variants needs the generator."""
    if meta.template_set == TEMPLATE_SET_POPULATION:
        from .population import population_templates

        return population_templates(meta)
    from .templating import table_templates as core_table

    return core_table(meta)


def _render(template: str, doc: dict) -> str:
    from .speedups import render

    if not template:
        return ""
    if template in doc:  # a bare field name, as lm-eval's doc_to_text / resolve_field treat it
        return str(doc[template])
    return render(template, doc)


# ------------------------------------------------------------------------------------------------ the budget
@dataclass
class Outcome:
    """What the budget did to one document's prompt."""

    shots_used: int
    shots_requested: int
    truncated: bool
    over_plan: int = 0  # shots dropped / text cut by the last-resort check of the assembled prompt (step 4)
    bound_by: str | None = None  # the template whose fit limited the planned shots

    @property
    def cut(self) -> bool:
        return self.truncated or self.shots_used < self.shots_requested


@dataclass(frozen=True)
class _Plan:
    shots: int
    short_text: str | None  # the eval document's cut field (step 3), None when uncut
    bound_by: str | None  # the template whose fit limited the shots (None: all n shots fit)
    totals: dict  # template id → prompt tokens counted by parts with these shots and text


def _join_slack(shots: int) -> int:
    """Tokens a tokenizer may add by merging differently across the joins of the ``shots + 2`` parts counted
    separately (2 per join; the character estimate never adds any: a sum of ceilings bounds the ceiling of the sum).
    A plan this far under the budget is not counted again as one string."""
    return 2 * (shots + 2)


# one plan per document for all variants of a table: (table, settings, run flags, pool, document) → plan
_PLANS: dict[tuple, _Plan] = {}


class PromptBudget:
    """The context budget of one lm-eval task (duck-typed ``ConfigurableTask``): plans, builds, checks, records.

    ``build(doc, n, render)`` returns the prompt; ``render(doc, k)`` must build it with ``k`` shots (the task's own
    ``fewshot_context``). ``outcome(doc)`` is the :class:`Outcome` recorded for a document built in this run.
    """

    def __init__(self, task):
        self.task = task
        self.settings = BudgetSettings.from_metadata(task.config.metadata)
        self.templates = sibling_templates(task.config)
        self._cut = _import_dotted(self.settings.truncate_fn) if self.settings.truncate_fn else truncate_words
        meta = TaskMeta.from_config(task.config)
        self._table = (
            (meta.domain, meta.dataset, tuple(sorted(t.id for t in self.templates)))
            if len(self.templates) > 1
            else (task.config.task,)
        )
        self._shot_cache: dict[tuple, int] = {}
        self._shot_bounds: dict[tuple, int] = {}
        self._instruction_cache: dict[str, int] = {}
        self._pool_keys: dict[tuple, str] = {}
        self._records: dict[str, Outcome] = {}
        self._doc_keys: dict[int, tuple[dict, str]] = {}  # id → (document, doc_key): hashed once per document
        self._totals: Counter = Counter()
        self._bound_by: Counter = Counter()
        self._min_shots = math.inf
        self._reserved_max = 0

    # -- what the task calls ---------------------------------------------------------------------------------
    def build(
        self,
        doc: dict,
        n: int,
        render: Callable[[dict, int], Any],
        *,
        system_instruction: str | None = None,
        chat: bool = False,
    ):
        budget = self.settings.max_context_tokens
        if budget is None:
            prompt = render(doc, n)
            self._record(doc, Outcome(n, n, False))
            return prompt
        per_msg = self.settings.chat_overhead if chat else 0
        reserved = self._reserved_tokens(doc)
        self._reserved_max = max(self._reserved_max, reserved)
        plan = self._plan(doc, n, system_instruction, per_msg, reserved)
        field = self.settings.truncate_field
        eval_doc = doc if plan.short_text is None else {**doc, field: plan.short_text}
        k = plan.shots
        if chat or plan.totals[self.templates[0].id] + _join_slack(k) > budget:  # else it fits: no recount
            prompt, k, recut = self._last_resort(doc, eval_doc, k, render, reserved)
        else:
            prompt, recut = render(eval_doc, k), None
        cut_further = recut is not None and recut != eval_doc.get(field)
        over = plan.shots - k + cut_further
        if over:
            log.warning(
                "[%s] assembled prompt exceeds %d tokens: %d shot(s) dropped%s beyond the template-"
                "independent plan of %d shots",
                self.task.config.task,
                budget,
                plan.shots - k,
                " and the text cut further" if cut_further else "",
                plan.shots,
            )
        self._record(doc, Outcome(k, n, plan.short_text is not None or recut is not None, over, plan.bound_by))
        return prompt

    def _last_resort(
        self, doc: dict, eval_doc: dict, k: int, render: Callable[[dict, int], Any], reserved: int
    ) -> tuple[Any, int, str | None]:
        """Step 4: the assembled prompt counted as one string; drop shots, then cut the text, while it does not
        fit. Returns (prompt, shots, the cut text or None)."""
        budget = self.settings.max_context_tokens

        def fits(prompt) -> bool:
            return self._prompt_tokens(prompt, reserved) <= budget

        prompt = render(eval_doc, k)
        while k > 0 and not fits(prompt):
            k -= 1
            prompt = render(eval_doc, k)
        if k > 0 or fits(prompt):
            return prompt, k, None
        field = self.settings.truncate_field
        value = doc.get(field)
        if not isinstance(value, str):
            log.warning(
                "[%s] prompt exceeds %d tokens even without shots and the document has no text field %r "
                "to cut; sent as is",
                self.task.config.task,
                budget,
                field,
            )
            return prompt, 0, None
        short = truncate_to_fit(value, lambda v: fits(render({**doc, field: v}, 0)), self._cut)
        return render({**doc, field: short}, 0), 0, short

    def outcome(self, doc: dict) -> Outcome | None:
        return self._records.get(self._key(doc))

    def _key(self, doc: dict) -> str:
        """:func:`doc_key` of ``doc``, computed once per document object (lm-eval hands the task the same
        evaluation documents when it builds the requests and when it scores them; the object is kept with its key,
        so its id is not reused)."""
        hit = self._doc_keys.get(id(doc))
        if hit is None or hit[0] is not doc:
            hit = self._doc_keys[id(doc)] = (doc, doc_key(doc))
        return hit[1]

    # -- planning (step 2 and 3) --------------------------------------------------------------------------------
    def _plan(self, doc: dict, n: int, system: str | None, per_msg: int, reserved: int) -> _Plan:
        pool = self._pool(doc)
        if len(pool) < n:  # never fewer shots in silence: lm-eval's first_n refuses this itself
            raise ValueError(f"[{self.task.config.task}] {n} shots requested but the few-shot pool has {len(pool)}")
        pool = pool[:n]
        key = (self._table, self.settings.key(), n, system, per_msg, reserved, self._pool_key(n), self._key(doc))
        plan = _PLANS.get(key)
        if plan is not None:
            return plan
        budget = self.settings.max_context_tokens
        count = self.settings.counter
        fixed_extra = (count(system) if system else 0) + reserved + count.special_tokens
        if count.has_bound:  # most prompts fit with room to spare: decided without counting (same plan)
            for exact_shots in (False, True):
                plan = self._plan_by_bound(doc, pool, system, per_msg, fixed_extra, exact_shots)
                if plan is not None:
                    _PLANS[key] = plan
                    return plan

        def fixed_tokens(t: TemplateText, d: dict) -> int:
            desc = _render(t.description, d)
            return (
                self._count_instruction(desc)
                + count(_render(t.doc_to_text, d))
                + fixed_extra
                + per_msg * (2 if desc or system else 1)
            )

        shots = {t.id: [self._shot_tokens(t, s) + 2 * per_msg for s in pool] for t in self.templates}
        fixed = {t.id: fixed_tokens(t, doc) for t in self.templates}
        fits = {t.id: fit_prefix(fixed[t.id], shots[t.id], budget) for t in self.templates}
        k = min(fits.values())
        bound_by = min(i for i, f in fits.items() if f == k)  # of the templates that limit it, the first by id
        short = None
        if k == 0 and any(v > budget for v in fixed.values()):
            field = self.settings.truncate_field
            value = doc.get(field)
            if isinstance(value, str):
                short = truncate_to_fit(
                    value,
                    lambda v: all(fixed_tokens(t, {**doc, field: v}) <= budget for t in self.templates),
                    self._cut,
                )
                fixed = {t.id: fixed_tokens(t, {**doc, field: short}) for t in self.templates}
        plan = _Plan(k, short, bound_by if k < n else None, {i: fixed[i] + sum(shots[i][:k]) for i in fixed})
        _PLANS[key] = plan
        return plan

    def _plan_by_bound(
        self, doc: dict, pool: list, system: str | None, per_msg: int, fixed_extra: int, exact_shots: bool
    ) -> _Plan | None:
        """Step 2 decided by upper bounds (:meth:`TokenCounter.bound`; with ``exact_shots`` the shots' exact
        counts, cached per shot, and bounds of the rest): when every template's whole prompt with all ``n`` shots,
        plus the join slack, is bounded by the budget, the counted plan would keep all shots, cut nothing and be
        bound by no template — this plan, reached without counting the document. Its totals are the bounds (at
        least the counts), so the assembled prompt is counted again no more often than after counting. None when a
        bound does not fit (then everything is counted)."""
        budget, bound = self.settings.max_context_tokens, self.settings.counter.bound
        shot = self._shot_tokens if exact_shots else self._shot_bound
        slack = _join_slack(len(pool))
        totals = {}
        for t in self.templates:
            desc = _render(t.description, doc)
            total = (
                bound(desc)
                + bound(_render(t.doc_to_text, doc))
                + fixed_extra
                + per_msg * (2 if desc or system else 1)
                + sum(shot(t, s) + 2 * per_msg for s in pool)
            )
            if total + slack > budget:
                return None
            totals[t.id] = total
        return _Plan(len(pool), None, None, totals)

    def _pool(self, doc: dict) -> list:
        """The pool ``first_n`` takes from (the eval doc removed only when shots come from the test split)."""
        task = self.task
        sampler = getattr(task, "sampler", None)
        pool = list(sampler.df) if sampler is not None else []
        if task.fewshot_cfg.split is not None and task.fewshot_cfg.split == task.config.test_split:
            pool = list(sampler.rm_eval_doc(doc, pool))
        return pool

    def _pool_key(self, n: int) -> str:
        sampler = getattr(self.task, "sampler", None)
        key = (id(sampler), n)  # the task's current sampler (one per question for a dataset made of questions)
        if key not in self._pool_keys:
            head = list(sampler.df)[: n + 1] if sampler is not None else []
            self._pool_keys[key] = hashlib.sha1("".join(doc_key(d) for d in head).encode()).hexdigest()
        return self._pool_keys[key]

    def _shot_tokens(self, template: TemplateText, shot: dict) -> int:
        """Tokens of ``shot`` rendered with ``template``'s ``doc_to_text`` (target and delimiters: the task's,
        shared by every template of a table)."""
        key = (template, id(shot))  # shots are the sampler's own (long-lived) dicts
        if key not in self._shot_cache:
            self._shot_cache[key] = self.settings.counter(self._shot_text(template, shot))
        return self._shot_cache[key]

    def _shot_bound(self, template: TemplateText, shot: dict) -> int:
        """An upper bound of :meth:`_shot_tokens` (the count itself once counted)."""
        key = (template, id(shot))
        if key in self._shot_cache:
            return self._shot_cache[key]
        if key not in self._shot_bounds:
            self._shot_bounds[key] = self.settings.counter.bound(self._shot_text(template, shot))
        return self._shot_bounds[key]

    def _shot_text(self, template: TemplateText, shot: dict) -> str:
        task = self.task
        cfg = task.fewshot_cfg
        target = task.doc_to_target(shot, cfg.doc_to_target)
        if isinstance(target, list):
            target = target[0] if target else ""
        if isinstance(target, int) and cfg.doc_to_choice is not None:
            target = task.doc_to_choice(shot, cfg.doc_to_choice)[target]
        return (
            _render(template.doc_to_text, shot)
            + str(cfg.target_delimiter or "")
            + str(target)
            + str(cfg.fewshot_delimiter or "")
        )

    def _count_instruction(self, text: str) -> int:
        """Tokens of a rendered description (mostly the same text for every document: counted once)."""
        if text not in self._instruction_cache:
            if len(self._instruction_cache) > 4096:
                self._instruction_cache.clear()
            self._instruction_cache[text] = self.settings.counter(text)
        return self._instruction_cache[text]

    def _reserved_tokens(self, doc: dict) -> int:
        """Tokens the backend adds after the prompt: ``max_gen_toks`` for generation, the longest answer choice
        (with the target delimiter) for log-likelihood tasks."""
        cfg = self.task.config
        if cfg.output_type == "generate_until":
            try:
                return int((cfg.generation_kwargs or {}).get("max_gen_toks", DEFAULT_MAX_GEN_TOKS))
            except (TypeError, ValueError):
                return DEFAULT_MAX_GEN_TOKS
        if cfg.doc_to_choice is None:
            return 0
        delim = str(cfg.target_delimiter or "")
        return max((self.settings.counter(delim + str(c)) for c in self.task.doc_to_choice(doc)), default=0)

    def _prompt_tokens(self, prompt, reserved: int) -> int:
        text = prompt if isinstance(prompt, str) else "".join(prompt)
        return self.settings.counter(text) + self.settings.counter.special_tokens + reserved

    # -- reporting -------------------------------------------------------------------------------------------
    def _record(self, doc: dict, rec: Outcome) -> None:
        key = self._key(doc)
        old = self._records.pop(key, None)  # the same document built again (e.g. --write_out): replace it
        if old is not None:
            self._tally(old, -1)
        self._records[key] = rec
        self._tally(rec, 1)
        if rec.cut:
            log.debug(
                "[%s] prompt cut to %d of %d shots%s",
                self.task.config.task,
                rec.shots_used,
                rec.shots_requested,
                " and truncated" if rec.truncated else "",
            )
        meta = self.task.config.metadata
        if isinstance(meta, dict):
            meta["prompt_budget"] = self.summary(rec.shots_requested)

    def _tally(self, rec: Outcome, sign: int) -> None:
        t = self._totals
        t["prompts"] += sign
        t["cut"] += sign * rec.cut
        t["truncated"] += sign * rec.truncated
        t["over_plan"] += sign * bool(rec.over_plan)
        t["shots"] += sign * rec.shots_used
        if rec.bound_by:
            self._bound_by[rec.bound_by] += sign
        self._min_shots = (
            min(self._min_shots, rec.shots_used)
            if sign > 0
            else min((r.shots_used for r in self._records.values()), default=math.inf)
        )

    def summary(self, shots_requested: int) -> dict[str, Any]:
        t = self._totals
        return {
            **self.settings.summary(),
            "reserved_tokens": self._reserved_max,
            "shots_requested": shots_requested,
            "prompts": t["prompts"],
            "prompts_cut": t["cut"],
            "prompts_truncated": t["truncated"],
            "prompts_over_plan": t["over_plan"],
            "planned_over_templates": [tpl.id for tpl in self.templates],
            "plan_bound_by": {k: v for k, v in sorted(self._bound_by.items()) if v},
            "min_shots_used": self._min_shots,
            "mean_shots_used": t["shots"] / t["prompts"],
        }
