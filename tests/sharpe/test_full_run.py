"""The whole tool on synthetic lm-eval output folders (written with the real hooks): docs/sharpe.md#worked-examples
from files (both ddof), pairing, outdated results, every bad input of the issue, the CLI and every output format."""

import csv
import json
import math
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from lm_eval_enterprise import families
from lm_eval_enterprise.cli import sharpe as cli
from lm_eval_enterprise.sharpe.inputs import OutdatedResultsError, SharpeInputError
from lm_eval_enterprise.sharpe.pipeline import aggregate, leaderboard_markdown, write_outputs
from lm_eval_enterprise.sharpe.report import SCALARS, markdown, to_json
from testkit.synthetic import SynthTask, family_task, write_run
from testkit.synthetic import choice_task as mc_task
from testkit.synthetic import correct_counts as counts

FAMILY_METRICS = {name: dict(f.metrics) for name, f in families.FAMILIES.items()}
HELM_METRICS = {name: dict(f.helm_metrics) for name, f in families.FAMILIES.items() if f.helm_metrics}

REPO = Path(__file__).resolve().parents[2]


def by(result, model, group=None, mode="strict", level="dataset"):
    out = [
        r
        for r in result["records"]
        if r["model"] == model
        and r["scoring_mode"] == mode
        and r["level"] == level
        and (group is None or r["group"] == group)
    ]
    assert len(out) == 1, out
    return out[0]


def ex_dirs(tmp_path, table, k, n=100, family="mc", group="ent_ex"):
    for model, scores in table.items():
        tasks = []
        for t, s in enumerate(scores, 1):
            c = counts(round(s * n), n)
            if family == "mc":
                tasks.append(mc_task(group, f"t{t}", c, k=k))
            else:  # numeric (b = 0)
                docs = [{"id": f"d{i}", "context": "", "question": "", "answer": "7"} for i in range(n)]
                tasks.append(
                    SynthTask(
                        f"{group}__t{t}",
                        "numeric",
                        group,
                        f"t{t}",
                        docs,
                        ["7" if x else "8" for x in c],
                        "accuracy",
                        dataset=group[4:],
                    )
                )
        write_run(tmp_path, model, tasks)
    return tmp_path


FAST = dict(bootstrap=200, progress=False)


# ================================================================================================ worked examples
@pytest.mark.parametrize("ddof,sharpe", [(1, 6.640783086), (0, 7.424621202)])
def test_ex1_from_files(tmp_path, ddof, sharpe):
    res = aggregate([ex_dirs(tmp_path, {"m": [0.62, 0.58, 0.70, 0.66, 0.54]}, k=5, n=50)], ddof=ddof, **FAST)
    r = by(res, "m")
    assert r["baseline"] == {"value": 0.2, "method": "uniform"}
    assert r["mean"] == pytest.approx(0.62) and r["sharpe"] == pytest.approx(sharpe, abs=1e-8)
    assert r["ddof"] == ddof and r["sharpe_status"] == "ok"
    assert (r["min"], r["max"], r["cps"]) == (pytest.approx(0.54), pytest.approx(0.70), pytest.approx(0.644))
    assert list(r["quantiles"].values()) == pytest.approx([0.548, 0.58, 0.62, 0.66, 0.692])
    assert r["ci"]["mean"][0] <= r["mean"] <= r["ci"]["mean"][1]


@pytest.mark.parametrize("ddof", [0, 1])
def test_ex2_from_files(tmp_path, ddof):
    res = aggregate(
        [ex_dirs(tmp_path, {"A": [0.80, 0.40, 0.78, 0.42], "B": [0.55, 0.57, 0.53, 0.55]}, k=3)], ddof=ddof, **FAST
    )
    exp = {1: (1.213794258, 13.26806944), 0: (1.401568883, 15.32064693)}[ddof]
    a, b = by(res, "A"), by(res, "B")
    assert a["baseline"]["value"] == pytest.approx(1 / 3)
    assert (a["sharpe"], b["sharpe"]) == (pytest.approx(exp[0], abs=1e-7), pytest.approx(exp[1], abs=1e-7))
    assert (a["spread"], b["spread"], a["cps"], b["cps"]) == pytest.approx((0.40, 0.04, 0.64, 0.5586))
    assert res["rank_stability"]["ent_ex"]["flips"] == [["A", "B"]]
    (c,) = res["comparisons"]
    assert (c["model_a"], c["model_b"]) == ("A", "B")
    assert list(c["delta"].values()) == pytest.approx([0.25, -0.17, 0.25, -0.13])
    assert c["mean_delta"] == pytest.approx(0.05) and c["a_wins"] == 2
    assert c["sign_test_p"] == pytest.approx(1.0)
    assert (c["wilcoxon_statistic"], c["wilcoxon_p"]) == (pytest.approx(3.0), pytest.approx(0.5))
    assert c["delta_sharpe"] == pytest.approx(exp[0] - exp[1])
    assert set(c["permutation_p"]) == {"t1", "t2", "t3", "t4"}
    assert all(0 < p <= 1 for p in c["permutation_p"].values())


@pytest.mark.parametrize("ddof,sharpe", [(1, 22.66666667), (0, 27.76088375)])
def test_ex3_zero_baseline_from_files(tmp_path, ddof, sharpe):
    res = aggregate([ex_dirs(tmp_path, {"m": [0.71, 0.65, 0.68]}, k=0, family="numeric")], ddof=ddof, **FAST)
    r = by(res, "m")
    assert r["baseline"]["value"] == 0.0 and r["baseline"]["method"] == "zero"
    assert r["sharpe"] == pytest.approx(sharpe, abs=1e-7) and r["cps"] == pytest.approx(0.6887)


