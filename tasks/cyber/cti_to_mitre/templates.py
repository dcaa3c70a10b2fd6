"""Instruction templates of cti_to_mitre (t1 = HELM ``cti_to_mitre`` with DATASETS.md's instruction).

Every template shows the same 10 options (A–J, J = Others) in the same order and expects the bare letter; 1 new
token, stop ``"\\n"``. The filter extracts a letter with the template's regex and verbalises it over
``doc["label_names"]`` (the letters A–J); ``hooks.multiple_choice`` compares it with ``doc["answer_letter"]``.
"""
from lm_eval_enterprise.templating import DatasetTasks, Template

OPTIONS = "{% for c in choices %}{{ 'ABCDEFGHIJ'[loop.index0] }}. {{ c }}\n{% endfor %}"
ACC = r"^\(?([A-J])"                 # [ACC]: first char A–J after optional "(" (the completion is stripped first)
LETTER_WORD = r"^\(?([A-J])(?![A-Za-z])"  # a letter standing alone ("B", "B.", "(B)"), not the start of a word

TEMPLATES = [
    Template("t1",
             description="Classify the following situation by the type of security attack. Answer with only a "
                         "single letter.\n\n",
             doc_to_text="Situation: {{question}}\n" + OPTIONS + "Answer:",
             regex=ACC, axes=("helm",), note="HELM block Situation / A.–J. / Answer; [ACC] letter parsing."),
    Template("t2",
             description="Which MITRE ATT&CK technique does the following cyber threat intelligence sentence "
                         "describe? Choose Others if none of the listed techniques applies. Reply with the letter "
                         "of your choice.\n\n",
             doc_to_text="Sentence: {{question}}\nOptions:\n" + OPTIONS + "Letter:",
             regex=LETTER_WORD, axes=("instruction_wording", "field_labels")),
    Template("t3",
             description="Task: map a threat report sentence to an ATT&CK enterprise technique.\n"
                         "Output format: one capital letter from A to J, nothing else.\n\n",
             doc_to_text="Input: {{question}}\n" + OPTIONS + "Output:",
             regex=LETTER_WORD, axes=("instruction_wording", "field_labels", "answer_format")),
    Template("t4",
             description="You are a SOC analyst triaging threat intelligence. For each observed behaviour, pick the "
                         "attack technique it corresponds to. Start your answer with the option letter.\n\n",
             doc_to_text="Observed behaviour: {{question}}\n" + OPTIONS + "Technique:",
             regex=LETTER_WORD, axes=("persona", "field_labels")),
    Template("t5",
             doc_to_text="{{question}}\nQuestion: Which type of security attack does this describe?\n" + OPTIONS
                         + "Answer:",
             regex=ACC, axes=("no_instruction", "question_format")),
]

TASKS = DatasetTasks(
    dataset="cti_to_mitre", domain="cyber", family="multiple_choice", primary_metric="accuracy",
    templates=TEMPLATES, num_fewshot=10, doc_to_target="{{answer_letter}}", max_gen_toks=1, until=("\n",),
    verbalise=True, extra_metadata={"option_seed": 42, "num_options": 10},
)
