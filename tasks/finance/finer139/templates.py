"""Instruction templates of finer139 (t1 = our prompt listing the 10 type names; the reference prompt,
docs/conventions.md#reference-template).

The 10 types depend on the data (top-10 of the train split, computed by the loader), so the prompts take them
from each record's ``type_list`` field (Jinja, rendered per document); the list actually used is also written to
the results metadata (``top_k_types``/``top_k_xbrl``, via ``Source.task_metadata``). Every template keeps those
types and the target format ``value (type words), …``, and reads the answer the same way ([PARSE]): the [EF1]
parser of the metric on the completion (``None`` / ``No entities`` are the empty list), a format failure iff it
finds nothing readable. Each ``regex`` is only the exact format asked for (``format_adherence``), the types filled
in per document from ``entity_types`` (``{TYPES}``).
"""

from lm_eval_enterprise.tasks.finance.finer139.source import Finer139

from lm_eval_enterprise.prompting.templating import DatasetTasks, Template
from lm_eval_enterprise.scoring.filters import entity_item, list_format

VALUES = list_format(entity_item("{TYPES}"))  # value (type), value (type), ...

TEMPLATES = [
    Template(
        "t1",
        description="Extract the numeric XBRL entities from the sentence. Possible types: {{type_list}}. List "
        "each value followed by its type in parentheses, separated by commas.\n\n",
        doc_to_text="Sentence: {{text}}\nEntities:",
        regex=VALUES,
        axes=("spec",),
        note="Our reference prompt (the paper gives no prompt).",
    ),
    Template(
        "t2",
        description="Tag the financial figures in the sentence with their XBRL element. Elements: "
        "{{type_list}}. Answer with value (element) pairs separated by commas, in sentence "
        "order.\n\n",
        doc_to_text="Text: {{text}}\nTagged values:",
        regex=VALUES,
        axes=("instruction_wording", "field_labels"),
    ),
    Template(
        "t3",
        description="You are an accountant annotating 10-K filings with US-GAAP XBRL tags. For every number in "
        "the sentence that reports one of these facts — {{type_list}} — write the number and the "
        "fact type in parentheses; separate the items with commas.\n\n",
        doc_to_text="Input: {{text}}\nOutput:",
        regex=VALUES,
        axes=("persona", "field_labels"),
    ),
    Template(
        "t4",
        description="Task: numeric named entity recognition (XBRL).\nAllowed types: {{type_list}}.\nOutput "
        "format: value (type), value (type), ...\n\n",
        doc_to_text="Sentence: {{text}}\nAnswer:",
        regex=VALUES,
        axes=("task_card", "field_labels", "answer_format"),
    ),
    Template(
        "t5",
        description="XBRL fact types: {{type_list}}.\n\n",
        doc_to_text="{{text}}\nQuestion: Which numbers in this sentence are XBRL facts of these types? Give "
        "each as value (type).\nAnswer:",
        regex=VALUES,
        axes=("types_only_instruction", "question_format"),
        note="The type list is stated once, before the shots (not repeated in every shot).",
    ),
]

TASKS = DatasetTasks(
    source=Finer139,
    primary_metric="entity_f1",
    templates=TEMPLATES,
    num_fewshot=10,
    max_gen_toks=100,
    until=("\n",),
    doc_to_target="{{target}}",
    extra_metadata={
        "top_k": 10,
        "top_k_rule": "the 10 entity types with the most IOB2 spans in the train split, ties by XBRL "
        "name; the list used is in metadata.top_k_types / top_k_xbrl",
        "eval_sample": "random.Random(0).sample(test sentences with a top-10 entity, 1000), sorted by id",
    },
)
