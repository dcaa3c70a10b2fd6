"""``lm-eval-enterprise`` CLI (lm_eval_enterprise/cli/) and the issue's acceptance runs with lm-eval's dummy model."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from lm_eval.tasks._yaml_loader import load_yaml

from conftest import OFFLINE_ENV
from lm_eval_enterprise import TASK_DIR, cli
from lm_eval_enterprise.cli import run as cli_run

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
ENV = OFFLINE_ENV


# ============================================================================================ tasks-dir / list
def test_tasks_dir_subprocess():
    proc = subprocess.run(
        [str(BIN / "lm-eval-enterprise"), "tasks-dir"], capture_output=True, text=True, env=ENV, cwd="/", timeout=120
    )
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
    assert gold and gold[0].split() == ["finance", "gold_news", "classification_weighted", "group", "ent_gold_news"]
    # one line per dataset folder that has a source.py
    n_sources = len(list(Path(TASK_DIR).glob("*/*/source.py")))
    assert len(lines) == n_sources
    assert cli.main(["list", "--domain", "cyber"]) == 0
    assert all(ln.startswith("cyber") for ln in capsys.readouterr().out.splitlines())


# ============================================================================================ run: argv handling
@pytest.fixture
def captured_run(monkeypatch):
    """Record what ``run`` would evaluate: lm-eval's task manager (which ``runner.make_task_manager`` builds)
    replaced by a recorder of its arguments and our ``_evaluate`` by a recorder of the config (no task index, no
    model)."""
    import lm_eval.tasks

    calls = {}

    class RecordingTaskManager:
        def __init__(self, **kwargs):
            calls["task_manager"] = kwargs

        def match_tasks(self, names):
            return list(names)

    monkeypatch.setattr(lm_eval.tasks, "TaskManager", RecordingTaskManager)
    monkeypatch.setattr(cli_run, "_evaluate", lambda cfg, tm, cells=None: calls.update(cfg=cfg) or 0)
    return calls


def test_run_passes_our_task_manager_explicitly(captured_run, tmp_path):
    assert cli.main(["run", "--model", "dummy", "--tasks", "enterprise", "--data_root", str(tmp_path)]) == 0
    tm = captured_run["task_manager"]
    assert tm["include_path"] == [TASK_DIR] and tm["include_defaults"] is False  # built-in index skipped
    assert tm["metadata"] == {"data_root": str(tmp_path)}
    cfg = captured_run["cfg"]
    assert cfg.tasks == ["enterprise"] and cfg.model == "dummy" and cfg.metadata == {"data_root": str(tmp_path)}


def test_run_adds_our_tasks_to_the_user_include_path(captured_run, tmp_path):
    assert cli.main(["run", "--include_path", str(tmp_path), "--model", "dummy", "--tasks", "x"]) == 0
    assert captured_run["task_manager"]["include_path"] == [str(tmp_path), TASK_DIR]


def test_run_include_defaults_keeps_builtin_index(captured_run):
    for flag in ("--include_defaults", "--include-defaults"):  # lm-eval's spelling; the old one as hidden alias
        assert cli.main(["run", flag, "--model", "dummy", "--tasks", "x"]) == 0
        assert captured_run["task_manager"]["include_defaults"] is True


def test_run_puts_the_hf_model_budget_into_the_metadata(captured_run, tiny_model_dir):
    cli.main(["run", "--model", "hf", "--model_args", f"pretrained={tiny_model_dir}", "--tasks", "x"])
    meta = captured_run["task_manager"]["metadata"]
    assert meta["max_context_tokens"] == 4096 and meta["context_tokenizer"] == str(tiny_model_dir)
    assert meta["context_budget_source"] == "model" and meta["pretrained"] == str(tiny_model_dir)
    cli.main(
        [
            "run",
            "--model",
            "hf",
            "--model_args",
            f"pretrained={tiny_model_dir}",
            "--tasks",
            "x",
            "--metadata",
            "max_context_tokens=1000",
        ]
    )
    meta = captured_run["task_manager"]["metadata"]
    assert meta["max_context_tokens"] == 1000 and "context_budget_source" not in meta  # the user's value wins


def test_resolve_tasks_names_globs_files_and_missing(tmp_path):
    from lm_eval.tasks import TaskManager

    tm = TaskManager(include_path=TASK_DIR, include_defaults=False)
    got = cli_run._resolve_tasks(tm, ["ent_tram__t1,ent_tram__t2", "ent_tram__t1"])
    assert got == ["ent_tram__t1", "ent_tram__t2"]
    assert cli_run._resolve_tasks(tm, "ent_iotspotter__t*") == [f"ent_iotspotter__t{i}" for i in range(1, 6)]
    (tmp_path / "mine.yaml").write_text("task: mine\ndataset_path: x\n")
    assert cli_run._resolve_tasks(tm, [str(tmp_path / "mine.yaml")]) == [{"task": "mine", "dataset_path": "x"}]
    with pytest.raises(LookupError, match="tasks not found: no_such_task"):
        cli_run._resolve_tasks(tm, ["ent_tram__t1", "no_such_task"])


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
    cmd = [
        str(BIN / "lm_eval"),
        "--model",
        "dummy",
        "--tasks",
        "enterprise_finance",
        "--include_path",
        "tasks",
        "--limit",
        "2",
        "--metadata",
        json.dumps({"data_root": "embedded"}),
    ]
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, env=ENV, timeout=600)
    _check_finance_output(proc)


def test_acceptance_lm_eval_enterprise_run(tmp_path):
    """The same through the wrapper CLI, from an unrelated folder (include path and data root added by it)."""
    cmd = [
        str(BIN / "lm-eval-enterprise"),
        "run",
        "--model",
        "dummy",
        "--tasks",
        "enterprise_finance",
        "--limit",
        "2",
        "--data_root",
        "embedded",
    ]
    proc = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, env=ENV, timeout=600)
    _check_finance_output(proc)


def test_run_offline_without_data_is_one_error_line(monkeypatch, tmp_path, capsys):
    from lm_eval_enterprise import cli

    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("LM_EVAL_ENTERPRISE_CACHE", str(tmp_path / "empty"))
    rc = cli.main(["run", "--model", "dummy", "--tasks", "ent_kpi_edgar__t1"])
    err = [line for line in capsys.readouterr().err.splitlines() if line.startswith("error:")]
    assert rc == 1  # a failed run, as lm-eval (2 is for usage errors)
    assert len(err) == 1 and err[0].startswith("error: [kpi_edgar]") and "prepare --dataset kpi_edgar" in err[0]
