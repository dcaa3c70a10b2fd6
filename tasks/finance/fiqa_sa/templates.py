"""Instruction templates of fiqa_sa (t1 = the paper's BloombergGPT-style prompt; the reference prompt,
docs/conventions.md#reference-template).

Every template shows the sentence and the target entity and keeps the label set positive/neutral/negative.
Every template reads the answer with the same [PARSE] rule; each ``regex`` is only the exact format the template
asks for (``format_adherence``).
"""

from lm_eval_enterprise.tasks.finance.fiqa_sa.source import LABELS, FiqaSA

from lm_eval_enterprise.prompting.templating import DatasetTasks, Template
from lm_eval_enterprise.scoring.filters import label_format

LABEL = label_format(LABELS)  # the bare label
STARTS = label_format(LABELS, start=True)  # the answer starts with the label

TEMPLATES = [
    Template(
        "t1",
        description="Answer with one of: positive, neutral, negative.\n\n",
        doc_to_text="{{text}}\nQuestion: what is the sentiment on {{target}}?\nAnswer:",
        regex=LABEL,
        axes=("paper",),
        note="BloombergGPT-style prompt of the paper.",
    ),
    Template(
        "t2",
        description="Classify the sentiment the financial text expresses towards the given target. "
        "Reply with positive, neutral or negative.\n\n",
        doc_to_text="Text: {{text}}\nTarget: {{target}}\nSentiment:",
        regex=LABEL,
        axes=("instruction_wording", "field_labels"),
    ),
    Template(
        "t3",
        description="Decide whether the following financial headline or microblog post is positive, neutral "
        "or negative about the company or asset it names.\n\n",
        doc_to_text="Post: {{text}}\nAbout: {{target}}\nAnswer:",
        regex=LABEL,
        axes=("instruction_wording", "field_labels"),
    ),
    Template(
        "t4",
        description="Task: aspect-based financial sentiment analysis.\nLabels: positive, neutral, negative.\n"
        "Output format: exactly one label from the list.\n\n",
        doc_to_text="Input: {{text}}\nEntity: {{target}}\nOutput:",
        regex=LABEL,
        axes=("instruction_wording", "field_labels", "answer_format"),
    ),
    Template(
        "t5",
        description="You are a financial analyst monitoring news and social media. For each message, say how "
        "it reflects on the given entity. Start your answer with positive, neutral or negative.\n\n",
        doc_to_text="Q: {{text}}\nHow is {{target}} portrayed?\nA:",
        regex=STARTS,
        axes=("persona", "field_labels", "question_format"),
    ),
]

TASKS = DatasetTasks(
    source=FiqaSA,
    primary_metric="weighted_f1",
    templates=TEMPLATES,
    num_fewshot=5,
    max_gen_toks=5,
    until=("\n",),
)
