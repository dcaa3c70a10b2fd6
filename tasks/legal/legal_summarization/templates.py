"""Instruction templates of legal_summarization (t1 = HELM ``legal_contract_summarization``).

0 shots (paper), greedy, at most 100 new tokens, stop at a blank line. Every template reads the answer the same way ([PARSE]): the whole stripped completion is scored, a format
failure (scored 0) iff it holds no letter or digit. Each ``regex`` is only the exact format asked for
(``format_adherence``): any text, one line
for t3 (sentence counts are not checked). A document too long for the context budget (``prompt_budget``) is cut
to fit, keeping its beginning ([TRUNC]).
"""

from lm_eval_enterprise.tasks.legal.legal_summarization.source import LegalSummarization

from lm_eval_enterprise.prompting.templating import DatasetTasks, Template
from lm_eval_enterprise.scoring.filters import LINE_FORMAT, TEXT_FORMAT

TEMPLATES = [
    Template(
        "t1",
        description="Summarize the legal document in plain English.\n\n",
        doc_to_text="Document: {{document}}\nSummary:",
        regex=TEXT_FORMAT,
        axes=("helm",),
        note="HELM prompt: input noun Document, output noun Summary.",
    ),
    Template(
        "t2",
        description="Rewrite the following terms-of-service passage as a short summary that a reader with "
        "no legal training can understand.\n\n",
        doc_to_text="Passage: {{document}}\nPlain-English summary:",
        regex=TEXT_FORMAT,
        axes=("instruction_wording", "field_labels"),
    ),
    Template(
        "t3",
        description="Explain in one or two simple sentences what this contract clause means for the user. "
        "Write on a single line.\n\n",
        doc_to_text="Clause: {{document}}\nExplanation:",
        regex=LINE_FORMAT,
        axes=("instruction_wording", "field_labels", "answer_format"),
    ),
    Template(
        "t4",
        doc_to_text="Legal text: {{document}}\nIn plain English, this means:",
        regex=TEXT_FORMAT,
        axes=("no_instruction", "field_labels"),
    ),
    Template(
        "t5",
        description="You are a consumer-rights advocate. Summarize the legal text below in plain language, "
        "in at most two sentences.\n\n",
        doc_to_text="Text: {{document}}\nSummary:",
        regex=TEXT_FORMAT,
        axes=("persona", "field_labels", "answer_format"),
    ),
]

TASKS = DatasetTasks(
    source=LegalSummarization,
    primary_metric="rouge_l",
    templates=TEMPLATES,
    num_fewshot=0,
    doc_to_target="{{summary}}",
    until=("\n\n",),
    max_gen_toks=100,
    # [TRUNC] without a fixed N: a document that does not fit the context budget with the 100 generated tokens
    # is cut to fit, keeping its beginning (counted per task in shots_used / prompt_cut)
)
