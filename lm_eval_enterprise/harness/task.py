"""The lm-eval task class of every enterprise task: ``class: !function lm_eval_enterprise.harness.task.EnterpriseTask``.

lm-eval 0.4.13 builds a task whose (included) YAML has a ``class:`` key with ``cls(config=<the merged YAML>)``
(``lm_eval/tasks/_factory.py``; the index marks it ``PY_TASK``, the rest of the YAML — ``include:``, prompts,
metrics, ``--metadata`` — is handled as for any YAML task). :class:`EnterpriseTask` is a plain
``ConfigurableTask`` subclass that adds, through overridden methods only (nothing of lm-eval is replaced):

* ``fewshot_context``: the context budget of :mod:`lm_eval_enterprise.prompting.budget` (the shots that fit the
  model's context, the same per document for every template of the dataset; the long field cut when nothing else
  helps). The prompt itself is lm-eval's own ``fewshot_context`` with that many ``first_n`` shots, so a prompt that
  fits is byte-identical to lm-eval's.
* ``process_results``: adds the per-document ``shots_used`` / ``prompt_cut`` of the budget and ``score`` (the
  primary metric's item under the common name every group aggregates; see :mod:`lm_eval_enterprise.prompting.templating`),
  and for a dataset made of questions (gold_news) the item again under ``<primary>_<question>``, the question's
  own score.
* shots of a dataset made of questions: each document's from its own question's pool (``_use_question_pool``).
* ``download``: calls the ``custom_dataset`` loader as lm-eval does (same arguments), without lm-eval's advice to
  pass kwargs through ``--metadata``, which it logs as a 2-line warning for every task with a ``custom_dataset``
  (130 lines in the demo; our README documents the ``--metadata`` keys). Then merges the facts the loader computed
  from the data (returned with it by :func:`lm_eval_enterprise.data.load_task_data`, e.g. the label list actually
  used, row counts) into the task's ``metadata``, so they are written to ``results["configs"][task]["metadata"]``.
* ``build_all_requests``: with ``--limit``, a classification task whose evaluated documents lack
  gold classes of the label set says so once in the log and in its metadata (``eval_subset``), then lm-eval's own.
* ``doc_to_text`` / ``doc_to_target`` / ``doc_to_choice`` / ``resolve_field``: Jinja prompts rendered with a
  compiled-template cache (:mod:`lm_eval_enterprise.prompting.speedups`; same output, version-guarded, falls back to
  lm-eval's own rendering).
"""

from __future__ import annotations

import ast
from functools import cached_property
from typing import Any

from lm_eval.api.task import ConfigurableTask

from .. import families
from ..configkeys import QUESTION_FIELD, SCORE_METRIC
from ..prompting import speedups
from ..prompting.budget import PromptBudget
from ..taskmeta import TaskMeta