@pytest.mark.parametrize("ddof", [0, 1])
def test_ex4_rank_stability_from_files(tmp_path, ddof):
    table = {"X": [0.70, 0.55, 0.72, 0.50], "Y": [0.60, 0.65, 0.58, 0.62], "Z": [0.50, 0.45, 0.60, 0.52]}
    res = aggregate([ex_dirs(tmp_path, table, k=3)], ddof=ddof, **FAST)
    exp = {1: [2.605864, 9.348938, 2.952183], 0: [3.008993, 10.795224, 3.408887]}[ddof]
    assert [by(res, m)["sharpe"] for m in "XYZ"] == pytest.approx(exp, abs=1e-6)
    rs = res["rank_stability"]["ent_ex"]
    assert rs["kendall_w"] == pytest.approx(0.1875) and rs["kendall_tau_mean"] == pytest.approx(-1 / 9)
    assert rs["friedman_chi2"] == pytest.approx(1.5) and rs["friedman_p"] == pytest.approx(0.472367, abs=1e-6)
    assert rs["rank_by_mean"] == ["X", "Y", "Z"] and rs["rank_by_sharpe"] == ["Y", "Z", "X"]
    assert rs["flips"] == [["X", "Y"], ["X", "Z"]]
    assert len(res["comparisons"]) == 3
    assert all("sign_test_p_holm" in c for c in res["comparisons"])
    ov = res["macro"]["overall"]["models"]
    assert [ov[m]["mean_rank"] for m in "XYZ"] == [3, 1, 2]


def _ex5_dir(tmp_path, shuffle=False):
    correct = [[1, 1, 0, 1, 1, 0], [1, 0, 0, 1, 0, 0], [1, 1, 1, 1, 0, 0]]
    ok = [[1] * 6, [1, 1, 0, 1, 0, 1], [1] * 6]
    tasks = [mc_task("ent_ex5", f"t{t + 1}", correct[t], [bool(x) for x in ok[t]]) for t in range(3)]
    if shuffle:
        rng = random.Random(1)
        for t in tasks:
            pairs = list(zip(t.docs, t.outputs))
            rng.shuffle(pairs)
            t.docs, t.outputs = [p[0] for p in pairs], [p[1] for p in pairs]
    write_run(tmp_path, "m", tasks)
    return tmp_path


@pytest.mark.parametrize("ddof,strict_s,parsed_s", [(1, 1.154701, 2.886751), (0, 1.414214, 3.535534)])
def test_ex5_failures_pss_from_files(tmp_path, ddof, strict_s, parsed_s):
    res = aggregate([_ex5_dir(tmp_path)], ddof=ddof, bootstrap=0, progress=False)
    s, p = by(res, "m"), by(res, "m", mode="parsed_only")
    assert s["format_failure"] == pytest.approx({"t1": 0, "t2": 1 / 3, "t3": 0})
    assert list(s["template_scores"].values()) == pytest.approx([2 / 3, 1 / 3, 2 / 3])
    assert list(p["template_scores"].values()) == pytest.approx([2 / 3, 0.5, 2 / 3])
    assert s["sharpe"] == pytest.approx(strict_s, abs=1e-6) and p["sharpe"] == pytest.approx(parsed_s, abs=1e-6)
    assert s["pss"] == pytest.approx(1 / 3)
    assert [d["key"] for d in s["fragile_docs"]] == ["d1", "d2", "d4"]
    assert not p["comparable_across_models"]


def test_ex5_reference_bootstrap_from_files(tmp_path):
    res = aggregate([_ex5_dir(tmp_path)], bootstrap=2000, seed=0, bootstrap_templates=True, progress=False)
    r = by(res, "m")
    assert r["ci"]["mean"] == pytest.approx([0.277778, 0.833333], abs=1e-6)
    assert r["ci"]["std"] == pytest.approx([0.096225, 0.419435], abs=1e-6)
    assert r["ci"]["sharpe"] == pytest.approx([-0.288675, 4.618802], abs=1e-6)
    assert r["ci"]["frac_degenerate"] == pytest.approx(0.016)
    t = r["ci_templates"]
    assert t["mean"] == pytest.approx([0.166667, 0.888889], abs=1e-6)
    assert t["sharpe"] == pytest.approx([-0.57735, 5.773503], abs=1e-6)
    assert t["frac_degenerate"] == pytest.approx(0.2275) and t["resample_templates"]


def test_shuffled_samples_and_seed_reproducibility(tmp_path):
    a = aggregate([_ex5_dir(tmp_path / "a")], bootstrap=300, seed=4, progress=False)
    b = aggregate([_ex5_dir(tmp_path / "b", shuffle=True)], bootstrap=300, seed=4, progress=False)
    c = aggregate([_ex5_dir(tmp_path / "c")], bootstrap=300, seed=5, progress=False)
    ra, rb, rc = by(a, "m"), by(b, "m"), by(c, "m")
    assert ra["ci"] == rb["ci"] and ra["template_scores"] == rb["template_scores"]
    assert ra["ci"] != rc["ci"]


