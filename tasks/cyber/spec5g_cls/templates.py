"""Instruction templates of spec5g_cls (t1 = our reference prompt, docs/conventions.md#reference-template).

All templates keep the three class names of ``source.LABEL_NAMES`` (one constant) and the target format (the bare
class name), and read the answer with the same [PARSE] rule; each ``regex`` is only the exact format the template
asks for (``format_adherence``). The class names are unverified (``LABEL_NAMES_NOTE``), so no template describes what
a class means beyond its name. ``not security related`` contains ``security related``: the rule reads from the
start of the answer and tries the longest name first, so one can never be read as the other.
"""

from lm_eval_enterprise.tasks.cyber.spec5g_cls.source import (
    LABEL_NAMES,
    LABEL_NAMES_NOTE,
    LABEL_NAMES_VERIFIED,
    Spec5GCls,
)

from lm_eval_enterprise.prompting.templating import DatasetTasks, Template
from lm_eval_enterprise.scoring.filters import label_format

NAMES = ", ".join(LABEL_NAMES.values())  # "not security related, security related, other"
LABEL = label_format(LABEL_NAMES.values())  # the bare class name
STARTS = label_format(LABEL_NAMES.values(), start=True)  # the answer starts with the class name

TEMPLATES = [
    Template(
        "t1",
        description=f"Classify the following sentence from a 5G protocol specification into one of: {NAMES}.\n\n",
        doc_to_text="Sentence: {{text}}\nLabel:",
        regex=LABEL,
        axes=("spec",),
        note="Our reference prompt.",
    ),
    Template(
        "t2",
        description="Which category does the following 3GPP specification sentence belong to? Reply with "
        f"exactly one of: {NAMES}.\n\n",
        doc_to_text="Text: {{text}}\nCategory:",
        regex=LABEL,
        axes=("instruction_wording", "field_labels"),
    ),
    Template(
        "t3",
        description=f"Task: 5G specification sentence classification.\nLabels: {NAMES}.\n"
        "Output format: the label only, copied exactly from the list.\n\n",
        doc_to_text="Input: {{text}}\nOutput:",
        regex=label_format(LABEL_NAMES.values(), exact_case=True),  # "copied exactly from the list"
        axes=("instruction_wording", "field_labels", "answer_format"),
    ),
    Template(
        "t4",
        description="You are a telecom security analyst reviewing 5G standards. Tag each sentence as "
        f"{NAMES}. Start your answer with the tag.\n\n",
        doc_to_text="Q: {{text}}\nA:",
        regex=STARTS,
        axes=("persona", "field_labels"),
    ),
    Template(
        "t5",
        doc_to_text="Sentence from a 5G protocol specification: {{text}}\n"
        f"Which category fits it best ({NAMES})?\nAnswer:",
        regex=LABEL,
        axes=("no_instruction", "question_format"),
    ),
]

TASKS = DatasetTasks(
    source=Spec5GCls,
    primary_metric="weighted_f1",
    templates=TEMPLATES,
    num_fewshot=5,
    max_gen_toks=8,
    until=("\n",),
    extra_metadata={"label_names_verified": LABEL_NAMES_VERIFIED, "label_names_note": LABEL_NAMES_NOTE},
)
