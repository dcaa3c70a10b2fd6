"""Sparse (template × document) run plans: which cells of a template-variant group to evaluate.

Evaluating T templates on D documents costs T full runs. A *cell budget* f ∈ (0, 1] evaluates only a share f of
the T·D cells, chosen by a seeded, balanced incomplete design; ``lm_eval_enterprise.estimator`` then estimates
per-template scores, mean, std and Sharpe from those cells with a model of template and document effects.

The design of one variant group (templates t_1..t_T, units u_1..u_U; a unit is one document, or for ranking
datasets one query with all its candidate documents, which are always kept together):

1. ``rng = random.Random(f"cellplan|{seed}|{group}")`` (a group's plan does not depend on the other groups).
2. Cells: C = round(f·T·U), at least U (every unit gets ≥ 1 template) and at least T (every template gets ≥ 1
   unit; fewer is an error). Each unit gets k_u ∈ {⌊C/U⌋, ⌊C/U⌋ + 1} templates (the units with the extra one are
   random), so a budget such as 0.3 with T = 5 means half the units get 1 template and half get 2 — not round(1.5).
3. Units are visited in a random order (``rng.shuffle``); their template sets are cut, k_u at a time, from a
   stream of random permutations of the T templates (a fresh ``rng.shuffle`` of 0..T−1 whenever the stream runs
   out; templates already in the unit's set are moved to the end of the fresh permutation so a set never repeats
   a template). Every permutation holds each template once, so template loads differ by at most one unit, and
   the random permutations make the template pairs that share a unit vary (a connected design for k_u ≥ 2).
4. **Strata** (a binary classification, ``Family.strata`` "positive": documents whose gold label is the positive
   label, and the others). When the rarer stratum holds less than :data:`MINORITY_SHARE` of the units, or its
   proportional share of the cells would leave a template without one of its units, it gets
   c = min(max(round(MINORITY_SHARE·C), its units, T), its units × T, C − max(the other stratum's units, T))
   cells instead of its proportional share, and steps 2–3 run on each stratum apart (the smaller first, one
   ``rng``): every unit still gets ≥ 1 template, every template ≥ 1 unit of each stratum, and template loads
   differ by at most one unit within a stratum (two overall). With one run's budget (C = U) there is no room, c
   equals the proportional share and the plan is the unstratified one; so it is when C cannot give every template
   a unit of each stratum. Why: a binary F1's spread over the templates depends on how a template's accuracy on the rare class
   follows its accuracy on the common one, which only the rare class's cells tell; with 12 % positives a
   template of a two-run design sees about two of them (docs/populations.md#stratified-cells-for-the-rare-class).
   The estimator models the two classes apart, so the design is ignorable for its estimates; lm-eval's own
   per-template score of such a run is over the planned documents, with the rare class over-represented.

Documents are never altered and every template of a group sees the same documents (only fewer of them), so the
per-document shot plans and prompts are identical to those of a full run. lm-eval selects the cells with
``simple_evaluate(samples={"task": [doc indices]})``; its evaluator maps logged ``doc_id`` back through the index
list in position order, so the lists are sorted (as returned here) and never empty.

Documents are indexed in the task's ``eval_docs`` order, the seeded fair order the data layer serves every
evaluated split in (:mod:`lm_eval_enterprise.data.order`), so ``--limit N`` plans over the same first N documents
``--limit`` alone evaluates: a fair sample, not the top of the file.

``lm-eval-enterprise run --cell_budget F [--cell_seed S] [--limit N]`` (``cli._run``) builds the tasks once,
plans them with :func:`plan_for_tasks`, writes the plan into their metadata (:func:`record_plan`) and hands lm-eval
the same Task objects with the plan's ``samples``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field

from .. import families
from ..scoring.metrics import label_indices
from ..taskmeta import CELL_BUDGET, CELL_DESIGN, CELL_SEED, CELLS_PLANNED, TaskMeta

MINORITY_SHARE = 0.2  # a stratified group's rarer stratum gets at least this share of the cells (step 4)


class CellPlanError(ValueError):
    """An impossible or malformed plan request (one line)."""


@dataclass
class GroupPlan:
    """The plan of one variant group."""

    group: str
    tasks: list[str]  # template variants, in the order given
    n_docs: int
    n_units: int
    unit_templates: list[list[int]]  # per unit (input order): indices into ``tasks``
    unit_docs: list[list[int]]  # per unit: its document indices
    cells: int = 0  # planned (template, document) cells
    strata: dict[str, dict[str, int]] | None = None  # stratum → {"units", "cells"} (step 4), None: unstratified

    @property
    def share(self) -> float:
        return self.cells / (self.n_docs * len(self.tasks))

    def docs_of(self, task_index: int) -> list[int]:
        return sorted(d for u, ts in enumerate(self.unit_templates) if task_index in ts for d in self.unit_docs[u])

    def loads(self) -> list[int]:
        """Units per template."""
        return [sum(t in ts for ts in self.unit_templates) for t in range(len(self.tasks))]


@dataclass
class CellPlan:
    budget: float
    seed: int
    groups: dict[str, GroupPlan] = field(default_factory=dict)

    @property
    def samples(self) -> dict[str, list[int]]:
        """lm-eval's ``samples`` argument: task name → sorted document indices."""
        return {task: g.docs_of(i) for g in self.groups.values() for i, task in enumerate(g.tasks)}

    @property
    def cells(self) -> int:
        return sum(g.cells for g in self.groups.values())

    @property
    def total(self) -> int:
        return sum(g.n_docs * len(g.tasks) for g in self.groups.values())

    def metadata(self) -> dict:
        """What a run records in every task's metadata (``--metadata``): the budget, the seed, the cells planned per
        task and the size of each group's full design."""
        return {
            CELL_BUDGET: self.budget,
            CELL_SEED: self.seed,
            CELLS_PLANNED: {task: len(docs) for task, docs in self.samples.items()},
            CELL_DESIGN: {
                name: {
                    "docs": g.n_docs,
                    "units": g.n_units,
                    "templates": len(g.tasks),
                    "cells": g.cells,
                    "share": round(g.share, 6),
                    **({"strata": g.strata} if g.strata else {}),
                }
                for name, g in self.groups.items()
            },
        }

    def summary(self) -> str:
        lines = [
            f"cell plan (budget {self.budget:g}, seed {self.seed}): {self.cells} of {self.total} cells "
            f"({self.cells / self.total:.1%})"
        ]
        for g in self.groups.values():
            lines.append(
                f"  {g.group}: {len(g.tasks)} templates × {g.n_docs} docs"
                + (f" in {g.n_units} units" if g.n_units != g.n_docs else "")
                + f" → {g.cells} cells ({g.share:.1%}); units per template {g.loads()}"
                + (
                    "; strata "
                    + ", ".join(f"{k}: {v['cells']} cells on {v['units']} units" for k, v in g.strata.items())
                    if g.strata
                    else ""
                )
            )
        return "\n".join(lines)


