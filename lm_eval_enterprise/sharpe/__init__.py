"""Sharpe-score aggregation across instruction templates (``lm-eval-enterprise sharpe``; docs/sharpe.md).

Top to bottom: :mod:`.inputs` (settings, diagnostics, lm-eval outputs read once) → :mod:`.rows` (dataset rows) →
:mod:`.cells` (the cell table of a model × row: statistics, masks, scores, resamples) → :mod:`.baselines` →
:mod:`.records` → :mod:`.comparisons` (model pairs, rank stability, roll-ups), tied together by :mod:`.pipeline`
(also the Python API); estimates of sparse runs and template populations: :mod:`.estimates` (the estimator itself
is :mod:`lm_eval_enterprise.estimator`); statistics: :mod:`.stats`; writers: :mod:`.report`, :mod:`.html_report`,
:mod:`.export`.
"""
