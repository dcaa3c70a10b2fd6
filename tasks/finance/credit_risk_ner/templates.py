"""Instruction templates of credit_risk_ner (t1 = our prompt, BloombergGPT-style phrase-list NER; the reference prompt,
docs/conventions.md#reference-template).

Every template keeps the four types (person, organization, location, miscellaneous) and the target format
``entity (type), entity (type)`` / ``None``. Every template reads the answer the same way ([PARSE]): the [EF1]
parser of the metric on the completion, a format failure iff it finds nothing readable; each ``regex`` is only the
exact format asked for (``format_adherence``). 20 shots within the model's context (``shots_used`` in the results).
"""

from lm_eval_enterprise.tasks.finance.credit_risk_ner.source import ENTITY_TYPES, NO_ENTITY, CreditRiskNer

from lm_eval_enterprise.prompting.templating import DatasetTasks, Template
from lm_eval_enterprise.scoring.filters import entity_item, list_format

LIST_OR_NONE = list_format(entity_item("|".join(ENTITY_TYPES)), NO_ENTITY)

TEMPLATES = [
    Template(
        "t1",
        description="Extract the named entities of type person, organization, location and miscellaneous "
        "from the sentence. List each entity followed by its type in parentheses, separated by "
        'commas, e.g. "Acme Corp (organization), New York (location)". If there are none, answer '
        '"None".\n\n',
        doc_to_text="Sentence: {{text}}\nEntities:",
        regex=LIST_OR_NONE,
        axes=("spec",),
        note="Our reference prompt (the paper follows BloombergGPT's phrase-list NER).",
    ),
    Template(
        "t2",
        description="Find the people, organizations, locations and other named entities (miscellaneous) in "
        "this excerpt of a loan agreement. Write them as a comma-separated list in the form "
        '"name (type)"; write "None" if there is no entity.\n\n',
        doc_to_text="Text: {{text}}\nNamed entities:",
        regex=LIST_OR_NONE,
        axes=("instruction_wording", "field_labels"),
    ),
    Template(
        "t3",
        description="You are a credit analyst reviewing SEC filings. Tag every named entity in the sentence "
        "as person, organization, location or miscellaneous. Answer with entity (type) pairs "
        "separated by commas, in the order they appear, or None.\n\n",
        doc_to_text="Input: {{text}}\nOutput:",
        regex=LIST_OR_NONE,
        axes=("persona", "field_labels"),
    ),
    Template(
        "t4",
        description="Task: named entity recognition.\nEntity types: person, organization, location, "
        "miscellaneous.\nOutput format: entity (type), entity (type), ... — or None when the "
        "sentence mentions no entity.\n\n",
        doc_to_text="Sentence: {{text}}\nAnswer:",
        regex=LIST_OR_NONE,
        axes=("task_card", "field_labels", "answer_format"),
    ),
    Template(
        "t5",
        description="Entity types: person, organization, location, miscellaneous. Give each entity as entity "
        "(type), or None.\n\n",
        doc_to_text="{{text}}\nQuestion: Which named entities does the sentence mention?\nAnswer:",
        regex=LIST_OR_NONE,
        axes=("types_only_instruction", "question_format"),
        note="The types and the answer format are stated once, before the shots (not in every shot).",
    ),
]

TASKS = DatasetTasks(
    source=CreditRiskNer,
    primary_metric="entity_f1",
    templates=TEMPLATES,
    num_fewshot=20,
    max_gen_toks=100,
    until=("\n",),
    doc_to_target="{{target}}",
    extra_metadata={"entity_types": ["person", "organization", "location", "miscellaneous"]},
)
