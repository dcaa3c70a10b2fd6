"""Instruction wordings of the echr_judgment template population (``lm_eval_enterprise.prompting.population``): each states
the same task (and, for free-text and list answers, the same answer format) as core template t1."""

WORDINGS = [
    "Is the following case a violation of human rights? Answer Yes or No.",
    (
        "Read the facts of the European Court of Human Rights case and say whether a violation of the "
        "Convention was found."
    ),
    "Did the respondent State violate a human rights article in the following case?",
]
