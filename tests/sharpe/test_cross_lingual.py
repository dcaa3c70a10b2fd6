"""Issue #25 item 4: the Sharpe tool's cross-lingual section (template t<k> of a Japanese dataset translates t<k>
of its English pair, ``metadata.pair``) and the NLU suite in every output: per pair and model both sides' μ, σ, S,
Spearman's ρ of the per-template scores (undefined, never 0, below 3 shared templates or for a constant side) and
whether the best and the worst template agree; NLU rows in the leaderboard exports and the HTML report; the suite
never pooled with the enterprise datasets in a roll-up."""

import json
import math

import pytest
from hf_leaderboard_template import get_leaderboard_df, load_tasks

from lm_eval_enterprise.cli import sharpe as cli
from lm_eval_enterprise.sharpe.comparisons import (
    cross_lingual_rows,
    extreme_templates,
    template_rank_correlation,
)
from lm_eval_enterprise.sharpe.pipeline import aggregate
from lm_eval_enterprise.sharpe.records import Record
from testkit.synthetic import choice_task, correct_counts, write_run

LANGS = {"mnli": ("en", "jnli"), "jnli": ("ja", "mnli")}
EN = {"t1": 0.6, "t2": 0.7, "t3": 0.5, "t4": 0.8}
JA = {"t1": 0.4, "t2": 0.65, "t3": 0.35, "t4": 0.55}


def _rec(dataset: str, model: str, scores: dict, flags=(), group: str | None = None) -> Record:
    """A strict dataset-level record with the given per-template scores (μ, σ, S are passed through as given)."""
    return Record(
        level="dataset",
        group=group or f"nlu_{dataset}",
        dataset=dataset,
        domain="nlu",
        subtask=None,
        variant_groups=[group or f"nlu_{dataset}"],
        model=model,
        metric="accuracy",
        filter="answer",
        scoring_mode="strict",
        comparable_across_models=True,
        n_templates=len(scores),
        templates=list(scores),
        n_docs=100,
        toy_data=False,
        baseline={"value": 1 / 3, "method": "uniform"},
        template_scores=dict(scores),
        ddof=1,
        alpha=1.0,
        sigma_floor_mode="off",
        mean=0.5,
        std=0.1,
        sharpe=1.6667,
        sharpe_status="ok",
        flags=list(flags),
    )


# ============================================================================================== pure functions
def test_rank_correlation_worked_by_hand():
    """EN t1..t4 = .6 .7 .5 .8 → ranks 2 3 1 4; JA .4 .65 .35 .55 → ranks 2 4 1 3; d = 0 −1 0 1, Σd² = 2,
    ρ = 1 − 6·2 / (4·(16 − 1)) = 0.8. Best: EN t4, JA t2 (differ); worst: t3 in both (agree)."""
    shared, rho, status, note = template_rank_correlation(EN, JA)
    assert shared == ["t1", "t2", "t3", "t4"] and status == "ok" and note == ""
    assert rho == pytest.approx(0.8)
    assert extreme_templates(EN) == (["t4"], ["t3"]) and extreme_templates(JA) == (["t2"], ["t3"])
    (row,), notes = cross_lingual_rows([_rec("mnli", "m", EN), _rec("jnli", "m", JA)], LANGS)
    assert notes == [] and row.pair == ["mnli", "jnli"] and [s.language for s in row.sides] == ["en", "ja"]
    assert row.n == 4 and row.spearman == pytest.approx(0.8) and row.best_agree is False and row.worst_agree is True
    assert (row.sides[0].mean, row.sides[0].std, row.sides[0].sharpe) == (0.5, 0.1, 1.6667)  # the record's own


