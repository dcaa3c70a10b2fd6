"""Instruction wordings of the reddit_climate template population (``lm_eval_enterprise.prompting.population``): each states
the same task (and, for free-text and list answers, the same answer format) as core template t1."""

WORDINGS = [
    "Classify the sentiment of the Reddit comment about climate change.",
    "Is the tone of this Reddit comment on climate change positive or negative?",
    ("Decide whether the author of the following climate change comment expresses a positive or a negative sentiment."),
]
