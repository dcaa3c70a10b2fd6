"""End to end: lm-eval runs on the gold_news fixture, written exactly like lm-eval's CLI does (EvaluationTracker),
then aggregated by the Sharpe tool.

* two tiny random models (seed 0 and seed 1) — the real HF model path;
* two deterministic "noisy oracle" LMs (right answer for ~70 % of prompts, wrong or unparsable otherwise), so that
  per-template scores differ and the recomputation from samples is checked against lm-eval's own results values on
  non-trivial numbers.
"""

import json
import zlib

import pytest
from lm_eval.loggers import EvaluationTracker
from lm_eval.tasks import TaskManager

from lm_eval_enterprise import TASK_DIR
from lm_eval_enterprise.cli import sharpe as cli
from lm_eval_enterprise.harness.models import build_tiny_model
from lm_eval_enterprise.harness.runner import evaluate, save_results
from lm_eval_enterprise.sharpe.pipeline import aggregate, leaderboard_markdown
from testkit.testing import OracleLM, build_tasks


def _tasks(templates):
    return [f"ent_gold_news__t{k}" for k in templates]


def _save(res, out_dir):
    """What lm_eval/_cli/run.py does after simple_evaluate (lines ~440-475)."""
    tracker = res.pop("_tracker")
    save_results(tracker, res, res.pop("samples"))


def _evaluate(model, tasks, out_dir, limit, **kw):
    """One run on the embedded data (lm-eval's default seeds), saved like lm-eval's CLI does."""
    tracker = EvaluationTracker(output_path=str(out_dir))
    res = evaluate(model, tasks, data_root="embedded", limit=limit, evaluation_tracker=tracker, **kw)
    res["_tracker"] = tracker
    _save(res, out_dir)


SLICE_OTHERS = ("ent_kpi_edgar", "ent_fiqa_qa", "ent_convfinqa", "ent_legal_summarization")  # demo.SLICE


def _slice_tasks():
    """gold_news (documents = headline × question) plus the other datasets of the demo slice that exist, templates t1..t3."""
    tm = TaskManager(include_path=TASK_DIR, include_defaults=False)
    others = [f"{g}__t{k}" for g in SLICE_OTHERS for k in (1, 2, 3) if f"{g}__t{k}" in tm.all_tasks]
    return _tasks((1, 2, 3)) + others


@pytest.fixture(scope="module")
def tiny_runs(tmp_path_factory, tiny_model_dir):
    out = tmp_path_factory.mktemp("tiny_out")
    second = build_tiny_model(tmp_path_factory.mktemp("tiny-llama-seed1"), seed=1)
    tasks = _slice_tasks()
    # like the demo: 4 documents per variant, one full query (20 candidates) for ranking
    samples = {t: list(range(20 if "fiqa_qa" in t else 4)) for t in tasks}
    for d in (tiny_model_dir, second):
        _evaluate(
            "hf",
            tasks,
            out,
            limit=None,
            samples=samples,
            model_args=f"pretrained={d},dtype=float32",
            device="cpu",
            batch_size=4,
        )
    return out


class NoisyOracle(OracleLM):
    """Gold answer when crc32(prompt, seed) % 10 < 7; else the other label, or garbage (a format failure)."""

    def __init__(self, tasks, seed):
        super().__init__(tasks)
        self.seed = seed

    def generate_until(self, requests, disable_tqdm: bool = False):
        out = []
        for inst in requests:
            gold = str(self._target(inst))
            h = zlib.crc32(f"{self.seed}|{inst.args[0]}".encode()) % 10
            out.append(" " + gold if h < 7 else " " + ("No" if gold == "Yes" else "Yes") if h < 9 else " ???")
        return out


@pytest.fixture(scope="module")
def oracle_runs(tmp_path_factory):
    out = tmp_path_factory.mktemp("noisy_out")
    names = _tasks((1, 2, 3, 4, 5))
    _, tasks = build_tasks(names, "embedded")
    for seed in (0, 1):
        _evaluate(NoisyOracle(tasks, seed), names, out, limit=36, model_args=f"pretrained=noisy-oracle-{seed}")
    return out


def test_tiny_models_aggregate(tiny_runs, tmp_path, capsys):
    res = aggregate([tiny_runs], bootstrap=200, progress=False)
    assert len(res["models"]) == 2
    rows = [r for r in res["records"] if r["level"] == "dataset" and r["scoring_mode"] == "strict"]
    groups = {r["group"] for r in rows}
    assert groups == {"ent_gold_news"} | {t.split("__")[0] for t in _slice_tasks() if "gold_news" not in t}
    for r in rows:
        assert r["templates"] == ["t1", "t2", "t3"]
        assert r["baseline"]["value"] is not None
        assert 0 <= r["mean"] <= 1 and r["sharpe_status"] in ("ok", "inf", "-inf", "undefined")
        if r["group"] == "ent_gold_news":
            # the first headline's first four questions: four (headline, question) documents, keyed by doc.id
            assert r["n_docs"] == 4 and not r.get("subtasks") and r["key_source"] == "id"
            assert r["baseline"]["method"] == "uniform" and set(r["format_failure"]) == {"t1", "t2", "t3"}
        if r["group"] == "ent_fiqa_qa":
            assert r["key_source"] == "qid" and r["n_docs"] == 1 and r["format_failure"] is None
    assert not [m for m in res["messages"] if "recompute" in m], res["messages"]
    assert res["rank_stability"]["ent_gold_news"]["n_models"] == 2
    assert len(res["comparisons"]) == len(groups)
    assert set(res["macro"]["overall"]["models"]) == set(res["models"])
    out = tmp_path / "agg"
    assert cli.main([str(tiny_runs), "--out", str(out), "--bootstrap", "100", "--no-progress"]) == 0
    assert "ent_gold_news" in capsys.readouterr().out
    assert {p.name for p in out.iterdir()} >= {
        "aggregate.json",
        "leaderboard.csv",
        "per_template.csv",
        "per_document.csv",
        "leaderboard.md",
        "report.html",
        "hf_leaderboard",
    }


