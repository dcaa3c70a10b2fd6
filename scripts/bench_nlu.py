"""Measured NLU benchmark (issue 25, docs/nlu.md "Measured: SmolLM2-135M-Instruct"): every template of the NLU
datasets with genuine samples, zero-shot, greedy and regex-constrained decoding, on a real model.

1. ``--make-runs --data_root DIR``: for each decoding mode and dataset, ``lm-eval-enterprise run`` exactly as a user
   runs it (SmolLM2-135M-Instruct fp32 on CPU, ``--apply_chat_template``, ``--limit`` documents of the fair
   evaluation order, ``--log_samples``; ``hf`` = greedy, ``hf-constrained`` = each template's answer regex enforced
   by xgrammar), into ``--runs`` (one folder per mode and dataset; a killed run resumes from the project's answer
   cache when rerun). Each finished run is read back into the compact cells file ``--cells``
   (default ``benchmarks/nlu_cells.json.gz``): per (dataset, mode, template, document) what every metric of the
   dataset needs — the parsed answer (labels, scores) or the per-document metric value (extractive QA) — and the
   format-failure flag; per document its id and the gold side of the metric items. No prompts, no raw outputs.
   Every metric of every template is recomputed from the cells and must equal lm-eval's own number in the run.
2. ``--report``: from the cells alone, per dataset and mode μ, σ (ddof 1), the baseline b and S = (μ − b)/σ with
   2.5/97.5 % document-bootstrap intervals (the Sharpe tool's functions, seed 0, 2,000 resamples), format-failure
   rates, the per-template scores, greedy vs constrained, and the cross-lingual ranking of templates per EN/JA pair.
   Prints the Markdown tables of docs/nlu.md.

    python scripts/bench_nlu.py --make-runs --data_root DIR [--datasets cola jcola] [--modes greedy]
    python scripts/bench_nlu.py --make-runs --data_root DIR --reread   # after a change to an answer reader
    python scripts/bench_nlu.py --report
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lm_eval_enterprise.sharpe.inputs import Options  # noqa: E402

CELLS = ROOT / "benchmarks" / "nlu_cells.json.gz"
RUNS = ROOT / "build" / "nlu_bench" / "runs"
# the NLU datasets with genuine samples, in the order they are run: EN/JA pairs first, cheapest first, extractive QA
# last (the costliest by far); mnli has no genuine sample, and its fixture numbers are no result
DATASETS = ("cola", "jcola", "stsb", "jsts", "commonsense_qa", "jcommonsenseqa", "jnli", "squad", "jsquad")
PAIRS = (("cola", "jcola"), ("stsb", "jsts"), ("squad", "jsquad"), ("commonsense_qa", "jcommonsenseqa"))
MODES = {"greedy": "hf", "constrained": "hf-constrained"}
FILTER = "answer"
# lm-eval batch size per dataset: batches of 8 cost ~3.5x less CPU per document than single requests on the short
# prompts of the label and score tasks (jcola t1, 16 docs: 13 vs 45 CPU s beyond start-up, identical answers), but
# more on extractive QA (long contexts padded to the longest, 24-48 new tokens for every row: squad t1 75 vs 50 s)
BATCH = {"squad": 1, "jsquad": 1}
DEFAULT_BATCH = 8
_DEFAULTS = Options()  # the Sharpe tool's defaults: the report's resamples and seed are the tool's own
SEED, N_BOOT = _DEFAULTS.seed, _DEFAULTS.bootstrap


# ============================================================================================ the runs
def run_command(dataset: str, mode: str, data_root: Path, out: Path, limit: int, batch_size: int) -> list[str]:
    """The ``lm-eval-enterprise run`` command of one dataset (all its templates) in one decoding mode."""
    from lm_eval_enterprise.harness.models import smollm2_dir

    return [
        str(Path(sys.executable).with_name("lm-eval-enterprise")),
        "run",
        "--model",
        MODES[mode],
        "--model_args",
        f"pretrained={smollm2_dir()},dtype=float32",
        "--device",
        "cpu",
        "--apply_chat_template",
        "--tasks",
        f"nlu_{dataset}",
        "--data_root",
        str(data_root),
        "--limit",
        str(limit),
        "--batch_size",
        str(batch_size),
        "--output_path",
        str(out),
        "--log_samples",
    ]


def latest_results(run_dir: Path) -> Path | None:
    """The newest lm-eval results file under a run folder (None: the run has not finished)."""
    files = sorted(run_dir.glob("*/results_*.json"))
    return files[-1] if files else None


def make_runs(args) -> None:
    cells = load_cells(args.cells) if args.cells.exists() else new_cells(args.limit)
    if cells["limit"] != args.limit:
        raise SystemExit(f"{args.cells}: made with --limit {cells['limit']}, not {args.limit}")
    env = {**os.environ, "OMP_NUM_THREADS": str(args.threads), "MKL_NUM_THREADS": str(args.threads)}
    for dataset in args.datasets:  # both modes of a dataset before the next: every finished dataset is compared
        for mode in args.modes:
            prior = cells["datasets"].get(dataset, {}).get("modes", {}).get(mode, {})
            if prior.get("complete") and not args.reread:
                continue
            run_dir = args.runs / mode / dataset
            cost = {"wall_s": 0.0, "cpu_s": 0.0}
            if prior.get("complete"):  # --reread: the old samples go; the model's answers stay in the answer cache
                shutil.rmtree(run_dir, ignore_errors=True)
            if latest_results(run_dir) is None:
                batch = args.batch_size or BATCH.get(dataset, DEFAULT_BATCH)
                cmd = run_command(dataset, mode, args.data_root, run_dir, args.limit, batch)
                print("$ " + " ".join(cmd), flush=True)
                t0, c0 = time.time(), _child_cpu()
                log = run_dir.parent / f"{dataset}.log"
                log.parent.mkdir(parents=True, exist_ok=True)
                with log.open("a") as fh:
                    rc = subprocess.call(cmd, env=env, stdout=fh, stderr=subprocess.STDOUT)
                cost = {"wall_s": round(time.time() - t0, 1), "cpu_s": round(_child_cpu() - c0, 1)}
                if rc != 0:
                    raise SystemExit(f"{dataset} ({mode}): run failed with exit code {rc}; see {log}")
                if prior.get("complete"):
                    cost = prior["cost"]  # the model's cost is the first run's; a reread only reads and scores
            add_run(cells, dataset, mode, latest_results(run_dir), cost)
            save_cells(cells, args.cells)
            e = cells["datasets"][dataset]["modes"][mode]
            print(f"{dataset} {mode}: {len(e['templates'])} templates checked, {cost}", flush=True)


def _child_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


# ============================================================================================ the cells
def new_cells(limit: int) -> dict:
    return {"model": "SmolLM2-135M-Instruct (fp32, CPU, chat template)", "limit": limit, "datasets": {}}


def load_cells(path: Path) -> dict:
    return json.loads(gzip.decompress(path.read_bytes()))


def save_cells(cells: dict, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(json.dumps(cells, sort_keys=True, ensure_ascii=False).encode(), mtime=0))


def _samples(results_path: Path, task: str) -> list[dict]:
    stamp = results_path.stem.removeprefix("results_")
    path = results_path.with_name(f"samples_{task}_{stamp}.jsonl")
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = [r for r in rows if r.get("filter") == FILTER]
    from lm_eval_enterprise.text import natural_key

    return sorted(rows, key=lambda r: natural_key(str(r["doc"]["id"])))  # the Sharpe tool's document order


def split_item(item):
    """A logged metric item → (gold side, prediction): ``{gold, pred, labels}``-style items split at ``pred``; a
    per-document value (a mean metric) has no gold side."""
    if isinstance(item, dict):
        return {k: v for k, v in item.items() if k != "pred"}, item["pred"]
    return None, float(item)


def join_item(gold, pred):
    """Inverse of :func:`split_item`."""
    return pred if gold is None else {**gold, "pred": pred}


def _answer_texts(answers) -> list[str]:
    """The reference answer texts of an extractive-QA record (``{text: [...], answer_start: [...]}`` or a list)."""
    return (
        list(answers["text"])
        if isinstance(answers, dict)
        else [a if isinstance(a, str) else a["text"] for a in answers]
    )


def add_run(cells: dict, dataset: str, mode: str, results_path: Path, cost: dict) -> None:
    """One finished run (all templates of a dataset in one mode) into the cells, each template's metrics checked
    against lm-eval's own numbers."""
    res = json.loads(results_path.read_text(encoding="utf-8"))
    tasks = sorted(t for t in res["configs"] if (res["configs"][t].get("metadata") or {}).get("template_id"))
    meta0 = res["configs"][tasks[0]]["metadata"]
    from lm_eval_enterprise import families

    fam = families.FAMILIES[meta0["task_family"]]
    metrics = [m for m in fam.metrics if m not in ("format_failure", "format_adherence")]
    entry = cells["datasets"].setdefault(
        dataset,
        {
            "language": meta0["language"],
            "pair": meta0["pair"],
            "family": meta0["task_family"],
            "primary": meta0["primary_metric"],
            "metrics": {m: fam.metrics[m][0] for m in metrics},
            "modes": {},
        },
    )
    mode_entry = {"templates": {}, "lm_eval": {}, "cost": cost, "results_file": results_path.name}
    for task in tasks:
        rows = _samples(results_path, task)
        docs = [str(r["doc"]["id"]) for r in rows]
        gold = {m: [split_item(r[m])[0] for r in rows] for m in metrics}
        if "docs" not in entry:
            entry["docs"], entry["gold"] = docs, gold
            if "answers" in rows[0]["doc"]:  # extractive QA: the reference answers (the metric items are values)
                entry["references"] = [_answer_texts(r["doc"]["answers"]) for r in rows]
        if (docs, gold) != (entry["docs"], entry["gold"]):
            raise SystemExit(f"{task} ({mode}): documents or gold answers differ from the other runs'")
        tid = res["configs"][task]["metadata"]["template_id"]
        mode_entry["templates"][tid] = {
            "pred": {m: [split_item(r[m])[1] for r in rows] for m in metrics},
            "fail": [int(r["format_failure"]) for r in rows],
            "adherent": [int(r["format_adherence"]) for r in rows],
        }
        mode_entry["lm_eval"][tid] = {
            m: res["results"][task][f"{m},{FILTER}"] for m in [*metrics, "format_failure", "format_adherence"]
        }
    entry["modes"][mode] = mode_entry
    check_against_lm_eval(entry, mode, dataset)
    mode_entry["complete"] = True


