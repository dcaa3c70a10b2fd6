"""The metadata of a template variant: one typed schema, written by the generator and read back by every consumer.

The YAML generator (:mod:`lm_eval_enterprise.prompting.templating`, and the template populations of
:mod:`lm_eval_enterprise.prompting.population`) writes :meth:`TaskMeta.to_metadata` into the ``metadata`` of every
variant YAML; lm-eval keeps it on the task (``task.config.metadata``) and writes it, together with the facts of the
run (``data_root``, the loader's row counts, ``prompt_budget``, a cell plan, …), into
``results["configs"][task]["metadata"]``. Every reader — the task class, the context budget, the cell planner,
constrained decoding, the demo and the Sharpe tool — reads it with :meth:`TaskMeta.from_config` (a task config or a
results ``configs`` entry) or :meth:`TaskMeta.from_metadata` (the ``metadata`` mapping itself), never by spelling
the keys again.

Reading is lenient, as results files come from older versions and hand-written YAMLs: a key that is absent reads as
``None`` / empty, and :attr:`TaskMeta.is_variant` says whether the metadata names a template variant at all
(``variant_group`` and ``template_id``). Keys outside the schema (a table's own facts, ``DatasetTasks.
extra_metadata``; in a results file also the run's facts) are kept in :attr:`TaskMeta.extra`, in their order, so
``from_metadata(m).to_metadata() == m`` for every generated variant. A key written by older versions and no longer
part of the schema (``budget_templates``: the sibling templates copied into every variant up to this schema; the
context budget now finds the table through the dataset registry) is dropped on reading.

This module imports nothing of lm-eval, so the Sharpe tool can read it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

TEMPLATE_SET_CORE = "core"  # the committed hand-written templates of ``templates.py``
TEMPLATE_SET_POPULATION = "population"  # a generated template population (``lm-eval-enterprise population``)
SUITE_ENTERPRISE = "enterprise"
# keys older versions wrote that no reader needs any more (dropped on reading, never written)
RETIRED_KEYS = ("budget_templates",)
# what a run adds beside the schema's keys (never generated; ``lm-eval-enterprise run`` and its cell planner write
# them into ``results["configs"][task]["metadata"]``): kept in ``TaskMeta.extra``, read through its properties
DATA_ROOT = "data_root"  # the data folder the run read (``embedded``: the package's fixtures)
TOY_DATA = "toy_data"  # True when the loader read fixture data
BASELINE = "baseline"  # a baseline stated with --metadata: a number, {value, method}, or metric → either
CELL_BUDGET = "cell_budget"  # ``run --cell_budget F``: the share of (template × document) cells planned
CELL_SEED = "cell_seed"  # the cell plan's seed
CELLS_PLANNED = "cells_planned"  # task → documents planned
CELL_DESIGN = "cell_design"  # variant group → the size of its full design
LEGACY_SUBTASK = "subtask"  # metric version <= 1.2: one task per question of a dataset made of questions


def _tuple(value: Any) -> tuple[str, ...]:
    """A list-valued key as a tuple of strings (absent or empty: ``()``)."""
    return tuple(str(v) for v in value) if isinstance(value, (list, tuple)) else ()


def _str(value: Any) -> str | None:
    """A string-valued key (absent or empty: ``None``)."""
    return str(value) if value not in (None, "") else None


@dataclass(frozen=True)
class TaskMeta:
    """The generated metadata of one template variant (see the module docstring); YAML key = field name.

    * identity: ``dataset`` (the template table: ``<dataset>`` or ``<dataset>_<variant>``), ``source_dataset`` (the
      loader's dataset id when it differs from the table's, e.g. ``fiqa_qa`` of ``fiqa_qa_gen``), ``domain``,
      ``suite`` / ``language`` / ``pair`` (written for the NLU suite only), ``variant_group`` (the dataset group the
      variant belongs to), ``template_id``, ``template_set`` (``core`` or ``population``);
    * scoring: ``primary_metric`` under the filter ``primary_filter``, ``task_family`` (a record of
      :mod:`lm_eval_enterprise.families`), ``answer_regex`` / ``answer_reader`` (generate tasks), ``helm_metrics``
      (HELM's own prompt), ``questions`` (a dataset made of questions: its questions, each a document field value),
      ``candidates_per_query`` (ranking: documents per query);
    * the prompt: ``template_axes`` (how the template differs from t1), ``context_truncate_field`` /
      ``context_truncate_fn`` (what the context budget cuts when no shot fits);
    * a population template: ``population`` (``{seed, size, grammar_version}``) and ``population_axes``;
    * ``extra``: every other key, in order (module docstring).
    """

    version: float | None = None
    dataset: str | None = None
    domain: str | None = None
    source_dataset: str | None = None
    suite: str = SUITE_ENTERPRISE
    language: str = "en"
    pair: str | None = None
    variant_group: str | None = None
    template_id: str | None = None
    primary_metric: str | None = None
    primary_filter: str | None = None
    task_family: str | None = None
    answer_regex: str | None = None
    answer_reader: str | None = None
    helm_metrics: tuple[str, ...] = ()
    template_axes: tuple[str, ...] = ()
    questions: tuple[str, ...] = ()
    candidates_per_query: int | None = None
    context_truncate_field: str | None = None
    context_truncate_fn: str | None = None
    template_set: str = TEMPLATE_SET_CORE
    population: Mapping[str, Any] | None = None
    population_axes: Mapping[str, Any] | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    # -- writing -------------------------------------------------------------------------------------------
    def to_metadata(self) -> dict[str, Any]:
        """The ``metadata`` mapping of the variant YAML: the schema's keys in field order (optional ones only when
        set: the suite keys outside the enterprise suite, ``template_set`` outside the core set), then ``extra``."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "extra" or value is None or value == () or self._implied(f.name):
                continue
            out[f.name] = (
                list(value) if isinstance(value, tuple) else dict(value) if isinstance(value, Mapping) else value
            )
        clash = sorted(set(out) & set(self.extra))
        if clash:
            raise ValueError(f"{self.dataset}: extra metadata {clash} would overwrite keys of the task metadata schema")
        out.update(self.extra)
        return out

    def _implied(self, name: str) -> bool:
        """A key left out because its value is the reading default (the enterprise suite's language and pair, the
        core template set)."""
        if name in ("suite", "language", "pair"):
            return self.suite == SUITE_ENTERPRISE
        return name == "template_set" and self.template_set == TEMPLATE_SET_CORE

    # -- reading -------------------------------------------------------------------------------------------
    @classmethod
    def from_metadata(cls, metadata: Mapping[str, Any] | None) -> TaskMeta:
        """The schema's values of a ``metadata`` mapping (``None`` or a non-mapping reads as empty metadata)."""
        meta = metadata if isinstance(metadata, Mapping) else {}
        names = {f.name for f in fields(cls)} - {"extra"}
        cpq = meta.get("candidates_per_query")
        return cls(
            version=meta.get("version"),
            dataset=_str(meta.get("dataset")),
            domain=_str(meta.get("domain")),
            source_dataset=_str(meta.get("source_dataset")),
            suite=str(meta.get("suite") or SUITE_ENTERPRISE),
            language=str(meta.get("language") or "en"),
            pair=_str(meta.get("pair")),
            variant_group=_str(meta.get("variant_group")),
            template_id=_str(meta.get("template_id")),
            primary_metric=_str(meta.get("primary_metric")),
            primary_filter=_str(meta.get("primary_filter")),
            task_family=_str(meta.get("task_family")),
            answer_regex=_str(meta.get("answer_regex")),
            answer_reader=_str(meta.get("answer_reader")),
            helm_metrics=_tuple(meta.get("helm_metrics")),
            template_axes=_tuple(meta.get("template_axes")),
            questions=_tuple(meta.get("questions")),
            candidates_per_query=int(cpq) if cpq not in (None, "") else None,
            context_truncate_field=_str(meta.get("context_truncate_field")),
            context_truncate_fn=_str(meta.get("context_truncate_fn")),
            template_set=str(meta.get("template_set") or TEMPLATE_SET_CORE),
            population=dict(meta["population"]) if isinstance(meta.get("population"), Mapping) else None,
            population_axes=(
                dict(meta["population_axes"]) if isinstance(meta.get("population_axes"), Mapping) else None
            ),
            extra={k: v for k, v in meta.items() if k not in names and k not in RETIRED_KEYS},
        )

    @classmethod
    def from_config(cls, config: Any) -> TaskMeta:
        """The metadata of a task config: lm-eval's ``TaskConfig`` (``task.config``), a YAML config or a results
        ``configs[task]`` entry (mappings with a ``metadata`` key)."""
        meta = getattr(config, "metadata", None)  # lm-eval's TaskConfig: a dict subclass holding attributes
        if meta is None and isinstance(config, Mapping):
            meta = config.get("metadata")
        return cls.from_metadata(meta)

    # -- derived -------------------------------------------------------------------------------------------
    @property
    def is_variant(self) -> bool:
        """The metadata names a template variant (``variant_group`` and ``template_id``), as every generated
        variant's does; a hand-written task's or a group's does not."""
        return bool(self.variant_group and self.template_id)

    # -- what a run added (module constants above) --------------------------------------------------------------
    @property
    def data_root(self) -> str | None:
        return _str(self.extra.get(DATA_ROOT))

    @property
    def toy_data(self) -> bool:
        return self.extra.get(TOY_DATA) is True

    @property
    def baseline(self) -> Any:
        return self.extra.get(BASELINE)

    @property
    def cell_budget(self) -> float | None:
        """The recorded cell budget (None: no cell plan recorded)."""
        value = self.extra.get(CELL_BUDGET)
        return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None

    @property
    def cell_seed(self) -> Any:
        return self.extra.get(CELL_SEED)

    @property
    def cells_planned(self) -> Mapping[str, int]:
        return self.extra.get(CELLS_PLANNED) or {}

    @property
    def cell_design(self) -> Mapping[str, Any]:
        return self.extra.get(CELL_DESIGN) or {}

    @property
    def legacy_subtask(self) -> str | None:
        """The subtask of a results file of metric version <= 1.2 (a layout no longer read)."""
        return _str(self.extra.get(LEGACY_SUBTASK))

    @property
    def loader_dataset(self) -> str | None:
        """The dataset id the data layer and the dataset registry know (``source_dataset``, else ``dataset``)."""
        return self.source_dataset or self.dataset
