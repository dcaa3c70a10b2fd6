"""Instruction wordings of the unfair_tos template population (``lm_eval_enterprise.prompting.population``): each states
the same task (and, for free-text and list answers, the same answer format) as core template t1."""

WORDINGS = [
    "Classify the clause from a terms-of-service document by the type of unfair term it contains.",
    "Read the terms-of-service clause and name the kind of potentially unfair term it is.",
    ("Which category of unfair contract term describes the following sentence of an online service's terms?"),
]