def check_against_lm_eval(entry: dict, mode: str, dataset: str = "") -> None:
    """Every metric of every template recomputed from the cells equals lm-eval's number (to 1e-9)."""
    for tid, want in entry["modes"][mode]["lm_eval"].items():
        for m in entry["metrics"]:
            mine = template_stats(entry, mode, tid, m).score()
            if not math.isclose(mine, want[m], rel_tol=0, abs_tol=1e-9):
                raise SystemExit(f"{dataset} {tid} {m} ({mode}): recomputed {mine} != lm-eval's {want[m]}")
        fail = float(np.mean(entry["modes"][mode]["templates"][tid]["fail"]))
        if not math.isclose(fail, want["format_failure"], abs_tol=1e-9):
            raise SystemExit(f"{dataset} {tid} format_failure ({mode}): {fail} != lm-eval's {want['format_failure']}")


# ============================================================================================ scoring
def template_stats(entry: dict, mode: str, tid: str, metric: str):
    """The project's sufficient statistics (``scoring.corpus.doc_stats``) of one template's cells for ``metric``."""
    from lm_eval_enterprise.scoring import corpus

    cells = entry["modes"][mode]["templates"][tid]["pred"][metric]
    items = [join_item(g, p) for g, p in zip(entry["gold"][metric], cells)]
    return corpus.doc_stats(entry["metrics"][metric], items, metric)


