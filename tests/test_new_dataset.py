"""docs/adding.md followed step by step: a toy 26th dataset, kept outside the repository, end to end.

The test writes the dataset folder ``hr/toy_quiz/`` of a temporary task root with exactly the files the guide
names — ``source.py``, ``templates.py``, ``make_fixture.py``, ``README.md``, ``test_toy_quiz.py`` — runs its
fixture generator (``fixture/`` with ``MANIFEST.json``) and ``scripts/generate_tasks.py --root`` (the YAMLs), and
points ``$LM_EVAL_ENTERPRISE_TASK_PATH`` at the root. Then:

* the registry finds it, and the checks of ``tests/data/test_datasets.py`` that every dataset passes pass for it;
* lm-eval's own ``TaskManager`` (the root as include path) and ``simple_evaluate`` run its five templates: the
  gold answer scores 1.0 on every one, an unreadable answer 0.0 and a format failure;
* a scripted model right on 4, 3, 2, 1 and 0 of the 4 test questions under t1 … t5, saved as lm-eval's CLI saves
  a run, gives the Sharpe tool μ, σ and S computed here by hand.
"""

import importlib
import math
import subprocess
import sys
from pathlib import Path

import lm_eval
import pytest
import test_dataset_facts as dataset_facts
from lm_eval.loggers import EvaluationTracker
from lm_eval.tasks import TaskManager

from conftest import OFFLINE_ENV
from lm_eval_enterprise import cli
from lm_eval_enterprise import data as D
from lm_eval_enterprise.data.tasktree import ENV_TASK_PATH, folder_package
from lm_eval_enterprise.harness.runner import save_results
from lm_eval_enterprise.sharpe.pipeline import aggregate
from testkit.testing import GarbageLM, OracleLM

sys.path.insert(0, str(Path(__file__).resolve().parent / "data"))  # the suite every dataset passes: tests/data/
import test_datasets as every_dataset  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
TOY = "toy_quiz"
TASKS = [f"ent_{TOY}__t{k}" for k in range(1, 6)]

# ------------------------------------------------------------------------------------------------ the toy folder
SOURCE_PY = r'''"""toy_quiz — a four-option workplace-policy quiz (the worked example of docs/adding.md).

Source layout: one JSON-lines file ``toy_quiz.jsonl``, a row per question: ``qid``, ``split`` (train | test),
``question``, ``options`` (four strings), ``correct`` (0-based index of the right option).
"""

from pathlib import Path

from lm_eval_enterprise.data import (
    DataError,
    RemoteFile,
    Source,
    mc_fields,
    read_jsonl_lines,
    require_columns,
    unverified,
)

FILE = "toy_quiz.jsonl"
LETTERS = "ABCD"  # four options per question
COLUMNS = ("qid", "split", "question", "options", "correct")
SPLITS = ("train", "test")


def to_record(row: dict, where: str) -> dict:
    """One row → the multiple-choice record ``{id, question, choices, answer}``."""
    require_columns(row, COLUMNS, "toy_quiz", where)
    rec = {"id": str(row["qid"]), "question": row["question"], "choices": list(row["options"]), "answer": row["correct"]}
    try:
        if len(rec["choices"]) != len(LETTERS):
            raise ValueError(f"{len(rec['choices'])} options, expected {len(LETTERS)}")
        mc_fields(rec)  # the answer must index the choices
    except ValueError as exc:
        raise DataError("toy_quiz", where, str(exc)) from exc
    return rec


class ToyQuiz(Source):
    id = "toy_quiz"
    domain = "hr"
    task_type = "multiple_choice"
    files = (RemoteFile(FILE, "https://example.org/toy_quiz.jsonl"),)
    expected_rows = {s: unverified(None, "a toy file: not counted") for s in SPLITS}

    def convert(self, raw_dir: Path) -> dict[str, list[dict]]:
        rows, lines = read_jsonl_lines(raw_dir / FILE, self.id)
        out = {s: [] for s in SPLITS}
        for row, n in zip(rows, lines):
            where = f"{raw_dir / FILE}:{n}"
            if row.get("split") not in out:
                raise DataError(self.id, where, f"split {row.get('split')!r} is not one of {list(SPLITS)}")
            out[row["split"]].append(to_record(row, where))
        return out


SOURCE = ToyQuiz()
'''