def check_budget(budget: float) -> float:
    try:
        b = float(budget)
    except (TypeError, ValueError):
        raise CellPlanError(f"cell budget must be a number in (0, 1], not {budget!r}") from None
    if not (0 < b <= 1) or math.isnan(b):
        raise CellPlanError(f"cell budget must be in (0, 1], not {budget!r}")
    return b


def runs_to_share(runs: float, n_templates: int) -> float:
    """The cell budget of ``runs`` single-template runs over a group of ``n_templates`` templates (a template
    population of 50 at 2 runs: 0.04 — every document under 2 templates, every template on 4 % of the documents).
    The design below is the same for a population as for the core five; only the share is smaller."""
    if not (1 <= runs <= n_templates):
        raise CellPlanError(f"runs must be between 1 and {n_templates} (the templates of the group), not {runs!r}")
    return runs / n_templates


def planned_cells(budget: float, n_templates: int, n_units: int) -> int:
    """The cells C of a group's design (step 2): round(F·T·U), at least one per unit."""
    return max(round(budget * n_templates * n_units), n_units)


def design(n_units: int, n_templates: int, budget: float, rng: random.Random, where: str = "") -> list[list[int]]:
    """Template sets (indices) for ``n_units`` units, in unit order (steps 2–3 of the module docstring)."""
    budget = check_budget(budget)
    t, u = n_templates, n_units
    if t < 1 or u < 1:
        raise CellPlanError(f"{where}nothing to plan ({u} units, {t} templates)")
    cells = planned_cells(budget, t, u)
    if cells < t:
        raise CellPlanError(
            f"{where}a budget of {budget:g} gives {cells} cells for {t} templates × {u} units; "
            f"every template needs at least one unit (raise the budget or use more documents)"
        )
    k_low, extra = divmod(cells, u)
    order = list(range(u))
    rng.shuffle(order)
    sets: list[list[int]] = [[] for _ in range(u)]
    stream: list[int] = []
    for rank, unit in enumerate(order):
        k = k_low + (1 if rank < extra else 0)
        chunk: list[int] = []
        while len(chunk) < k:
            if not stream:
                perm = list(range(t))
                rng.shuffle(perm)
                stream = [x for x in perm if x not in chunk] + [x for x in perm if x in chunk]
            chunk.append(stream.pop(0))
        sets[unit] = sorted(chunk)
    return sets


