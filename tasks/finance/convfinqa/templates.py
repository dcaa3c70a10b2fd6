"""Instruction templates of convfinqa (t1 = HELM ``conv_fin_qa_calc``).

The context (table, text facts, earlier turns with their gold answers, final question) is built by the loader
and is the same for every template; templates vary the instruction, the output label and the answer-format
instruction. Every template reads the answer with the same [PARSE] rule: the whole completion is scored by [FEQ]
(its first number, as HELM scores), a format failure iff it holds no number and no word yes/no (the other gold
form). Each ``regex`` is only the exact format the template asks for (``format_adherence``): t3 a plain decimal
number, t2/t4/t5 one number (sign, ``$``, thousands commas and ``%`` allowed), t1 the answer alone (such a number
or yes/no).
"""

from lm_eval_enterprise.tasks.finance.convfinqa.source import ConvFinQA

from lm_eval_enterprise.prompting.templating import DatasetTasks, Template

_NUM = r"[-+]?\$?(([0-9]+|[0-9]{1,3}(,[0-9]{3})+)(\.[0-9]+)?|\.[0-9]+)%?"
NUMBER = f" ?({_NUM})"  # one number, as written in a report
ANSWER = f" ?({_NUM}|[Yy]es|[Nn]o)"  # the answer alone: such a number or yes/no
PLAIN_NUMBER = r" ?-?([0-9]+(\.[0-9]+)?|\.[0-9]+)"  # no units, %, currency or thousands separators

TEMPLATES = [
    Template(
        "t1",
        description="Based on the table, answer the final question. Respond with the answer only, with no "
        "additional explanation.\n\n",
        doc_to_text="{{context}}\nAnswer:",
        regex=ANSWER,
        axes=("helm",),
        note="HELM prompt (no input noun, output noun Answer).",
    ),
    Template(
        "t2",
        description="Use the financial table and text to answer the last question of the conversation. "
        "Give only the final number.\n\n",
        doc_to_text="{{context}}\nFinal answer:",
        regex=NUMBER,
        axes=("instruction_wording", "field_labels"),
    ),
    Template(
        "t3",
        description="Answer the final question about the financial report below. Write the result as a "
        "plain decimal number: no units, no % sign, no currency symbols and no thousands "
        "separators.\n\n",
        doc_to_text="{{context}}\nResult:",
        regex=PLAIN_NUMBER,
        axes=("instruction_wording", "field_labels", "answer_format"),
    ),
    Template(
        "t4",
        description="You are a financial analyst. Read the table and the notes, follow the conversation and "
        "compute the answer to its last question. Reply with the number only.\n\n",
        doc_to_text="{{context}}\nAnalyst answer:",
        regex=NUMBER,
        axes=("persona", "field_labels"),
    ),
    Template(
        "t5",
        description="Task: numerical question answering over a financial document.\nInput: a table, "
        "supporting text and a dialogue.\nOutput: the answer to the final question of the "
        "dialogue, as a single number on one line.\n\n",
        doc_to_text="{{context}}\nOutput:",
        regex=NUMBER,
        axes=("instruction_wording", "field_labels", "answer_format"),
    ),
]

TASKS = DatasetTasks(
    source=ConvFinQA,
    primary_metric="accuracy",
    templates=TEMPLATES,
    num_fewshot=1,
    doc_to_target="{{answer}}",
    until=("\n",),
    max_gen_toks=10,
    test_split="valid",
    # a prompt over the context budget cuts the Table/Text block of the eval context, never its dialogue
    truncate_fn="lm_eval_enterprise.tasks.finance.convfinqa.source.truncate_shot_context",
    extra_metadata={"eval_split": "dev_turn.json", "fewshot_truncation_words": 512},
)
