"""Instruction wordings of the wildfire_tweets template population (``lm_eval_enterprise.prompting.population``): each states
the same task (and, for free-text and list answers, the same answer format) as core template t1."""

WORDINGS = [
    (
        "Does the tweet about wildfires express a stance in favor of or against the view that climate change "
        "is involved?"
    ),
    ("Stance detection: does this wildfire tweet support or reject the idea that climate change plays a role?"),
    (
        "Read the tweet about a wildfire and decide whether it links the fire to climate change (favor) or "
        "disputes that link (against)."
    ),
]
