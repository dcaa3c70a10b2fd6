"""The aggregation: lm-eval outputs → records, rank stability, comparisons and domain roll-ups (SHARPE.md).

Flow (:func:`aggregate`):

1. read every results file (:mod:`.io`), keep template variants (metadata, else ``--variant-pattern``), newest run
   per (model, task); one model name run with different settings is split (``--strict``: exit 2);
2. per variant group: the metric(s), the templates every model has (a template missing for some model is dropped
   for all, flagged; a template listed in a model's ``group_subtasks`` without a result is flagged
   ``templates_missing``; ``--exclude-template`` by group or dataset name, never silent), settings checks (§6),
   samples of the primary filter, pairing by document key (``doc.id`` → ``doc_hash`` → ``doc_id``; ranking:
   query id) on the intersection of all models and templates;
3. per (model, template, metric, scoring mode) a :class:`~.scoring.Scorer` recomputes s_t from the samples (checked
   against the results file); the baseline (§3) is computed on the same documents;
4. dataset rows: a dataset with subtasks (``metadata.subtask``) gets s_t(dataset) = mean over subtasks (§6);
5. point statistics (§1, §5, §7), bootstrap intervals (§8), format failures (§10), rank stability (§7), paired
   comparisons (§9), domain and overall rows (§6).

Everything is returned as one JSON-ready dict (no NaN/inf: Sharpe is ``null`` plus ``sharpe_status``).
"""
from __future__ import annotations

import math
import re
import sys
import time
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

from .. import __version__
from . import baselines as BL
from . import bootstrap as BS
from . import stats as ST
from .io import (DEFAULT_VARIANT_PATTERN, SampleTable, SharpeInputError, TaskRun, assign_models,
                 find_results_files, listed_templates, load_name_map, read_results_file, read_samples, select_newest,
                 task_runs)
from .scoring import (RANKING_FAMILIES, ScoringError, aggregation_of, build_doc_scorer, build_query_scorer,
                      ranking_aggregation)

SCHEMA_VERSION = 1
RECOMPUTE_TOL = 1e-9


@dataclass
class Options:
    """Settings of one aggregation (the CLI switches of SHARPE.md §2)."""

    baseline: str = "uniform"              # uniform | majority | none | simulated | table:PATH
    ddof: int = 1
    alpha: float = 1.0                     # --sigma-weight
    sigma_floor: str = "off"               # off | binomial | VALUE
    metrics: list[str] | None = None       # ["name" or "name,filter"]; default: metadata.primary_metric
    scoring: str = "both"                  # strict | parsed_only | both
    bootstrap: int = 2000
    seed: int = 0
    bootstrap_templates: bool = False
    variant_pattern: str = DEFAULT_VARIANT_PATTERN
    exclude_templates: list[str] = field(default_factory=list)   # "group:tid"
    strict: bool = False
    fail_threshold: float = 0.2
    run: str | None = None
    model_names: str | None = None
    compare: list[str] | None = None       # ["A,B", ...]; None = every pair
    permutations: int = 2000
    fragile_top: int = 10
    progress: bool | None = None           # None: when stderr is a terminal
    workers: int | None = None             # processes for reading/bootstrap; None: auto (>1 only for big inputs)
    hash_samples: bool = False             # SHA-256 of every samples file in the provenance

    def floor_mode(self):
        if self.sigma_floor in ("off", "binomial"):
            return self.sigma_floor
        try:
            return float(self.sigma_floor)
        except ValueError:
            raise SharpeInputError(f"--sigma-floor must be off, binomial or a number, not {self.sigma_floor!r}")


def natural_key(s: str) -> list:
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", str(s))]


class _Progress:
    def __init__(self, enabled: bool | None):
        self.enabled = sys.stderr.isatty() if enabled is None else enabled

    def __call__(self, it: Iterable, desc: str, total: int | None = None):
        if not self.enabled:
            return it
        from tqdm.auto import tqdm

        return tqdm(it, desc=desc, total=total, file=sys.stderr, leave=False, dynamic_ncols=True)


# ============================================================================================== group structures
@dataclass
class MetricSpec:
    name: str
    filter: str
    agg: str | None
    higher_is_better: bool


@dataclass
class Group:
    """One variant group (a dataset, or one subtask of a dataset) across models and templates."""

    name: str
    dataset: str
    domain: str
    subtask: str | None
    family: str | None
    runs: dict[str, dict[str, TaskRun]]            # model → template id → run
    templates: list[str] = field(default_factory=list)
    metrics: list[MetricSpec] = field(default_factory=list)
    unit: str = "doc"                              # doc | query
    flags: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    tables: dict[str, dict[str, SampleTable]] = field(default_factory=dict)   # models with samples
    keys: list[str] = field(default_factory=list)
    key_source: str | None = None
    lines: dict[tuple[str, str], Any] = field(default_factory=dict)           # (model, tid) → line index per unit
    scorers: dict[tuple, Any] = field(default_factory=dict)                   # (model, tid, metric, mode)
    failure: dict[tuple[str, str], np.ndarray] = field(default_factory=dict)  # (model, tid) → per-unit rate
    parse_ok: dict[tuple[str, str], np.ndarray] = field(default_factory=dict)
    scores: dict[tuple, float] = field(default_factory=dict)                  # (model, tid, metric, mode)
    fail_rate: dict[tuple[str, str], float | None] = field(default_factory=dict)
    baseline: dict[str, BL.Baseline] = field(default_factory=dict)            # metric → baseline
    model_flags: dict[str, dict[str, Any]] = field(default_factory=dict)
    per_doc: dict[tuple[str, str], tuple] = field(default_factory=dict)  # (model, metric) → (T×D, kind, is_metric)
    n_docs: dict[str, int | None] = field(default_factory=dict)               # model → documents scored
    boot: dict[tuple, np.ndarray] = field(default_factory=dict)               # (model, metric, mode, kind) → B×T

    @property
    def models(self) -> list[str]:
        return sorted(self.runs)

    def has_samples(self, model: str) -> bool:
        return model in self.tables

    def is_linear_metric(self, metric: str) -> bool:
        return all(getattr(s, "linear", False) for k, s in self.scorers.items() if k[2] == metric)


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
    notes: list[str] = field(default_factory=list)
    keys: list[str] = field(default_factory=list)      # union of the groups' unit keys (bootstrap units)

    @property
    def composite(self) -> bool:
        return len(self.groups) > 1 or self.groups[0].subtask is not None


# ============================================================================================== reading
def _load(paths: Sequence[str], opts: Options, messages: list[str], progress: _Progress):
    files = find_results_files(paths)
    rfs = [read_results_file(p) for p in progress(files, "reading results", len(files))]
    runs: list[TaskRun] = []
    for rf in rfs:
        runs.extend(task_runs(rf, opts.variant_pattern, messages))
    if not runs:
        raise SharpeInputError("no template-variant tasks in the inputs (tasks need configs[task].metadata with "
                               "variant_group and template_id, or names matching --variant-pattern)")
    assign_models(runs, load_name_map(opts.model_names), opts.strict, messages)
    selected = select_newest(runs, opts.run)
    return rfs, selected, _listed_by_model(runs, selected, opts, messages)


def _listed_by_model(runs: list[TaskRun], selected: list[TaskRun], opts: Options,
                     messages: list[str]) -> dict[str, dict[str, set[str]]]:
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
                msg = (f"{rf.path}: task(s) {', '.join(sorted(unresolved))} listed in group_subtasks have no results "
                       f"row and no template metadata (model {model})")
                if opts.strict:
                    raise SharpeInputError(msg + "; missing results (--strict)")
                messages.append(msg + "; they are not part of any score")
    return listed


