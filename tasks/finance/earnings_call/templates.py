"""Instruction templates of earnings_call (t1 = our reference prompt, docs/conventions.md#reference-template; no prompt
exists upstream).

All templates keep the label set positive/negative and the target format (the bare label). Every template reads
the answer with the same [PARSE] rule; each ``regex`` is only the exact format the template asks for
(``format_adherence``).
"""

from lm_eval_enterprise.tasks.finance.earnings_call.source import LABELS, EarningsCall

from lm_eval_enterprise.prompting.templating import DatasetTasks, Template
from lm_eval_enterprise.scoring.filters import label_format

LABEL = label_format(LABELS)  # the bare label
STARTS = label_format(LABELS, start=True)  # the answer starts with the label

TEMPLATES = [
    Template(
        "t1",
        description="Classify the sentiment of the following paragraph from an earnings call transcript. "
        'Answer only "positive" or "negative".\n\n',
        doc_to_text="Passage: {{text}}\nAnswer:",
        regex=LABEL,
        axes=("spec",),
        note="Our reference prompt.",
    ),
    Template(
        "t2",
        doc_to_text="{{text}}\nQuestion: Is the sentiment of this earnings call paragraph positive or "
        "negative?\nAnswer:",
        regex=LABEL,
        axes=("no_instruction", "question_format"),
        note="BloombergGPT-style: paragraph, then a question; no instruction block.",
    ),
    Template(
        "t3",
        description="Read the excerpt from a company's quarterly earnings call below and decide whether its "
        "overall tone is positive or negative. Reply with one word.\n\n",
        doc_to_text="Excerpt: {{text}}\nSentiment:",
        regex=LABEL,
        axes=("instruction_wording", "field_labels"),
    ),
    Template(
        "t4",
        description="Task: binary sentiment classification of earnings call transcripts.\n"
        "Labels: positive, negative.\nOutput format: a single word from the label list.\n\n",
        doc_to_text="Input: {{text}}\nOutput:",
        regex=LABEL,
        axes=("instruction_wording", "field_labels", "answer_format"),
    ),
    Template(
        "t5",
        description="You are an equity analyst listening to an earnings call. For each paragraph, say whether "
        "management's message is positive or negative for the company. Start your answer with "
        "positive or negative.\n\n",
        doc_to_text="Q: {{text}}\nA:",
        regex=STARTS,
        axes=("persona", "field_labels"),
    ),
]

TASKS = DatasetTasks(
    source=EarningsCall,
    primary_metric="weighted_f1",
    templates=TEMPLATES,
    num_fewshot=5,
    max_gen_toks=5,
    until=("\n",),
)
