"""Generate a dataset's task YAMLs from its template table (``tasks/<domain>/<id>/templates.py``).

Why generated: lm-eval's ``include:`` merges shallowly, so every variant must repeat ``metadata``,
``filter_list`` and friends in full. Writing them from one table keeps 25 datasets × 5+ templates consistent,
and ``tests/test_templating.py::test_generated_yamls_are_current`` fails when a checked-in YAML differs from
what the table produces (regenerate with ``make tasks``).

For a dataset ``<id>`` (task family: a record of :mod:`lm_eval_enterprise.families`) the generator writes:

* ``_<id>_template_yaml`` — the base (no ``.yaml`` suffix, so lm-eval does not index it): the task class
  (:class:`lm_eval_enterprise.harness.task.EnterpriseTask`: context budget, data facts in the metadata), data hook, splits,
  few-shot, output type, generation, ``process_results`` and ``metric_list`` (with the budget's ``shots_used`` /
  ``prompt_cut``);
* ``<task>__t<k>.yaml`` — one short file per template: ``include`` + prompt + answer filter + metadata;
* ``_<group>.yaml`` — the dataset group (its five variants), aggregating the primary metric and ``score`` as the
  unweighted mean over variants;
* ``_enterprise_<domain>.yaml`` / ``_enterprise.yaml`` — the domain groups and the top group.

A dataset made of questions (gold_news: nine yes/no questions per headline) is one task per template too: its
documents are item × question (:mod:`lm_eval_enterprise.data.load`), its templates name the question through a
document field (``{{fragment}}``), its corpus metrics are the mean over questions ([QMEAN],
:func:`lm_eval_enterprise.scoring.metrics.mean_over_questions`) and each question's own score is an extra metric
``<primary>_<question>`` (:attr:`DatasetTasks.questions`).

Every variant reports ``score``: its primary metric under another name (same aggregation; every primary metric is
higher-is-better, which :func:`base_config` checks), with the filter ``answer`` for every task — the ``[PARSE]``
reading of generate tasks, lm-eval's default ``take_first`` for log-likelihood ones, named ``answer`` so that one
key ``score,answer`` exists in every task (a group whose metric/filter key matches no task drops its row). So
lm-eval's own tables aggregate one comparable number at every level:

* dataset groups: unweighted mean over the variants — computed by lm-eval itself;
* domain groups and ``enterprise``: unweighted mean over **datasets** (as the Sharpe tool's domain rows), also
  computed by lm-eval itself: lm-eval 0.4.13 averages a group over its leaf tasks (``lm_eval/api/group.py``
  ``Group.aggregate``), and every dataset contributes the same number of leaves (one per template; the generator
  refuses tables with different counts, :func:`generate`), so the mean over leaves is the mean over datasets.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .. import families
from ..configkeys import BUDGET_METRICS, PRIMARY_FILTER, SCORE_METRIC
from ..data.tasktree import dataset_dir, domains, folder_package
from ..errors import DataError
from ..scoring.filters import TEXT_FORMAT, AnswerFilter, check_format_regex
from ..taskmeta import TaskMeta

TASK_PREFIX = "ent_"
# suite → task-name prefix: the enterprise datasets (``ent_<id>``, groups ``enterprise_<domain>`` / ``enterprise``)
# and the template-variance NLU benchmark (``nlu_<id>``, groups by language ``nlu_<lang>`` / ``nlu``; the domain
# folder ``tasks/nlu/``); ``enterprise`` never includes the NLU datasets
SUITE_PREFIX = {"enterprise": TASK_PREFIX, "nlu": "nlu_"}
NLU_DOMAIN = "nlu"  # the domain folder of the NLU suite
# 1.1: [PARSE] reading shared by all templates, format_adherence, *_helm, budget; 1.2: score, one filter;
# 1.3: a dataset made of questions is one task per template (gold_news: mean over questions), plain group means
VERSION = 1.3
TASK_CLASS = "lm_eval_enterprise.harness.task.EnterpriseTask"
# the long input field the context budget may cut ([TRUNC]), first one a template uses
LONG_FIELDS = ("document", "passage", "context", "text", "question")
# record fields that are the same for every record of a dataset (label / type lists): instruction-only
TABLE_CONSTANT_FIELDS = ("label_list", "label_names", "type_list")
# wording a template may repeat in a prompt: literal characters of doc_to_text × num_fewshot (≈ 10 % of a
# 4,096-token context at ~4 characters per token)
MAX_REPEATED_WORDING_CHARS = 1500


@dataclass(frozen=True)
class Template:
    """One instruction template (Jinja over the document's fields, e.g. gold_news' ``{{fragment}}``).

    ``description``: instruction block (rendered before the shots; ``""`` for none), ``doc_to_text``: Jinja
    prompt of one item ending with the output noun and ``:`` (that field name is a [PARSE] lead-in of the whole
    dataset), ``regex``: the exact answer format this template asks for (generate tasks; scored as
    ``format_adherence``, never for the reading; written for constrained decoders and placeholders as described
    in :mod:`lm_eval_enterprise.scoring.filters`), ``axes``: how it differs from template 1 (for reports; ``"helm"``
    marks HELM's own prompt, which also reports the HELM reading rule as ``<primary>_helm``).
    For multiple-choice output types ``choices`` lists the verbalised answers (no-answer first for ranking).
    """

    id: str
    doc_to_text: str
    regex: str = TEXT_FORMAT
    description: str = ""
    axes: tuple[str, ...] = ()
    choices: tuple[str, ...] | None = None
    note: str = ""


@dataclass(kw_only=True)
class DatasetTasks:
    """The template table of one dataset (see the module docstring).

    ``source``: the dataset's :class:`~lm_eval_enterprise.data.Source` class (its ``source.py``), which states the
    dataset id, its domain and its task family once: ``dataset``, ``domain`` and ``family`` are taken from it
    (``family`` may name another family for a further table, e.g. ``ranking_generate``; a ``dataset`` or
    ``domain`` that contradicts the source is an error). Without a source all three must be given.
    """

    source: type | None = None  # a Source subclass
    dataset: str = ""
    domain: str = ""
    family: str = ""  # a family of lm_eval_enterprise.families
    primary_metric: str
    templates: list[Template]
    num_fewshot: int
    output_type: str = "generate_until"
    doc_to_target: str = "{{label}}"
    until: tuple[str, ...] = ("\n",)
    max_gen_toks: int = 5
    # where the [PARSE] reading cuts the answer when generation has no stop sequence (``until=()``: the NLU
    # suite lets the model write max_gen_toks tokens, since a completion that starts with the stop sequence —
    # an answer on the line after FLAN's options block — would be cut to nothing); default: ``until[0]``
    answer_stop: str | None = None
    aliases: dict[str, str] = field(default_factory=dict)  # extra answer strings of the label reader → label
    # a dataset made of questions (documents = item × question): the questions, each reported as <primary>_<question>
    questions: tuple[str, ...] = ()
    task_name: str | None = None  # default ent_<dataset>
    extra_metadata: dict[str, Any] = field(default_factory=dict)
    fewshot_split: str = "fewshot"
    test_split: str = "test"
    target_delimiter: str = " "
    fewshot_delimiter: str = "\n\n"
    in_domain_group: bool = True  # False: a standalone group (e.g. generation-based ranking variants)
    variant: str = ""  # a further table of the same dataset folder (see table_id)
    # metrics added to the family's metric_list: name → (aggregation: "mean" or a hooks function, higher_is_better)
    extra_metrics: dict[str, tuple[str, bool]] = field(default_factory=dict)
    # the field the context budget cuts when even a zero-shot prompt does not fit (None: the first LONG_FIELDS
    # field template 1 uses) and, optionally, a dataset-specific cut ``fn(text, n_words) -> text`` (dotted path)
    truncate_field: str | None = None
    truncate_fn: str | None = None
    # the suite (SUITE_PREFIX) and, for the NLU suite, the language of the templates and the paired dataset
    # (template t<k> of a Japanese dataset is the translation of t<k> of its English pair)
    suite: str = "enterprise"
    language: str = "en"
    pair: str | None = None
    # [PARSE] lead-ins of templates that end without a plain output field (FLAN's patterns end with their
    # options list or a phrase such as "...I think the answer is"): a dataset that declares them may have such
    # templates; the lead-ins join the output fields of its other templates
    lead_ins: tuple[str, ...] = ()
    # a ranking table: the documents (candidates) of one query, stated in the metadata for the readers of whole queries
    candidates_per_query: int | None = None

    def __post_init__(self) -> None:
        src = self.source
        if src is not None:
            for name, stated in (("dataset", src.id), ("domain", src.domain)):
                if getattr(self, name) and getattr(self, name) != stated:
                    raise ValueError(
                        f"{stated}: the template table states {name}={getattr(self, name)!r}, its source "
                        f"{src.__name__} {stated!r}; leave it out (the source states it)"
                    )
            self.dataset, self.domain = src.id, src.domain
            self.family = self.family or src.task_type
        missing = [n for n in ("dataset", "domain", "family") if not getattr(self, n)]
        if missing:
            raise ValueError(
                f"template table {self.dataset or '?'}: no {', '.join(missing)} (give source=<Source class>)"
            )

    @property
    def prefix(self) -> str:
        """The task-name prefix of the table's suite (``ent_`` or ``nlu_``)."""
        if self.suite not in SUITE_PREFIX:
            raise ValueError(f"{self.dataset}: unknown suite {self.suite!r} (one of {', '.join(SUITE_PREFIX)})")
        return SUITE_PREFIX[self.suite]

    @property
    def table_id(self) -> str:
        """``<dataset>`` or, for a further table of the same dataset folder, ``<dataset>_<variant>`` (e.g.
        ``fiqa_qa_gen``): names the base YAML, the default group/task prefix and ``metadata.dataset``, so result
        tools never pool two tables; the loader id (``dataset_kwargs.dataset_id``) stays ``dataset``."""
        return f"{self.dataset}_{self.variant}" if self.variant else self.dataset

    @property
    def base_name(self) -> str:
        return self.task_name or f"{self.prefix}{self.table_id}"

    def task_names(self) -> list[str]:
        return [f"{self.base_name}__{t.id}" for t in self.templates]

    @property
    def context_truncate_field(self) -> str:
        if self.truncate_field:
            return self.truncate_field
        used = set(_jinja_fields(self.templates[0].doc_to_text))
        return next((f for f in LONG_FIELDS if f in used), LONG_FIELDS[-2])


def _jinja_fields(template: str) -> list[str]:
    """Names a Jinja template reads: ``{{ name ...}}`` and ``{% for x in name %}``."""
    return re.findall(r"\{\{-?\s*(\w+)", template) + re.findall(r"\{%-?\s*for\s+\w+\s+in\s+(\w+)", template)


def check_repeated_wording(spec: DatasetTasks) -> None:
    """No template may repeat long content in every shot: label/type lists belong in the instruction
    (``description``), and the literal wording of ``doc_to_text`` times ``num_fewshot`` stays within
    :data:`MAX_REPEATED_WORDING_CHARS`. This keeps the templates of a table within a bounded distance of each other,
    so the shared per-document shot plan of the context budget is not dictated by one verbose template.
    Raises ``ValueError`` naming the template."""
    for tpl in spec.templates:
        listed = sorted(set(_jinja_fields(tpl.doc_to_text)) & set(TABLE_CONSTANT_FIELDS))
        if listed and spec.num_fewshot:
            raise ValueError(
                f"{spec.table_id} {tpl.id}: doc_to_text repeats {listed} in every shot; put the list "
                "in the description (the instruction)"
            )
        literal = re.sub(r"\{\{.*?\}\}|\{%.*?%\}", "", tpl.doc_to_text, flags=re.S)
        if len(literal) * spec.num_fewshot > MAX_REPEATED_WORDING_CHARS:
            raise ValueError(
                f"{spec.table_id} {tpl.id}: {len(literal)} characters of wording repeated in each of "
                f"{spec.num_fewshot} shots (> {MAX_REPEATED_WORDING_CHARS}); move the fixed text to "
                "the description"
            )


class _Function(str):
    """A ``!function`` reference in the generated YAML."""


class _Dumper(yaml.SafeDumper):
    pass


_Dumper.add_representer(_Function, lambda d, v: d.represent_scalar("!function", str(v)))


def _str_presenter(dumper, data):
    # multi-line prompts as double-quoted scalars: exact (newlines escaped), no block-scalar chomping surprises
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style='"' if "\n" in data else None)


