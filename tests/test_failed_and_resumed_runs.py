"""Issue 20: nothing lost — a run that cannot save fails before it starts, a killed run resumes by rerunning it
(the answer cache, lm_eval_enterprise/harness/request_cache.py), bad flag values and cut ranking queries are usage errors,
and the Sharpe tool refuses a negative --bootstrap and reads results lm-eval wrote under an --output_path *.json."""

import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import OFFLINE_ENV
from lm_eval_enterprise import cli
from lm_eval_enterprise.cli import run as cli_run
from lm_eval_enterprise.harness import request_cache

BIN = Path(sys.executable).parent
DUMMY = ["run", "--model", "dummy", "--tasks", "ent_fiqa_sa", "--data_root", "embedded"]


def _usage_error(capsys, argv) -> str:
    rc = cli.main(argv)
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if "error:" in line]
    assert rc == 2, err
    assert "usage:" in err and len(errors) == 1 and "Traceback" not in err, err
    return errors[0]


# ============================================================================================ bad values (item 3)
@pytest.mark.parametrize(
    "argv, says",
    [
        (["demo", "--limit", "0"], "--limit: 0 is not a positive"),
        (["demo", "--limit", "-2"], "--limit: -2 is not a positive"),
        ([*DUMMY, "--limit", "0"], "--limit: 0 is not a positive"),
        ([*DUMMY, "--limit", "-3"], "--limit: -3 is not a positive"),
        ([*DUMMY, "--metadata", "{bad"], "Invalid JSON"),
        ([*DUMMY, "--metadata", "max_context_tokens=abc"], "max_context_tokens='abc' is not a whole number"),
    ],
)
def test_bad_values_are_usage_errors(capsys, argv, says):
    assert says in _usage_error(capsys, argv)


# ============================================================================================ output path (item 1)
def test_output_path_that_cannot_be_written_fails_before_the_model(capsys, tmp_path, monkeypatch):
    a_file = tmp_path / "a_file"
    a_file.write_text("x")
    # the model would be the first thing loaded after the checks: it must never be reached
    monkeypatch.setattr(cli_run, "_evaluate", lambda *a, **k: pytest.fail("the run started"))
    assert "exists and is not a folder" in _usage_error(capsys, [*DUMMY, "--output_path", str(a_file)])
    assert "is not a folder" in _usage_error(capsys, [*DUMMY, "--output_path", str(a_file / "sub" / "out")])
    assert "cannot write in /proc" in _usage_error(capsys, [*DUMMY, "--output_path", "/proc/no_such_out"])


def test_results_that_cannot_be_saved_go_to_a_named_fallback_with_exit_1(capsys, tmp_path, monkeypatch):
    """The path passes the early check but the write fails at the end (here: the check skipped, the path a file):
    exit 1, one error line naming where the results went, and they are there."""
    a_file = tmp_path / "a_file"
    a_file.write_text("x")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(cli_run, "check_output_path", lambda path: None)
    rc = cli.main([*DUMMY, "--limit", "2", "--output_path", str(a_file), "--log_samples"])
    err = [line for line in capsys.readouterr().err.splitlines() if line.startswith("error:")]
    assert rc == 1 and len(err) == 1, err
    written = Path(err[0].rsplit("written to ", 1)[1])
    assert written.is_file() and written.is_relative_to(tmp_path / "lm_eval_enterprise_unsaved")
    assert "ent_fiqa_sa__t1" in json.loads(written.read_text())["results"]
    assert list(written.parent.glob("samples_ent_fiqa_sa__t1_*.jsonl"))


def test_sharpe_reads_results_of_an_output_path_ending_in_json(capsys, tmp_path):
    """lm-eval names them <stem>_<date_id>.json (EvaluationTracker); the Sharpe tool takes the folder or the file."""
    out = tmp_path / "out" / "res.json"
    assert cli.main([*DUMMY, "--limit", "2", "--output_path", str(out), "--log_samples"]) == 0
    written = list(out.parent.glob("res_*.json"))
    assert len(written) == 1
    capsys.readouterr()
    for given in (out.parent, written[0]):
        assert cli.main(["sharpe", str(given), "--bootstrap", "0", "--quiet"]) == 0, capsys.readouterr().err


def test_sharpe_refuses_a_negative_bootstrap(capsys, tmp_path):
    assert "--bootstrap: -5" in _usage_error(capsys, ["sharpe", str(tmp_path), "--bootstrap", "-5"])


