"""Decoding mode in the Sharpe tool: regex-constrained runs (``results["config"]["decoding"]``) are a model of their
own in every output, never pooled with or superseded by the unconstrained runs of the same model;
``--compare_decoding`` compares both modes of a model (hand-worked values); ``*_helm`` metrics aggregate."""

import csv
import json
import math

import numpy as np
import pytest

from lm_eval_enterprise import families
from lm_eval_enterprise.cli import sharpe as cli
from lm_eval_enterprise.families import aggregation_of
from lm_eval_enterprise.scoring.filters import ParsedAnswer
from lm_eval_enterprise.sharpe import baselines as BL
from lm_eval_enterprise.sharpe.export import hub_model_id
from lm_eval_enterprise.sharpe.inputs import SharpeInputError
from lm_eval_enterprise.sharpe.pipeline import aggregate
from testkit.synthetic import SynthTask, choice_task, write_run

FAMILY_METRICS = {name: dict(f.metrics) for name, f in families.FAMILIES.items()}
HELM_METRICS = {name: dict(f.helm_metrics) for name, f in families.FAMILIES.items() if f.helm_metrics}

FAST = dict(bootstrap=300, progress=False)
CONSTRAINED = {"model": "hf-constrained", "decoding": "regex_constrained", "constraint_engine": "xgrammar"}
M, MC = "org/m", "org/m [regex-constrained]"
N = 20


def _tasks(correct, failures=(0, 0, 0)):
    """Three 4-option templates of ent_ex with ``correct[t]`` right answers out of N and ``failures[t]`` of the
    wrong answers unparsed (format failures)."""
    out = []
    for t, (c, f) in enumerate(zip(correct, failures), 1):
        right = [1] * c + [0] * (N - c)
        parsed = [True] * (N - f) + [False] * f  # failures among the last (wrong) documents
        out.append(choice_task("ent_ex", f"t{t}", right, parsed, k=4))
    return out


def _runs(tmp_path, with_b=True, constrained_args=None):
    """org/m unconstrained (day 1) and regex-constrained (day 2, newer, same folder); B unconstrained only.

    unconstrained: 12, 8 (4 format failures), 10 of 20 → s = 0.60, 0.40, 0.50: μ = 0.5, σ = 0.1, S = (0.5 − 0.25)/0.1
    = 2.5; failure rates 0, 0.2, 0 (mean 1/15); adherence 1, 0.8, 1 (mean 14/15).
    constrained:   13, 12, 11 of 20     → s = 0.65, 0.60, 0.55: μ = 0.6, σ = 0.05, S = 0.35/0.05 = 7.0; no failures.
    """
    write_run(tmp_path, M, _tasks((12, 8, 10), (0, 4, 0)), timestamp="2026-01-01T00-00-00.000000")
    for i, args in enumerate(constrained_args or [None]):
        write_run(
            tmp_path,
            M,
            _tasks((13, 12, 11)),
            timestamp=f"2026-01-0{2 + i}T00-00-00.000000",
            config_extra=CONSTRAINED,
            model_args=args,
        )
    if with_b:
        write_run(tmp_path, "B", _tasks((9, 9, 11)))
    return tmp_path


def _rec(res, model):
    out = [r for r in res["records"] if r["model"] == model and r["scoring_mode"] == "strict"]
    assert len(out) == 1
    return out[0]


def test_constrained_run_is_its_own_model_and_never_supersedes(tmp_path):
    res = aggregate([_runs(tmp_path)], **FAST)
    assert res["models"] == ["B", M, MC]
    u, c = _rec(res, M), _rec(res, MC)
    assert u["template_scores"] == pytest.approx({"t1": 0.60, "t2": 0.40, "t3": 0.50})
    assert c["template_scores"] == pytest.approx({"t1": 0.65, "t2": 0.60, "t3": 0.55})
    assert (u["mean"], u["std"], u["sharpe"]) == pytest.approx((0.5, 0.1, 2.5))
    assert (c["mean"], c["std"], c["sharpe"]) == pytest.approx((0.6, 0.05, 7.0))
    assert c["format_failure"] == {"t1": 0.0, "t2": 0.0, "t3": 0.0}
    assert u["format_failure"] == pytest.approx({"t1": 0.0, "t2": 0.2, "t3": 0.0})
    info = res["model_info"]
    assert info[MC]["decoding"] == "regex_constrained" and info[MC]["base_model"] == M
    assert info[MC]["model_wrapper"] == "hf-constrained" and info[MC]["constraint_engine"] == "xgrammar"
    assert "decoding" not in info[M]  # unconstrained runs keep their former model_info
    assert "decoding_comparisons" not in res and "compare_decoding" not in res["settings"]  # only when asked
    ov = res["macro"]["overall"]["models"]
    assert ov[M]["mean_sharpe"] == pytest.approx(2.5) and ov[MC]["mean_sharpe"] == pytest.approx(7.0)


