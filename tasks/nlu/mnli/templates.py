"""Instruction templates of mnli: FLAN v2's MNLI zero-shot patterns 1–8, quoted verbatim.

Source: ``google-research/FLAN``, file ``flan/v2/templates.py``, dict ``PATTERNS["mnli"]``, patterns 1–8, at commit
``e9e4ec6e2701182c7a91af176f705310da541277``, Apache-2.0 (:data:`PATTERNS`). FLAN has ten MNLI answer patterns;
patterns 9 (``If {premise}, can we conclude that "{hypothesis}"?\\n{options_}``) and 10 (``{premise}\\n\\nDoes it
follow that "{hypothesis}"?\\n{options_}``) are left out: every NLU dataset has eight templates, so that lm-eval's
group means (over leaf tasks) weigh the datasets equally (README: Deviations). Template ``t<k>`` is pattern k
rendered with ``lm_eval_enterprise.prompting.flan``; ``{options_}`` is FLAN's ``format_options`` block over its
MNLI options in GLUE's label order (``flan/tasks.py`` ``_process_mnli``), ``OPTIONS:\\n- yes\\n- it is not possible
to tell\\n- no``. ``t<k>`` of jnli is the Japanese translation of ``t<k>`` here.

Every template reads the answer with the dataset's one rule ([PARSE]: the label reader); each ``regex`` is the
exact answer format, a bare option (``format_adherence``, constrained decoding).
"""

from lm_eval_enterprise.tasks.nlu.mnli.source import LABELS, MNLI

from lm_eval_enterprise.prompting import flan
from lm_eval_enterprise.prompting.templating import DatasetTasks, Template
from lm_eval_enterprise.scoring.filters import label_format

# FLAN v2 PATTERNS["mnli"][0:8], verbatim (FLAN's field names: {premise}, {hypothesis}, {options_})
PATTERNS = (
    "Premise: {premise}\n\nHypothesis: {hypothesis}\n\nDoes the premise entail the hypothesis?\n\n{options_}",
    "Premise: {premise}\nHypothesis: {hypothesis}\nIs the hypothesis entailed by the premise?\n{options_} And the "
    "answer is:",
    "Here is a premise:\n{premise}\n\nHere is a hypothesis:\n{hypothesis}\n\nHere are the options: {options_}\nIs it "
    "possible to conclude that if the premise is true, then so is the hypothesis?\n",
    "Sentence 1: {premise}\n\nSentence 2: {hypothesis}\n{options_}\nIs this second sentence entailed by the first "
    "sentence?\n\n",
    "See the multi-choice question below:\n\nSentence 1: {premise}\n\nSentence 2: {hypothesis}\n\nIf the first "
    "sentence is true, then is the second sentence true?\n{options_}",
    'Based on the premise "{premise}", can we conclude the hypothesis "{hypothesis}" is true (see options)?\n\n'
    "{options_}",
    'Choose your answer from options. Premise: "{premise}" If this premise is true, what does that tell us about '
    'whether it entails the hypothesis "{hypothesis}"?\n\n{options_}',
    'Premise:\n"{premise}" Based on this premise, is the hypothesis "{hypothesis}" true?\n{options_}',
)
# FLAN's answer patterns left out (module docstring)
LEFT_OUT = {
    9: 'If {premise}, can we conclude that "{hypothesis}"?\n{options_}',
    10: '{premise}\n\nDoes it follow that "{hypothesis}"?\n{options_}',
}
OPTIONS = flan.options_block(LABELS)
REGEX = label_format(LABELS)
# how each pattern differs from pattern 1 (the same for mnli and jnli)
AXES = (
    ("flan",),
    ("flan", "instruction_wording", "spacing", "answer_lead"),
    ("flan", "instruction_wording", "field_labels", "options_first"),
    ("flan", "instruction_wording", "field_labels", "options_first"),
    ("flan", "instruction_wording", "field_labels", "order"),
    ("flan", "instruction_wording", "inline_item", "order"),
    ("flan", "instruction_wording", "inline_item", "order"),
    ("flan", "instruction_wording", "inline_item"),
)

TEMPLATES = [
    Template(
        f"t{k}",
        doc_to_text=flan.jinja(pattern, OPTIONS),
        regex=REGEX,
        axes=axes,
        note=f"FLAN mnli pattern {k}",
    )
    for k, (pattern, axes) in enumerate(zip(PATTERNS, AXES), 1)
]

TASKS = DatasetTasks(
    source=MNLI,
    primary_metric="accuracy",
    templates=TEMPLATES,
    num_fewshot=0,
    doc_to_target="{{label}}",
    until=(),
    answer_stop="\n",
    # " it is not possible to tell" is 6 tokens for SmolLM2's tokenizer, with a closing period 7
    max_gen_toks=10,
    suite="nlu",
    language="en",
    pair="jnli",
    test_split="valid",
    fewshot_split="fewshot",
    target_delimiter="\n",
    fewshot_delimiter="\n\n",
    lead_ins=("Answer",),
    # the premise is the long part of an item (LONG_FIELDS has no NLI field)
    truncate_field="premise",
)
