"""Instruction templates of securenlp (t1 = our reference prompt, docs/conventions.md#reference-template; the paper
gives none, HELM has no scenario).

Label set ``relevant`` / ``irrelevant``. Every template reads the answer with the same [PARSE] rule; each
``regex`` is only the exact format the template asks for (``format_adherence``). "irrelevant" contains "relevant":
the rule reads whole words and tries the longest label first, never a substring.
"""

from lm_eval_enterprise.tasks.cyber.securenlp.source import LABELS, SecureNLP

from lm_eval_enterprise.prompting.templating import DatasetTasks, Template
from lm_eval_enterprise.scoring.filters import label_format

LABEL = label_format(LABELS)  # the bare label
STARTS = label_format(LABELS, start=True)  # the answer starts with the label

TEMPLATES = [
    Template(
        "t1",
        description="Is the following sentence from a malware report relevant to the actions or capabilities "
        'of malware? Answer only "relevant" or "irrelevant".\n\n',
        doc_to_text="Sentence: {{text}}\nAnswer:",
        regex=LABEL,
        axes=("spec",),
        note="Our reference prompt.",
    ),
    Template(
        "t2",
        description="Decide whether each sentence of a cyber threat report describes what the malware does "
        "or can do (relevant) or not (irrelevant).\n\n",
        doc_to_text="Text: {{text}}\nLabel:",
        regex=LABEL,
        axes=("instruction_wording", "field_labels"),
    ),
    Template(
        "t3",
        description="You are a malware analyst triaging report sentences. Mark a sentence relevant if it "
        "mentions a malware action, capability or the entities involved, otherwise irrelevant. "
        "Start your reply with the label.\n\n",
        doc_to_text="Report sentence: {{text}}\nVerdict:",
        regex=STARTS,
        axes=("persona", "field_labels"),
    ),
    Template(
        "t4",
        description="Task: sentence relevance for malware text analysis (SemEval-2018 Task 8, subtask 1).\n"
        "Labels: relevant, irrelevant.\nOutput format: one label.\n\n",
        doc_to_text="Input: {{text}}\nOutput:",
        regex=LABEL,
        axes=("task_card", "field_labels", "answer_format"),
    ),
    Template(
        "t5",
        doc_to_text="{{text}}\nQuestion: Is this sentence relevant or irrelevant to the behaviour of malware?\nAnswer:",
        regex=LABEL,
        axes=("no_instruction", "question_format"),
    ),
]

TASKS = DatasetTasks(
    source=SecureNLP,
    primary_metric="binary_f1",
    templates=TEMPLATES,
    num_fewshot=5,
    max_gen_toks=5,
    until=("\n",),
    extra_metadata={"positive_label": "relevant"},
)