TEMPLATES_PY = r'''"""Instruction templates of toy_quiz (t1 = the reference prompt)."""

from lm_eval_enterprise.prompting.templating import DatasetTasks, Template

from .source import LETTERS

LETTER = f" ?[{LETTERS}]"  # the bare option letter
OPTIONS = "".join(f"\n{letter}. {{{{choices[{i}]}}}}" for i, letter in enumerate(LETTERS))

TEMPLATES = [
    Template(
        "t1",
        description="Answer with A, B, C or D.\n\n",
        doc_to_text="Question: {{question}}" + OPTIONS + "\nAnswer:",
        regex=LETTER,
        note="The reference prompt.",
    ),
    Template(
        "t2",
        description="Pick the option that follows the company policy. Reply with its letter only.\n\n",
        doc_to_text="Policy question: {{question}}" + OPTIONS + "\nLetter:",
        regex=LETTER,
        axes=("instruction_wording", "field_labels"),
    ),
    Template(
        "t3",
        description="Read the workplace question and choose the correct option (A-D).\n\n",
        doc_to_text="Q: {{question}}" + OPTIONS + "\nA:",
        regex=LETTER,
        axes=("instruction_wording", "field_labels"),
    ),
    Template(
        "t4",
        description="Task: HR policy quiz.\nOutput format: one capital letter (A, B, C or D), nothing else.\n\n",
        doc_to_text="Input: {{question}}" + OPTIONS + "\nOutput:",
        regex=LETTER,
        axes=("answer_format", "field_labels"),
    ),
    Template(
        "t5",
        description="You are an HR officer answering staff questions. Respond with a single letter.\n\n",
        doc_to_text="Staff question: {{question}}" + OPTIONS + "\nCorrect option:",
        regex=LETTER,
        axes=("persona", "field_labels"),
    ),
]

TASKS = DatasetTasks(
    dataset="toy_quiz",
    domain="hr",
    family="multiple_choice",
    primary_metric="accuracy",
    templates=TEMPLATES,
    num_fewshot=1,
    doc_to_target="{{answer_letter}}",
    max_gen_toks=1,
)
'''

MAKE_FIXTURE_PY = r'''#!/usr/bin/env python
"""Write the toy_quiz fixture ``fixture/toy_quiz.jsonl``: invented questions in the source's exact format."""

import json
from pathlib import Path

from lm_eval_enterprise.data import generator_main, write_manifest

OPTIONS = ["Ask your manager", "Use the travel portal", "Email the CEO", "Wait a year"]
ROWS = [
    ("s1", "train", "How do you book a business trip?", OPTIONS, 1),
    ("s2", "train", "Who approves your leave first?", OPTIONS, 0),
    ("s3", "train", "When may a new starter take paid leave?", ["At once", "After probation", "Never", "Only in May"], 1),
    ("q1", "test", "Where are expense receipts filed?", ["In the expense tool", "On paper", "Nowhere", "By fax"], 0),
    ("q2", "test", "Who is told first about a sick day?", ["HR", "A colleague", "Your manager", "Nobody"], 2),
    ("q3", "test", "How are overtime hours recorded?", ["Not at all", "Verbally", "On a sticky note", "In the time sheet"], 3),
    ("q4", "test", "What do you do with a lost badge?", ["Keep quiet", "Report it to security", "Borrow one", "Go home"], 1),
]


def write(out: Path) -> None:
    keys = ("qid", "split", "question", "options", "correct")
    lines = [json.dumps(dict(zip(keys, row))) + "\n" for row in ROWS]
    (out / "toy_quiz.jsonl").write_text("".join(lines), encoding="utf-8")
    counts = {s: sum(r[1] == s for r in ROWS) for s in ("train", "test")}
    write_manifest(out, "toy_quiz", "Invented questions for the docs/adding.md example.", counts)


if __name__ == "__main__":
    generator_main(write)
'''

TEST_PY = r'''"""What is particular to toy_quiz: a row of an unknown split is one error line naming the file and line."""

import json

import pytest

from lm_eval_enterprise.data import DataError, get_source


def test_unknown_split_is_one_line_error(tmp_path):
    row = {"qid": "x", "split": "dev", "question": "?", "options": ["a", "b", "c", "d"], "correct": 0}
    (tmp_path / "toy_quiz.jsonl").write_text(json.dumps(row) + "\n")
    with pytest.raises(DataError, match=r"^\[toy_quiz\] .*toy_quiz.jsonl:1: split 'dev' is not one of"):
        get_source("toy_quiz").convert(tmp_path)
'''

