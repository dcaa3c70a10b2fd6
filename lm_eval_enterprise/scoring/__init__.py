"""Scoring: reading answers ([PARSE], :mod:`.answers`, :mod:`.filters`), the pure metric functions with their
formulas (:mod:`.metrics`), their per-unit statistics (:mod:`.corpus`), what each metric scores by chance
(:mod:`.chance`), the per-family ``process_results`` / aggregation adapters (:mod:`.hooks`), and the statistics the
Sharpe tool and the estimator share: the Sharpe score (:mod:`.sharpe_score`) and the document bootstrap
(:mod:`.bootstrap`). Nothing here except the lm-eval filter class in :mod:`.filters` imports lm-eval."""
