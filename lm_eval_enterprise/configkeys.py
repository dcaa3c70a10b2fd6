"""Names of the generated task configuration that run-time code reads back.

The generator (:mod:`lm_eval_enterprise.prompting.templating`) writes them into the task YAMLs; the task class
(:mod:`lm_eval_enterprise.harness.task`) and the context budget (:mod:`lm_eval_enterprise.prompting.budget`) read them.
Both import them from here, so nothing at run time imports the generator (nor a dataset's ``templates.py``).
"""

PRIMARY_FILTER = "answer"  # the filter of every task's metrics, generate and log-likelihood alike
SCORE_METRIC = "score"  # every variant's primary metric under one common name
# task metadata: the other templates of the task's table as the generator rendered them (id, description,
# doc_to_text), what the context budget plans the shared shot count over
TEMPLATES_KEY = "budget_templates"
# the document field naming its question in a dataset made of questions (gold_news: documents = headline ×
# question, lm_eval_enterprise.data.load); corpus metrics of such a task are means over questions ([QMEAN])
QUESTION_FIELD = "question_id"
