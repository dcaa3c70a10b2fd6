"""Instruction templates of casehold (t1 = HELM's multiple-choice-joint prompt; the reference prompt,
docs/conventions.md#reference-template).

Every template shows the citing context and the five holdings, labelled A–E in the stored order, and expects the
letter of the correct holding as the (one-token) answer; they differ in instruction wording, field labels, the
option-list layout and answer-format instructions. Scoring is [ACC] on the letter read by the same [PARSE] rule
in every template (``B``, ``(B)``, ``B.``, ``Answer: B``, ``**B**``, ``The answer is B.`` → B; ``Because`` is no
letter); each ``regex`` is only the exact format the template asks for, the bare capital letter
(``format_adherence``). t1 (HELM's prompt) also reports HELM's rule (the whole completion is exactly the gold
letter) as ``accuracy_helm``.
"""

from lm_eval_enterprise.tasks.legal.casehold.source import CaseHold

from lm_eval_enterprise.prompting.templating import DatasetTasks, Template

LETTER = " ?[A-E]"  # the bare option letter


def _options(fmt: str) -> str:
    return "".join(fmt.format(letter=letter, i=i) for i, letter in enumerate("ABCDE"))


DOT = _options("\n{letter}. {{{{choices[{i}]}}}}")  # "\nA. {{choices[0]}}" … (HELM joint adapter)
PAREN = _options("\n({letter}) {{{{choices[{i}]}}}}")  # "\n(A) {{choices[0]}}" …
CLOSE = _options("\n{letter}) {{{{choices[{i}]}}}}")  # "\nA) {{choices[0]}}" …

TEMPLATES = [
    Template(
        "t1",
        description="Give a letter answer among A, B, C, D, or E.\n\n",
        doc_to_text="Passage: {{question}}" + DOT + "\nAnswer:",
        regex=LETTER,
        axes=("helm",),
        note="HELM casehold (multiple_choice_joint).",
    ),
    Template(
        "t2",
        description="The passage below is taken from a court decision; the holding of a cited case has been "
        "replaced by <HOLDING>. Pick the holding statement that belongs there and reply with its "
        "letter only (A, B, C, D or E).\n\n",
        doc_to_text="Court decision excerpt: {{question}}\nCandidate holdings:" + DOT + "\nLetter:",
        regex=LETTER,
        axes=("instruction_wording", "field_labels"),
    ),
    Template(
        "t3",
        description="Identify the holding of the cited case. Read the citing text and the five possible "
        "holdings, then answer with the letter of the correct one.\n\n",
        doc_to_text="Citing text: {{question}}\nWhich holding fits <HOLDING>?" + PAREN + "\nAnswer:",
        regex=LETTER,
        axes=("instruction_wording", "field_labels", "option_format"),
    ),
    Template(
        "t4",
        description="Task: legal holding identification (CaseHOLD).\nInput: a citing context with a "
        "<HOLDING> placeholder and five candidate holdings A-E.\n"
        "Output format: one capital letter (A, B, C, D or E), nothing else.\n\n",
        doc_to_text="Input: {{question}}\nOptions:" + CLOSE + "\nOutput:",
        regex=LETTER,
        axes=("instruction_wording", "field_labels", "answer_format", "option_format"),
    ),
    Template(
        "t5",
        description="You are a law clerk checking the citations in a draft opinion. For each citation, choose "
        "the parenthetical holding that the cited case actually supports. Respond with a single "
        "letter from A to E.\n\n",
        doc_to_text="Draft: {{question}}\nPossible holdings:" + DOT + "\nCorrect holding:",
        regex=LETTER,
        axes=("persona", "field_labels", "question_format"),
    ),
]

TASKS = DatasetTasks(
    source=CaseHold,
    primary_metric="accuracy",
    templates=TEMPLATES,
    num_fewshot=2,
    doc_to_target="{{answer_letter}}",
    max_gen_toks=1,
    until=("\n",),
    extra_metadata={
        "n_options": 5,
        "generation_mode": "generate_until (letter), not lm-eval multiple_choice log-likelihood",
    },
    # "eval" = test, or validation when the test release carries no labels (the data layer's choice is
    # recorded as `evaluated_split` in the metadata)
    test_split="eval",
)
