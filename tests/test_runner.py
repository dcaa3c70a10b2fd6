"""lm_eval_enterprise.harness.runner: the task manager, tasks built once, and the one ``simple_evaluate`` call of the demo
and the tests."""

import lm_eval
import pytest
from lm_eval.api.group import Group
from lm_eval.tasks import TaskManager

from lm_eval_enterprise import TASK_DIR
from lm_eval_enterprise.harness.runner import evaluate, load_tasks, make_task_manager


@pytest.fixture(scope="module")
def tm():
    return make_task_manager(data_root="embedded")


def test_make_task_manager_indexes_our_folder_with_the_run_metadata(tm, tmp_path):
    assert type(tm) is TaskManager  # lm-eval's own: its group means are our means over datasets
    assert tm.include_path == [TASK_DIR] and tm.metadata == {"data_root": "embedded"}
    assert "ent_tram__t1" in tm.all_tasks and "arc_easy" not in tm.all_tasks  # lm-eval's built-ins not indexed
    mine = make_task_manager([tmp_path, TASK_DIR], data_root=tmp_path, metadata={"data_root": "x", "k": 1})
    assert mine.include_path == [str(tmp_path), TASK_DIR] and mine.metadata == {"data_root": "x", "k": 1}


def test_load_tasks_returns_the_requested_items_once_in_order(tm):
    tasks = load_tasks(tm, ["ent_tram__t2", "ent_gold_news"])
    # a standalone variant, then the dataset group (its five variants inside it)
    assert [getattr(x, "name", None) or x.task_name for x in tasks.top] == ["ent_tram__t2", "ent_gold_news"]
    group = tasks.top[1]
    assert isinstance(group, Group) and len(group.get_all_groups(recursive=False)) == 0
    assert len(tasks.leaves) == 1 + 5
    assert all(tasks.leaves[t.task_name] is t for t in group.get_all_tasks())  # the same objects, not rebuilt
    assert tasks.leaves["ent_tram__t2"] is tasks.top[0]


def test_evaluate_defaults_and_task_manager(monkeypatch):
    seen = {}
    monkeypatch.setattr(lm_eval, "simple_evaluate", lambda **kw: seen.update(kw) or {"ok": True})
    assert evaluate("dummy", ("ent_tram__t1",), data_root="embedded", limit=2) == {"ok": True}
    assert (seen["model"], seen["tasks"], seen["limit"]) == ("dummy", ["ent_tram__t1"], 2)
    assert (seen["log_samples"], seen["bootstrap_iters"]) == (True, 0)
    assert seen["task_manager"].metadata == {"data_root": "embedded"}
    evaluate("dummy", ["t"], task_manager="given", bootstrap_iters=10, log_samples=False)
    assert (seen["task_manager"], seen["bootstrap_iters"], seen["log_samples"]) == ("given", 10, False)
    with pytest.raises(TypeError, match="either task_manager or"):
        evaluate("dummy", ["t"], task_manager="given", data_root="embedded")
