"""Issue #25 item 4: lm-eval's group rows of the NLU suite. ``nlu_<id>`` is the mean of its eight variants'
``score``, ``nlu_en`` / ``nlu_ja`` and ``nlu`` the unweighted means over their datasets — lm-eval's own mean over
leaf tasks, which is that mean because every NLU dataset has eight templates — in the results JSON and in the
printed table, in-process and with plain ``lm_eval --model dummy``; ``enterprise`` holds no NLU task."""

import pytest
from lm_eval.utils import make_table
from test_score_groups import _table_scores, plain_lm_eval_dummy

from lm_eval_enterprise.harness.runner import evaluate, load_tasks, make_task_manager
from testkit.testing import GarbageLM, OracleLM

KEY = "score,answer"
LIMIT = 4  # documents per variant: the fair order holds both CoLA classes and varied STS scores in the first 4
EN = ("cola", "commonsense_qa", "mnli", "squad", "stsb")
JA = ("jcola", "jcommonsenseqa", "jnli", "jsquad", "jsts")
# dataset → k: the model answers t1..tk with the gold target (score 1) and the other templates with garbage
# (score 0: a format failure everywhere; MCC and Pearson of a constant prediction are 0), so the dataset's score
# is k/8
GOLD_TEMPLATES = {
    "cola": 1,
    "commonsense_qa": 2,
    "mnli": 3,
    "squad": 4,
    "stsb": 5,
    "jcola": 6,
    "jcommonsenseqa": 7,
    "jnli": 8,
    "jsquad": 0,
    "jsts": 2,
}


class FirstTemplatesGoldLM(OracleLM):
    """Gold on templates t1..t<k> of each dataset (:data:`GOLD_TEMPLATES`), garbage on the others."""

    def generate_until(self, requests, disable_tqdm: bool = False):
        gold = OracleLM.generate_until(self, requests)
        garbage = GarbageLM.generate_until(self, requests)
        out = []
        for inst, g, b in zip(requests, gold, garbage):
            meta = self.tasks[inst.task_name].config.metadata
            out.append(g if int(meta["template_id"][1:]) <= GOLD_TEMPLATES[meta["dataset"]] else b)
        return out


@pytest.fixture(scope="module")
def results():
    tm = make_task_manager(data_root="embedded")
    tasks = load_tasks(tm, ["nlu"])
    return evaluate(FirstTemplatesGoldLM(tasks.leaves), tasks.top, task_manager=tm, log_samples=False, limit=LIMIT)


def _mean(xs):
    return sum(xs) / len(xs)


def test_variant_scores_are_the_designed_ones(results):
    """The inputs of the hand computation: every variant scores exactly 1 (gold) or 0 (garbage)."""
    res = results["results"]
    for ds, k in GOLD_TEMPLATES.items():
        for t in range(1, 9):
            assert res[f"nlu_{ds}__t{t}"][KEY] == pytest.approx(1.0 if t <= k else 0.0), (ds, t)


def test_group_rows_worked_out_by_hand(results):
    """nlu_<id> = k/8; nlu_en = (1 + 2 + 3 + 4 + 5)/8 / 5 = 15/40 = 0.375; nlu_ja = (6 + 7 + 8 + 0 + 2)/8 / 5 =
    23/40 = 0.575; nlu = (15 + 23)/8 / 10 = 38/80 = 0.475."""
    g = results["groups"]
    for ds, k in GOLD_TEMPLATES.items():
        assert g[f"nlu_{ds}"][KEY] == pytest.approx(k / 8), ds
    assert g["nlu_en"][KEY] == pytest.approx(15 / 40)
    assert g["nlu_ja"][KEY] == pytest.approx(23 / 40)
    assert g["nlu"][KEY] == pytest.approx(38 / 80)


def _dataset_means(res: dict, gs: dict) -> dict[str, dict[str, float]]:
    """language group → dataset group → the mean of ``score,answer`` over the dataset's eight leaf tasks."""
    out: dict[str, dict[str, float]] = {}
    for lang in ("nlu_en", "nlu_ja"):
        out[lang] = {}
        for ds in gs[lang]:
            assert len(gs[ds]) == 8 and all(t not in gs for t in gs[ds]), (ds, gs[ds])  # eight leaves each
            out[lang][ds] = _mean([res[t][KEY] for t in gs[ds]])
    return out


def _check_rows(rows: dict, means: dict[str, dict[str, float]], abs_tol: float) -> None:
    """``rows`` (group → score) against the hand means: datasets, languages, and ``nlu`` over all ten datasets."""
    assert sorted(means["nlu_en"]) == [f"nlu_{d}" for d in EN] and sorted(means["nlu_ja"]) == [f"nlu_{d}" for d in JA]
    for lang, by_ds in means.items():
        for ds, value in by_ds.items():
            assert rows[ds] == pytest.approx(value, abs=abs_tol), ds
        assert rows[lang] == pytest.approx(_mean(list(by_ds.values())), abs=abs_tol), lang
    every = [v for by_ds in means.values() for v in by_ds.values()]
    assert len(every) == 10
    assert rows["nlu"] == pytest.approx(_mean(every), abs=abs_tol)


def test_group_rows_recomputed_from_the_task_rows(results):
    """The same rule from lm-eval's own task rows, in the results and in lm-eval's printed table (make_table,
    what the CLI prints: 4 decimals)."""
    means = _dataset_means(results["results"], results["group_subtasks"])
    _check_rows({g: v[KEY] for g, v in results["groups"].items()}, means, 1e-12)
    printed = _table_scores(make_table(results, "groups"))
    _check_rows(printed, means, 5e-5)


def test_enterprise_holds_no_nlu_task():
    """``enterprise`` is the 25 datasets × 5 templates of its own suite; ``nlu`` is the 10 × 8 of the other."""
    tm = make_task_manager(data_root="embedded")
    ent = load_tasks(tm, ["enterprise"]).leaves
    assert len(ent) == 125 and all(t.startswith("ent_") for t in ent)
    assert all((task.config.metadata or {}).get("suite", "enterprise") == "enterprise" for task in ent.values())
    nlu = load_tasks(tm, ["nlu"]).leaves
    assert len(nlu) == 80 and all(t.startswith("nlu_") for t in nlu)
    assert {task.config.metadata["suite"] for task in nlu.values()} == {"nlu"}


def test_plain_lm_eval_prints_the_nlu_rows(tmp_path):
    """Plain ``lm_eval --model dummy --tasks nlu --include_path tasks``: every dataset row, ``nlu_en``, ``nlu_ja``
    and ``nlu`` in the results JSON and the printed table, each the mean over its datasets (the dummy model answers
    "lol" everywhere: every score is 0, so this checks the rows and the command; the values are checked above)."""
    stdout, out = plain_lm_eval_dummy("nlu", tmp_path)
    means = _dataset_means(out["results"], out["group_subtasks"])
    _check_rows({g: v[KEY] for g, v in out["results"].items() if KEY in v}, means, 1e-12)
    _check_rows(_table_scores(stdout), means, 5e-5)
    assert "enterprise" not in out["results"] and not any(t.startswith("ent_") for t in out["results"])
