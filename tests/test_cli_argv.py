"""The CLI traps of issue #10 item 6 and the noise of item 7, each with the real argv through
``lm_eval_enterprise.cli.main([...])`` (lm-eval's real parser, config, task manager and evaluator; the ``dummy``
model), plus two subprocess runs that show no traceback reaches the user."""

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lm_eval_enterprise import __version__, cli
from lm_eval_enterprise.cli import data as cli_data
from lm_eval_enterprise.cli import run as cli_run

BIN = Path(sys.executable).parent
ENV = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
LM_EVAL_METADATA_ADVICE = "Custom kwargs can be passed to `--metadata`"  # lm-eval's per-task warning


def _main(argv: list[str]) -> tuple[int, str, str]:
    """``cli.main(argv)`` with stdout/stderr captured (also what lm-eval's log handler writes there)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = cli.main(argv)
    return rc, out.getvalue(), err.getvalue()


def _user_tasks(folder: Path) -> Path:
    """An include path of a user's own: a group of theirs over one of our tasks (outside the `enterprise` tree),
    so running it needs both their folder and ours indexed."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "my_suite.yaml").write_text(
        "group: my_suite\ntask:\n  - ent_fiqa_qa_gen__t1\nmetadata:\n  version: 1.0\n"
    )
    return folder


def _results(out_dir: Path) -> dict:
    files = sorted(out_dir.glob("*/results_*.json"))
    assert len(files) == 1, files
    return json.loads(files[0].read_text())


def _dummy_run(out: Path, tasks: str, flags: list[str]) -> tuple[dict, str, str]:
    """``run --model dummy --tasks TASKS FLAGS --output_path OUT``, which must succeed: (results, stdout, stderr)."""
    rc, stdout, err = _main(["run", "--model", "dummy", "--tasks", tasks, *flags, "--output_path", str(out)])
    assert rc == 0, err[-3000:]
    return _results(out), stdout, err


# ============================================================================================ one full run
@pytest.fixture(scope="module")
def enterprise_run(tmp_path_factory):
    """`run` over `enterprise` + a user's group, in the `=` forms of the flags, with `--metadata key=val`."""
    tmp = tmp_path_factory.mktemp("cli_run")
    mine = _user_tasks(tmp / "mine")
    flags = [f"--include_path={mine}", "--data_root=embedded", "--metadata", "max_context_tokens=3000", "--limit", "2"]
    return _dummy_run(tmp / "out", "enterprise,my_suite", flags)


def test_include_path_finds_the_users_tasks_and_ours(enterprise_run):
    res, _, _ = enterprise_run
    assert res["group_subtasks"]["my_suite"] == ["ent_fiqa_qa_gen__t1"]  # their group, from --include_path=X
    assert "ent_fiqa_qa_gen__t1" in res["results"] and "ent_tram__t1" in res["results"]  # our tasks


def test_metadata_key_val_and_data_root_equals_form_reach_the_tasks(enterprise_run):
    res, _, _ = enterprise_run
    meta = res["configs"]["ent_tram__t1"]["metadata"]
    assert meta["data_root"] == "embedded"  # --data_root=embedded
    assert meta["max_context_tokens"] == 3000  # --metadata max_context_tokens=3000 (not JSON)
    assert meta["prompt_budget"]["max_context_tokens"] == 3000 and meta["prompt_budget"]["source"] == "metadata"


def test_lm_evals_per_task_custom_dataset_warning_is_gone(enterprise_run):
    _, _, err = enterprise_run
    assert LM_EVAL_METADATA_ADVICE not in err  # was 2 lines × 170 variants here
    # our data layer: gold_news is loaded once per subtask (9), its lines are printed once
    assert err.count("[gold_news] using the embedded fixture data") <= 1
    assert err.count("[gold_news]") <= 2, [ln for ln in err.splitlines() if "[gold_news]" in ln]


