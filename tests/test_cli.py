"""``lm-eval-enterprise`` CLI (lm_eval_enterprise/cli.py) and the issue's acceptance runs with lm-eval's dummy model."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from lm_eval.tasks._yaml_loader import load_yaml

from lm_eval_enterprise import FIXTURES_DIR, TASK_DIR, cli

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
ENV = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
       "TOKENIZERS_PARALLELISM": "false"}


# ============================================================================================ tasks-dir / list
def test_tasks_dir_subprocess():
    proc = subprocess.run([str(BIN / "lm-eval-enterprise"), "tasks-dir"], capture_output=True, text=True, env=ENV,
                          cwd="/", timeout=120)
    assert proc.returncode == 0, proc.stderr
    d = Path(proc.stdout.strip())
    assert d.is_dir() and d == Path(TASK_DIR)
    assert (d / "_enterprise.yaml").is_file()
    assert list(d.glob("*/*/*__t*.yaml")), "no task variant YAMLs under the printed folder"


def test_tasks_dir_in_process(capsys):
    assert cli.main(["tasks-dir"]) == 0
    assert capsys.readouterr().out.strip() == TASK_DIR


def test_list(capsys):
    assert cli.main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    gold = [ln for ln in lines if " gold_news " in ln]
    assert gold and gold[0].split() == ["finance", "gold_news", "classification", "group", "ent_gold_news"]
    # one line per dataset folder that has a source.py
    n_sources = len(list(Path(TASK_DIR).glob("*/*/source.py")))
    assert len(lines) == n_sources
    assert cli.main(["list", "--domain", "cyber"]) == 0
    assert all(ln.startswith("cyber") for ln in capsys.readouterr().out.splitlines())


# ============================================================================================ run: argv handling
def test_merge_data_root():
    m = cli._merge_data_root
    assert m(["--model", "dummy"]) == ["--model", "dummy"]
    assert m(["--data-root", "/d", "--model", "dummy"]) == ["--model", "dummy", "--metadata",
                                                           json.dumps({"data_root": "/d"})]
    # an existing --metadata is kept and merged (data_root wins)
    out = m(["--metadata", '{"a": 1, "data_root": "/old"}', "--data-root", "/d", "--limit", "2"])
    assert out[:2] == ["--limit", "2"] and out[2] == "--metadata"
    assert json.loads(out[3]) == {"a": 1, "data_root": "/d"}
    with pytest.raises(SystemExit, match="needs a folder"):
        m(["--model", "dummy", "--data-root"])


@pytest.fixture
def captured_lm_eval(monkeypatch):
    """Replace lm-eval's CLI entry point by a recorder of sys.argv; keep TaskManager and sys.argv intact."""
    import lm_eval.__main__ as lm_main
    from lm_eval.tasks import TaskManager

    calls = []
    monkeypatch.setattr(lm_main, "cli_evaluate", lambda: calls.append(list(sys.argv)))
    monkeypatch.setattr(sys, "argv", list(sys.argv))
    monkeypatch.setattr(TaskManager, "__init__", TaskManager.__init__)  # undo _only_our_tasks at teardown
    return calls


def test_run_adds_include_path_and_metadata(captured_lm_eval):
    from lm_eval.tasks import TaskManager

    assert cli.main(["run", "--model", "dummy", "--tasks", "enterprise", "--data-root", "/data"]) == 0
    (argv,) = captured_lm_eval
    assert argv[:2] == ["lm-eval", "run"]
    assert argv[argv.index("--include_path") + 1] == TASK_DIR
    assert json.loads(argv[argv.index("--metadata") + 1]) == {"data_root": "/data"}
    assert "--data-root" not in argv and argv[argv.index("--tasks") + 1] == "enterprise"
    assert getattr(TaskManager.__init__, "_lmee_patched", False)  # built-in task index skipped


def test_run_appends_to_user_include_path(captured_lm_eval):
    cli.main(["run", "--include_path", "/mine", "--model", "dummy"])
    argv = captured_lm_eval[0]
    assert argv[argv.index("--include_path") + 1] == f"/mine,{TASK_DIR}"
    assert argv.count("--include_path") == 1 and "--metadata" not in argv


