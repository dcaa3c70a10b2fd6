"""Sharpe-score aggregation across instruction templates (SHARPE.md).

Modules: :mod:`.io` (reading lm-eval outputs), :mod:`.scoring` (per-template scores from samples, vectorised),
:mod:`.baselines` (§3), :mod:`.stats` (§1, §4, §5, §7, §9), :mod:`.bootstrap` (§8), :mod:`.engine` (the
aggregation), :mod:`.report` (JSON, CSV, Markdown, HTML), :mod:`.export` (HF leaderboard layout), :mod:`.api`,
:mod:`.cli` (``lm-eval-enterprise sharpe``).
"""
