"""Instruction templates of unfair_tos (t1 = our LegalBench-style prompt; the reference prompt,
docs/conventions.md#reference-template).

Every template shows the clause and keeps the 9 labels (8 unfair-term types + Other) and the target (the label
name); they differ in instruction wording, field labels and answer-format instructions. Every template reads the
answer with the same [PARSE] rule; each ``regex`` is only the exact format the template asks for
(``format_adherence``).
"""

from lm_eval_enterprise.tasks.legal.unfair_tos.source import LABELS, UnfairTos

from lm_eval_enterprise.prompting.templating import DatasetTasks, Template
from lm_eval_enterprise.scoring.filters import label_format

OPTIONS = ", ".join(LABELS)  # "Arbitration, Unilateral change, …, Contract by using, Other"
LABEL = label_format(LABELS)  # the bare label
STARTS = label_format(LABELS, start=True)  # the answer starts with a label

TEMPLATES = [
    Template(
        "t1",
        description="Classify the clause from a terms-of-service document by the type of unfair term it "
        f"contains. Options: {OPTIONS}.\n\n",
        doc_to_text="Clause: {{text}}\nLabel:",
        regex=LABEL,
        axes=("paper",),
        note="Our reference prompt (LegalBench style).",
    ),
    Template(
        "t2",
        description="Read the terms-of-service clause and name the kind of potentially unfair term it is. "
        f"Answer with exactly one of: {OPTIONS}.\n\n",
        doc_to_text="Terms-of-service clause: {{text}}\nType of term:",
        regex=LABEL,
        axes=("instruction_wording", "field_labels"),
    ),
    Template(
        "t3",
        description="Consumer-protection review. Decide which category describes the following sentence from "
        "an online service's terms of service. If it is not one of the unfair-term categories, "
        f"answer Other. Categories: {OPTIONS}.\n\n",
        doc_to_text="Sentence: {{text}}\nCategory:",
        regex=LABEL,
        axes=("instruction_wording", "field_labels"),
    ),
    Template(
        "t4",
        description="Task: unfair clause detection in terms of service (UNFAIR-ToS).\n"
        f"Labels: {OPTIONS}.\n"
        "Output format: the label only, spelled as in the list.\n\n",
        doc_to_text="Input: {{text}}\nOutput:",
        regex=label_format(LABELS, exact_case=True),
        axes=("instruction_wording", "field_labels", "answer_format"),
    ),
    Template(
        "t5",
        description="You are a lawyer auditing the terms of service of a web platform for terms that may be "
        "unfair to consumers. For each clause, say which type of term it is. Start your answer "
        f"with one of: {OPTIONS}.\n\n",
        doc_to_text="Q: Which type of term is this clause?\n{{text}}\nA:",
        regex=STARTS,
        axes=("persona", "field_labels", "question_format"),
    ),
]

TASKS = DatasetTasks(
    source=UnfairTos,
    primary_metric="weighted_f1",
    templates=TEMPLATES,
    num_fewshot=5,
    max_gen_toks=10,
    until=("\n",),
)