# ================================================================================================ families & pairing
def test_every_family_recomputes_exactly(tmp_path):
    for m, q in (("org/a", 0.7), ("org/b", 0.5)):
        tasks = [
            family_task(f, f"t{k}", 30 if "rank" not in f else 60, q - 0.1 * k, 0.1 * (k == 2))
            for f in FAMILY_METRICS
            for k in (1, 2, 3)
        ]
        write_run(tmp_path, m, tasks)
    res = aggregate([tmp_path], bootstrap=100, progress=False)
    assert not [m for m in res["messages"] if "recompute" in m], res["messages"]
    for f in FAMILY_METRICS:
        r = by(res, "org/a", f"ent_syn_{f}")
        assert r["sharpe_status"] in ("ok", "inf", "-inf") and r["ci"] is not None
        assert r["baseline"]["value"] is not None
        run = json.loads(next((tmp_path / "org__a").glob("results_*.json")).read_text())
        for t in ("t1", "t2", "t3"):
            res_row = run["results"][f"ent_syn_{f}__{t}"]
            filt = "none" if f == "ranking" else "answer"
            assert r["template_scores"][t] == pytest.approx(res_row[f"{r['metric']},{filt}"], abs=1e-12)
    assert by(res, "org/a", "ent_syn_ranking")["key_source"] == "qid"


def test_ranking_pairs_by_query_and_intersects_partial_queries(tmp_path):
    tasks = [family_task("ranking", f"t{k}", 100, 0.6, seed=0) for k in (1, 2)]
    rng = random.Random(0)
    pairs = list(zip(tasks[1].docs, tasks[1].outputs))
    rng.shuffle(pairs)
    tasks[1].docs, tasks[1].outputs = [p[0] for p in pairs], [p[1] for p in pairs]
    cut = family_task("ranking", "t3", 100, 0.6, seed=0)
    cut.docs, cut.outputs = cut.docs[:90], cut.outputs[:90]  # --limit 90: the last query is cut part-way
    write_run(tmp_path, "m", tasks + [cut])
    res = aggregate([tmp_path], bootstrap=50, progress=False)
    r = by(res, "m")
    assert r["n_docs"] == 5 and r["key_source"] == "qid"
    assert "doc_set_intersected" in r["flags"]
    assert any("cover different documents" in m for m in res["messages"])
    with pytest.raises(SharpeInputError, match="cover different documents"):
        aggregate([tmp_path], bootstrap=0, progress=False, strict_inputs=True)


def test_results_of_metric_version_1_2_are_refused_in_one_line(tmp_path, capsys):
    """Metric version ≤ 1.2 ran gold_news as one subtask task per question: one line naming the version and what to
    rerun, exit 2, nothing else read or written."""
    tasks = [
        mc_task(f"ent_news_{sub}", f"t{t}", counts(10 + t, 20), k=2, dataset="news", subtask=sub)
        for sub in ("up", "down")
        for t in (1, 2, 3)
    ]
    path = write_run(tmp_path, "m", tasks + [mc_task("ent_x", f"t{t}", counts(50 + t)) for t in (1, 2)])
    want = (
        f"{path}: written by metric version 1.2 (ent_news_up__t1 is one subtask of news), a layout this version no "
        "longer reads; rerun ent_news with this version (lm-eval-enterprise run --tasks ent_news --log_samples ...)"
    )
    with pytest.raises(OutdatedResultsError) as info:
        aggregate([tmp_path], **FAST)
    assert str(info.value) == want
    out = tmp_path / "out"
    assert cli.main([str(tmp_path), "--output_path", str(out), "--no_progress"]) == 2
    assert capsys.readouterr().err == f"error: {want}\n" and not out.exists()


# ================================================================================================ bad inputs
def _two_models(tmp_path, drop_t3_for_b=False, **kw):
    write_run(tmp_path, "A", [mc_task("ent_x", f"t{t}", counts(50 + 5 * t, 40 + 60)) for t in (1, 2, 3)])
    write_run(
        tmp_path,
        "B",
        [mc_task("ent_x", f"t{t}", counts(40 + 3 * t)) for t in ((1, 2) if drop_t3_for_b else (1, 2, 3))],
        **kw,
    )
    return tmp_path


def test_missing_template_for_a_model(tmp_path, capsys):
    d = _two_models(tmp_path, drop_t3_for_b=True)
    res = aggregate([d], **FAST)
    for m in ("A", "B"):
        r = by(res, m)
        assert r["templates"] == ["t1", "t2"] and "templates_dropped" in r["flags"]
        assert r["flag_details"]["templates_dropped"]["missing"] == {"B": ["t3"]}
    assert any("B lacks t3" in m for m in res["messages"])
    assert cli.main([str(d), "--strict", "--bootstrap", "0", "--no_progress"]) == 1
    assert "missing templates (B lacks t3)" in capsys.readouterr().err


def test_task_without_metadata(tmp_path, capsys):
    t1 = mc_task("ent_nm", "t1", counts(60))
    t2 = mc_task("ent_nm", "t2", counts(50))
    t1.metadata = t2.metadata = {"version": 1.0}
    other = mc_task("other", "x", counts(50))
    other.task, other.metadata = "arc_like", {"version": 1.0}
    write_run(tmp_path, "m", [t1, t2, other])
    with pytest.raises(SharpeInputError, match="no metadata.primary_metric; pass --metric"):
        aggregate([tmp_path], **FAST)
    res = aggregate([tmp_path], metrics=["accuracy"], **FAST)
    r = by(res, "m", "ent_nm")
    assert "grouped_by_name" in r["flags"] and r["template_scores"] == pytest.approx({"t1": 0.6, "t2": 0.5})
    assert any("arc_like has no template metadata" in m and "skipped" in m for m in res["messages"])
    assert cli.main([str(tmp_path), "--bootstrap", "0", "--no_progress", "--quiet"]) == 1
    assert "pass --metric" in capsys.readouterr().err


