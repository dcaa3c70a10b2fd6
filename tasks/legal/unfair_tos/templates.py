"""Instruction templates of unfair_tos (t1 = the LegalBench-style prompt of DATASETS.md).

Every template shows the clause and keeps the 9 labels (8 unfair-term types + Other) and the target (the label
name); they differ in instruction wording, field labels and answer-format instructions.
"""
from lm_eval_enterprise.templating import DatasetTasks, Template

OPTIONS = ("Arbitration, Unilateral change, Content removal, Jurisdiction, Choice of law, Limitation of liability, "
           "Unilateral termination, Contract by using, Other")
_ALT = ("arbitration|unilateral change|content removal|jurisdiction|choice of law|limitation of liability|"
        "unilateral termination|contract by using|other")
FIRST_LABEL = rf"(?i)^\W*({_ALT})\b"           # the answer starts with a label
ANY_LABEL = rf"(?i)\b({_ALT})\b"               # the first label named anywhere in the answer line

TEMPLATES = [
    Template("t1",
             description="Classify the clause from a terms-of-service document by the type of unfair term it "
                         f"contains. Options: {OPTIONS}.\n\n",
             doc_to_text="Clause: {{text}}\nLabel:",
             regex=r"(?s)^(.*)$",  # [WF1]: the full completion must be the label
             axes=("paper",), note="DATASETS.md template 1 (LegalBench style); full completion compared."),
    Template("t2",
             description="Read the terms-of-service clause and name the kind of potentially unfair term it is. "
                         f"Answer with exactly one of: {OPTIONS}.\n\n",
             doc_to_text="Terms-of-service clause: {{text}}\nType of term:",
             regex=FIRST_LABEL, axes=("instruction_wording", "field_labels")),
    Template("t3",
             description="Consumer-protection review. Decide which category describes the following sentence from "
                         "an online service's terms of service. If it is not one of the unfair-term categories, "
                         f"answer Other. Categories: {OPTIONS}.\n\n",
             doc_to_text="Sentence: {{text}}\nCategory:",
             regex=FIRST_LABEL, axes=("instruction_wording", "field_labels")),
    Template("t4",
             description="Task: unfair clause detection in terms of service (UNFAIR-ToS).\n"
                         f"Labels: {OPTIONS}.\n"
                         "Output format: the label only, spelled as in the list.\n\n",
             doc_to_text="Input: {{text}}\nOutput:",
             regex=ANY_LABEL, axes=("instruction_wording", "field_labels", "answer_format")),
    Template("t5",
             description="You are a lawyer auditing the terms of service of a web platform for terms that may be "
                         "unfair to consumers. For each clause, say which type of term it is. Start your answer "
                         f"with one of: {OPTIONS}.\n\n",
             doc_to_text="Q: Which type of term is this clause?\n{{text}}\nA:",
             regex=FIRST_LABEL, axes=("persona", "field_labels", "question_format")),
]

TASKS = DatasetTasks(
    dataset="unfair_tos", domain="legal", family="classification_weighted", primary_metric="weighted_f1",
    templates=TEMPLATES, num_fewshot=5, max_gen_toks=10, until=("\n",), verbalise=True,
)
