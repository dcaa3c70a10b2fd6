"""Instruction templates of gold_news (t1 = HELM; t2 = BloombergGPT-style question, as the paper describes).

``$fragment`` is the subtask's dimension (see source.CATEGORIES). All templates keep the label set Yes/No.
"""
from lm_eval_enterprise.templating import DatasetTasks, Template

from .source import CATEGORIES

YES_NO_FIRST_WORD = r"(?i)^\W*(yes|no)\b"

TEMPLATES = [
    Template("t1",
             description='The following are news headlines about the gold commodity. Classify whether the news '
                         'headline discusses $fragment. Answer only "Yes" or "No".\n\n',
             doc_to_text="Headline: {{text}}\nAnswer:",
             regex=r"(?s)^(.*)$",  # HELM: the whole completion must be the label
             axes=("helm",), note="HELM prompt; the full completion is compared with the labels."),
    Template("t2",
             doc_to_text="{{text}}\nQuestion: Does the news headline talk about $fragment?\nAnswer:",
             regex=YES_NO_FIRST_WORD, axes=("no_instruction", "question_format"),
             note="BloombergGPT-style: headline, then a yes/no question; no instruction block."),
    Template("t3",
             description="Read the gold market headline below and decide whether it mentions $fragment. "
                         "Reply with Yes or No.\n\n",
             doc_to_text="News: {{text}}\nLabel:",
             regex=YES_NO_FIRST_WORD, axes=("instruction_wording", "field_labels")),
    Template("t4",
             description="Task: binary classification of commodity news.\nQuestion: does the headline refer "
                         "to $fragment?\nOutput format: a single word, Yes or No.\n\n",
             doc_to_text="Input: {{text}}\nOutput:",
             regex=r"(?i)\b(yes|no)\b", axes=("instruction_wording", "field_labels", "answer_format")),
    Template("t5",
             description="You are a financial analyst tagging gold news. For each headline, say whether it is "
                         "about $fragment. Start your answer with Yes or No.\n\n",
             doc_to_text="Q: {{text}}\nA:",
             regex=YES_NO_FIRST_WORD, axes=("persona", "field_labels")),
]

TASKS = DatasetTasks(
    dataset="gold_news", domain="finance", family="classification_weighted", primary_metric="weighted_f1",
    templates=TEMPLATES, num_fewshot=5, max_gen_toks=5, until=("\n",), verbalise=True,
    subtasks={name: {"fragment": fragment} for name, (_, fragment) in CATEGORIES.items()},
)
