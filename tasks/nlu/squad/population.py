"""Instruction wordings of the squad template population (``lm_eval_enterprise.prompting.population``): each states
the same task and answer format as core template t1, a span copied from the article."""

WORDINGS = [
    "Answer the question about the article with a short span copied from the article.",
    "Read the passage and answer the question. Reply with the exact words of the passage that answer it, nothing else.",
    "Find the answer to the question in the article below and give it as a phrase taken from the article.",
]
