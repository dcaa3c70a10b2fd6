"""Sharpe-score aggregation across instruction templates (``lm-eval-enterprise sharpe``; docs/sharpe.md). Its
modules, one job each, read top to bottom from :mod:`.inputs` to the writers, and the data flow of each command:
docs/architecture.md#the-sharpe-tool-lm_eval_enterprisesharpe.
"""