README_MD = """# toy_quiz — a toy workplace-policy quiz

| | |
|---|---|
| Source | `toy_quiz.jsonl` (one JSON object per question) |
| License | CC0 (invented for the docs/adding.md example) |
| Split | `split` column: train = few-shot pool, test = evaluated |
| Metric | accuracy of the option letter (`multiple_choice` family); uniform baseline 1/4 |
| Fixture | `fixture/toy_quiz.jsonl`: 3 train / 4 test invented questions, written by `make_fixture.py` |

## How to obtain the data / what can fail

`toy_quiz.jsonl` is not published anywhere (its URL is a placeholder, so a download fails); give a copy with
`lm-eval-enterprise prepare --dataset toy_quiz --from PATH`.

## Templates

| id | prompt | answer format |
|---|---|---|
| t1 | "Answer with A, B, C or D." / `Question:` / options / `Answer:` | the bare letter |
| t2–t5 | other instructions and field labels (see `templates.py`) | the bare letter |

## Deviations and decisions

* None: the dataset is defined here.

## Leakage, imbalance and a constant predictor

NOT measured on genuine files (there are none). Four options; the best constant letter scores the largest letter
share (on the fixture 0.25 per letter of the test split). [LEAK] compares question + choices.

## Verified against genuine files

Nothing: the toy dataset has no genuine files.

## Citation

None.

## Changelog

* 1.0: first version.
"""

FILES = {
    "source.py": SOURCE_PY,
    "templates.py": TEMPLATES_PY,
    "make_fixture.py": MAKE_FIXTURE_PY,
    f"test_{TOY}.py": TEST_PY,
    "README.md": README_MD,
}