def test_ties_share_their_mean_rank():
    """EN .5 .5 .7 .9 → ranks 1.5 1.5 3 4; JA .2 .4 .4 .6 → ranks 1 2.5 2.5 4. Both centred at 2.5:
    dx = −1 −1 .5 1.5, dy = −1.5 0 0 1.5, Σdx·dy = 3.75, Σdx² = Σdy² = 4.5, ρ = 3.75/4.5 = 5/6.
    Worst: EN t1, t2 (tied), JA t1 → agree (one in common); best t4 in both."""
    en, ja = {"t1": 0.5, "t2": 0.5, "t3": 0.7, "t4": 0.9}, {"t1": 0.2, "t2": 0.4, "t3": 0.4, "t4": 0.6}
    assert template_rank_correlation(en, ja)[1] == pytest.approx(5 / 6)
    (row,), _ = cross_lingual_rows([_rec("mnli", "m", en), _rec("jnli", "m", ja)], LANGS)
    assert row.sides[0].worst == ["t1", "t2"] and row.sides[1].worst == ["t1"] and row.worst_agree is True
    assert row.sides[0].best == row.sides[1].best == ["t4"] and row.best_agree is True


def test_a_template_one_side_lacks_is_left_out():
    """JA without t4 (and with t5, which EN lacks): ρ over t1..t3 only (ranks 2 3 1 in both: ρ = 1), n = 3; the
    best template is the best of the shared ones (EN t2, not the unshared t4 at .8)."""
    ja = {"t1": 0.4, "t2": 0.65, "t3": 0.35, "t5": 0.9}
    (row,), _ = cross_lingual_rows([_rec("mnli", "m", EN), _rec("jnli", "m", ja)], LANGS)
    assert row.templates == ["t1", "t2", "t3"] and row.n == 3 and row.spearman == pytest.approx(1.0)
    assert row.unshared == {"mnli": ["t4"], "jnli": ["t5"]}
    assert row.sides[0].best == ["t2"] and row.sides[1].best == ["t2"] and row.best_agree is True
    # a template whose score is undefined (None) is not shared either
    ja_undefined = {**JA, "t2": None}
    (row,), _ = cross_lingual_rows([_rec("mnli", "m", EN), _rec("jnli", "m", ja_undefined)], LANGS)
    assert row.templates == ["t1", "t3", "t4"] and row.unshared == {"mnli": ["t2"], "jnli": ["t2"]}


def test_undefined_correlations_are_none_never_zero():
    shared, rho, status, note = template_rank_correlation({"t1": 0.1, "t2": 0.2}, {"t1": 0.3, "t2": 0.1, "t3": 0.2})
    assert (shared, rho, status) == (["t1", "t2"], None, "too_few_templates") and "2 shared templates" in note
    flat = {"t1": 0.5, "t2": 0.5, "t3": 0.5, "t4": 0.5}
    _, rho, status, note = template_rank_correlation(EN, flat, ("en", "ja"))
    assert rho is None and status == "constant" and note == "undefined: every shared template of ja scores the same"
    (row,), _ = cross_lingual_rows([_rec("mnli", "m", EN), _rec("jnli", "m", flat)], LANGS)
    assert row.spearman is None and row.sides[1].best is None and row.sides[1].worst is None
    assert row.best_agree is None and row.worst_agree is None and row.sides[0].best == ["t4"]
    assert math.isfinite(template_rank_correlation(EN, JA)[1])


def test_lower_is_better_metrics_are_ranked_by_goodness():
    """A negated metric's best template is its lowest score."""
    (row,), _ = cross_lingual_rows(
        [_rec("mnli", "m", EN, flags=["negated_metric"]), _rec("jnli", "m", JA, flags=["negated_metric"])], LANGS
    )
    assert row.sides[0].best == ["t3"] and row.sides[0].worst == ["t4"] and row.spearman == pytest.approx(0.8)


def test_a_missing_side_gives_no_row_and_a_note():
    rows, notes = cross_lingual_rows([_rec("mnli", "m", EN)], {"mnli": ("en", "jnli")})
    assert rows == [] and notes == ["cross-lingual: mnli (en) pairs with jnli, which is not in the inputs; no row"]
    rows, notes = cross_lingual_rows([_rec("mnli", "a", EN), _rec("jnli", "a", JA), _rec("mnli", "b", EN)], LANGS)
    assert [r.model for r in rows] == ["a"]
    assert notes == ["cross-lingual mnli / jnli: model b has results for mnli only (no jnli); no row"]


