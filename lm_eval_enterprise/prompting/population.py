"""Template populations: a seeded grammar of instruction templates per dataset, beside the five hand-written ones.

The five templates of ``templates.py`` (t1..t5) are the **core set**: committed, named ``ent_<id>__t<k>``, scored
by every report as before. A **population** is a larger, seeded sample of templates composed from declared axes, so
that σ (the Sharpe score's denominator) is measured over many prompts instead of five hand-picked ones (FormatSpread,
Sclar et al. 2023; PromptEval, Polo et al. 2024). Populations are generated on demand into an include folder
(``lm-eval-enterprise population --dataset ID --size 50 --seed 0 --output_dir DIR``, then ``--include_path DIR``),
never committed, and reproducible byte for byte from (dataset, size, seed, :data:`GRAMMAR_VERSION`).

**Axes** (every template carries its values in ``metadata.population_axes``; the estimator uses them as covariates):

* ``wording`` — the instruction: one of the dataset's hand-written ``WORDINGS`` (``tasks/<domain>/<id>/population.py``;
  all state the same task, and, for datasets whose reader is not the label reader, the same answer format as t1);
* ``persona`` — none, a domain expert, an annotator or an assistant sentence before the instruction;
* ``labels`` — how the label list is written after the instruction (label-reading datasets only: comma list, quoted
  list, pipe list, bullet list; rendered per document from ``label_names``, so data-dependent label sets work);
* ``body`` — the item's fields: the item of core template t1..t5 without its output line (the core field labels);
* ``separator`` — between a field label and its value (``": "``, ``" - "``, ``":\\n"``);
* ``spacing`` — between the item's lines (one or two newlines);
* ``casing`` — of the field labels and the answer lead (as written, UPPER, lower);
* ``lead`` — the answer lead ending the item (``Answer:``, ``Label:``, …): only leads the dataset's [PARSE] reader
  accepts — an output field of a core template or one of the reader's generic fields (:data:`GENERIC_LEADS`).

**Valid by construction.** Every population template of a dataset has the dataset's documents, shots, generation
settings and metrics (its own copy of the core base YAML), the dataset's ONE reading rule (the core set's reader,
lead-ins, aliases and stop sequence), t1's format regex for ``format_adherence`` (every wording asks for t1's
answer format), and the same context budget rule (one shot plan per document over the whole population). A combination
that the generator would reject (``check_repeated_wording``: too much wording repeated in every shot) or that renders
the same prompt as an earlier one is skipped, deterministically.

**Sampling.** ``random.Random(f"population|{GRAMMAR_VERSION}|{seed}|{table}")`` draws indices into the full product
of the axes one at a time, skipping repeats and invalid combinations, so a population of size n is the first n
templates of every larger population of the same seed (prefix-stable).

**Names and groups.** Population templates are ``p001``, ``p002``, …: tasks ``ent_<id>__p<k>``, grouped as
``ent_<id>_population``, with ``metadata.template_set: population`` — never in the core groups, the domain groups or ``enterprise``, so
lm-eval and the Sharpe tool never pool them with the core set.
"""

from __future__ import annotations

import importlib
import itertools
import json
import random
import re
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from .. import families
from ..taskmeta import TEMPLATE_SET_POPULATION, TaskMeta
from .templating import (
    HEADER,
    VERSION,
    DatasetTasks,
    Template,
    _aggregate,
    answer_lead_ins,
    base_config,
    check_repeated_wording,
    dump,
    output_field,
    task_meta,
    variant_config,
)

GRAMMAR_VERSION = 1
POPULATION_SUFFIX = "_population"
MIN_WORDINGS = 3

