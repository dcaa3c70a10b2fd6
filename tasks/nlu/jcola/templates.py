"""Instruction templates of jcola: FLAN v2's eight CoLA patterns, translated into Japanese.

English originals: ``google-research/FLAN``, file ``flan/v2/templates.py``, dict ``PATTERNS["cola"]``, patterns
1–8 (9 and 10 ask the model to write a sentence, not to judge one), commit ``e9e4ec6e2701182c7a91af176f705310da541277``,
Apache-2.0 (:data:`EN_PATTERNS`, quoted verbatim). Template ``t<k>`` is **our own** Japanese translation of pattern
k (:data:`JA_PATTERNS`), so that ``t<k>`` here pairs with ``t<k>`` of ``cola``: です・ます調, the same fields in the
same order, the options block in the same place, rendered as FLAN renders it (``flan.options_block``) with the
heading ``選択肢：`` and the label words 容認できない / 容認できる (JCoLA labels 0 / 1, in FLAN's option order
unacceptable / acceptable). Where a pattern says "English sentence" (3, 8) the translation says 日本語の文: the
item is Japanese. The English double quotes around the sentence become 「」.

Every template reads the answer with the dataset's one rule ([PARSE], Japanese: a label word may be followed by
a copula or punctuation, never by another letter; the polite forms 容認できます / 容認できません are aliases of the
label words); each ``regex`` is the exact answer format, a bare label word (``format_adherence``).
"""

from lm_eval_enterprise.tasks.nlu.jcola.source import LABELS, JCoLA

from lm_eval_enterprise.prompting import flan
from lm_eval_enterprise.prompting.templating import DatasetTasks, Template
from lm_eval_enterprise.scoring.filters import label_format

# FLAN v2 PATTERNS["cola"][0:8], verbatim (FLAN's field names: {sentence}, {options_})
EN_PATTERNS = (
    'Sentence: "{sentence}"\nPick from options: would a linguist rate this sentence to be acceptable '
    "linguistically?\n\n{options_}...I think the answer is",
    "{sentence}\n\nHow would you consider the linguistic integrity of the preceding sentence?\n{options_}",
    'Test sentence: "{sentence}"\nIs this test sentence a correct grammatical English sentence?\n\n{options_}',
    'Sentence: "{sentence}"\nWould a linguist rate this sentence to be acceptable linguistically?\n\n{options_}',
    "Choose from options, is the following sentence linguistically acceptable?\n{sentence}\n{options_}",
    "Choose from the possible answers, would the following sentence, by the strictest standards, be considered "
    "correct by a linguist?\n\n{sentence}\n{options_}",
    "Multi-choice problem: Is the next sentence syntactically and semantically acceptable?\n\n{sentence}\n{options_}",
    "Would a linguist find the following sentence to be a valid English sentence grammatically?\n\n{sentence}\n"
    "{options_}",
)
# our Japanese translation, pattern by pattern (same fields, same order, same place of the options)
JA_PATTERNS = (
    "文：「{sentence}」\n選択肢から選んでください：言語学者はこの文を言語的に容認できると評価するでしょうか？\n\n"
    "{options_}……私の考えでは、答えは",
    "{sentence}\n\n前の文の言語的な適格性について、どのように考えますか？\n{options_}",
    "テスト文：「{sentence}」\nこのテスト文は文法的に正しい日本語の文ですか？\n\n{options_}",
    "文：「{sentence}」\n言語学者はこの文を言語的に容認できると評価するでしょうか？\n\n{options_}",
    "選択肢から選んでください。次の文は言語的に容認できますか？\n{sentence}\n{options_}",
    "考えられる答えから選んでください。次の文は、最も厳しい基準に照らして、言語学者に正しいと見なされるでしょうか？"
    "\n\n{sentence}\n{options_}",
    "多肢選択問題：次の文は統語的にも意味的にも容認できますか？\n\n{sentence}\n{options_}",
    "言語学者は、次の文を文法的に正しい日本語の文だと判断するでしょうか？\n\n{sentence}\n{options_}",
)
FIELDS = {"sentence": "text"}  # FLAN's field → the record's
OPTIONS = flan.options_block(LABELS, "ja")
REGEX = label_format(LABELS, exact_case=True)
# how each pattern differs from pattern 1 (the same for cola and jcola)
AXES = (
    ("flan",),
    ("flan", "instruction_wording", "field_labels", "answer_lead"),
    ("flan", "instruction_wording", "field_labels", "answer_lead"),
    ("flan", "instruction_wording", "answer_lead"),
    ("flan", "instruction_wording", "field_labels", "order", "answer_lead"),
    ("flan", "instruction_wording", "field_labels", "order", "answer_lead"),
    ("flan", "instruction_wording", "field_labels", "order", "answer_lead"),
    ("flan", "instruction_wording", "field_labels", "order", "answer_lead"),
)

TEMPLATES = [
    Template(
        f"t{k}",
        doc_to_text=flan.jinja(pattern, OPTIONS, FIELDS),
        regex=REGEX,
        axes=axes,
        note=f"FLAN cola pattern {k}, translated into Japanese (ours)",
    )
    for k, (pattern, axes) in enumerate(zip(JA_PATTERNS, AXES), 1)
]

TASKS = DatasetTasks(
    source=JCoLA,
    primary_metric="mcc",
    templates=TEMPLATES,
    num_fewshot=0,
    doc_to_target="{{label}}",
    until=(),
    answer_stop="\n",
    # 容認できない is 12 tokens for an English byte-level BPE (SmolLM2), a copula and 。 four more
    max_gen_toks=24,
    suite="nlu",
    language="ja",
    pair="cola",
    test_split="valid",
    fewshot_split="fewshot",
    target_delimiter="\n",
    fewshot_delimiter="\n\n",
    lead_ins=("答え",),
    # the polite forms of the label words, the natural answer to a です・ます question ("容認できますか？")
    aliases={"容認できます": "容認できる", "容認できません": "容認できない"},
)
