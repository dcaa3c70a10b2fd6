"""Instruction templates of tram (t1 = our reference prompt, docs/conventions.md#reference-template; the paper gives
none, HELM has no scenario).

The nine label names come from the data (top-9 technique IDs of the file, ATT&CK names from the STIX bundle), so
the prompts list them from each record's ``label_list`` field (Jinja, rendered per document); the list actually
used is also in the results metadata (``top_k_labels``/``top_k_technique_ids``, via ``Source.task_metadata``).
Every template reads the answer with the same [PARSE] rule (the longest name the answer starts with, so
``Obfuscated Files or Information (T1027)`` is that name); each ``regex`` is only the exact format the template asks
for (``format_adherence``), the names filled in per document from ``label_names`` (``{LABELS}``). 20 [BAL] shots;
a prompt over the model's context (``prompt_budget``; 4,096 tokens when it is not known) loses
trailing shots first.
"""

from lm_eval_enterprise.tasks.cyber.tram.source import Tram

from lm_eval_enterprise.prompting.templating import DatasetTasks, Template

NAME = " ?({LABELS})"  # one technique name, spelled as listed

TEMPLATES = [
    Template(
        "t1",
        description="Classify the following sentence from a cyber threat report by the MITRE ATT&CK technique "
        "it describes. Possible labels: {{label_list}}.\n\n",
        doc_to_text="Sentence: {{text}}\nLabel:",
        regex=NAME,
        axes=("spec",),
        note="Our reference prompt.",
    ),
    Template(
        "t2",
        description="Map each excerpt of a threat intelligence report to the ATT&CK technique it reports. "
        "Choose one of: {{label_list}}.\n\n",
        doc_to_text="Excerpt: {{text}}\nTechnique:",
        regex=NAME,
        axes=("instruction_wording", "field_labels"),
    ),
    Template(
        "t3",
        description="You are a CTI analyst tagging report sentences with MITRE ATT&CK Enterprise techniques. "
        "Reply with exactly one technique name from this list and nothing else: "
        "{{label_list}}.\n\n",
        doc_to_text="Report text: {{text}}\nATT&CK technique:",
        regex=NAME,
        axes=("persona", "field_labels"),
    ),
    Template(
        "t4",
        description="Task: ATT&CK technique classification.\nLabels: {{label_list}}.\nOutput format: "
        "Technique: <label>\n\n",
        doc_to_text="Input: {{text}}\nOutput:",
        regex=" ?(Technique: )?({LABELS})",
        axes=("task_card", "field_labels", "answer_format"),
        note="The instruction asks for 'Technique: <label>', the shots show the bare name: both are the format.",
    ),
    Template(
        "t5",
        description="Options: {{label_list}}.\n\n",
        doc_to_text="{{text}}\nQuestion: Which ATT&CK technique does this sentence describe?\nAnswer:",
        regex=NAME,
        axes=("options_only_instruction", "question_format"),
        note="The option list is stated once, before the shots (not repeated in every shot).",
    ),
]

TASKS = DatasetTasks(
    source=Tram,
    primary_metric="macro_f1",
    templates=TEMPLATES,
    num_fewshot=20,
    max_gen_toks=16,
    until=("\n",),
    extra_metadata={
        "top_k": 9,
        "top_k_rule": "the 9 technique IDs with the most sentences in single_label.json (ties by ID), "
        "split first (Random(1234), 30 % test); names and IDs used are in "
        "metadata.top_k_labels / top_k_technique_ids",
    },
)