PERSONAS = {
    "none": "",
    "expert": {
        "finance": "You are an experienced financial analyst.",
        "legal": "You are an experienced legal expert.",
        "climate": "You are an experienced climate and sustainability analyst.",
        "cyber": "You are an experienced cyber-security analyst.",
        "nlu": "You are an experienced linguist.",
    },
    "annotator": "You are a careful annotator labelling data for a benchmark.",
    "assistant": "You are a helpful assistant.",
}
# the NLU suite's Japanese tables ([PARSE-JA]): the same personas and label lists, in Japanese
PERSONAS_JA = {
    "none": "",
    "expert": "あなたは経験豊富な言語学者です。",
    "annotator": "あなたはベンチマークのデータに注意深くラベルを付けるアノテーターです。",
    "assistant": "あなたは親切なアシスタントです。",
}
# how the label list follows the instruction (label-reading datasets); Jinja over the record's ``label_names``
LABEL_LISTS = {
    "comma": "Possible answers: {{ label_names | join(', ') }}.",
    "quoted": 'Answer with one of: "{{ label_names | join(\'", "\') }}".',
    "pipe": "Labels: {{ label_names | join(' | ') }}",
    "bullets": "Answer with one of these labels:{% for l in label_names %}\n- {{ l }}{% endfor %}",
}
LABEL_LISTS_JA = {
    "comma": "回答の候補：{{ label_names | join('、') }}。",
    "quoted": "次のいずれかで答えてください：{% for l in label_names %}「{{ l }}」{% endfor %}",
    "pipe": "ラベル：{{ label_names | join(' | ') }}",
    "bullets": "次のラベルのいずれかで答えてください：{% for l in label_names %}\n- {{ l }}{% endfor %}",
}
SEPARATORS = {"colon": ": ", "dash": " - ", "colon_newline": ":\n"}
SPACINGS = {"single": "\n", "double": "\n\n"}
CASINGS = ("as_written", "upper", "lower")
# answer leads per reader, besides the core set's own output fields: each is a generic [PARSE] field
# (lm_eval_enterprise.scoring.filters.GENERIC_FIELDS), so the dataset's reader strips it when a model echoes it
GENERIC_LEADS = {
    "label": ("Answer", "Label", "Category", "Output", "Prediction", "Classification"),
    "entity": ("Answer", "Output", "Response", "Result"),
    "kpi": ("Answer", "Output", "Response", "Result"),
    "number": ("Answer", "Final answer", "Result", "Output"),
    "text": ("Answer", "Output", "Response", "Result"),
    "score": ("Answer", "Output", "Result"),
    "span": ("Answer", "Output", "Response", "Result"),
    None: ("Answer", "Output", "Response", "Result"),  # log-likelihood tables (no reader)
}
# Japanese leads: generic Japanese [PARSE-JA] fields (lm_eval_enterprise.scoring.filters.GENERIC_FIELDS_JA)
GENERIC_LEADS_JA = ("答え", "回答", "出力", "結果")

# a field label at the start of a line of an item body: "Sentence: {{text}}", "Input question: ..."
_FIELD = re.compile(r"(?m)^([A-Z][A-Za-z0-9&'’/ -]{0,40}): ")


class PopulationError(ValueError):
    """A dataset whose population cannot be built (one line naming the dataset)."""


@dataclass(frozen=True)
class PopTemplate:
    """One population template: the :class:`~lm_eval_enterprise.prompting.templating.Template` and its axis values."""

    template: Template
    axes: dict[str, Any]


def _wordings(domain: str, dataset: str) -> list[str]:
    """The dataset's hand-written instruction wordings (``tasks/<domain>/<id>/population.py``: ``WORDINGS``)."""
    try:
        mod = importlib.import_module(f"lm_eval_enterprise.tasks.{domain}.{dataset}.population")
    except ModuleNotFoundError as exc:
        raise PopulationError(
            f"{dataset}: no tasks/{domain}/{dataset}/population.py with WORDINGS (the population grammar's "
            "instruction wordings)"
        ) from exc
    words = list(getattr(mod, "WORDINGS", ()))
    if len(words) < MIN_WORDINGS or len(set(words)) != len(words) or not all(isinstance(w, str) and w for w in words):
        raise PopulationError(
            f"{dataset}: tasks/{domain}/{dataset}/population.py needs at least {MIN_WORDINGS} distinct non-empty "
            f"WORDINGS, got {len(words)}"
        )
    return words


def _body(spec: DatasetTasks, tpl: Template) -> str:
    """The item of a core template without its output line (``"Sentence: {{text}}\\nAnswer:"`` → ``"Sentence: {{text}}"``);
    a template of a table that declares its lead-ins (the NLU suite's FLAN patterns, without an output field) is its
    whole item."""
    if spec.lead_ins:
        return tpl.doc_to_text.rstrip("\n ")
    field = output_field(tpl)
    text = tpl.doc_to_text
    cut = text.rfind(field)
    return text[:cut].rstrip("\n ")


def answer_leads(spec: DatasetTasks) -> list[str]:
    """Answer leads of a dataset: the core set's output fields, then the reader's generic ones (case-insensitive
    union, in that order)."""
    reader = families.get(spec.family).reader if spec.output_type == "generate_until" else None
    generic = GENERIC_LEADS_JA if spec.language == "ja" else GENERIC_LEADS[reader]
    out: list[str] = []
    for lead in [*answer_lead_ins(spec), *generic]:
        if lead.lower() not in {x.lower() for x in out}:
            out.append(lead)
    return out


def _case(text: str, casing: str) -> str:
    return text.upper() if casing == "upper" else text.lower() if casing == "lower" else text


def _literal_sub(text: str, old: str, new: str) -> str:
    """Replace ``old`` by ``new`` in the literal text only (never inside ``{{ }}`` / ``{% %}`` tags)."""
    parts = re.split(r"(\{\{.*?\}\}|\{%.*?%\})", text, flags=re.S)
    return "".join(p if p.startswith(("{{", "{%")) else p.replace(old, new) for p in parts)


