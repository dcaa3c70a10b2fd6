"""Instruction wordings of the sumo_claims template population (``lm_eval_enterprise.prompting.population``): each states
the same task (and, for free-text and list answers, the same answer format) as core template t1."""

WORDINGS = [
    "Generate the title of the following article. Answer with the title only.",
    "Write the headline of the web article below.",
    "Give the following climate and environment article a short, informative title.",
]