def test_malformed_json(tmp_path, capsys):
    d = _two_models(tmp_path)
    f = next((d / "A").glob("results_*.json"))
    f.write_text(f.read_text()[:-40])
    assert cli.main([str(d), "--bootstrap", "0", "--no_progress"]) == 1
    err = capsys.readouterr().err
    assert "malformed JSON" in err and f.name in err
    f.unlink()
    s = next((d / "B").glob("samples_ent_x__t2_*.jsonl"))
    lines = s.read_text().splitlines()
    lines[3] = lines[3][:50]
    s.write_text("\n".join(lines) + "\n")
    assert cli.main([str(d), "--bootstrap", "0", "--no_progress"]) == 1
    assert f"{s.name}:4: malformed JSON" in capsys.readouterr().err


def test_empty_samples_file(tmp_path):
    d = _two_models(tmp_path)
    s = next((d / "B").glob("samples_ent_x__t2_*.jsonl"))
    s.write_text("")
    res = aggregate([d], **FAST)
    b = by(res, "B")
    assert "no_samples" in b["flags"] and b["ci"] is None and b["pss"] is None
    assert b["template_scores"] == pytest.approx({"t1": 0.43, "t2": 0.46, "t3": 0.49})  # from the results file
    assert any(f"{s.name} is empty" in m for m in res["messages"])
    assert by(res, "A")["ci"] is not None


@pytest.mark.parametrize("n_correct,status", [(80, "inf"), (20, "-inf")])
def test_zero_std(tmp_path, n_correct, status):
    write_run(tmp_path, "m", [mc_task("ent_z", f"t{t}", counts(n_correct)) for t in (1, 2, 3)])
    res = aggregate([tmp_path], **FAST)
    r = by(res, "m")
    assert r["sharpe"] is None and r["sharpe_status"] == status and r["degenerate_std"] and r["std"] == 0.0
    json.loads(to_json(res))  # valid JSON without NaN/inf
    md = markdown(res)
    assert ("∞ (σ=0)" if status == "inf" else "−∞ (σ=0)") in md
    fl = aggregate([tmp_path], sigma_floor="binomial", **FAST)
    assert by(fl, "m")["sharpe"] == pytest.approx((0.8 - 1 / 3) / 0.04 if status == "inf" else (0.2 - 1 / 3) / 0.04)


def test_zero_std_at_baseline_is_undefined(tmp_path):
    write_run(tmp_path, "m", [mc_task("ent_z", f"t{t}", counts(50), k=2) for t in (1, 2)])
    r = by(aggregate([tmp_path], **FAST), "m")
    assert r["sharpe"] is None and r["sharpe_status"] == "undefined" and "degenerate_std" in r["flags"]


def test_single_template(tmp_path):
    write_run(tmp_path, "m", [mc_task("ent_one", "t1", counts(70))])
    res = aggregate([tmp_path], **FAST)
    r = by(res, "m")
    assert r["sharpe"] is None and r["std"] is None and r["sharpe_status"] == "single_template"
    assert "single_template" in r["flags"] and r["mean"] == pytest.approx(0.7)
    assert "n/a (1 template)" in markdown(res)


def test_missing_metric_and_mixed_settings(tmp_path, capsys):
    d = _two_models(tmp_path / "x")
    assert cli.main([str(d), "--metric", "nope", "--bootstrap", "0", "--no_progress"]) == 1
    assert "metric 'nope,answer' is missing" in capsys.readouterr().err
    e = tmp_path / "y"
    write_run(e, "A", [mc_task("ent_x", f"t{t}", counts(50 + t)) for t in (1, 2)])
    write_run(
        e,
        "A",
        [mc_task("ent_x", f"t{t}", counts(60 + t)) for t in (1, 2)],
        timestamp="2026-02-01T00-00-00.0",
        chat_template_sha="abc",
    )
    res = aggregate([e], **FAST)
    assert sorted(res["models"]) == ["A [settings 1]", "A [settings 2]"]
    assert any("different settings" in m for m in res["messages"])
    assert cli.main([str(e), "--strict", "--bootstrap", "0", "--no_progress"]) == 1
    assert "mixed settings" in capsys.readouterr().err


def test_newest_run_wins_and_run_selects(tmp_path):
    write_run(tmp_path, "m", [mc_task("ent_x", f"t{t}", counts(50 + t)) for t in (1, 2)], timestamp="2026-01-01T0")
    write_run(tmp_path, "m", [mc_task("ent_x", f"t{t}", counts(70 + t)) for t in (1, 2)], timestamp="2026-03-01T0")
    assert by(aggregate([tmp_path], **FAST), "m")["template_scores"]["t1"] == pytest.approx(0.71)
    assert by(aggregate([tmp_path], run="2026-01-01", **FAST), "m")["template_scores"]["t1"] == pytest.approx(0.51)


