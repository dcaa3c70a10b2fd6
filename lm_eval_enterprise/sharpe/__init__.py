"""Sharpe-score aggregation across instruction templates.

Reading and scoring: :mod:`.io` (lm-eval outputs), :mod:`lm_eval_enterprise.scoring.corpus` (per-template scores
from samples, vectorised: the metrics' sufficient statistics),
:mod:`.baselines` (expected score of an uninformative predictor), :mod:`.stats`, :mod:`.bootstrap`.
The aggregation, by stage: :mod:`.options`, :mod:`.grouping`, :mod:`.pairing`, :mod:`.template_scores`,
:mod:`.bootstrap_rows`, :mod:`.parallel`, :mod:`.records`, :mod:`.comparisons`, :mod:`.rollup`, tied together by
:mod:`.engine`. Writers: :mod:`.serialize` (JSON), :mod:`.report` (Markdown, CSV, HTML), :mod:`.export`
(leaderboard layouts), :mod:`.outputs` (all of them). Entry points: :mod:`.api`, :mod:`.cli`
(``lm-eval-enterprise sharpe``).
"""