def test_pairs_come_from_metadata_not_from_names():
    """Datasets named alike but without ``pair`` metadata are not paired; any two that name each other are (the
    English side first); a pair named by one side only is a note."""
    recs = [_rec("cola", "m", EN), _rec("jcola", "m", JA), _rec("alpha", "m", JA), _rec("beta", "m", EN)]
    rows, notes = cross_lingual_rows(recs, {"alpha": ("ja", "beta"), "beta": ("en", "alpha")})
    assert [r.pair for r in rows] == [["beta", "alpha"]] and notes == []
    rows, notes = cross_lingual_rows(recs, {"alpha": ("ja", "beta"), "beta": ("en", "cola"), "cola": ("en", "x")})
    assert rows == [] and "alpha pairs with beta, but beta pairs with cola; not compared" in notes[0]


def test_a_dataset_with_several_rows_is_represented_by_its_base_row():
    recs = [
        _rec("mnli", "m", {"t1": 0.1, "t2": 0.3, "t3": 0.2}, group="nlu_mnli_gen"),
        _rec("mnli", "m", EN),
        _rec("jnli", "m", JA),
    ]
    (row,), _ = cross_lingual_rows(recs, LANGS)
    assert row.sides[0].group == "nlu_mnli" and row.n == 4


# ============================================================================================== end to end
def _nlu(ds: str, pair: str, lang: str, tid: str, n_correct: int):
    return choice_task(
        f"nlu_{ds}",
        tid,
        correct_counts(n_correct),
        domain="nlu",
        extra_metadata={"suite": "nlu", "language": lang, "pair": pair},
    )


def _runs(root, with_ja: bool = True):
    """Two models; the NLU pair mnli / jnli (4 templates, scores of :data:`EN` and :data:`JA`, model b 0.1 lower
    in English) and the enterprise dataset casehold (model a .50 .55 .60 .65, model b 0.01 higher)."""
    for mi, model in enumerate(["org/model-a", "org/model-b"]):
        tasks = [_nlu("mnli", "jnli", "en", t, round(100 * s) - 10 * mi) for t, s in EN.items()]
        tasks += [_nlu("jnli", "mnli", "ja", t, round(100 * s)) for t, s in JA.items()] if with_ja else []
        tasks += [
            choice_task("ent_casehold", t, correct_counts(50 + 5 * k + mi), domain="legal") for k, t in enumerate(EN)
        ]
        write_run(root, model, tasks)
    return root


@pytest.fixture(scope="module")
def cli_out(tmp_path_factory):
    d = tmp_path_factory.mktemp("crossl")
    out = d / "out"
    assert cli.main([str(_runs(d / "runs")), "--output_path", str(out), "--bootstrap", "0", "--no_progress"]) == 0
    return out


def test_cli_writes_the_cross_lingual_section(cli_out):
    res = json.loads((cli_out / "aggregate.json").read_text())
    rows = res["cross_lingual"]["rows"]
    assert [(r["model"], r["pair"]) for r in rows] == [
        ("org/model-a", ["mnli", "jnli"]),
        ("org/model-b", ["mnli", "jnli"]),
    ]
    for r in rows:  # model b's English scores are a's minus 0.1: the same ranks, ρ = 0.8 for both
        assert r["spearman"] == pytest.approx(0.8) and r["n"] == 4 and r["spearman_status"] == "ok"
        assert (r["best_agree"], r["worst_agree"]) == (False, True)
    rec = {(r["group"], r["model"]): r for r in res["records"] if r["scoring_mode"] == "strict"}
    en = rows[0]["sides"][0]
    assert (en["mean"], en["std"], en["sharpe"]) == tuple(
        rec[("nlu_mnli", "org/model-a")][k] for k in ("mean", "std", "sharpe")
    )
    assert en["mean"] == pytest.approx(0.65) and en["sharpe"] == pytest.approx((0.65 - 1 / 3) / en["std"])
    md = (cli_out / "leaderboard.md").read_text()
    section = md.split("### Across languages")[1]
    assert "| pair | model | metric | μ ± σ (en) | S (en) | μ ± σ (ja) | S (ja) | ρ (n) | best | worst |" in section
    assert (
        "| mnli (en) / jnli (ja) | org/model-a | accuracy | 0.650 ± 0.129 | 2.45 | 0.487 ± 0.138 | 1.12 | " in section
    )
    assert "0.800 (n = 4) | t4 / t2 (differ) | t3 / t3 (agree) |" in section
    html = (cli_out / "report.html").read_text()
    assert "<h3>Across languages</h3>" in html and "<td>mnli (en) / jnli (ja)</td>" in html


