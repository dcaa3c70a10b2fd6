"""Instruction wordings of the commonsense_qa template population (``lm_eval_enterprise.prompting.population``):
each states the task and the answer format of the core templates, the text of one of the question's options."""

WORDINGS = [
    "Answer the commonsense question by choosing one of its options. Reply with the text of that option.",
    "Use everyday knowledge to pick the most sensible of the five options, and write out the option you pick.",
    "Which option answers the question best? Give the option itself, exactly as it is written in the list.",
]
