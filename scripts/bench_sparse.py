"""Validation of the sparse (template × document) estimator (``lm_eval_enterprise/estimator/``).

For every (dataset, model) case with a FULL score matrix (every template on every document):

1. full-data reference: per-template scores, mean, std and Sharpe with their 95 % document-bootstrap intervals
   (B resamples; identical to the full Sharpe tool's intervals when every cell is observed);
2. for each cell share f ∈ {0.2, 0.3, 0.4, 0.6} and R seeded designs of ``cellplan.design`` (the planner's own
   design): keep only the planned cells, estimate with the sparse estimator (plug-in with the cell model) and with
   the naive estimate (each template scored on its observed documents only, what lm-eval prints for a sparse run);
3. report how often the estimated Sharpe and the per-template scores fall inside the full-data 95 % intervals,
   and their bias and RMSE against the full-data values.

Cases: synthetic matrices with known generating parameters (0/1 accuracy, 3-class weighted F1, entity F1 and a
ROUGE-like continuous metric × four "models" that differ in ability, template spread, document spread and template ×
document interaction), and real SmolLM2-135M-Instruct full runs on the real samples (``--real DIR``: lm-eval output
folders of full runs; ``--make-runs DIR`` creates them first — slow on CPU, run it once, with ``nice``).

    python scripts/bench_sparse.py                                   # synthetic only
    python scripts/bench_sparse.py --real /path/to/full_runs         # + the cached real runs
    python scripts/bench_sparse.py --make-runs /path/to/full_runs    # run SmolLM2 first (≈ 1–2 h on 2 busy cores)
"""

from __future__ import annotations

import argparse
import math
import random
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lm_eval_enterprise.estimator import CellMatrix, estimate_row, naive_scores  # noqa: E402
from lm_eval_enterprise.harness.cellplan import design  # noqa: E402
from lm_eval_enterprise.scoring.chance import uniform_f1  # noqa: E402
from lm_eval_enterprise.scoring.sharpe_score import sharpe  # noqa: E402

FRACS = (0.2, 0.3, 0.4, 0.6)
# (task group, documents): the cheap prompts first; at ~25 % of a shared CPU core a 5-shot task of 100 documents
# takes about an hour; the 14/20-shot NER and long-document tasks were left out for cost. The README's table uses
# the first four as nine-task subtask groups of metric version 1.2 (ent_tram and gold_news direction_constant did not
# finish on the shared machine; unfair_tos has no test split in the real sample). Since 1.3 gold_news is one task per
# template over headline × question (the real sample: 4 questions), estimated per question by the sparse tool
REAL_TASKS = (
    ("ent_securenlp", 100),
    ("ent_gold_news", 400),
    ("ent_tram", 60),
)

# "models" of the synthetic cases: logit ability, template-effect sd, document-effect sd, interaction sd
SYN_MODELS = {
    "m1 (moderate)": (0.5, 0.3, 1.5, 0.5),
    "m2 (small spread)": (-0.5, 0.15, 1.0, 0.3),
    "m3 (strong, wide)": (1.5, 0.5, 2.0, 0.8),
    "m4 (interaction-heavy)": (0.0, 0.3, 0.5, 1.0),
}


def _sig(x):
    return 1 / (1 + np.exp(-x))


def _micro_f1(s):
    s = np.atleast_2d(s)
    den = 2 * s[:, 0] + s[:, 1] + s[:, 2]
    return np.where(den > 0, 2 * s[:, 0] / np.where(den > 0, den, 1), 0.0)


