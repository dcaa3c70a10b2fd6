"""Instruction templates of wildfire_tweets (t1 = our reference prompt, docs/conventions.md#reference-template).
**Provisional** dataset.

Every template shows the tweet and keeps the label set favor/against (verbalised as written); only wording, field
labels and answer instructions change. Every template reads the answer with the same [PARSE] rule; each ``regex``
is only the exact format the template asks for (``format_adherence``).
"""

from lm_eval_enterprise.tasks.climate.wildfire_tweets.source import LABELS, WildfireTweets

from lm_eval_enterprise.prompting.templating import DatasetTasks, Template
from lm_eval_enterprise.scoring.filters import label_format

LABEL = label_format(LABELS)  # the bare label
STARTS = label_format(LABELS, start=True)  # the answer starts with the label

TEMPLATES = [
    Template(
        "t1",
        description="Does the following tweet about wildfires express a stance in favor of or against the "
        'view that climate change is involved? Answer only "favor" or "against".\n\n',
        doc_to_text="Tweet: {{text}}\nAnswer:",
        regex=LABEL,
        axes=("spec",),
        note="Our reference prompt.",
    ),
    Template(
        "t2",
        description="Stance detection. Does this tweet support (favor) or reject (against) the idea that "
        "climate change plays a role in wildfires? Reply with favor or against.\n\n",
        doc_to_text="Text: {{text}}\nStance:",
        regex=LABEL,
        axes=("instruction_wording", "field_labels"),
    ),
    Template(
        "t3",
        description="Read the tweet about a wildfire. If it links the fire to climate change, answer favor; "
        "if it disputes that link, answer against.\n\n",
        doc_to_text="Tweet text: {{text}}\nLabel:",
        regex=LABEL,
        axes=("instruction_wording", "field_labels", "answer_format"),
    ),
    Template(
        "t4",
        description='Task: stance of wildfire tweets towards "climate change is involved".\n'
        "Labels: favor, against.\nOutput format: exactly one label from the list.\n\n",
        doc_to_text="Input: {{text}}\nOutput:",
        regex=LABEL,
        axes=("instruction_wording", "field_labels", "answer_format"),
    ),
    Template(
        "t5",
        description="You are a climate communication researcher coding tweets. Start your answer with favor "
        "or against.\n\n",
        doc_to_text="Q: Is this tweet in favor of or against the view that climate change is behind "
        "wildfires?\n{{text}}\nA:",
        regex=STARTS,
        axes=("persona", "field_labels", "question_format"),
    ),
]

TASKS = DatasetTasks(
    source=WildfireTweets,
    primary_metric="weighted_f1",
    templates=TEMPLATES,
    num_fewshot=5,
    max_gen_toks=5,
    until=("\n",),
    extra_metadata={
        "provisional": True,
        "provisional_reason": "HF rubrix/wildfire_tweets has < 100 eval rows, contradicting the "
        "paper's inclusion rule: probably not the paper's exact source",
    },
)