def test_compare_decoding_hand_worked(tmp_path):
    res = aggregate([_runs(tmp_path)], compare_decoding=True, **FAST)
    (d,) = res["decoding_comparisons"]  # B has no constrained run
    assert (d["model"], d["group"], d["metric"]) == (M, "ent_ex", "accuracy")
    assert (d["model_a"], d["model_b"]) == (MC, M) and d["direction"] == "regex_constrained − unconstrained"
    assert d["delta"] == pytest.approx({"t1": 0.05, "t2": 0.20, "t3": 0.05})
    assert d["delta_mean"] == pytest.approx(0.1) and d["delta_std"] == pytest.approx(-0.05)
    assert d["delta_sharpe"] == pytest.approx(4.5)
    assert (d["a_wins"], d["b_wins"], d["ties"]) == (3, 0, 0)
    assert d["delta_mean_ci"][0] <= 0.1 <= d["delta_mean_ci"][1]
    assert d["delta_std_ci"][0] < d["delta_std_ci"][1]
    u, c = d["unconstrained"], d["constrained"]
    assert (u["model"], c["model"]) == (M, MC)
    assert (u["mean"], u["std"], u["sharpe"]) == pytest.approx((0.5, 0.1, 2.5))
    assert (c["mean"], c["std"], c["sharpe"]) == pytest.approx((0.6, 0.05, 7.0))
    assert u["format_failure"] == pytest.approx(0.2 / 3) and c["format_failure"] == 0.0
    assert u["format_adherence"] == pytest.approx(2.8 / 3) and c["format_adherence"] == 1.0
    assert u["format_adherence_per_template"] == pytest.approx({"t1": 1.0, "t2": 0.8, "t3": 1.0})
    assert set(d["permutation_p"]) == {"t1", "t2", "t3"}  # accuracy: per-document values
    # the same bootstrap as the model comparisons: the (org/m, constrained) pair there is U − C
    (pair,) = [x for x in res["comparisons"] if {x["model_a"], x["model_b"]} == {M, MC}]
    assert (pair["model_a"], pair["model_b"]) == (M, MC)
    assert d["delta_sharpe_ci"] == pytest.approx([-pair["delta_sharpe_ci"][1], -pair["delta_sharpe_ci"][0]])
    assert d["delta_ci"]["t2"] == pytest.approx([-pair["delta_ci"]["t2"][1], -pair["delta_ci"]["t2"][0]])
    assert not any("compare_decoding" in m for m in res["messages"])


def test_compare_decoding_outputs_and_cli(tmp_path, capsys):
    d = _runs(tmp_path / "in")
    out = tmp_path / "out"
    assert (
        cli.main([str(d), "--compare_decoding", "--bootstrap", "200", "--no-progress", "--quiet", "--out", str(out)])
        == 0
    )
    agg = json.loads((out / "aggregate.json").read_text())
    assert agg["settings"]["compare_decoding"] is True and len(agg["decoding_comparisons"]) == 1
    md = (out / "decoding_comparison.md").read_text()
    row = next(line for line in md.splitlines() if line.startswith(f"| {M} |"))
    assert "0.500 → 0.600" in row and "| +0.100 [" in row and "| -0.050 [" in row and "| +4.50 [" in row
    assert "6.7 → 0.0" in row and "93.3 → 100.0" in row
    lb = (out / "leaderboard.md").read_text()
    assert "## Greedy vs regex-constrained decoding" in lb
    assert any(line.startswith(f"| {MC} |") for line in lb.splitlines())  # its own leaderboard row
    with open(out / "leaderboard.csv", encoding="utf-8", newline="") as f:
        assert sum(r["model"] == MC for r in csv.DictReader(f)) == 2  # strict + parsed_only
    # HF export: its own model folder and name, never merged into org/m
    hf = json.loads(
        next((out / "hf_leaderboard" / "results" / "org" / "m-regex-constrained").glob("*.json")).read_text()
    )
    assert hf["config"]["model_name"] == "org/m-regex-constrained" and hf["config"]["display_name"] == MC
    assert (out / "hf_leaderboard" / "results" / "org" / "m").is_dir()
    assert "ent_ex" in (out / "report.html").read_text()


