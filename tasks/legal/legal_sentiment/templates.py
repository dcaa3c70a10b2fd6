"""Instruction templates of legal_sentiment (t1 = HELM ``legal_opinion_sentiment_classification``).

5 [BAL] shots from train.xlsx, greedy, at most 5 new tokens, stop at the first newline. t1 compares the full
stripped completion with the labels ([WF1]); the variants ask for one word and take the first label word.
Every template keeps the label set positive / neutral / negative.
"""
from lm_eval_enterprise.templating import DatasetTasks, Template

FIRST_WORD = r"(?i)^\W*(positive|neutral|negative)\b"

TEMPLATES = [
    Template("t1",
             description="Classify the sentences into one of the 3 sentiment categories. Possible labels: positive, "
                         "neutral, negative.\n\n",
             doc_to_text="{{text}}\nLabel:",
             regex=r"(?s)^(.*)$",  # [WF1]: the full completion must be the label
             axes=("helm",), note="HELM prompt: no input noun, output noun Label; full completion compared."),
    Template("t2",
             description="Read each sentence taken from a court opinion and state the sentiment it expresses. "
                         "Reply with positive, neutral or negative.\n\n",
             doc_to_text="Sentence: {{text}}\nSentiment:",
             regex=FIRST_WORD, axes=("instruction_wording", "field_labels")),
    Template("t3",
             description="Decide whether the judge's statement below is positive, negative or neutral in tone "
                         "towards the party or argument it discusses.\n\n",
             doc_to_text="Statement: {{text}}\nTone:",
             regex=FIRST_WORD, axes=("instruction_wording", "field_labels")),
    Template("t4",
             description="Task: sentiment annotation of legal opinion text.\nLabels: positive, neutral, negative.\n"
                         "Output format: exactly one label from the list, in lower case.\n\n",
             doc_to_text="Input: {{text}}\nOutput:",
             regex=r"(?i)\b(positive|neutral|negative)\b",
             axes=("instruction_wording", "field_labels", "answer_format")),
    Template("t5",
             description="You are a legal analyst reviewing appellate opinions. For each excerpt, answer with a "
                         "single word: positive, neutral or negative.\n\n",
             doc_to_text="Excerpt: {{text}}\nQuestion: What is the sentiment of this excerpt?\nAnswer:",
             regex=FIRST_WORD, axes=("persona", "field_labels", "question_format")),
]

TASKS = DatasetTasks(
    dataset="legal_sentiment", domain="legal", family="classification_weighted", primary_metric="weighted_f1",
    templates=TEMPLATES, num_fewshot=5, max_gen_toks=5, until=("\n",), verbalise=True,
)