def templates_of(entry: dict, mode: str) -> list[str]:
    from lm_eval_enterprise.text import natural_key

    return sorted(entry["modes"][mode]["templates"], key=natural_key)


def baseline(entry: dict, metric: str) -> float:
    """The Sharpe tool's default (uniform) baseline of ``metric`` on these documents (``sharpe.baselines.compute``):
    0 for MCC, Pearson, Spearman and the QA metrics; 1/k for accuracy over k labels or options."""
    from lm_eval_enterprise.sharpe import baselines as BL

    # the label list: from any metric whose items carry it (jnli's accuracy is a per-document mean, its macro-F1
    # items hold the labels)
    labelled = [g for g in entry["gold"].values() if g[0] is not None and "labels" in g[0]]
    info = BL.LabelInfo("none")
    if labelled:
        gold = labelled[0]
        labels = list(gold[0]["labels"])
        info = BL.LabelInfo(
            "classification", labels=labels, gold_counts=[sum(g["gold"] == x for g in gold) for x in labels]
        )
    elif entry["family"] == "choice_text":
        info = BL.LabelInfo("choice", n_options=5)
    elif entry["family"] in ("classification_mcc", "classification_accuracy"):
        raise SystemExit(f"{metric}: no label list in the cells")
    b = BL.compute(metric, entry["family"], entry["metrics"][metric], info, "uniform", SEED)
    if b.value is None:
        raise SystemExit(f"{metric}: no baseline ({b.note})")
    return float(b.value)


