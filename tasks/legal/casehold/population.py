"""Instruction wordings of the casehold template population (``lm_eval_enterprise.prompting.population``): each states
the same task (and, for free-text and list answers, the same answer format) as core template t1."""

WORDINGS = [
    ("Pick the holding that belongs in place of <HOLDING> in the court decision. Answer with the letter only."),
    ("Identify the holding of the cited case among the five options. Give a letter answer among A, B, C, D, or E."),
    "Which candidate holding fits the <HOLDING> placeholder? Reply with its letter.",
]
