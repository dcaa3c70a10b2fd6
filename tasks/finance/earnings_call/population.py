"""Instruction wordings of the earnings_call template population (``lm_eval_enterprise.prompting.population``): each states
the same task (and, for free-text and list answers, the same answer format) as core template t1."""

WORDINGS = [
    "Classify the sentiment of the paragraph from an earnings call transcript as positive or negative.",
    ("Is the tone of this earnings call excerpt positive or negative for the company? Answer with one word."),
    "Decide whether the following passage of a quarterly earnings call is positive or negative.",
]