_Dumper.add_representer(str, _str_presenter)


def dump(obj: Any) -> str:
    return yaml.dump(obj, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=120)


def _metric_list(metrics: dict[str, tuple[str, bool]]) -> list[dict[str, Any]]:
    return [
        {
            "metric": m,
            "aggregation": agg if agg == "mean" else _Function(f"lm_eval_enterprise.scoring.hooks.{agg}"),
            "higher_is_better": hib,
        }
        for m, (agg, hib) in metrics.items()
    ]


def output_field(tpl: Template) -> str:
    """The output field a template ends its item with (``"...\nTone:"`` → ``"Tone"``, ``"...\n答え："`` →
    ``"答え"``; text after the last newline or Jinja tag)."""
    last = re.split(r"\n|%}|}}", tpl.doc_to_text)[-1].strip()
    if not last.endswith((":", "：")) or "{" in last:
        raise ValueError(f"template {tpl.id}: doc_to_text must end with a plain output field 'Name:', not {last!r}")
    return last[:-1].strip()


def answer_lead_ins(spec: DatasetTasks) -> list[str]:
    """[PARSE] lead-ins of a dataset: the output fields of ALL its templates (one reading rule per dataset), or,
    for a table that declares its lead-ins (:attr:`DatasetTasks.lead_ins`: the NLU suite's FLAN patterns, free-form
    prompts whose last line is no field), those."""
    if spec.lead_ins:
        return sorted(set(spec.lead_ins))
    return sorted({output_field(tpl) for tpl in spec.templates})


