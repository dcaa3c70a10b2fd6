"""Instruction templates of iotspotter (t1 = our reference prompt, docs/conventions.md#reference-template; the paper
gives none, HELM has no scenario).

Label set ``iot`` / ``non-iot``. 14 [BAL] shots (7 + 7), descriptions cut to 150 words in the shots; a prompt over
the model's context (``prompt_budget``; 4,096 tokens when it is not known) loses trailing shots
first, then the end of the evaluated description ([BAL] last paragraph, [TRUNC]).
Every template reads the answer with the same [PARSE] rule (it tries the longest label first, so ``non-iot`` is
never read as ``iot``); each ``regex`` is only the exact format the template asks for (``format_adherence``).
"""

from lm_eval_enterprise.tasks.cyber.iotspotter.source import LABELS, IoTSpotter

from lm_eval_enterprise.prompting.templating import DatasetTasks, Template
from lm_eval_enterprise.scoring.filters import label_format

LABEL = label_format(LABELS)  # the bare label
STARTS = label_format(LABELS, start=True)  # the answer starts with the label

TEMPLATES = [
    Template(
        "t1",
        description="Based on its Google Play description, is the following app an IoT (Internet of Things) "
        'companion app? Answer only "iot" or "non-iot".\n\n',
        doc_to_text="Description: {{text}}\nAnswer:",
        regex=LABEL,
        axes=("spec",),
        note="Our reference prompt.",
    ),
    Template(
        "t2",
        description="Classify each Android app as iot (it controls or connects to a smart device) or non-iot "
        "from its store description.\n\n",
        doc_to_text="App description: {{text}}\nLabel:",
        regex=LABEL,
        axes=("instruction_wording", "field_labels"),
    ),
    Template(
        "t3",
        description="You are a mobile security analyst building an inventory of IoT companion apps. Read the "
        "pre-processed Play Store description and reply with iot or non-iot first.\n\n",
        doc_to_text="Store text: {{text}}\nVerdict:",
        regex=STARTS,
        axes=("persona", "field_labels"),
    ),
    Template(
        "t4",
        description="Task: IoT app detection.\nLabels: iot, non-iot.\nOutput format: one label.\n\n",
        doc_to_text="Input: {{text}}\nOutput:",
        regex=LABEL,
        axes=("task_card", "field_labels", "answer_format"),
    ),
    Template(
        "t5",
        doc_to_text="{{text}}\nQuestion: Is the app described above an IoT companion app (iot) or not "
        "(non-iot)?\nAnswer:",
        regex=LABEL,
        axes=("no_instruction", "question_format"),
    ),
]

TASKS = DatasetTasks(
    source=IoTSpotter,
    primary_metric="binary_f1",
    templates=TEMPLATES,
    num_fewshot=14,
    max_gen_toks=5,
    until=("\n",),
    extra_metadata={"positive_label": "iot", "truncation_words": {"fewshot": 150}},
)
