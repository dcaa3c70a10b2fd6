"""Instruction wordings of the spec5g_cls template population (``lm_eval_enterprise.prompting.population``): each states
the same task (and, for free-text and list answers, the same answer format) as core template t1."""

WORDINGS = [
    "Classify the sentence from a 5G protocol specification by whether it is security related.",
    "Which category does the following 3GPP specification sentence belong to?",
    "Decide whether the 5G standard sentence below is security related, not security related, or other.",
]