def test_baseline_switches(tmp_path):
    write_run(tmp_path, "m", [mc_task("ent_x", f"t{t}", counts(50 + 10 * t), k=4) for t in (1, 2)])
    assert by(aggregate([tmp_path], baseline="none", **FAST), "m")["baseline"]["value"] == 0.0
    assert by(aggregate([tmp_path], baseline="majority", **FAST), "m")["baseline"]["value"] == 1.0
    table = tmp_path / "b.csv"
    table.write_text("group,metric,baseline,method\nent_x,accuracy,0.3,paper\n")
    r = by(aggregate([tmp_path], baseline=f"table:{table}", **FAST), "m")
    assert r["baseline"] == {"value": 0.3, "method": "table:paper"}
    assert r["sharpe"] == pytest.approx((0.65 - 0.3) / np.std([0.6, 0.7], ddof=1))
    with pytest.raises(SharpeInputError, match="--baseline"):
        aggregate([tmp_path], baseline="bogus", **FAST)


def test_exclude_template_is_reported(tmp_path):
    write_run(tmp_path, "m", [mc_task("ent_x", f"t{t}", counts(50 + 10 * t)) for t in (1, 2, 3)])
    res = aggregate([tmp_path], exclude_templates=["ent_x:t3"], **FAST)
    r = by(res, "m")
    assert r["templates"] == ["t1", "t2"] and "excluded_templates" in r["flags"]
    assert any("excluded by --exclude_template" in m for m in res["messages"])


# ================================================================================================ outputs & CLI
def test_outputs_and_cli(tmp_path, capsys):
    d = _two_models(tmp_path / "in")
    out = tmp_path / "out"
    assert cli.main([str(d), "--out", str(out), "--bootstrap", "100", "--no_progress", "--bootstrap_templates"]) == 0
    printed = capsys.readouterr().out
    assert "Sharpe leaderboard" in printed
    agg = json.loads((out / "aggregate.json").read_text(), parse_constant=lambda c: pytest.fail(f"non-JSON {c}"))
    assert agg["provenance"]["B"] == 100 and agg["provenance"]["ddof"] == 1
    assert len(agg["provenance"]["inputs"]) == 2 and all(len(i["sha256"]) == 64 for i in agg["provenance"]["inputs"])
    rec = agg["records"][0]
    # every scalar column of leaderboard.csv is a record field (none silently empty), plus the structured fields
    expected = {*SCALARS, "baseline", "template_scores", "quantiles", "fragile_docs", "format_failure", "ci", "flags"}
    assert not expected - set(rec), sorted(expected - set(rec))
    assert set(rec["ci"]) >= {"mean", "std", "sharpe", "B", "seed", "resample_templates", "frac_degenerate"}
    assert rec["ci_templates"]["resample_templates"]
    with open(out / "leaderboard.csv") as f:
        rows = list(csv.DictReader(f))
    assert {r["model"] for r in rows} == {"A", "B"} and "ci_sharpe_lo" in rows[0]
    with open(out / "per_template.csv") as f:
        assert len(list(csv.DictReader(f))) == 2 * 2 * 3  # models × modes × templates
    with open(out / "per_document.csv") as f:
        assert len(list(csv.DictReader(f))) == 2 * 100
    md = (out / "leaderboard.md").read_text()
    assert "| model | μ ± σ | Sharpe [95% CI]" in md and "Kendall's W" in md
    html = (out / "report.html").read_text()
    assert html.count("data:image/png;base64,") >= 4 and "src='http" not in html and "<script" not in html
    hf = sorted((out / "hf_leaderboard" / "results").glob("*/results_*.json"))
    assert [p.parent.name for p in hf] == ["A", "B"]  # local model names: no invented "local/" org
    data = json.loads(hf[0].read_text())
    assert set(data["config"]) >= {"model_dtype", "model_name", "model_sha"} and data["config"]["model_name"] == "A"
    assert set(data["results"]["ent_x"]) >= {"sharpe/100", "sharpe", "mean", "std", "min", "max"}
    assert sorted(p.name for p in (out / "open_llm_leaderboard").glob("*/results_*.json")) == [hf[0].name] * 2
    assert data["results"]["ent_x__t1"]["accuracy"] == pytest.approx(0.55)


def test_leaderboard_markdown_api(tmp_path):
    d = _two_models(tmp_path)
    md = leaderboard_markdown([str(d)])
    assert md.startswith("## Sharpe leaderboard") and "| 1 | A |" in md
    assert "unavailable" in leaderboard_markdown([str(tmp_path / "missing")])


def test_script_wrapper_and_package_cli(tmp_path):
    d = _two_models(tmp_path)
    r = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "sharpe.py"), str(d), "--bootstrap", "20", "--no_progress"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    assert "Sharpe leaderboard" in r.stdout
    from lm_eval_enterprise.cli import main as top

    assert (
        top(
            [
                "sharpe",
                str(d),
                "--bootstrap",
                "0",
                "--no_progress",
                "--quiet",
                "--out",
                str(tmp_path / "o"),
                "--formats",
                "json",
            ]
        )
        == 0
    )
    assert (tmp_path / "o" / "aggregate.json").exists() and not (tmp_path / "o" / "report.html").exists()


def test_write_outputs_api(tmp_path):
    d = _two_models(tmp_path / "in")
    res = aggregate([d], **FAST)
    written = write_outputs(res, tmp_path / "o", {"md", "csv"})
    assert set(written) == {"md", "csv"} and written["md"].exists()
    assert not math.isnan(by(res, "A")["mean"])


