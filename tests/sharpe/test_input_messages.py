"""Issue #10 item 6, Sharpe reader: a duplicated-samples error names the file that has the duplicates, and every
results file left out (superseded by a newer run of the same model, a same-timestamp copy, not the --run
timestamp) is named with the reason; the CLI's exit codes follow lm-eval's (1 failed run, 2 usage)."""

import pytest

from lm_eval_enterprise.cli import sharpe as cli
from lm_eval_enterprise.sharpe.inputs import SharpeInputError
from lm_eval_enterprise.sharpe.pipeline import aggregate
from testkit.synthetic import choice_task as mc_task
from testkit.synthetic import correct_counts as counts
from testkit.synthetic import write_run

FAST = dict(bootstrap=0, progress=False)
OLD, NEW = "2026-01-01T00-00-00.000000", "2026-03-01T00-00-00.000000"


def _run(root, model, ts, tids=("t1", "t2", "t3"), base=50):
    return write_run(root, model, [mc_task("ent_x", t, counts(base + i)) for i, t in enumerate(tids)], timestamp=ts)


def _duplicate_line(samples_path, i=3):
    lines = samples_path.read_text().splitlines(keepends=True)
    samples_path.write_text("".join(lines) + lines[i])


def test_duplicated_samples_error_names_the_file_with_the_duplicates(tmp_path):
    res_a = _run(tmp_path / "runs", "A", OLD)
    _run(tmp_path / "runs", "B", OLD)
    bad = res_a.parent / f"samples_ent_x__t2_{OLD}.jsonl"  # not the first file the group reads
    _duplicate_line(bad, 3)
    with pytest.raises(SharpeInputError) as exc:
        aggregate([tmp_path / "runs"], **FAST)
    msg = str(exc.value)
    assert msg.startswith("group ent_x: cannot pair documents across templates: ")
    assert f"{bad}: doc.id 'd3' occurs 2 times (duplicated samples)" in msg
    assert "samples_ent_x__t1_" not in msg and "samples_ent_x__t3_" not in msg
    assert msg.endswith("no unique doc_hash / doc_id either") and "\n" not in msg


def test_superseded_runs_and_run_selection_are_reported(tmp_path):
    old = _run(tmp_path, "m", OLD, base=40)
    partial = _run(tmp_path, "m", "2026-02-01T00-00-00.000000", tids=("t1",), base=45)
    new = _run(tmp_path, "m", NEW, tids=("t2", "t3"), base=60)
    res = aggregate([tmp_path], **FAST)
    msgs = [m for m in res["messages"] if "superseded" in m or "skipped" in m]
    # the oldest file lost t1 to the February run and t2, t3 to the March run: all 3 tasks, named with the reason
    assert (
        f"{old}: skipped: superseded by the newer run in {partial} (1 tasks); superseded by the newer run in "
        f"{new} (2 tasks) (model m; the newest run per model and task is used; choose another with --run "
        "TIMESTAMP)"
    ) in msgs
    assert len(msgs) == 1  # the February and March files are used (t1 from February, t2/t3 from March)
    rec = next(r for r in res["records"] if r["model"] == "m" and r["scoring_mode"] == "strict")
    assert rec["template_scores"] == pytest.approx({"t1": 0.45, "t2": 0.60, "t3": 0.61})

    res = aggregate([tmp_path], run="2026-01", **FAST)
    msgs = [m for m in res["messages"] if "--run" in m]
    assert sorted(msgs) == sorted(f"{p}: not the results of --run 2026-01; skipped" for p in (partial, new))


def test_same_timestamp_copy_is_reported(tmp_path):
    a = _run(tmp_path / "a", "m", OLD)
    b = _run(tmp_path / "b", "m", OLD)
    res = aggregate([tmp_path], **FAST)
    msgs = [m for m in res["messages"] if "same timestamp" in m]
    assert msgs == [
        f"{b}: skipped: a copy with the same timestamp as {a} (model m; the newest run per model and "
        "task is used; choose another with --run TIMESTAMP)"
    ]


def test_cli_prints_the_messages_and_uses_lm_eval_exit_codes(tmp_path, capsys):
    _run(tmp_path / "runs", "m", OLD)
    new = _run(tmp_path / "runs", "m", NEW)
    assert cli.main([str(tmp_path / "runs"), "--bootstrap", "0", "--no_progress", "--quiet"]) == 0
    err = capsys.readouterr().err
    assert f"superseded by the newer run in {new}" in err and err.startswith("warning: ")
    bad = new.parent / f"samples_ent_x__t3_{NEW}.jsonl"
    _duplicate_line(bad, 0)
    assert cli.main([str(tmp_path / "runs"), "--bootstrap", "0", "--no_progress", "--quiet"]) == 1  # failed run
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("error: group ent_x: cannot pair documents") and str(bad) in err[-1]
    assert cli.main([str(tmp_path / "runs"), "--exclude_template", "nocolon"]) == 2  # usage error
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        "lm-eval-enterprise sharpe: error: --exclude_template 'nocolon': expected GROUP:TEMPLATE_ID"
    )
