"""Names of the generated task configuration that run-time code reads back (besides the metadata schema).

The generator (:mod:`lm_eval_enterprise.prompting.templating`) writes them into the task YAMLs; the task class
(:mod:`lm_eval_enterprise.harness.task`), the data layer and the scoring read them. Everything under a variant's
``metadata`` is the schema of :mod:`lm_eval_enterprise.taskmeta`.
"""

PRIMARY_FILTER = "answer"  # the filter of every task's metrics, generate and log-likelihood alike
SCORE_METRIC = "score"  # every variant's primary metric under one common name
# the per-document reports of the context budget (lm_eval_enterprise.prompting.budget) every variant declares:
# metric → (aggregation, higher_is_better)
BUDGET_METRICS: dict[str, tuple[str, bool]] = {"shots_used": ("mean", True), "prompt_cut": ("mean", False)}
# the document field naming its question in a dataset made of questions (gold_news: documents = headline ×
# question, lm_eval_enterprise.data.load); corpus metrics of such a task are means over questions ([QMEAN])
QUESTION_FIELD = "question_id"