def _item(body: str, lead: str, separator: str, spacing: str, casing: str, language: str = "en") -> str:
    def label(m: re.Match) -> str:
        return _case(m.group(1), casing) + "\x00"

    text = _FIELD.sub(label, body)  # mark label ends; then separators and spacing on the literal text
    text = _literal_sub(text, "\n", spacing)
    text = text.replace("\x00", SEPARATORS[separator])
    return f"{text}{spacing}{_case(lead, casing)}{'：' if language == 'ja' else ':'}"


def _description(spec: DatasetTasks, wording: str, persona: str, labels: str | None) -> str:
    ja = spec.language == "ja"
    p = (PERSONAS_JA if ja else PERSONAS)[persona]
    p = p.get(spec.domain, "") if isinstance(p, dict) else p
    parts = [x for x in (p, wording.strip()) if x]
    text = ("" if ja else " ").join(parts)
    if labels:
        text += ("\n" if labels == "bullets" else "" if ja else " ") + (LABEL_LISTS_JA if ja else LABEL_LISTS)[labels]
    return text.rstrip("\n") + "\n\n"


def axes_of(spec: DatasetTasks, wordings: list[str]) -> dict[str, list]:
    """The declared axes of a dataset's grammar: axis → its values (in a fixed order)."""
    label_reader = spec.output_type == "generate_until" and families.get(spec.family).reader == "label"
    # Japanese field labels ("前提：") keep their full-width colon and have no case: one value on those axes
    ja = spec.language == "ja"
    return {
        "wording": list(range(len(wordings))),
        "persona": list(PERSONAS),
        "labels": list(LABEL_LISTS) if label_reader else ["none"],
        "body": [t.id for t in spec.templates],
        "separator": ["colon"] if ja else list(SEPARATORS),
        "spacing": list(SPACINGS),
        "casing": ["as_written"] if ja else list(CASINGS),
        "lead": answer_leads(spec),
    }


def compose(spec: DatasetTasks, wordings: list[str], values: dict[str, Any], tid: str) -> Template:
    """The template of one combination of axis values."""
    body = _body(spec, next(t for t in spec.templates if t.id == values["body"]))
    labels = None if values["labels"] == "none" else values["labels"]
    return Template(
        tid,
        doc_to_text=_item(
            body, values["lead"], values["separator"], SPACINGS[values["spacing"]], values["casing"], spec.language
        ),
        regex=spec.templates[0].regex,
        description=_description(spec, wordings[values["wording"]], values["persona"], labels),
        axes=tuple(f"{k}={v}" for k, v in values.items()),
        choices=spec.templates[0].choices,
    )


def _decode(index: int, axes: dict[str, list]) -> dict[str, Any]:
    out = {}
    for name, vals in reversed(list(axes.items())):
        index, r = divmod(index, len(vals))
        out[name] = vals[r]
    return {k: out[k] for k in axes}


def population(spec: DatasetTasks, size: int, seed: int, wordings: list[str] | None = None) -> list[PopTemplate]:
    """The first ``size`` templates of the dataset's seeded population (module docstring)."""
    if size < 1:
        raise PopulationError(f"{spec.table_id}: population size must be at least 1, got {size}")
    wordings = wordings if wordings is not None else _wordings(spec.domain, spec.dataset)
    axes = axes_of(spec, wordings)
    total = 1
    for vals in axes.values():
        total *= len(vals)
    rng = random.Random(f"population|{GRAMMAR_VERSION}|{seed}|{spec.table_id}")
    seen_idx: set[int] = set()
    seen_text = {(t.description, t.doc_to_text) for t in spec.templates}
    out: list[PopTemplate] = []
    width = max(3, len(str(size)))
    while len(out) < size and len(seen_idx) < total:
        idx = rng.randrange(total)
        if idx in seen_idx:
            continue
        seen_idx.add(idx)
        values = _decode(idx, axes)
        tpl = compose(spec, wordings, values, f"p{len(out) + 1:0{width}d}")
        if (tpl.description, tpl.doc_to_text) in seen_text:
            continue
        try:
            check_repeated_wording(replace(spec, templates=[tpl]))
        except ValueError:
            continue
        seen_text.add((tpl.description, tpl.doc_to_text))
        out.append(PopTemplate(tpl, values))
    if len(out) < size:
        raise PopulationError(
            f"{spec.table_id}: the grammar yields only {len(out)} valid templates, fewer than --size {size}"
        )
    return out


# ------------------------------------------------------------------------------------------------ the YAMLs
def population_group(group: str) -> str:
    """Population group of a core variant group: ``ent_<id>`` → ``ent_<id>_population``."""
    return f"{group}{POPULATION_SUFFIX}"