def test_high_failure_and_broken_template_flags(tmp_path):
    for m, shift in (("A", 0), ("B", 2), ("C", 4)):
        write_run(
            tmp_path,
            m,
            [
                mc_task("ent_f", "t1", counts(70 + shift)),
                mc_task("ent_f", "t2", counts(38 + shift)),
                mc_task("ent_f", "t3", counts(66 + shift), [True] * 70 + [False] * 30),
                mc_task("ent_f", "t4", counts(68 + shift)),
            ],
        )
    res = aggregate([tmp_path], **FAST)
    r = by(res, "A")
    assert r["format_failure"]["t3"] == pytest.approx(0.3)
    assert r["flag_details"]["high_failure"] == ["t3"]
    assert r["flag_details"]["broken_template"] == ["t2", "t3"]
    assert r["templates"] == ["t1", "t2", "t3", "t4"]  # flagged, never dropped


def test_lower_is_better_metric_is_negated(tmp_path):
    tasks = [mc_task("ent_n", f"t{t}", counts(60), [True] * (100 - 10 * t) + [False] * (10 * t)) for t in (1, 2, 3)]
    write_run(tmp_path, "m", tasks)
    res = aggregate([tmp_path], metrics=["format_failure"], scoring="strict", **FAST)
    r = by(res, "m")
    assert r["metric"] == "format_failure" and "negated_metric" in r["flags"]
    assert r["template_scores"] == pytest.approx({"t1": 0.1, "t2": 0.2, "t3": 0.3})  # native scale
    assert r["sharpe"] == pytest.approx(-0.2 / 0.1)  # (b − μ)/σ with b = 0
    assert r["ci"]["mean"][0] <= 0.2 <= r["ci"]["mean"][1]


def test_simulated_and_metadata_baselines(tmp_path):
    write_run(tmp_path / "a", "m", [mc_task("ent_x", f"t{t}", counts(50 + 10 * t), k=4) for t in (1, 2)])
    r = by(aggregate([tmp_path / "a"], baseline="simulated", **FAST), "m")
    assert r["baseline"]["method"] == "simulated" and r["baseline"]["value"] == pytest.approx(0.25, abs=0.01)
    ts = [mc_task("ent_x", f"t{t}", counts(50 + 10 * t), k=4, extra_metadata={"baseline": 0.3}) for t in (1, 2)]
    write_run(tmp_path / "b", "m", ts)
    r = by(aggregate([tmp_path / "b"], **FAST), "m")
    assert r["baseline"]["value"] == 0.3 and r["baseline"]["method"].startswith("metadata")


def test_ci_of_mean_contains_mean_for_the_examples(tmp_path):
    table = {"X": [0.70, 0.55, 0.72, 0.50], "Y": [0.60, 0.65, 0.58, 0.62], "Z": [0.50, 0.45, 0.60, 0.52]}
    res = aggregate([ex_dirs(tmp_path, table, k=3)], bootstrap=500, bootstrap_templates=True, progress=False)
    for m in table:
        r = by(res, m)
        for ci in (r["ci"], r["ci_templates"]):
            assert ci["mean"][0] <= r["mean"] <= ci["mean"][1]
            assert ci["std"][0] <= ci["std"][1]
    c = [c for c in res["comparisons"] if (c["model_a"], c["model_b"]) == ("X", "Y")][0]
    for t, (lo, hi) in c["delta_ci"].items():
        assert lo <= c["delta"][t] <= hi


def test_worker_processes_give_identical_results(tmp_path):
    """Also: what a worker sends back pickles for every kind of statistics (entity F1's hold closures)."""
    for m, q in (("org/a", 0.7), ("org/b", 0.5)):
        tasks = [
            family_task(f, f"t{k}", 30 if "rank" not in f else 60, q - 0.1 * k, 0.1 * (k == 2))
            for f in ("classification_weighted", "ranking", "multiple_choice", "entity")
            for k in (1, 2, 3)
        ]
        write_run(tmp_path, m, tasks)
    one = aggregate([tmp_path], bootstrap=100, workers=1, progress=False, hash_samples=True)
    two = aggregate([tmp_path], bootstrap=100, workers=2, progress=False)
    strip = ("provenance", "settings")
    a = json.loads(to_json({k: v for k, v in one.items() if k not in strip}))
    b = json.loads(to_json({k: v for k, v in two.items() if k not in strip}))
    assert a == b
    files = one["provenance"]["samples_files"]
    assert len(files) == 24 and all(len(f["sha256"]) == 64 and f["bytes"] > 0 for f in files)


def test_rollup_counts_each_dataset_once(tmp_path):
    write_run(
        tmp_path,
        "A",
        [mc_task("ent_dup", f"t{t}", counts(60 + 5 * t), dataset="dup") for t in (1, 2)]
        + [mc_task("ent_dup_gen", f"t{t}", counts(40 + 5 * t), dataset="dup") for t in (1, 2)]
        + [mc_task("ent_other", f"t{t}", counts(50 + 3 * t)) for t in (1, 2)],
    )
    write_run(
        tmp_path,
        "B",
        [mc_task("ent_dup_gen", f"t{t}", counts(45 + 4 * t), dataset="dup") for t in (1, 2)]
        + [mc_task("ent_other", f"t{t}", counts(55 + 2 * t)) for t in (1, 2)],
    )
    res = aggregate([tmp_path], **FAST)
    ov = res["macro"]["overall"]
    assert ov["datasets"] == ["dup", "other"]
    assert ov["models"]["A"]["rows_used"] == ["ent_dup", "ent_other"]
    assert ov["models"]["B"]["rows_used"] == ["ent_dup_gen", "ent_other"]
    assert ov["models"]["A"]["n_datasets"] == 2 and not ov["excluded_models"]
    sa = [by(res, "A", g)["sharpe"] for g in ("ent_dup", "ent_other")]
    assert ov["models"]["A"]["mean_sharpe"] == pytest.approx(np.mean(sa))


