"""Instruction templates of squad: FLAN v2's eight SQuAD v1 zero-shot patterns, quoted verbatim.

Source: ``google-research/FLAN``, file ``flan/v2/templates.py``, dict ``PATTERNS["squad_v1"]``, patterns 1–8, at
commit ``e9e4ec6e2701182c7a91af176f705310da541277``, Apache-2.0 (:data:`PATTERNS`). Patterns 9 and 10 ask the model
to write a question or a title, not to answer one: they are no evaluation templates. Template ``t<k>`` is pattern k
rendered with ``lm_eval_enterprise.prompting.flan`` over the record's ``title`` (``_`` replaced by a space, as
FLAN's ``flan/tasks.py`` ``_process_squad_v1`` does), ``context`` and ``question``; SQuAD has no options block.
``t<k>`` of jsquad is the Japanese translation of ``t<k>`` here.

Every template reads the answer with the dataset's one rule ([SPAN]: the answer line without lead-ins, quotes and
closing punctuation); each ``regex`` is the exact answer format, one line of text (``filters.SPAN_FORMAT``).
"""

from lm_eval_enterprise.tasks.nlu.squad.source import SQuAD

from lm_eval_enterprise.prompting import flan
from lm_eval_enterprise.prompting.templating import DatasetTasks, Template
from lm_eval_enterprise.scoring.filters import SPAN_FORMAT

# FLAN v2 PATTERNS["squad_v1"][0:8], verbatim (FLAN's field names: {title}, {context}, {question})
PATTERNS = (
    "Please answer a question about the following article about {title}:\n\n{context}\n\n{question}",
    "Read this and answer the question\n\n{context}\n\n{question}",
    "{context}\n{question}",
    "Answer a question about this article:\n{context}\n{question}",
    "Here is a question about this article: {context}\nWhat is the answer to this question: {question}",
    "Article: {context}\n\nQuestion: {question}",
    "Article: {context}\n\nNow answer this question: {question}",
    "{title}\n{context}\n\nQ: {question}",
)
# how each pattern differs from pattern 1 (the same for squad and jsquad)
AXES = (
    ("flan",),
    ("flan", "instruction_wording", "no_title"),
    ("flan", "no_instruction", "no_title", "spacing"),
    ("flan", "instruction_wording", "no_title", "spacing"),
    ("flan", "instruction_wording", "no_title", "field_labels"),
    ("flan", "no_instruction", "no_title", "field_labels"),
    ("flan", "instruction_wording", "no_title", "field_labels"),
    ("flan", "no_instruction", "field_labels"),
)

TEMPLATES = [
    Template(
        f"t{k}",
        doc_to_text=flan.jinja(pattern),
        regex=SPAN_FORMAT,
        axes=axes,
        note=f"FLAN squad_v1 pattern {k}",
    )
    for k, (pattern, axes) in enumerate(zip(PATTERNS, AXES), 1)
]

TASKS = DatasetTasks(
    source=SQuAD,
    primary_metric="squad_f1",
    templates=TEMPLATES,
    num_fewshot=0,
    doc_to_target="{{target}}",
    until=(),
    answer_stop="\n",
    # the genuine dev sample's first answers: median 4, at most 30 tokens for SmolLM2's tokenizer
    max_gen_toks=32,
    suite="nlu",
    language="en",
    pair="jsquad",
    test_split="valid",
    fewshot_split="fewshot",
    target_delimiter="\n",
    fewshot_delimiter="\n\n",
    lead_ins=("Answer",),
)
