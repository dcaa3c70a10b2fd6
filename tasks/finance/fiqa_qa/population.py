"""Instruction wordings of the fiqa_qa template population (``lm_eval_enterprise.prompting.population``): each states
the same task (and, for free-text and list answers, the same answer format) as core template t1."""

WORDINGS = [
    "Decide whether the passage answers the financial question. Answer Yes or No.",
    "Is the following forum reply a relevant answer to the personal-finance question? Reply Yes or No.",
    "Judge whether the candidate answer addresses the question. Say Yes if it does, otherwise No.",
]
