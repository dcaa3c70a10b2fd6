"""Instruction wordings of the legal_summarization template population (``lm_eval_enterprise.prompting.population``): each states
the same task (and, for free-text and list answers, the same answer format) as core template t1."""

WORDINGS = [
    "Summarize the legal document in plain English.",
    ("Rewrite the following legal text as a short summary that a reader without legal training can understand."),
    "Explain in plain language what the following terms-of-service text means for the user.",
]