def _metric_specs(runs: list[TaskRun], group: str, opts: Options) -> list[MetricSpec]:
    first = runs[0]
    wanted = opts.metrics or [None]
    specs = []
    for w in wanted:
        if w is None:
            prim = {r.primary_metric for r in runs}
            if None in prim or len(prim) != 1:
                if len(prim) > 1 and None not in prim:
                    raise SharpeInputError(f"group {group}: templates disagree on primary_metric {sorted(prim)}")
                raise SharpeInputError(f"group {group}: task {first.task} has no metadata.primary_metric; "
                                       "pass --metric NAME[,FILTER]")
            name, filt = prim.pop(), None
        else:
            name, _, filt = w.partition(",")
            filt = filt or None
        if filt is None:
            filts = {r.primary_filter for r in runs}
            if len(filts) == 1 and None not in filts:
                filt = filts.pop()
            else:
                found = {k.split(",", 1)[1] for r in runs for k in r.row if k.startswith(name + ",")
                         and "_stderr" not in k}
                if len(found) != 1:
                    raise SharpeInputError(f"group {group}: cannot tell the filter of metric {name!r} "
                                           f"(found {sorted(found) or 'none'}); pass --metric {name},FILTER")
                filt = found.pop()
        key = f"{name},{filt}"
        have = [r.task for r in runs if key in r.row]
        if not have:
            if w is not None and opts.metrics and len(opts.metrics) > 1:
                continue  # this requested metric does not exist for this task family
            raise SharpeInputError(f"group {group}: metric {key!r} is missing from the results of "
                                   f"{', '.join(sorted({r.task for r in runs}))}")
        if len(have) != len(runs):
            missing = sorted(f"{r.model}:{r.task}" for r in runs if key not in r.row)
            raise SharpeInputError(f"group {group}: metric {key!r} is missing for {', '.join(missing)}")
        hib = {bool(r.higher_is_better.get(name, True)) for r in runs}
        if len(hib) != 1:
            raise SharpeInputError(f"group {group}: templates disagree on higher_is_better for {name}")
        specs.append(MetricSpec(name, filt, aggregation_of(first.family, name), hib.pop()))
    if not specs:
        raise SharpeInputError(f"group {group}: none of the metrics {opts.metrics} exists")
    return specs


def _check_settings(g: Group, opts: Options, messages: list[str]) -> None:
    """SHARPE.md §6: every template of a model must share lm-eval version, n-shot and limit."""
    for model, by_t in g.runs.items():
        for attr, label in (("lm_eval_version", "lm-eval version"), ("n_shot", "n-shot"), ("limit", "limit")):
            vals = {str(getattr(r, attr)) for t, r in by_t.items() if t in g.templates}
            if len(vals) > 1:
                detail = ", ".join(f"{t}={getattr(r, attr)}" for t, r in sorted(by_t.items()))
                msg = f"group {g.name}, model {model}: templates differ in {label} ({detail})"
                if opts.strict:
                    raise SharpeInputError(msg)
                messages.append(msg + "; reported with flag inconsistent_settings")
                g.model_flags.setdefault(model, {})["inconsistent_settings"] = label


def _group_aliases(name: str, rs: list[TaskRun]) -> set[str]:
    """Names under which ``--exclude-template`` reaches a variant group: the group itself, its dataset
    (``metadata.dataset``) and, for a subtask group ``<base>_<subtask>``, the dataset row name ``<base>``."""
    out = {name} | {r.dataset for r in rs}
    for r in rs:
        if r.subtask and name.endswith("_" + r.subtask):
            out.add(name[: -len(r.subtask) - 1])
    return out


def _exclusions(by_group: dict[str, list[TaskRun]], opts: Options, messages: list[str],
                listed: dict[str, dict[str, set[str]]]) -> dict[str, set[str]]:
    """``--exclude-template NAME:TID`` → variant group → excluded template ids. NAME is a variant group (an exact
    match wins) or a dataset (row name or ``metadata.dataset``), which applies to all its variant groups. An
    exclusion matching no template of the inputs is reported (``--strict``: exit 2), never silently ignored. A
    template listed in ``group_subtasks`` without a result counts as a template of the group (excluding it
    silences ``templates_missing``)."""
    aliases = {name: _group_aliases(name, rs) for name, rs in by_group.items()}
    tids_of = {name: {r.template_id for r in rs} | set().union(*(lst.get(name, set()) for lst in listed.values()))
               for name, rs in by_group.items()}
    excluded: dict[str, set[str]] = defaultdict(set)
    for spec in opts.exclude_templates:
        grp, _, tid = spec.partition(":")
        grp, tid = grp.strip(), tid.strip()
        if not grp or not tid:
            raise SharpeInputError(f"--exclude-template {spec!r}: expected GROUP:TEMPLATE_ID")
        targets = [grp] if grp in by_group else sorted(n for n, a in aliases.items() if grp in a)
        hits = [n for n in targets if tid in tids_of[n]]
        if not hits:
            if targets:
                have = sorted(set().union(*(tids_of[n] for n in targets)), key=natural_key)
                why = f"{grp} has no template {tid} (templates: {', '.join(have)})"
            else:
                why = (f"no variant group or dataset named {grp} (groups: "
                       f"{', '.join(sorted(by_group)[:20])}{', ...' if len(by_group) > 20 else ''})")
            msg = f"--exclude-template {spec}: matches nothing: {why}"
            if opts.strict:
                raise SharpeInputError(msg + " (--strict)")
            messages.append(msg + "; ignored")
            continue
        if hits != [grp]:
            messages.append(f"--exclude-template {spec}: applies to {len(hits)} variant group(s) "
                            f"{', '.join(hits)}")
        for n in hits:
            excluded[n].add(tid)
    return excluded


def _build_groups(runs: list[TaskRun], opts: Options, messages: list[str],
                  listed: dict[str, dict[str, set[str]]] | None = None) -> list[Group]:
    by_group: dict[str, list[TaskRun]] = defaultdict(list)
    for r in runs:
        by_group[r.variant_group].append(r)
    listed = listed or {}
    excluded = _exclusions(by_group, opts, messages, listed)
    groups = []
    for name in sorted(by_group):
        rs = by_group[name]
        for tid in sorted(excluded.get(name, ()), key=natural_key):
            messages.append(f"group {name}: template {tid} excluded by --exclude-template (flag excluded_templates)")
        rs = [r for r in rs if r.template_id not in excluded.get(name, ())]
        present = {r.model for r in rs}
        for m in sorted(listed):
            want = listed[m].get(name, set()) - excluded.get(name, set())
            if want and m not in present:
                msg = (f"group {name}: model {m} has no result for any of its listed templates "
                       f"{', '.join(sorted(want, key=natural_key))} (group_subtasks)")
                if opts.strict:
                    raise SharpeInputError(msg + "; missing templates (--strict)")
                messages.append(msg + "; no record for this model")
        if not rs:
            continue
        first = rs[0]
        dsets = {(r.dataset, r.domain, r.subtask, r.family) for r in rs}
        if len(dsets) != 1:
            raise SharpeInputError(f"group {name}: templates disagree on dataset/domain/subtask/task_family "
                                   f"{sorted(map(str, dsets))}")
        by_model: dict[str, dict[str, TaskRun]] = defaultdict(dict)
        for r in rs:
            by_model[r.model][r.template_id] = r
        g = Group(name, first.dataset, first.domain, first.subtask, first.family, dict(by_model))
        if excluded.get(name):
            g.flags["excluded_templates"] = sorted(excluded[name], key=natural_key)
        if any(r.grouped_by == "name" for r in rs):
            g.flags["grouped_by_name"] = True
        all_t = set().union(*(set(v) for v in by_model.values()))
        common = set.intersection(*(set(v) for v in by_model.values()))
        if common != all_t:
            missing = {m: sorted(all_t - set(v), key=natural_key) for m, v in by_model.items() if all_t - set(v)}
            desc = "; ".join(f"{m} lacks {', '.join(ts)}" for m, ts in sorted(missing.items()))
            msg = f"group {name}: missing templates ({desc})"
            if opts.strict:
                raise SharpeInputError(msg)
            dropped = sorted(all_t - common, key=natural_key)
            messages.append(f"{msg}; template(s) {', '.join(dropped)} dropped for every model so that all models "
                            f"are scored on the same templates (flag templates_dropped)")
            g.flags["templates_dropped"] = {"templates": dropped, "missing": missing}
        g.templates = sorted(common, key=natural_key)
        for m in sorted(by_model):
            want = listed.get(m, {}).get(name, set()) - excluded.get(name, set())
            lack = sorted(want - set(by_model[m]), key=natural_key)
            if not lack:
                continue
            g.model_flags.setdefault(m, {})["templates_missing"] = lack
            new = [t for t in lack if t not in all_t]   # others are already reported as templates_dropped
            if new:
                msg = (f"group {name}: model {m} has no result for template(s) {', '.join(new)} listed in its "
                       f"results file (group_subtasks)")
                if opts.strict:
                    raise SharpeInputError(msg + "; missing templates (--strict)")
                messages.append(f"{msg}; scored on {', '.join(g.templates) or 'no template'} only "
                                f"(flag templates_missing)")
        if not g.templates:
            messages.append(f"group {name}: no template is shared by all models; skipped")
            continue
        g.metrics = _metric_specs([r for v in by_model.values() for t, r in v.items() if t in common], name, opts)
        is_rank = g.family in RANKING_FAMILIES or any(
            m.agg and ranking_aggregation(m.agg) for m in g.metrics)
        g.unit = "query" if is_rank else "doc"
        _check_settings(g, opts, messages)
        groups.append(g)
    if not groups:
        raise SharpeInputError("no variant group left to aggregate")
    return groups


