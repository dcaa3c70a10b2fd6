"""Instruction templates of spec5g_sum (t1 = our reference prompt, docs/conventions.md#reference-template).

0 shots, greedy, at most 128 new tokens, stop at a blank line. Every template reads the answer the same way ([PARSE]): the whole stripped completion is scored, a format
failure (scored 0) iff it holds no letter or digit. Each ``regex`` is only the exact format asked for
(``format_adherence``): any text, one line for t3
(sentence counts are not checked).
"""

from lm_eval_enterprise.tasks.cyber.spec5g_sum.source import Spec5GSum

from lm_eval_enterprise.prompting.templating import DatasetTasks, Template
from lm_eval_enterprise.scoring.filters import LINE_FORMAT, TEXT_FORMAT

TEMPLATES = [
    Template(
        "t1",
        description="Summarize the following text from a 5G protocol specification in plain language.\n\n",
        doc_to_text="Text: {{document}}\nSummary:",
        regex=TEXT_FORMAT,
        axes=("spec",),
        note="Our reference prompt: input noun Text, output noun Summary.",
    ),
    Template(
        "t2",
        description="Rewrite this 3GPP specification paragraph so that a reader without telecom training "
        "can understand it.\n\n",
        doc_to_text="Paragraph: {{document}}\nSimplified version:",
        regex=TEXT_FORMAT,
        axes=("instruction_wording", "field_labels"),
    ),
    Template(
        "t3",
        description="Explain in one or two simple sentences what the following 5G standard text says. "
        "Write on a single line.\n\n",
        doc_to_text="Specification: {{document}}\nExplanation:",
        regex=LINE_FORMAT,
        axes=("instruction_wording", "field_labels", "answer_format"),
    ),
    Template(
        "t4",
        doc_to_text="5G specification text: {{document}}\nIn plain language, this means:",
        regex=TEXT_FORMAT,
        axes=("no_instruction", "field_labels"),
    ),
    Template(
        "t5",
        description="You are a network engineer explaining mobile standards to a newcomer. Summarize the text "
        "below in plain language, in at most three sentences.\n\n",
        doc_to_text="Text: {{document}}\nPlain summary:",
        regex=TEXT_FORMAT,
        axes=("persona", "field_labels", "answer_format"),
    ),
]

TASKS = DatasetTasks(
    source=Spec5GSum,
    primary_metric="rouge_l",
    templates=TEMPLATES,
    num_fewshot=0,
    doc_to_target="{{summary}}",
    until=("\n\n",),
    max_gen_toks=128,
)
