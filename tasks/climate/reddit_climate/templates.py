"""Instruction templates of reddit_climate (t1 = our reference prompt, docs/conventions.md#reference-template).

Every template shows the comment and keeps the label set positive/negative (verbalised as written); only wording,
field labels and answer instructions change. Every template reads the answer with the same [PARSE] rule; each
``regex`` is only the exact format the template asks for (``format_adherence``).
"""

from lm_eval_enterprise.tasks.climate.reddit_climate.source import LABELS, RECIPE, RedditClimate

from lm_eval_enterprise.prompting.templating import DatasetTasks, Template
from lm_eval_enterprise.scoring.filters import label_format

LABEL = label_format(LABELS)  # the bare label
STARTS = label_format(LABELS, start=True)  # the answer starts with the label

TEMPLATES = [
    Template(
        "t1",
        description="Classify the sentiment of the following Reddit comment about climate change. Answer "
        'only "positive" or "negative".\n\n',
        doc_to_text="Comment: {{text}}\nAnswer:",
        regex=LABEL,
        axes=("spec",),
        note="Our reference prompt.",
    ),
    Template(
        "t2",
        description="Is the tone of this Reddit comment on climate change positive or negative? Reply with "
        "one word.\n\n",
        doc_to_text="Reddit comment: {{text}}\nTone:",
        regex=LABEL,
        axes=("instruction_wording", "field_labels"),
    ),
    Template(
        "t3",
        description="Read the comment below, taken from a Reddit discussion that mentions climate change, "
        "and decide whether the author's overall sentiment is positive or negative.\n\n",
        doc_to_text="Post: {{text}}\nSentiment:",
        regex=LABEL,
        axes=("instruction_wording", "field_labels"),
    ),
    Template(
        "t4",
        description="Task: sentiment classification of social-media comments about climate change.\n"
        "Labels: positive, negative.\nOutput format: exactly one label from the list.\n\n",
        doc_to_text="Input: {{text}}\nOutput:",
        regex=LABEL,
        axes=("instruction_wording", "field_labels", "answer_format"),
    ),
    Template(
        "t5",
        description="You are a social-media analyst tracking public opinion on climate change. For each "
        "comment, start your answer with positive or negative.\n\n",
        doc_to_text="Q: What sentiment does this comment express?\n{{text}}\nA:",
        regex=STARTS,
        axes=("persona", "field_labels", "question_format"),
    ),
]

TASKS = DatasetTasks(
    source=RedditClimate,
    primary_metric="weighted_f1",
    templates=TEMPLATES,
    num_fewshot=5,
    max_gen_toks=5,
    until=("\n",),
    extra_metadata={"label_recipe": RECIPE},
)
