"""Issue #10 item 1 / #17 item 1: every variant reports ``score`` (its primary metric, filter ``answer``), and
lm-eval's own results and printed table have ``score`` rows for datasets, domains and ``enterprise``: a dataset is
the mean over its five variants (gold_news: each variant the mean over its nine questions), a domain and
``enterprise`` the unweighted mean over datasets — lm-eval's own mean over leaf tasks, also in plain ``lm_eval``."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from lm_eval.tasks._yaml_loader import load_yaml
from lm_eval.utils import make_table

from lm_eval_enterprise import TASK_DIR
from lm_eval_enterprise.harness.runner import evaluate, load_tasks, make_task_manager
from lm_eval_enterprise.prompting.templating import all_specs
from testkit.testing import GarbageLM, OracleLM

KEY = "score,answer"
DOMAINS = ("finance", "legal", "climate", "cyber")


class GoldNewsDirectionUpLM(OracleLM):
    """Gold answers for the direction_up documents of the five gold_news variants and every log-likelihood request
    (the ranking tables), garbage for every other generation: a known score for each dataset."""

    def generate_until(self, requests, disable_tqdm: bool = False):
        garbage = GarbageLM.generate_until(self, requests)
        gold = OracleLM.generate_until(self, requests)
        return [
            g if inst.task_name.startswith("ent_gold_news__") and inst.doc["question_id"] == "direction_up" else b
            for inst, g, b in zip(requests, gold, garbage)
        ]


@pytest.fixture(scope="module")
def results():
    tm = make_task_manager(data_root="embedded")
    tasks = load_tasks(tm, ["enterprise"])  # built once: the test model reads their targets, lm-eval runs them
    return evaluate(GoldNewsDirectionUpLM(tasks.leaves), tasks.top, task_manager=tm, log_samples=False)


def test_every_variant_reports_score_equal_to_its_primary_metric(results):
    for task, cfg in results["configs"].items():
        meta = cfg["metadata"]
        assert meta["primary_filter"] == "answer", task  # one filter name for generate and log-likelihood
        row = results["results"][task]
        assert row[KEY] == row[f"{meta['primary_metric']},answer"], task
        assert results["higher_is_better"][task]["score"] is True


def test_score_rows_worked_out_by_hand(results):
    """Gold on gold_news' direction_up question (1 of its 9 questions, every template) and on both ranking tables
    (fiqa_qa, insurance_qa: RR@10 = 1), 0 everywhere else:
    each gold_news variant = mean over its 9 questions of their weighted F1 = (1 + 8·0)/9 = 1/9, so gold_news = 1/9;
    finance = (1 + 1 + 1/9) / 10 datasets = 19/90; legal = climate = cyber = 0; enterprise = (19/9) / 25 datasets
    = 19/225 — every dataset has five leaf tasks, so lm-eval's mean over leaves is this mean over datasets."""
    g, res = results["groups"], results["results"]
    for t in range(1, 6):
        row = res[f"ent_gold_news__t{t}"]
        assert row["weighted_f1_direction_up,answer"] == pytest.approx(1.0)
        assert row["weighted_f1_past_news,answer"] == pytest.approx(0.0)
        assert row[KEY] == row["weighted_f1,answer"] == pytest.approx(1 / 9)
    assert g["ent_gold_news"][KEY] == pytest.approx(1 / 9)
    assert g["ent_fiqa_qa"][KEY] == pytest.approx(1.0) and g["ent_insurance_qa"][KEY] == pytest.approx(1.0)
    assert g["ent_kpi_edgar"][KEY] == pytest.approx(0.0)
    assert g["enterprise_finance"][KEY] == pytest.approx(19 / 90)
    for domain in ("legal", "climate", "cyber"):
        assert g[f"enterprise_{domain}"][KEY] == pytest.approx(0.0)
    assert g["enterprise"][KEY] == pytest.approx(19 / 225)


def _mean(xs):
    return sum(xs) / len(xs)


def _per_domain_dataset_scores(res: dict, gs: dict) -> dict[str, dict[str, float]]:
    """domain → dataset group → the mean of ``score,answer`` over the dataset's five leaf tasks (results JSON)."""
    out = {}
    for d in DOMAINS:
        out[d] = {}
        for ds in gs[f"enterprise_{d}"]:
            assert len(gs[ds]) == 5 and all(t not in gs for t in gs[ds]), (ds, gs[ds])  # five leaves each
            out[d][ds] = _mean([res[t][KEY] for t in gs[ds]])
    return out


def test_score_rows_recomputed_from_the_task_rows(results):
    """The same rule from lm-eval's own task rows: dataset = mean over its five leaves, domain = mean over its
    dataset groups, enterprise = mean over all 25 datasets."""
    per_domain = _per_domain_dataset_scores(results["results"], results["group_subtasks"])
    mean = _mean
    assert sum(len(v) for v in per_domain.values()) == 25
    for d, scores in per_domain.items():
        for ds, value in scores.items():
            assert results["groups"][ds][KEY] == pytest.approx(value), ds
        assert results["groups"][f"enterprise_{d}"][KEY] == pytest.approx(mean(list(scores.values()))), d
    every = [v for scores in per_domain.values() for v in scores.values()]
    assert results["groups"]["enterprise"][KEY] == pytest.approx(mean(every))