def is_helm(spec: DatasetTasks, tpl: Template) -> bool:
    """The template is HELM's own prompt and the family has a HELM reading rule to report."""
    return "helm" in tpl.axes and bool(families.get(spec.family).helm_metrics) and spec.output_type == "generate_until"


def filter_kwargs(spec: DatasetTasks, tpl: Template, reading: DatasetTasks | None = None) -> dict[str, Any]:
    """Arguments of :class:`lm_eval_enterprise.scoring.filters.AnswerFilter` for one template (as written to its YAML).
    ``reading``: the table whose lead-ins the reader accepts (default ``spec``; a template population is read with
    its core table's rule, :mod:`lm_eval_enterprise.prompting.population`)."""
    reader = families.get(spec.family).reader
    kw: dict[str, Any] = {
        "reader": reader,
        "format_regex": check_format_regex(tpl.regex),
        "stop": spec.answer_stop or (spec.until[0] if spec.until else None),
    }
    if reader in ("label", "span"):
        kw["lead_ins"] = answer_lead_ins(reading or spec)
        if spec.aliases:
            kw["aliases"] = dict(spec.aliases)
    if spec.language != "en":
        kw["language"] = spec.language
    return kw


def answer_filter(spec: DatasetTasks, tpl: Template, reading: DatasetTasks | None = None) -> AnswerFilter:
    """The template's :class:`~lm_eval_enterprise.scoring.filters.AnswerFilter`, configured as its YAML does (tests)."""
    return AnswerFilter(**filter_kwargs(spec, tpl, reading))


