"""Dataset rows: the selected task runs of a full run grouped into variant groups (``metadata.variant_group``),
one read-only :class:`Row` each, with the templates every model has, the metrics, the unit (document or query)
and the flags grouping raises. Every inconsistency is a message and a flag, or under ``--strict`` a
:class:`~.inputs.SharpeInputError`; nothing is dropped silently.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from .. import families
from ..scoring import corpus
from ..taskmeta import TaskMeta
from ..text import natural_key
from .inputs import Diagnostics, Options, SharpeInputError, SharpeUsageError, TaskRun


@dataclass(frozen=True)
class MetricSpec:
    name: str
    filter: str
    agg: str | None
    higher_is_better: bool


@dataclass(frozen=True)
class Row:
    """One dataset row: a variant group across models and templates, as the results files give it."""

    name: str
    dataset: str
    domain: str
    family: str | None
    runs: dict[str, dict[str, TaskRun]]  # model → template id → run
    templates: list[str]  # the templates every model has
    metrics: list[MetricSpec]
    unit: str  # doc | query
    flags: dict[str, Any]  # flags of the row found while grouping
    model_flags: dict[str, dict[str, Any]]  # model → its flags found while grouping
    toy: dict[str, bool]  # model → scored on the embedded fixture data

    @property
    def models(self) -> list[str]:
        return sorted(self.runs)

    @property
    def primary(self) -> str:
        """The row's primary metric (the first metric aggregated)."""
        return self.metrics[0].name

    @property
    def taskmeta(self) -> TaskMeta:
        """The metadata of the row's template variants, read with the schema (the first variant's; a dataset's
        variants share what a row reads of it: e.g. the NLU suite's ``suite``, ``language`` and ``pair``)."""
        return next((run.taskmeta for by_t in self.runs.values() for run in by_t.values()), TaskMeta())


# ============================================================================================== metrics & settings
def _metric_filter(runs: list[TaskRun], group: str, name: str) -> str:
    filts = {r.taskmeta.primary_filter for r in runs}
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
    prim = {r.taskmeta.primary_metric for r in runs}
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
        specs.append(MetricSpec(name, filt, families.aggregation_of(runs[0].taskmeta.task_family, name), hib.pop()))
    if not specs:
        raise SharpeInputError(f"group {group}: none of the metrics {opts.metrics} exists")
    return specs


def _check_settings(name: str, runs: dict, templates: list[str], model_flags: dict, diag: Diagnostics) -> None:
    """Every template of a model must share lm-eval version, n-shot and limit (flag ``inconsistent_settings``)."""
    for model, by_t in runs.items():
        for attr, label in (("lm_eval_version", "lm-eval version"), ("n_shot", "n-shot"), ("limit", "limit")):
            vals = {str(getattr(r, attr)) for t, r in by_t.items() if t in templates}
            if len(vals) > 1:
                detail = ", ".join(f"{t}={getattr(r, attr)}" for t, r in sorted(by_t.items()))
                diag.problem(
                    f"group {name}, model {model}: templates differ in {label} ({detail})",
                    note_suffix="; reported with flag inconsistent_settings",
                )
                model_flags.setdefault(model, {})["inconsistent_settings"] = label


# ============================================================================================== exclusions
def _exclusions(
    by_group: dict[str, list[TaskRun]], opts: Options, diag: Diagnostics, listed: dict[str, dict[str, set[str]]]
) -> dict[str, set[str]]:
    """``--exclude_template NAME:TID`` → variant group → excluded template ids. NAME is a variant group (an exact
    match wins) or a dataset (``metadata.dataset``), which applies to all its variant groups. An exclusion
    matching no template of the inputs is reported (``--strict``: exit 1), never silently ignored. A template listed
    in ``group_subtasks`` without a result counts as a template of the group (excluding it silences
    ``templates_missing``)."""
    aliases = {name: {name} | {r.dataset for r in rs} for name, rs in by_group.items()}
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
            diag.problem(f"--exclude_template {spec}: matches nothing: {why}", " (--strict)", "; ignored")
            continue
        if hits != [grp]:
            diag.note(f"--exclude_template {spec}: applies to {len(hits)} variant group(s) {', '.join(hits)}")
        for n in hits:
            excluded[n].add(tid)
    return excluded


# ============================================================================================== rows
def _report_models_without_results(name: str, present: set[str], listed: dict, excluded: set, diag: Diagnostics):
    """A model that lists templates of the group in ``group_subtasks`` but has no result for any of them."""
    for m in sorted(listed):
        want = listed[m].get(name, set()) - excluded
        if want and m not in present:
            diag.problem(
                f"group {name}: model {m} has no result for any of its listed templates "
                f"{', '.join(sorted(want, key=natural_key))} (group_subtasks)",
                "; missing templates (--strict)",
                "; no record for this model",
            )


