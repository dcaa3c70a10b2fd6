"""Instruction templates of fiqa_qa: two tables over the same prompts.

* ``ent_fiqa_qa`` (in ``enterprise_finance``): log-probability scoring, HELM binary ranking — one lm-eval doc per
  (query, candidate), ``multiple_choice`` over [No, Yes] (index 0 = No), ranking key from ℓY and ℓN.
* ``ent_fiqa_qa_gen`` (standalone group): the model *generates* yes/no, for backends without log-probabilities
  (OpenAI-compatible chat APIs); its scores are a different measurement and are never pooled with the first table.

t1 is the HELM MS MARCO block (docs/conventions.md#reference-template); the others change instruction wording,
field labels and the answer instruction only (label set Yes/No, data, shots and targets are the same for all). The
generation-based table reads yes/no with the same [PARSE] rule in every template; ``regex`` is only the exact
format asked for (``format_adherence``).
"""

from lm_eval_enterprise.tasks.finance.fiqa_qa.source import FiqaQA

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
        description="Decide whether the forum answer below is a relevant answer to the financial question. "
        "Answer Yes or No.\n\n",
        doc_to_text="Question: {{question}}\nForum answer: {{passage}}\nRelevant:",
        regex=YES_NO_FORMAT,
        axes=("instruction_wording", "field_labels", "field_order"),
    ),
    Template(
        "t3",
        description="You are a financial advisor screening replies on an investing Q&A site. Say Yes if the "
        "reply answers the question, otherwise say No.\n\n",
        doc_to_text="Q: {{question}}\nReply: {{passage}}\nA:",
        regex=YES_NO_FORMAT,
        axes=("persona", "field_labels", "field_order"),
    ),
    Template(
        "t4",
        description="Task: answer relevance judgement for personal-finance questions.\nInput: a question and "
        "a candidate answer.\nOutput format: a single word, Yes or No.\n\n",
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

TASKS = ranking_task_tables(FiqaQA, TEMPLATES)