def stratum_cells(n_rare: int, n_common: int, n_templates: int, cells: int) -> int | None:
    """Cells of the rarer stratum (step 4 of the module docstring): c = min(max(round(MINORITY_SHARE·C), n_rare,
    T), n_rare·T, C − max(n_common, T)) — every unit and every template gets a cell in each stratum; None (the
    unstratified design) when c is no more than the proportional share round(C·n_rare/U) (no room, or the stratum
    is not rare) or below max(n_rare, T) (too few cells for both strata)."""
    t = n_templates
    c = min(max(round(MINORITY_SHARE * cells), n_rare, t), n_rare * t, cells - max(n_common, t))
    if c < max(n_rare, t) or c <= round(cells * n_rare / (n_rare + n_common)):
        return None
    return c


def stratified_design(
    keys: Sequence[Hashable], t: int, budget: float, rng: random.Random, where: str
) -> tuple[list[list[int]], dict[str, dict[str, int]] | None]:
    """Template sets per unit (unit order) and the strata record for per-unit stratum ``keys`` (two values at
    most); the unstratified :func:`design` when :func:`stratum_cells` says so."""
    kinds = sorted(set(keys), key=str)
    if len(kinds) > 2:
        raise CellPlanError(f"{where}{len(kinds)} strata {kinds[:4]}; the planner stratifies two (rare, common)")
    u = len(keys)
    cells = planned_cells(check_budget(budget), t, u)
    members = {k: [i for i, key in enumerate(keys) if key == k] for k in kinds}
    rare, common = sorted(kinds, key=lambda k: (len(members[k]), str(k))) if len(kinds) == 2 else (None, None)
    c_rare = stratum_cells(len(members[rare]), len(members[common]), t, cells) if rare is not None else None
    if c_rare is None:
        return design(u, t, budget, rng, where), None
    sets: list[list[int]] = [[] for _ in range(u)]
    record = {}
    for k, c in ((rare, c_rare), (common, cells - c_rare)):
        units = members[k]
        for i, ts in zip(units, design(len(units), t, c / (t * len(units)), rng, where)):
            sets[i] = ts
        record[str(k)] = {"units": len(units), "cells": c}
    return sets, record


def plan_cells(
    docs_per_group: Mapping[str, Sequence[Hashable]],
    templates: Mapping[str, Sequence[str]],
    budget: float,
    seed: int = 0,
    units: Mapping[str, Sequence[Hashable]] | None = None,
    strata: Mapping[str, Sequence[Hashable]] | None = None,
) -> CellPlan:
    """Plan the cells of every variant group.

    ``docs_per_group``: group → its documents (any keys, in the tasks' document order; position = lm-eval index).
    ``templates``: group → its template-variant task names. ``units``: group → one unit key per document
    (e.g. the query id of a ranking candidate); documents with the same key are planned together. Groups without
    an entry are planned per document. ``strata``: group → one stratum key per document (two values at most,
    e.g. whether the gold label is the positive one; step 4; not with ``units``). Returns a :class:`CellPlan`;
    ``.samples`` is lm-eval's ``samples``.
    """
    budget = check_budget(budget)
    plan = CellPlan(budget, int(seed))
    for group in sorted(docs_per_group):
        docs = list(docs_per_group[group])
        tasks = list(templates.get(group) or [])
        if len(tasks) < 2:
            raise CellPlanError(f"group {group}: a cell budget needs at least 2 templates, got {tasks}")
        if len(set(tasks)) != len(tasks):
            raise CellPlanError(f"group {group}: duplicate template tasks {tasks}")
        if not docs:
            raise CellPlanError(f"group {group}: no documents")
        keys = list(units[group]) if units and group in units else list(range(len(docs)))
        if len(keys) != len(docs):
            raise CellPlanError(f"group {group}: {len(keys)} unit keys for {len(docs)} documents")
        unit_docs: dict[Hashable, list[int]] = {}
        for i, k in enumerate(keys):
            unit_docs.setdefault(k, []).append(i)
        members = list(unit_docs.values())
        rng = random.Random(f"cellplan|{int(seed)}|{group}")
        where = f"group {group}: "
        record = None
        if strata and group in strata:
            keys_s = list(strata[group])
            if len(keys_s) != len(docs) or len(members) != len(docs):
                raise CellPlanError(
                    f"{where}{len(keys_s)} stratum keys for {len(docs)} documents in {len(members)} units"
                )
            sets, record = stratified_design(keys_s, len(tasks), budget, rng, where)
        else:
            sets = design(len(members), len(tasks), budget, rng, where=where)
        gp = GroupPlan(group, tasks, len(docs), len(members), sets, members, strata=record)
        gp.cells = sum(len(s) * len(m) for s, m in zip(sets, members))
        plan.groups[group] = gp
    return plan


