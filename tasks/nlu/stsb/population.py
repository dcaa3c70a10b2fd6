"""Instruction wordings of the stsb template population (``lm_eval_enterprise.prompting.population``): each states
the same task and answer format as core template t1, a similarity score from 0 to 5."""

WORDINGS = [
    "Rate how similar in meaning the two sentences are, on a scale from 0 (no meaning overlap) to 5 (they mean the "
    "same thing). Answer with the number only.",
    "How close in meaning are these two sentences? Give a score between 0 and 5, where 0 means unrelated and 5 "
    "means equivalent; reply with a single number.",
    "Score the semantic similarity of the sentence pair from 0 to 5 (5 = same meaning). Respond with just the score.",
]