def test_compare_selects_pairs(tmp_path):
    table = {"X": [0.70, 0.55, 0.72, 0.50], "Y": [0.60, 0.65, 0.58, 0.62], "Z": [0.50, 0.45, 0.60, 0.52]}
    d = ex_dirs(tmp_path, table, k=3)
    res = aggregate([d], compare=["Z,X"], **FAST)
    assert [(c["model_a"], c["model_b"]) for c in res["comparisons"]] == [("Z", "X")]
    assert res["comparisons"][0]["mean_delta"] == pytest.approx(0.5175 - 0.6175)
    with pytest.raises(SharpeInputError, match="--compare"):
        aggregate([d], compare=["X,nobody"], **FAST)


# ================================================================================================ review fixes
def _news_groups(tmp_path, model="m", tids=(1, 2, 3)):
    """Two variant groups of one dataset ``news``: ``ent_news`` and ``ent_news_gen`` (``metadata.dataset: news``)."""
    tasks = [
        mc_task(group, f"t{t}", counts(round((base + 0.05 * t) * 20), 20), k=2, dataset="news")
        for group, base in (("ent_news", 0.7), ("ent_news_gen", 0.5))
        for t in tids
    ]
    return write_run(tmp_path, model, tasks)


def test_exclude_template_by_dataset_name_applies_to_every_variant_group(tmp_path):
    _news_groups(tmp_path)
    res = aggregate([tmp_path], exclude_templates=["news:t3"], **FAST)
    for group in ("ent_news", "ent_news_gen"):
        r = by(res, "m", group)
        assert r["templates"] == ["t1", "t2"] and r["flag_details"]["excluded_templates"] == ["t3"]
        assert f"group {group}: template t3 excluded by --exclude_template (flag excluded_templates)" in res["messages"]
    assert any(m.startswith("--exclude_template news:t3: applies to 2 variant group(s)") for m in res["messages"])
    # the same scores as a run without t3 at all
    other = tmp_path / "without_t3"
    _news_groups(other, tids=(1, 2))
    row, ref = by(res, "m", "ent_news"), by(aggregate([other], **FAST), "m", "ent_news")
    assert row["template_scores"] == ref["template_scores"] and row["sharpe"] == pytest.approx(ref["sharpe"])


@pytest.mark.parametrize(
    "spec,why",
    [
        ("ent_news:t9", "ent_news has no template t9 (templates: t1, t2, t3)"),
        ("news:t9", "news has no template t9 (templates: t1, t2, t3)"),
        ("nope:t1", "no variant group or dataset named nope"),
    ],
)
def test_exclude_template_matching_nothing_is_reported(tmp_path, capsys, spec, why):
    _news_groups(tmp_path)
    res = aggregate([tmp_path], exclude_templates=[spec], **FAST)
    msgs = [m for m in res["messages"] if m.startswith(f"--exclude_template {spec}: matches nothing")]
    assert len(msgs) == 1 and why in msgs[0] and msgs[0].endswith("; ignored")
    row = by(res, "m", "ent_news")
    assert row["templates"] == ["t1", "t2", "t3"] and "excluded_templates" not in row["flags"]
    with pytest.raises(SharpeInputError, match="matches nothing"):
        aggregate([tmp_path], exclude_templates=[spec], strict_inputs=True, **FAST)
    assert cli.main([str(tmp_path), "--exclude_template", spec, "--strict", "--bootstrap", "0", "--no_progress"]) == 1
    assert "matches nothing" in capsys.readouterr().err
    with pytest.raises(SharpeInputError, match="expected GROUP:TEMPLATE_ID"):
        aggregate([tmp_path], exclude_templates=["ent_news"], **FAST)


def _list_templates(results_path, group, tids):
    """Rewrite group_subtasks as lm-eval writes it for a group task: ``{group: [group__t1, ...]}``."""
    data = json.loads(Path(results_path).read_text())
    data["group_subtasks"] = {group: [f"{group}__t{t}" for t in tids]}
    Path(results_path).write_text(json.dumps(data))


def test_template_listed_but_without_result_for_the_only_model(tmp_path, capsys):
    p = write_run(tmp_path, "m", [mc_task("ent_x", f"t{t}", counts(50 + 10 * t)) for t in (1, 2, 4)])
    res = aggregate([tmp_path], **FAST)  # no listing: nothing to detect
    assert "templates_missing" not in by(res, "m")["flags"]
    _list_templates(p, "ent_x", (1, 2, 3, 4))
    res = aggregate([tmp_path], **FAST)
    r = by(res, "m")
    assert r["templates"] == ["t1", "t2", "t4"] and r["flag_details"]["templates_missing"] == ["t3"]
    assert (
        "group ent_x: model m has no result for template(s) t3 listed in its results file (group_subtasks); "
        "scored on t1, t2, t4 only (flag templates_missing)"
    ) in res["messages"]
    with pytest.raises(SharpeInputError, match="no result for template.s. t3"):
        aggregate([tmp_path], strict_inputs=True, **FAST)
    assert cli.main([str(tmp_path), "--strict", "--bootstrap", "0", "--no_progress"]) == 1
    assert "missing templates (--strict)" in capsys.readouterr().err
    # an explicit exclusion of the missing template is applied and silences the flag
    res = aggregate([tmp_path], exclude_templates=["ent_x:t3"], strict_inputs=True, **FAST)
    r = by(res, "m")
    assert "templates_missing" not in r["flags"] and r["flag_details"]["excluded_templates"] == ["t3"]


