"""The Sharpe tool on a run of core + population templates: the population is reported apart (estimated, with
quantiles and the worst decile), never pooled with the core set; the HF export says which set its columns are."""

import json
import zlib

import pytest
from lm_eval.loggers import EvaluationTracker

from lm_eval_enterprise import TASK_DIR
from lm_eval_enterprise.cli import sharpe as cli
from lm_eval_enterprise.harness.runner import evaluate, load_tasks, make_task_manager, save_results
from lm_eval_enterprise.prompting.population import write_population
from testkit.testing import OracleLM


class NoisyLabels(OracleLM):
    """Gold label when crc32(prompt) % 10 < 6, the other securenlp label when < 9, else garbage."""

    def generate_until(self, requests, disable_tqdm: bool = False):
        out = []
        for inst in requests:
            gold = str(self._target(inst))
            h = zlib.crc32(inst.args[0].encode()) % 10
            other = "irrelevant" if gold == "relevant" else "relevant"
            out.append(f" {gold}" if h < 6 else f" {other}" if h < 9 else " ???")
        return out


@pytest.fixture(scope="module")
def mixed_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("pop_sharpe")
    pop, out = root / "pop", root / "out"
    write_population("securenlp", 8, 0, pop)
    tm = make_task_manager([TASK_DIR, pop], data_root="embedded")
    tasks = load_tasks(tm, ["ent_securenlp", "ent_securenlp_population"])
    tracker = EvaluationTracker(output_path=str(out))
    res = evaluate(NoisyLabels(tasks.leaves), tasks.top, task_manager=tm, evaluation_tracker=tracker)
    save_results(tracker, res, res.pop("samples"))
    return out, root / "report"


def test_population_is_reported_apart_and_never_pooled(mixed_run, capsys):
    out, rep = mixed_run
    assert cli.main([str(out), "--output_path", str(rep), "--bootstrap", "50", "--no_progress"]) == 0
    printed = capsys.readouterr().out
    assert "## ESTIMATES: template populations (never pooled with the core set)" in printed
    core = json.loads((rep / "aggregate.json").read_text())
    rows = [r for r in core["records"] if r["level"] == "dataset" and r["scoring_mode"] == "strict"]
    assert {r["group"] for r in rows} == {"ent_securenlp"}
    assert all(r["templates"] == ["t1", "t2", "t3", "t4", "t5"] for r in rows)
    pop = json.loads((rep / "population_estimates.json").read_text())
    assert pop["estimate"] is True and pop["share_observed"] == 1.0  # the file says it holds estimates
    (rec,) = pop["records"]
    assert rec["group"] == "ent_securenlp_population" and rec["template_set"] == "population"
    assert rec["templates"] == [f"p00{k}" for k in range(1, 9)]
    assert rec["share"] == 1.0 and not rec["estimate"]  # run densely: exact scores
    assert rec["quantiles"] == sorted(rec["quantiles"]) and len(rec["quantiles"]) == 5
    assert rec["worst_template"] in rec["worst_decile"]
    assert rec["covariates"] > 0 and rec["ci"]["resample_templates"]
    hf = next((rep / "hf_leaderboard").rglob("results_*.json"))
    data = json.loads(hf.read_text())
    assert data["results"]["ent_securenlp"]["template_set"] == "core"
    assert data["config"]["template_set"].startswith("core")


def test_population_alone_gets_its_own_section(mixed_run, tmp_path, capsys):
    out, _ = mixed_run
    only = tmp_path / "only"
    only.mkdir()
    for f in out.rglob("*"):  # keep the population tasks' results only
        if f.is_file() and f.name.startswith("results_"):
            data = json.loads(f.read_text())
            data["configs"] = {k: v for k, v in data["configs"].items() if "__p" in k}
            data["results"] = {k: v for k, v in data["results"].items() if "__p" in k}
            (only / f.name).write_text(json.dumps(data))
        elif f.is_file() and "__p" in f.name:
            (only / f.name).write_bytes(f.read_bytes())
    assert cli.main([str(only), "--bootstrap", "20", "--no_progress"]) == 0
    assert "ent_securenlp_population" in capsys.readouterr().out


class GoldOrGarbage(OracleLM):
    """Gold answer when crc32(prompt) % 10 < 7, else garbage (a format failure)."""

    def generate_until(self, requests, disable_tqdm: bool = False):
        return [f" {self._target(i)}" if zlib.crc32(i.args[0].encode()) % 10 < 7 else " ???" for i in requests]


def test_a_population_of_a_dataset_made_of_questions_is_one_estimate(tmp_path):
    """gold_news (documents = headline × question, score = the mean over questions of weighted F1, [QMEAN]): one
    population record per model, not one per question; run densely, each template's score is lm-eval's own score
    of that task."""
    from lm_eval_enterprise.sharpe.inputs import Options
    from lm_eval_enterprise.sharpe.pipeline import estimate_populations

    pop, out = tmp_path / "pop", tmp_path / "out"
    write_population("gold_news", 3, 0, pop)
    tm = make_task_manager([TASK_DIR, pop], data_root="embedded")
    tasks = load_tasks(tm, ["ent_gold_news_population"])
    tracker = EvaluationTracker(output_path=str(out))
    res = evaluate(GoldOrGarbage(tasks.leaves), tasks.top, task_manager=tm, evaluation_tracker=tracker)
    save_results(tracker, res, res.pop("samples"))
    (rec,) = estimate_populations([str(out)], Options(bootstrap=0))["records"]
    assert rec["group"] == "ent_gold_news_population" and len(rec["questions"]) > 1
    for task, cfg in res["configs"].items():
        meta = cfg["metadata"]
        lm_eval_score = res["results"][task][f"{meta['primary_metric']},{meta['primary_filter']}"]
        assert rec["scores"][meta["template_id"]] == pytest.approx(lm_eval_score, abs=1e-12)
    assert rec["share"] == 1.0 and len(set(rec["scores"].values())) > 1