class EnterpriseTask(ConfigurableTask):
    """``ConfigurableTask`` with the context budget, data facts in the metadata and cached prompt rendering."""

    def __init__(self, config: dict | None = None, **kwargs: Any) -> None:
        self._budget: PromptBudget | None = None
        self._question_samplers: dict | None = None  # question → first_n sampler (datasets made of questions)
        self._eval_list: list[dict] | None = None  # the evaluation documents, read once (eval_docs)
        self._shot_docs: dict[int, dict] | None = None  # id → document of the few-shot pool
        self._shot_texts: dict[tuple[int, str], str] = {}  # (shot, template) → its rendering
        config = {k: v for k, v in (config or {}).items() if k != "class"}  # the YAML key that selected us
        super().__init__(config=config, **kwargs)
        self._built = True

    @property
    def eval_docs(self):
        """lm-eval's evaluation documents, read from the dataset once and kept as a list: lm-eval iterates them
        when it builds the requests and again when it scores them (each pass over a ``datasets.Dataset`` decodes
        every row again), and the context budget meets the same document objects at both (its per-document
        records). During lm-eval's ``__init__`` (which reads the dataset's ``features``) the dataset itself."""
        if not getattr(self, "_built", False):
            return super().eval_docs
        if self._eval_list is None:
            self._eval_list = list(super().eval_docs)
        return self._eval_list

    # -- data facts into the results metadata -----------------------------------------------------------------
    def download(self, dataset_kwargs: dict[str, Any] | None = None, **kwargs: Any) -> None:
        from ..data import load_task_data, load_task_dataset

        facts: dict[str, Any] = {}
        loader = self.config.custom_dataset
        if loader is load_task_dataset:  # our loader: the data and the facts computed from it, returned together
            self.dataset, facts = load_task_data(**(self.config.metadata or {}), **(self.config.dataset_kwargs or {}))
        elif callable(loader):  # lm-eval 0.4.13's call, minus its per-task warning
            self.dataset = loader(**(self.config.metadata or {}), **(self.config.dataset_kwargs or {}))
        else:
            super().download(dataset_kwargs, **kwargs)
        if facts and isinstance(self.config.metadata, dict):
            self.config.metadata.update(facts)

    # -- a limited run: the gold classes it lacks ----------------------------------------------------------------
    def build_all_requests(self, *, limit: int | None = None, **kwargs: Any) -> None:
        self._require_shots()
        self._note_subset(limit)
        super().build_all_requests(limit=limit, **kwargs)

    def _require_shots(self) -> None:
        """A run asking for shots of a dataset whose data folder holds no few-shot pool (an evaluation file alone,
        which zero-shot runs accept: ``Source.fewshot_optional``) fails with one line instead of running
        zero-shot silently."""
        k = int(self.config.num_fewshot or 0)
        split = self.config.fewshot_split
        if k > 0 and split and self.dataset is not None and split in self.dataset and len(self.dataset[split]) == 0:
            from ..errors import DataError

            meta = self.config.metadata if isinstance(self.config.metadata, dict) else {}
            raise DataError(
                TaskMeta.from_metadata(meta).dataset or self.config.task,
                meta.get("data_dir"),  # a fact of the loader (lm_eval_enterprise.data.load_task_data)
                f"--num_fewshot {k} asks for shots, but this copy of the data has no few-shot pool (no training "
                "file); run zero-shot or provide the training file",
            )

    def _note_subset(self, limit: int | None) -> None:
        """With ``--limit N`` (the first N documents of the fair order; a sparse plan with ``--limit`` plans over
        the same N), a classification task whose evaluated documents lack gold classes of its label set says so once
        in the log and in its metadata (``eval_subset``; :func:`lm_eval_enterprise.data.order.subset_notice`)."""
        meta = self.config.metadata
        if limit is None or not isinstance(meta, dict):
            return
        task_meta = TaskMeta.from_metadata(meta)
        fam = families.find(task_meta.task_family)
        if fam is None or fam.records != "labels":  # the classification families: gold classes of a label set
            return
        docs = self.eval_docs
        if not 0 < limit < len(docs):
            return
        from ..data.order import subset_notice

        chosen = [docs[i] for i in range(int(limit))]
        meta.update(subset_notice(task_meta.dataset or self.config.task, chosen, chosen[0]["label_names"], len(docs)))

    # -- the context budget ----------------------------------------------------------------------------------
    @property
    def budget(self) -> PromptBudget:
        """Created at the first prompt (after lm-eval has applied ``--gen_kwargs`` and the task name)."""
        if self._budget is None:
            self._budget = PromptBudget(self)
        return self._budget

    def fewshot_context(
        self,
        doc: dict,
        num_fewshot: int,
        system_instruction: str | None = None,
        apply_chat_template: bool = False,
        fewshot_as_multiturn: bool = False,
        chat_template=None,
        gen_prefix: str | None = None,
    ):
        def render(d: dict, k: int):
            return super(EnterpriseTask, self).fewshot_context(
                d,
                k,
                system_instruction=system_instruction,
                apply_chat_template=apply_chat_template,
                fewshot_as_multiturn=fewshot_as_multiturn,
                chat_template=chat_template,
                gen_prefix=gen_prefix,
            )

        self._use_question_pool(doc)
        return self.budget.build(
            doc,
            int(num_fewshot or 0),
            render,
            system_instruction=system_instruction,
            chat=bool(apply_chat_template and chat_template),
        )

    def _use_question_pool(self, doc: dict) -> None:
        """A document of a dataset made of questions (``question_id``, see :func:`lm_eval_enterprise.data.load
        ._all_questions`) takes its shots from its own question's [BAL]-ordered pool: the task's sampler is the
        ``first_n`` sampler of that question's records of the ``fewshot`` split (built once per question), so its
        prompt is the one the question alone gives. Other documents keep lm-eval's sampler."""
        question = doc.get(QUESTION_FIELD)
        if question is None or not hasattr(self, "sampler"):
            return
        if self._question_samplers is None:
            self._is_shot(doc)  # the whole pool's documents, before the sampler is one question's
            pools: dict[str, list[dict]] = {}
            for shot in self.sampler.df:
                pools.setdefault(shot.get(QUESTION_FIELD), []).append(shot)
            self._question_samplers = {q: type(self.sampler)(docs, rnd=None) for q, docs in pools.items()}
        if question not in self._question_samplers:
            raise ValueError(f"[{self.config.task}] the few-shot split has no examples of question {question!r}")
        self.sampler = self._question_samplers[question]

    @cached_property
    def _primary_metric(self) -> str | None:
        """``metadata.primary_metric`` (read once: the generated metadata does not change during a run)."""
        return TaskMeta.from_config(self.config).primary_metric

    def process_results(self, doc: dict, results):
        out = super().process_results(doc, results)
        if not isinstance(out, dict):
            return out
        primary = self._primary_metric
        if primary in out and SCORE_METRIC in self.aggregation():  # declared by the generated metric_list
            out = {**out, SCORE_METRIC: out[primary]}
        per_question = f"{primary}_{doc.get(QUESTION_FIELD)}"
        if primary in out and per_question in self.aggregation():  # the question's own score (generated list)
            out = {**out, per_question: out[primary]}
        rec = self._budget.outcome(doc) if self._budget is not None else None
        if rec is not None:
            reports = {"shots_used": float(rec.shots_used), "prompt_cut": float(rec.cut)}
            out = {**out, **{k: v for k, v in reports.items() if k in self.aggregation()}}  # declared ones only
        return out

    # -- prompt rendering (cached compile; same text as lm-eval's) ---------------------------------------------
    def _rendered(self, value, doc) -> str | None:
        """``value`` rendered as lm-eval's ``apply_template`` would, when it is a Jinja template (not a field name)
        and the fast renderer may be used; else None (then lm-eval's own method handles it)."""
        if (
            self.prompt is None
            and isinstance(value, str)
            and value not in getattr(self, "features", ())
            and speedups.enabled()
        ):
            key = (id(doc), value)
            text = self._shot_texts.get(key)
            if text is None:
                text = speedups.render(value, doc)
                if self._is_shot(doc):  # rendered for every prompt that shows it: kept
                    self._shot_texts[key] = text
            return text
        return None

    def _is_shot(self, doc) -> bool:
        """``doc`` is one of the few-shot pool's documents (the sampler's own dicts, alive as long as the task:
        their ids stay theirs, so their renderings can be kept by id)."""
        if self._shot_docs is None:
            sampler = getattr(self, "sampler", None)
            if sampler is None:
                return False
            self._shot_docs = {id(d): d for d in sampler.df}
        return self._shot_docs.get(id(doc)) is doc

    def _choice_index(self, text: str):
        """lm-eval's rule: a rendered digit string is a choice index when the task has choices."""
        return ast.literal_eval(text) if text.isdigit() and self._config.doc_to_choice is not None else text

    def doc_to_text(self, doc, doc_to_text=None):
        text = self._rendered(doc_to_text if doc_to_text is not None else self.config.doc_to_text, doc)
        return super().doc_to_text(doc, doc_to_text) if text is None else self._choice_index(text)

    def doc_to_target(self, doc, doc_to_target=None):
        target = self._rendered(doc_to_target if doc_to_target is not None else self.config.doc_to_target, doc)
        if target is None:
            return super().doc_to_target(doc, doc_to_target)
        value = self._choice_index(target)
        if value is target and len(target) >= 2 and target[0] == "[" and target[-1] == "]":
            try:
                return ast.literal_eval(target)  # a list of targets
            except (SyntaxError, ValueError):
                return target
        return value

    def doc_to_choice(self, doc, doc_to_choice=None):
        text = self._rendered(doc_to_choice if doc_to_choice is not None else self.config.doc_to_choice, doc)
        return super().doc_to_choice(doc, doc_to_choice) if text is None else ast.literal_eval(text)

    @staticmethod
    def resolve_field(doc: dict[str, Any], field: str | None = None):
        if field:
            return doc[field] if field in doc else speedups.render(field, doc)