def score_metric(spec: DatasetTasks) -> dict[str, tuple[str, bool]]:
    """``{"score": (the primary metric's aggregation, True)}``; the primary metric must be higher-is-better (all
    are: F1s, accuracy, RR@10, ROUGE-L), so ``score`` has one direction at every group level."""
    metrics = {**families.get(spec.family).metrics, **spec.extra_metrics}
    if spec.primary_metric not in metrics:
        raise ValueError(f"{spec.dataset}: primary metric {spec.primary_metric} not produced by {spec.family}")
    agg, higher_is_better = metrics[spec.primary_metric]
    if not higher_is_better:
        raise ValueError(
            f"{spec.table_id}: primary metric {spec.primary_metric} is lower-is-better; "
            f"'{SCORE_METRIC}' must be higher-is-better at every level"
        )
    return {SCORE_METRIC: (agg, True)}


def question_metrics(spec: DatasetTasks) -> dict[str, tuple[str, bool]]:
    """``{"<primary>_<question>": (the primary metric's aggregation, True)}`` per question of a dataset made of
    questions: each question's own score (the task class adds the item under that name for the question's
    documents only), next to the primary metric, their mean ([QMEAN])."""
    agg, _ = score_metric(spec)[SCORE_METRIC]
    return {f"{spec.primary_metric}_{q}": (agg, True) for q in spec.questions}