# ============================================================================================ cut queries (item 4)
def test_limit_cutting_a_ranking_query_is_rounded_up_to_whole_queries(capsys, monkeypatch):
    """``--limit 15`` (a query = 20 candidate documents): every template evaluates the whole first query, said
    once per task; a --cell_budget plan refuses such a limit instead (tests/test_cellplan.py)."""
    seen = {}
    monkeypatch.setattr("lm_eval.simple_evaluate", lambda **kw: seen.update(kw))  # the run itself: not needed
    argv = ["run", "--model", "dummy", "--tasks", "ent_fiqa_qa,ent_fiqa_sa", "--data_root", "embedded", "--limit", "15"]
    assert cli.main(argv) == 0
    err = capsys.readouterr().err
    assert "task ent_fiqa_qa__t1: --limit 15 would cut a query: its first 20 documents (whole queries)" in err
    assert seen["limit"] is None
    assert {len(v) for k, v in seen["samples"].items() if k.startswith("ent_fiqa_qa")} == {20}
    assert {len(v) for k, v in seen["samples"].items() if k.startswith("ent_fiqa_sa")} == {9}  # all it has


def test_sharpe_flags_queries_cut_by_plain_lm_eval(capsys, tmp_path):
    """lm-eval's own CLI takes any --limit: a results folder with 15 of a query's 20 candidates is flagged."""
    from lm_eval.loggers import EvaluationTracker

    from lm_eval_enterprise.harness.runner import evaluate, save_results

    res = evaluate("dummy", ["ent_fiqa_qa"], data_root="embedded", limit=15)
    tracker = EvaluationTracker(output_path=str(tmp_path / "out"))
    assert save_results(tracker, res, res.pop("samples")) == []
    capsys.readouterr()
    assert cli.main(["sharpe", str(tmp_path / "out"), "--bootstrap", "0", "--output_path", str(tmp_path / "rep")]) == 0
    captured = capsys.readouterr()
    assert "flag cut_queries" in captured.err
    assert "`cut_queries`" in captured.out  # under the dataset's table of the report
    agg = json.loads((tmp_path / "rep" / "aggregate.json").read_text())
    assert any("cut_queries" in r["flags"] for r in agg["records"])


# ============================================================================================ answer cache (item 2)
def test_model_identity_separates_models_revisions_and_settings(tmp_path, tiny_model_dir):
    base = request_cache.model_identity("hf", {"pretrained": str(tiny_model_dir), "dtype": "float32"})
    assert base["revision"].startswith("local:")
    variants = [
        request_cache.model_identity("dummy", {}),
        request_cache.model_identity("hf", {"pretrained": str(tiny_model_dir), "dtype": "bfloat16"}),
        request_cache.model_identity(
            "hf", {"pretrained": str(tiny_model_dir), "dtype": "float32"}, apply_chat_template=True
        ),  # fmt: skip
        request_cache.model_identity(
            "hf", {"pretrained": str(tiny_model_dir), "dtype": "float32"}, gen_kwargs={"do_sample": True}
        ),  # fmt: skip
        request_cache.model_identity("hf-constrained", {"pretrained": str(tiny_model_dir), "dtype": "float32"}),
    ]
    prefixes = {request_cache.cache_prefix(tmp_path, i) for i in [base, *variants]}
    assert len(prefixes) == 1 + len(variants)
    same = request_cache.model_identity("hf", {"dtype": "float32", "pretrained": str(tiny_model_dir)})
    assert request_cache.cache_prefix(tmp_path, same) == request_cache.cache_prefix(tmp_path, base)
    copy = tmp_path / "copy"  # other weights in a folder: another revision
    copy.mkdir()
    for f in tiny_model_dir.iterdir():
        (copy / f.name).write_bytes(f.read_bytes() + (b"\0" if f.suffix == ".safetensors" else b""))
    assert request_cache.model_revision({"pretrained": str(copy)}) != base["revision"]


def _tiny_run(tiny_model_dir, out: Path, *extra: str) -> list[str]:
    return [
        str(BIN / "lm-eval-enterprise"),
        "run",
        "--model",
        "hf",
        "--model_args",
        f"pretrained={tiny_model_dir},dtype=float32",
        "--device",
        "cpu",
        "--batch_size",
        "1",
        "--tasks",
        "ent_fiqa_sa",
        "--limit",
        "4",
        "--gen_kwargs",
        "max_gen_toks=4",
        "--data_root",
        "embedded",
        "--output_path",
        str(out),
        "--log_samples",
        *extra,
    ]


def _scores(out: Path) -> dict:
    (results,) = out.rglob("results_*.json")
    return {task: row for task, row in json.loads(results.read_text())["results"].items()}