# ============================================================================================== samples & pairing
def _read_group_samples(g: Group, progress_update, messages: list[str]) -> None:
    metrics = [m.name for m in g.metrics]
    filt = g.metrics[0].filter
    if any(m.filter != filt for m in g.metrics):
        raise SharpeInputError(f"group {g.name}: metrics with different filters cannot be paired in one run")
    for model in g.models:
        tables = {}
        missing = []
        for tid in g.templates:
            run = g.runs[model][tid]
            if run.samples_path is None:
                missing.append(f"{tid} (no samples_{run.task}_{run.source.timestamp}.jsonl)")
                progress_update()
                continue
            # the documents' label fields are read for the baseline from the first model with samples only
            tab = read_samples(run.samples_path, filt, metrics, keep_docs=not g.tables)
            progress_update()
            if len(tab) == 0:
                missing.append(f"{tid} ({run.samples_path.name} is empty)")
                continue
            tables[tid] = tab
        if missing:
            if tables:
                messages.append(f"group {g.name}, model {model}: samples missing for {', '.join(missing)}; "
                                "sample-based statistics of this model are null (flag no_samples)")
            else:
                messages.append(f"group {g.name}, model {model}: no samples ({', '.join(missing)}); scores from "
                                "the results files only, sample-based statistics null (flag no_samples)")
            g.model_flags.setdefault(model, {})["no_samples"] = missing
            continue
        g.tables[model] = tables


def _unit_keys(tab: SampleTable, unit: str, source: str) -> list | None:
    col = getattr(tab, {"id": "ids", "doc_hash": "hashes", "doc_id": "doc_ids"}[source])
    if unit == "query":
        if any(q is None for q in tab.qid) or any(c is None for c in tab.cand):
            return None
        return [(str(q), int(c)) for q, c in zip(tab.qid, tab.cand)]
    if any(v is None for v in col):
        return None
    return [str(v) for v in col]


def _pair(g: Group, opts: Options, messages: list[str]) -> None:
    """Choose the key source, intersect the key sets, and record each table's line order per unit."""
    tabs = [(m, t, tab) for m, by_t in g.tables.items() for t, tab in by_t.items()]
    if not tabs:
        return
    chosen, per_tab = None, None
    for source in (("qid",) if g.unit == "query" else ("id", "doc_hash", "doc_id")):
        keys = [_unit_keys(tab, g.unit, source if source != "qid" else "id") for _, _, tab in tabs]
        if any(k is None for k in keys):
            continue
        if any(len(set(k)) != len(k) for k in keys):
            continue
        chosen, per_tab = source, keys
        break
    if chosen is None:
        what = "(doc.qid, doc.cand_index) pairs" if g.unit == "query" else "doc.id / doc_hash / doc_id"
        raise SharpeInputError(f"group {g.name}: cannot pair documents across templates: no unique {what} in "
                               f"{tabs[0][2].path}")
    g.key_source = chosen
    sets = [set(k) for k in per_tab]
    common = set.intersection(*sets)
    sizes = sorted({len(s) for s in sets})
    if any(len(s) != len(common) for s in sets):
        detail = ", ".join(f"{m}/{t}: {len(s)}" for (m, t, _), s in zip(tabs, sets))
        msg = (f"group {g.name}: templates/models cover different documents ({detail}); "
               f"{len(common)} shared (usual cause: differing --limit)")
        if opts.strict:
            raise SharpeInputError(msg)
        messages.append(msg + "; every score recomputed on the intersection (flag doc_set_intersected)")
        g.flags["doc_set_intersected"] = {"shared": len(common), "sizes": sizes}
    if not common:
        raise SharpeInputError(f"group {g.name}: no document is shared by all templates and models")
    if g.unit == "doc":
        g.keys = sorted(common, key=natural_key)
        for (m, t, _), ks in zip(tabs, per_tab):
            pos = {k: i for i, k in enumerate(ks)}
            g.lines[(m, t)] = np.array([pos[k] for k in g.keys])
    else:
        qids = sorted({q for q, _ in common}, key=natural_key)
        g.keys = qids
        for (m, t, _), ks in zip(tabs, per_tab):
            by_q: dict[str, list[tuple[int, int]]] = defaultdict(list)
            for i, (q, c) in enumerate(ks):
                if (q, c) in common:
                    by_q[q].append((c, i))
            g.lines[(m, t)] = [[i for _, i in sorted(by_q[q])] for q in qids]


# ============================================================================================== scores
def _recompute_target(run: TaskRun, spec: MetricSpec):
    v = run.row.get(f"{spec.name},{spec.filter}")
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def _build_scorers(g: Group, opts: Options, messages: list[str]) -> None:
    modes = ["strict", "parsed_only"] if opts.scoring in ("both", "parsed_only") else ["strict"]
    for model in g.models:
        for tid in g.templates:
            run = g.runs[model][tid]
            ff_res = run.row.get(f"format_failure,{g.metrics[0].filter}")
            g.fail_rate[(model, tid)] = float(ff_res) if isinstance(ff_res, (int, float)) else None
            if not g.has_samples(model):
                g.n_docs[model] = (run.n_samples or {}).get("effective")
                for spec in g.metrics:
                    v = _recompute_target(run, spec)
                    if v is None:
                        raise SharpeInputError(f"{run.source.path}: results[{run.task}][{spec.name},{spec.filter}] "
                                               f"is not a number ({run.row.get(f'{spec.name},{spec.filter}')!r})")
                    g.scores[(model, tid, spec.name, "strict")] = float(v)
                continue
            tab = g.tables[model][tid]
            idx = g.lines[(model, tid)]
            g.n_docs[model] = len(g.keys)
            full = len(tab) == (len(idx) if g.unit == "doc" else sum(map(len, idx)))
            if tab.failure is not None:
                f = np.asarray(tab.failure, dtype=float)
                if g.unit == "doc":
                    unit_fail = f[idx]
                    ok = unit_fail == 0
                    fail_sum, fail_cnt = unit_fail, np.ones(len(idx))
                else:
                    fail_sum = np.array([f[q].sum() for q in idx])
                    fail_cnt = np.array([len(q) for q in idx], dtype=float)
                    ok = fail_sum == 0
                g.failure[(model, tid)] = fail_sum / fail_cnt
                g.parse_ok[(model, tid)] = ok
                g.fail_rate[(model, tid)] = float(fail_sum.sum() / fail_cnt.sum())
            for spec in g.metrics:
                agg = spec.agg
                vals = tab.values[spec.name]
                if agg is None:
                    if all(isinstance(v, (int, float)) for v in vals[:50]):
                        agg = "mean"
                    else:
                        raise SharpeInputError(f"group {g.name}: unknown aggregation for metric {spec.name!r} "
                                               f"(task_family {g.family!r} not in hooks.FAMILY_METRICS)")
                    spec.agg = agg
                try:
                    if g.unit == "doc":
                        sc = build_doc_scorer(agg, [vals[i] for i in idx], spec.name)
                    else:
                        sc = build_query_scorer(agg, [[vals[i] for i in q] for q in idx], spec.name)
                except ScoringError as exc:
                    raise SharpeInputError(f"{tab.path}: {exc}") from None
                s = sc.score()
                if not math.isfinite(s):
                    raise SharpeInputError(f"{tab.path}: {spec.name} is undefined on the shared documents")
                g.scorers[(model, tid, spec.name, "strict")] = sc
                g.scores[(model, tid, spec.name, "strict")] = s
                target = _recompute_target(run, spec)
                if full and target is not None and abs(target - s) > RECOMPUTE_TOL:
                    messages.append(f"group {g.name}, model {model}, {tid}: {spec.name} recomputed from samples = "
                                    f"{s:.10g} but the results file says {target:.10g} (flag recompute_mismatch); "
                                    "the recomputed value is used")
                    mf = g.model_flags.setdefault(model, {})
                    mf.setdefault("recompute_mismatch", []).append(f"{tid}:{spec.name}")
                if "parsed_only" in modes and (model, tid) in g.parse_ok:
                    ok = g.parse_ok[(model, tid)]
                    msc = sc.masked(ok)
                    g.scorers[(model, tid, spec.name, "parsed_only")] = msc
                    g.scores[(model, tid, spec.name, "parsed_only")] = msc.score() if ok.any() else math.nan


