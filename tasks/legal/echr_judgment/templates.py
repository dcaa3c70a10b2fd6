"""Instruction templates of echr_judgment (t1 = HELM ``echr_judgment_classification``).

HELM's instruction block carries two fixed trivial demonstrations (a "No" and a "Yes" case) before the 5 [BAL]
shots from EN_train. Greedy, at most 3 new tokens (HELM: 1; the spec allows 3), stop at the first newline.
Every template keeps the labels Yes / No and reads the answer with the same [PARSE] rule; each ``regex`` is only
the exact format the template asks for (``format_adherence``). t1 (HELM's prompt) also reports HELM's rule (the
whole normalised completion is a label) as ``weighted_f1_helm``; the two differ only on completions holding more
than the label (HELM generates 1 token, we allow 3).
Prompts over the model's context (``prompt_budget``; 4,096 tokens when it is not known) lose
trailing shots first, as HELM does.
"""

from lm_eval_enterprise.tasks.legal.echr_judgment.source import EchrJudgment

from lm_eval_enterprise.prompting.templating import DatasetTasks, Template
from lm_eval_enterprise.scoring.filters import label_format

LABEL = label_format(EchrJudgment.labels)  # the bare label

HELM_INSTRUCTION = (
    "Is the following case a violation of human rights?\n\n"
    "Case: Human rights have not been violated.\nAnswer: No\n\n"
    "Case: Human rights have been violated.\nAnswer: Yes\n\n"
)

TEMPLATES = [
    Template(
        "t1",
        description=HELM_INSTRUCTION,
        doc_to_text="Case: {{text}}\nAnswer:",
        regex=LABEL,
        axes=("helm",),
        note="HELM prompt: instruction + two fixed demonstrations, input noun Case, output noun Answer.",
    ),
    Template(
        "t2",
        description="Read the facts of a case brought before the European Court of Human Rights and say "
        "whether the Court found a violation of the Convention. Answer Yes or No.\n\n",
        doc_to_text="Facts: {{text}}\nViolation:",
        regex=LABEL,
        axes=("instruction_wording", "field_labels", "no_fixed_demos"),
    ),
    Template(
        "t3",
        description="Did the respondent State violate at least one article of the European Convention on "
        "Human Rights in the following case?\n\n"
        "Case: The applicant's complaint was found to be unfounded in every respect.\nAnswer: No\n\n"
        "Case: The applicant's rights under the Convention were breached.\nAnswer: Yes\n\n",
        doc_to_text="Case: {{text}}\nAnswer:",
        regex=LABEL,
        axes=("instruction_wording", "fixed_demo_wording"),
    ),
    Template(
        "t4",
        description="Task: legal judgment prediction (binary).\nInput: the facts of an ECHR case.\n"
        "Output: Yes if any human rights article was violated, otherwise No. Reply with one word."
        "\n\n",
        doc_to_text="Input: {{text}}\nOutput:",
        regex=LABEL,
        axes=("instruction_wording", "field_labels", "answer_format", "no_fixed_demos"),
    ),
    Template(
        "t5",
        description="You are a judge at the European Court of Human Rights. For each case, decide whether "
        "human rights were violated.\n\n",
        doc_to_text="Case facts: {{text}}\nQuestion: Were human rights violated (Yes or No)?\nAnswer:",
        regex=LABEL,
        axes=("persona", "field_labels", "question_format", "no_fixed_demos"),
    ),
]

TASKS = DatasetTasks(
    source=EchrJudgment,
    primary_metric="weighted_f1",
    templates=TEMPLATES,
    num_fewshot=5,
    max_gen_toks=3,
    until=("\n",),
    # [BAL] last paragraph: 5 cases of up to 600 words often exceed a 4,096-token context -> the shared prompt budget
    # drops trailing shots first, then cuts the evaluated case text (keeps its beginning)
    extra_metadata={"max_words_filter": 600},
)
