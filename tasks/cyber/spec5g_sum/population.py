"""Instruction wordings of the spec5g_sum template population (``lm_eval_enterprise.prompting.population``): each states
the same task (and, for free-text and list answers, the same answer format) as core template t1."""

WORDINGS = [
    "Summarize the following text from a 5G protocol specification in plain language.",
    ("Rewrite this 3GPP specification paragraph so that a reader without telecom training can understand it."),
    "Explain in plain language what the following 5G standard text says.",
]