def summary(entry: dict, mode: str, metric: str) -> dict:
    """μ, σ, S and their document-bootstrap intervals over the templates (``scoring.sharpe_score.sharpe``,
    ``scoring.bootstrap.draw`` and the Sharpe tool's ``stats.summarize``: one shared document resample per
    iteration), and the format-failure rate."""
    from lm_eval_enterprise.scoring import bootstrap as BS
    from lm_eval_enterprise.scoring.sharpe_score import sharpe
    from lm_eval_enterprise.sharpe.stats import summarize

    tids = templates_of(entry, mode)
    stats = [template_stats(entry, mode, t, metric) for t in tids]
    scores = np.array([s.score() for s in stats])
    b = baseline(entry, metric)
    point = sharpe(scores, b, ddof=1)
    n_docs = len(entry["docs"])
    doc_idx, _ = BS.draw(SEED, N_BOOT, n_docs, len(tids), False)
    w = BS.multiplicities(doc_idx, n_docs)
    boot = np.column_stack([s.scores(w) for s in stats])
    ci = summarize(boot, b, 1, 1.0, "off", n_docs, None, SEED)
    fails = [float(np.mean(entry["modes"][mode]["templates"][t]["fail"])) for t in tids]
    return {
        "boot": boot,  # B × T resampled template scores (same document draws for every mode: paired deltas)
        "metric": metric,
        "templates": dict(zip(tids, scores.tolist())),
        "baseline": b,
        "mean": point["mean"],
        "std": point["std"],
        "sharpe": point["sharpe"],
        "sharpe_status": point["sharpe_status"],
        "ci": {k: ci[k] for k in ("mean", "std", "sharpe")},
        "fail": float(np.mean(fails)),
        "fail_per_template": dict(zip(tids, fails)),
    }


def cross_lingual(en: dict, ja: dict) -> dict:
    """How the template ranking carries from the English dataset to its Japanese pair (template t<k> vs t<k>): the
    Sharpe tool's own comparison (:func:`lm_eval_enterprise.sharpe.comparisons.template_rank_correlation`:
    Spearman's ρ over the shared templates, None when a side is constant; :func:`~lm_eval_enterprise.sharpe.
    comparisons.extreme_templates`: the best / worst templates with ties, None when every template ties)."""
    from lm_eval_enterprise.sharpe.comparisons import extreme_templates, template_rank_correlation

    shared, rho, _status, _note = template_rank_correlation(en["templates"], ja["templates"], labels=("en", "ja"))
    sides = [extreme_templates({t: side["templates"][t] for t in shared}) for side in (en, ja)]
    return {
        "rho": math.nan if rho is None else float(rho),
        "best": (sides[0][0], sides[1][0]),
        "worst": (sides[0][1], sides[1][1]),
    }


# ============================================================================================ the report
def _f(x, nd: int = 3) -> str:
    return "n/a" if x is None or not math.isfinite(x) else f"{x:.{nd}f}"


def _sharpe(r: dict) -> str:
    """S, or why it has no value (the Sharpe tool's status: σ = 0 at μ = b is ``undefined``)."""
    if r["sharpe"] is not None and math.isfinite(r["sharpe"]):
        return f"{r['sharpe']:.2f}"
    return {"undefined": "undefined (σ = 0, μ = b)", "inf": "+∞ (σ = 0)", "-inf": "−∞ (σ = 0)"}.get(
        r["sharpe_status"], r["sharpe_status"]
    )


