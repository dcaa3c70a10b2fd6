"""Instruction wordings of the tram template population (``lm_eval_enterprise.prompting.population``): each states
the same task (and, for free-text and list answers, the same answer format) as core template t1."""

WORDINGS = [
    "Classify the sentence from a cyber threat report by the MITRE ATT&CK technique it describes.",
    ("Which MITRE ATT&CK technique does this threat intelligence sentence describe? Give the technique name."),
    (
        "Map the following excerpt of a threat report to the ATT&CK technique it reports, answering with the "
        "technique name only."
    ),
]
