"""Instruction wordings of the gold_news template population (``lm_eval_enterprise.prompting.population``): each states
the same task (and, for free-text and list answers, the same answer format) as core template t1."""

WORDINGS = [
    "Classify whether the news headline about the gold commodity discusses {{fragment}}.",
    "Does the following gold market headline talk about {{fragment}}? Answer Yes or No.",
    "Read the news headline about gold and decide whether it mentions {{fragment}}.",
]
