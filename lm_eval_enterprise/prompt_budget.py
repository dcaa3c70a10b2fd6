"""Few-shot prompts that fit a context budget ([BAL] last paragraph, [TRUNC] of DATASETS.md), for any backend.

HELM builds the k-shot prompt, and when it exceeds the context window it drops shots from the end until it fits,
then truncates the prompt from the right. lm-eval 0.4.13 has nothing like it (the ``hf`` backend silently cuts
the prompt from the LEFT, losing the instructions; API/vLLM backends fail or cut as they like), so the budget is
enforced where the prompt is built, independent of the model backend:

.. code-block:: yaml

    fewshot_split: fewshot                      # the [BAL]-ordered pool of the data layer
    fewshot_config:
      sampler: !function lm_eval_enterprise.prompt_budget.BudgetFewshotSampler
    metric_list:                                # per-doc reports (mean over docs)
      - {metric: shots_used, aggregation: mean, higher_is_better: true}
      - {metric: prompt_cut, aggregation: mean, higher_is_better: false}

Behaviour per evaluation document (``n`` = ``num_fewshot``):

1. Take the first ``n`` items of the few-shot split (exactly lm-eval's ``first_n``; the eval document is removed
   from the pool only when the few-shot split is the test split, as ``first_n`` does).
2. Plan the number of shots ONCE PER DOCUMENT FOR ALL TEMPLATE VARIANTS of the dataset, so that variants never
   differ in data or shots (the Sharpe score's σ across templates must measure wording only). For every
   template ``t`` of the task's template table (:func:`sibling_templates`: the ``templates.py`` of the dataset
   named by the task's ``metadata.domain`` / ``metadata.dataset`` and ``dataset_kwargs.dataset_id``; the task's
   own template is always included) the prompt size is estimated by parts: description (+ system instruction)
   + every shot (``doc_to_text`` + target delimiter + ``doc_to_target`` + few-shot delimiter) + the eval
   ``doc_to_text`` + ``max_gen_toks`` of the task's ``generation_kwargs`` (lm-eval's default 256 when unset) +
   a per-message overhead under a chat template. For each ``t`` the largest prefix of shots (drop TRAILING
   shots) that fits ``max_context_tokens`` is computed; the plan is the MINIMUM over the templates, i.e. the
   per-dataset allowance for instructions/labels is that of the most demanding template, exactly, per
   document. The plan depends only on the document, the shot pool, the dataset's template table and the run
   settings, never on which variant is being built. A task without a template table (any non-enterprise task)
   is planned from its own template alone.
3. Last resort, per template: the assembled prompt is counted again as one string (e.g. a tokenizer merges
   differently than by parts, or the chat markup is longer than ``chat_overhead_tokens``); a further shot is
   dropped while it still does not fit. Such drops are counted per document (``prompt_cut`` = 1) and in the
   metadata summary (``prompts_over_plan``) and logged as a warning: never silent.
4. If no shot is left and it still does not fit, the eval document's text field (``context_truncate_field``,
   default ``text``) is truncated word-wise keeping its BEGINNING ([TRUNC]) until the prompt fits under EVERY
   template of the table (so the truncated text is also the same for every variant) and the assembled prompt
   fits. The logged ``doc`` and its ``doc_hash`` are unchanged (the truncated copy is only used for the prompt).

When everything fits, the prompt is byte-identical to ``first_n``'s.

Settings (task ``metadata``; ``--metadata '{...}'`` overrides them for a run):

* ``max_context_tokens`` (default :data:`DEFAULT_MAX_CONTEXT_TOKENS` = 2048, the paper's setting; ``0``/``null``
  disables the budget);
* ``context_tokenizer``: a Hugging Face tokenizer name or folder for exact counts (``transformers``
  ``AutoTokenizer``; loaded once, offline from the HF cache when ``HF_HUB_OFFLINE=1``). Without it, tokens are
  estimated as ``ceil(chars / context_chars_per_token)``;
* ``context_chars_per_token`` (default :data:`DEFAULT_CHARS_PER_TOKEN` = 3.0): deliberately conservative. Measured
  with the SmolLM2 tokenizer (digits are single tokens) on the real samples: 3.4 characters per token on
  KPI-EDGAR (number-heavy), 4.4 on the SEC loan agreements; other tokenizers (Llama-3, GPT-4o) pack more.
  Over-estimating drops a shot that would have fit; under-estimating lets the backend cut the prompt;
* ``chat_overhead_tokens`` (default 8): added per chat message when the prompt is rendered with a chat template;
* ``context_truncate_field`` (default ``text``): the document field truncated in step 4.

Reporting: the per-doc metrics ``shots_used`` (shots in the prompt) and ``prompt_cut`` (1 when shots were dropped
or the text truncated) — results report their means per task — and a summary in the task's metadata
(``results["configs"][task]["metadata"]["prompt_budget"]``: settings, number of prompts, prompts cut, prompts
truncated, prompts over plan (step 3), the template ids the plan was made over, min/mean shots used).

How it hooks into lm-eval 0.4.13 (``api/task.py``, ``api/samplers.py``): ``ConfigurableTask.__init__`` builds
the sampler as ``sampler_cls(fewshot_docs, rnd=None)`` and ``fewshot_context`` calls
``sampler.sample(n=num_fewshot, eval_doc=None)`` (``eval_doc`` is only passed when the few-shot split is the test
split), so a sampler sees neither its task nor the document being prompted. The sampler therefore finds the task
that constructs it (the nearest calling frame whose ``self`` is an lm-eval ``Task``) and wraps that task
instance's ``fewshot_context`` (to see the document, plan the shots and truncate) and ``process_results`` (to add
the per-doc metrics). Without such a task (e.g. a future lm-eval that builds samplers elsewhere) it logs a
warning and behaves exactly like ``first_n``. Requests loaded with ``--cache_requests`` were not built in this
run: no per-doc report is available then, and the metrics are omitted rather than invented.
"""
from __future__ import annotations

