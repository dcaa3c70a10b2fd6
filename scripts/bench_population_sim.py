"""Simulation study of the population estimator (issue 26): the estimator's test bench.

Truths with known generating parameters, some inside the estimator's model class and some outside it, are drawn at
30 / 50 / 100 templates and 100 / 400 / 1,000 documents; each drawn instance is run DENSELY (every cell: the
"dense" values a full run would give) and SPARSELY with the real planner's design (:func:`cellplan.plan_cells`, the
design ``lm-eval-enterprise run --cell_budget`` evaluates) at budgets of 1, 2 and 4 single-template runs; the
sparse cells go through the entry point the Sharpe tool uses for a population group
(:func:`lm_eval_enterprise.estimator.estimate_population` with the templates' axis values as covariates,
:func:`axis_covariates`, and the tool's default :class:`Options`: ddof, α, σ floor, bootstrap size and seed).

**Truths** (:data:`TRUTHS`). Templates are combinations of the real grammar's axes of a dataset
(``prompting.population.axes_of``: casehold for the multiple-choice truths, securenlp for the rare class), drawn
uniformly as the grammar draws them. A template's effect on the logit scale is a_t = (axis part) + (noise); a
document's difficulty b_d; the cell is correct with probability logistic(c + a_t + b_d):

* ``additive`` — the estimator's own model class: additive axis effects, normal noise, normal document effects;
* ``interaction`` — template effects NOT additive in the axes: half of the axis part is interactions (body × lead,
  labels × casing, double-centred, so the additive covariates cannot see them);
* ``heavy_tail`` — template noise Student-t with 3 degrees of freedom (same sd);
* ``broken`` — a share of 4 % of the templates always fails (never a correct answer);
* ``doc_mixture`` — unequal document difficulty: 25 % trivial, 15 % impossible, the rest normal;
* ``rare_class`` — binary F1 with about 16 % gold-positive documents (the first 5 % of the documents and 12 % of
  the rest: about 66 of 400; securenlp's layout, 12 % relevant): a template's answer
  "positive" has logit l_t ± Δ_t + b_d (label bias l_t additive in the axes, discrimination Δ_t per template);
* ``rouge`` — a continuous metric in [0, 1] (clipped additive model), the estimator's non-binary path.

``--doc-sd`` adds each truth with other document sds ("additive@doc_sd=0.5"; the same templates and standard
normal document effects, scaled): at one run's budget each document has one observed cell, which cannot tell how
much documents differ, so the estimates there rest on the prior of that spread and the bench checks them over a
range of truths. ``--vary`` does the same for any numeric parameters (with ``--truths rare_class``,
"--vary axis_sd=0.4@noise_sd=0.3@discrimination_sd=1": templates whose skill, not their label bias, varies most).

**Reference values.** *Dense*: the statistics of the instance's full matrix (what a full run of these templates on
these documents gives; the quantiles, here and below, by the estimator's one definition,
:func:`~lm_eval_enterprise.estimator.population_quantiles`). *Population*: the grammar's template distribution on
fresh samples of D documents: μ = E s_t, σ² = E_docs Var_t(s_t | docs), the quantiles E_docs q_p(s_t | docs),
S = (μ − b)/σ — Monte Carlo with :data:`POP_TEMPLATES` templates × :data:`POP_DRAWS` document samples (computed once per
truth and D; ``mc_se`` their Monte Carlo standard errors). The document samples set the error of μ: with 8 of them
the reference μ of doc_mixture was off by −0.015 (0.7 of the estimator's own error sd; the mean of dense − population
over 200 seeds, 9 of its standard errors), which moved the coverage of μ and S; with 400 its standard error is
0.0002–0.0011.

**Reported** per truth × T × D × budget over the seeds: bias and RMSE of μ, σ, S and the five quantiles against the
dense values (relative bias of σ and S in % of the mean dense value), and the coverage of every 95 % interval:
the population interval ``ci`` (documents and templates resampled) against the population values, and the
full-run interval ``ci_full_run`` (what a dense run of the same templates and documents would give) against the
dense values. A budget "dense" (every cell) checks the intervals without any imputation.

    python scripts/bench_population_sim.py --quick          # ≈ 1 min on 2 cores: T 50, D 400, 2 runs, 12 seeds
    python scripts/bench_population_sim.py --seeds 100 --json sim.json   # the full study (docs/populations.md)
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import sys
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, replace
from functools import cache
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

POP_TEMPLATES = 1000  # templates per Monte Carlo draw of the population values
POP_DRAWS = 400  # document samples of the population values (8 left μ off by up to 9 standard errors: below)
BUDGETS = (1, 2, 4)  # single-template runs
GROUP = "ent_sim_population"


@dataclass(frozen=True)
class Truth:
    """Generating parameters of one truth (logit scale unless stated)."""

    name: str
    note: str
    metric: str = "accuracy"  # accuracy | binary_f1 | rouge
    dataset: str = "casehold"  # whose grammar axes the templates are drawn from
    level: float = 0.2  # intercept c
    axis_sd: float = 0.7  # sd of the axis part of a_t over the grammar
    interaction: float = 0.0  # share of the axis variance in two-axis interactions (not additive)
    noise_sd: float = 0.5  # sd of the template noise
    noise: str = "normal"  # normal | t3
    broken: float = 0.0  # share of templates that always fail
    doc: str = "normal"  # normal | mixture
    doc_sd: float = 1.5
    positives: float = 0.12  # binary_f1: share of gold-positive documents after the first 5 % (all positive)
    discrimination: float = 2.0  # binary_f1: mean Δ_t
    discrimination_sd: float = 0.5  # binary_f1: sd of Δ_t over the templates
    choices: int = 5  # accuracy: options of a multiple-choice item (baseline 1/choices)
    rouge_noise: float = 0.12  # rouge: per-cell noise sd (value scale)


TRUTHS = {
    t.name: t
    for t in (
        Truth("additive", "the estimator's model class"),
        Truth("interaction", "template effects not additive in the axes", interaction=0.5),
        Truth("heavy_tail", "template noise Student-t(3)", noise="t3", noise_sd=0.6),
        Truth("broken", "4 % of the templates always fail", broken=0.04),
        Truth("doc_mixture", "unequal documents: 25 % trivial, 15 % impossible", doc="mixture", level=0.4),
        Truth(
            "rare_class",
            "binary F1, ~16 % gold positives (securenlp's layout)",
            metric="binary_f1",
            dataset="securenlp",
            level=-1.2,
            axis_sd=0.8,
            noise_sd=0.5,
            doc_sd=1.0,
        ),
        Truth("rouge", "continuous values in [0, 1] (additive, clipped)", metric="rouge", level=0.3, doc_sd=0.08),
    )
}
AXIS_WEIGHT = {  # relative importance of the grammar's axes in the truths' axis part
    "wording": 0.6,
    "persona": 0.3,
    "labels": 0.7,
    "body": 0.8,
    "separator": 0.3,
    "spacing": 0.2,
    "casing": 0.4,
    "lead": 1.0,
}
INTERACTIONS = (("body", "lead"), ("labels", "casing"))


def truth_named(name: str) -> Truth:
    """A truth of :data:`TRUTHS` by name, or a variant with other numeric parameters: "additive@doc_sd=0.5"
    (``--doc-sd``), "rare_class@axis_sd=0.3@discrimination_sd=1" (``--vary``). The variant keeps its base truth's
    name, so its instances draw the same templates, documents and cells from the same standard normal and uniform
    numbers as the base truth's, only scaled: a paired comparison."""
    base, *parts = name.split("@")
    truth = TRUTHS[base]
    changes = {}
    for part in parts:
        key, sep, value = part.partition("=")
        current = getattr(truth, key, None)
        try:
            if not sep or isinstance(current, bool) or not isinstance(current, (int, float)):
                raise ValueError
            changes[key] = type(current)(value)
        except ValueError:
            raise ValueError(f"{name}: {part!r} is not <numeric Truth field>=<value>") from None
    return replace(truth, **changes) if changes else truth


