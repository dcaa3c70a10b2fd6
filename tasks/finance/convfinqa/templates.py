"""Instruction templates of convfinqa (t1 = HELM ``conv_fin_qa_calc``).

The context (table, text facts, earlier turns with their gold answers, final question) is built by the loader
and is the same for every template; templates vary the instruction, the output label and the answer-format
instruction. Scoring is [FEQ] on the first number, so a regex only decides what counts as a format failure and
hands [FEQ] a text whose first number is the completion's first number: a completion with no number (and no yes/no
word, the other gold form) is a failure everywhere; t3, which asks for a bare number, also fails a completion that
does not start with one.
"""
from lm_eval_enterprise.templating import DatasetTasks, Template

NUMBER = r"[-+]?(?:\d*\.\d+|\d+\.?)(?:[Ee][+-]?\d+)?"  # the [FEQ] number pattern
# t1 (HELM): the whole completion, when it holds a digit or a yes/no word; [FEQ] then reads its first number,
# exactly what HELM scores.
WHOLE_WITH_ANSWER = r"(?is)^(.*?(?:\d|\byes\b|\bno\b).*)$"
# The first number of the completion (the same number [FEQ] would read from the whole text), or, when the
# completion has no digit at all, its first yes/no word (the other gold form; it scores 0 under [FEQ]).
FIRST_ANSWER = rf"(?is)^.*?({NUMBER}|\b(?:yes|no)\b(?!.*\d))"
# t3 asks for a plain number: the completion must start with it (a leading "$" or words are format failures).
LEADING_ANSWER = rf"(?i)^({NUMBER}|(?:yes|no)\b)"

TEMPLATES = [
    Template("t1",
             description="Based on the table, answer the final question. Respond with the answer only, with no "
                         "additional explanation.\n\n",
             doc_to_text="{{context}}\nAnswer:",
             regex=WHOLE_WITH_ANSWER, axes=("helm",),
             note="HELM prompt (no input noun, output noun Answer); the whole completion goes to [FEQ]."),
    Template("t2",
             description="Use the financial table and text to answer the last question of the conversation. "
                         "Give only the final number.\n\n",
             doc_to_text="{{context}}\nFinal answer:",
             regex=FIRST_ANSWER, axes=("instruction_wording", "field_labels")),
    Template("t3",
             description="Answer the final question about the financial report below. Write the result as a "
                         "plain decimal number: no units, no % sign, no currency symbols and no thousands "
                         "separators.\n\n",
             doc_to_text="{{context}}\nResult:",
             regex=LEADING_ANSWER, axes=("instruction_wording", "field_labels", "answer_format")),
    Template("t4",
             description="You are a financial analyst. Read the table and the notes, follow the conversation and "
                         "compute the answer to its last question. Reply with the number only.\n\n",
             doc_to_text="{{context}}\nAnalyst answer:",
             regex=FIRST_ANSWER, axes=("persona", "field_labels")),
    Template("t5",
             description="Task: numerical question answering over a financial document.\nInput: a table, "
                         "supporting text and a dialogue.\nOutput: the answer to the final question of the "
                         "dialogue, as a single number on one line.\n\n",
             doc_to_text="{{context}}\nOutput:",
             regex=FIRST_ANSWER, axes=("instruction_wording", "field_labels", "answer_format")),
]

TASKS = DatasetTasks(
    dataset="convfinqa", domain="finance", family="numeric", primary_metric="accuracy",
    templates=TEMPLATES, num_fewshot=1, doc_to_target="{{answer}}", until=("\n",), max_gen_toks=10,
    test_split="valid",
    # a prompt over the context budget cuts the Table/Text block of the eval context, never its dialogue
    truncate_fn="lm_eval_enterprise.tasks.finance.convfinqa.source.truncate_shot_context",
    extra_metadata={"eval_split": "dev_turn.json", "fewshot_truncation_words": 512},
)