def _run(*argv) -> None:
    done = subprocess.run([sys.executable, *map(str, argv)], env=OFFLINE_ENV, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


@pytest.fixture(scope="module")
def toy_root(tmp_path_factory):
    """The guide's steps 1–4 in a temporary task root, registered through ``$LM_EVAL_ENTERPRISE_TASK_PATH``."""
    root = tmp_path_factory.mktemp("my_tasks")
    folder = root / "hr" / TOY
    folder.mkdir(parents=True)
    for name, text in FILES.items():
        (folder / name).write_text(text, encoding="utf-8")
    _run(folder / "make_fixture.py")  # step 3: fixture/ with its MANIFEST.json
    _run(REPO / "scripts" / "generate_tasks.py", "--root", root)  # step 4: the task YAMLs
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(ENV_TASK_PATH, str(root))
        D.clear_caches()
        yield root
    D.clear_caches()


def test_the_folder_holds_the_guides_files_and_is_registered(toy_root):
    folder = toy_root / "hr" / TOY
    written = {
        p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts
    }
    generated = {f"_{TOY}_template_yaml", f"_ent_{TOY}.yaml"} | {f"{t}.yaml" for t in TASKS}
    assert written == set(FILES) | {"fixture/toy_quiz.jsonl", "fixture/MANIFEST.json"} | generated
    assert not (toy_root / "_enterprise.yaml").exists()  # a user's root gets no domain or enterprise group
    assert D.dataset_dir(TOY) == folder.resolve() and D.get_source(TOY).domain == "hr"
    assert D.registry()[TOY].startswith("lm_eval_enterprise_user_tasks.")
    assert "fiqa_sa" in D.registry()  # the package's datasets stay registered


def test_the_checks_every_dataset_passes(toy_root, tmp_path, monkeypatch):
    every_dataset.test_dataset_folder_holds_every_part(TOY)
    every_dataset.test_readme_documents_source_license_fixture_templates_deviations_and_verification(TOY)
    dataset_facts.test_every_readme_has_the_section(TOY)
    every_dataset.test_generator_reproduces_the_checked_in_fixture(TOY, tmp_path / "gen")
    every_dataset.test_fixture_loads_with_its_manifest_counts_as_toy_data_and_leaks_nothing(TOY)
    every_dataset.test_manifest_count_mismatch_is_one_line_error(TOY, tmp_path / "counts")
    for var in D.OFFLINE_VARS:
        every_dataset.test_offline_without_data_says_how_to_provide(TOY, var, monkeypatch)
    own = importlib.import_module(f"{folder_package(toy_root / 'hr' / TOY)}.test_{TOY}")
    own.test_unknown_split_is_one_line_error(tmp_path)


def _evaluate(toy_root, model_factory, output_path=None):
    """lm-eval's own TaskManager (the toy root as include path) and simple_evaluate on the embedded fixture."""
    tm = TaskManager(include_path=str(toy_root), include_defaults=False, metadata={"data_root": "embedded"})
    leaves = tm.load([f"ent_{TOY}"])["tasks"]
    tracker = EvaluationTracker(output_path=str(output_path)) if output_path else None
    res = lm_eval.simple_evaluate(
        model=model_factory(leaves),
        tasks=[f"ent_{TOY}"],
        task_manager=tm,
        log_samples=True,
        bootstrap_iters=0,
        evaluation_tracker=tracker,
    )
    if tracker is not None:  # saved as lm-eval's CLI saves a run
        save_results(tracker, res, res.pop("samples"))
    return res


def test_oracle_scores_one_and_garbage_fails_format_on_every_template(toy_root):
    oracle = _evaluate(toy_root, OracleLM)
    garbage = _evaluate(toy_root, GarbageLM)
    for task in TASKS:
        assert oracle["results"][task]["accuracy,answer"] == 1.0, task
        assert oracle["results"][task]["format_failure,answer"] == 0.0, task
        assert garbage["results"][task]["accuracy,answer"] == 0.0, task
        assert garbage["results"][task]["format_failure,answer"] == 1.0, task
        meta = oracle["configs"][task]["metadata"]
        assert meta["domain"] == "hr" and meta["toy_data"] is True and meta["row_counts"], meta
        assert len(oracle["samples"][task]) == 4
        assert sorted(meta["prompt_budget"]["planned_over_templates"]) == ["t1", "t2", "t3", "t4", "t5"]
    assert oracle["results"][f"ent_{TOY}"]["score,answer"] == 1.0


RIGHT = {"t1": 4, "t2": 3, "t3": 2, "t4": 1, "t5": 0}  # test questions q1..qN answered right under each template


class ScriptedLM(OracleLM):
    """Under template t, right on questions q1 … q<RIGHT[t]>, else the letter after the gold one (readable, wrong)."""

    def generate_until(self, requests, disable_tqdm: bool = False):
        out = []
        for inst in requests:
            gold = str(self._target(inst))
            right = int(inst.doc["id"][1:]) <= RIGHT[inst.task_name.rsplit("__", 1)[1]]
            out.append(" " + (gold if right else "ABCD"[("ABCD".index(gold) + 1) % 4]))
        return out


def test_sharpe_tool_reports_the_hand_computed_mu_sigma_and_s(toy_root, tmp_path):
    res = _evaluate(toy_root, ScriptedLM, tmp_path / "out")
    assert [res["results"][t]["accuracy,answer"] for t in TASKS] == [1.0, 0.75, 0.5, 0.25, 0.0]
    report = aggregate([tmp_path / "out"], bootstrap=200, progress=False)
    rows = [r for r in report["records"] if r["level"] == "dataset" and r["scoring_mode"] == "strict"]
    assert [r["group"] for r in rows] == [f"ent_{TOY}"]
    row = rows[0]
    # by hand: accuracies 1, .75, .5, .25, 0 → μ = 2.5 / 5 = 0.5; squared deviations .25 + .0625 + 0 + .0625 + .25
    # = .625, σ (ddof 1) = √(.625 / 4) = √.15625 ≈ 0.3953; uniform baseline b = 1/4 (four options);
    # S = (μ − b) / σ = .25 / √.15625 = √.4 ≈ 0.6325
    assert row["templates"] == ["t1", "t2", "t3", "t4", "t5"] and row["n_docs"] == 4
    assert row["mean"] == pytest.approx(0.5)
    assert row["std"] == pytest.approx(math.sqrt(0.15625))
    assert row["baseline"]["value"] == pytest.approx(0.25) and row["baseline"]["method"] == "uniform"
    assert row["sharpe"] == pytest.approx(math.sqrt(0.4))
    assert not [m for m in report["messages"] if "recompute" in m], report["messages"]


# ------------------------------------------------------------------------------------------------ bad task roots
def test_a_task_root_that_is_no_folder_is_one_line_error(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(ENV_TASK_PATH, str(tmp_path / "missing"))
    with pytest.raises(D.DataError, match=rf"^\[\?\] {tmp_path / 'missing'}: \${ENV_TASK_PATH} lists this path"):
        D.registry()
    assert cli.main(["list"]) == 1
    assert (
        capsys.readouterr().err
        == f"error: [?] {tmp_path / 'missing'}: ${ENV_TASK_PATH} lists this path, which is not a folder\n"
    )


def test_a_dataset_id_defined_twice_is_one_line_error(tmp_path, monkeypatch):
    (tmp_path / "finance" / "fiqa_sa").mkdir(parents=True)
    (tmp_path / "finance" / "fiqa_sa" / "source.py").write_text("")
    monkeypatch.setenv(ENV_TASK_PATH, str(tmp_path))
    with pytest.raises(D.DataError, match=r"^\[fiqa_sa\] .*/finance/fiqa_sa: dataset id already defined by .*tasks"):
        D.registry()


def test_an_unknown_id_names_the_task_path_variable():
    with pytest.raises(D.DataError, match=rf"^\[nope\] unknown dataset id; known: .*\${ENV_TASK_PATH}"):
        D.get_source("nope")


def test_generating_a_root_without_dataset_folders_is_a_usage_error(tmp_path):
    done = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "generate_tasks.py"), "--root", str(tmp_path)],
        env=OFFLINE_ENV,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and f"--root {tmp_path}: no dataset folder" in done.stderr, done.stderr