# ============================================================================================ truths
@cache
def grammar_axes(dataset: str) -> dict[str, tuple]:
    """The grammar's axes of a dataset (axis → values), as ``lm-eval-enterprise population`` composes them."""
    from lm_eval_enterprise.prompting.population import _wordings, axes_of, core_spec

    _, spec = core_spec(dataset)
    return {k: tuple(v) for k, v in axes_of(spec, _wordings(spec.domain, spec.dataset)).items()}


@cache
def axis_effects(truth: Truth) -> tuple[dict, dict]:
    """The truth's fixed effects: per axis value (additive part) and per value pair of :data:`INTERACTIONS`
    (double-centred), scaled so that their variance over uniformly drawn templates is axis_sd² (split by
    ``interaction``)."""
    axes = grammar_axes(truth.dataset)
    rng = np.random.default_rng(list(truth.name.encode()))
    main = {}
    for name, vals in axes.items():
        e = rng.standard_normal(len(vals)) * AXIS_WEIGHT.get(name, 0.5)
        main[name] = e - e.mean() if len(vals) > 1 else np.zeros(1)
    var_main = sum(float(np.mean(e**2)) for e in main.values())
    scale = truth.axis_sd * math.sqrt(1 - truth.interaction) / math.sqrt(var_main)
    main = {k: v * scale for k, v in main.items()}
    pairs = {}
    if truth.interaction > 0:
        for u, v in INTERACTIONS:
            e = rng.standard_normal((len(axes[u]), len(axes[v])))
            e = e - e.mean(0) - e.mean(1)[:, None] + e.mean()
            pairs[(u, v)] = e
        var_pair = sum(float(np.mean(e**2)) for e in pairs.values())
        scale = truth.axis_sd * math.sqrt(truth.interaction) / math.sqrt(var_pair)
        pairs = {k: v * scale for k, v in pairs.items()}
    return main, pairs


