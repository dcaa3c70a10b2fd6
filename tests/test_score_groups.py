"""Issue #10 item 1: every variant reports ``score`` (its primary metric, filter ``answer``), and lm-eval's own
results and printed table have ``score`` rows for datasets, domains and ``enterprise``: a dataset is the mean over
its variants (gold_news: over its nine subtasks), a domain and ``enterprise`` the unweighted mean over datasets."""

from pathlib import Path

import pytest
from lm_eval.tasks._yaml_loader import load_yaml
from lm_eval.utils import make_table

from lm_eval_enterprise import TASK_DIR
from lm_eval_enterprise.runner import evaluate, load_tasks, make_task_manager
from lm_eval_enterprise.templating import all_specs
from lm_eval_enterprise.testing import GarbageLM, OracleLM

KEY = "score,answer"
DOMAINS = ("finance", "legal", "climate", "cyber")


class GoldNewsDirectionUpLM(OracleLM):
    """Gold answers for the five gold_news direction_up variants and every log-likelihood request (the ranking
    tables), garbage for every other generation: a known score for each dataset."""

    def generate_until(self, requests, disable_tqdm: bool = False):
        garbage = GarbageLM.generate_until(self, requests)
        gold = OracleLM.generate_until(self, requests)
        return [
            g if inst.task_name.startswith("ent_gold_news_direction_up__") else b
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
    """Gold on gold_news direction_up (5 of 45 variants) and on both ranking tables (fiqa_qa, insurance_qa: RR@10
    = 1), 0 everywhere else:
    gold_news = 5/45 = 1/9; finance = (1 + 1 + 1/9) / 10 datasets = 19/90; legal = climate = cyber = 0;
    enterprise = (19/9) / 25 datasets = 19/225. lm-eval's own mean over leaf tasks would give finance
    15/90 = 1/6 and enterprise 15/165 = 1/11 (gold_news's 45 variants weighing 9× any other dataset)."""
    g = results["groups"]
    assert g["ent_gold_news_direction_up"][KEY] == pytest.approx(1.0)
    assert g["ent_gold_news_past_news"][KEY] == pytest.approx(0.0)
    assert g["ent_gold_news"][KEY] == pytest.approx(1 / 9)
    assert g["ent_fiqa_qa"][KEY] == pytest.approx(1.0) and g["ent_insurance_qa"][KEY] == pytest.approx(1.0)
    assert g["ent_kpi_edgar"][KEY] == pytest.approx(0.0)
    assert g["enterprise_finance"][KEY] == pytest.approx(19 / 90)
    for domain in ("legal", "climate", "cyber"):
        assert g[f"enterprise_{domain}"][KEY] == pytest.approx(0.0)
    assert g["enterprise"][KEY] == pytest.approx(19 / 225)


def test_score_rows_recomputed_from_the_subtask_rows(results):
    """The same rule from lm-eval's own task rows: dataset = mean over its leaves (gold_news: mean of the nine
    subtask means), domain = mean over its dataset groups, enterprise = mean over all 25 datasets."""
    res, gs = results["results"], results["group_subtasks"]

    def mean(xs):
        return sum(xs) / len(xs)

    def dataset_score(group):
        subs = gs[group]
        return mean([dataset_score(s) if s in gs else res[s][KEY] for s in subs])

    per_domain = {d: {ds: dataset_score(ds) for ds in gs[f"enterprise_{d}"]} for d in DOMAINS}
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
        ("ent_gold_news_direction_up", 1.0),
    ):
        assert group in rows, (group, table)
        assert rows[group][3] == "answer" and float(rows[group][7]) == pytest.approx(value, abs=0.005)


def test_plain_lm_eval_gets_only_rows_that_mean_the_same():
    """Plain `lm_eval` (lm-eval's own TaskManager) averages a group over its leaf tasks: the YAML declares that
    aggregation for a domain only when it equals the mean over datasets (all its datasets have the same number of
    variants), never a differently weighted number under the same name."""
    configs = {}
    for p in Path(TASK_DIR).glob("**/_*.yaml"):
        cfg = load_yaml(str(p), resolve_func=False, recursive=False)
        configs[cfg["group"]] = cfg

    def leaves(name):
        return [t for m in configs[name]["task"] for t in leaves(m)] if name in configs else [name]

    for name in [f"enterprise_{d}" for d in DOMAINS] + ["enterprise"]:
        datasets = (
            [ds for d in configs[name]["task"] for ds in configs[d]["task"]]
            if name == "enterprise"
            else configs[name]["task"]
        )
        counts = {len(leaves(ds)) for ds in datasets}
        declared = "aggregate_metric_list" in configs[name]
        assert declared == (len(counts) == 1), (name, counts)
        assert configs[name]["metadata"]["enterprise_aggregate"] == "mean_over_datasets"
    assert "aggregate_metric_list" not in configs["enterprise_finance"]  # gold_news: 45 variants, others 5
    assert "aggregate_metric_list" in configs["enterprise_legal"]
    for spec in [s for _, s in all_specs(Path(TASK_DIR))]:
        agg = configs[spec.base_name]["aggregate_metric_list"]
        assert [a["metric"] for a in agg] == [spec.primary_metric, "score"]
        assert all(a["filter_list"] == "answer" and a["weight_by_size"] is False for a in agg)