def test_template_listed_but_without_result_with_two_models(tmp_path):
    # A has t1..t3, B lacks t3 although it lists it: the templates_dropped rule (t3 dropped for both) + B's flag
    write_run(tmp_path, "A", [mc_task("ent_x", f"t{t}", counts(50 + 5 * t)) for t in (1, 2, 3)])
    pb = write_run(tmp_path, "B", [mc_task("ent_x", f"t{t}", counts(40 + 3 * t)) for t in (1, 2)])
    _list_templates(pb, "ent_x", (1, 2, 3))
    res = aggregate([tmp_path], **FAST)
    a, b = by(res, "A"), by(res, "B")
    assert a["templates"] == b["templates"] == ["t1", "t2"]
    assert a["flag_details"]["templates_dropped"]["missing"] == {"B": ["t3"]} and "templates_missing" not in a["flags"]
    assert b["flag_details"]["templates_missing"] == ["t3"]
    assert not any("has no result for template" in m for m in res["messages"])  # reported once, as dropped
    # both models lack t3 (no model has it: the old rule saw nothing) → each model flagged, with a message
    pa = write_run(
        tmp_path,
        "A",
        [mc_task("ent_x", f"t{t}", counts(50 + 5 * t)) for t in (1, 2)],
        timestamp="2026-02-01T00-00-00.000000",
    )
    _list_templates(pa, "ent_x", (1, 2, 3))
    (tmp_path / "A" / "results_2026-01-01T00-00-00.000000.json").unlink()
    res = aggregate([tmp_path], **FAST)
    for m in ("A", "B"):
        r = by(res, m)
        assert r["templates"] == ["t1", "t2"] and r["flag_details"]["templates_missing"] == ["t3"]
        assert "templates_dropped" not in r["flags"]
        assert any(f"model {m} has no result for template(s) t3" in x for x in res["messages"])


def test_exact_group_name_wins_over_dataset_alias(tmp_path):
    # ent_y (dataset "y") and ent_y_gen (metadata.dataset "ent_y"): ent_y:t2 means the group ent_y only
    write_run(
        tmp_path,
        "m",
        [mc_task("ent_y", f"t{t}", counts(50 + 10 * t)) for t in (1, 2, 3)]
        + [mc_task("ent_y_gen", f"t{t}", counts(40 + 10 * t), dataset="ent_y") for t in (1, 2, 3)],
    )
    res = aggregate([tmp_path], exclude_templates=["ent_y:t2"], **FAST)
    assert by(res, "m", "ent_y")["templates"] == ["t1", "t3"]
    assert by(res, "m", "ent_y_gen")["templates"] == ["t1", "t2", "t3"]


# ================================================================================================ ROUGE baseline
def _summaries(tmp_path):
    docs = [
        {"id": "d0", "document": "Rates rose. Stocks fell sharply.", "summary": "stocks fell"},
        {"id": "d1", "document": "Bonds rallied. Yields fell.", "summary": "bonds rallied"},
    ]
    outs = {"t1": ["stocks fell", "zzz"], "t2": ["stocks fell", "bonds rallied"], "t3": ["zzz", "bonds rallied"]}
    write_run(
        tmp_path,
        "m",
        [
            SynthTask(f"ent_sum__{t}", "summarization", "ent_sum", t, docs, o, "rouge_l", dataset="sum")
            for t, o in outs.items()
        ],
    )
    return tmp_path


def test_lead_baseline_for_rouge(tmp_path, capsys):
    # s = ROUGE-L per template = [0.5, 1.0, 0.5]: μ = 2/3, σ = sqrt(1/12); lead-1 b = 0.5 (see tests/scoring/test_chance.py)
    d = _summaries(tmp_path)
    zero = by(aggregate([d], bootstrap=0, progress=False), "m")
    assert zero["template_scores"] == pytest.approx({"t1": 0.5, "t2": 1.0, "t3": 0.5})
    assert zero["baseline"]["method"] == "zero" and zero["sharpe"] == pytest.approx(4 / np.sqrt(3))
    res = aggregate([d], bootstrap=0, progress=False, generation_baseline="lead-1")
    lead = by(res, "m")
    assert lead["baseline"]["value"] == pytest.approx(0.5) and lead["baseline"]["method"] == "lead-1"
    assert lead["sharpe"] == pytest.approx(1 / np.sqrt(3))
    assert res["settings"]["generation_baseline"] == "lead-1"
    note = "With b = 0 for ROUGE, S = μ/σ also rewards a consistently low score"
    assert note in markdown(aggregate([d], bootstrap=0, progress=False)) and note not in markdown(res)
    assert cli.main([str(d), "--generation_baseline", "lead-1", "--bootstrap", "0", "--no_progress"]) == 0
    assert "b = 0.500 (lead-1)" in capsys.readouterr().out
    with pytest.raises(SharpeInputError, match="generation_baseline"):
        aggregate([d], generation_baseline="first-3", progress=False)
