"""Instruction wordings of the convfinqa template population (``lm_eval_enterprise.prompting.population``): each states
the same task (and, for free-text and list answers, the same answer format) as core template t1."""

WORDINGS = [
    (
        "Based on the table, the text and the conversation, answer the final question. Respond with the "
        "number only, with no explanation."
    ),
    (
        "Read the financial report excerpt and compute the answer to the last question of the dialogue. Give "
        "only the final number."
    ),
    "Answer the last question about the financial document below with a single number and nothing else.",
]