# log-likelihood tasks: lm-eval's default pipeline (take_first), named like the generate tasks' reading
TAKE_FIRST_FILTER = [{"name": PRIMARY_FILTER, "filter": [{"function": "take_first"}]}]


def base_config(spec: DatasetTasks) -> dict[str, Any]:
    metrics = families.get(spec.family).metrics
    cfg: dict[str, Any] = {
        "class": _Function(TASK_CLASS),
        "custom_dataset": _Function("lm_eval_enterprise.data.load_task_dataset"),
        "dataset_kwargs": {"dataset_id": spec.dataset},
        "fewshot_split": spec.fewshot_split,
        "test_split": spec.test_split,
        "fewshot_config": {"sampler": "first_n"},
        "num_fewshot": spec.num_fewshot,
        "output_type": spec.output_type,
        "doc_to_target": spec.doc_to_target,
        "target_delimiter": spec.target_delimiter,
        "fewshot_delimiter": spec.fewshot_delimiter,
    }
    if spec.output_type == "generate_until":
        cfg["generation_kwargs"] = {
            "until": list(spec.until),
            "max_gen_toks": spec.max_gen_toks,
            "do_sample": False,
            "temperature": 0.0,
        }
    else:
        cfg["filter_list"] = TAKE_FIRST_FILTER
    cfg["process_results"] = _Function(f"lm_eval_enterprise.scoring.hooks.{spec.family}")
    cfg["metric_list"] = _metric_list(
        {**metrics, **spec.extra_metrics, **score_metric(spec), **question_metrics(spec), **BUDGET_METRICS}
    )
    cfg["metadata"] = {"version": VERSION}
    return cfg


def variant_config(
    spec: DatasetTasks, tpl: Template, reading: DatasetTasks | None = None, meta: TaskMeta | None = None
) -> dict[str, Any]:
    """One variant's YAML: ``include`` of the base, prompt, answer filter (``reading``: the table whose lead-ins the
    reader accepts, :func:`filter_kwargs`), HELM's metrics on HELM's own prompt and ``meta`` (default:
    :func:`task_meta`)."""
    group = spec.base_name
    cfg: dict[str, Any] = {
        "include": f"_{spec.table_id}_template_yaml",
        "task": f"{group}__{tpl.id}",
        "task_alias": f"{group.removeprefix(spec.prefix)} {tpl.id}",
    }
    if tpl.description:
        cfg["description"] = tpl.description
    cfg["doc_to_text"] = tpl.doc_to_text
    if spec.output_type == "multiple_choice":
        cfg["doc_to_choice"] = list(tpl.choices or ())
    else:
        filt = {
            "function": _Function("lm_eval_enterprise.scoring.filters.AnswerFilter"),
            **filter_kwargs(spec, tpl, reading),
        }
        cfg["filter_list"] = [{"name": PRIMARY_FILTER, "filter": [filt, {"function": "take_first"}]}]
    helm = is_helm(spec, tpl)
    if helm:  # HELM's own prompt: the family's metrics + the primary metric under HELM's reading rule
        cfg["process_results"] = _Function(f"lm_eval_enterprise.scoring.hooks.{spec.family}_helm")
        cfg["metric_list"] = _metric_list(
            {
                **families.get(spec.family).metrics,
                **spec.extra_metrics,
                **score_metric(spec),
                **question_metrics(spec),
                **BUDGET_METRICS,
                **families.get(spec.family).helm_metrics,
            }
        )
    cfg["metadata"] = (meta or task_meta(spec, tpl)).to_metadata()
    return cfg


