"""The estimator of a partial cell table: template-robust statistics from a sparse (template × document) design
(``harness/cellplan.py`` runs) and template populations.

A sparse run evaluates each document under only some templates. Per template the score is estimated from a model
of the cells (after PromptEval, Polo et al. 2024): observed cells keep their observed per-document sufficient
statistics (the ``Stats.features`` of :mod:`lm_eval_enterprise.scoring.corpus`), every unobserved cell (t, d) is
drawn R times from its posterior predictive under a model with template and document effects, and the template's
score is the posterior mean of the metric's own ``finalize`` of the sum over all documents:

    ŝ_t = mean_r finalize( Σ_{d observed under t} F_td + Σ_{d not observed under t} F_td^(r) )

(:func:`plugin_scores` gives the plug-in version with E[F_td] at the fitted parameters).

With every cell observed ŝ_t is exactly the full-data score, and every statistic below is the full tool's.

Cell models: two-way generalised linear models η_td = c + a_t + b_d with template effects a_t ~ N(0, σ_a²),
document effects b_d ~ N(0, τ²) and a free intercept c, fitted by Gibbs sampling (:mod:`.sampler`: half-normal
priors on σ_a and τ, so the variance components carry their posterior uncertainty). The Laplace-approximate
empirical-Bayes fit of the same model (:mod:`.twoway`: penalised Newton steps, EM for σ_a, τ and φ) remains for
Poisson counts and as the default ``fitter`` of :func:`cell_model`; it shrinks σ_a for 0/1 cells with a few cells
per template (docs/populations.md) and under-estimates τ somewhat (tested: 1.18 for 1.5).

* ``mean`` layout, features [y, 1] (accuracy, yes/no, ROUGE, per-query RR@k/NDCG@k): 0/1 values → Rasch model
  P(y_td = 1) = σ(η_td); other values → additive model y_td = η_td + ε, ε ~ N(0, φ), predictions clipped to the
  observed range (to [0, 1] for values inside it). The 0/1 model is zero-inflated: a template whose observed cells
  are all failures may be broken, never right (:func:`~.sampler._broken_step`).
* ``classification`` layout, features [tp_1..k, gold_1..k, pred_1..k] (weighted / macro / binary F1): a Rasch
  model of correctness c_td (the hooks' exact-match accuracy) fitted within each gold class (template effects per
  class: a template's label bias makes its accuracy depend on the class; a two-class task fits both classes in one
  chain, :func:`~.sampler.sample_two_class`; with more classes and no template covariates each class's fit is
  zero-inflated, as a template may never be right on a class) and, for a wrong answer, template t's error
  distribution q_t,j over the categories "feature label i" / "none" (unparsable, or a label outside the feature
  columns) for the document's gold class j: t's observed wrong cells of class j plus one pseudo-cell spread as all
  templates' wrong cells of class j (no wrong cell of class j anywhere: "none").
  E[F_td] = p_td·[g_d, g_d, g_d] + (1 − p_td)·[0, g_d, q_t,j(d)] — expected confusion counts, from which every F1
  average follows through ``finalize``.
* ``counts`` layout (entity F1: per document [TP, FP, FN]; KPI F1: per tag [O, P, G]): gold counts g_d are document
  properties (known from any observed cell); hits TP_td ~ Binomial(g_d, σ(η_td)) and false positives
  FP_td ~ Poisson(exp(η'_td)); E[F_td] is rebuilt from (E TP, E FP, g_d).

σ and Sharpe: the spread of the plug-in scores mixes the true template spread with estimation noise, so σ is the
posterior mean of the full-data σ over the same R draws (parameters from the sampled posterior, then the outcome),
σ = mean_r σ_r, S = (μ − b)/(α·max(σ, floor)) (:func:`predictive_stats`). Intervals: the full tool's document
bootstrap (:func:`lm_eval_enterprise.scoring.bootstrap.draw`) with the unobserved cells drawn afresh from the
posterior on every resample, so they include the imputation uncertainty.

Supported metrics (every primary metric of the 25 enterprise datasets): any per-document metric with aggregation
``mean`` (accuracy, exact match, ROUGE-1/2/L, SQuAD F1, ...), weighted / macro / binary F1 and weighted precision /
recall, entity F1 / precision / recall, the KPI adjusted and word macro F1, per-query RR@k and NDCG@k — every
statistic of :data:`lm_eval_enterprise.scoring.corpus.STATISTICS` whose ``layout`` is one of the above.

Not supported (a one-line :class:`SparseError` naming the metric, never a silent fallback): statistics without a
cell model (``layout`` None: MCC's confusion counts, Pearson's moments, Spearman's ranks); the
parsed-only scoring mode (it drops each template's unparsable documents, so which cells are missing would depend
on the outcome, while the cell models assume the planner's outcome-independent missingness). Composite datasets
(subtasks) use s_t = mean over subtasks, as the full tool does.
"""

from .cellmodels import CellMatrix, SparseError, cell_model, naive_scores, plugin_scores
from .estimate import (
    RowEstimate,
    estimate,
    estimate_population,
    estimate_row,
    population_quantiles,
    predictive_stats,
)
from .sampler import SampledFit, SamplerSettings, fit_sampled, pg_draw, sample_two_way, sampled_fitter
from .twoway import TwoWayFit, axis_covariates, fit_two_way

__all__ = [
    "CellMatrix",
    "RowEstimate",
    "SampledFit",
    "SamplerSettings",
    "SparseError",
    "TwoWayFit",
    "axis_covariates",
    "cell_model",
    "estimate",
    "estimate_population",
    "estimate_row",
    "fit_sampled",
    "fit_two_way",
    "naive_scores",
    "pg_draw",
    "plugin_scores",
    "population_quantiles",
    "predictive_stats",
    "sample_two_way",
    "sampled_fitter",
]