import hashlib
import json
import logging
import math
import sys
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable, Sequence

from lm_eval.api.samplers import FirstNSampler

log = logging.getLogger("lm_eval_enterprise.prompt_budget")

DEFAULT_MAX_CONTEXT_TOKENS = 2048
DEFAULT_CHARS_PER_TOKEN = 3.0
DEFAULT_MAX_GEN_TOKS = 256       # lm-eval's default when generation_kwargs has no max_gen_toks
DEFAULT_CHAT_OVERHEAD = 8        # tokens per chat message (role markers, separators)
DEFAULT_TRUNCATE_FIELD = "text"
REPORT_METRICS = ("shots_used", "prompt_cut")
# for templating.DatasetTasks(fewshot_sampler=BUDGET_SAMPLER, extra_metrics=BUDGET_METRICS)
BUDGET_SAMPLER = "lm_eval_enterprise.prompt_budget.BudgetFewshotSampler"
BUDGET_METRICS: dict[str, tuple[str, bool]] = {"shots_used": ("mean", True), "prompt_cut": ("mean", False)}


# ------------------------------------------------------------------------------------------------ token counting
class TokenCounter:
    """Counts tokens of a string: exactly with a HF tokenizer, else ``ceil(len(text) / chars_per_token)``."""

    def __init__(self, tokenizer: str | None = None, chars_per_token: float = DEFAULT_CHARS_PER_TOKEN):
        if chars_per_token <= 0:
            raise ValueError(f"chars_per_token must be > 0, not {chars_per_token}")
        self.tokenizer_name = tokenizer or None
        self.chars_per_token = float(chars_per_token)
        self._tok = _load_tokenizer(tokenizer) if tokenizer else None

    def __call__(self, text: str) -> int:
        if not text:
            return 0
        if self._tok is not None:
            return len(self._tok(text, add_special_tokens=False)["input_ids"])
        return math.ceil(len(text) / self.chars_per_token)

    @property
    def special_tokens(self) -> int:
        """Tokens a backend adds around a prompt (e.g. BOS): counted once per prompt."""
        if self._tok is None:
            return 1
        return len(self._tok("", add_special_tokens=True)["input_ids"])

    def describe(self) -> str:
        return (f"tokenizer:{self.tokenizer_name}" if self._tok is not None
                else f"chars/{self.chars_per_token:g}")


@lru_cache(maxsize=8)
def _load_tokenizer(name: str):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(name)


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


def truncate_words_to_fit(text: str, fits: Callable[[str], bool]) -> str:
    """Longest word-prefix of ``text`` (words re-joined by single spaces) for which ``fits`` holds ([TRUNC]:
    keep the beginning, never the end). ``text`` itself is returned if it fits; ``""`` if nothing does."""
    if fits(text):
        return text
    words = text.split()
    lo, hi = 0, len(words)  # invariant: words[:lo] fits (or lo == 0), words[:hi] does not
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if fits(" ".join(words[:mid])):
            lo = mid
        else:
            hi = mid
    return " ".join(words[:lo])


