"""Instruction templates of commonsense_qa: eight patterns in the style of FLAN v2, written for this project.

FLAN v2 (``google-research/FLAN``, file ``flan/v2/templates.py``, dict ``PATTERNS``, commit
``e9e4ec6e2701182c7a91af176f705310da541277``, Apache-2.0) has no CommonsenseQA patterns, so these eight are **the
project's own**. They follow the zero-shot patterns FLAN has for other multiple-choice question tasks —
``PATTERNS["arc"]``, ``["cosmos_qa"]`` and ``["openbookqa"]`` (FLAN's file has no zero-shot ``qasc`` patterns) —
in their two shapes: the question followed by the options block, or the options block first; with or without an
instruction sentence and an answer lead. :data:`PATTERNS` gives each pattern in FLAN's notation (``{question}``,
``{options_}``), :data:`IMITATES` the FLAN pattern it imitates: t1, t2 and t8 keep the wording of arc patterns 1, 2
and 7 unchanged (those patterns name no passage or fact, so they fit a bare question as they are); the other five
adapt a cosmos_qa, arc or openbookqa pattern to a question that needs commonsense instead of a passage or fact.

``{options_}`` is FLAN's options block over the document's own five options
(:func:`lm_eval_enterprise.prompting.flan.choices_block`: ``OPTIONS:`` and one ``- option`` line each, in the
file's order A–E). The answer is the option's text (``doc_to_target = {{answer_text}}``); each ``regex`` is that
exact format, one of the document's option texts (``{LABELS}``, filled per document). Every template reads the
answer with the dataset's one rule ([PARSE]): an option text, or its letter (``B``, ``(B)``) or number (``2``),
after any lead-in (``Answer:``) or wrapper (``**library**``); anything else is a format failure. The Japanese pair
``jcommonsenseqa`` translates these patterns at the same index.
"""

from lm_eval_enterprise.tasks.nlu.commonsense_qa.source import CommonsenseQA

from lm_eval_enterprise.prompting import flan
from lm_eval_enterprise.prompting.templating import DatasetTasks, Template

# the eight patterns, in FLAN's notation
PATTERNS = (
    "{question}\n\n{options_}",
    "Question: {question}\n{options_}\nAnswer:",
    "Question: {question}\n\nWhich of the following choices is the most sensible answer to the question?\n{options_}",
    "{options_}\nQ: {question}",
    "{options_}\nAnswer the following question using common sense: {question}\n",
    "This question has options. Answer the following commonsense question:\n\n{question}\n{options_}",
    "Use common sense to answer the question: {question}\n\n{options_}\n\nThe answer is:",
    "{question}\n\nPick the answer from these options\n\n{options_}",
)
# the FLAN v2 zero-shot pattern each one imitates (1-based, as PATTERNS[<task>][k - 1])
IMITATES = (
    ("arc", 1, "the same wording"),
    ("arc", 2, "the same wording"),
    ("arc", 3, "its question about the choices, reworded for commonsense"),
    ("cosmos_qa", 2, "without the passage: options first, then 'Q:'"),
    ("cosmos_qa", 3, "without the passage: options first, then an instruction naming common sense"),
    ("cosmos_qa", 8, "'This question has options.', a commonsense question instead of a text"),
    ("openbookqa", 7, "'Use this fact to answer the question' becomes 'Use common sense to answer the question'"),
    ("arc", 7, "the same wording"),
)
# how each differs from t1
AXES = (
    (),
    ("field_labels", "answer_lead"),
    ("field_labels", "instruction_wording"),
    ("options_first", "field_labels"),
    ("options_first", "instruction_wording"),
    ("instruction_wording",),
    ("instruction_wording", "answer_lead"),
    ("instruction_wording",),
)
REGEX = " ?({LABELS})"  # one of the document's option texts


def note(k: int) -> str:
    task, n, how = IMITATES[k - 1]
    return f"ours, in the style of FLAN {task} pattern {n} ({how})"


TEMPLATES = [
    Template(
        f"t{k}",
        doc_to_text=flan.jinja(pattern, flan.choices_block("choices", "en")),
        regex=REGEX,
        axes=axes,
        note=note(k),
    )
    for k, (pattern, axes) in enumerate(zip(PATTERNS, AXES), 1)
]

TASKS = DatasetTasks(
    source=CommonsenseQA,
    primary_metric="accuracy",
    templates=TEMPLATES,
    num_fewshot=0,
    doc_to_target="{{answer_text}}",
    until=(),
    answer_stop="\n",
    # the longest option of the genuine sample is 14 tokens for SmolLM2's BPE with a final period; with a lead-in
    max_gen_toks=24,
    suite="nlu",
    language="en",
    pair="jcommonsenseqa",
    test_split="valid",
    fewshot_split="fewshot",
    target_delimiter="\n",
    fewshot_delimiter="\n\n",
    lead_ins=("Answer",),
)