def draw_templates(truth: Truth, n: int, rng: np.random.Generator) -> tuple[list[dict], np.ndarray, np.ndarray]:
    """n distinct templates: (axis values, effect a_t, broken flag)."""
    axes = grammar_axes(truth.dataset)
    main, pairs = axis_effects(truth)
    sizes = [len(v) for v in axes.values()]
    total = int(np.prod(sizes))
    idx = rng.choice(total, size=n, replace=n > total)
    codes = np.array(np.unravel_index(idx, sizes)).T  # n × axes
    names = list(axes)
    a = np.zeros(n)
    for j, name in enumerate(names):
        a += main[name][codes[:, j]]
    for (u, v), e in pairs.items():
        a += e[codes[:, names.index(u)], codes[:, names.index(v)]]
    if truth.noise == "t3":
        a += truth.noise_sd * rng.standard_t(3, n) / math.sqrt(3)
    else:
        a += truth.noise_sd * rng.standard_normal(n)
    broken = rng.random(n) < truth.broken
    values = [{name: axes[name][codes[i, j]] for j, name in enumerate(names)} for i in range(n)]
    return values, a, broken


def draw_documents(truth: Truth, d_n: int, rng: np.random.Generator) -> np.ndarray:
    if truth.doc == "mixture":
        kind = rng.choice(3, size=d_n, p=[0.25, 0.15, 0.6])
        centre = np.array([4.0, -4.0, 0.0])[kind]
        sd = np.array([0.5, 0.5, 1.0])[kind]
        return centre + sd * rng.standard_normal(d_n)
    return truth.doc_sd * rng.standard_normal(d_n)


def _logistic(x):
    return 1.0 / (1.0 + np.exp(-x))


