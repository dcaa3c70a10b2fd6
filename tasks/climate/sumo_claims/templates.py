"""Instruction templates of sumo_claims (t1 = HELM ``sumosum``: generate the article's title).

0 shots (paper), greedy, at most 100 new tokens, stop at a blank line. Every template reads the answer the same way ([PARSE]): the whole stripped completion is scored, a format
failure (scored 0) iff it holds no letter or digit. Each ``regex`` is only the exact format asked for
(``format_adherence``): any text, one line
for t3, at most fifteen words on one line for t5. Articles too long for the context budget (``prompt_budget``) are cut to fit, keeping their
beginning ([TRUNC]); HELM itself does not truncate (its test filter keeps documents of 100-3,700 words).
"""

from lm_eval_enterprise.tasks.climate.sumo_claims.source import SumoClaims

from lm_eval_enterprise.prompting.templating import DatasetTasks, Template
from lm_eval_enterprise.scoring.filters import LINE_FORMAT, TEXT_FORMAT, words_format

TEMPLATES = [
    Template(
        "t1",
        description="Generate the title of the following article.\n\n",
        doc_to_text="{{document}}\nTitle:",
        regex=TEXT_FORMAT,
        axes=("helm",),
        note="HELM prompt: no input noun, output noun Title.",
    ),
    Template(
        "t2",
        description="Write a headline for the news article below about climate and the environment.\n\n",
        doc_to_text="Article: {{document}}\nHeadline:",
        regex=TEXT_FORMAT,
        axes=("instruction_wording", "field_labels"),
    ),
    Template(
        "t3",
        description="Read the web article and give it a short, informative title. Answer with the title "
        "only, on a single line.\n\n",
        doc_to_text="Web page text: {{document}}\nTitle:",
        regex=LINE_FORMAT,
        axes=("instruction_wording", "field_labels", "answer_format"),
    ),
    Template(
        "t4",
        doc_to_text="Text: {{document}}\nThe title of this article is:",
        regex=TEXT_FORMAT,
        axes=("no_instruction", "field_labels"),
    ),
    Template(
        "t5",
        description="You are a fact-checking editor. Give the article below the title it would carry on "
        "its web page, in at most fifteen words.\n\n",
        doc_to_text="Article: {{document}}\nTitle:",
        regex=words_format(15),
        axes=("persona", "field_labels", "answer_format"),
    ),
]

TASKS = DatasetTasks(
    source=SumoClaims,
    primary_metric="rouge_l",
    templates=TEMPLATES,
    num_fewshot=0,
    doc_to_target="{{summary}}",
    until=("\n\n",),
    max_gen_toks=100,
    # [TRUNC] without a fixed N: an article that does not fit the context budget with the 100 generated tokens
    # is cut to fit, keeping its beginning (counted per task in shots_used / prompt_cut)
)
