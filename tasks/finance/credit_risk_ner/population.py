"""Instruction wordings of the credit_risk_ner template population (``lm_eval_enterprise.prompting.population``): each states
the same task (and, for free-text and list answers, the same answer format) as core template t1."""

WORDINGS = [
    (
        "Extract the named entities (person, organization, location, miscellaneous) from the sentence. Write "
        'each as entity (type), separated by commas, or "None" if there are none.'
    ),
    (
        "Find every person, organization, location and miscellaneous entity in this loan agreement sentence. "
        'Answer with a comma-separated list of entity (type) pairs, or "None".'
    ),
    (
        "Tag the named entities of the sentence with one of the types person, organization, location, "
        'miscellaneous. Format: entity (type), entity (type); answer "None" when there is no entity.'
    ),
]