# ============================================================================================ lm-eval tasks
def plan_for_tasks(leaves: Mapping[str, object], budget: float, seed: int, limit: int | None = None) -> CellPlan:
    """Plan lm-eval leaf tasks (name → Task): grouped by ``metadata.variant_group``; documents are the tasks'
    ``eval_docs`` (the first ``limit`` when given); ranking families are planned per query (``doc["qid"]``)."""
    docs: dict[str, list] = {}
    templates: dict[str, list[str]] = {}
    units: dict[str, list] = {}
    strata: dict[str, list] = {}
    for name in sorted(leaves):
        task = leaves[name]
        meta = TaskMeta.from_config(task.config)
        group = meta.variant_group
        if not meta.is_variant:
            raise CellPlanError(
                f"task {name} has no metadata.variant_group/template_id: --cell_budget plans "
                "template variants only (run other tasks separately)"
            )
        ds = list(task.eval_docs)
        if limit is not None:
            ds = ds[:limit]
        keys = [str(d.get("id", i)) if isinstance(d, dict) else str(i) for i, d in enumerate(ds)]
        if families.uses_query_units(meta.task_family):
            keys = [f"{d.get('qid')}|{d.get('cand_index')}" for d in ds]
            _refuse_cut_query(name, task, limit)
            unit_keys = [d.get("qid") for d in ds]
            if any(q is None for q in unit_keys):
                raise CellPlanError(f"task {name}: ranking documents without 'qid'")
            units.setdefault(group, unit_keys)
        if families.cell_strata(meta.task_family) == "positive":
            strata.setdefault(group, [_positive_stratum(name, d) for d in ds])
        if group in docs and docs[group] != keys:
            other = templates[group][0]
            raise CellPlanError(
                f"group {group}: tasks {other} and {name} have different documents; a cell plan "
                "needs the same documents under every template"
            )
        docs[group] = keys
        templates.setdefault(group, []).append(name)
    if not docs:
        raise CellPlanError("--cell_budget: no tasks to plan")
    return plan_cells(docs, templates, budget, seed, units, strata)


def _positive_stratum(task: str, doc) -> str:
    """A binary classification document's stratum: ``"positive"`` when its gold label is the positive label as
    binary F1 compares them (``scoring.metrics.label_indices``, after [NORM]), else ``"negative"``."""
    if not isinstance(doc, dict) or "label" not in doc or "positive_label" not in doc:
        raise CellPlanError(f"task {task}: a binary classification document without 'label' and 'positive_label'")
    return "positive" if label_indices([doc["label"]], [doc["positive_label"]])[0] == 0 else "negative"


def _sample_size(task, limit: int | float) -> int:
    """Documents lm-eval evaluates under ``--limit`` (a share below 1 of the documents, else a count)."""
    n_docs = len(task.eval_docs)
    return int(math.ceil(n_docs * limit)) if limit < 1.0 else min(int(limit), n_docs)


def whole_queries(task, n: int) -> int:
    """``n``, or when the first ``n`` documents of a ranking task end inside a query, ``n`` rounded up to the end
    of that query."""
    docs = task.eval_docs
    if not families.uses_query_units(TaskMeta.from_config(task.config).task_family) or not 0 < n < len(docs):
        return n
    whole, qid = n, docs[n - 1].get("qid")
    while whole < len(docs) and docs[whole].get("qid") == qid:
        whole += 1
    return whole


