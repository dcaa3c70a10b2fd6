"""Stage 1 — grouping: results files → template variants → variant groups → dataset rows.

A **variant group** is one dataset (or one subtask of a dataset) across models and templates
(``metadata.variant_group``); a **dataset row** is one variant group, or the subtask groups of one dataset (its
score per template is the mean over subtasks). Every inconsistency is a message and a flag, or under ``--strict``
a :class:`~.io.SharpeInputError`; nothing is dropped silently.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import families
from ..scoring import corpus
from . import baselines as BL
from .io import (
    ResultsFile,
    SampleTable,
    SharpeInputError,
    SharpeUsageError,
    TaskRun,
    assign_models,
    find_results_files,
    listed_templates,
    load_name_map,
    read_results_file,
    select_newest,
    task_runs,
)
from .options import Options, Progress, natural_key


def strict_or_note(opts: Options, messages: list[str], msg: str, strict_suffix: str, note_suffix: str) -> None:
    """A problem in the input: with ``--strict`` a :class:`SharpeInputError` (``msg + strict_suffix``), otherwise a
    note ``msg + note_suffix`` added to ``messages`` and the run goes on."""
    if opts.strict:
        raise SharpeInputError(msg + strict_suffix)
    messages.append(msg + note_suffix)


@dataclass
class MetricSpec:
    name: str
    filter: str
    agg: str | None
    higher_is_better: bool


@dataclass
class Group:
    """One variant group (a dataset, or one subtask of a dataset) across models and templates, with the working
    state the later stages fill in (samples, pairing, scorers, scores, baselines, bootstrap matrices)."""

    name: str
    dataset: str
    domain: str
    subtask: str | None
    family: str | None
    runs: dict[str, dict[str, TaskRun]]  # model → template id → run
    templates: list[str] = field(default_factory=list)
    metrics: list[MetricSpec] = field(default_factory=list)
    unit: str = "doc"  # doc | query
    flags: dict[str, Any] = field(default_factory=dict)
    tables: dict[str, dict[str, SampleTable]] = field(default_factory=dict)  # models with samples
    keys: list[str] = field(default_factory=list)
    key_source: str | None = None
    lines: dict[tuple[str, str], Any] = field(default_factory=dict)  # (model, tid) → line index per unit
    scorers: dict[tuple, Any] = field(default_factory=dict)  # (model, tid, metric, mode)
    failure: dict[tuple[str, str], np.ndarray] = field(default_factory=dict)  # (model, tid) → per-unit rate
    parse_ok: dict[tuple[str, str], np.ndarray] = field(default_factory=dict)
    scores: dict[tuple, float] = field(default_factory=dict)  # (model, tid, metric, mode)
    fail_rate: dict[tuple[str, str], float | None] = field(default_factory=dict)
    baseline: dict[str, BL.Baseline] = field(default_factory=dict)  # metric → baseline
    model_flags: dict[str, dict[str, Any]] = field(default_factory=dict)
    per_doc: dict[tuple[str, str], tuple] = field(default_factory=dict)  # (model, metric) → (T×D, kind, is_metric)
    n_docs: dict[str, int | None] = field(default_factory=dict)  # model → documents scored
    boot: dict[tuple, np.ndarray] = field(default_factory=dict)  # (model, metric, mode, kind) → B×T
    toy: dict[str, bool] = field(default_factory=dict)  # model → scored on the embedded fixture data

    @property
    def models(self) -> list[str]:
        return sorted(self.runs)

    def has_samples(self, model: str) -> bool:
        return model in self.tables


@dataclass
class Row:
    """A dataset row: one variant group, or the subtask groups of one dataset (s_t = mean over subtasks)."""

    name: str
    dataset: str
    domain: str
    groups: list[Group]
    templates: list[str]
    models: list[str]
    flags: dict[str, Any] = field(default_factory=dict)
    keys: list[str] = field(default_factory=list)  # union of the groups' unit keys (bootstrap units)
    template_idx: dict[str, Any] = field(default_factory=dict)  # bootstrap kind → B × T template draws (or None)

    @property
    def composite(self) -> bool:
        return len(self.groups) > 1 or self.groups[0].subtask is not None

    @property
    def primary(self) -> str:
        """The row's primary metric (the first metric aggregated)."""
        return self.groups[0].metrics[0].name

    def metadata(self, key: str, default: Any = None) -> Any:
        """``metadata[key]`` of the row's template variants (the first variant that has it, else ``default``):
        e.g. the NLU suite's ``suite``, ``language`` and ``pair``."""
        for g in self.groups:
            for by_t in g.runs.values():
                for run in by_t.values():
                    if run.meta.get(key) is not None:
                        return run.meta[key]
        return default


