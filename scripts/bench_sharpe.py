#!/usr/bin/env python
"""Benchmark of the Sharpe aggregation tool (issue goal: ≤ 10 s and ≤ 3× the parse floor on this machine).

Generates, in a temporary folder, lm-eval output folders for 10 models × 125 task variants (25 datasets × 5
templates, a mix of every task family) × 500 documents, written with the real ``process_results`` hooks and
aggregations (:mod:`testkit.synthetic`). Then times

1. the parse floor: reading every results and samples file and ``json.loads`` of every line (nothing else);
2. the aggregation: :func:`lm_eval_enterprise.sharpe.pipeline.aggregate` with B = 1,000 bootstrap resamples (reading,
   pairing, per-template recomputation, baselines, bootstrap CIs, rank stability, paired comparisons, roll-ups);
3. writing the outputs (aggregate.json, CSVs, leaderboard.md, report.html with plots, HF export), reported apart.

    python scripts/bench_sharpe.py [--models 10] [--docs 500] [--bootstrap 1000] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

# 25 datasets × 5 templates = 125 task variants; the family mix of the 25 datasets
# (README, Datasets table; classification-heavy)
DATASETS = [
    ("classification_weighted", 10),
    ("classification_binary", 2),
    ("classification_macro", 1),
    ("multiple_choice", 2),
    ("entity", 2),
    ("kpi", 1),
    ("ranking", 2),
    ("numeric", 1),
    ("summarization", 4),
]
DOMAINS = ("finance", "legal", "climate", "cyber")


def _write_model(args: tuple) -> int:
    out, m, n_docs, n_templates, prompt_chars = args
    from testkit.synthetic import family_task, write_run

    tasks = []
    i = 0
    for family, count in DATASETS:
        for j in range(count):
            group = f"ent_bench_{family}_{j}"
            for t in range(1, n_templates + 1):
                quality = 0.45 + 0.04 * m + 0.03 * ((t * 7 + j) % 5) - 0.02 * t
                tasks.append(
                    family_task(
                        family,
                        f"t{t}",
                        n_docs,
                        min(quality, 0.95),
                        0.05 * (t == 3),
                        seed=i,
                        group=group,
                        domain=DOMAINS[i % 4],
                    )
                )
            i += 1
    write_run(out, f"bench-org/model-{m:02d}", tasks, prompt_chars=prompt_chars)
    return len(tasks)


def generate(out: Path, n_models: int, n_docs: int, n_templates: int, prompt_chars: int) -> int:
    jobs = [(str(out), m, n_docs, n_templates, prompt_chars) for m in range(n_models)]
    with ProcessPoolExecutor(max_workers=os.cpu_count() or 1) as ex:
        return sum(ex.map(_write_model, jobs))


def parse_floor(out: Path) -> tuple[float, int, int]:
    t0 = time.perf_counter()
    lines = 0
    nbytes = 0
    loads = json.loads
    for p in sorted(out.rglob("results_*.json")):
        text = p.read_text(encoding="utf-8")
        nbytes += len(text)
        loads(text)
    for p in sorted(out.rglob("samples_*.jsonl")):
        with open(p, encoding="utf-8") as f:
            for line in f:
                nbytes += len(line)
                loads(line)
                lines += 1
    return time.perf_counter() - t0, lines, nbytes


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", type=int, default=10)
    ap.add_argument("--docs", type=int, default=500)
    ap.add_argument("--templates", type=int, default=5)
    ap.add_argument("--bootstrap", type=int, default=1000)
    ap.add_argument("--prompt-chars", type=int, default=600, help="prompt length stored in each sample line")
    ap.add_argument("--keep", help="generate into this folder and keep it (reused when it already holds runs)")
    ap.add_argument("--workers", type=int, default=None, help="processes for the aggregation (default: auto)")
    ap.add_argument("--no-outputs", action="store_true", help="skip timing the output writers")
    args = ap.parse_args()
    from lm_eval_enterprise.sharpe.pipeline import Options, aggregate, write_outputs

    tmp = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench_sharpe_"))
    try:
        t0 = time.perf_counter()
        if args.keep and (tmp / "runs").is_dir():
            print(f"reusing the generated runs in {tmp / 'runs'}")
        else:
            n_tasks = generate(tmp / "runs", args.models, args.docs, args.templates, args.prompt_chars)
            print(
                f"generated {args.models} models × {n_tasks // args.models} task variants × {args.docs} docs "
                f"in {time.perf_counter() - t0:.1f}s ({tmp})"
            )
        floor, lines, nbytes = parse_floor(tmp / "runs")  # also warms the OS file cache
        floor = min(floor, parse_floor(tmp / "runs")[0])
        print(f"parse floor (read + json.loads of {lines:,} sample lines, {nbytes / 1e6:.0f} MB): {floor:.2f}s")
        opts = Options(bootstrap=args.bootstrap, progress=sys.stderr.isatty(), workers=args.workers)
        t1 = time.perf_counter()
        result = aggregate([str(tmp / "runs")], opts)
        agg = time.perf_counter() - t1
        n_rec = len(result["records"])
        phase = result["provenance"]["timing_seconds"]["read_and_bootstrap"]
        print(
            f"aggregate (B = {args.bootstrap}, {n_rec} records, {len(result['comparisons'])} paired comparisons): "
            f"{agg:.2f}s  [read+pair+score+bootstrap {phase:.2f}s]"
        )
        ratio = agg / floor
        print(
            f"ratio aggregate / parse floor: {ratio:.2f}×  (goal ≤ 3×: {'met' if ratio <= 3 else 'NOT met'}; "
            f"≤ 10 s: {'met' if agg <= 10 else 'NOT met'})"
        )
        if not args.no_outputs:
            t2 = time.perf_counter()
            write_outputs(result, tmp / "sharpe_out")
            print(f"writing outputs (JSON, CSV, Markdown, HTML with plots, HF export): {time.perf_counter() - t2:.2f}s")
        return 0
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