def cells(truth: Truth, a: np.ndarray, broken: np.ndarray, b: np.ndarray, rng: np.random.Generator) -> dict:
    """One dense run: per cell the 0/1 correctness (accuracy), the predicted label (binary F1; gold in
    ``gold``) or the value (rouge)."""
    t_n, d_n = len(a), len(b)
    if truth.metric == "accuracy":
        p = _logistic(truth.level + a[:, None] + b[None, :])
        y = (rng.random((t_n, d_n)) < p).astype(float)
        y[broken] = 0.0
        return {"y": y}
    if truth.metric == "rouge":
        # the template and document parts are on the value scale: a_t scaled to a template sd of ~0.04
        v = truth.level + 0.05 * a[:, None] + b[None, :] + truth.rouge_noise * rng.standard_normal((t_n, d_n))
        v = np.clip(v, 0.0, 1.0)
        v[broken] = 0.0
        return {"y": v}
    gold = (rng.random(d_n) < truth.positives).astype(int)  # 1 = positive
    gold[: max(1, int(0.05 * d_n))] = 1  # at least a few positives
    delta = truth.discrimination + truth.discrimination_sd * rng.standard_normal(t_n)
    sign = np.where(gold == 1, 1.0, -1.0)
    p_pos = _logistic(truth.level + a[:, None] + delta[:, None] * sign[None, :] + b[None, :])
    says = rng.random((t_n, d_n)) < p_pos
    pred = np.where(says, 0, 1)  # label 0 = positive, 1 = negative
    pred[broken] = -1  # unparsable
    return {"pred": pred, "gold": np.where(gold == 1, 0, 1)}


def cell_matrix(truth: Truth, run: dict, templates: list[str]):
    """The :class:`CellMatrix` of a dense run (every cell observed)."""
    from lm_eval_enterprise.estimator import CellMatrix

    docs = [f"d{j}" for j in range(next(iter(run.values())).shape[-1])]
    if truth.metric == "binary_f1":
        return CellMatrix.from_labels(
            run["gold"], run["pred"], 2, "binary", positive=0, templates=templates, docs=docs, name=GROUP
        )
    return CellMatrix.from_values(run["y"], templates=templates, docs=docs, name=GROUP)


def baseline(truth: Truth, run: dict) -> float:
    """The Sharpe tool's default (uniform) baseline."""
    from lm_eval_enterprise.scoring.chance import uniform_accuracy, uniform_f1

    if truth.metric == "accuracy":
        return uniform_accuracy(truth.choices)
    if truth.metric == "rouge":
        return 0.0
    gold = run["gold"]
    return uniform_f1([int((gold == 0).sum()), int((gold == 1).sum())], "binary", 0)


def scores_of(cm) -> np.ndarray:
    return cm.finalize(cm.features.sum(1))


def summary(scores: np.ndarray, base: float) -> dict:
    from lm_eval_enterprise.estimator import population_quantiles
    from lm_eval_enterprise.scoring.sharpe_score import sharpe

    st = sharpe(scores, base, 1, 1.0, "off", None)
    return {
        "mean": float(np.mean(scores)),
        "std": float(np.std(scores, ddof=1)),
        "sharpe": st["sharpe"],
        "quantiles": [float(q) for q in population_quantiles(scores)],
    }


def instance(truth: Truth, t_n: int, d_n: int, seed: int):
    """(axes, dense cell matrix, baseline, dense values) of one seeded instance."""
    rng = np.random.default_rng([seed, t_n, d_n, *truth.name.encode()])
    axes, a, broken = draw_templates(truth, t_n, rng)
    b = draw_documents(truth, d_n, rng)
    run = cells(truth, a, broken, b, rng)
    names = [f"p{i + 1:03d}" for i in range(t_n)]
    cm = cell_matrix(truth, run, names)
    base = baseline(truth, run)
    return axes, cm, base, summary(scores_of(cm), base)


