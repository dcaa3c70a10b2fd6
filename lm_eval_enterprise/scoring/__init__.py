"""Scoring: reading answers ([PARSE], :mod:`.answers`, :mod:`.filters`), the pure metric functions with their
formulas (:mod:`.metrics`) and the per-family ``process_results`` / aggregation adapters (:mod:`.hooks`). Nothing
here except the lm-eval filter class in :mod:`.filters` imports lm-eval."""