def _runs_by_model(name: str, rs: list[TaskRun]) -> dict[str, dict[str, TaskRun]]:
    """model → template id → run of one variant group, whose templates agree on dataset, domain and family."""
    dsets = {(r.dataset, r.domain, r.taskmeta.task_family) for r in rs}
    if len(dsets) != 1:
        raise SharpeInputError(
            f"group {name}: templates disagree on dataset/domain/task_family {sorted(map(str, dsets))}"
        )
    by_model: dict[str, dict[str, TaskRun]] = defaultdict(dict)
    for r in rs:
        by_model[r.model][r.template_id] = r
    return dict(by_model)


def _shared_templates(name: str, runs: dict, flags: dict, diag: Diagnostics) -> set[str]:
    """Templates every model has; the others are dropped for every model (flag ``templates_dropped``)."""
    all_t = set().union(*(set(v) for v in runs.values()))
    common = set.intersection(*(set(v) for v in runs.values()))
    if common != all_t:
        missing = {m: sorted(all_t - set(v), key=natural_key) for m, v in runs.items() if all_t - set(v)}
        desc = "; ".join(f"{m} lacks {', '.join(ts)}" for m, ts in sorted(missing.items()))
        dropped = sorted(all_t - common, key=natural_key)
        diag.problem(
            f"group {name}: missing templates ({desc})",
            note_suffix=f"; template(s) {', '.join(dropped)} dropped for every model so that all models "
            f"are scored on the same templates (flag templates_dropped)",
        )
        flags["templates_dropped"] = {"templates": dropped, "missing": missing}
    return common


def _flag_listed_missing(name, runs, templates, model_flags, listed, excluded, diag: Diagnostics) -> None:
    """Templates a model lists in ``group_subtasks`` without a result: flag ``templates_missing`` (a message unless
    the template is already reported as dropped)."""
    all_t = set().union(*(set(v) for v in runs.values()))
    for m in sorted(runs):
        want = listed.get(m, {}).get(name, set()) - excluded
        lack = sorted(want - set(runs[m]), key=natural_key)
        if not lack:
            continue
        model_flags.setdefault(m, {})["templates_missing"] = lack
        new = [t for t in lack if t not in all_t]  # others are already reported as templates_dropped
        if new:
            diag.problem(
                f"group {name}: model {m} has no result for template(s) {', '.join(new)} listed in its "
                f"results file (group_subtasks)",
                "; missing templates (--strict)",
                f"; scored on {', '.join(templates) or 'no template'} only (flag templates_missing)",
            )


def _row(name: str, rs: list[TaskRun], excluded: set[str], listed: dict, opts: Options, diag) -> Row | None:
    """The dataset row of one variant group (None when no template is shared by all models)."""
    runs = _runs_by_model(name, rs)
    flags: dict[str, Any] = {}
    model_flags: dict[str, dict[str, Any]] = {}
    if excluded:
        flags["excluded_templates"] = sorted(excluded, key=natural_key)
    if any(r.grouped_by == "name" for r in rs):
        flags["grouped_by_name"] = True
    common = _shared_templates(name, runs, flags, diag)
    templates = sorted(common, key=natural_key)
    _flag_listed_missing(name, runs, templates, model_flags, listed, excluded, diag)
    if not templates:
        diag.note(f"group {name}: no template is shared by all models; skipped")
        return None
    first, family = rs[0], rs[0].taskmeta.task_family
    metrics = metric_specs([r for v in runs.values() for t, r in v.items() if t in common], name, opts)
    is_rank = families.uses_query_units(family) or any(corpus.per_query(m.agg) for m in metrics)
    _check_settings(name, runs, templates, model_flags, diag)
    toy = {m: any(r.toy_data for r in by_t.values()) for m, by_t in runs.items()}
    unit = "query" if is_rank else "doc"
    return Row(name, first.dataset, first.domain, family, runs, templates, metrics, unit, flags, model_flags, toy)


def build_rows(runs: list[TaskRun], opts: Options, diag: Diagnostics, listed: dict | None = None) -> list[Row]:
    """One dataset row per variant group of the selected runs (``listed``: the templates each model's results files
    list, :func:`.inputs.listed_by_model`), sorted by domain and name."""
    by_group: dict[str, list[TaskRun]] = defaultdict(list)
    for r in runs:
        by_group[r.variant_group].append(r)
    listed = listed or {}
    excluded = _exclusions(by_group, opts, diag, listed)
    rows = []
    for name in sorted(by_group):
        ex = excluded.get(name, set())
        for tid in sorted(ex, key=natural_key):
            diag.note(f"group {name}: template {tid} excluded by --exclude_template (flag excluded_templates)")
        rs = [r for r in by_group[name] if r.template_id not in ex]
        _report_models_without_results(name, {r.model for r in rs}, listed, ex, diag)
        row = _row(name, rs, ex, listed, opts, diag) if rs else None
        if row is not None:
            rows.append(row)
    if not rows:
        raise SharpeInputError("no variant group left to aggregate")
    rows.sort(key=lambda r: (r.domain, r.name))
    return rows