@cache
def population_values(truth: Truth, d_n: int) -> dict:
    """μ, σ, S and the quantiles of the truth's template population on fresh samples of d_n documents (module
    docstring), Monte Carlo."""
    from lm_eval_enterprise.estimator import population_quantiles

    means, variances, qs, bases = [], [], [], []
    for k in range(POP_DRAWS):
        rng = np.random.default_rng([10_000 + k, d_n, *truth.name.encode()])
        _, a, broken = draw_templates(truth, POP_TEMPLATES, rng)
        b = draw_documents(truth, d_n, rng)
        run = cells(truth, a, broken, b, rng)
        cm = cell_matrix(truth, run, [f"p{i}" for i in range(POP_TEMPLATES)])
        s = scores_of(cm)
        means.append(s.mean())
        variances.append(s.var(ddof=1))
        qs.append(population_quantiles(s))
        bases.append(baseline(truth, run))
    mu, sd, base = float(np.mean(means)), float(math.sqrt(np.mean(variances))), float(np.mean(bases))
    root_n = math.sqrt(POP_DRAWS)
    return {
        "mean": mu,
        "std": sd,
        "sharpe": (mu - base) / sd,
        "quantiles": [float(q) for q in np.mean(qs, axis=0)],
        "baseline": base,
        "mc_se": {  # σ by the delta method
            "mean": float(np.std(means, ddof=1) / root_n),
            "std": float(np.std(variances, ddof=1) / root_n / (2 * sd)),
            "quantiles": [float(x) for x in np.std(qs, axis=0, ddof=1) / root_n],
        },
    }


# ============================================================================================ one design
def sparse_design(cm, runs: int | None, seed: int) -> np.ndarray:
    """The planner's mask for ``runs`` single-template runs (None: every cell), cell seed ``seed``; a binary F1
    is stratified by gold class as ``run --cell_budget`` stratifies a binary classification (cellplan step 4)."""
    from lm_eval_enterprise.harness.cellplan import plan_cells, runs_to_share

    t_n, d_n = cm.mask.shape
    if runs is None:
        return np.ones((t_n, d_n), bool)
    positive = cm.positive_docs()
    strata = None if positive is None else {GROUP: list(positive)}
    plan = plan_cells({GROUP: cm.docs}, {GROUP: cm.templates}, runs_to_share(runs, t_n), seed, strata=strata)
    mask = np.zeros((t_n, d_n), bool)
    for t, docs in enumerate(plan.groups[GROUP].docs_of(i) for i in range(t_n)):
        mask[t, docs] = True
    return mask


def estimate(cm, axes: list[dict], base: float, n_boot: int | None) -> dict:
    """The Sharpe tool's call for one population group (``sharpe.estimates.population_estimates``): axis covariates and the default
    :class:`Options`."""
    from lm_eval_enterprise.estimator import axis_covariates, estimate_population
    from lm_eval_enterprise.sharpe.inputs import Options

    opts = Options()
    return estimate_population(
        [cm],
        base,
        covariates=axis_covariates(axes),
        ddof=opts.ddof,
        alpha=opts.alpha,
        floor_mode=opts.floor_mode(),
        n_boot=opts.bootstrap if n_boot is None else n_boot,
        seed=opts.seed,
    )


def one_case(job: tuple) -> dict:
    """Estimate one (truth, T, D, budget, seed) and compare with the dense and population values."""
    truth_name, t_n, d_n, runs, seed, n_boot = job
    truth = truth_named(truth_name)
    axes, full, base, dense = instance(truth, t_n, d_n, seed)
    pop = population_values(truth, d_n)
    cm = full.subset(sparse_design(full, runs, seed))
    t0 = time.process_time()
    est = estimate(cm, axes, base, n_boot)
    cpu = time.process_time() - t0
    ci, ci_run = est.get("ci") or {}, est.get("ci_full_run") or {}
    out = {
        "truth": truth_name,
        "T": t_n,
        "D": d_n,
        "runs": runs or "dense",
        "seed": seed,
        "cpu": cpu,
        "share": est["share"],
        "est": {k: est[k] for k in ("mean", "std", "sharpe", "quantiles")},
        "dense": dense,
        "pop": {k: pop[k] for k in ("mean", "std", "sharpe", "quantiles", "mc_se")},
        "cover_pop": {},
        "cover_dense": {},
        "cover_dense_by_ci": {},
        "info": est.get("information"),
    }
    for key, ref in (("cover_pop", pop), ("cover_dense", dense), ("cover_dense_by_ci", dense)):
        source = ci_run if key == "cover_dense" else ci
        for stat in ("mean", "std", "sharpe"):
            out[key][stat] = _inside(ref[stat], source.get(stat))
        qci = source.get("quantiles") or [None] * len(ref["quantiles"])
        out[key]["quantiles"] = [_inside(q, c) for q, c in zip(ref["quantiles"], qci)]
    return out


