"""Instruction templates of cti_to_mitre (t1 = HELM ``cti_to_mitre`` with our instruction; the reference prompt,
docs/conventions.md#reference-template).

Every template shows the same 10 options (A–J, J = Others) in the same order and expects the bare letter; 1 new
token, stop ``"\\n"``. Every template reads the letter with the same [PARSE] rule over ``doc["label_names"]``
(the letters A–J: ``B``, ``(B)``, ``B.``, ``Answer: B``, ``**B**`` → B); ``hooks.multiple_choice`` compares it with
``doc["answer_letter"]``. Each ``regex`` is only the exact format the template asks for (``format_adherence``).
t1 (HELM's prompt) also reports HELM's rule (the whole completion is exactly the gold letter) as ``accuracy_helm``.
"""

from lm_eval_enterprise.tasks.cyber.cti_to_mitre.source import CtiToMitre

from lm_eval_enterprise.prompting.templating import DatasetTasks, Template

OPTIONS = "{% for c in choices %}{{ 'ABCDEFGHIJ'[loop.index0] }}. {{ c }}\n{% endfor %}"
LETTER = " ?[A-J]"  # the bare option letter
STARTS = " ?[A-J]([^A-Za-z0-9].*)?"  # the answer starts with the option letter

TEMPLATES = [
    Template(
        "t1",
        description="Classify the following situation by the type of security attack. Answer with only a "
        "single letter.\n\n",
        doc_to_text="Situation: {{question}}\n" + OPTIONS + "Answer:",
        regex=LETTER,
        axes=("helm",),
        note="HELM block Situation / A.–J. / Answer.",
    ),
    Template(
        "t2",
        description="Which MITRE ATT&CK technique does the following cyber threat intelligence sentence "
        "describe? Choose Others if none of the listed techniques applies. Reply with the letter "
        "of your choice.\n\n",
        doc_to_text="Sentence: {{question}}\nOptions:\n" + OPTIONS + "Letter:",
        regex=LETTER,
        axes=("instruction_wording", "field_labels"),
    ),
    Template(
        "t3",
        description="Task: map a threat report sentence to an ATT&CK enterprise technique.\n"
        "Output format: one capital letter from A to J, nothing else.\n\n",
        doc_to_text="Input: {{question}}\n" + OPTIONS + "Output:",
        regex=LETTER,
        axes=("instruction_wording", "field_labels", "answer_format"),
    ),
    Template(
        "t4",
        description="You are a SOC analyst triaging threat intelligence. For each observed behaviour, pick the "
        "attack technique it corresponds to. Start your answer with the option letter.\n\n",
        doc_to_text="Observed behaviour: {{question}}\n" + OPTIONS + "Technique:",
        regex=STARTS,
        axes=("persona", "field_labels"),
    ),
    Template(
        "t5",
        doc_to_text="{{question}}\nQuestion: Which type of security attack does this describe?\n" + OPTIONS + "Answer:",
        regex=LETTER,
        axes=("no_instruction", "question_format"),
    ),
]

TASKS = DatasetTasks(
    source=CtiToMitre,
    primary_metric="accuracy",
    templates=TEMPLATES,
    num_fewshot=10,
    doc_to_target="{{answer_letter}}",
    max_gen_toks=1,
    until=("\n",),
    extra_metadata={"option_seed": 42, "num_options": 10},
)
