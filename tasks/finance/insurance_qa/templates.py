"""Instruction templates of insurance_qa: two tables over the same prompts (lm_eval_enterprise.data.ranking.ranking_task_tables).

* ``ent_insurance_qa`` (in ``enterprise_finance``): log-probability scoring (HELM binary ranking), one lm-eval doc
  per (question, candidate answer), ``multiple_choice`` over [No, Yes].
* ``ent_insurance_qa_gen`` (standalone group): generated yes/no for backends without log-probabilities; never
  pooled with the first table.

t1 is the HELM MS MARCO block (Passage = answer, Query = question), identical to fiqa_qa t1.
The generation-based table reads yes/no with the same [PARSE] rule in every template; ``regex`` is only the exact
format asked for (``format_adherence``).
"""

from lm_eval_enterprise.tasks.finance.insurance_qa.source import InsuranceQA

from lm_eval_enterprise.data.ranking import YES_NO_FORMAT, ranking_task_tables
from lm_eval_enterprise.prompting.templating import Template

TEMPLATES = [
    Template(
        "t1",
        doc_to_text="Passage: {{passage}}\nQuery: {{question}}\nDoes the passage answer the query?\nAnswer:",
        regex=YES_NO_FORMAT,
        axes=("helm",),
        note="HELM MS MARCO binary-ranking block; no instructions.",
    ),
    Template(
        "t2",
        description="Decide whether the answer below correctly answers the customer's insurance question. "
        "Answer Yes or No.\n\n",
        doc_to_text="Customer question: {{question}}\nAgent answer: {{passage}}\nCorrect:",
        regex=YES_NO_FORMAT,
        axes=("instruction_wording", "field_labels", "field_order"),
    ),
    Template(
        "t3",
        description="You are an experienced insurance agent reviewing replies to policyholders. Say Yes if "
        "the reply answers the question, otherwise say No.\n\n",
        doc_to_text="Q: {{question}}\nReply: {{passage}}\nA:",
        regex=YES_NO_FORMAT,
        axes=("persona", "field_labels", "field_order"),
    ),
    Template(
        "t4",
        description="Task: answer selection for insurance questions.\nInput: a question and a candidate "
        "answer.\nOutput format: a single word, Yes or No.\n\n",
        doc_to_text="Input question: {{question}}\nInput answer: {{passage}}\nOutput:",
        regex=YES_NO_FORMAT,
        axes=("instruction_wording", "field_labels", "answer_format"),
    ),
    Template(
        "t5",
        doc_to_text='{{passage}}\nQuestion: Is the text above a good answer to "{{question}}"?\nAnswer:',
        regex=YES_NO_FORMAT,
        axes=("no_instruction", "question_format"),
    ),
]

TASKS = ranking_task_tables(InsuranceQA, TEMPLATES)
