"""Instruction templates of jnli: FLAN v2's MNLI patterns 1–8, translated into Japanese.

English originals: ``google-research/FLAN``, file ``flan/v2/templates.py``, dict ``PATTERNS["mnli"]``, patterns
1–8 of its ten (every dataset of the NLU suite has eight templates; patterns 9 "If {premise}, can we conclude that
"{hypothesis}"?" and 10 "{premise}\\n\\nDoes it follow that "{hypothesis}"?" are left out), commit
``e9e4ec6e2701182c7a91af176f705310da541277``, Apache-2.0 (:data:`EN_PATTERNS`, quoted verbatim). Template ``t<k>``
is **our own** Japanese translation of pattern k (:data:`JA_PATTERNS`), so that ``t<k>`` here pairs with ``t<k>``
of ``mnli``: です・ます調, the same fields in the same order, the options block in the same place (after the
question, or before it in patterns 3 and 4; pattern 3 keeps FLAN's "Here are the options: OPTIONS:" doubling as
「選択肢は次のとおりです：選択肢：」), heading ``選択肢：``. The options are JNLI's label words 含意 / 中立 / 矛盾,
listed in the order of FLAN's mnli options (yes / it is not possible to tell / no = entailment / neutral /
contradiction). English double quotes become 「」.

Every template reads the answer with the dataset's one rule ([PARSE], Japanese: a label word may be followed by
a copula or punctuation, never by another letter — 含意しない is a format failure, never 含意); each ``regex`` is
the exact answer format, a bare label word (``format_adherence``).
"""

from lm_eval_enterprise.tasks.nlu.jnli.source import JNLI, LABELS

from lm_eval_enterprise.prompting import flan
from lm_eval_enterprise.prompting.templating import DatasetTasks, Template
from lm_eval_enterprise.scoring.filters import label_format

# FLAN v2 PATTERNS["mnli"][0:8], verbatim (FLAN's field names: {premise}, {hypothesis}, {options_})
EN_PATTERNS = (
    "Premise: {premise}\n\nHypothesis: {hypothesis}\n\nDoes the premise entail the hypothesis?\n\n{options_}",
    "Premise: {premise}\nHypothesis: {hypothesis}\nIs the hypothesis entailed by the premise?\n{options_} And the "
    "answer is:",
    "Here is a premise:\n{premise}\n\nHere is a hypothesis:\n{hypothesis}\n\nHere are the options: {options_}\nIs it "
    "possible to conclude that if the premise is true, then so is the hypothesis?\n",
    "Sentence 1: {premise}\n\nSentence 2: {hypothesis}\n{options_}\nIs this second sentence entailed by the first "
    "sentence?\n\n",
    "See the multi-choice question below:\n\nSentence 1: {premise}\n\nSentence 2: {hypothesis}\n\nIf the first sentence "
    "is true, then is the second sentence true?\n{options_}",
    'Based on the premise "{premise}", can we conclude the hypothesis "{hypothesis}" is true (see options)?\n\n'
    "{options_}",
    'Choose your answer from options. Premise: "{premise}" If this premise is true, what does that tell us about '
    'whether it entails the hypothesis "{hypothesis}"?\n\n{options_}',
    'Premise:\n"{premise}" Based on this premise, is the hypothesis "{hypothesis}" true?\n{options_}',
)
# our Japanese translation, pattern by pattern (same fields, same order, same place of the options)
JA_PATTERNS = (
    "前提：{premise}\n\n仮説：{hypothesis}\n\n前提は仮説を含意していますか？\n\n{options_}",
    "前提：{premise}\n仮説：{hypothesis}\n仮説は前提に含意されていますか？\n{options_} そして、答えは：",
    "前提は次のとおりです：\n{premise}\n\n仮説は次のとおりです：\n{hypothesis}\n\n選択肢は次のとおりです：{options_}\n"
    "前提が真であるならば仮説も真である、と結論づけることはできますか？\n",
    "文1：{premise}\n\n文2：{hypothesis}\n{options_}\nこの2番目の文は1番目の文に含意されていますか？\n\n",
    "次の多肢選択問題を見てください：\n\n文1：{premise}\n\n文2：{hypothesis}\n\n1番目の文が真であるならば、2番目の文は"
    "真ですか？\n{options_}",
    "前提「{premise}」に基づいて、仮説「{hypothesis}」が真であると結論づけることはできますか（選択肢を参照してください）？"
    "\n\n{options_}",
    "選択肢から答えを選んでください。前提：「{premise}」この前提が真であるならば、それが仮説「{hypothesis}」を含意するか"
    "どうかについて、何が言えますか？\n\n{options_}",
    "前提：\n「{premise}」この前提に基づくと、仮説「{hypothesis}」は真ですか？\n{options_}",
)
OPTIONS = flan.options_block(LABELS, "ja")
REGEX = label_format(LABELS, exact_case=True)
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
        note=f"FLAN mnli pattern {k}, translated into Japanese (ours)",
    )
    for k, (pattern, axes) in enumerate(zip(JA_PATTERNS, AXES), 1)
]

TASKS = DatasetTasks(
    source=JNLI,
    primary_metric="accuracy",
    templates=TEMPLATES,
    num_fewshot=0,
    doc_to_target="{{label}}",
    until=(),
    answer_stop="\n",
    # 含意 / 矛盾 are 5 tokens for an English byte-level BPE (SmolLM2), 中立です。 7
    max_gen_toks=12,
    suite="nlu",
    language="ja",
    pair="mnli",
    test_split="valid",
    fewshot_split="fewshot",
    target_delimiter="\n",
    fewshot_delimiter="\n\n",
    lead_ins=("答え",),
)
