"""Instruction wordings of the insurance_qa template population (``lm_eval_enterprise.prompting.population``): each states
the same task (and, for free-text and list answers, the same answer format) as core template t1."""

WORDINGS = [
    "Decide whether the answer correctly answers the insurance question. Answer Yes or No.",
    "Is the reply below a good answer to the policyholder's question? Reply Yes or No.",
    ("Judge whether the candidate answer addresses the insurance question. Say Yes if it does, otherwise No."),
]
