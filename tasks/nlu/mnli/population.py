"""Instruction wordings of the mnli template population (``lm_eval_enterprise.prompting.population``): each states
the same task as core template t1 (the grammar adds the label list)."""

WORDINGS = [
    "Does the premise entail the hypothesis? Answer yes, no, or it is not possible to tell.",
    "Read the premise and the hypothesis. If the premise is true, must the hypothesis be true as well? Choose yes, "
    "it is not possible to tell, or no.",
    "Decide whether the hypothesis follows from the premise (yes), contradicts it (no), or neither (it is not "
    "possible to tell).",
]