def task_meta(spec: DatasetTasks, tpl: Template) -> TaskMeta:
    """The metadata of one variant (:class:`~lm_eval_enterprise.taskmeta.TaskMeta`; the table's
    ``extra_metadata`` last). The other templates of the table are not copied into it: the context budget finds the
    table through the dataset registry (:func:`table_templates`)."""
    generate = spec.output_type != "multiple_choice"
    fam = families.get(spec.family)
    return TaskMeta(
        version=VERSION,
        dataset=spec.table_id,
        domain=spec.domain,
        source_dataset=spec.dataset if spec.variant else None,
        suite=spec.suite,
        language=spec.language,
        pair=spec.pair,
        variant_group=spec.base_name,
        template_id=tpl.id,
        primary_metric=spec.primary_metric,
        primary_filter=PRIMARY_FILTER,
        task_family=spec.family,
        answer_regex=tpl.regex if generate else None,
        answer_reader=fam.reader if generate else None,
        helm_metrics=tuple(fam.helm_metrics) if is_helm(spec, tpl) else (),
        template_axes=tuple(tpl.axes),
        questions=tuple(spec.questions),
        candidates_per_query=spec.candidates_per_query,
        context_truncate_field=spec.context_truncate_field,
        context_truncate_fn=spec.truncate_fn,
        extra=dict(spec.extra_metadata),
    )


def table_templates(meta: TaskMeta) -> list[Template] | None:
    """The templates of the core table a variant belongs to, found through the dataset registry from its metadata
    (``dataset`` = the table, ``loader_dataset`` = the registered dataset folder); None when the metadata names no
    registered table (a hand-written YAML). What the context budget plans the shared shot count over."""
    if not meta.is_variant or not meta.loader_dataset:
        return None
    try:
        specs = load_specs(None, meta.domain or "", meta.loader_dataset)
    except (DataError, ModuleNotFoundError):  # not a registered dataset folder, or one without templates.py
        return None
    return next((list(s.templates) for s in specs if s.table_id == meta.dataset), None)


def _aggregate(*metrics: str) -> list[dict[str, Any]]:
    """lm-eval's group aggregation: unweighted mean over the group's leaf tasks of ``<metric>,answer``."""
    return [
        {"metric": m, "filter_list": PRIMARY_FILTER, "aggregation": "mean", "weight_by_size": False}
        for m in dict.fromkeys(metrics)
    ]


def group_config(spec: DatasetTasks) -> dict[str, Any]:
    """The dataset group: its template variants, primary metric and ``score`` averaged over them."""
    return {
        "group": spec.base_name,
        "task": spec.task_names(),
        "aggregate_metric_list": _aggregate(spec.primary_metric, SCORE_METRIC),
        "metadata": {"version": VERSION},
    }


HEADER = (
    "# Generated by `make tasks` (lm_eval_enterprise.prompting.templating) from templates.py. Do not edit by hand.\n"
)


def render(spec: DatasetTasks) -> dict[str, str]:
    """File name → content for every generated file of a dataset (checked by :func:`check_repeated_wording`)."""
    check_repeated_wording(spec)
    files = {f"_{spec.table_id}_template_yaml": HEADER + dump(base_config(spec))}
    for tpl in spec.templates:
        files[f"{spec.base_name}__{tpl.id}.yaml"] = HEADER + dump(variant_config(spec, tpl))
    files[f"_{spec.base_name}.yaml"] = HEADER + dump(group_config(spec))
    return files


def datasets_group(name: str, members: list[str]) -> str:
    """A domain group (members: dataset groups) or ``enterprise`` (members: domain groups): ``score`` is lm-eval's
    unweighted mean over the leaf tasks below, i.e. over the datasets below, each contributing the same number of
    variants (checked by :func:`generate`)."""
    cfg: dict[str, Any] = {"group": name, "task": members, "aggregate_metric_list": _aggregate(SCORE_METRIC)}
    cfg["metadata"] = {"version": VERSION}
    return HEADER.replace("templates.py", "the dataset folders") + dump(cfg)


def load_spec(task_root: Path | None, domain: str, dataset: str) -> DatasetTasks:
    """The (first) template table of a dataset folder; see :func:`load_specs` for folders with several."""
    return load_specs(task_root, domain, dataset)[0]


