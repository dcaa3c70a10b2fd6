"""Instruction wordings of the kpi_edgar template population (``lm_eval_enterprise.prompting.population``): each states
the same task (and, for free-text and list answers, the same answer format) as core template t1."""

WORDINGS = [
    (
        "Extract the key performance indicators (KPIs) and monetary values from the sentence and tag each in "
        "brackets: [kpi] for a KPI, [cy] current year value, [py] prior year value, [py1] value of two years "
        "before. Separate items with commas."
    ),
    (
        "Find the KPIs and the monetary values of the annual report sentence. Write each as phrase [category]"
        " with category kpi, cy (current year), py (prior year) or py1 (two years before), separated by "
        "commas."
    ),
    (
        "Label every KPI and every value in the text: kpi (key performance indicator), cy (current year "
        "value), py (prior year value), py1 (two years before). Answer as phrase [category], phrase "
        "[category]."
    ),
]