# ============================================================================================ more argv forms
def test_space_forms_old_data_root_spelling_and_json_metadata(tmp_path):
    mine = _user_tasks(tmp_path / "mine")
    flags = ["--include_path", str(mine), "--data-root", "embedded", "--metadata", '{"max_context_tokens": 2500}']
    res, _, _ = _dummy_run(tmp_path / "out", "my_suite", flags + ["--limit", "1"])
    meta = res["configs"]["ent_fiqa_qa_gen__t1"]["metadata"]
    assert meta["data_root"] == "embedded" and meta["max_context_tokens"] == 2500


def test_data_root_and_metadata_data_root_must_agree(tmp_path):
    rc, _, err = _main(
        [
            "run",
            "--model",
            "dummy",
            "--tasks",
            "ent_tram__t1",
            "--data_root",
            str(tmp_path),
            "--metadata",
            "data_root=embedded",
        ]
    )
    assert rc == 2 and err.strip().splitlines()[-1].startswith("lm-eval-enterprise run: error: --data_root")


# ============================================================================================ usage errors
def _one_usage_error(rc: int, err: str, prog: str) -> str:
    """Exit code 2, argparse's usage and exactly one error line, no traceback."""
    assert rc == 2, err
    assert "Traceback" not in err
    errors = [ln for ln in err.splitlines() if ": error: " in ln]
    assert len(errors) == 1 and errors[0].startswith(f"{prog}: error: "), err
    return errors[0]


@pytest.mark.parametrize(
    "argv,needle",
    [
        (["--model", "dummy"], "argument --tasks: tasks not found: (none given)"),
        (["--model", "dummy", "--tasks", "no_such_task"], "tasks not found: no_such_task"),
        (["--model", "dummy", "--tasks", "ent_tram__t1", "--log_samples"], "Specify --output_path"),  # lm-eval's check
        (["--model", "dummy", "--tasks", "ent_tram__t1", "--include_path", "/no/such/folder"], "no such folder"),
        (["--model", "dummy", "--tasks", "ent_tram__t1", "--data_root", "/no/such/folder"], "no such folder"),
        (["--model", "dummy", "--tasks", "ent_tram__t1", "--no_such_flag"], "unrecognized arguments: --no_such_flag"),
    ],
)
def test_run_usage_errors_are_one_line(argv, needle):
    rc, _, err = _main(["run", *argv])
    assert needle in _one_usage_error(rc, err, "lm-eval-enterprise run")


def test_run_without_arguments_prints_help_with_our_flags_and_lm_evals():
    rc, out, err = _main(["run"])
    assert rc == 0 and "Traceback" not in err
    for flag in (
        "--data_root",
        "--include_defaults",
        "--model_args",
        "--apply_chat_template",
        "--metadata",
        "--include_path",
        "--output_path",
    ):
        assert flag in out, flag
    assert "--data-root" not in out and "--include-defaults" not in out  # old spellings: hidden aliases
    rc, out_help, _ = _main(["run", "--help"])
    assert rc == 0 and out_help == out


def test_version():
    rc, out, _ = _main(["--version"])
    from importlib.metadata import version

    import lm_eval  # noqa: F401

    assert rc == 0 and out.strip() == f"lm-eval-enterprise {__version__} (lm-eval {version('lm_eval')})"


@pytest.mark.parametrize(
    "argv", [["list", "--domain", "bogus"], ["prepare", "--domain", "bogus"], ["verify", "--domain", "bogus"]]
)
def test_bogus_domain_is_a_usage_error(argv):
    err = _one_usage_error(*_main(argv)[::2], prog=f"lm-eval-enterprise {argv[0]}")
    assert "invalid choice: 'bogus'" in err and "finance" in err


def test_unknown_dataset_and_empty_selection_are_usage_errors():
    err = _one_usage_error(*_main(["prepare", "--dataset", "no_such_dataset"])[::2], prog="lm-eval-enterprise prepare")
    assert "invalid choice: 'no_such_dataset'" in err and "kpi_edgar" in err
    err = _one_usage_error(*_main(["prepare", "--quiet"])[::2], prog="lm-eval-enterprise prepare")
    assert "give --dataset ID" in err