def doc_key(doc: dict) -> str:
    """Content hash of a document (the same dict content at request-building and at scoring time)."""
    blob = json.dumps(doc, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha1(blob.encode("utf-8")).hexdigest()


@dataclass
class BudgetSettings:
    max_context_tokens: int | None
    counter: TokenCounter
    chat_overhead: int
    truncate_field: str

    @classmethod
    def from_metadata(cls, metadata: dict | None) -> "BudgetSettings":
        meta = metadata or {}
        raw = meta.get("max_context_tokens", DEFAULT_MAX_CONTEXT_TOKENS)
        budget = int(raw) if raw not in (None, "", "none", "None") else None
        if budget is not None and budget <= 0:
            budget = None
        counter = TokenCounter(meta.get("context_tokenizer") or None,
                               float(meta.get("context_chars_per_token", DEFAULT_CHARS_PER_TOKEN)))
        return cls(budget, counter, int(meta.get("chat_overhead_tokens", DEFAULT_CHAT_OVERHEAD)),
                   str(meta.get("context_truncate_field", DEFAULT_TRUNCATE_FIELD)))


# ------------------------------------------------------------------------------------------------ template table
@dataclass(frozen=True)
class TemplateText:
    """The template-dependent prompt parts of one variant: id, ``description`` and ``doc_to_text`` (Jinja)."""
    id: str
    description: str
    doc_to_text: str


def sibling_templates(task) -> list[TemplateText]:
    """Every template variant of ``task``'s dataset table (the task's own template first, then the others of
    its ``templates.py`` in table order), as rendered into the generated YAMLs (subtask variables filled in).

    Found from the generated config: ``metadata.domain``, ``metadata.dataset`` (the table id),
    ``metadata.subtask`` and ``dataset_kwargs.dataset_id``. Returns only the task's own template when the task
    has no such table (e.g. a hand-written YAML) or the table cannot be imported (logged)."""
    cfg = task.config
    meta = cfg.metadata if isinstance(cfg.metadata, dict) else {}
    own = TemplateText(str(meta.get("template_id", "own")), cfg.description or "", cfg.doc_to_text)
    if not isinstance(own.doc_to_text, str):
        return [own]
    dataset_id = (cfg.dataset_kwargs or {}).get("dataset_id")
    domain, table = meta.get("domain"), meta.get("dataset")
    if not (dataset_id and domain and table):
        return [own]
    try:
        from .templating import _fill, load_specs

        spec = next(s for s in load_specs(None, domain, dataset_id) if s.table_id == table)
    except Exception as exc:  # noqa: BLE001 — plan from the own template, but say so
        log.warning("[%s] template table %s/%s not found (%s); shots planned from this template only",
                    cfg.task, domain, table, exc)
        return [own]
    variables = dict(spec.subtasks.get(meta.get("subtask"), {})) if meta.get("subtask") else {}
    out = [own]
    for tpl in spec.templates:
        t = TemplateText(tpl.id, _fill(tpl.description, variables) if tpl.description else "",
                         _fill(tpl.doc_to_text, variables))
        if (t.description, t.doc_to_text) != (own.description, own.doc_to_text):
            out.append(t)
    return out


def _render(template: str, doc: dict) -> str:
    from lm_eval.utils import apply_template

    if not template:
        return ""
    if template in doc:  # a bare field name, as lm-eval's doc_to_text / resolve_field treat it
        return str(doc[template])
    return apply_template(template, doc)


# ------------------------------------------------------------------------------------------------ lm-eval glue
def find_calling_task(max_depth: int = 8):
    """The lm-eval ``Task`` instance among the callers' ``self`` (nearest first), or ``None``."""
    from lm_eval.api.task import Task

    frame = sys._getframe(1)
    for _ in range(max_depth):
        frame = frame.f_back
        if frame is None:
            return None
        candidate = frame.f_locals.get("self")
        if isinstance(candidate, Task):
            return candidate
    return None


@dataclass
class _Record:
    shots_used: int
    shots_requested: int
    truncated: bool
    over_plan: int = 0  # shots dropped by the last-resort check of the assembled prompt (step 3)

    @property
    def cut(self) -> bool:
        return self.truncated or self.shots_used < self.shots_requested


class BudgetFewshotSampler(FirstNSampler):
    """``first_n`` few-shot sampler that keeps the prompt within a token budget (see the module docstring)."""

    def __init__(self, df=None, *, rnd=None, fewshot_indices=None, **kwargs):
        super().__init__(df, rnd=rnd, fewshot_indices=fewshot_indices, **kwargs)
        self._plan_k: int | None = None
        self._records: dict[str, _Record] = {}
        self._stats = {"prompts": 0, "cut": 0, "truncated": 0, "over_plan": 0, "shots": 0, "min": float("inf")}
        self._templates: list[TemplateText] | None = None
        self._shot_cache: dict[tuple, int] = {}
        self.task = find_calling_task()
        if self.task is None:
            log.warning("BudgetFewshotSampler: not constructed by an lm-eval task; behaving like first_n "
                        "(no context budget, no shots_used report)")
            return
        self._install(self.task)

    # -- sampling (what lm-eval calls) ------------------------------------------------------------------------
    def sample(self, n: int, eval_doc=None, df=None, **kwargs):
        shots = super().sample(n, eval_doc=eval_doc, df=df, **kwargs)
        if self._plan_k is not None:
            return shots[: self._plan_k]
        return shots

    # -- task hooks -------------------------------------------------------------------------------------------
    def _install(self, task) -> None:
        import inspect

        original_context = task.fewshot_context
        original_results = task.process_results
        signature = inspect.signature(original_context)

        def fewshot_context(*args, **kwargs):
            bound = signature.bind(*args, **kwargs)
            return self._build(original_context, task, dict(bound.arguments))

        def process_results(doc, results):
            out = original_results(doc, results)
            rec = self._records.get(doc_key(doc))
            if rec is not None and isinstance(out, dict):
                out = {**out, "shots_used": float(rec.shots_used), "prompt_cut": float(rec.cut)}
            return out

        for name in REPORT_METRICS:  # reported by the wrapper below, never computed by lm-eval's metric loop
            if getattr(task, "_metric_fn_list", {}).get(name, 0) is None:
                del task._metric_fn_list[name]
        fewshot_context.__wrapped__ = original_context
        process_results.__wrapped__ = original_results
        task.fewshot_context = fewshot_context
        task.process_results = process_results

    def _build(self, original, task, arguments: dict):
        """Plan the shots for ``arguments["doc"]``, render with ``original`` (the task's own fewshot_context),
        verify the assembled prompt, truncate if needed, and record the outcome."""
        doc = arguments["doc"]
        settings = BudgetSettings.from_metadata(task.config.metadata)
        n = int(arguments.get("num_fewshot") or 0)

        def render(d: dict, k_: int | None):
            self._plan_k = k_
            try:
                return original(**{**arguments, "doc": d})
            finally:
                self._plan_k = None

        if settings.max_context_tokens is None:
            prompt = render(doc, None)
            self._record(task, doc, _Record(n, n, False), settings)
            return prompt

        budget = settings.max_context_tokens
        count = settings.counter
        system = arguments.get("system_instruction")
        chat = bool(arguments.get("apply_chat_template")) and arguments.get("chat_template") is not None
        per_msg = settings.chat_overhead if chat else 0
        max_gen = _max_gen_toks(task)
        pool = self._pool(task, doc)[:n]

        def prompt_tokens(p) -> int:
            text = p if isinstance(p, str) else "".join(p)
            return count(text) + count.special_tokens + max_gen

        templates = self._sibling_templates(task)
        fixed_extra = (count(system) if system else 0) + max_gen + count.special_tokens

        def fixed_tokens(t: TemplateText, d: dict) -> int:
            desc = _render(t.description, d)
            return (count(desc) + count(_render(t.doc_to_text, d)) + fixed_extra
                    + per_msg * (2 if (desc or system) else 1))

        def plan(d: dict) -> int:  # the same for every template of the table (step 2)
            return min(fit_prefix(fixed_tokens(t, d),
                                  [self._shot_tokens(task, t, s, count) + 2 * per_msg for s in pool], budget)
                       for t in templates)

        k = planned = plan(doc)
        prompt = render(doc, k)
        while k > 0 and prompt_tokens(prompt) > budget:  # last resort (step 3): reported as prompts_over_plan
            k -= 1
            prompt = render(doc, k)
        if k < planned:
            log.warning("[%s] assembled prompt exceeds %d tokens: %d shot(s) dropped beyond the template-"
                        "independent plan of %d", task.config.task, budget, planned - k, planned)
        truncated = False
        if k == 0 and (prompt_tokens(prompt) > budget or any(fixed_tokens(t, doc) > budget for t in templates)):
            prompt, truncated = self._truncate(render, doc, budget, prompt_tokens, settings, task,
                                               lambda d: all(fixed_tokens(t, d) <= budget for t in templates))
        self._record(task, doc, _Record(k, n, truncated, planned - k), settings)
        return prompt

    def _sibling_templates(self, task) -> list[TemplateText]:
        if self._templates is None:
            self._templates = sibling_templates(task)
        return self._templates

    def _truncate(self, render, doc, budget, prompt_tokens, settings, task, all_fit=lambda d: True):
        field = settings.truncate_field
        value = doc.get(field)
        if not isinstance(value, str):
            log.warning("[%s] prompt exceeds %d tokens even without shots and the document has no text field "
                        "%r to truncate; sent as is", task.config.task, budget, field)
            return render(doc, 0), False

        def fits(text: str) -> bool:  # under every template (same text for all variants) and as assembled
            short_doc = {**doc, field: text}
            return all_fit(short_doc) and prompt_tokens(render(short_doc, 0)) <= budget

        short = truncate_words_to_fit(value, fits)
        return render({**doc, field: short}, 0), True

    # -- helpers ----------------------------------------------------------------------------------------------
    def _pool(self, task, doc) -> list:
        """The pool ``first_n`` takes from (the eval doc removed only when shots come from the test split)."""
        pool = list(self.df)
        if task.fewshot_cfg.split is not None and task.fewshot_cfg.split == task.config.test_split:
            pool = list(self.rm_eval_doc(doc, pool))
        return pool

    def _shot_tokens(self, task, template: TemplateText, shot: dict, count: TokenCounter) -> int:
        """Tokens of ``shot`` rendered with ``template``'s ``doc_to_text`` (target and delimiters: the task's,
        which are shared by every template of a table)."""
        key = (id(task), template, doc_key(shot), count.describe())
        if key not in self._shot_cache:
            cfg = task.fewshot_cfg
            target = task.doc_to_target(shot, cfg.doc_to_target)
            if isinstance(target, list):
                target = target[0] if target else ""
            if isinstance(target, int) and cfg.doc_to_choice is not None:
                target = task.doc_to_choice(shot, cfg.doc_to_choice)[target]
            text = (_render(template.doc_to_text, shot) + str(cfg.target_delimiter or "")
                    + str(target) + str(cfg.fewshot_delimiter or ""))
            self._shot_cache[key] = count(text)
        return self._shot_cache[key]

    def _record(self, task, doc: dict, rec: _Record, settings: BudgetSettings) -> None:
        key = doc_key(doc)
        old = self._records.get(key)  # the same document built again (e.g. --write_out): replace its counts
        if old is not None:
            self._stats["prompts"] -= 1
            self._stats["cut"] -= old.cut
            self._stats["truncated"] -= old.truncated
            self._stats["over_plan"] -= bool(old.over_plan)
            self._stats["shots"] -= old.shots_used
        self._records[key] = rec
        st = self._stats
        st["prompts"] += 1
        st["cut"] += rec.cut
        st["truncated"] += rec.truncated
        st["over_plan"] += bool(rec.over_plan)
        st["shots"] += rec.shots_used
        st["min"] = min(st["min"], rec.shots_used) if old is None else min(r.shots_used for r in self._records.values())
        if rec.cut:
            log.debug("[%s] prompt cut to %d of %d shots%s", task.config.task, rec.shots_used,
                      rec.shots_requested, " and truncated" if rec.truncated else "")
        meta = task.config.metadata
        if isinstance(meta, dict):
            meta["prompt_budget"] = {
                "max_context_tokens": settings.max_context_tokens,
                "token_counter": settings.counter.describe(),
                "max_gen_toks": _max_gen_toks(task),
                "shots_requested": rec.shots_requested,
                "prompts": st["prompts"],
                "prompts_cut": st["cut"],
                "prompts_truncated": st["truncated"],
                "prompts_over_plan": st["over_plan"],
                "planned_over_templates": [t.id for t in self._sibling_templates(task)],
                "min_shots_used": st["min"],
                "mean_shots_used": st["shots"] / st["prompts"],
            }

    def report(self) -> dict[str, Any]:
        """Per-doc records (doc hash → shots used, requested, truncated) built so far (for tests and tools)."""
        return {k: {"shots_used": r.shots_used, "shots_requested": r.shots_requested, "truncated": r.truncated}
                for k, r in self._records.items()}


def _max_gen_toks(task) -> int:
    gen = task.config.generation_kwargs or {}
    try:
        return int(gen.get("max_gen_toks", DEFAULT_MAX_GEN_TOKS))
    except (TypeError, ValueError):
        return DEFAULT_MAX_GEN_TOKS