def _refuse_cut_query(name: str, task, limit: int | None) -> None:
    """``CellPlanError`` if ``--limit`` ends inside a query of a ranking task (a cell plan takes whole queries)."""
    if limit is not None and whole_queries(task, _sample_size(task, limit)) != _sample_size(task, limit):
        raise CellPlanError(
            f"task {name}: --limit {limit:g} cuts a query in two (ranking datasets keep whole queries of "
            f"{TaskMeta.from_config(task.config).candidates_per_query or '?'} candidates; use --limit "
            f"{whole_queries(task, _sample_size(task, limit))})"
        )


def whole_query_samples(leaves: Mapping[str, object], limit: int | float) -> tuple[dict[str, list[int]], list[str]]:
    """``--limit`` as per-task document lists when it would cut a query of a ranking task of ``leaves`` (name →
    lm-eval Task): every task keeps its first ``limit`` documents, a cut ranking task up to the end of the query
    (its RR@10 / nDCG@10 would otherwise rank part of the candidates). Returns ``({}, [])`` when nothing is cut,
    else the samples for lm-eval's ``samples`` and one message per rounded task."""
    samples, notes = {}, []
    for name in sorted(leaves):
        n = _sample_size(leaves[name], limit)
        whole = whole_queries(leaves[name], n)
        samples[name] = list(range(whole))
        if whole != n:
            notes.append(
                f"task {name}: --limit {limit:g} would cut a query: its first {whole} documents (whole queries)"
            )
    return (samples, notes) if notes else ({}, [])


def record_plan(leaves: Mapping[str, object], plan: CellPlan) -> None:
    """Write :meth:`CellPlan.metadata` into the metadata of every planned task of ``leaves`` (name → lm-eval Task),
    so lm-eval records it in ``results["configs"][task]["metadata"]`` (where ``sharpe`` finds a sparse run)."""
    meta = plan.metadata()
    for name in meta[CELLS_PLANNED]:
        config = leaves[name].config
        if config.metadata is None:
            config.metadata = {}
        config.metadata.update(meta)  # in place: the dict the task (and its prompt budget) already holds


# ============================================================================================ precision plans
Z95 = 1.959964
PLAN_STATS = ("mean", "std", "sharpe")


@dataclass
class PrecisionPlan:
    """How many single-template runs a population of ``n_templates`` needs for a 95 % half-width ``target`` on
    ``stat`` (``runs`` None: not reachable by more runs — template and document sampling alone are wider; then
    ``templates_needed`` estimates the population size that would reach it with every cell)."""

    stat: str
    target: float
    n_templates: int
    n_docs: int
    runs: int | None
    table: list[tuple[int, float, float]]  # (runs, half-width of the population interval, of the full-run interval)
    floor: float  # half-width with every cell observed (template and document sampling)
    basis: str  # "first run" (its own interval widths) or "bench" (the simulation bench's scaling, guesses)
    templates_needed: int | None = None
    full_run_runs: int | None = None  # runs for the target on the full-run interval (these templates, documents)

    def lines(self) -> list[str]:
        what = {"mean": "μ", "std": "σ", "sharpe": "S"}[self.stat]
        head = (
            f"{what} to ±{self.target:g} (95 % interval) with {self.n_templates} templates × {self.n_docs} documents "
            f"(basis: {self.basis}):"
        )
        rows = [
            f"  {r:>3} run(s): ±{pop:.3g} (population), ±{run:.3g} (a full run of these templates)"
            for r, pop, run in self.table
        ]
        if self.runs is not None:
            verdict = (
                f"→ {self.runs} single-template run(s) (--cell_budget {runs_to_share(self.runs, self.n_templates):.4g})"
            )
        else:
            verdict = (
                f"→ not reachable with {self.n_templates} templates: template and document sampling alone give "
                f"±{self.floor:.3g} with every cell"
                + (f"; about {self.templates_needed} templates would reach it" if self.templates_needed else "")
            )
        also = f"  (a full run of these {self.n_templates} templates to ±{self.target:g}: " + (
            f"{self.full_run_runs} run(s))" if self.full_run_runs else "not within the table)"
        )
        return [head, *rows, verdict, also]


def _imputation_factor(runs: float, runs0: float, n_templates: int) -> float:
    """The imputation part of a half-width scales like the unobserved share per observed cell of a template,
    sqrt((1/r − 1/T)/(1/r₀ − 1/T)): 0 with every cell (r = T)."""
    return math.sqrt(max(1 / runs - 1 / n_templates, 0.0) / (1 / runs0 - 1 / n_templates))