def _start_and_stop(cmd, env, cache_dir: Path, sig) -> tuple[subprocess.Popen, int, str]:
    """Start ``cmd``, wait until its answer cache holds 2 answers, send ``sig`` by PID; (process, answers, stderr)."""
    proc = subprocess.Popen(  # SIGINT as in a terminal, even when the test runner was started with it ignored
        cmd,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.time() + 600
    db = None
    while time.time() < deadline and proc.poll() is None:
        db = db or next(iter(cache_dir.glob("*_rank0.db")), None)
        if db is not None and request_cache.stored_answers(db) >= 2:
            break
        time.sleep(0.05)
    assert proc.poll() is None, "the run ended before it could be stopped"
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=120)
    return proc, request_cache.stored_answers(db), err


def test_killed_run_resumes_with_identical_results_and_never_serves_another_model(tmp_path, tiny_model_dir):
    cache = tmp_path / "answers"
    env = {**OFFLINE_ENV, "LM_EVAL_ENTERPRISE_REQUEST_CACHE": str(cache)}
    # kill -9 mid-run: the answers given so far are on disk
    proc, kept, _ = _start_and_stop(_tiny_run(tiny_model_dir, tmp_path / "a"), env, cache, signal.SIGKILL)
    assert proc.returncode == -signal.SIGKILL and 2 <= kept < 20
    # the same command again: resumes (reports what it found), finishes
    again = subprocess.run(_tiny_run(tiny_model_dir, tmp_path / "a"), env=env, capture_output=True, text=True)
    assert again.returncode == 0, again.stderr[-2000:]
    assert f"({kept:,} answers stored" in again.stderr
    reported = [int(x.split("Cached requests: ")[1].split(",")[0]) for x in again.stderr.splitlines()
                if "Cached requests: " in x]  # fmt: skip
    assert sum(reported) >= kept
    # identical to an uninterrupted run without the cache
    fresh = subprocess.run(_tiny_run(tiny_model_dir, tmp_path / "b", "--no_cache"), env=env, capture_output=True,
                           text=True)  # fmt: skip
    assert fresh.returncode == 0, fresh.stderr[-2000:]
    assert "answer cache" not in fresh.stderr
    assert _scores(tmp_path / "a") == _scores(tmp_path / "b")
    # a second model with the same cache folder reads nothing of the first's
    dummy = subprocess.run(
        [
            str(BIN / "lm-eval-enterprise"),
            "run",
            "--model",
            "dummy",
            "--tasks",
            "ent_fiqa_sa",
            "--limit",
            "4",
            "--gen_kwargs",
            "max_gen_toks=4",
            "--data_root",
            "embedded",
        ],  # fmt: skip
        env=env,
        capture_output=True,
        text=True,
    )
    assert dummy.returncode == 0, dummy.stderr[-2000:]
    assert "(0 answers stored" in dummy.stderr and "Cached requests: 0," in dummy.stderr
    assert len(list(cache.glob("*_rank0.db"))) == 2


def test_ctrl_c_is_one_line_with_what_was_kept_and_the_resume_command(tmp_path, tiny_model_dir):
    cache = tmp_path / "answers"
    env = {**OFFLINE_ENV, "LM_EVAL_ENTERPRISE_REQUEST_CACHE": str(cache)}
    cmd = _tiny_run(tiny_model_dir, tmp_path / "a")
    proc, kept, err = _start_and_stop(cmd, env, cache, signal.SIGINT)
    assert proc.returncode == cli_run.EXIT_INTERRUPTED, err[-2000:]
    assert "Traceback" not in err
    (line,) = [x for x in re.split(r"[\r\n]", err) if x.startswith("interrupted:")]  # after the progress bar's \r
    assert f"{kept:,} answer(s) kept in {cache}" in line and "resume with: lm-eval-enterprise run --model hf" in line
    # --clear_cache starts again from nothing
    cleared = subprocess.run([*cmd, "--clear_cache"], env=env, capture_output=True, text=True)
    assert cleared.returncode == 0 and "(0 answers stored" in cleared.stderr, cleared.stderr[-2000:]


# ============================================================================================ verify = run (item 5)
def test_verify_missing_data_root_is_the_usage_error_of_run(capsys, tmp_path):
    assert "no such folder" in _usage_error(capsys, ["verify", "--data_root", str(tmp_path / "missing")])
    assert "no such folder" in _usage_error(capsys, [*DUMMY[:-1], str(tmp_path / "missing")])


