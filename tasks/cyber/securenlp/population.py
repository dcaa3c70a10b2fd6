"""Instruction wordings of the securenlp template population (``lm_eval_enterprise.prompting.population``): each states
the same task (and, for free-text and list answers, the same answer format) as core template t1."""

WORDINGS = [
    (
        "Decide whether the sentence from a malware report is relevant to what the malware does or can do "
        "(relevant) or not (irrelevant)."
    ),
    (
        "Label each sentence of a cyber threat report as relevant if it describes malware actions or "
        "capabilities, otherwise as irrelevant."
    ),
    ("Is this malware-report sentence about the behaviour or capabilities of malware? Answer relevant or irrelevant."),
]
