"""Instruction templates of jcommonsenseqa: the eight commonsense_qa patterns, translated into Japanese.

The English originals are the project's own patterns of ``commonsense_qa`` (written in the style of FLAN v2's
multiple-choice patterns — ``google-research/FLAN``, file ``flan/v2/templates.py``, dict ``PATTERNS``, commit
``e9e4ec6e2701182c7a91af176f705310da541277``, Apache-2.0 — since FLAN has none for CommonsenseQA; which FLAN
pattern each imitates is in ``commonsense_qa/templates.py``). Template ``t<k>`` here is **our own** Japanese
translation of ``t<k>`` there, so the two pair across languages: です・ます調, the same fields in the same order,
the options block in the same place, heading ``選択肢：`` (:func:`lm_eval_enterprise.prompting.flan.choices_block`
with ``"ja"``), field labels ``質問：`` for "Question:" and ``Q：`` for "Q:", answer leads ``答え：`` for "Answer:"
and ``答えは：`` for "The answer is:", full-width colons. :data:`TRANSLATIONS` keeps each English original beside
its translation (a test checks the originals against ``commonsense_qa``'s table and that both have the same fields
in the same order).

The answer is the option's text (``doc_to_target = {{answer_text}}``); each ``regex`` is that exact format, one of
the document's option texts (``{LABELS}``). The reading is the dataset's one rule ([PARSE], Japanese): an option
text, its number (``3``) or letter, after a lead-in (``答え：``) or inside 「」, and followed by nothing, punctuation
or a copula (``銀行です。``); anything else is a format failure.
"""

from lm_eval_enterprise.tasks.nlu.commonsense_qa.templates import AXES, REGEX  # the same axes and answer format
from lm_eval_enterprise.tasks.nlu.jcommonsenseqa.source import JCommonsenseQA

from lm_eval_enterprise.prompting import flan
from lm_eval_enterprise.prompting.templating import DatasetTasks, Template

# (English original of commonsense_qa t<k>, our Japanese translation), in FLAN's notation
TRANSLATIONS = (
    ("{question}\n\n{options_}", "{question}\n\n{options_}"),
    ("Question: {question}\n{options_}\nAnswer:", "質問：{question}\n{options_}\n答え："),
    (
        "Question: {question}\n\nWhich of the following choices is the most sensible answer to the question?\n"
        "{options_}",
        "質問：{question}\n\n次の選択肢のうち、質問への答えとして最も理にかなっているのはどれですか？\n{options_}",
    ),
    ("{options_}\nQ: {question}", "{options_}\nQ：{question}"),
    (
        "{options_}\nAnswer the following question using common sense: {question}\n",
        "{options_}\n常識を使って次の質問に答えてください：{question}\n",
    ),
    (
        "This question has options. Answer the following commonsense question:\n\n{question}\n{options_}",
        "この質問には選択肢があります。次の常識に関する質問に答えてください：\n\n{question}\n{options_}",
    ),
    (
        "Use common sense to answer the question: {question}\n\n{options_}\n\nThe answer is:",
        "常識を使って質問に答えてください：{question}\n\n{options_}\n\n答えは：",
    ),
    (
        "{question}\n\nPick the answer from these options\n\n{options_}",
        "{question}\n\nこれらの選択肢から答えを選んでください\n\n{options_}",
    ),
)
EN_PATTERNS = tuple(en for en, _ in TRANSLATIONS)
JA_PATTERNS = tuple(ja for _, ja in TRANSLATIONS)
TEMPLATES = [
    Template(
        f"t{k}",
        doc_to_text=flan.jinja(pattern, flan.choices_block("choices", "ja")),
        regex=REGEX,
        axes=axes,
        note=f"our Japanese translation of commonsense_qa t{k}",
    )
    for k, (pattern, axes) in enumerate(zip(JA_PATTERNS, AXES), 1)
]

TASKS = DatasetTasks(
    source=JCommonsenseQA,
    primary_metric="accuracy",
    templates=TEMPLATES,
    num_fewshot=0,
    doc_to_target="{{answer_text}}",
    until=(),
    answer_stop="\n",
    # the longest option of the genuine sample with です。 is 31 tokens for SmolLM2's byte-level BPE; with 答え：
    max_gen_toks=48,
    suite="nlu",
    language="ja",
    pair="commonsense_qa",
    test_split="valid",
    fewshot_split="fewshot",
    target_delimiter="\n",
    fewshot_delimiter="\n\n",
    lead_ins=("答え",),
)