def _ci(c, nd: int = 2) -> str:
    return "" if not c else f" [{_f(c[0], nd)}, {_f(c[1], nd)}]"


def report(cells: dict) -> dict:
    """Every summary the tables print, from the cells alone."""
    out: dict = {}
    for dataset in [d for d in DATASETS if d in cells["datasets"]]:
        entry = cells["datasets"][dataset]
        for mode in [m for m in MODES if entry["modes"].get(m, {}).get("complete")]:
            out[(dataset, mode)] = summary(entry, mode, entry["primary"])
            out[(dataset, mode)]["others"] = {
                m: float(np.mean([template_stats(entry, mode, t, m).score() for t in templates_of(entry, mode)]))
                for m in entry["metrics"]
                if m != entry["primary"]
            }
    return out


def print_report(cells: dict, res: dict) -> None:
    ds = cells["datasets"]
    n_docs = {d: len(e["docs"]) for d, e in ds.items()}
    print(f"Model: {cells['model']}; zero-shot; first {cells['limit']} documents of the fair evaluation order.")
    missing = [f"{d} ({m})" for d in DATASETS for m in MODES if (d, m) not in res]
    if missing:
        print(f"**Partial**: not measured yet: {', '.join(missing)}. mnli has no genuine sample and is not measured.")
    print()
    print(
        "| dataset | lang | metric (b) | decoding | μ [95 % CI] | σ [95 % CI] | S [95 % CI] | format failures "
        "| μ of the other metrics |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for (d, mode), r in res.items():
        e = ds[d]
        print(
            f"| {d} ({n_docs[d]} docs) | {e['language']} | {e['primary']} ({_f(r['baseline'], 2)}) | {mode} | "
            f"{_f(r['mean'])}{_ci(r['ci']['mean'], 3)} | {_f(r['std'])}{_ci(r['ci']['std'], 3)} | "
            f"{_sharpe(r)}{_ci(r['ci']['sharpe'])} | {r['fail']:.0%} | "
            + ", ".join(f"{m} {v:.3f}" for m, v in r["others"].items())
            + " |"
        )
    print("\nPer-template scores (primary metric; format-failure rate in brackets):\n")
    tids = sorted({t for r in res.values() for t in r["templates"]}, key=lambda t: int(t[1:]))
    print("| dataset | decoding | " + " | ".join(tids) + " |")
    print("|---|---|" + "---|" * len(tids))
    for (d, mode), r in res.items():
        cells_t = [
            f"{r['templates'][t]:.3f} ({r['fail_per_template'][t]:.0%})" if t in r["templates"] else "–" for t in tids
        ]
        print(f"| {d} | {mode} | " + " | ".join(cells_t) + " |")
    _print_decoding(res)
    _print_cross_lingual(res)
    _print_cost(cells)


def decoding_delta(g: dict, c: dict) -> dict:
    """Constrained − greedy on the same templates and documents: Δμ, Δσ, ΔS with 95 % intervals over the shared
    document resamples (``scoring.sharpe_score.sharpe_matrix`` per resample, ``scoring.bootstrap.percentile_ci``), as
    ``--compare_decoding``."""
    from lm_eval_enterprise.scoring.bootstrap import percentile_ci
    from lm_eval_enterprise.scoring.sharpe_score import sharpe_matrix

    mu_g, sd_g, sh_g, _ = sharpe_matrix(g["boot"], g["baseline"], 1)
    mu_c, sd_c, sh_c, _ = sharpe_matrix(c["boot"], c["baseline"], 1)
    # ΔS only between two finite S (the Sharpe tool's rule: "inf vs -inf" and the like have no difference)
    both = all(x is not None and math.isfinite(x) for x in (g["sharpe"], c["sharpe"]))
    return {
        "delta_mean": c["mean"] - g["mean"],
        "delta_mean_ci": percentile_ci(mu_c - mu_g),
        "delta_std": c["std"] - g["std"],
        "delta_std_ci": percentile_ci(sd_c - sd_g),
        "delta_sharpe": c["sharpe"] - g["sharpe"] if both else None,
        "delta_sharpe_ci": percentile_ci(sh_c - sh_g),
    }


def _print_decoding(res: dict) -> None:
    rows = [(d, res[(d, "greedy")], res[(d, "constrained")]) for d in DATASETS if (d, "constrained") in res]
    if not rows:
        return
    print("\nConstrained − greedy (95 % intervals over the shared document resamples):\n")
    print("| dataset | μ greedy → constrained | Δμ | Δσ | ΔS | format failures greedy → constrained |")
    print("|---|---|---|---|---|---|")
    for d, g, c in rows:
        x = decoding_delta(g, c)
        print(
            f"| {d} | {_f(g['mean'])} → {_f(c['mean'])} | {x['delta_mean']:+.3f}{_ci(x['delta_mean_ci'], 3)} | "
            f"{x['delta_std']:+.3f}{_ci(x['delta_std_ci'], 3)} | {_f(x['delta_sharpe'], 2)}{_ci(x['delta_sharpe_ci'])} "
            f"| {g['fail']:.0%} → {c['fail']:.0%} |"
        )


def _print_cross_lingual(res: dict) -> None:
    print("\nTemplate ranking across languages (t<k> of the English dataset vs t<k> of its Japanese pair):\n")
    if not any((en, mode) in res and (ja, mode) in res for en, ja in PAIRS for mode in MODES):
        print("(no pair measured in the same decoding mode yet)")
        return
    print("| pair | decoding | Spearman ρ | best EN / JA | worst EN / JA |")
    print("|---|---|---|---|---|")
    for en, ja in PAIRS:
        for mode in MODES:
            if (en, mode) in res and (ja, mode) in res:
                x = cross_lingual(res[(en, mode)], res[(ja, mode)])
                row = f"| {en} / {ja} | {mode} | {_f(x['rho'], 2)} | {_agree(x['best'])} | {_agree(x['worst'])} |"
                print(row)


def _agree(sides: tuple[list[str] | None, list[str] | None]) -> str:
    """``t2 / t5`` (tied templates joined by ``=``), with "agree" / "differ" when the two sides share a template or
    not; no verdict when a side has every template tied (None: a constant score ranks nothing)."""
    en, ja = ("all tied" if s is None else "=".join(s) if len(s) <= 3 else f"{len(s)} tied" for s in sides)
    if any(s is None for s in sides):
        return f"{en} / {ja}"
    return f"{en} / {ja}" + (" (agree)" if set(sides[0]) & set(sides[1]) else " (differ)")


def _print_cost(cells: dict) -> None:
    print("\nCPU cost of the runs (one process, CPU time of the run command; wall time on shared cores):\n")
    print("| dataset | decoding | templates × docs | CPU s | wall s |")
    print("|---|---|---|---|---|")
    for d in [d for d in DATASETS if d in cells["datasets"]]:
        e = cells["datasets"][d]
        for mode in [m for m in MODES if m in e["modes"]]:
            m = e["modes"][mode]
            c = m["cost"]
            print(f"| {d} | {mode} | {len(m['templates'])} × {len(e['docs'])} | {c['cpu_s']:.0f} | {c['wall_s']:.0f} |")


def check_sharpe_tool(res: dict, aggregate: Path) -> list[str]:
    """Compare μ, σ, S and their intervals with the Sharpe tool's ``aggregate.json`` (``lm-eval-enterprise sharpe
    RUNS --compare_decoding --output_path DIR``; strict scores of each dataset row's primary metric). Returns one
    line per compared value that differs beyond 1e-9 (none: the two agree)."""
    agg = json.loads(aggregate.read_text(encoding="utf-8"))
    diffs, seen = [], 0
    for rec in agg["records"]:
        dataset = str(rec.get("dataset") or "")
        mode = "constrained" if "[regex-constrained]" in rec["model"] else "greedy"
        r = res.get((dataset, mode))
        if r is None or rec.get("scoring_mode") != "strict" or rec["level"] != "dataset":
            continue
        if rec["metric"] != r["metric"]:
            continue
        seen += 1
        infinite = {"inf": math.inf, "-inf": -math.inf}  # the tool writes an infinite S as null with its sign
        theirs_s = infinite.get(rec.get("sharpe_status"), rec["sharpe"]) if rec["sharpe"] is None else rec["sharpe"]
        pairs = [("mean", rec["mean"], r["mean"]), ("std", rec["std"], r["std"]), ("sharpe", theirs_s, r["sharpe"])]
        pairs += [(f"{k} CI", rec["ci"][k], r["ci"][k]) for k in ("mean", "std", "sharpe") if rec.get("ci")]
        for name, theirs, mine in pairs:
            a, b = np.atleast_1d(np.asarray(theirs, float)), np.atleast_1d(np.asarray(mine, float))
            if a.shape != b.shape or not np.allclose(a, b, rtol=0, atol=1e-9, equal_nan=True):
                diffs.append(f"{dataset} {mode} {name}: sharpe tool {theirs} vs this script {mine}")
    for comp in agg.get("decoding_comparisons") or []:
        dataset = str(comp.get("group", "")).removeprefix("nlu_")
        if (
            (dataset, "greedy") not in res
            or (dataset, "constrained") not in res
            or comp["metric"] != res[(dataset, "greedy")]["metric"]
        ):
            continue
        seen += 1
        mine = decoding_delta(res[(dataset, "greedy")], res[(dataset, "constrained")])
        for k in ("delta_mean", "delta_mean_ci", "delta_std", "delta_std_ci", "delta_sharpe", "delta_sharpe_ci"):
            a, b = np.atleast_1d(np.asarray(comp.get(k), float)), np.atleast_1d(np.asarray(mine[k], float))
            if a.shape != b.shape or not np.allclose(a, b, rtol=0, atol=1e-9, equal_nan=True):
                diffs.append(f"{dataset} constrained − greedy {k}: sharpe tool {comp.get(k)} vs this script {mine[k]}")
    print(f"compared {seen} rows and decoding comparisons with {aggregate}: {len(diffs)} differences", file=sys.stderr)
    return diffs


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--make-runs", action="store_true", help="run the model and write the cells")
    ap.add_argument("--report", action="store_true", help="print the Markdown tables from the cells")
    ap.add_argument("--data_root", type=Path, help="folder of the genuine samples, one subfolder per dataset")
    ap.add_argument("--datasets", nargs="*", default=list(DATASETS), choices=DATASETS)
    ap.add_argument("--modes", nargs="*", default=list(MODES), choices=list(MODES))
    ap.add_argument("--limit", type=int, default=100, help="documents per template (the fair order's first N)")
    ap.add_argument("--batch_size", type=int, help="lm-eval batch size (default: 8, extractive QA 1; see BATCH)")
    ap.add_argument("--threads", type=int, default=1, help="torch threads of the run (OMP_NUM_THREADS)")
    ap.add_argument(
        "--reread",
        action="store_true",
        help="rerun finished runs too: the answers come from the answer cache (no model call), the current answer "
        "readers and metrics read and score them again; the first run's cost is kept",
    )
    ap.add_argument("--runs", type=Path, default=RUNS, help="folder of the lm-eval runs")
    ap.add_argument("--cells", type=Path, default=CELLS, help="the compact cells file")
    ap.add_argument("--json", type=Path, help="also write the report as JSON")
    ap.add_argument("--check-sharpe", type=Path, help="aggregate.json of `lm-eval-enterprise sharpe` on the runs")
    args = ap.parse_args(argv)
    if args.make_runs:
        if args.data_root is None or not args.data_root.is_dir():
            ap.error("--make-runs needs --data_root DIR (the genuine samples, one subfolder per dataset)")
        make_runs(args)
    if args.report:
        cells = load_cells(args.cells)
        res = report(cells)
        print_report(cells, res)
        if args.json:
            plain = {f"{d}/{m}": {k: v for k, v in r.items() if k != "boot"} for (d, m), r in res.items()}
            args.json.write_text(json.dumps(plain, indent=1))
        if args.check_sharpe:
            diffs = check_sharpe_tool(res, args.check_sharpe)
            print("\n".join(diffs) or "the Sharpe tool agrees on every compared value", file=sys.stderr)
            return 1 if diffs else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
