"""Instruction wordings of the edtsum template population (``lm_eval_enterprise.prompting.population``): each states
the same task (and, for free-text and list answers, the same answer format) as core template t1."""

WORDINGS = [
    "Generate the headline of the following financial news article, on one line.",
    "Write a one-line title for the financial press release below.",
    "Give the financial news story below a short headline on a single line.",
]
