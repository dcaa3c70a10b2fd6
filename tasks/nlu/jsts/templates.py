"""Instruction templates of jsts: FLAN v2's eight STS-B patterns, translated into Japanese.

English originals: ``google-research/FLAN``, file ``flan/v2/templates.py``, dict ``PATTERNS["stsb"]``, patterns
1–8 (9 and 10 ask the model to write a sentence of a given similarity), commit
``e9e4ec6e2701182c7a91af176f705310da541277``, Apache-2.0 (:data:`EN_PATTERNS`, quoted verbatim). Template ``t<k>``
is **our own** Japanese translation of pattern k (:data:`JA_PATTERNS`), so that ``t<k>`` here pairs with ``t<k>``
of ``stsb``: です・ます調, the same fields in the same order, the same scale anchors (「意味の重なりがない」,
「同じ意味である」, 「まったく似ていない」, 「似ていない」, 「非常に似ている」 for "no meaning overlap", "means the same
thing", "not similar at all", "not similar", "very similar"), the options block in the same place with FLAN's
options ``0`` … ``5`` under the heading ``選択肢：``. English double quotes become 「」. Pattern 3's stray space
before "Sentence 2" is kept; pattern 6 ends its request with "?" in English, the translation with 。.

The reference and the shots' answer is the score as text (``2.2``; FLAN's own target is the rounded integer,
README: Deviations and decisions). Every template reads the answer with the dataset's one rule ([SCORE]: the first
number of the NFKC-normalised answer, full-width digits included); each ``regex`` is a number 0–5 with optional
decimals (``format_adherence``).
"""

from lm_eval_enterprise.tasks.nlu.jsts.source import JSTS

from lm_eval_enterprise.prompting import flan
from lm_eval_enterprise.prompting.templating import DatasetTasks, Template
from lm_eval_enterprise.scoring.filters import SCORE_FORMAT

# FLAN v2 PATTERNS["stsb"][0:8], verbatim (FLAN's field names: {sentence1}, {sentence2}, {options_})
EN_PATTERNS = (
    '{sentence1}\n{sentence2}\n\nRate the textual similarity of these two sentences on a scale from 0 to 5, where 0 is "no '
    'meaning overlap" and 5 is "means the same thing".\n\n{options_}',
    '{sentence1}\n{sentence2}\n\nOn a scale from 0 to 5, where 0 is "no meaning overlap" and 5 is "means the same '
    'thing", how closely does the first sentence resemble the second one?\n\n{options_}',
    'Sentence 1: {sentence1}\n\n Sentence 2: {sentence2}\n\nFrom 0 to 5 (0="no meaning overlap" and 5="means the same '
    'thing"), how similar are the two sentences?\n\n{options_}',
    "Select from options: How similar are the following two sentences?\n\n{sentence1}\n{sentence2}\n\nGive the answer on "
    'a scale from 0 - 5, where 0 is "not similar at all" and 5 is "means the same thing".\n\n{options_}',
    "Single/multi-select question: Do the following sentences say the same thing?\n\n{sentence1}\n{sentence2}\n\nReturn "
    'your answer on a scale from 0 to 5, where 0 is "not similar" and 5 is "very similar".\n\n{options_}',
    'Rate the similarity of the following two sentences on a scale from 0 to 5, where 0 is "no meaning overlap" and 5 is '
    '"means the same thing"?\n\n{sentence1}\n{sentence2}\n\n{options_}',
    'On a scale from 0-5, where 0 is "not similar" and 5 is "very similar", how similar is the sentence "{sentence1}" to '
    'the sentence "{sentence2}"?\n\n{options_}',
    'How similar are these two sentences, on a scale from 0-5 (0 is "not similar" and 5 is "very similar")?\n\n'
    "{sentence1}\n{sentence2}\n\n{options_}",
)
# our Japanese translation, pattern by pattern (same fields, same order, same place of the options)
JA_PATTERNS = (
    "{sentence1}\n{sentence2}\n\nこの二つの文のテキストとしての類似度を、0が「意味の重なりがない」、5が「同じ意味である」"
    "を表す0から5の尺度で評価してください。\n\n{options_}",
    "{sentence1}\n{sentence2}\n\n0が「意味の重なりがない」、5が「同じ意味である」を表す0から5の尺度で、1つ目の文は2つ目の"
    "文にどの程度似ていますか？\n\n{options_}",
    "文1：{sentence1}\n\n 文2：{sentence2}\n\n0から5で（0＝「意味の重なりがない」、5＝「同じ意味である」）、二つの文は"
    "どの程度似ていますか？\n\n{options_}",
    "選択肢から選んでください：次の二つの文はどの程度似ていますか？\n\n{sentence1}\n{sentence2}\n\n0が「まったく似ていない」、"
    "5が「同じ意味である」を表す0～5の尺度で答えてください。\n\n{options_}",
    "単一／複数選択問題：次の文は同じことを言っていますか？\n\n{sentence1}\n{sentence2}\n\n0が「似ていない」、5が「非常に"
    "似ている」を表す0から5の尺度で答えを返してください。\n\n{options_}",
    "次の二つの文の類似度を、0が「意味の重なりがない」、5が「同じ意味である」を表す0から5の尺度で評価してください。\n\n"
    "{sentence1}\n{sentence2}\n\n{options_}",
    "0が「似ていない」、5が「非常に似ている」を表す0～5の尺度で、文「{sentence1}」は文「{sentence2}」にどの程度似て"
    "いますか？\n\n{options_}",
    "この二つの文は、0～5の尺度（0は「似ていない」、5は「非常に似ている」）で、どの程度似ていますか？\n\n{sentence1}\n"
    "{sentence2}\n\n{options_}",
)
SCORE_OPTIONS = ("0", "1", "2", "3", "4", "5")  # FLAN's stsb options
OPTIONS = flan.options_block(SCORE_OPTIONS, "ja")
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
        note=f"FLAN stsb pattern {k}, translated into Japanese (ours)",
    )
    for k, (pattern, axes) in enumerate(zip(JA_PATTERNS, AXES), 1)
]

TASKS = DatasetTasks(
    source=JSTS,
    primary_metric="pearson",
    templates=TEMPLATES,
    num_fewshot=0,
    doc_to_target="{{target}}",
    until=(),
    answer_stop="\n",
    # "3.8" is 3 tokens; a full-width "３．８" up to 9 for an English byte-level BPE
    max_gen_toks=8,
    suite="nlu",
    language="ja",
    pair="stsb",
    test_split="valid",
    fewshot_split="fewshot",
    target_delimiter="\n",
    fewshot_delimiter="\n\n",
    lead_ins=("答え",),
)
