"""The registry of task families: everything the code knows per family, in one record each.

A task family is the kind of task a dataset table is scored as: its metrics and their aggregations, how an answer
is read, what a record must hold. Its name is the one spelling used everywhere: a loader's ``Source.task_type``,
the generator's ``DatasetTasks.family``, the ``task_family`` of the generated task metadata (and so of every results
file the Sharpe tool reads) and the ``process_results`` hook ``lm_eval_enterprise.scoring.hooks.<name>``.

Every per-family decision reads its :class:`Family` record here — the metric lists of the generator
(:mod:`lm_eval_enterprise.prompting.templating`), the [PARSE] reader (:mod:`lm_eval_enterprise.scoring.filters`), the [LEAK] fields
(:mod:`lm_eval_enterprise.data.leakage`), the record fields the loader adds and the gold-label check
(:mod:`lm_eval_enterprise.data`), the Sharpe tool's baselines, units and synthetic runs
(:mod:`lm_eval_enterprise.sharpe`). No other module spells a family name as a branch. Adding a family is one record
in :data:`FAMILIES` plus its ``process_results`` and aggregation functions in :mod:`lm_eval_enterprise.scoring.hooks`
(docs/metrics.md); the other fields name behaviours those modules already have.

This module imports nothing of lm-eval (nor of this package), so the Sharpe tool can read it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

Metrics = Mapping[str, tuple[str, bool]]  # metric → (aggregation: "mean" or a hooks function name, higher_is_better)

# the two per-document metrics of every generate family (from the [PARSE] reading of lm_eval_enterprise.scoring.filters)
FORMAT_METRICS: dict[str, tuple[str, bool]] = {"format_failure": ("mean", False), "format_adherence": ("mean", True)}


@dataclass(frozen=True)
class Family:
    """One task family (see the module docstring).

    * ``metrics`` — what ``hooks.<name>`` returns per document and the YAML's ``metric_list`` declares, in order;
      the first is the family's primary metric.
    * ``helm_metrics`` — the primary metric under HELM's reading rule, reported by the template that is HELM's own
      prompt (``hooks.<name>_helm``).
    * ``reader`` — the [PARSE] reader of :class:`lm_eval_enterprise.scoring.filters.AnswerFilter` (``None``: a
      log-likelihood family, no generation to read); ``output_type`` — lm-eval's output type.
    * ``records`` — the fields the loader adds to every record (``Source.finalize``): ``"labels"``
      (``label_names``, ``positive_label``), ``"choices"`` (the option letters, ``data.mc_fields``),
      ``"options"`` (the option texts as the label set, ``data.option_fields``) or ``""``.
    * ``prompt_inputs`` — the record fields that make up an item's prompt input for [LEAK] (``None``: the step does
      not apply).
    * ``gold`` — the gold-answer check of :func:`lm_eval_enterprise.data.checks.gold_problem`.
    * ``baseline`` — what the Sharpe tool's baseline needs about the documents (``sharpe.baselines.label_info``):
      ``"classification"``, ``"choice"``, ``"generation"`` or ``"none"``; ``zero_baseline``: every metric but
      ``format_failure`` has the no-information baseline 0 (docs/sharpe.md#generation-baseline).
    * ``units`` — the unit the Sharpe tool, the sparse estimator and the cell planner resample: ``"doc"`` or
      ``"query"`` (one sample line per (query, candidate); grouped by ``qid``).
    * ``synthetic`` — the document/output generator of ``sharpe.synthetic`` for test runs.
    * ``strata`` — how the cell planner stratifies a sparse run's documents (:mod:`lm_eval_enterprise.harness.cellplan`):
      ``"positive"`` (gold label is the positive label or not: the rarer class gets more cells) or ``""`` (none).
    """

    name: str
    metrics: Metrics
    reader: str | None
    records: str
    prompt_inputs: tuple[str, ...] | None
    gold: str
    baseline: str
    synthetic: str
    helm_metrics: Metrics = field(default_factory=dict)
    output_type: str = "generate_until"
    zero_baseline: bool = False
    units: str = "doc"
    strata: str = ""

    @property
    def primary(self) -> str:
        return next(iter(self.metrics))

    @property
    def loglikelihood(self) -> bool:
        return self.reader is None

    def same_records(self, other: Family) -> bool:
        """Both families read the same records (so one loader can serve tables of either)."""
        return (self.records, self.prompt_inputs, self.gold) == (other.records, other.prompt_inputs, other.gold)


_LABELS = dict(records="labels", prompt_inputs=("text", "target"), gold="label", baseline="classification")
# NLI: a classification family whose item is a premise and a hypothesis
_NLI = dict(_LABELS, prompt_inputs=("premise", "hypothesis"))
_RANKING = {
    "rr_at_10": ("agg_rr_at_10", True),
    "rr_at_5": ("agg_rr_at_5", True),
    "ndcg_at_10": ("agg_ndcg_at_10", True),
    "yes_accuracy": ("mean", True),
}
_RANKING_DATA = dict(records="", prompt_inputs=None, gold="ranking", baseline="none", units="query")

FAMILIES: dict[str, Family] = {
    f.name: f
    for f in (
        Family(
            "classification_weighted",
            {
                "weighted_f1": ("agg_weighted_f1", True),
                "accuracy": ("mean", True),
                **FORMAT_METRICS,
                "weighted_precision": ("agg_weighted_precision", True),
                "weighted_recall": ("agg_weighted_recall", True),
            },
            reader="label",
            helm_metrics={"weighted_f1_helm": ("agg_weighted_f1", True)},
            synthetic="labels",
            **_LABELS,
        ),
        Family(
            "classification_macro",
            {"macro_f1": ("agg_macro_f1", True), "accuracy": ("mean", True), **FORMAT_METRICS},
            reader="label",
            helm_metrics={"macro_f1_helm": ("agg_macro_f1", True)},
            synthetic="labels",
            **_LABELS,
        ),
        Family(
            "classification_binary",
            {"binary_f1": ("agg_binary_f1", True), "accuracy": ("mean", True), **FORMAT_METRICS},
            reader="label",
            helm_metrics={"binary_f1_helm": ("agg_binary_f1", True)},
            synthetic="labels",
            strata="positive",
            **_LABELS,
        ),
        Family(
            "entity",
            {
                "entity_f1": ("agg_entity_f1", True),
                "entity_precision": ("agg_entity_precision", True),
                "entity_recall": ("agg_entity_recall", True),
                **FORMAT_METRICS,
            },
            reader="entity",
            records="",
            prompt_inputs=("text",),
            gold="entities",
            baseline="none",
            zero_baseline=True,
            synthetic="entity",
        ),
        Family(
            "kpi",
            {
                "adjusted_macro_f1": ("agg_adjusted_macro_f1", True),
                "word_macro_f1": ("agg_word_macro_f1", True),
                "adjusted_macro_f1_helm": ("agg_adjusted_macro_f1_helm", True),
                "word_macro_f1_helm": ("agg_word_macro_f1_helm", True),
                **FORMAT_METRICS,
            },
            reader="kpi",
            records="",
            prompt_inputs=("text",),
            gold="entities",
            baseline="none",
            zero_baseline=True,
            synthetic="kpi",
        ),
        Family(
            "ranking",
            _RANKING,
            reader=None,
            output_type="multiple_choice",
            synthetic="ranking_loglikelihood",
            **_RANKING_DATA,
        ),
        Family(
            "ranking_generate",
            {**_RANKING, **FORMAT_METRICS},
            reader="label",
            synthetic="ranking_generate",
            **_RANKING_DATA,
        ),
        Family(
            "numeric",
            {"accuracy": ("mean", True), **FORMAT_METRICS},
            reader="number",
            records="",
            prompt_inputs=("context", "question"),
            gold="answer",
            baseline="none",
            zero_baseline=True,
            synthetic="numeric",
        ),
        Family(
            "summarization",
            {"rouge_l": ("mean", True), "rouge_1": ("mean", True), "rouge_2": ("mean", True), **FORMAT_METRICS},
            reader="text",
            records="",
            prompt_inputs=("document",),
            gold="summary",
            baseline="generation",
            zero_baseline=True,
            synthetic="summarization",
        ),
        Family(
            "classification_mcc",
            {"mcc": ("agg_mcc", True), "accuracy": ("mean", True), **FORMAT_METRICS},
            reader="label",
            synthetic="labels",
            **_LABELS,
        ),
        Family(
            "classification_accuracy",
            {"accuracy": ("mean", True), **FORMAT_METRICS, "macro_f1": ("agg_macro_f1", True)},
            reader="label",
            synthetic="labels",
            **_NLI,
        ),
        Family(
            "similarity",
            {"pearson": ("agg_pearson", True), "spearman": ("agg_spearman", True), **FORMAT_METRICS},
            reader="score",
            records="",
            prompt_inputs=("sentence1", "sentence2"),
            gold="score",
            baseline="none",
            zero_baseline=True,
            synthetic="similarity",
        ),
        Family(
            "extractive_qa",
            {"squad_f1": ("mean", True), "squad_em": ("mean", True), **FORMAT_METRICS},
            reader="span",
            records="",
            prompt_inputs=("context", "question"),
            gold="answers",
            baseline="none",
            zero_baseline=True,
            synthetic="extractive_qa",
        ),
        Family(
            "extractive_qa_chars",
            {"char_f1": ("mean", True), "char_em": ("mean", True), **FORMAT_METRICS},
            reader="span",
            records="",
            prompt_inputs=("context", "question"),
            gold="answers",
            baseline="none",
            zero_baseline=True,
            synthetic="extractive_qa",
        ),
        Family(
            "choice_text",
            {"accuracy": ("mean", True), **FORMAT_METRICS},
            reader="label",
            records="options",
            prompt_inputs=("question", "choices"),
            gold="choice",
            baseline="choice",
            synthetic="choice_text",
        ),
        Family(
            "multiple_choice",
            {"accuracy": ("mean", True), **FORMAT_METRICS},
            reader="label",
            helm_metrics={"accuracy_helm": ("mean", True)},
            records="choices",
            prompt_inputs=("question", "choices"),
            gold="choice",
            baseline="choice",
            synthetic="multiple_choice",
        ),
    )
}


class UnknownFamily(KeyError):
    """A family name no record in :data:`FAMILIES` has."""

    def __str__(self) -> str:
        return str(self.args[0])


def get(name: str | None, what: str = "task family") -> Family:
    """The record of ``name`` (raises :class:`UnknownFamily`, a ``KeyError``, naming the known families)."""
    fam = FAMILIES.get(name or "")
    if fam is None:
        raise UnknownFamily(f"unknown {what} {name!r} (one of {', '.join(FAMILIES)}; lm_eval_enterprise.families)")
    return fam


def find(name: str | None) -> Family | None:
    """The record of ``name``, or ``None`` (e.g. a results file without ``task_family``)."""
    return FAMILIES.get(name) if name else None


def aggregation_of(family: str | None, metric: str) -> str | None:
    """Aggregation name of ``metric`` (``"mean"`` or a hooks function, a key of
    ``lm_eval_enterprise.scoring.corpus.STATISTICS``): from the family's tables (its metrics and its HELM-reading
    metrics), else the unique aggregation that metric has across all families, else None."""
    fam = find(family)
    for table in [] if fam is None else [fam.metrics, fam.helm_metrics]:
        if metric in table:
            return table[metric][0]
    found = {t[metric][0] for f in FAMILIES.values() for t in (f.metrics, f.helm_metrics) if metric in t}
    return found.pop() if len(found) == 1 else None


def cell_strata(name: str | None) -> str:
    """How the cell planner stratifies the family's documents (``Family.strata``; ``""``: not at all)."""
    fam = find(name)
    return fam.strata if fam is not None else ""


def uses_query_units(name: str | None) -> bool:
    """The family's unit is the query (ranking: one sample line per candidate)."""
    fam = find(name)
    return fam is not None and fam.units == "query"
