"""Instruction wordings of the fiqa_sa template population (``lm_eval_enterprise.prompting.population``): each states
the same task (and, for free-text and list answers, the same answer format) as core template t1."""

WORDINGS = [
    "Classify the sentiment the financial text expresses towards the given target.",
    ("Decide whether the financial headline or post is positive, neutral or negative about the entity it names."),
    "How does the following financial message portray the given company or asset?",
]