def test_compare_decoding_without_pairs_and_with_several_settings(tmp_path):
    res = aggregate([_runs(tmp_path / "a", with_b=False)], compare_decoding=True, bootstrap=0, progress=False)
    assert len(res["decoding_comparisons"]) == 1 and res["decoding_comparisons"][0]["delta_sharpe_ci"] is None
    write_run(tmp_path / "b", "B", _tasks((9, 9, 11)))
    res = aggregate([tmp_path / "b"], compare_decoding=True, **FAST)
    assert res["decoding_comparisons"] == []
    assert any("no model has both" in m for m in res["messages"])
    d = _runs(
        tmp_path / "c",
        with_b=False,
        constrained_args=["pretrained=org/m,dtype=float32", "pretrained=org/m,dtype=bfloat16"],
    )
    res = aggregate([d], compare_decoding=True, **FAST)
    assert res["models"] == [M, f"{MC} [settings 1]", f"{MC} [settings 2]"]
    assert res["decoding_comparisons"] == []
    assert any("has 1 unconstrained and 2 regex-constrained runs" in m for m in res["messages"])
    assert any(
        f"model {M} (regex_constrained decoding) was run with 2 different settings" in m for m in res["messages"]
    )


def test_constrained_wrapper_without_label_is_rejected(tmp_path):
    path = write_run(tmp_path, M, _tasks((13, 12, 11)), config_extra={"model": "vllm-constrained"})
    with pytest.raises(SharpeInputError, match=rf"{path}: results of model 'vllm-constrained' lack config.decoding"):
        aggregate([tmp_path], **FAST)
    path = write_run(tmp_path, M, _tasks((13, 12, 11)), config_extra={"model": "hf", "decoding": "json_schema"})
    with pytest.raises(SharpeInputError, match=rf"{path}: unknown config.decoding 'json_schema'"):
        aggregate([path], **FAST)


def test_hub_ids_keep_decoding_and_settings_apart():
    assert hub_model_id("org/m", MC) == "org/m-regex-constrained"
    assert hub_model_id("org/m", f"{MC} [settings 2]") == "org/m-regex-constrained-settings-2"
    assert hub_model_id("org/m", "org/m [settings 1]") == "org/m-settings-1"
    assert hub_model_id("/ckpt/local-7b", "local-7b [regex-constrained]") == "local-7b-regex-constrained"


# ================================================================================================ *_helm metrics
def test_every_helm_metric_has_its_aggregation():
    for family, table in HELM_METRICS.items():
        for metric, (agg, _) in table.items():
            assert aggregation_of(family, metric) == agg
            assert aggregation_of(None, metric) == agg
    assert BL.helm_base_metric("accuracy_helm") == "accuracy" and BL.helm_base_metric("accuracy") == "accuracy"
    info = BL.LabelInfo("choice", n_options=4)
    assert BL.compute("accuracy_helm", "multiple_choice", "mean", info, "uniform").value == 0.25


def _helm_task(tid, completions):
    """4 documents, gold positive, positive, negative, negative; the [PARSE] reading is always the gold label,
    HELM's reading is the label only when the whole completion is that label."""
    labels = ["positive", "neutral", "negative"]
    gold = ["positive", "positive", "negative", "negative"]
    docs = [{"id": f"d{i}", "text": f"document {i}", "label": g, "label_names": labels} for i, g in enumerate(gold)]
    outs = [ParsedAnswer(g, c, True) for g, c in zip(gold, completions)]
    return SynthTask(
        f"ent_helm__{tid}",
        "classification_weighted",
        "ent_helm",
        tid,
        docs,
        outs,
        "weighted_f1",
        dataset="helm",
        hook="classification_weighted_helm",
    )


def test_metric_weighted_f1_helm(tmp_path):
    # t1: HELM reads positive, [invalid], negative, [invalid] → F1(positive) = F1(negative) = 2/3 (P = 1, R = 1/2),
    # weighted by support 2, 2 (neutral: support 0) → 2/3. t2: every completion is the bare label → 1.
    write_run(
        tmp_path,
        "m",
        [
            _helm_task("t1", ["positive", "The answer is positive", "negative", "negative, sure"]),
            _helm_task("t2", ["positive", "positive", "negative", "negative"]),
        ],
    )
    res = aggregate([tmp_path], metrics=["weighted_f1_helm"], baseline="none", **FAST)
    r = _rec(res, "m")
    assert r["metric"] == "weighted_f1_helm" and r["filter"] == "answer"
    assert r["template_scores"] == pytest.approx({"t1": 2 / 3, "t2": 1.0})
    assert r["mean"] == pytest.approx(5 / 6) and r["std"] == pytest.approx((1 / 3) / math.sqrt(2))
    assert r["sharpe"] == pytest.approx(2.5 * math.sqrt(2))  # (5/6) / (1/(3√2))
    assert "recompute_mismatch" not in r["flags"]
    both = aggregate([tmp_path], metrics=["weighted_f1", "weighted_f1_helm"], **FAST)
    recs = {x["metric"]: x for x in both["records"] if x["scoring_mode"] == "strict"}
    assert recs["weighted_f1"]["template_scores"] == {"t1": 1.0, "t2": 1.0}
    b = recs["weighted_f1_helm"]["baseline"]
    assert b["method"] == "uniform" and b == recs["weighted_f1"]["baseline"]
    assert np.isfinite(b["value"]) and 0 < b["value"] < 1
