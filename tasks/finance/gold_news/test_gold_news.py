"""gold_news: loader on the source format (fixture), on the real sample, HELM split, errors, end to end."""

import csv
import json
import random

import pytest
from lm_eval_enterprise.tasks.finance.gold_news.source import CATEGORIES, CSV_NAME, helm_split

from conftest import shared_sample
from lm_eval_enterprise.data import DataError, fixture_dir, get_source, load_records
from testkit.testing import run_hf_model

SRC = get_source("gold_news")


def test_helm_split_matches_python_random_recipe():
    # HELM: random.seed(0); train_idx = random.sample(range(n), floor(n/10))
    random.seed(0)
    expected = set(random.sample(range(11412), 11412 // 10))
    assert helm_split(11412) == expected
    assert len(expected) == 1141


def test_convert_fixture_source_layout():
    splits = SRC.convert(fixture_dir("gold_news"))
    assert (len(splits["train"]), len(splits["test"])) == (6, 54)
    rec = splits["test"][0]
    assert set(rec) == {"id", "text", "labels"} and set(rec["labels"]) == set(CATEGORIES)
    assert all(v in ("Yes", "No") for r in splits["test"] for v in r["labels"].values())
    # the split is the HELM rule on row order
    train_ids = {int(r["id"]) for r in splits["train"]}
    assert train_ids == helm_split(60)


def test_each_subtask_and_balanced_shots():
    for sub in CATEGORIES:
        recs = load_records("gold_news", sub, data_root="embedded")
        assert {r["label"] for r in recs["test"]} <= {"Yes", "No"}
        assert recs["test"][0]["label_names"] == ["Yes", "No"]
        shots = recs["fewshot"][:5]
        if len({r["label"] for r in recs["train"]}) == 2:
            assert {r["label"] for r in shots} == {"Yes", "No"}, sub


def test_one_task_documents_are_headline_by_question():
    """The task's documents: every headline × its nine questions, headline-major, each the question's own record
    (id ``<headline>/<question>``, ``question_id``, ``fragment``); the shots split holds each question's own
    [BAL]-ordered pool, question after question."""
    both = load_records("gold_news", data_root="embedded")
    per = {q: load_records("gold_news", q, data_root="embedded") for q in CATEGORIES}
    test = both["test"]
    assert len(test) == 9 * len(per["price_or_not"]["test"]) == 9 * 54
    for i, doc in enumerate(test):
        q = list(CATEGORIES)[i % 9]
        own = per[q]["test"][i // 9]
        assert doc == {**own, "id": f"{own['id']}/{q}", "question_id": q}
        assert doc["fragment"] == CATEGORIES[q][1]
    assert both["fewshot"] == [{**r, "question_id": q} for q in CATEGORIES for r in per[q]["fewshot"]]


def test_every_prompt_is_the_questions_own(tmp_path):
    """Each (headline, question) document's prompt is the one its question alone gives: the instruction names the
    question and the shots are the question's first five [BAL] shots with that question's answers."""
    from testkit.testing import build_tasks

    _, leaves = build_tasks(["ent_gold_news__t1"], "embedded")
    task = leaves["ent_gold_news__t1"]
    per = {q: load_records("gold_news", q, data_root="embedded") for q in CATEGORIES}
    for doc in list(task.eval_docs)[:18]:  # two headlines × nine questions
        q = doc["question_id"]
        shots = per[q]["fewshot"][:5]
        expected = (
            "The following are news headlines about the gold commodity. Classify whether the news headline "
            f'discusses {CATEGORIES[q][1]}. Answer only "Yes" or "No".\n\n'
            + "".join(f"Headline: {s['text']}\nAnswer: {s['label']}\n\n" for s in shots)
            + f"Headline: {doc['text']}\nAnswer:"
        )
        assert task.fewshot_context(doc, 5) == expected, q
    assert len({d["question_id"] for d in list(task.eval_docs)[:18]}) == 9


def test_real_sample_presplit():
    d = shared_sample("gold_news")
    recs = load_records("gold_news", "direction_down", data_root=str(d.parent))
    first = json.loads((d / "test.jsonl").open().readline())
    assert (len(recs["test"]), len(recs["train"])) == (300, 100)
    rec = next(r for r in recs["test"] if r["id"] == str(first["row_index"]))  # the evaluated split: fair order
    assert rec["text"] == first["News"]
    assert rec["label"] == first["labels"]["direction_down"]
    # HELM's category name in the sample maps onto ours
    assert load_records("gold_news", "asset_comparison", data_root=str(d.parent))["test"]
    with pytest.raises(DataError, match=r"\[gold_news\].*no labels for subtask 'price_or_not'"):
        load_records("gold_news", "price_or_not", data_root=str(d.parent))


def test_real_sample_task_asks_the_questions_it_has_and_says_which_are_missing(caplog, monkeypatch):
    """The proxy sample has labels for 4 of the 9 questions: the task asks those 4 about every headline, warns
    once naming the other 5, and records them in the task metadata (``questions_missing``)."""
    from lm_eval_enterprise import errors
    from lm_eval_enterprise.data import clear_caches, load_task_data

    d = shared_sample("gold_news")
    clear_caches()
    monkeypatch.setattr(errors, "_WARNED", set())  # the line is logged once per process; an earlier test may have
    with caplog.at_level("WARNING"):
        ds, meta = load_task_data("gold_news", data_root=str(d.parent))
    have = ["direction_up", "direction_constant", "direction_down", "asset_comparison"]
    missing = ["price_or_not", "past_price", "future_price", "past_news", "future_news"]
    assert len(ds["test"]) == 4 * 300 and ds["test"]["question_id"][:4] == have
    assert meta["questions"] == have and meta["questions_missing"] == missing
    warned = [r.getMessage() for r in caplog.records if "no labels for the questions" in r.getMessage()]
    assert len(warned) == 1 and ", ".join(missing) in warned[0]


def _write_csv(path, n_rows):
    cols = ["News"] + [c for c, _ in CATEGORIES.values()]
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(cols)
        for i in range(n_rows):
            w.writerow([f"gold headline {i}"] + [i % 2] * 9)


def test_bad_label_value_names_file_and_line(tmp_path):
    d = tmp_path / "gold_news"
    d.mkdir()
    _write_csv(d / CSV_NAME, 3)
    text = (d / CSV_NAME).read_text().replace("gold headline 1,1,1", "gold headline 1,maybe,1")
    (d / CSV_NAME).write_text(text)
    with pytest.raises(DataError, match=r"finalDataset_0208.csv:3: label value 'maybe' is not 0/1"):
        SRC.convert(d)


def _evaluate(model_dir, tasks, data_root, limit, seed=0):
    return run_hf_model(
        model_dir, tasks, data_root, limit, random_seed=seed, numpy_random_seed=seed, torch_random_seed=seed
    )


def test_end_to_end_real_sample_tiny_model_is_deterministic(tiny_model_dir):
    d = shared_sample("gold_news")
    tasks = ["ent_gold_news__t1", "ent_gold_news__t4"]
    a = _evaluate(tiny_model_dir, tasks, d.parent, limit=8)  # two headlines × the sample's four questions
    b = _evaluate(tiny_model_dir, tasks, d.parent, limit=8)
    for t in tasks:
        row = a["results"][t]
        assert 0.0 <= row["weighted_f1,answer"] <= 1.0 and 0.0 <= row["format_failure,answer"] <= 1.0
        per_question = [row[f"weighted_f1_{q},answer"] for q in a["configs"][t]["metadata"]["questions"]]
        assert len(per_question) == 4 and row["weighted_f1,answer"] == pytest.approx(sum(per_question) / 4)
        assert "weighted_f1_price_or_not,answer" not in row  # no labels in the sample: no score, not a 0
        assert row == b["results"][t]
        prompts_a = [s["arguments"][0][0] for s in a["samples"][t]]
        prompts_b = [s["arguments"][0][0] for s in b["samples"][t]]
        assert prompts_a == prompts_b
        # five [BAL] shots from the real train sample precede the eval headline
        assert prompts_a[0].count("Headline:" if t.endswith("t1") else "Input:") == 6
    assert a["configs"][tasks[0]]["metadata"]["template_id"] == "t1"