# ============================================================================================== reading
def read_runs(
    paths: Sequence[str], opts: Options, messages: list[str], progress: Progress, template_set: str = "core"
) -> tuple[list[ResultsFile], list[TaskRun], list[TaskRun]]:
    """The reading every path of the tool shares (full runs, sparse runs, template populations): (results files,
    every template-variant task run of ``template_set`` with its model — display name, settings, decoding —, the
    runs in use: ``--run`` or the newest per model and task). Each file or task left out is named in ``messages``."""
    files = find_results_files(paths)
    rfs = [read_results_file(p) for p in progress(files, "reading results", len(files))]
    runs: list[TaskRun] = []
    for rf in rfs:
        runs.extend(task_runs(rf, opts.variant_pattern, messages, template_set))
    if not runs:
        raise SharpeInputError(
            "no template-variant tasks in the inputs (tasks need configs[task].metadata with "
            "variant_group and template_id, or names matching --variant_pattern)"
        )
    assign_models(runs, load_name_map(opts.model_names), opts.strict, messages)
    return rfs, runs, select_newest(runs, opts.run, messages)


def load_runs(
    paths: Sequence[str], opts: Options, messages: list[str], progress: Progress
) -> tuple[list[ResultsFile], list[TaskRun], dict[str, dict[str, set[str]]]]:
    """(results files, selected task runs — newest per model and task —, templates listed per model and group): the
    shared reading (:func:`read_runs`) plus the full tool's check of the templates listed in ``group_subtasks``."""
    rfs, runs, selected = read_runs(paths, opts, messages, progress)
    return rfs, selected, _listed_by_model(runs, selected, opts, messages)


def _listed_by_model(
    runs: list[TaskRun], selected: list[TaskRun], opts: Options, messages: list[str]
) -> dict[str, dict[str, set[str]]]:
    """model → variant group → template ids listed in ``group_subtasks`` of the model's results files in use
    (those of the selected runs), so that a template without a result is detected even when no other model has it
    (see :func:`.io.listed_templates`)."""
    by_file: dict[int, list[TaskRun]] = defaultdict(list)
    for r in runs:
        by_file[id(r.source)].append(r)
    files: dict[str, dict[int, Any]] = defaultdict(dict)
    for r in selected:
        files[r.model][id(r.source)] = r.source
    listed: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for model, fs in files.items():
        for key, rf in fs.items():
            found, unresolved = listed_templates(rf, by_file[key], opts.variant_pattern)
            for vg, tids in found.items():
                listed[model][vg] |= tids
            if unresolved:
                msg = (
                    f"{rf.path}: task(s) {', '.join(sorted(unresolved))} listed in group_subtasks have no results "
                    f"row and no template metadata (model {model})"
                )
                strict_or_note(opts, messages, msg, "; missing results (--strict)", "; they are not part of any score")
    return listed


# ============================================================================================== metrics & settings
def _metric_filter(runs: list[TaskRun], group: str, name: str) -> str:
    filts = {r.primary_filter for r in runs}
    if len(filts) == 1 and None not in filts:
        return filts.pop()
    found = {k.split(",", 1)[1] for r in runs for k in r.row if k.startswith(name + ",") and "_stderr" not in k}
    if len(found) != 1:
        raise SharpeInputError(
            f"group {group}: cannot tell the filter of metric {name!r} "
            f"(found {sorted(found) or 'none'}); pass --metric {name},FILTER"
        )
    return found.pop()


def _primary_metric(runs: list[TaskRun], group: str) -> str:
    prim = {r.primary_metric for r in runs}
    if None in prim or len(prim) != 1:
        if len(prim) > 1 and None not in prim:
            raise SharpeInputError(f"group {group}: templates disagree on primary_metric {sorted(prim)}")
        raise SharpeInputError(
            f"group {group}: task {runs[0].task} has no metadata.primary_metric; pass --metric NAME[,FILTER]"
        )
    return prim.pop()


