"""Instruction templates of cola: FLAN v2's eight CoLA zero-shot patterns, quoted verbatim.

Source: ``google-research/FLAN``, file ``flan/v2/templates.py``, dict ``PATTERNS["cola"]``, patterns 1–8, at commit
``e9e4ec6e2701182c7a91af176f705310da541277``, Apache-2.0 (:data:`PATTERNS`). Patterns 9 and 10 ask the model to
write a sentence of a given class, not to judge one: they are no evaluation templates. Template ``t<k>`` is
pattern k rendered with ``lm_eval_enterprise.prompting.flan`` (FLAN's ``{sentence}`` is the record's ``text``;
``{options_}`` is FLAN's ``format_options`` block ``OPTIONS:\\n- unacceptable\\n- acceptable``, FLAN's option words
in its order, ``flan/tasks.py`` ``_process_cola``). ``t<k>`` of jcola is the Japanese translation of ``t<k>`` here.

Every template reads the answer with the dataset's one rule ([PARSE]: the label reader, longest label first, so
``unacceptable`` is never read as ``acceptable``); each ``regex`` is the exact answer format, a bare option word
(``format_adherence``, constrained decoding).
"""

from lm_eval_enterprise.tasks.nlu.cola.source import LABELS, CoLA

from lm_eval_enterprise.prompting import flan
from lm_eval_enterprise.prompting.templating import DatasetTasks, Template
from lm_eval_enterprise.scoring.filters import label_format

# FLAN v2 PATTERNS["cola"][0:8], verbatim (FLAN's field names: {sentence}, {options_})
PATTERNS = (
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
FIELDS = {"sentence": "text"}  # FLAN's field → the record's
OPTIONS = flan.options_block(LABELS)
REGEX = label_format(LABELS)
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
        note=f"FLAN cola pattern {k}",
    )
    for k, (pattern, axes) in enumerate(zip(PATTERNS, AXES), 1)
]

TASKS = DatasetTasks(
    source=CoLA,
    primary_metric="mcc",
    templates=TEMPLATES,
    num_fewshot=0,
    doc_to_target="{{label}}",
    until=(),
    answer_stop="\n",
    # " unacceptable" is 1 token for SmolLM2's tokenizer, "Answer: unacceptable." 4
    max_gen_toks=8,
    suite="nlu",
    language="en",
    pair="jcola",
    test_split="valid",
    fewshot_split="fewshot",
    target_delimiter="\n",
    fewshot_delimiter="\n\n",
    lead_ins=("Answer",),
)