def test_noisy_oracles_recompute_lm_eval_exactly(oracle_runs):
    """μ per template of gold_news = the mean over its questions of each question's weighted F1, exactly lm-eval's
    number; the baseline is the mean over questions of each question's uniform baseline."""
    from lm_eval_enterprise.tasks.finance.gold_news.source import CATEGORIES

    from lm_eval_enterprise.scoring.chance import uniform_f1

    res = aggregate([oracle_runs], bootstrap=300, progress=False)
    assert res["models"] == ["noisy-oracle-0", "noisy-oracle-1"]
    assert not [m for m in res["messages"] if "recompute" in m], res["messages"]
    for model in res["models"]:
        sanitized = model.replace("/", "__")
        results = json.loads(next((oracle_runs / sanitized).glob("results_*.json")).read_text())
        samples = [
            json.loads(x) for x in next((oracle_runs / sanitized).glob("samples_ent_gold_news__t1_*.jsonl")).open()
        ]
        (rec,) = [
            r
            for r in res["records"]
            if r["model"] == model and r["group"] == "ent_gold_news" and r["scoring_mode"] == "strict"
        ]
        assert rec["level"] == "dataset" and rec["n_docs"] == 36  # 4 headlines × 9 questions
        for t, s in rec["template_scores"].items():
            row = results["results"][f"ent_gold_news__{t}"]
            assert s == pytest.approx(row["weighted_f1,answer"], abs=1e-12)
            per_q = [row[f"weighted_f1_{q},answer"] for q in CATEGORIES]
            assert s == pytest.approx(sum(per_q) / 9, abs=1e-12)
            assert rec["format_failure"][t] == pytest.approx(row["format_failure,answer"])
        counts = {}
        for x in samples:
            c = counts.setdefault(x["doc"]["question_id"], [0, 0])
            c[0 if x["doc"]["label"] == "Yes" else 1] += 1
        expected = sum(uniform_f1(c, "weighted") for c in counts.values()) / 9
        assert rec["baseline"]["value"] == pytest.approx(expected) and "9 questions" in rec["baseline"]["note"]
        (row,) = [
            r
            for r in res["records"]
            if r["model"] == model and r["level"] == "dataset" and r["scoring_mode"] == "strict"
        ]
        assert row["sharpe_status"] == "ok" and row["std"] > 0 and 0.3 < row["mean"] < 1
        assert row["ci"]["mean"][0] <= row["mean"] <= row["ci"]["mean"][1]
        assert row["pss"] > 0 and row["fragile_docs"]
        parsed = [
            r
            for r in res["records"]
            if r["model"] == model and r["level"] == "dataset" and r["scoring_mode"] == "parsed_only"
        ]
        assert parsed and not parsed[0]["comparable_across_models"] and 0 < parsed[0]["mean"] <= 1
        assert any(v > 0 for v in row["format_failure"].values())  # the "???" answers are format failures
    md = leaderboard_markdown([str(oracle_runs)])
    assert "noisy-oracle-0" in md and "ent_gold_news" in md


def test_sparse_estimator_splits_gold_news_by_question(oracle_runs):
    """The sparse estimator (``sharpe.estimates``) on a run where every cell is observed: one cell matrix per
    question (documents = that question's headlines), s_t = mean over the nine questions — the full tool's and
    lm-eval's number."""
    from lm_eval_enterprise.tasks.finance.gold_news.source import CATEGORIES

    from lm_eval_enterprise.sharpe.inputs import Options
    from lm_eval_enterprise.sharpe.pipeline import estimate_sparse

    est = estimate_sparse([str(oracle_runs)], Options(bootstrap=0))
    full = aggregate([oracle_runs], bootstrap=0, progress=False)
    assert len(est["records"]) == 2
    for rec in est["records"]:
        assert sorted(rec["questions"]) == sorted(CATEGORIES) and rec["cells_observed"] == rec["cells_total"]
        (f,) = [
            r
            for r in full["records"]
            if r["model"] == rec["model"] and r["group"] == "ent_gold_news" and r["scoring_mode"] == "strict"
        ]
        assert rec["scores"] == pytest.approx(f["template_scores"], abs=1e-12)
        assert rec["mean"] == pytest.approx(f["mean"], abs=1e-12)
