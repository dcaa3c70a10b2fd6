"""Instruction templates of jsquad: FLAN v2's eight SQuAD v1 patterns, translated into Japanese.

English originals: ``google-research/FLAN``, file ``flan/v2/templates.py``, dict ``PATTERNS["squad_v1"]``, patterns
1–8 (9 and 10 ask the model to write a question or a title), commit ``e9e4ec6e2701182c7a91af176f705310da541277``,
Apache-2.0 (:data:`EN_PATTERNS`, quoted verbatim). Template ``t<k>`` is **our own** Japanese translation of pattern
k (:data:`JA_PATTERNS`), so that ``t<k>`` here pairs with ``t<k>`` of ``squad``: です・ます調, the same fields in
the same order (``{title}`` in patterns 1 and 8 only, as in FLAN; pattern 3 has no words to translate), "Q:" of
pattern 8 as 問：. FLAN's SQuAD patterns have no options block.

Every template reads the answer with the dataset's one rule ([SPAN]: the answer line without lead-ins, the quoted
text of a 「」 quotation, without closing punctuation and, in Japanese, without a closing copula such as です);
each ``regex`` is one line holding a character other than a space (``format_adherence``).
"""

from lm_eval_enterprise.tasks.nlu.jsquad.source import JSQuAD

from lm_eval_enterprise.prompting import flan
from lm_eval_enterprise.prompting.templating import DatasetTasks, Template
from lm_eval_enterprise.scoring.filters import SPAN_FORMAT

# FLAN v2 PATTERNS["squad_v1"][0:8], verbatim (FLAN's field names: {title}, {context}, {question})
EN_PATTERNS = (
    "Please answer a question about the following article about {title}:\n\n{context}\n\n{question}",
    "Read this and answer the question\n\n{context}\n\n{question}",
    "{context}\n{question}",
    "Answer a question about this article:\n{context}\n{question}",
    "Here is a question about this article: {context}\nWhat is the answer to this question: {question}",
    "Article: {context}\n\nQuestion: {question}",
    "Article: {context}\n\nNow answer this question: {question}",
    "{title}\n{context}\n\nQ: {question}",
)
# our Japanese translation, pattern by pattern (same fields, same order)
JA_PATTERNS = (
    "{title}についての次の記事に関する質問に答えてください：\n\n{context}\n\n{question}",
    "これを読んで質問に答えてください\n\n{context}\n\n{question}",
    "{context}\n{question}",
    "この記事についての質問に答えてください：\n{context}\n{question}",
    "この記事についての質問です：{context}\nこの質問の答えは何ですか：{question}",
    "記事：{context}\n\n質問：{question}",
    "記事：{context}\n\nでは、この質問に答えてください：{question}",
    "{title}\n{context}\n\n問：{question}",
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
        note=f"FLAN squad_v1 pattern {k}, translated into Japanese (ours)",
    )
    for k, (pattern, axes) in enumerate(zip(JA_PATTERNS, AXES), 1)
]

TASKS = DatasetTasks(
    source=JSQuAD,
    primary_metric="char_f1",
    templates=TEMPLATES,
    num_fewshot=0,
    doc_to_target="{{target}}",
    until=(),
    answer_stop="\n",
    # the genuine dev sample's first answers: median 9, at most 38 tokens for an English byte-level BPE (SmolLM2)
    max_gen_toks=48,
    suite="nlu",
    language="ja",
    pair="squad",
    test_split="valid",
    fewshot_split="fewshot",
    target_delimiter="\n",
    fewshot_delimiter="\n\n",
    lead_ins=("答え",),
)
