"""Instruction templates of edtsum (t1 = our reference prompt, docs/conventions.md#reference-template; no HELM scenario
exists).

5 [BAL] shots (random: every headline is its own key), documents cut to 512 words in the shots and 1,024 in the
evaluated article; greedy, at most 64 new tokens, stop at the first newline (a headline is one line).
Every template reads the answer the same way ([PARSE]): the whole stripped completion is scored, a format
failure (scored 0) iff it holds no letter or digit. Each ``regex`` is only the exact format asked for
(``format_adherence``): one line in every template.
Prompts over the model's context (``prompt_budget``; 4,096 tokens when it is not known) lose trailing
shots first, then the end of the article.
"""

from lm_eval_enterprise.tasks.finance.edtsum.source import EDTSum

from lm_eval_enterprise.prompting.templating import DatasetTasks, Template
from lm_eval_enterprise.scoring.filters import LINE_FORMAT

HEADLINE = LINE_FORMAT  # one line with a letter or digit

TEMPLATES = [
    Template(
        "t1",
        description="Generate the headline of the following financial news article.\n\n",
        doc_to_text="Article: {{document}}\nHeadline:",
        regex=HEADLINE,
        axes=("spec",),
        note="Our reference prompt: input noun Article, output noun Headline.",
    ),
    Template(
        "t2",
        description="Write a concise, informative title for each financial press release.\n\n",
        doc_to_text="Press release: {{document}}\nTitle:",
        regex=HEADLINE,
        axes=("instruction_wording", "field_labels"),
    ),
    Template(
        "t3",
        description="Summarize the financial news text in a single headline-style sentence on one line.\n\n",
        doc_to_text="Text: {{document}}\nOutput:",
        regex=HEADLINE,
        axes=("instruction_wording", "field_labels", "answer_format"),
        note="FinBen-style field labels (Text / Output).",
    ),
    Template(
        "t4",
        doc_to_text="Financial news article: {{document}}\nQuestion: What is the headline of this article?\nAnswer:",
        regex=HEADLINE,
        axes=("no_instruction", "question_format"),
    ),
    Template(
        "t5",
        description="You are a financial news editor. Read each story and reply with its headline only.\n\n",
        doc_to_text="Story: {{document}}\nHeadline:",
        regex=HEADLINE,
        axes=("persona", "field_labels"),
    ),
]

TASKS = DatasetTasks(
    source=EDTSum,
    primary_metric="rouge_l",
    templates=TEMPLATES,
    num_fewshot=5,
    doc_to_target="{{summary}}",
    until=("\n",),
    max_gen_toks=64,
    # [BAL]/[TRUNC]: a prompt over the context budget drops trailing shots, then cuts the article (keeps its start)
    extra_metadata={"truncation_words": {"fewshot": 512, "eval": 1024}},
)
