"""Leaderboard exports read back the way their consumers read them: the Hugging Face leaderboard template through a
faithful re-implementation of its reader (tests/sharpe/hf_leaderboard_template.py), the lm-eval raw-results layout through
lm-eval's own table maker. Values are worked out by hand from per-document correctness."""

import datetime
import json
import re
from pathlib import Path

import pytest
from hf_leaderboard_template import get_evaluation_queue_df, get_leaderboard_df, get_raw_eval_results, load_tasks

from lm_eval_enterprise.cli import sharpe as cli
from lm_eval_enterprise.sharpe.export import hub_model_id, leaderboard_sharpe, template_precision
from lm_eval_enterprise.sharpe.inputs import SharpeInputError
from lm_eval_enterprise.sharpe.pipeline import aggregate, write_outputs
from testkit.synthetic import choice_task, correct_counts, write_run

N = 30
# per model: correct answers per template (of 30) on ent_x (3 options, b = 1/3) and ent_y (2 options, b = 1/2)
RUNS = {
    "org/alpha": ([18, 21, 24], [15, 18, 21]),  # s = .6 .7 .8 → S = (0.7 − 1/3)/0.1 = 3.667; .5 .6 .7 → S = 1.0
    "org/beta": ([24, 24, 24], [12, 15, 18]),  # σ = 0 above b → S = +∞ (shown 100); .4 .5 .6 → S = 0.0
    "/tmp/ckpt/Local-Model-7B": ([15, 18, 21], [15, 15, 15]),  # S = 2.667; μ = b with σ = 0 → undefined (0)
}


def _runs(root: Path, datasets=("x", "y")) -> Path:
    for model, (xs, ys) in RUNS.items():
        tasks = []
        for ds, cs, k in (("x", xs, 3), ("y", ys, 2)):
            if ds in datasets:
                tasks += [choice_task(f"ent_{ds}", f"t{i + 1}", correct_counts(c, N), k=k) for i, c in enumerate(cs)]
        path = write_run(root, model, tasks)
        if model == "org/beta":  # a bfloat16 run: the template's precision is then "bfloat16"
            data = json.loads(path.read_text())
            data["config"]["model_dtype"] = "torch.bfloat16"
            path.write_text(json.dumps(data))
    return root


def _export(tmp_path, datasets=("x", "y")):
    res = aggregate([_runs(tmp_path / "runs", datasets)], bootstrap=0, progress=False)
    write_outputs(res, tmp_path / "out", {"hf", "openllm"})
    return res, tmp_path / "out" / "hf_leaderboard"


def test_template_reader_shows_every_model_with_the_sharpe_values(tmp_path):
    res, hf = _export(tmp_path)
    statuses = {
        (r["group"], r["model"]): r["sharpe_status"]
        for r in res["records"]
        if r["level"] == "dataset" and r["scoring_mode"] == "strict"
    }
    assert statuses[("ent_x", "org/beta")] == "inf" and statuses[("ent_y", "Local-Model-7B")] == "undefined"
    tasks = load_tasks(str(hf / "about_tasks.py"))
    assert [(t.value.benchmark, t.value.metric, t.value.col_name) for t in tasks] == [
        ("ent_x", "sharpe/100", "x Sharpe"),
        ("ent_y", "sharpe/100", "y Sharpe"),
    ]
    df = get_leaderboard_df(str(hf / "results"), str(hf / "requests"), tasks)
    # no model dropped for a non-finite Sharpe; sorted by the template's average (sum / number of task columns)
    assert df["Model"].tolist() == ["org/beta", "org/alpha", "Local-Model-7B"]
    shown = df.set_index("Model")[["x Sharpe", "y Sharpe", "Average ⬆️"]].to_dict("index")
    assert shown["org/alpha"] == {"x Sharpe": 3.67, "y Sharpe": 1.0, "Average ⬆️": 2.33}  # not 366.67
    assert shown["org/beta"] == {"x Sharpe": 100.0, "y Sharpe": 0.0, "Average ⬆️": 50.0}
    assert shown["Local-Model-7B"] == {"x Sharpe": 2.67, "y Sharpe": 0.0, "Average ⬆️": 1.33}
    # the request file of every model is found (status FINISHED, same precision): its date reaches the table
    assert df.set_index("Model")["Precision"].to_dict() == {
        "org/beta": "bfloat16",
        "org/alpha": "?",
        "Local-Model-7B": "?",
    }
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", d) for d in df["Submitted"])
    queue = get_evaluation_queue_df(str(hf / "requests"))
    assert sorted(q["model"] for q in queue) == ["Local-Model-7B", "org/alpha", "org/beta"]
    # the true values stay next to the stand-ins
    beta = json.loads(next((hf / "results" / "org" / "beta").glob("results_*.json")).read_text())
    assert beta["results"]["ent_x"]["sharpe"] is None and beta["results"]["ent_x"]["sharpe_status"] == "inf"
    assert beta["config"]["model_name"] == "org/beta" and beta["config"]["toy_data"] is False


