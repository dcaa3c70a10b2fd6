"""Issue #10 item 7: the demo prompts the instruct model through its chat template with lm-eval's chat defaults
(shots as multi-turn messages, no target delimiter before a log-likelihood answer), and reports format failures.
Run on a tiny random chat model (its template: ``<|role|>\\ncontent<|endoftext|>``) with a two-dataset slice."""

import json
from pathlib import Path

import pytest
import yaml

from lm_eval_enterprise import TASK_DIR
from lm_eval_enterprise.cli import demo
from lm_eval_enterprise.harness.models import build_tiny_model
from lm_eval_enterprise.taskmeta import TaskMeta


@pytest.fixture(scope="module")
def chat_model(tmp_path_factory):
    return build_tiny_model(tmp_path_factory.mktemp("tiny-chat"), chat=True)


def _samples(out_dir, task):
    files = list(out_dir.glob(f"*/samples_{task}_*.jsonl"))
    assert len(files) == 1, files
    return [json.loads(line) for line in files[0].read_text().splitlines()]


def _results(out_dir):
    files = list(out_dir.glob("*/results_*.json"))
    assert len(files) == 1, files
    return json.loads(files[0].read_text())


@pytest.mark.parametrize("chat", [True, False])
def test_demo_prompts_through_the_chat_template(chat_model, tmp_path, monkeypatch, capsys, chat):
    monkeypatch.setattr(demo, "SLICE", ["ent_kpi_edgar", "ent_fiqa_qa"])  # a generate and a log-likelihood table
    out = tmp_path / "out"
    assert demo.run_demo(limit=1, out_dir=str(out), model_dir=str(chat_model), chat_template=chat) == 0
    printed = capsys.readouterr().out
    assert ("with its chat template" if chat else "WITHOUT its chat template") in printed
    assert "format failures: " in printed and "of generated answers" in printed

    res = _results(out)
    assert res["fewshot_as_multiturn"] is chat and (res["chat_template"] is not None) is chat
    gen = _samples(out, "ent_kpi_edgar__t1")[0]
    prompt = gen["arguments"]["gen_args_0"]["arg_0"]
    shots = res["configs"]["ent_kpi_edgar__t1"]["metadata"]["prompt_budget"]["mean_shots_used"]
    if chat:
        # instruction as the system message, every shot a user turn + an assistant answer, then the open turn
        assert prompt.startswith("<|system|>\n") and prompt.endswith("<|assistant|>\n")
        assert prompt.count("<|user|>\n") == shots + 1 and prompt.count("<|assistant|>\n") == shots + 1
    else:
        assert "<|user|>" not in prompt and prompt.endswith(":")
    ll = _samples(out, "ent_fiqa_qa__t1")[0]
    continuations = [a["arg_1"] for a in ll["arguments"].values()]
    # lm-eval's chat default for log-likelihood tasks: no target delimiter before the answer
    assert sorted(continuations) == (["No", "Yes"] if chat else [" No", " Yes"])


def test_demo_runs_whole_headlines_and_whole_queries():
    """``limit`` items per variant: n documents, n whole headlines of gold_news (one document per question),
    a ranking task's whole query."""
    assert demo._demo_docs(TaskMeta(), 4) == 4
    assert demo._demo_docs(TaskMeta(questions=("a", "b", "c")), 4) == 12
    assert demo._demo_docs(TaskMeta(candidates_per_query=20), 4) == 20
    # what the generated variants state (the demo reads the same schema the generator writes)
    for task, n in (("ent_gold_news__t1", 4 * 9), ("ent_fiqa_qa__t1", 20), ("ent_kpi_edgar__t1", 4)):
        path = next(Path(TASK_DIR).glob(f"*/*/{task}.yaml"))
        meta = yaml.load(path.read_text(), Loader=yaml.BaseLoader)["metadata"]  # BaseLoader: skips !function tags
        assert demo._demo_docs(TaskMeta.from_metadata(meta), 4) == n, task


def test_the_slice_holds_one_nlu_dataset():
    """Five enterprise datasets and one of the NLU suite, CoLA (zero-shot, short sentences, a few answer tokens):
    the cheapest NLU task, run with all eight templates."""
    assert [g for g in demo.SLICE if not g.startswith("ent_")] == ["nlu_cola"]
    assert len(demo.SLICE) == 6


def test_demo_shows_the_nlu_dataset_in_its_table_and_leaderboard(chat_model, tmp_path, monkeypatch, capsys):
    """The NLU dataset's eight templates in the demo's score table, and a row of its own suite in the Sharpe
    leaderboard (never pooled with the enterprise datasets)."""
    monkeypatch.setattr(demo, "SLICE", ["ent_kpi_edgar", "nlu_cola"])
    assert demo.run_demo(limit=2, out_dir=str(tmp_path / "out"), model_dir=str(chat_model)) == 0
    printed = capsys.readouterr().out
    (row,) = [line for line in printed.splitlines() if line.startswith("| nlu_cola (mcc) |")]
    assert len(row.split("|")) == 1 + 1 + 8 + 1  # the name cell and t1..t8
    assert "| dataset (metric) | t1 | t2 | t3 | t4 | t5 | t6 | t7 | t8 |" in printed
    board = printed.split("Sharpe score across templates")[1]
    assert "**enterprise** (mean over its datasets only)" in board and "**nlu** (mean over its datasets only)" in board
    nlu_table = board.split("**nlu**")[1].split("\n\n")[1]
    assert nlu_table.splitlines()[0].endswith("| nlu_cola |")
    assert "### nlu_cola — mcc (nlu)" in board and "| nlu overall |" in board