def metric_specs(runs: list[TaskRun], group: str, opts: Options) -> list[MetricSpec]:
    """The metrics aggregated for a group: ``--metric`` or each task's ``metadata.primary_metric``."""
    specs = []
    for w in opts.metrics or [None]:
        if w is None:
            name, filt = _primary_metric(runs, group), None
        else:
            name, _, filt = w.partition(",")
            filt = filt or None
        filt = filt or _metric_filter(runs, group, name)
        key = f"{name},{filt}"
        have = [r.task for r in runs if key in r.row]
        if not have:
            if w is not None and opts.metrics and len(opts.metrics) > 1:
                continue  # this requested metric does not exist for this task family
            raise SharpeInputError(
                f"group {group}: metric {key!r} is missing from the results of "
                f"{', '.join(sorted({r.task for r in runs}))}"
            )
        if len(have) != len(runs):
            missing = sorted(f"{r.model}:{r.task}" for r in runs if key not in r.row)
            raise SharpeInputError(f"group {group}: metric {key!r} is missing for {', '.join(missing)}")
        hib = {bool(r.higher_is_better.get(name, True)) for r in runs}
        if len(hib) != 1:
            raise SharpeInputError(f"group {group}: templates disagree on higher_is_better for {name}")
        specs.append(MetricSpec(name, filt, families.aggregation_of(runs[0].family, name), hib.pop()))
    if not specs:
        raise SharpeInputError(f"group {group}: none of the metrics {opts.metrics} exists")
    return specs


def _check_settings(g: Group, opts: Options, messages: list[str]) -> None:
    """Every template of a model must share lm-eval version, n-shot and limit."""
    for model, by_t in g.runs.items():
        for attr, label in (("lm_eval_version", "lm-eval version"), ("n_shot", "n-shot"), ("limit", "limit")):
            vals = {str(getattr(r, attr)) for t, r in by_t.items() if t in g.templates}
            if len(vals) > 1:
                detail = ", ".join(f"{t}={getattr(r, attr)}" for t, r in sorted(by_t.items()))
                msg = f"group {g.name}, model {model}: templates differ in {label} ({detail})"
                strict_or_note(opts, messages, msg, "", "; reported with flag inconsistent_settings")
                g.model_flags.setdefault(model, {})["inconsistent_settings"] = label


# ============================================================================================== exclusions
def _group_aliases(name: str, rs: list[TaskRun]) -> set[str]:
    """Names under which ``--exclude_template`` reaches a variant group: the group itself, its dataset
    (``metadata.dataset``) and, for a subtask group ``<base>_<subtask>``, the dataset row name ``<base>``."""
    out = {name} | {r.dataset for r in rs}
    for r in rs:
        if r.subtask and name.endswith("_" + r.subtask):
            out.add(name[: -len(r.subtask) - 1])
    return out


def _exclusions(
    by_group: dict[str, list[TaskRun]], opts: Options, messages: list[str], listed: dict[str, dict[str, set[str]]]
) -> dict[str, set[str]]:
    """``--exclude_template NAME:TID`` → variant group → excluded template ids. NAME is a variant group (an exact
    match wins) or a dataset (row name or ``metadata.dataset``), which applies to all its variant groups. An
    exclusion matching no template of the inputs is reported (``--strict``: exit 1), never silently ignored. A
    template listed in ``group_subtasks`` without a result counts as a template of the group (excluding it
    silences ``templates_missing``)."""
    aliases = {name: _group_aliases(name, rs) for name, rs in by_group.items()}
    tids_of = {
        name: {r.template_id for r in rs} | set().union(*(lst.get(name, set()) for lst in listed.values()))
        for name, rs in by_group.items()
    }
    excluded: dict[str, set[str]] = defaultdict(set)
    for spec in opts.exclude_templates:
        grp, _, tid = spec.partition(":")
        grp, tid = grp.strip(), tid.strip()
        if not grp or not tid:
            raise SharpeUsageError(f"--exclude_template {spec!r}: expected GROUP:TEMPLATE_ID")
        targets = [grp] if grp in by_group else sorted(n for n, a in aliases.items() if grp in a)
        hits = [n for n in targets if tid in tids_of[n]]
        if not hits:
            if targets:
                have = sorted(set().union(*(tids_of[n] for n in targets)), key=natural_key)
                why = f"{grp} has no template {tid} (templates: {', '.join(have)})"
            else:
                why = (
                    f"no variant group or dataset named {grp} (groups: "
                    f"{', '.join(sorted(by_group)[:20])}{', ...' if len(by_group) > 20 else ''})"
                )
            msg = f"--exclude_template {spec}: matches nothing: {why}"
            strict_or_note(opts, messages, msg, " (--strict)", "; ignored")
            continue
        if hits != [grp]:
            messages.append(f"--exclude_template {spec}: applies to {len(hits)} variant group(s) {', '.join(hits)}")
        for n in hits:
            excluded[n].add(tid)
    return excluded


