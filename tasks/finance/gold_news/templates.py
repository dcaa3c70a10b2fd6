"""Instruction templates of gold_news (t1 = HELM; t2 = BloombergGPT-style question, as the paper describes).

One task per template asks all nine questions of each headline (documents = headline × question); ``{{fragment}}``
is the document's question wording (``source.CATEGORIES``), so each (headline, question) gets the prompt the question
alone gives. All templates keep the label set Yes/No.
Every template reads the answer with the same [PARSE] rule; each ``regex`` is only the exact format the template
asks for (``format_adherence``). t1 (HELM's prompt) also reports HELM's rule (the whole normalised completion is
a label) as ``weighted_f1_helm``.
"""

from lm_eval_enterprise.tasks.finance.gold_news.source import CATEGORIES, GoldNews

from lm_eval_enterprise.prompting.templating import DatasetTasks, Template
from lm_eval_enterprise.scoring.filters import label_format

LABEL = label_format(GoldNews.labels)  # the bare label
STARTS = label_format(GoldNews.labels, start=True)  # the answer starts with the label

TEMPLATES = [
    Template(
        "t1",
        description="The following are news headlines about the gold commodity. Classify whether the news "
        'headline discusses {{fragment}}. Answer only "Yes" or "No".\n\n',
        doc_to_text="Headline: {{text}}\nAnswer:",
        regex=LABEL,
        axes=("helm",),
        note="HELM prompt.",
    ),
    Template(
        "t2",
        doc_to_text="{{text}}\nQuestion: Does the news headline talk about {{fragment}}?\nAnswer:",
        regex=LABEL,
        axes=("no_instruction", "question_format"),
        note="BloombergGPT-style: headline, then a yes/no question; no instruction block.",
    ),
    Template(
        "t3",
        description="Read the gold market headline below and decide whether it mentions {{fragment}}. "
        "Reply with Yes or No.\n\n",
        doc_to_text="News: {{text}}\nLabel:",
        regex=LABEL,
        axes=("instruction_wording", "field_labels"),
    ),
    Template(
        "t4",
        description="Task: binary classification of commodity news.\nQuestion: does the headline refer "
        "to {{fragment}}?\nOutput format: a single word, Yes or No.\n\n",
        doc_to_text="Input: {{text}}\nOutput:",
        regex=LABEL,
        axes=("instruction_wording", "field_labels", "answer_format"),
    ),
    Template(
        "t5",
        description="You are a financial analyst tagging gold news. For each headline, say whether it is "
        "about {{fragment}}. Start your answer with Yes or No.\n\n",
        doc_to_text="Q: {{text}}\nA:",
        regex=STARTS,
        axes=("persona", "field_labels"),
    ),
]

TASKS = DatasetTasks(
    source=GoldNews,
    primary_metric="weighted_f1",
    templates=TEMPLATES,
    num_fewshot=5,
    max_gen_toks=5,
    until=("\n",),
    questions=tuple(CATEGORIES),
)
