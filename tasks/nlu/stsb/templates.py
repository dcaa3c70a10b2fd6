"""Instruction templates of stsb: FLAN v2's eight STS-B zero-shot patterns, quoted verbatim.

Source: ``google-research/FLAN``, file ``flan/v2/templates.py``, dict ``PATTERNS["stsb"]``, patterns 1–8, at commit
``e9e4ec6e2701182c7a91af176f705310da541277``, Apache-2.0 (:data:`PATTERNS`). Patterns 9 and 10 ask the model to
write a sentence of a given similarity, not to rate one: they are no evaluation templates. Template ``t<k>`` is
pattern k rendered with ``lm_eval_enterprise.prompting.flan``; ``{options_}`` is FLAN's ``format_options`` block
over FLAN's stsb options ``0`` … ``5`` (``flan/tasks.py`` ``_process_stsb``), ``OPTIONS:\\n- 0\\n- 1 … \\n- 5``.
FLAN's answer is the score rounded to an integer; ours is the exact score (``"3.8"``, README: Deviations), so an
oracle reaches Pearson r = 1. ``t<k>`` of jsts is the Japanese translation of ``t<k>`` here.

Every template reads the answer with the dataset's one rule ([SCORE]: the first number of the answer); each
``regex`` is the exact answer format, a number on the 0–5 scale (``filters.SCORE_FORMAT``: ``4`` or ``3.8``).
"""

from lm_eval_enterprise.tasks.nlu.stsb.source import STSB

from lm_eval_enterprise.prompting import flan
from lm_eval_enterprise.prompting.templating import DatasetTasks, Template
from lm_eval_enterprise.scoring.filters import SCORE_FORMAT

# FLAN v2 PATTERNS["stsb"][0:8], verbatim (FLAN's field names: {sentence1}, {sentence2}, {options_})
PATTERNS = (
    "{sentence1}\n{sentence2}\n\nRate the textual similarity of these two sentences on a scale from 0 to 5, where 0 is "
    '"no meaning overlap" and 5 is "means the same thing".\n\n{options_}',
    '{sentence1}\n{sentence2}\n\nOn a scale from 0 to 5, where 0 is "no meaning overlap" and 5 is "means the same '
    'thing", how closely does the first sentence resemble the second one?\n\n{options_}',
    'Sentence 1: {sentence1}\n\n Sentence 2: {sentence2}\n\nFrom 0 to 5 (0="no meaning overlap" and 5="means the same '
    'thing"), how similar are the two sentences?\n\n{options_}',
    "Select from options: How similar are the following two sentences?\n\n{sentence1}\n{sentence2}\n\nGive the answer "
    'on a scale from 0 - 5, where 0 is "not similar at all" and 5 is "means the same thing".\n\n{options_}',
    "Single/multi-select question: Do the following sentences say the same thing?\n\n{sentence1}\n{sentence2}\n\n"
    'Return your answer on a scale from 0 to 5, where 0 is "not similar" and 5 is "very similar".\n\n{options_}',
    'Rate the similarity of the following two sentences on a scale from 0 to 5, where 0 is "no meaning overlap" and 5 '
    'is "means the same thing"?\n\n{sentence1}\n{sentence2}\n\n{options_}',
    'On a scale from 0-5, where 0 is "not similar" and 5 is "very similar", how similar is the sentence "{sentence1}" '
    'to the sentence "{sentence2}"?\n\n{options_}',
    'How similar are these two sentences, on a scale from 0-5 (0 is "not similar" and 5 is "very similar")?\n\n'
    "{sentence1}\n{sentence2}\n\n{options_}",
)
SCORE_OPTIONS = ("0", "1", "2", "3", "4", "5")  # FLAN's stsb options
OPTIONS = flan.options_block(SCORE_OPTIONS)
# how each pattern differs from pattern 1 (the same for stsb and jsts)
AXES = (
    ("flan",),
    ("flan", "instruction_wording"),
    ("flan", "instruction_wording", "field_labels"),
    ("flan", "instruction_wording", "order"),
    ("flan", "instruction_wording", "order"),
    ("flan", "instruction_wording", "order"),
    ("flan", "instruction_wording", "order", "inline_item"),
    ("flan", "instruction_wording", "order"),
)

TEMPLATES = [
    Template(
        f"t{k}",
        doc_to_text=flan.jinja(pattern, OPTIONS),
        regex=SCORE_FORMAT,
        axes=axes,
        note=f"FLAN stsb pattern {k}",
    )
    for k, (pattern, axes) in enumerate(zip(PATTERNS, AXES), 1)
]

TASKS = DatasetTasks(
    source=STSB,
    primary_metric="pearson",
    templates=TEMPLATES,
    num_fewshot=0,
    doc_to_target="{{target}}",
    until=(),
    answer_stop="\n",
    # SmolLM2's tokenizer splits digits: "3.8" is 3 tokens, " 4.75" 5, " 0.333" 6
    max_gen_toks=8,
    suite="nlu",
    language="en",
    pair="jsts",
    test_split="valid",
    fewshot_split="fewshot",
    target_delimiter="\n",
    fewshot_delimiter="\n\n",
    lead_ins=("Answer",),
    # the context budget's long field (LONG_FIELDS has no sentence-pair field); STS-B sentences are short
    truncate_field="sentence1",
)
