"""Instruction wordings of the legal_sentiment template population (``lm_eval_enterprise.prompting.population``): each states
the same task (and, for free-text and list answers, the same answer format) as core template t1."""

WORDINGS = [
    "Classify the sentence from a court opinion into one of the 3 sentiment categories.",
    "State the sentiment expressed by the following sentence of a legal opinion.",
    "Is the judge's statement below positive, neutral or negative in tone?",
]