def load_specs(task_root: Path | None, domain: str, dataset: str) -> list[DatasetTasks]:
    """Every template table of the dataset folder ``<task_root>/<domain>/<dataset>`` (``task_root`` ``None``: the
    registered dataset ``dataset``, under any task root): ``templates.py`` exports ``TASKS``, one
    :class:`DatasetTasks` or a list of them (e.g. the log-probability and the generation-based tables of a ranking
    dataset; the extra tables set ``variant`` so their file, group and task names differ)."""
    folder = dataset_dir(dataset) if task_root is None else Path(task_root) / domain / dataset
    tasks = importlib.import_module(f"{folder_package(folder)}.templates").TASKS
    specs = list(tasks) if isinstance(tasks, (list, tuple)) else [tasks]
    names = [s.table_id for s in specs]
    if not specs or len(set(names)) != len(names):
        raise ValueError(
            f"{domain}/{dataset}/templates.py: TASKS must be non-empty with distinct tables "
            f"(set `variant` on extra tables); got {names}"
        )
    return specs


def all_specs(task_root: Path) -> list[tuple[str, DatasetTasks]]:
    """(domain, spec) of every dataset folder with a templates.py, in domain then folder order."""
    out = []
    for domain in domains(task_root):
        for tfile in sorted((task_root / domain).glob("*/templates.py")):
            out.extend((domain, spec) for spec in load_specs(task_root, domain, tfile.parent.name))
    return out


def _dataset_files(task_root: Path, tfile: Path, out: dict[Path, str]) -> list[DatasetTasks]:
    """Render the tables of the dataset folder holding ``tfile`` into ``out``; returns the tables."""
    specs = load_specs(task_root, tfile.parent.parent.name, tfile.parent.name)
    for spec in specs:
        for name, text in render(spec).items():
            out[tfile.parent / name] = text
    return specs


def _with_groups(task_root: Path, out: dict[Path, str]) -> None:
    """The package's tree into ``out``: every dataset's files, the enterprise domain groups and ``enterprise``, and
    the NLU suite's language groups ``nlu_<lang>`` and ``nlu`` (folder ``tasks/nlu/``)."""
    domain_groups, languages = [], {}
    counts: dict[str, dict[int, list[str]]] = {}  # suite → variants per dataset → datasets (one count per suite)
    for domain in domains(task_root):
        ddir = task_root / domain
        groups = []
        for tfile in sorted(ddir.glob("*/templates.py")):
            for spec in _dataset_files(task_root, tfile, out):
                if not spec.in_domain_group:
                    continue
                counts.setdefault(spec.suite, {}).setdefault(len(spec.templates), []).append(spec.base_name)
                if spec.suite == "nlu":
                    languages.setdefault(spec.language, []).append(spec.base_name)
                else:
                    groups.append(spec.base_name)
        if groups:
            out[ddir / f"_enterprise_{domain}.yaml"] = datasets_group(f"enterprise_{domain}", groups)
            domain_groups.append(f"enterprise_{domain}")
    for suite, by_count in counts.items():
        if len(by_count) > 1:
            raise ValueError(
                f"every dataset in the {suite} groups needs the same number of templates (lm-eval averages a group "
                f"over its leaf tasks, so the means would weigh datasets unequally); got {by_count}"
            )
    out[task_root / "_enterprise.yaml"] = datasets_group("enterprise", domain_groups)
    if languages:
        ndir = task_root / NLU_DOMAIN
        for lang, groups in sorted(languages.items()):
            out[ndir / f"_nlu_{lang}.yaml"] = datasets_group(f"nlu_{lang}", groups)
        out[ndir / "_nlu.yaml"] = datasets_group("nlu", [f"nlu_{lang}" for lang in sorted(languages)])


def generate(task_root: Path, write: bool = True, *, groups: bool = True) -> dict[Path, str]:
    """Render every dataset's files plus (``groups``) the domain and top-level groups; write them unless
    ``write=False``. ``groups=False`` is for a task root outside the package (a user's own datasets, in any domain
    folder): only the dataset files, whose groups ``ent_<id>`` do not clash with the package's domain groups.

    Returns path → content; stale generated YAMLs (a removed template) are deleted when writing.
    """
    out: dict[Path, str] = {}
    if groups:
        _with_groups(task_root, out)
    else:
        for tfile in sorted(task_root.glob("*/*/templates.py")):
            _dataset_files(task_root, tfile, out)
    if write:
        for path, text in out.items():
            path.write_text(text)
        for tfile in task_root.glob("*/*/templates.py"):
            for stale in tfile.parent.glob("*.yaml"):
                if stale not in out and stale.read_text().startswith(HEADER[:20]):
                    stale.unlink()
    return out