def test_commands_without_needed_arguments_print_their_help():
    for argv, head in (
        (["prepare"], "usage: lm-eval-enterprise prepare"),
        ([], "usage: lm-eval-enterprise"),
        (["sharpe"], "usage: lm-eval-enterprise sharpe"),
    ):
        rc, out, err = _main(argv)
        assert rc == 0 and out.startswith(head) and not err, (argv, err)


def test_lm_eval_flag_spelling_everywhere_with_hidden_old_aliases():
    """Every option of every subcommand is spelled as lm-eval's (no dash inside a flag name); dashed spellings
    are still accepted but not shown."""
    from lm_eval_enterprise.cli.sharpe import build_parser as sharpe_parser

    parsers = {"run": cli_run.run_parser(), "sharpe": sharpe_parser()}
    for name, sub in cli.build_parser()._subparsers._group_actions[0].choices.items():
        parsers.setdefault(name, sub)
    for name, parser in parsers.items():
        shown = [o for a in parser._actions if a.help != "==SUPPRESS==" for o in a.option_strings]
        dashed = [o for o in shown if o.startswith("--") and "-" in o[2:]]
        assert not dashed, (name, dashed)
    assert cli.main(["verify", "--data-root", "embedded", "--dataset", "tram", "--quiet"]) == 0  # old alias


# ============================================================================================ exit codes
def test_failed_run_is_exit_1_with_one_error_line(monkeypatch, tmp_path):
    monkeypatch.setenv("LM_EVAL_ENTERPRISE_CACHE", str(tmp_path / "empty"))
    rc, _, err = _main(["run", "--model", "dummy", "--tasks", "ent_kpi_edgar__t1"])
    assert rc == 1 and "Traceback" not in err
    assert [ln for ln in err.splitlines() if ln.startswith("error:")][0].startswith("error: [kpi_edgar]")


def test_sharpe_output_path_existing_file_and_missing_input(tmp_path):
    f = tmp_path / "report.txt"
    f.write_text("not a folder")
    err = _one_usage_error(
        *_main(["sharpe", str(tmp_path), "--output_path", str(f)])[::2], prog="lm-eval-enterprise sharpe"
    )
    assert f"--output_path: {f} exists and is not a folder" in err
    rc, _, err = _main(["sharpe", str(tmp_path), "--out", str(f)])  # the old spelling, same check
    assert rc == 2
    rc, _, err = _main(["sharpe", str(tmp_path / "nope"), "--no_progress"])  # unreadable input: a failed run
    assert rc == 1 and err.strip() == f"error: {tmp_path / 'nope'}: no such file or folder"
    err = _one_usage_error(
        *_main(["sharpe", str(tmp_path), "--sigma_floor", "x"])[::2], prog="lm-eval-enterprise sharpe"
    )
    assert "--sigma_floor must be off, binomial or a number" in err


def test_no_traceback_reaches_the_shell(tmp_path):
    exe = str(BIN / "lm-eval-enterprise")
    proc = subprocess.run([exe, "run"], capture_output=True, text=True, env=ENV, timeout=300)
    assert proc.returncode == 0 and "--data_root" in proc.stdout and "Traceback" not in proc.stderr
    f = tmp_path / "file"
    f.write_text("")
    proc = subprocess.run(
        [exe, "sharpe", str(tmp_path), "--out", str(f)], capture_output=True, text=True, env=ENV, timeout=300
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines()[-1].endswith("exists and is not a folder")


def test_a_systemexit_message_is_one_error_line_and_exit_1(monkeypatch):
    """A ``SystemExit("message")`` from below (e.g. a library giving up) is a failed run, not a traceback."""

    def give_up(args):
        raise SystemExit("the library gave up")

    monkeypatch.setattr(cli_data, "_tasks_dir", give_up)
    rc, out, err = _main(["tasks-dir"])
    assert (rc, out, err) == (1, "", "error: the library gave up\n")
    rc, out, _ = _main(["tasks-dir", "--help"])
    assert rc == 0 and out.startswith("usage: lm-eval-enterprise tasks-dir")