def _inside(value, ci) -> float | None:
    if value is None or not math.isfinite(value) or not ci or ci[0] is None:
        return None
    return float(ci[0] <= value <= ci[1])


# ============================================================================================ the study
def jobs(truths, sizes, budgets, seeds: int, n_boot: int | None, dense: bool) -> list[tuple]:
    out = []
    for name, (t_n, d_n), runs in itertools.product(truths, sizes, list(budgets) + ([None] if dense else [])):
        if runs is not None and runs > t_n:
            continue
        out += [(name, t_n, d_n, runs, s, n_boot) for s in range(seeds)]
    return out


def run_all(job_list: list[tuple], workers: int) -> list[dict]:
    if workers <= 1:
        return [one_case(j) for j in job_list]
    out = []
    with ProcessPoolExecutor(max_workers=workers) as ex:
        for i, r in enumerate(ex.map(one_case, job_list, chunksize=1)):
            out.append(r)
            if (i + 1) % 20 == 0:
                print(f"  {i + 1}/{len(job_list)} estimates", file=sys.stderr, flush=True)
    return out


def _mean(xs) -> float:
    xs = [x for x in xs if x is not None and math.isfinite(x)]
    return float(np.mean(xs)) if xs else math.nan


def aggregate(results: list[dict]) -> dict:
    """Per (truth, T, D, runs): bias, relative bias and RMSE against the dense values; coverage."""
    cells_ = defaultdict(list)
    for r in results:
        cells_[(r["truth"], r["T"], r["D"], str(r["runs"]))].append(r)
    out = {}
    for key, rs in sorted(cells_.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2], kv[0][3])):
        row = {"n": len(rs), "cpu": _mean(r["cpu"] for r in rs), "share": rs[0]["share"]}
        for stat in ("mean", "std", "sharpe"):
            err = [r["est"][stat] - r["dense"][stat] for r in rs if _ok(r["est"][stat]) and _ok(r["dense"][stat])]
            ref = _mean(r["dense"][stat] for r in rs)
            row[f"{stat}_dense"] = ref
            row[f"{stat}_bias"] = _mean(err)
            row[f"{stat}_relbias"] = _mean(err) / abs(ref) if ref else math.nan
            row[f"{stat}_rmse"] = math.sqrt(_mean([e * e for e in err])) if err else math.nan
            for cov in ("cover_pop", "cover_dense", "cover_dense_by_ci"):
                row[f"{stat}_{cov}"] = _mean(r[cov][stat] for r in rs)
        q_err = np.array([np.subtract(r["est"]["quantiles"], r["dense"]["quantiles"]) for r in rs])
        row["q_bias"] = [float(x) for x in q_err.mean(0)]
        row["q_rmse"] = [float(x) for x in np.sqrt((q_err**2).mean(0))]
        for cov in ("cover_pop", "cover_dense", "cover_dense_by_ci"):
            row[f"q_{cov}"] = [_mean(r[cov]["quantiles"][i] for r in rs) for i in range(len(rs[0][cov]["quantiles"]))]
        out["|".join(map(str, key))] = row
    return out


def _ok(x) -> bool:
    return x is not None and math.isfinite(x)


def _pct(x) -> str:
    return "–" if not _ok(x) else f"{100 * x:.0f}"


def _coverage(row: dict, kind: str) -> str:
    """μ/σ/S/quantiles (mean over the five) coverage of one interval kind, in %."""
    q = _mean(row[f"q_{kind}"])
    return "/".join(_pct(row[f"{s}_{kind}"]) for s in ("mean", "std", "sharpe")) + f"/{_pct(q)}"