def test_run_include_defaults_keeps_builtin_index(captured_lm_eval):
    from lm_eval.tasks import TaskManager

    cli.main(["run", "--include-defaults", "--model", "dummy"])
    assert "--include-defaults" not in captured_lm_eval[0]
    assert not getattr(TaskManager.__init__, "_lmee_patched", False)


def test_task_manager_patch(monkeypatch):
    from lm_eval.tasks import TaskManager

    seen = []

    def recorder(self, *args, include_defaults=True, **kwargs):
        seen.append(include_defaults)

    monkeypatch.setattr(TaskManager, "__init__", recorder)
    cli._only_our_tasks()
    cli._only_our_tasks()  # idempotent: not wrapped twice
    TaskManager()
    TaskManager(include_path="x", metadata={})
    TaskManager(include_defaults=True)  # explicit opt-in still reaches lm-eval
    assert seen == [False, False, True]
    assert TaskManager.__init__.__wrapped__ is recorder


def test_task_manager_patch_real_index(monkeypatch):
    from lm_eval.tasks import TaskManager

    monkeypatch.setattr(TaskManager, "__init__", TaskManager.__init__)
    cli._only_our_tasks()
    tm = TaskManager(include_path=TASK_DIR)
    assert "hellaswag" not in tm.all_tasks  # lm-eval's ~10k built-ins not indexed
    assert "enterprise" in tm.all_groups and "ent_gold_news_direction_up__t1" in tm.all_tasks


# ============================================================================================ acceptance runs
def _finance_rows_expected():
    """Dataset groups of enterprise_finance (each has an aggregate row) and the aliases of every variant task
    reachable from enterprise_finance (each has a task row)."""
    configs = [load_yaml(p, resolve_func=False, recursive=False) for p in Path(TASK_DIR).glob("finance/**/*.yaml")]
    groups = {c["group"]: c["task"] for c in configs if "group" in c}
    aliases = {c["task"]: c.get("task_alias", c["task"]) for c in configs if isinstance(c.get("task"), str)}

    def leaves(name):
        return [t for m in groups[name] for t in leaves(m)] if name in groups else [name]

    return list(groups["enterprise_finance"]), [aliases[t] for t in leaves("enterprise_finance")]


def _check_finance_output(proc):
    assert proc.returncode == 0, f"exit {proc.returncode}\n{proc.stderr[-4000:]}"
    rows = [ln for ln in proc.stdout.splitlines() if ln.startswith("|")]
    groups, aliases = _finance_rows_expected()
    assert groups and aliases
    # first cell: "| <indent>- <name or alias><padding>|"
    names = {ln.split("|")[1].strip().lstrip("- ").strip() for ln in rows if ln.count("|") > 2}
    for g in groups:
        assert g in names, f"no row for dataset group {g}"
    missing = [a for a in aliases if a not in names]
    assert not missing, f"no task row for {missing}"


def test_acceptance_lm_eval_dummy_enterprise_finance():
    """Issue acceptance check: plain lm-eval with --include_path tasks and --metadata data_root, from the checkout."""
    cmd = [str(BIN / "lm_eval"), "--model", "dummy", "--tasks", "enterprise_finance", "--include_path", "tasks",
           "--limit", "2", "--metadata", json.dumps({"data_root": FIXTURES_DIR})]
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, env=ENV, timeout=600)
    _check_finance_output(proc)


def test_acceptance_lm_eval_enterprise_run(tmp_path):
    """The same through the wrapper CLI, from an unrelated folder (include path and data root added by it)."""
    cmd = [str(BIN / "lm-eval-enterprise"), "run", "--model", "dummy", "--tasks", "enterprise_finance",
           "--limit", "2", "--data-root", FIXTURES_DIR]
    proc = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, env=ENV, timeout=600)
    _check_finance_output(proc)


def test_run_offline_without_data_is_one_error_line(monkeypatch, tmp_path, capsys):
    from lm_eval_enterprise import cli

    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("LM_EVAL_ENTERPRISE_CACHE", str(tmp_path / "empty"))
    rc = cli.main(["run", "--model", "dummy", "--tasks", "ent_kpi_edgar__t1"])
    err = [line for line in capsys.readouterr().err.splitlines() if line.startswith("error:")]
    assert rc == 2
    assert len(err) == 1 and err[0].startswith("error: [kpi_edgar]") and "prepare --dataset kpi_edgar" in err[0]