# ============================================================================================== groups
def _report_models_without_results(
    name: str, present: set[str], listed: dict, excluded: set[str], opts: Options, messages: list[str]
) -> None:
    """A model that lists templates of the group in ``group_subtasks`` but has no result for any of them."""
    for m in sorted(listed):
        want = listed[m].get(name, set()) - excluded
        if want and m not in present:
            msg = (
                f"group {name}: model {m} has no result for any of its listed templates "
                f"{', '.join(sorted(want, key=natural_key))} (group_subtasks)"
            )
            strict_or_note(opts, messages, msg, "; missing templates (--strict)", "; no record for this model")


def _new_group(name: str, rs: list[TaskRun], excluded: set[str]) -> Group:
    dsets = {(r.dataset, r.domain, r.subtask, r.family) for r in rs}
    if len(dsets) != 1:
        raise SharpeInputError(
            f"group {name}: templates disagree on dataset/domain/subtask/task_family {sorted(map(str, dsets))}"
        )
    by_model: dict[str, dict[str, TaskRun]] = defaultdict(dict)
    for r in rs:
        by_model[r.model][r.template_id] = r
    first = rs[0]
    g = Group(name, first.dataset, first.domain, first.subtask, first.family, dict(by_model))
    if excluded:
        g.flags["excluded_templates"] = sorted(excluded, key=natural_key)
    if any(r.grouped_by == "name" for r in rs):
        g.flags["grouped_by_name"] = True
    g.toy = {m: any(r.toy_data for r in by_t.values()) for m, by_t in by_model.items()}
    return g


def _shared_templates(g: Group, opts: Options, messages: list[str]) -> set[str]:
    """Templates every model has; the others are dropped for every model (flag ``templates_dropped``)."""
    all_t = set().union(*(set(v) for v in g.runs.values()))
    common = set.intersection(*(set(v) for v in g.runs.values()))
    if common != all_t:
        missing = {m: sorted(all_t - set(v), key=natural_key) for m, v in g.runs.items() if all_t - set(v)}
        desc = "; ".join(f"{m} lacks {', '.join(ts)}" for m, ts in sorted(missing.items()))
        msg = f"group {g.name}: missing templates ({desc})"
        if opts.strict:
            raise SharpeInputError(msg)
        dropped = sorted(all_t - common, key=natural_key)
        messages.append(
            f"{msg}; template(s) {', '.join(dropped)} dropped for every model so that all models "
            f"are scored on the same templates (flag templates_dropped)"
        )
        g.flags["templates_dropped"] = {"templates": dropped, "missing": missing}
    return common


def _flag_listed_missing(g: Group, listed: dict, excluded: set[str], opts: Options, messages: list[str]) -> None:
    """Templates a model lists in ``group_subtasks`` without a result: flag ``templates_missing`` (a message unless
    the template is already reported as dropped)."""
    all_t = set().union(*(set(v) for v in g.runs.values()))
    for m in sorted(g.runs):
        want = listed.get(m, {}).get(g.name, set()) - excluded
        lack = sorted(want - set(g.runs[m]), key=natural_key)
        if not lack:
            continue
        g.model_flags.setdefault(m, {})["templates_missing"] = lack
        new = [t for t in lack if t not in all_t]  # others are already reported as templates_dropped
        if new:
            msg = (
                f"group {g.name}: model {m} has no result for template(s) {', '.join(new)} listed in its "
                f"results file (group_subtasks)"
            )
            only = f"; scored on {', '.join(g.templates) or 'no template'} only (flag templates_missing)"
            strict_or_note(opts, messages, msg, "; missing templates (--strict)", only)


