"""Instruction wordings of the cola template population (``lm_eval_enterprise.prompting.population``): each states
the same task as core template t1 (the grammar adds the label list)."""

WORDINGS = [
    "Decide whether the following English sentence is linguistically acceptable or unacceptable.",
    "Would a linguist judge this sentence to be a well-formed English sentence? Classify it as acceptable or "
    "unacceptable.",
    "Judge the grammaticality of the sentence below: is it acceptable or unacceptable English?",
]