def render_population(spec: DatasetTasks, pop: list[PopTemplate], seed: int) -> dict[str, str]:
    """File name → content of a dataset's population include folder: the base YAML (the core one's content), one
    YAML per template, the population group and ``population.json`` (the axes of every template)."""
    files = {f"_{spec.table_id}_template_yaml": HEADER_POP + dump(base_config(spec))}
    pop_spec = replace(spec, templates=[p.template for p in pop])
    size = len(pop)
    group, pgroup = spec.base_name, population_group(spec.base_name)
    for p in pop:
        meta = replace(
            task_meta(pop_spec, p.template),
            variant_group=pgroup,
            template_axes=(),
            template_set=TEMPLATE_SET_POPULATION,
            population={"seed": seed, "size": size, "grammar_version": GRAMMAR_VERSION},
            population_axes=dict(p.axes),
        )
        cfg = variant_config(pop_spec, p.template, reading=spec, meta=meta)
        files[f"{group}__{p.template.id}.yaml"] = HEADER_POP + dump(cfg)
    groups = {
        pgroup: {
            "group": pgroup,
            "task": [f"{group}__{p.template.id}" for p in pop],
            "aggregate_metric_list": _aggregate(spec.primary_metric, "score"),
            "metadata": {"version": VERSION, "template_set": TEMPLATE_SET_POPULATION},
        }
    }
    for name, cfg in groups.items():
        files[f"_{name}.yaml"] = HEADER_POP + dump(cfg)
    manifest = {
        "dataset": spec.table_id,
        "grammar_version": GRAMMAR_VERSION,
        "seed": seed,
        "size": size,
        "groups": list(groups),
        "axes": axes_of(spec, _wordings(spec.domain, spec.dataset)),
        "templates": {p.template.id: p.axes for p in pop},
    }
    files["population.json"] = json.dumps(manifest, indent=1, ensure_ascii=False) + "\n"
    return files


HEADER_POP = HEADER.replace("`make tasks`", "`lm-eval-enterprise population`").replace(
    "from templates.py", "from templates.py + population.py"
)


def core_spec(dataset: str) -> tuple[str, DatasetTasks]:
    """(domain, the first template table) of a dataset id (the table of its domain group), from the dataset
    registry."""
    from ..errors import DataError
    from .templating import load_specs

    try:
        spec = next((s for s in load_specs(None, "", dataset) if not s.variant), None)
    except DataError:
        spec = None
    if spec is None:
        raise PopulationError(f"{dataset}: unknown dataset id")
    return spec.domain, spec


def write_population(dataset: str, size: int, seed: int, output_dir: Path) -> list[Path]:
    """Write one dataset's population into ``output_dir/<id>/`` (replacing that folder's YAMLs); returns the
    files written."""
    _, spec = core_spec(dataset)
    pop = population(spec, size, seed)
    folder = Path(output_dir) / spec.dataset
    folder.mkdir(parents=True, exist_ok=True)
    for old in itertools.chain(folder.glob("*.yaml"), folder.glob("*_template_yaml")):
        if old.read_text().startswith(HEADER_POP[:40]):
            old.unlink()
    out = []
    for name, text in render_population(spec, pop, seed).items():
        path = folder / name
        path.write_text(text)
        out.append(path)
    return out


def population_templates(meta: TaskMeta) -> tuple[Template, ...] | None:
    """The templates of the population a population variant belongs to, composed again from its metadata
    (``dataset``, ``population``: seed and size; a population is reproducible from them): what the context budget
    plans the shared shot count over. None for metadata of no population; :class:`PopulationError` for a folder
    written by another grammar version (regenerate it)."""
    pop = meta.population or {}
    if not meta.is_variant or not meta.dataset or "seed" not in pop or "size" not in pop:
        return None
    if pop.get("grammar_version") != GRAMMAR_VERSION:
        raise PopulationError(
            f"{meta.variant_group}: population written by grammar version {pop.get('grammar_version')}, this version "
            f"composes version {GRAMMAR_VERSION}; regenerate it: lm-eval-enterprise population --dataset "
            f"{meta.dataset} --size {pop['size']} --seed {pop['seed']} --output_dir <folder>"
        )
    return _population_templates(meta.dataset, int(pop["size"]), int(pop["seed"]))


@lru_cache(maxsize=32)
def _population_templates(dataset: str, size: int, seed: int) -> tuple[Template, ...]:
    _, spec = core_spec(dataset)
    return tuple(p.template for p in population(spec, size, seed))


__all__ = [
    "GRAMMAR_VERSION",
    "PopTemplate",
    "PopulationError",
    "answer_leads",
    "axes_of",
    "compose",
    "population_templates",
    "core_spec",
    "population",
    "population_group",
    "render_population",
    "write_population",
]
