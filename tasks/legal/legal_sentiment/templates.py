"""Instruction templates of legal_sentiment (t1 = HELM ``legal_opinion_sentiment_classification``).

5 [BAL] shots from train.xlsx, greedy, at most 5 new tokens, stop at the first newline. Every template keeps the
label set positive / neutral / negative and reads the answer with the same [PARSE] rule; each ``regex`` is only
the exact format the template asks for (``format_adherence``). t1 (HELM's prompt) also reports HELM's rule (the
whole normalised completion is a label) as ``weighted_f1_helm``.
"""

from lm_eval_enterprise.tasks.legal.legal_sentiment.source import LABELS, LegalSentiment

from lm_eval_enterprise.prompting.templating import DatasetTasks, Template
from lm_eval_enterprise.scoring.filters import label_format

LABEL = label_format(LABELS)  # the bare label

TEMPLATES = [
    Template(
        "t1",
        description="Classify the sentences into one of the 3 sentiment categories. Possible labels: positive, "
        "neutral, negative.\n\n",
        doc_to_text="{{text}}\nLabel:",
        regex=LABEL,
        axes=("helm",),
        note="HELM prompt: no input noun, output noun Label.",
    ),
    Template(
        "t2",
        description="Read each sentence taken from a court opinion and state the sentiment it expresses. "
        "Reply with positive, neutral or negative.\n\n",
        doc_to_text="Sentence: {{text}}\nSentiment:",
        regex=LABEL,
        axes=("instruction_wording", "field_labels"),
    ),
    Template(
        "t3",
        description="Decide whether the judge's statement below is positive, negative or neutral in tone "
        "towards the party or argument it discusses.\n\n",
        doc_to_text="Statement: {{text}}\nTone:",
        regex=LABEL,
        axes=("instruction_wording", "field_labels"),
    ),
    Template(
        "t4",
        description="Task: sentiment annotation of legal opinion text.\nLabels: positive, neutral, negative.\n"
        "Output format: exactly one label from the list, in lower case.\n\n",
        doc_to_text="Input: {{text}}\nOutput:",
        regex=label_format(LABELS, exact_case=True),  # "in lower case"
        axes=("instruction_wording", "field_labels", "answer_format"),
    ),
    Template(
        "t5",
        description="You are a legal analyst reviewing appellate opinions. For each excerpt, answer with a "
        "single word: positive, neutral or negative.\n\n",
        doc_to_text="Excerpt: {{text}}\nQuestion: What is the sentiment of this excerpt?\nAnswer:",
        regex=LABEL,
        axes=("persona", "field_labels", "question_format"),
    ),
]

TASKS = DatasetTasks(
    source=LegalSentiment,
    primary_metric="weighted_f1",
    templates=TEMPLATES,
    num_fewshot=5,
    max_gen_toks=5,
    until=("\n",),
)