def synthetic_cases(n_docs: int, seed: int, n_templates: int = 5):
    """(name, full CellMatrix, baseline) for 4 synthetic datasets × 4 synthetic models."""
    out = []
    for mi, (mname, (alpha, s_a, s_b, s_i)) in enumerate(SYN_MODELS.items()):
        rng = np.random.default_rng([seed, mi])
        a = rng.normal(0, s_a, n_templates)
        b = rng.normal(0, s_b, n_docs)
        eta = alpha + a[:, None] + b[None, :] + rng.normal(0, s_i, (n_templates, n_docs))
        # 0/1 accuracy (4 options: baseline 1/4)
        y = (rng.random(eta.shape) < _sig(eta)).astype(float)
        out.append((f"syn-accuracy / {mname}", CellMatrix.from_values(y, name="syn-accuracy"), 0.25))
        # 3-class weighted F1: correctness from the same kind of model, template-specific confusions when wrong
        k = 3
        gold = rng.choice(k, n_docs, p=[0.5, 0.3, 0.2])
        correct = rng.random(eta.shape) < _sig(eta + 0.3)
        pred = np.empty(eta.shape)
        for t in range(n_templates):
            conf = rng.dirichlet(np.ones(k + 1), size=k)  # per gold class: distribution over k labels + invalid
            for d in range(n_docs):
                if correct[t, d]:
                    pred[t, d] = gold[d]
                else:
                    p = conf[gold[d]].copy()
                    p[gold[d]] = 0
                    c = rng.choice(k + 1, p=p / p.sum())
                    pred[t, d] = -1 if c == k else c
        counts = np.bincount(gold, minlength=k)
        out.append(
            (
                f"syn-weighted-F1 / {mname}",
                CellMatrix.from_labels(gold, pred, k, "weighted", name="syn-wf1"),
                uniform_f1(counts.tolist(), "weighted"),
            )
        )
        # entity F1 (micro over documents): gold counts g_d, hits ~ Binomial(g_d, σ(η)), false positives ~ Poisson
        g = rng.poisson(1.5, n_docs)
        tp = rng.binomial(np.broadcast_to(g, eta.shape), _sig(eta))
        fp = rng.poisson(np.exp(-1.0 - 0.5 * a[:, None] + 0.5 * rng.normal(0, 1, n_docs)[None, :]))
        feats = np.stack([tp, fp, g[None, :] - tp], axis=2).astype(float)
        out.append(
            (
                f"syn-entity-F1 / {mname}",
                CellMatrix(
                    [f"t{i + 1}" for i in range(n_templates)],
                    [str(j) for j in range(n_docs)],
                    feats,
                    np.ones(eta.shape, bool),
                    _micro_f1,
                    ("counts", [("tp_fp_fn", 0)]),
                    name="syn-entity",
                ),
                0.0,
            )
        )
        # ROUGE-like continuous values in [0, 1]
        v = np.clip(
            0.3
            + 0.1 * alpha
            + 0.08 * a[:, None]
            + 0.12 * np.tanh(b)[None, :]
            + rng.normal(0, 0.05 + 0.05 * s_i, eta.shape),
            0,
            1,
        )
        out.append((f"syn-rouge / {mname}", CellMatrix.from_values(v, name="syn-rouge"), 0.0))
    return out


def real_cases(root: Path, metric: str | None = None):
    """Cases of the full runs under ``root`` (one sub-folder per task group): primary metric, or ``metric``."""
    from lm_eval_enterprise.sharpe.estimates import sparse_groups
    from lm_eval_enterprise.sharpe.inputs import Diagnostics, Options, Progress, read_inputs, select_runs

    out = []
    opts = Options(metrics=[metric] if metric else None, progress=False)
    for d in sorted(p for p in root.iterdir() if p.is_dir()):
        if not list(d.rglob("results_*.json")):
            continue
        diag = Diagnostics()
        inputs = read_inputs([str(d)], opts.variant_pattern, Progress(False))
        groups = sparse_groups(select_runs(inputs, "core", opts, diag), opts, diag)
        for g in groups:
            if not g.cells.mask.all():
                raise SystemExit(f"{d}: not a full run ({g.cells.share:.0%} of cells)")
            out.append((f"{g.name} ({g.metric}) / SmolLM2-135M", g.cells, g.baseline.value))
    return out


def make_runs(root: Path) -> None:
    """Full SmolLM2 runs (every template on the first N documents) of :data:`REAL_TASKS`."""
    from lm_eval_enterprise.harness.models import smollm2_dir

    model = smollm2_dir()
    bin_ = Path(sys.executable).parent / "lm-eval-enterprise"
    data = Path(__file__).resolve().parents[2] / "shared" / "data"
    for task, limit in REAL_TASKS:
        out = root / task
        if list(out.rglob("results_*.json")):
            continue
        cmd = [
            "nice",
            "-n",
            "10",
            str(bin_),
            "run",
            "--model",
            "hf",
            "--model_args",
            f"pretrained={model},dtype=float32",
            "--device",
            "cpu",
            "--batch_size",
            "8",
            "--tasks",
            task,
            "--limit",
            str(limit),
            "--data-root",
            str(data),
            "--output_path",
            str(out),
            "--log_samples",
        ]
        print(" ".join(cmd), flush=True)
        subprocess.run(cmd, check=True)


