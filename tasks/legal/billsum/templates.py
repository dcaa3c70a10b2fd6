"""Instruction templates of billsum (t1 = our reference prompt, docs/conventions.md#reference-template; HELM's classic
``###\\nArticle:`` format is not used).

0 shots (paper), greedy, at most 256 new tokens, stop at a blank line. Bills are cut to their first 2,048 words by
the loader ([TRUNC]); a bill that still does not fit the model's context (``prompt_budget``; 4,096 tokens when it is
not known) together with the 256 generated tokens is cut further, keeping its beginning.
Every template reads the answer the same way ([PARSE]): the whole stripped completion is scored, a format
failure (scored 0) iff it holds no letter or digit. Each ``regex`` is only the exact format asked for
(``format_adherence``): any text, one line for t3.
"""

from lm_eval_enterprise.tasks.legal.billsum.source import BillSum

from lm_eval_enterprise.prompting.templating import DatasetTasks, Template
from lm_eval_enterprise.scoring.filters import LINE_FORMAT, TEXT_FORMAT

TEMPLATES = [
    Template(
        "t1",
        description="Summarize the following legislative bill.\n\n",
        doc_to_text="Bill: {{document}}\nSummary:",
        regex=TEXT_FORMAT,
        axes=("spec",),
        note="Our reference prompt: input noun Bill, output noun Summary.",
    ),
    Template(
        "t2",
        description="Write a summary of the bill below in the style of the Congressional Research Service: "
        "state what the bill does, in neutral language.\n\n",
        doc_to_text="Text of the bill: {{document}}\nCRS summary:",
        regex=TEXT_FORMAT,
        axes=("instruction_wording", "field_labels"),
    ),
    Template(
        "t3",
        description="Explain in a short paragraph, on a single line, what the following piece of US "
        "legislation would change.\n\n",
        doc_to_text="Legislation: {{document}}\nExplanation:",
        regex=LINE_FORMAT,
        axes=("instruction_wording", "field_labels", "answer_format"),
    ),
    Template(
        "t4",
        doc_to_text="Bill text: {{document}}\nQuestion: What does this bill do?\nAnswer:",
        regex=TEXT_FORMAT,
        axes=("no_instruction", "question_format"),
    ),
    Template(
        "t5",
        description="You are a legislative analyst briefing members of Congress. Summarize the main "
        "provisions of the bill below in a few sentences.\n\n",
        doc_to_text="Bill: {{document}}\nBriefing summary:",
        regex=TEXT_FORMAT,
        axes=("persona", "field_labels"),
    ),
]

TASKS = DatasetTasks(
    source=BillSum,
    primary_metric="rouge_l",
    templates=TEMPLATES,
    num_fewshot=0,
    doc_to_target="{{summary}}",
    until=("\n\n",),
    max_gen_toks=256,
    extra_metadata={"truncation_words": {"eval": 2048}},
)