def test_verify_refuses_the_empty_evaluation_split_run_refuses(capsys, tmp_path):
    from lm_eval_enterprise.data import DataError, load_records

    d = tmp_path / "unfair_tos"
    d.mkdir()
    line = {"text": "you agree to binding arbitration .", "answer": "Arbitration", "index": 0, "label": "Arbitration"}
    (d / "train.jsonl").write_text(json.dumps(line) + "\n")
    (d / "test.jsonl").write_text("")
    (d / "SOURCE.md").write_text("a partial copy: one row\n")
    with pytest.raises(DataError, match="evaluation split 'test' is empty or missing"):
        load_records("unfair_tos", data_root=str(tmp_path))
    assert cli.main(["verify", "--data_root", str(tmp_path), "--quiet"]) == 1
    out = capsys.readouterr().out
    assert "unfair_tos  ERROR: [unfair_tos]" in out and "evaluation split 'test' is empty or missing" in out


# ============================================================================================ repeated ids (item 5)
def test_repeated_ids_are_counted_never_hidden(caplog):
    from lm_eval_enterprise.data.checks import repeated_ids

    splits = {
        "train": [{"id": "a"}, {"id": "b"}, {"id": "a"}, {"id": "a"}, {"id": "c"}, {"id": "c"}],
        "test": [{"id": "x"}, {"id": "y"}],
        "fewshot": [{"id": "a"}, {"id": "a"}],  # a view of train: not counted twice
    }
    with caplog.at_level("INFO"):
        facts = repeated_ids("demo", splits)
    assert facts == {"repeated_ids": {"train": {"ids": 2, "rows": 5, "first": ["a", "c"]}}}
    assert "WARNING" in caplog.text and "train: 2 ids on 5 rows" in caplog.text
    assert repeated_ids("demo", {"test": splits["test"]}) == {}


def test_fiqa_sa_repeated_ids_reach_the_results_metadata(tmp_path, caplog):
    from lm_eval_enterprise.data.load import load_task_data

    d = tmp_path / "fiqa_sa"
    d.mkdir()
    rows = {
        "train": [
            ("1", "Shares of A rose", "A", 0.5),
            ("1", "Shares of A rose", "B", -0.5),
            ("2", "C fell", "C", -0.4),
        ],
        "test": [("7", "D and E", "D", 0.3), ("7", "D and E", "E", 0.0), ("8", "F flat", "F", 0.0)],
    }
    for split, rs in rows.items():
        text = "".join(json.dumps({"_id": i, "sentence": s, "target": t, "score": v}) + "\n" for i, s, t, v in rs)
        (d / f"{split}.jsonl").write_text(text)
    with caplog.at_level("INFO"):
        _, meta = load_task_data(dataset_id="fiqa_sa", data_root=str(tmp_path))
    assert meta["repeated_ids"] == {
        "train": {"ids": 1, "rows": 2, "first": ["1"]},
        "test": {"ids": 1, "rows": 2, "first": ["7"]},
    }
    assert "the genuine files repeat _ids" in caplog.text


# ============================================================================================ UTF-8 lines (item 5)
@pytest.mark.parametrize("dataset, name", [("unfair_tos", "train.tsv"), ("tram", "single_label.json")])
def test_bytes_that_are_not_utf8_are_named_by_line(tmp_path, dataset, name):
    """A JSON or TSV source file with a bad byte: one line naming file:line and column (not a byte offset)."""
    import shutil

    from lm_eval_enterprise.data import DataError, fixture_dir, get_source

    d = tmp_path / dataset
    shutil.copytree(fixture_dir(dataset), d)
    raw = (d / name).read_bytes()
    cut = raw.index(b"\n", len(raw) // 2) + 1
    (d / name).write_bytes(raw[:cut] + b"ab\xff" + raw[cut:])
    line = raw[:cut].count(b"\n") + 1
    with pytest.raises(DataError, match=rf"{name}:{line}: not UTF-8 text: byte 0xff at column 3 is not UTF-8$"):
        get_source(dataset).convert(d)


def test_nan_score_in_a_presplit_file_is_named_by_line(tmp_path):
    from lm_eval_enterprise.data import DataError, load_records

    d = tmp_path / "fiqa_sa"
    d.mkdir()
    good = {"_id": "1", "sentence": "Shares of A rose", "target": "A", "score": 0.5}
    (d / "train.jsonl").write_text(json.dumps(good) + "\n")
    (d / "test.jsonl").write_text(json.dumps(good) + "\n" + json.dumps({**good, "_id": "2", "score": float("nan")}))
    with pytest.raises(DataError, match=r"fiqa_sa/test.jsonl:2: bad row \(ValueError: score is NaN\)$"):
        load_records("fiqa_sa", data_root=str(tmp_path))