def test_file_names_carry_microseconds_and_reruns_replace_the_export(tmp_path):
    _, hf = _export(tmp_path)
    first = sorted(p.relative_to(hf) for p in hf.rglob("results_*.json"))
    assert len(first) == 3
    for p in first:
        stamp = p.name.removeprefix("results_").removesuffix(".json")
        datetime.datetime.strptime(stamp, "%Y-%m-%dT%H-%M-%S.%f")
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d", stamp[:-7])  # the template's sort key
    # a second export into the same folder (ent_y no longer evaluated) leaves nothing of the first
    res2 = aggregate([_runs(tmp_path / "runs2", datasets=("x",))], bootstrap=0, progress=False)
    write_outputs(res2, tmp_path / "out", {"hf"})
    second = sorted(p.relative_to(hf) for p in hf.rglob("results_*.json"))
    assert len(second) == 3 and not set(second) & set(first)
    tasks = load_tasks(str(hf / "about_tasks.py"))
    raw = get_raw_eval_results(str(hf / "results"), str(hf / "requests"), tasks)
    assert all(set(r.results) == {"ent_x"} for r in raw)  # no stale ent_y merged in from the first run
    assert len(list((hf / "requests").rglob("*.json"))) == 3


def test_a_foreign_folder_is_never_overwritten(tmp_path, capsys):
    runs = _runs(tmp_path / "runs")
    mine = tmp_path / "out" / "hf_leaderboard" / "notes.txt"
    mine.parent.mkdir(parents=True)
    mine.write_text("keep me")
    res = aggregate([runs], bootstrap=0, progress=False)
    with pytest.raises(SharpeInputError, match="was not written by this tool"):
        write_outputs(res, tmp_path / "out", {"hf"})
    assert cli.main([str(runs), "--out", str(tmp_path / "out"), "--bootstrap", "0", "--no-progress", "--quiet"]) == 1
    assert "was not written by this tool" in capsys.readouterr().err and mine.read_text() == "keep me"


def test_open_llm_layout_is_read_by_lm_eval(tmp_path):
    from lm_eval.utils import get_file_datetime, get_latest_filename, get_results_filenames, make_table

    _export(tmp_path)
    root = tmp_path / "out" / "open_llm_leaderboard"
    files = [str(p) for p in root.rglob("*.json")]
    (alpha,) = [f for f in get_results_filenames(files) if "/org/alpha/" in f]
    assert get_latest_filename([alpha]) == alpha
    datetime.datetime.strptime(get_file_datetime(alpha).removesuffix(".json"), "%Y-%m-%dT%H-%M-%S.%f")
    data = json.loads(Path(alpha).read_text())
    assert data["model_name"] == "org/alpha" and data["config"]["model_name"] == "org/alpha"
    assert data["results"]["ent_x"]["sharpe,none"] == pytest.approx((0.7 - 1 / 3) / 0.1)
    assert data["results"]["ent_y"]["mean,none"] == pytest.approx(0.6)
    table = make_table(data).splitlines()
    start = next(i for i, line in enumerate(table) if line.startswith("|ent_x"))
    block = table[start : next(i for i, line in enumerate(table) if line.startswith("|ent_y"))]
    assert any(re.search(r"\|sharpe\s*\|↑\s*\|3\.6667\|", line) for line in block), block
    beta = json.loads(next((root / "org" / "beta").glob("results_*.json")).read_text())
    assert beta["results"]["ent_x"]["sharpe,none"] is None
    assert beta["configs"]["ent_x"]["metadata"]["sharpe_status"] == "inf"


def test_names_precision_and_stand_ins():
    assert hub_model_id("HuggingFaceTB/SmolLM2-135M-Instruct") == "HuggingFaceTB/SmolLM2-135M-Instruct"
    assert hub_model_id("/home/u/models/SmolLM2-135M-Instruct-fp32/") == "SmolLM2-135M-Instruct-fp32"
    assert hub_model_id("gpt2") == "gpt2"
    assert hub_model_id("./ckpt/run 1") == "run_1"
    # a display name that is a hub id (--model-names) wins over a local path; settings splits stay apart
    assert hub_model_id("/m/smol", "HuggingFaceTB/SmolLM2-135M") == "HuggingFaceTB/SmolLM2-135M"
    assert hub_model_id("org/m", "org/m [settings 2]") == "org/m-settings-2"
    assert [template_precision(d) for d in ("torch.float16", "bfloat16", "torch.float32", None)] == [
        "float16",
        "bfloat16",
        "?",
        "?",
    ]
    assert [
        leaderboard_sharpe({"sharpe_status": s, "sharpe": v})
        for s, v in (
            ("ok", 1.62),
            ("ok", 250.0),
            ("inf", None),
            ("-inf", None),
            ("undefined", None),
            ("single_template", None),
            ("no_baseline", None),
        )
    ] == [1.62, 100.0, 100.0, -100.0, 0.0, 0.0, 0.0]