def _finite(x):
    return x is not None and math.isfinite(x)


def evaluate_case(
    cm: CellMatrix, baseline, fracs, reps: int, n_boot: int, seed: int, ci_reps: int = 0, ci_frac: float = 0.4
) -> dict:
    full = estimate_row([cm], baseline, n_boot=n_boot, seed=seed)
    s_full, ci_s = full.stats["sharpe"], full.ci.get("sharpe")
    m_full = full.scores
    ci_t = np.array([full.ci["per_template"][t] for t in cm.templates])
    res = {"full_sharpe": s_full, "full_ci": ci_s, "full_means": m_full.tolist(), "degenerate": not full.stats["std"]}
    if res["degenerate"]:  # every template scores the same on the full data (e.g. a constant answer): no case
        return res
    t_n, d_n = cm.mask.shape
    cov = {"sharpe": [], "means": []}
    for f in fracs:
        rows = {"est": [], "naive": []}
        for r in range(reps):
            sets = design(d_n, t_n, f, random.Random(f"bench|{seed}|{f}|{r}"))
            keep = np.zeros((t_n, d_n), bool)
            for d, ts in enumerate(sets):
                keep[ts, d] = True
            sub = cm.subset(keep)
            with_ci = abs(f - ci_frac) < 1e-9 and r < ci_reps
            est = estimate_row([sub], baseline, n_boot=n_boot // 2 if with_ci else 0, seed=seed + r)
            if with_ci:  # does the sparse run's own interval cover the full-data value?
                sci = est.ci
                cov["sharpe"].append(
                    bool(sci.get("sharpe")) and _finite(s_full) and sci["sharpe"][0] <= s_full <= sci["sharpe"][1]
                )
                cov["means"].extend(
                    sci["per_template"][t][0] <= m_full[j] <= sci["per_template"][t][1]
                    for j, t in enumerate(cm.templates)
                )
            nv = naive_scores(sub)
            nst = sharpe(nv, baseline, 1)
            rows["est"].append((est.stats["sharpe"], est.scores))
            rows["naive"].append((nst["sharpe"], nv))
        out = {}
        for kind, vals in rows.items():
            sh = np.array([v[0] if _finite(v[0]) else np.nan for v in vals])
            means = np.array([v[1] for v in vals])
            inside_t = (means >= ci_t[:, 0] - 1e-12) & (means <= ci_t[:, 1] + 1e-12)
            d_m = means - m_full[None, :]
            o = {
                "means_in_ci": float(inside_t.mean()),
                "means_bias": float(d_m.mean()),
                "means_rmse": float(np.sqrt((d_m**2).mean())),
            }
            if _finite(s_full) and ci_s:
                ok = np.isfinite(sh)
                o["sharpe_in_ci"] = float(((sh >= ci_s[0]) & (sh <= ci_s[1]) & ok).mean())
                o["sharpe_bias"] = float(np.nanmean(sh - s_full))
                o["sharpe_rmse"] = float(np.sqrt(np.nanmean((sh - s_full) ** 2)))
                o["sharpe_undefined"] = float((~ok).mean())
            out[kind] = o
        res[f] = out
    if cov["means"]:
        res["sparse_ci_coverage"] = {k: float(np.mean(v)) for k, v in cov.items()}
    return res


def print_table(results: dict, fracs) -> None:
    def cell(o, key, fmt):
        return fmt.format(o[key]) if key in o else "n/a"

    head = (
        "| case | S full [95% CI] | cells | S in CI est / naive | means in CI est / naive | S bias est / naive "
        "| S RMSE est / naive | means RMSE est / naive |"
    )
    print(head)
    print("|" + "---|" * 8)
    for name, res in results.items():
        if res["degenerate"]:
            print(
                f"| {name} | σ = 0 on the full data (every template scores {res['full_means'][0]:.3f}): "
                "not a case | | | | | | |"
            )
            continue
        ci = res["full_ci"]
        s = (
            "undefined"
            if not _finite(res["full_sharpe"])
            else (f"{res['full_sharpe']:.2f} [{ci[0]:.2f}, {ci[1]:.2f}]" if ci else f"{res['full_sharpe']:.2f}")
        )
        for f in fracs:
            e, n = res[f]["est"], res[f]["naive"]
            print(
                f"| {name} | {s} | {f:.0%} | {cell(e, 'sharpe_in_ci', '{:.0%}')} / {cell(n, 'sharpe_in_ci', '{:.0%}')}"
                f" | {e['means_in_ci']:.0%} / {n['means_in_ci']:.0%}"
                f" | {cell(e, 'sharpe_bias', '{:+.2f}')} / {cell(n, 'sharpe_bias', '{:+.2f}')}"
                f" | {cell(e, 'sharpe_rmse', '{:.2f}')} / {cell(n, 'sharpe_rmse', '{:.2f}')}"
                f" | {e['means_rmse']:.3f} / {n['means_rmse']:.3f} |"
            )


def summary(results: dict, fracs, label: str) -> None:
    if all(r["degenerate"] for r in results.values()):
        print(f"\n{label}: no case with template differences on the full data")
        return
    print(
        f"\n{label}: share of (case, design) with the estimate inside the full-data 95% CI "
        "(cases with a finite full-data Sharpe), and cases meeting ≥ 90%:"
    )
    print(
        "| cells | Sharpe est | Sharpe naive | cases ≥ 90% est | cases ≥ 90% naive | template means est | "
        "template means naive |"
    )
    print("|---|---|---|---|---|---|---|")
    results = {k: r for k, r in results.items() if not r["degenerate"]}
    for f in fracs:
        se = [r[f]["est"]["sharpe_in_ci"] for r in results.values() if "sharpe_in_ci" in r[f]["est"]]
        sn = [r[f]["naive"]["sharpe_in_ci"] for r in results.values() if "sharpe_in_ci" in r[f]["naive"]]
        me = [r[f]["est"]["means_in_ci"] for r in results.values()]
        mn = [r[f]["naive"]["means_in_ci"] for r in results.values()]
        print(
            f"| {f:.0%} | {np.mean(se):.1%} | {np.mean(sn):.1%} | {sum(x >= 0.9 for x in se)}/{len(se)} | "
            f"{sum(x >= 0.9 for x in sn)}/{len(sn)} | {np.mean(me):.1%} | {np.mean(mn):.1%} |"
        )
    cov = [r["sparse_ci_coverage"] for r in results.values() if "sparse_ci_coverage" in r]
    if cov:
        print(
            f"\nCoverage of the full-data values by the sparse run's own 95% intervals (at the CI share, "
            f"{len(cov)} cases): Sharpe {np.mean([c['sharpe'] for c in cov]):.1%}, "
            f"template scores {np.mean([c['means'] for c in cov]):.1%}"
        )


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=100, help="designs per case and share")
    ap.add_argument("--boot", type=int, default=1000, help="bootstrap resamples of the full-data intervals")
    ap.add_argument("--docs", type=int, default=100, help="documents per synthetic case")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--fracs", default=",".join(map(str, FRACS)))
    ap.add_argument("--real", type=Path, help="folder of full lm-eval runs (one sub-folder per task group)")
    ap.add_argument("--make-runs", type=Path, help="run SmolLM2 on the real samples into this folder first")
    ap.add_argument("--no-synthetic", action="store_true")
    ap.add_argument(
        "--ci-reps",
        type=int,
        default=10,
        help="designs per case at 40%% whose own bootstrap intervals (B = boot/2) are checked",
    )
    args = ap.parse_args(argv)
    fracs = [float(x) for x in args.fracs.split(",")]
    t0 = time.time()
    if args.make_runs:
        make_runs(args.make_runs)
        args.real = args.real or args.make_runs
    groups = []
    if not args.no_synthetic:
        groups.append(("synthetic", synthetic_cases(args.docs, args.seed)))
    if args.real:
        groups.append(("real (SmolLM2-135M-Instruct, real samples), primary metric", real_cases(args.real)))
        groups.append(("real, accuracy (secondary metric, same runs)", real_cases(args.real, "accuracy")))
    for label, cases in groups:
        print(f"\n## {label}: {len(cases)} cases, {args.reps} designs per share, full-data CIs from B = {args.boot}\n")
        results = {}
        for name, cm, b in cases:
            results[name] = evaluate_case(cm, b, fracs, args.reps, args.boot, args.seed, args.ci_reps)
        print_table(results, fracs)
        summary(results, fracs, label)
    print(f"\n({time.time() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