def _plan(stat, target, n_templates, n_docs, half_widths, basis) -> PrecisionPlan:
    """The plan from ``half_widths(r)`` → (sampling part, imputation part) of the half-width at r runs; the
    population interval's half-width is their root sum of squares."""
    table = []
    runs_needed = full_needed = None
    sampling = half_widths(n_templates)[0]
    for r in range(1, n_templates + 1):
        samp, run_hw = half_widths(r)
        pop_hw = math.hypot(samp, run_hw)
        met = pop_hw <= target and runs_needed is None
        if run_hw <= target and full_needed is None:
            full_needed = r
        if r <= 4 or r in (6, 8, 12, 16, 25) or met:
            table.append((r, pop_hw, run_hw))
        runs_needed = r if met else runs_needed
        if runs_needed is not None and r >= 4:
            break
    needed = None
    if runs_needed is None and sampling > 0:  # the sampling part shrinks like 1/sqrt(T)
        needed = math.ceil(n_templates * (sampling / target) ** 2)
    return PrecisionPlan(stat, target, n_templates, n_docs, runs_needed, table, sampling, basis, needed, full_needed)


def plan_from_estimate(record: dict, stat: str, target: float) -> PrecisionPlan:
    """Runs for ``target`` from a first sparse run's population record (``population_estimates.json``): its
    population interval ``ci`` and full-run interval ``ci_full_run`` give the sampling part
    (sqrt(pop² − full²)) and the imputation part at its own share of cells; more runs shrink the latter by
    :func:`_imputation_factor` (the simulation bench, docs/populations.md#planning)."""
    t_n = len(record["templates"])
    d_n = int(record["n_docs"])
    runs0 = float(record["share"]) * t_n
    pop = (record.get("ci") or {}).get(stat)
    full = (record.get("ci_full_run") or {}).get(stat)
    if not pop:
        raise CellPlanError(f"{record.get('group', 'the record')}: no 95 % interval of {stat} to plan from")
    pop_hw = (pop[1] - pop[0]) / 2
    full_hw = (full[1] - full[0]) / 2 if full else 0.0
    sampling = math.sqrt(max(pop_hw**2 - full_hw**2, 0.0))
    if runs0 >= t_n or full_hw == 0:
        return _plan(stat, target, t_n, d_n, lambda r: (sampling, 0.0), "a dense run")
    return _plan(stat, target, t_n, d_n, lambda r: (sampling, full_hw * _imputation_factor(r, runs0, t_n)), "first run")


# the simulation bench's scaling of the population estimator (scripts/bench_population_sim.py; fitted on the truths
# inside the model class at T = 30–100, D = 100–1,000): a template's imputed score misses by about
# sqrt(v·T/D·(1/r − 1/T)) with v the per-cell variance, shrunk towards the template spread
BENCH_CELL_VARIANCE = 0.25  # v of a 0/1 metric near 50 % (p(1 − p)); F1 and ROUGE: of the same order or less


def plan_from_guesses(
    stat: str,
    target: float,
    n_templates: int,
    n_docs: int,
    mean: float = 0.5,
    std: float = 0.1,
    baseline: float = 0.2,
    cell_variance: float = BENCH_CELL_VARIANCE,
) -> PrecisionPlan:
    """Runs for ``target`` before any run, from guesses of μ, σ and the baseline: template sampling gives σ a
    half-width of z·σ/sqrt(2(T − 1)) and μ one of z·σ/sqrt(T); a template's imputed score at r runs misses by
    e² = v·(T/D)·(1/r − 1/T) before shrinkage and e²·σ²/(σ² + e²) after it, which moves μ and σ by about
    z·sqrt(shrunk e²/T); S = (μ − b)/σ by the delta method, sqrt((hw_μ/σ)² + (S·hw_σ/σ)²)."""
    t_n, d_n = n_templates, n_docs

    def parts(r):
        e2 = cell_variance * t_n / d_n * max(1 / r - 1 / t_n, 0.0)
        shrunk = e2 * std**2 / (std**2 + e2) if e2 > 0 else 0.0
        imp = Z95 * math.sqrt(shrunk / t_n)
        samp = {"mean": Z95 * std / math.sqrt(t_n), "std": Z95 * std / math.sqrt(2 * (t_n - 1))}
        if stat == "sharpe":
            s = (mean - baseline) / std
            return (
                math.hypot(samp["mean"] / std, s * samp["std"] / std),
                math.hypot(imp / std, s * imp / std),
            )
        return samp[stat], imp

    return _plan(stat, target, t_n, d_n, parts, "bench scaling and guesses")