def _label_info(g: Group, tab: SampleTable, idx, spec: MetricSpec) -> BL.LabelInfo:
    from ..text import norm

    fam = g.family or ""
    if g.unit == "query":
        lines = [i for q in idx for i in q]
        rel = [int(tab.gold[i] == "Yes") for i in lines]
        if spec.agg and ranking_aggregation(spec.agg) and isinstance(tab.values[spec.name][0], list):
            rel = [int(tab.values[spec.name][i][3]) for i in lines]
        pos = 0
        queries = []
        for q in idx:
            r = rel[pos:pos + len(q)]
            queries.append((len(q), int(sum(r))))
            pos += len(q)
        return BL.LabelInfo("ranking", queries=queries, candidate_relevance=rel)
    if fam.startswith("classification") or spec.agg in ("agg_weighted_f1", "agg_macro_f1", "agg_binary_f1"):
        first = tab.values[spec.name][idx[0]] if spec.name in tab.values else None
        labels = tab.label_names or (list(first["labels"]) if isinstance(first, dict) and "labels" in first else None)
        golds = [tab.gold[i] for i in idx]
        if any(x is None for x in golds) and isinstance(first, dict):
            golds = [tab.values[spec.name][i]["gold"] for i in idx]
        if not labels or any(x is None for x in golds):
            return BL.LabelInfo("none")
        index = {norm(x): j for j, x in enumerate(labels)}
        counts = [0] * len(labels)
        for x in golds:
            j = index.get(norm(x))
            if j is None:
                return BL.LabelInfo("none")
            counts[j] += 1
        positive = None
        if isinstance(first, dict) and "positive" in first:
            positive = index.get(norm(first["positive"]))
        return BL.LabelInfo("classification", labels=list(labels), gold_counts=counts, positive=positive)
    if fam == "multiple_choice":
        ks = {tab.n_choices[i] for i in idx}
        golds = [tab.gold[i] for i in idx]
        counts = list(Counter(map(str, golds)).values()) if all(x is not None for x in golds) else None
        if len(ks) == 1 and None not in ks:
            return BL.LabelInfo("choice", n_options=ks.pop(), gold_counts=counts)
        return BL.LabelInfo("choice", gold_counts=counts)
    return BL.LabelInfo("none")


def _table_baselines(spec_str: str) -> dict[tuple[str, str], BL.Baseline]:
    path = Path(spec_str)
    if not path.exists():
        raise SharpeInputError(f"--baseline table:{path}: file not found")
    text = path.read_text(encoding="utf-8")
    rows: list[dict] = []
    if path.suffix in (".yaml", ".yml", ".json"):
        import yaml

        try:
            data = yaml.safe_load(text)
        except Exception as exc:  # noqa: BLE001
            raise SharpeInputError(f"{path}: cannot parse baseline table ({exc})") from None
        rows = data if isinstance(data, list) else [dict(group=k, **v) for k, v in (data or {}).items()]
    else:
        import csv

        rows = list(csv.DictReader(text.splitlines()))
    out = {}
    for r in rows:
        try:
            out[(str(r["group"]), str(r["metric"]))] = BL.Baseline(float(r["baseline"]),
                                                                   str(r.get("method") or "table"))
        except (KeyError, TypeError, ValueError):
            raise SharpeInputError(f"{path}: each row needs group, metric, baseline (number), method; got {r}")
    return out


def _metadata_baseline(g: Group, spec: MetricSpec) -> BL.Baseline | None:
    vals = set()
    for by_t in g.runs.values():
        for t in g.templates:
            b = by_t[t].meta.get("baseline")
            if isinstance(b, dict) and spec.name in b:
                b = b[spec.name]
            if isinstance(b, dict):
                vals.add((float(b["value"]), str(b.get("method", "metadata"))))
            elif isinstance(b, (int, float)):
                vals.add((float(b), "metadata"))
            elif b is not None:
                raise SharpeInputError(f"group {g.name}: metadata.baseline {b!r} is neither a number nor "
                                       "{value, method}")
    if not vals:
        return None
    if len(vals) > 1:
        raise SharpeInputError(f"group {g.name}: templates carry different metadata.baseline values {sorted(vals)}")
    v, m = vals.pop()
    return BL.Baseline(v, f"metadata:{m}")


def _baselines(g: Group, opts: Options, table: dict) -> None:
    method = opts.baseline if not opts.baseline.startswith("table:") else "uniform"
    for spec in g.metrics:
        if (g.name, spec.name) in table or (g.dataset, spec.name) in table:
            b = table.get((g.name, spec.name)) or table[(g.dataset, spec.name)]
            g.baseline[spec.name] = BL.Baseline(b.value, f"table:{b.method}")
            continue
        if method != "none":
            meta = _metadata_baseline(g, spec)
            if meta is not None:
                g.baseline[spec.name] = meta
                continue
        sample_models = [m for m in g.models if g.has_samples(m)]
        per_t = {}
        for tid in g.templates:
            if sample_models:
                m = sample_models[0]
                info = _label_info(g, g.tables[m][tid], g.lines[(m, tid)], spec)
            else:
                info = BL.LabelInfo("none")
            per_t[tid] = BL.compute(spec.name, g.family, spec.agg or "mean", info, method, opts.seed)
        vals = {None if b.value is None else round(b.value, 12) for b in per_t.values()}
        first = per_t[g.templates[0]]
        if len(vals) == 1:
            g.baseline[spec.name] = first
        elif None in vals:
            g.baseline[spec.name] = BL.Baseline(None, "unavailable", note="label information missing for some "
                                                                         "templates")
        else:
            b = BL.Baseline(float(np.mean([per_t[t].value for t in g.templates])), first.method,
                            per_template={t: per_t[t].value for t in g.templates},
                            note="templates differ in label set: per-template baselines b_t")
            g.baseline[spec.name] = b


# ============================================================================================== rows
def _build_rows(groups: list[Group], messages: list[str]) -> list[Row]:
    by_ds: dict[str, list[Group]] = defaultdict(list)
    rows = []
    for g in groups:
        if g.subtask is not None:
            by_ds[g.dataset].append(g)
        else:
            rows.append(Row(g.name, g.dataset, g.domain, [g], list(g.templates), g.models))
    for ds, gs in sorted(by_ds.items()):
        gs.sort(key=lambda g: g.name)
        base = gs[0].name[: -len(gs[0].subtask) - 1] if gs[0].name.endswith("_" + gs[0].subtask) else ds
        row = Row(base, ds, gs[0].domain, gs, [], [])
        all_t = set().union(*(g.templates for g in gs))
        common = set.intersection(*(set(g.templates) for g in gs))
        if common != all_t:
            miss = {g.subtask: sorted(all_t - set(g.templates), key=natural_key) for g in gs
                    if all_t - set(g.templates)}
            messages.append(f"dataset {ds}: subtasks lack templates {miss}; those templates are dropped from the "
                            "dataset row (flag templates_dropped)")
            row.flags["templates_dropped"] = {"templates": sorted(all_t - common, key=natural_key),
                                              "missing": miss}
        row.templates = sorted(common, key=natural_key)
        all_m = set().union(*(g.models for g in gs))
        full = set.intersection(*(set(g.models) for g in gs))
        if full != all_m:
            miss = {m: sorted(g.subtask for g in gs if m not in g.models) for m in sorted(all_m - full)}
            messages.append(f"dataset {ds}: models without every subtask are left out of the dataset row: {miss} "
                            "(flag missing_subtasks)")
            row.flags["missing_subtasks"] = miss
        row.models = sorted(full)
        if len({g.family for g in gs}) > 1 or len({tuple(m.name for m in g.metrics) for g in gs}) > 1:
            raise SharpeInputError(f"dataset {ds}: subtasks use different task families or metrics")
        if not row.templates:
            messages.append(f"dataset {ds}: no template shared by all subtasks; dataset row skipped")
            continue
        rows.append(row)
    rows.sort(key=lambda r: (r.domain, r.name))
    return rows


def _row_scores(row: Row, model: str, metric: str, mode: str) -> dict[str, float] | None:
    out = {}
    for tid in row.templates:
        vals = [g.scores.get((model, tid, metric, mode)) for g in row.groups]
        if any(v is None for v in vals):
            return None
        out[tid] = float(np.mean(vals))
    return out


def _row_baseline(row: Row, metric: str) -> BL.Baseline:
    bs = [g.baseline[metric] for g in row.groups]
    if len(bs) == 1:
        return bs[0]
    if any(b.value is None for b in bs):
        return BL.Baseline(None, "unavailable", note="a subtask has no baseline")
    if any(b.per_template for b in bs):
        per = {t: float(np.mean([(b.per_template or {}).get(t, b.value) for b in bs])) for t in row.templates}
        return BL.Baseline(float(np.mean(list(per.values()))), bs[0].method, per_template=per,
                           note="mean of the subtask baselines")
    return BL.Baseline(float(np.mean([b.value for b in bs])), bs[0].method, note="mean of the subtask baselines")