def test_printed_table_has_the_score_rows(results):
    table = make_table(results, "groups")
    rows, name = {}, None
    for line in table.splitlines()[2:]:  # | name | version | filter | n-shot | metric | ↑ | value | ± | se |
        cells = [c.strip() for c in line.split("|")]
        name = cells[1].lstrip("- ").strip() or name  # a group's further metrics: rows with an empty name cell
        if cells[5] == "score":
            rows[name] = cells
    for group, value in (
        ("enterprise", 19 / 225),
        ("enterprise_finance", 19 / 90),
        ("ent_gold_news", 1 / 9),
        ("enterprise_legal", 0.0),
        ("ent_fiqa_qa", 1.0),
    ):
        assert group in rows, (group, table)
        assert rows[group][3] == "answer" and float(rows[group][7]) == pytest.approx(value, abs=0.005)


def test_group_yamls_declare_plain_means():
    """Every domain group and ``enterprise`` declares lm-eval's own unweighted mean of ``score,answer`` over its
    leaf tasks, and every dataset below has five leaves (one per template), so that mean is the mean over
    datasets; every dataset group averages its primary metric and ``score`` over its variants."""
    configs = {}
    for p in Path(TASK_DIR).glob("**/_*.yaml"):
        cfg = load_yaml(str(p), resolve_func=False, recursive=False)
        configs[cfg["group"]] = cfg

    def leaves(name):
        return [t for m in configs[name]["task"] for t in leaves(m)] if name in configs else [name]

    plain = [{"metric": "score", "filter_list": "answer", "aggregation": "mean", "weight_by_size": False}]
    for name in [f"enterprise_{d}" for d in DOMAINS] + ["enterprise"]:
        assert configs[name]["aggregate_metric_list"] == plain, name
        assert set(configs[name]["metadata"]) == {"version"}, name
    datasets = [ds for d in configs["enterprise"]["task"] for ds in configs[d]["task"]]
    assert len(datasets) == 25 and {len(leaves(ds)) for ds in datasets} == {5}
    assert leaves("ent_gold_news") == [f"ent_gold_news__t{k}" for k in range(1, 6)]
    for spec in [s for _, s in all_specs(Path(TASK_DIR))]:
        agg = configs[spec.base_name]["aggregate_metric_list"]
        assert [a["metric"] for a in agg] == [spec.primary_metric, "score"]
        assert all(a["filter_list"] == "answer" and a["weight_by_size"] is False for a in agg)


def _table_scores(stdout: str) -> dict[str, float]:
    """``score`` value of every task and group of lm-eval's printed tables (first occurrence: the 4-decimal table);
    a row with an empty name cell is a further metric of the row above (a dataset group's ``score`` below its
    primary metric)."""
    out: dict[str, float] = {}
    name = None
    for line in stdout.splitlines():
        cells = [c.strip() for c in line.split("|")]
        if len(cells) <= 7:
            continue
        name = cells[1].lstrip("- ").strip() or name
        if cells[5] == "score" and name:
            out.setdefault(name, float(cells[7]))
    return out


def plain_lm_eval_dummy(tasks: str, out_dir: Path) -> tuple[str, dict]:
    """(printed stdout, results JSON) of ``lm_eval --model dummy --tasks TASKS --include_path tasks --limit 2`` on
    the embedded fixture data."""
    lm_eval_cli = Path(sys.executable).parent / "lm_eval"
    cmd = [str(lm_eval_cli), "--model", "dummy", "--tasks", tasks, "--include_path", TASK_DIR]
    cmd += ["--limit", "2", "--output_path", str(out_dir)]
    env = {**os.environ, "LM_EVAL_ENTERPRISE_DATA": "embedded"}
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    (path,) = out_dir.glob("**/results_*.json")
    return proc.stdout, json.loads(path.read_text())


def test_plain_lm_eval_prints_finance_and_enterprise_means_over_datasets(tmp_path):
    """The design's own command, plain lm-eval and its dummy model (lm-eval refuses overlapping groups in one
    ``--tasks``, so ``enterprise``, whose table holds the ``enterprise_finance`` row): the results JSON and the
    printed table have finance and ``enterprise`` ``score`` rows equal to the mean over datasets computed by hand
    from the task rows (the dummy model scores the ranking tables by its random log-likelihoods: not all zero)."""
    stdout, out = plain_lm_eval_dummy("enterprise", tmp_path)
    res, gs = out["results"], out["group_subtasks"]
    per_domain = _per_domain_dataset_scores(res, gs)
    finance = _mean(list(per_domain["finance"].values()))
    enterprise = _mean([v for scores in per_domain.values() for v in scores.values()])
    assert finance > 0  # the ranking tables' random log-likelihoods: a real number to compare, not 0 = 0
    assert res["enterprise_finance"][KEY] == pytest.approx(finance)
    assert res["enterprise"][KEY] == pytest.approx(enterprise)
    printed = _table_scores(stdout)
    assert printed["enterprise_finance"] == pytest.approx(finance, abs=5e-5)
    assert printed["enterprise"] == pytest.approx(enterprise, abs=5e-5)
    assert printed["ent_gold_news"] == pytest.approx(per_domain["finance"]["ent_gold_news"], abs=5e-5)