def test_nlu_rows_in_the_exports_and_never_pooled_with_enterprise(cli_out):
    res = json.loads((cli_out / "aggregate.json").read_text())
    macro = res["macro"]
    assert sorted(macro["domains"]) == ["legal", "nlu"] and sorted(macro["suites"]) == ["enterprise", "nlu"]
    assert macro["overall"]["models"] == {} and "not pooled" in macro["overall"]["note"]
    sharpe = {(r["group"], r["model"]): r["sharpe"] for r in res["records"] if r["scoring_mode"] == "strict"}
    for m in ("org/model-a", "org/model-b"):
        assert macro["suites"]["enterprise"]["models"][m]["mean_sharpe"] == pytest.approx(sharpe[("ent_casehold", m)])
        nlu = (sharpe[("nlu_mnli", m)] + sharpe[("nlu_jnli", m)]) / 2
        assert macro["suites"]["nlu"]["models"][m]["mean_sharpe"] == pytest.approx(nlu)
    md = (cli_out / "leaderboard.md").read_text()
    assert "**enterprise** (mean over its datasets only)" in md and "**nlu** (mean over its datasets only)" in md
    assert "| enterprise overall | org/model-a | 1 |" in md and "| nlu overall | org/model-a | 2 |" in md
    assert "| overall |" not in md
    # both leaderboard exports hold the NLU rows; the HF template's reader shows their columns
    hf = cli_out / "hf_leaderboard"
    tasks = load_tasks(str(hf / "about_tasks.py"))
    assert [t.value.benchmark for t in tasks] == ["ent_casehold", "nlu_jnli", "nlu_mnli"]
    df = get_leaderboard_df(str(hf / "results"), str(hf / "requests"), tasks).set_index("Model")
    assert df.loc["org/model-a", "nlu_mnli Sharpe"] == pytest.approx(round(sharpe[("nlu_mnli", "org/model-a")], 2))
    (openllm,) = (cli_out / "open_llm_leaderboard" / "org" / "model-a").glob("results_*.json")
    data = json.loads(openllm.read_text())
    assert sorted(data["results"]) == ["ent_casehold", "nlu_jnli", "nlu_mnli"]
    assert data["configs"]["nlu_jnli"]["metadata"]["domain"] == "nlu"


def test_without_a_complete_pair_the_layout_is_unchanged(tmp_path):
    """English only: no cross-lingual key (a message says why); one suite only: no ``suites`` key."""
    res = aggregate([_runs(tmp_path / "runs", with_ja=False)], bootstrap=0, progress=False)
    assert "cross_lingual" not in res
    assert "cross-lingual: mnli (en) pairs with jnli, which is not in the inputs; no row" in res["messages"]
    assert "suites" in res["macro"]  # enterprise + nlu
    only_ent = tmp_path / "ent"
    write_run(only_ent, "org/x", [choice_task("ent_casehold", f"t{k}", correct_counts(50 + k)) for k in range(1, 4)])
    res = aggregate([only_ent], bootstrap=0, progress=False)
    assert "cross_lingual" not in res and "suites" not in res["macro"] and res["macro"]["overall"]["models"]
