"""Instruction wordings of the cti_to_mitre template population (``lm_eval_enterprise.prompting.population``): each states
the same task (and, for free-text and list answers, the same answer format) as core template t1."""

WORDINGS = [
    "Classify the following situation by the type of security attack. Answer with a single letter.",
    ("Which ATT&CK technique does the threat intelligence sentence describe? Reply with the letter of the option."),
    ("Map the observed behaviour to the attack technique it corresponds to and give the option's letter only."),
]
