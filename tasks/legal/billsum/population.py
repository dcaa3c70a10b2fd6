"""Instruction wordings of the billsum template population (``lm_eval_enterprise.prompting.population``): each states
the same task (and, for free-text and list answers, the same answer format) as core template t1."""

WORDINGS = [
    "Summarize the following legislative bill.",
    "Write a short summary of what the bill below does, in neutral language.",
    "Explain the main provisions of the following US bill in a few sentences.",
]