def print_tables(agg: dict, file=sys.stdout) -> None:
    """Markdown: one row per truth × T × D × budget."""
    print(
        "| truth | T | D | runs | σ (dense) | σ bias (%) | σ RMSE | S (dense) | S bias (%) | S RMSE | μ bias | "
        "μ RMSE | q bias max | q RMSE mean | cover pop. μ/σ/S/q (%) | cover full-run μ/σ/S/q (%) | CPU s |",
        file=file,
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|", file=file)
    for key, r in agg.items():
        truth, t_n, d_n, runs = key.split("|")
        qb = max(abs(x) for x in r["q_bias"])
        qr = float(np.mean(r["q_rmse"]))

        print(
            f"| {truth} | {t_n} | {d_n} | {runs} | {r['std_dense']:.3f} | {100 * r['std_relbias']:+.1f} | "
            f"{r['std_rmse']:.3f} | {r['sharpe_dense']:.2f} | {100 * r['sharpe_relbias']:+.1f} | "
            f"{r['sharpe_rmse']:.2f} | {r['mean_bias']:+.3f} | {r['mean_rmse']:.3f} | {qb:.3f} | {qr:.3f} | "
            f"{_coverage(r, 'cover_pop')} | {_coverage(r, 'cover_dense')} | {r['cpu']:.2f} |",
            file=file,
        )


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="T 50, D 400, 2 runs, 12 seeds (about a minute)")
    ap.add_argument("--truths", nargs="*", default=list(TRUTHS), choices=list(TRUTHS))
    ap.add_argument("--templates", nargs="*", type=int, default=[50], help="population sizes (T)")
    ap.add_argument("--docs", nargs="*", type=int, default=[100, 400, 1000], help="documents (D)")
    ap.add_argument("--scaling", action="store_true", help="also T 30 and 100 at D 400")
    ap.add_argument("--budgets", nargs="*", type=int, default=list(BUDGETS), help="single-template runs")
    ap.add_argument("--dense", action="store_true", help="also the dense design (every cell)")
    ap.add_argument(
        "--doc-sd",
        nargs="*",
        type=float,
        default=[],
        help="also each truth with these document sds (logit scale; not doc_mixture): the sd the design identifies "
        "only with two or more cells per document",
    )
    ap.add_argument(
        "--vary",
        nargs="*",
        default=[],
        help="also each truth with these parameters, e.g. axis_sd=0.3@discrimination_sd=1 (numeric Truth fields)",
    )
    ap.add_argument("--seeds", type=int, default=100)
    ap.add_argument("--boot", type=int, default=None, help="bootstrap size (default: the Sharpe tool's)")
    ap.add_argument("--workers", type=int, default=2, help="processes (at most 2)")
    ap.add_argument("--json", type=Path, help="write every case and the aggregate here")
    args = ap.parse_args(argv)
    sizes = [(t, d) for t in args.templates for d in args.docs]
    if args.scaling:
        sizes += [(t, 400) for t in (30, 100) if (t, 400) not in sizes]
    budgets, seeds = args.budgets, args.seeds
    if args.quick:
        sizes, budgets, seeds = [(50, 400)], [2], min(seeds, 12)
    names = list(args.truths) + [f"{t}@doc_sd={sd:g}" for t in args.truths if t != "doc_mixture" for sd in args.doc_sd]
    names += [f"{t}@{v}" for t in args.truths for v in args.vary]
    for n in names:
        truth_named(n)  # a bad --vary fails here, in one line, before any work
    job_list = jobs(names, sizes, budgets, seeds, args.boot, args.dense)
    t0, c0 = time.time(), time.process_time()
    results = run_all(job_list, max(1, min(args.workers, 2)))
    agg = aggregate(results)
    print_tables(agg)
    wall = time.time() - t0
    cpu = sum(r["cpu"] for r in results)
    print(
        f"\n{len(results)} estimates in {wall:.0f} s wall ({min(args.workers, 2)} workers; estimator CPU "
        f"{cpu:.0f} s, {cpu / max(len(results), 1):.2f} s per estimate; main process {time.process_time() - c0:.0f} s)"
    )
    if args.json:
        args.json.write_text(
            json.dumps(
                {"cases": results, "aggregate": agg, "truths": {k: asdict(v) for k, v in TRUTHS.items()}}, indent=1
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(argv=None))