# ============================================================================================== bootstrap
def _bootstrap_row(row: Row, opts: Options, modes: list[str], progress_update) -> None:
    """Fill ``g.boot[(model, metric, mode, kind)]`` (B × T of the group's templates) for every group of the row;
    kind "docs" (document resampling) and, with --bootstrap-templates, "docs+templates" (its own stream)."""
    if opts.bootstrap <= 0:
        return
    groups = [g for g in row.groups if g.tables]
    if not groups:
        return
    keys = sorted(set().union(*(set(g.keys) for g in groups)), key=natural_key)
    row.keys = keys
    col = {k: i for i, k in enumerate(keys)}
    kinds = [("docs", False)] + ([("docs+templates", True)] if opts.bootstrap_templates else [])
    for kind, tpl in kinds:
        di, ti = BS.draw(opts.seed, opts.bootstrap, len(keys), len(row.templates), tpl)
        row.flags.setdefault("_ti", {})[kind] = ti
        for g in groups:
            cols = np.array([col[k] for k in g.keys])
            entries = [(k, s) for k, s in g.scorers.items() if k[0] in g.tables and k[3] in modes]
            lin = [(k, s) for k, s in entries if s.linear]
            nonlin = [(k, s) for k, s in entries if not s.linear]
            out = {k: np.empty(opts.bootstrap) for k, _ in entries}
            if lin:
                feats = np.hstack([s.features for _, s in lin])
                bounds = np.cumsum([0] + [s.features.shape[1] for _, s in lin])
            chunk = max(1, min(opts.bootstrap, 4_000_000 // max(len(keys), 1),
                               8_000_000 // max(feats.shape[1] if lin else 1, 1)))
            for start in range(0, opts.bootstrap, chunk):
                w = BS.multiplicities(di[start:start + chunk], len(keys))[:, cols]
                if lin:
                    sums = w @ feats
                    for j, (k, s) in enumerate(lin):
                        out[k][start:start + len(w)] = s.finalize(sums[:, bounds[j]:bounds[j + 1]])
                for k, s in nonlin:
                    out[k][start:start + len(w)] = s.scores(w)
            for model in g.tables:
                for spec in g.metrics:
                    for mode in modes:
                        if (model, g.templates[0], spec.name, mode) not in g.scorers:
                            continue
                        mat = np.column_stack([out[(model, t, spec.name, mode)] for t in g.templates])
                        g.boot[(model, spec.name, mode, kind)] = mat
            progress_update()


# ============================================================================================== records
def _record(level: str, name: str, row: Row, group: Group | None, model: str, spec: MetricSpec, mode: str,
            scores: dict[str, float], baseline: BL.Baseline, n_docs: int | None, opts: Options,
            boot: dict[str, np.ndarray | None], ti: dict[str, np.ndarray | None], per_doc, fail: dict,
            flags: dict, notes: list[str]) -> dict:
    tids = list(scores)
    s = np.array([scores[t] for t in tids], dtype=float)
    b_val = baseline.value
    b_arg: Any = b_val
    if baseline.per_template is not None and b_val is not None:
        b_arg = np.array([baseline.per_template[t] for t in tids])
    flags = dict(flags)
    if not spec.higher_is_better:
        s = -s
        b_arg = None if b_arg is None else -np.asarray(b_arg) if not np.isscalar(b_arg) else -b_arg
        flags["negated_metric"] = True
    undefined = ~np.isfinite(s)
    if undefined.any():
        bad = [t for t, u in zip(tids, undefined) if u]
        flags["undefined_template_scores"] = bad
        notes = notes + [f"{mode}: metric undefined for {', '.join(bad)} (no parsed documents); statistics null"]
    rec: dict[str, Any] = {
        "level": level, "group": name, "dataset": row.dataset, "domain": row.domain,
        "subtask": group.subtask if group is not None else None,
        "variant_groups": [g.name for g in row.groups] if group is None else [group.name],
        "model": model, "metric": spec.name, "filter": spec.filter, "scoring_mode": mode,
        "comparable_across_models": mode == "strict",
        "n_templates": len(tids), "templates": tids, "n_docs": n_docs,
        "baseline": baseline.as_dict(), "template_scores": {t: float(v) if math.isfinite(v) else None
                                                            for t, v in zip(tids, (-s if flags.get(
                                                                "negated_metric") else s))},
        "ddof": opts.ddof, "alpha": opts.alpha, "sigma_floor_mode": opts.sigma_floor,
    }
    if undefined.any():
        rec.update({"mean": None, "std": None, "sharpe": None, "sharpe_status": "undefined",
                    "degenerate_std": False, "sigma_floor_active": False})
        for k in ("min", "max", "spread", "maxp", "avgp", "cps", "quantiles"):
            rec[k] = None
    else:
        st = ST.sharpe(s, b_arg, opts.ddof, opts.alpha, opts.floor_mode(), n_docs)
        val, status = ST.status_value(st["sharpe"])
        if st["sharpe_status"] in ("single_template", "no_baseline"):
            status = st["sharpe_status"]
        rec.update({"mean": st["mean"], "std": st["std"], "sigma_eff": st["sigma_eff"], "sharpe": val,
                    "sharpe_status": status, "degenerate_std": st["degenerate_std"],
                    "sigma_floor_active": st["floor_active"], "excess_mean": st["excess"]})
        rec.update(ST.describe(s))
        if status == "single_template":
            flags["single_template"] = True
        if st["degenerate_std"]:
            flags["degenerate_std"] = True
        if status == "no_baseline":
            flags["no_baseline"] = baseline.note or True
        if st["floor_active"]:
            flags["sigma_floor_active"] = True
    # ProSA
    rec["pss"], rec["pss_basis"], rec["fragile_docs"] = None, None, None
    if per_doc is not None and len(tids) >= 2:
        keys, mat, kind = per_doc
        value, sd = ST.pss(mat)
        rec["pss"], rec["pss_basis"] = value, kind
        order = np.argsort(-sd, kind="stable")[:opts.fragile_top]  # keys are in natural order: ties stay so
        rec["fragile_docs"] = [{"key": keys[i], "s_d": float(sd[i]),
                                "per_template": {t: float(mat[j, i]) for j, t in enumerate(tids)}}
                               for i in order if sd[i] > 0]
        rec["_per_doc"] = (keys, mat, sd)
    rec["format_failure"] = fail
    # bootstrap
    for kind, field_name in (("docs", "ci"), ("docs+templates", "ci_templates")):
        mat = boot.get(kind)
        if mat is None:
            if kind == "docs":
                rec["ci"] = None
            continue
        if not spec.higher_is_better:
            mat = -mat
        rec[field_name] = BS.summarize(mat, b_arg if b_arg is not None else np.nan, opts.ddof, opts.alpha,
                                       opts.floor_mode(), n_docs or 0, ti.get(kind), opts.seed)
        if b_arg is None:
            rec[field_name]["sharpe"] = None
        if not spec.higher_is_better:
            for k in ("mean",):
                if rec[field_name][k] is not None:
                    lo, hi = rec[field_name][k]
                    rec[field_name][k] = [-hi, -lo]
            rec[field_name]["negated"] = True
    if rec.get("ci") is None and "no_samples" not in flags and opts.bootstrap > 0:
        flags.setdefault("no_samples", True)
    rec["flags"] = sorted(flags)
    rec["flag_details"] = {k: v for k, v in flags.items() if v is not True}
    rec["notes"] = notes
    rec["_scores_bt"] = boot.get("docs")
    return rec


def _per_doc_group(g: Group, model: str, spec: MetricSpec, templates: list[str]):
    v = g.per_doc.get((model, spec.name))
    if v is None:
        return None
    mat, kind, _ = v
    return list(g.keys), mat[[g.templates.index(t) for t in templates]], kind


def _finalize_group(g: Group) -> None:
    """Keep what the records need (per-document values) and drop samples and scorers (small to pickle)."""
    for model in g.tables:
        for spec in g.metrics:
            scs = [g.scorers.get((model, t, spec.name, "strict")) for t in g.templates]
            if all(sc is not None and sc.per_doc is not None for sc in scs):
                g.per_doc[(model, spec.name)] = (np.vstack([sc.per_doc for sc in scs]), scs[0].per_doc_kind,
                                                 scs[0].per_doc_is_metric)
    g.tables = {m: None for m in g.tables}
    g.lines, g.scorers, g.failure, g.parse_ok = {}, {}, {}, {}


def _process_row(row: Row, opts: Options, table: dict) -> tuple[Row, list[str]]:
    """Samples → pairing → scorers → baselines → bootstrap for the groups of one dataset row (picklable in and
    out, so rows can run in worker processes)."""
    import gc

    messages: list[str] = []
    modes = ["strict", "parsed_only"] if opts.scoring in ("both", "parsed_only") else ["strict"]
    # parsing creates millions of small containers that stay alive until the row is done; the cyclic GC would
    # traverse them again and again (it tripled the JSON decoding time) and they hold no reference cycles
    gc_enabled = gc.isenabled()
    gc.disable()
    try:
        for g in row.groups:
            _read_group_samples(g, lambda: None, messages)
            _pair(g, opts, messages)
            _build_scorers(g, opts, messages)
            _baselines(g, opts, table)
        _bootstrap_row(row, opts, modes, lambda: None)
        for g in row.groups:
            _finalize_group(g)
    finally:
        if gc_enabled:
            gc.enable()
    return row, messages


@dataclass
class _SourceLite:
    path: Path
    timestamp: str


@dataclass
class _RunLite:
    """The parts of a TaskRun the row processing reads (sent to worker processes instead of whole results)."""

    task: str
    source: _SourceLite
    row: dict
    meta: dict
    samples_path: Path | None
    n_samples: dict


def _lite(row: Row) -> Row:
    import copy

    out = copy.copy(row)
    out.groups = []
    for g in row.groups:
        g2 = copy.copy(g)
        g2.runs = {m: {t: _RunLite(r.task, _SourceLite(r.source.path, r.source.timestamp), r.row, r.meta,
                                   r.samples_path, r.n_samples) for t, r in by_t.items()}
                   for m, by_t in g.runs.items()}
        out.groups.append(g2)
    return out


def _auto_workers(rows: list[Row], requested: int | None) -> int:
    import os

    if requested is not None:
        return max(1, requested)
    size = sum(r.samples_path.stat().st_size for row in rows for g in row.groups for by_t in g.runs.values()
               for r in by_t.values() if r.samples_path is not None)
    if size < 50_000_000 or len(rows) < 2:
        return 1
    return max(1, min(os.cpu_count() or 1, len(rows), 8))


def _worker_init() -> None:
    """One BLAS thread per worker process (the workers already use every core)."""
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(1)
    except Exception:  # noqa: BLE001 - only a performance setting
        pass


def _run_rows(rows: list[Row], opts: Options, table: dict, progress: "_Progress", messages: list[str]) -> list[Row]:
    workers = _auto_workers(rows, opts.workers)
    out: list[Row] = []
    if workers == 1:
        for row in progress(rows, "aggregating datasets", len(rows)):
            r, msgs = _process_row(row, opts, table)
            out.append(r)
            messages.extend(msgs)
        return out
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor

    import importlib

    importlib.import_module("scipy.stats")  # imported once here, inherited by forked workers (the parent needs it too)

    ctx = mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_worker_init) as ex:
        futs = [ex.submit(_process_row, _lite(row), opts, table) for row in rows]
        done = []
        for f in progress(futs, f"aggregating datasets ({workers} processes)", len(futs)):
            done.append(f.result())
    for row, (r, msgs) in zip(rows, done):
        for g_new, g_old in zip(r.groups, row.groups):
            g_new.runs = g_old.runs  # restore the full TaskRuns
        out.append(r)
        messages.extend(msgs)
    return out


def _failure_flags(rows_recs: list[dict], opts: Options, row_scores: dict, baseline_val,
                   higher_is_better: bool) -> dict[str, list]:
    """high_failure / broken_template per template (SHARPE.md §10) from the strict records of one row × metric.

    high_failure: a template's failure rate > --fail-threshold for any model, or > median + 3·MAD of all
    (model, template) rates of the row (the MAD rule only when MAD > 0). broken_template: for ≥ 80 % of the models
    s_t < b + 0.5·(median_t s_t − b) (checked when median_t s_t > b) or the (model, template) rate is high.
    """
    rates = {(r["model"], t): v for r in rows_recs for t, v in (r["format_failure"] or {}).items() if v is not None}
    high_mt = set()
    if rates:
        allr = np.array(list(rates.values()))
        med = float(np.median(allr))
        mad = float(np.median(np.abs(allr - med)))
        high_mt = {mt for mt, v in rates.items() if v > opts.fail_threshold or (mad > 0 and v > med + 3 * mad)}
    high = sorted({t for _, t in high_mt}, key=natural_key)
    broken = []
    models = list(row_scores)
    if models:
        tids = list(next(iter(row_scores.values())))
        for t in tids:
            bad = 0
            for m in models:
                sc = row_scores[m]
                med_t = float(np.median(list(sc.values())))
                # only meaningful when the model's typical template is above chance (med_t > b); below chance
                # the threshold b + 0.5·(med_t − b) lies above the median and would flag most templates
                low = (baseline_val is not None and higher_is_better and med_t > baseline_val
                       and sc[t] < baseline_val + 0.5 * (med_t - baseline_val))
                if low or (m, t) in high_mt:
                    bad += 1
            if bad >= 0.8 * len(models):
                broken.append(t)
    return {"high_failure": high, "broken_template": broken}


# ============================================================================================== comparisons
def _comparisons(recs: dict, rows: list[Row], opts: Options, per_doc_store: dict) -> list[dict]:
    out = []
    for row in rows:
        spec_names = [m.name for m in row.groups[0].metrics]
        for metric in spec_names:
            models = [m for m in row.models if (row.name, m, metric, "strict") in recs]
            pairs = list(combinations(models, 2))
            if opts.compare is not None:
                wanted = set()
                for c in opts.compare:
                    a, _, b = c.partition(",")
                    wanted.add((a, b))
                pairs = [(a, b) if (a, b) in wanted else (b, a) for a, b in pairs
                         if (a, b) in wanted or (b, a) in wanted]
            pending: list[tuple[int, list[str], np.ndarray]] = []
            for a, b in pairs:
                ra, rb = recs[(row.name, a, metric, "strict")], recs[(row.name, b, metric, "strict")]
                tids = ra["templates"]
                sa = np.array([ra["template_scores"][t] for t in tids], dtype=float)
                sb = np.array([rb["template_scores"][t] for t in tids], dtype=float)
                if not (np.all(np.isfinite(sa)) and np.all(np.isfinite(sb))):
                    continue
                delta = sa - sb
                comp = {"group": row.name, "metric": metric, "model_a": a, "model_b": b, "templates": tids,
                        "delta": {t: float(d) for t, d in zip(tids, delta)}, "mean_delta": float(delta.mean())}
                sign = ST.sign_test(delta)
                comp.update({"a_wins": sign["wins"], "b_wins": sign["losses"], "ties": sign["ties"],
                             "sign_test_p": sign["p"]})
                wx = ST.wilcoxon(delta)
                comp["wilcoxon_statistic"], comp["wilcoxon_p"] = wx["statistic"], wx["p"]
                sha, shb = ra["sharpe"], rb["sharpe"]
                comp["delta_sharpe"] = (sha - shb) if sha is not None and shb is not None else None
                comp["delta_sharpe_status"] = ("ok" if comp["delta_sharpe"] is not None else
                                               f"{ra['sharpe_status']} vs {rb['sharpe_status']}")
                ma, mb = ra.get("_scores_bt"), rb.get("_scores_bt")
                if ma is not None and mb is not None:
                    d_bt = ma - mb
                    if np.isfinite(d_bt).all():
                        lo_hi = np.percentile(d_bt, [2.5, 97.5], axis=0)
                        comp["delta_ci"] = {t: [float(lo_hi[0, j]), float(lo_hi[1, j])] for j, t in enumerate(tids)}
                    else:
                        comp["delta_ci"] = {t: ST.percentile_ci(d_bt[:, j]) for j, t in enumerate(tids)}
                    b_arg = ra["baseline"]["value"]
                    if ra["baseline"].get("per_template") and b_arg is not None:
                        b_arg = np.array([ra["baseline"]["per_template"][t] for t in tids])
                    if b_arg is not None:
                        sign_ = 1.0 if row.groups[0].metrics[spec_names.index(metric)].higher_is_better else -1.0
                        _, _, sh_a, _ = ST.sharpe_matrix(sign_ * ma, sign_ * b_arg, opts.ddof, opts.alpha,
                                                         opts.floor_mode(), ra["n_docs"])
                        _, _, sh_b, _ = ST.sharpe_matrix(sign_ * mb, sign_ * b_arg, opts.ddof, opts.alpha,
                                                         opts.floor_mode(), rb["n_docs"])
                        comp["delta_sharpe_ci"] = ST.percentile_ci(sh_a - sh_b)
                    else:
                        comp["delta_sharpe_ci"] = None
                    comp["bootstrap"] = {"B": opts.bootstrap, "seed": opts.seed, "shared_doc_indices": True}
                else:
                    comp["delta_ci"], comp["delta_sharpe_ci"] = None, None
                    comp["bootstrap"] = None
                pa, pb = per_doc_store.get((row.name, a, metric)), per_doc_store.get((row.name, b, metric))
                comp["permutation_p"] = None
                comp["permutation_note"] = ("no per-document metric values (corpus-level metric, dataset with "
                                            "subtasks, or no samples)")
                if pa is not None and pb is not None and pa[2] and pb[2]:
                    pending.append((len(out), tids, pa[1] - pb[1]))
                out.append(comp)
            if pending:  # one batched test per row × metric (shared sign vectors; each p-value is exact/valid)
                p_all = ST.sign_flip_pvalues(np.vstack([d for _, _, d in pending]), opts.permutations, opts.seed)
                pos = 0
                for i, tids, d in pending:
                    out[i]["permutation_p"] = {t: float(p_all[pos + j]) for j, t in enumerate(tids)}
                    n_perm = "all" if 2 ** d.shape[1] <= opts.permutations else str(opts.permutations)
                    out[i]["permutation_note"] = f"paired sign-flip test on per-document values, {n_perm} permutations"
                    pos += len(tids)
    # Holm across all reported pairs
    for key in ("sign_test_p", "wilcoxon_p"):
        adj = ST.holm([c[key] for c in out])
        for c, v in zip(out, adj):
            c[key + "_holm"] = v
    flat = [(i, t, p) for i, c in enumerate(out) for t, p in (c["permutation_p"] or {}).items()]
    adj = ST.holm([p for _, _, p in flat])
    for c in out:
        c["permutation_p_holm"] = {} if c["permutation_p"] is not None else None
    for (i, t, _), v in zip(flat, adj):
        out[i]["permutation_p_holm"][t] = v
    return out


# ============================================================================================== roll-ups
def _rank_stability(recs: dict, rows: list[Row]) -> dict:
    out = {}
    for row in rows:
        for mi, metric in enumerate(m.name for m in row.groups[0].metrics):
            models = [m for m in row.models if (row.name, m, metric, "strict") in recs]
            models = [m for m in models if recs[(row.name, m, metric, "strict")]["mean"] is not None]
            key = row.name if mi == 0 else f"{row.name}::{metric}"
            if len(models) < 2:
                continue
            table = {m: [recs[(row.name, m, metric, "strict")]["template_scores"][t] for t in row.templates]
                     for m in models}
            neg = "negated_metric" in recs[(row.name, models[0], metric, "strict")]["flags"]
            if neg:
                table = {m: [-v for v in vs] for m, vs in table.items()}
            res = ST.rank_stability(table) if len(row.templates) >= 2 else {"n_models": len(models),
                                                                             "n_templates": len(row.templates),
                                                                             "note": "needs ≥ 2 templates"}
            means = {m: recs[(row.name, m, metric, "strict")]["mean"] for m in models}
            if neg:
                means = {m: -v for m, v in means.items()}
            shs = {m: _sharpe_float(recs[(row.name, m, metric, "strict")]) for m in models}
            cps = {m: recs[(row.name, m, metric, "strict")]["cps"] for m in models}
            res.update({"metric": metric, "templates": row.templates, "rank_by_mean": ST.order(means),
                        "rank_by_sharpe": ST.order(shs, sharpe_like=True), "rank_by_cps": ST.order(cps),
                        "flips": ST.flips(means, shs), "flips_note": "[better by mean, better by Sharpe]"})
            out[key] = res
    return out


def _sharpe_float(rec: dict) -> float | None:
    st = rec["sharpe_status"]
    if st == "ok":
        return rec["sharpe"]
    return {"inf": math.inf, "-inf": -math.inf}.get(st, math.nan)


def _rollup(recs: dict, rows: list[Row], models: list[str]) -> dict:
    """Domain and overall rows (SHARPE.md §6): equal-weight means over datasets of μ, σ and S; mean rank by S.

    Each dataset counts once: when a dataset has several rows (e.g. fiqa_qa scored by log-likelihood and its
    generation-based variant ``ent_fiqa_qa_gen``), a model's entry is its first available row in order
    (shortest name first, i.e. the base group); ``rows_used`` says which.
    """
    def has(r: Row, m: str) -> bool:
        return (r.name, m, _primary(r), "strict") in recs

    def block(rs: list[Row]) -> dict:
        by_ds: dict[str, list[Row]] = defaultdict(list)
        for r in sorted(rs, key=lambda r: (len(r.name), r.name)):
            by_ds[r.dataset].append(r)
        chosen: dict[str, dict[str, Row]] = {}
        for m in models:
            chosen[m] = {ds: next(r for r in cand if has(r, m)) for ds, cand in by_ds.items()
                         if any(has(r, m) for r in cand)}
        include = [m for m in models if len(chosen[m]) == len(by_ds)]
        excluded = {m: sorted(ds for ds in by_ds if ds not in chosen[m]) for m in models if m not in include}
        ranks: dict[str, list[float]] = defaultdict(list)
        for ds in by_ds:
            vals = {m: _sharpe_float(recs[(chosen[m][ds].name, m, _primary(chosen[m][ds]), "strict")])
                    for m in include}
            ordered = [m for m in ST.order(vals, sharpe_like=True) if not math.isnan(vals[m])]
            keyed = [ST.sort_key(vals[m]) for m in ordered]
            i = 0
            while i < len(ordered):
                j = i
                while j + 1 < len(ordered) and keyed[j + 1] == keyed[i]:
                    j += 1
                for k in range(i, j + 1):
                    ranks[ordered[k]].append((i + j) / 2 + 1)
                i = j + 1
        per_model = {}
        for m in include:
            rr = [recs[(r.name, m, _primary(r), "strict")] for r in chosen[m].values()]
            mus = [x["mean"] for x in rr if x["mean"] is not None]
            sds = [x["std"] for x in rr if x["std"] is not None]
            shs = [x["sharpe"] for x in rr if x["sharpe_status"] == "ok"]
            per_model[m] = {"mean_mu": float(np.mean(mus)) if mus else None,
                            "mean_sigma": float(np.mean(sds)) if sds else None,
                            "mean_sharpe": float(np.mean(shs)) if shs else None,
                            "n_finite_sharpe": len(shs), "n_nonfinite_sharpe": len(rr) - len(shs),
                            "mean_rank": float(np.mean(ranks[m])) if ranks[m] else None,
                            "n_datasets": len(rr), "rows_used": sorted(r.name for r in chosen[m].values())}
        return {"datasets": sorted(by_ds), "rows": [r.name for r in rs], "metrics": {r.name: _primary(r) for r in rs},
                "models": per_model, "excluded_models": excluded,
                "note": "equal weight per dataset; no σ across datasets; Sharpe mean over finite values"}

    domains = sorted({r.domain for r in rows})
    return {"domains": {d: block([r for r in rows if r.domain == d]) for d in domains},
            "overall": block(rows)}


def _samples_provenance(groups: list[Group], with_hash: bool) -> list[dict]:
    """Samples files used: path and size (+ SHA-256 with --hash-samples; off by default because hashing every
    samples file costs about as much as parsing them)."""
    from .io import _sha256

    out = []
    for p in sorted({r.samples_path for g in groups for m in g.tables for r in g.runs[m].values()
                     if r.samples_path is not None}):
        entry = {"path": str(p), "bytes": p.stat().st_size}
        if with_hash:
            entry["sha256"] = _sha256(p)
        out.append(entry)
    return out


def _model_info(runs: list[TaskRun], models: list[str]) -> dict:
    info = {}
    for r in runs:
        if r.model in models and r.model not in info:
            cfg = r.source.config
            info[r.model] = {"model_name": r.source.model_name, "model_args": r.source.model_args,
                             "model_dtype": cfg.get("model_dtype"), "model_sha": cfg.get("model_sha"),
                             "model_revision": cfg.get("model_revision"), **r.source.settings}
    return info


def _primary(row: Row) -> str:
    return row.groups[0].metrics[0].name


# ============================================================================================== main entry
def aggregate(paths: Sequence[str], opts: Options | None = None, argv: Sequence[str] | None = None) -> dict:
    """Aggregate lm-eval output folders; returns the full JSON-ready result (see :mod:`.report` for writers)."""
    opts = opts or Options()
    if opts.ddof not in (0, 1):
        raise SharpeInputError("--ddof must be 0 or 1")
    if opts.scoring not in ("strict", "parsed_only", "both"):
        raise SharpeInputError("--scoring must be strict, parsed_only or both")
    base_method = opts.baseline
    if not (base_method in ("uniform", "majority", "none", "simulated") or base_method.startswith("table:")):
        raise SharpeInputError(f"--baseline {base_method!r}: expected uniform, majority, none, simulated or "
                               "table:PATH")
    opts.floor_mode()
    t0 = time.perf_counter()
    messages: list[str] = []
    progress = _Progress(opts.progress)
    rfs, runs, listed = _load(paths, opts, messages, progress)
    groups = _build_groups(runs, opts, messages, listed)
    table = _table_baselines(base_method[6:]) if base_method.startswith("table:") else {}
    rows = _build_rows(groups, messages)
    rows = _run_rows(rows, opts, table, progress, messages)
    groups = [g for row in rows for g in row.groups]
    t_read = time.perf_counter()
    modes = ["strict", "parsed_only"] if opts.scoring in ("both", "parsed_only") else ["strict"]
    rec_modes = ["parsed_only"] if opts.scoring == "parsed_only" else modes

    records: list[dict] = []
    recs: dict[tuple, dict] = {}
    per_doc_store: dict[tuple, tuple] = {}
    for row in rows:
        ti = row.flags.pop("_ti", {})
        for gi, g in enumerate(row.groups):
            for spec in g.metrics:
                for mode in rec_modes:
                    for model in g.models:
                        if (model, g.templates[0], spec.name, mode) not in g.scores:
                            continue
                        scores = {t: g.scores[(model, t, spec.name, mode)] for t in g.templates}
                        fail = {t: g.fail_rate.get((model, t)) for t in g.templates}
                        if all(v is None for v in fail.values()):
                            fail = None
                        flags = dict(g.flags)
                        flags.update(g.model_flags.get(model, {}))
                        if not g.has_samples(model):
                            flags.setdefault("no_samples", True)
                        boot = {}
                        if g.templates == row.templates or not row.composite:
                            boot = {k[3]: v for k, v in g.boot.items() if k[:3] == (model, spec.name, mode)}
                        elif g.boot:
                            boot = {"docs": g.boot.get((model, spec.name, mode, "docs"))}
                        pdoc = _per_doc_group(g, model, spec, g.templates) if mode == "strict" else None
                        level = "variant_group" if row.composite else "dataset"
                        rec = _record(level, g.name if row.composite else row.name, row, g if row.composite
                                      else None, model, spec, mode, scores, g.baseline[spec.name],
                                      g.n_docs.get(model), opts, boot, ti if g.templates == row.templates else {},
                                      pdoc, fail, flags, [])
                        rec["key_source"] = g.key_source
                        rec["tasks"] = {t: g.runs[model][t].task for t in g.templates}
                        records.append(rec)
                        if not row.composite:
                            recs[(row.name, model, spec.name, mode)] = rec
                            if pdoc is not None:
                                per_doc_store[(row.name, model, spec.name)] = (
                                    pdoc[0], pdoc[1], g.per_doc[(model, spec.name)][2])
        if row.composite:
            for spec in row.groups[0].metrics:
                b = _row_baseline(row, spec.name)
                for mode in rec_modes:
                    for model in row.models:
                        scores = _row_scores(row, model, spec.name, mode)
                        if scores is None:
                            continue
                        flags = dict(row.flags)
                        for g in row.groups:
                            for k, v in g.model_flags.get(model, {}).items():
                                if k == "templates_missing":   # per subtask group: {group: [tids]}
                                    flags.setdefault(k, {})[g.name] = v
                                else:
                                    flags.setdefault(k, v)
                            for k, v in g.flags.items():
                                flags.setdefault(k, v)
                        boot = {}
                        for kind in ("docs", "docs+templates"):
                            mats = []
                            for g in row.groups:
                                m = g.boot.get((model, spec.name, mode, kind))
                                if m is None:
                                    mats = None
                                    break
                                sel = [g.templates.index(t) for t in row.templates]
                                mats.append(m[:, sel])
                            if mats:
                                boot[kind] = np.mean(mats, axis=0)
                        fails = [[g.fail_rate.get((model, t)) for g in row.groups] for t in row.templates]
                        fail = None if all(v is None for f in fails for v in f) else {
                            t: (float(np.mean(f)) if all(v is not None for v in f) else None)
                            for t, f in zip(row.templates, fails)}
                        pdoc = None
                        if mode == "strict":
                            parts = [_per_doc_group(g, model, spec, row.templates) for g in row.groups]
                            if all(p is not None for p in parts):
                                keys = [f"{g.subtask}/{k}" for g, p in zip(row.groups, parts) for k in p[0]]
                                pdoc = (keys, np.hstack([p[1] for p in parts]), parts[0][2])
                        n_docs = len(row.keys) if row.keys else (
                            max((g.n_docs.get(model) or 0) for g in row.groups) or None)
                        rec = _record("dataset", row.name, row, None, model, spec, mode, scores, b, n_docs,
                                      opts, boot, ti, pdoc, fail, flags,
                                      [f"s_t = unweighted mean over {len(row.groups)} subtasks"])
                        rec["subtasks"] = [g.subtask for g in row.groups]
                        rec["key_source"] = row.groups[0].key_source
                        records.append(rec)
                        recs[(row.name, model, spec.name, mode)] = rec
                        if pdoc is not None:
                            per_doc_store[(row.name, model, spec.name)] = (pdoc[0], pdoc[1], False)
    # format-failure / broken-template flags per row × metric (strict records)
    for row in rows:
        for spec in row.groups[0].metrics:
            strict = [recs[k] for k in recs if k[0] == row.name and k[2] == spec.name and k[3] == "strict"]
            if not strict:
                continue
            row_scores = {r["model"]: r["template_scores"] for r in strict
                          if all(v is not None for v in r["template_scores"].values())}
            bval = strict[0]["baseline"]["value"]
            ff = _failure_flags(strict, opts, row_scores, bval, spec.higher_is_better)
            for r in [recs[k] for k in recs if k[0] == row.name and k[2] == spec.name]:
                for name, ts in ff.items():
                    if ts:
                        r["flags"] = sorted(set(r["flags"]) | {name})
                        r["flag_details"][name] = ts
    rank = _rank_stability(recs, rows)
    known = {r["model"] for r in records}
    for pair in opts.compare or []:
        names = pair.split(",")
        if len(names) != 2 or not set(names) <= known:
            raise SharpeInputError(f"--compare {pair!r}: expected two of the models {sorted(known)} as A,B")
    comps = _comparisons(recs, rows, opts, per_doc_store)
    models = sorted({r["model"] for r in records})
    macro = _rollup(recs, rows, models)
    records.sort(key=lambda r: (r["level"] != "dataset", r["domain"], r["group"], r["metric"],
                                r["scoring_mode"] != "strict", ST.sort_key(_sharpe_float(r)), r["model"]))
    t_end = time.perf_counter()
    result = {
        "schema_version": SCHEMA_VERSION,
        "provenance": {
            "tool": "lm-eval-enterprise sharpe", "tool_version": __version__,
            "lm_eval_versions": sorted({str(rf.data.get("lm_eval_version")) for rf in rfs}),
            "inputs": [{"path": str(rf.path), "sha256": rf.sha256, "model_name": rf.model_name,
                        "timestamp": rf.timestamp} for rf in rfs],
            "samples_files": _samples_provenance(groups, opts.hash_samples),
            "seed": opts.seed, "B": opts.bootstrap, "ddof": opts.ddof, "cli_args": list(argv or []),
            "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "timing_seconds": {"read_and_bootstrap": round(t_read - t0, 3), "total": round(t_end - t0, 3)},
        },
        "settings": {k: v for k, v in asdict(opts).items() if k != "progress"},
        "models": models,
        "model_info": _model_info(runs, models),
        "rows": [{"group": r.name, "dataset": r.dataset, "domain": r.domain, "templates": r.templates,
                  "variant_groups": [g.name for g in r.groups], "models": r.models,
                  "flags": {k: v for k, v in r.flags.items() if not k.startswith("_")}} for r in rows],
        "records": records,
        "rank_stability": rank,
        "comparisons": comps,
        "macro": macro,
        "messages": messages,
    }
    return result
