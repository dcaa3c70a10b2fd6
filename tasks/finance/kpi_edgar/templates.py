"""Instruction templates of kpi_edgar (t1 = HELM ``kpi_edgar`` wording, its task text stated once as the instruction).

Every template keeps the tag set kpi/cy/py/py1 and the target format ``phrase [tag], phrase [tag]``, and reads the
answer the same way ([PARSE]): the metric's own KPI parser on the completion, a format failure iff it finds
nothing readable. Each ``regex`` is only the exact format asked for (``format_adherence``). 20 shots within
the model's context (the task class's prompt budget drops trailing shots that do not fit; ``shots_used`` in the
results).
"""

from lm_eval_enterprise.tasks.finance.kpi_edgar.source import TAG_DESCRIPTIONS, KpiEdgar

from lm_eval_enterprise.prompting.templating import DatasetTasks, Template
from lm_eval_enterprise.scoring.filters import list_format

HELM_TASK = (
    "Task: Extract key performance indicators (KPIs) and values from the above text. Also, specify one "
    "of the following categories to each of the extracted KPIs and values in brackets.\n" + TAG_DESCRIPTIONS
)
# t1: HELM's task text once, before the shots, instead of inside every item (20 × ~90 tokens)
HELM_TASK_ONCE = HELM_TASK.replace("from the above text", "from each context below")
TAG_LIST = (
    "kpi (a key performance indicator expressible in numerical and monetary value), cy (its current year "
    "monetary value), py (its prior year monetary value), py1 (its value two years back)"
)
TAGGED = list_format(r"[^\[\]\n]+ \[(kpi|cy|py|py1)\]")  # phrase [tag], phrase [tag], ...

TEMPLATES = [
    Template(
        "t1",
        description=HELM_TASK_ONCE + "\n\n",
        doc_to_text="Context: {{text}}\nAnswer:",
        regex=TAGGED,
        axes=("helm",),
        note="HELM's wording, its task text stated once as the instruction (HELM repeats it in every item).",
    ),
    Template(
        "t2",
        description="Extract the key performance indicators (KPIs) and their values from the sentence of an "
        f"annual report. Tag each extracted phrase with one of: {TAG_LIST}. Answer with a "
        'comma-separated list of "phrase [tag]".\n\n',
        doc_to_text="Sentence: {{text}}\nEntities:",
        regex=TAGGED,
        axes=("instruction_block", "field_labels", "answer_format"),
    ),
    Template(
        "t3",
        description="Find every financial KPI and every monetary value mentioned in the text below. Write each "
        "one followed by its category in square brackets: [kpi] for an indicator, [cy] for a "
        "current-year value, [py] for a prior-year value, [py1] for a value from two years "
        "earlier. Separate the items with commas.\n\n",
        doc_to_text="Text: {{text}}\nKPIs and values:",
        regex=TAGGED,
        axes=("instruction_wording", "field_labels"),
    ),
    Template(
        "t4",
        description="You are a financial analyst reading 10-K filings. Label the KPIs and the monetary values "
        f"of each passage. Categories: {TAG_LIST}.\nOutput format: phrase [category], phrase "
        "[category], ...\n\n",
        doc_to_text="Input: {{text}}\nOutput:",
        regex=TAGGED,
        axes=("persona", "field_labels", "answer_format"),
    ),
    Template(
        "t5",
        description="Named entity recognition for financial statements. Entity types: kpi, cy (current year), "
        "py (prior year), py1 (two years before). Give the entities in the order they appear, e.g. "
        '"revenue [kpi], 1.2 [cy], 0.9 [py]".\n\n',
        doc_to_text="Q: {{text}}\nA:",
        regex=TAGGED,
        axes=("instruction_wording", "field_labels", "example"),
    ),
]

TASKS = DatasetTasks(
    source=KpiEdgar,
    primary_metric="adjusted_macro_f1",
    templates=TEMPLATES,
    num_fewshot=20,
    max_gen_toks=100,
    until=("\n",),
    doc_to_target="{{target}}",
    extra_metadata={"metric_orientation": "ibm", "source_commit": "2ec7084dcd55b4979bbe288d4aa1e962c685c9ab"},
)