def build_groups(
    runs: list[TaskRun], opts: Options, messages: list[str], listed: dict[str, dict[str, set[str]]] | None = None
) -> list[Group]:
    """Variant groups with their shared templates, metrics, unit (document or query) and settings checks."""
    by_group: dict[str, list[TaskRun]] = defaultdict(list)
    for r in runs:
        by_group[r.variant_group].append(r)
    listed = listed or {}
    excluded = _exclusions(by_group, opts, messages, listed)
    groups = []
    for name in sorted(by_group):
        ex = excluded.get(name, set())
        for tid in sorted(ex, key=natural_key):
            messages.append(f"group {name}: template {tid} excluded by --exclude_template (flag excluded_templates)")
        rs = [r for r in by_group[name] if r.template_id not in ex]
        _report_models_without_results(name, {r.model for r in rs}, listed, ex, opts, messages)
        if not rs:
            continue
        g = _new_group(name, rs, ex)
        common = _shared_templates(g, opts, messages)
        g.templates = sorted(common, key=natural_key)
        _flag_listed_missing(g, listed, ex, opts, messages)
        if not g.templates:
            messages.append(f"group {name}: no template is shared by all models; skipped")
            continue
        g.metrics = metric_specs([r for v in g.runs.values() for t, r in v.items() if t in common], name, opts)
        is_rank = families.uses_query_units(g.family) or any(corpus.per_query(m.agg) for m in g.metrics)
        g.unit = "query" if is_rank else "doc"
        _check_settings(g, opts, messages)
        groups.append(g)
    if not groups:
        raise SharpeInputError("no variant group left to aggregate")
    return groups


# ============================================================================================== rows
def _subtask_row(ds: str, gs: list[Group], messages: list[str]) -> Row | None:
    gs.sort(key=lambda g: g.name)
    base = gs[0].name[: -len(gs[0].subtask) - 1] if gs[0].name.endswith("_" + gs[0].subtask) else ds
    row = Row(base, ds, gs[0].domain, gs, [], [])
    all_t = set().union(*(g.templates for g in gs))
    common = set.intersection(*(set(g.templates) for g in gs))
    if common != all_t:
        miss = {g.subtask: sorted(all_t - set(g.templates), key=natural_key) for g in gs if all_t - set(g.templates)}
        messages.append(
            f"dataset {ds}: subtasks lack templates {miss}; those templates are dropped from the "
            "dataset row (flag templates_dropped)"
        )
        row.flags["templates_dropped"] = {"templates": sorted(all_t - common, key=natural_key), "missing": miss}
    row.templates = sorted(common, key=natural_key)
    all_m = set().union(*(g.models for g in gs))
    full = set.intersection(*(set(g.models) for g in gs))
    if full != all_m:
        miss = {m: sorted(g.subtask for g in gs if m not in g.models) for m in sorted(all_m - full)}
        messages.append(
            f"dataset {ds}: models without every subtask are left out of the dataset row: {miss} "
            "(flag missing_subtasks)"
        )
        row.flags["missing_subtasks"] = miss
    row.models = sorted(full)
    if len({g.family for g in gs}) > 1 or len({tuple(m.name for m in g.metrics) for g in gs}) > 1:
        raise SharpeInputError(f"dataset {ds}: subtasks use different task families or metrics")
    if not row.templates:
        messages.append(f"dataset {ds}: no template shared by all subtasks; dataset row skipped")
        return None
    return row


def build_rows(groups: list[Group], messages: list[str]) -> list[Row]:
    """Dataset rows: a group without subtask is its own row; subtask groups of one dataset form one row."""
    by_ds: dict[str, list[Group]] = defaultdict(list)
    rows = []
    for g in groups:
        if g.subtask is not None:
            by_ds[g.dataset].append(g)
        else:
            rows.append(Row(g.name, g.dataset, g.domain, [g], list(g.templates), g.models))
    for ds, gs in sorted(by_ds.items()):
        row = _subtask_row(ds, gs, messages)
        if row is not None:
            rows.append(row)
    rows.sort(key=lambda r: (r.domain, r.name))
    return rows
