"""Instruction wordings of the finer139 template population (``lm_eval_enterprise.prompting.population``): each states
the same task (and, for free-text and list answers, the same answer format) as core template t1."""

WORDINGS = [
    (
        "Extract the numeric XBRL entities from the sentence. Possible types: {{type_list}}. Write each as "
        "value (type), separated by commas."
    ),
    (
        "Tag the financial figures of the sentence with their XBRL type ({{type_list}}). Answer with value "
        "(type) pairs separated by commas."
    ),
    (
        "List every number in the sentence that is an XBRL fact of one of these types: {{type_list}}. Format:"
        " value (type), value (type)."
    ),
]
