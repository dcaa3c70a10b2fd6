#!/usr/bin/env python
"""Harness overhead per document of our tasks vs a minimal local-JSONL task with no hooks (goal ≤ 1.2×).

Both tasks are run in the same process through ``lm_eval.simple_evaluate`` with a zero-cost model (an ``LM``
subclass that answers every request with a constant string instantly), so the wall time is pure harness
overhead: task building, data loading, prompt/request construction, filters, ``process_results`` and
aggregation.

* ours:    ``ent_gold_news__t1`` (custom_dataset loader + [BAL] fewshot split, AnswerFilter ([PARSE]
           reading + format adherence), ``hooks.classification_weighted_helm``, corpus-level weighted F1 via
           scikit-learn);
* minimal: a task written to a temp folder with ``dataset_path: json`` + ``data_files`` holding the SAME eval docs
           and the same few-shot pool in the same order, the same description/prompt/target/generation settings,
           ``exact_match`` only, no filters and no custom hooks.

The docs come from the embedded gold_news fixture, replicated ``--scale`` times (a temp data root with a
matching MANIFEST.json) so that per-document costs are not drowned by fixed costs; two scales are run so the
marginal cost per document (slope between them) is reported next to the total time per document. Our loader's
in-process caches are cleared before each run (a CLI run is a fresh process); the minimal task keeps the HF
``datasets`` on-disk cache, as it would across CLI runs. Runs alternate between the two tasks.

If the ratio exceeds the goal, both runs are profiled with cProfile and the top functions are printed.

Usage: ``.venv/bin/python scripts/bench_overhead.py [--reps 5] [--scale 20] [--small-scale 2] [--profile]``
Not part of the test suite (a benchmark, not a timed test).
"""

from __future__ import annotations

import argparse
import cProfile
import csv
import io
import json
import logging
import os
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path

for _v in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"):
    os.environ.setdefault(_v, "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("TQDM_DISABLE", "1")

import lm_eval  # noqa: E402
from lm_eval.api.model import LM  # noqa: E402
from lm_eval.tasks import TaskManager  # noqa: E402
from lm_eval.tasks._yaml_loader import load_yaml  # noqa: E402

from lm_eval_enterprise import TASK_DIR  # noqa: E402
from lm_eval_enterprise import data as D  # noqa: E402

DATASET, SUBTASK = "gold_news", "direction_up"
OUR_TASK = "ent_gold_news__t1"
MIN_TASK = "bench_minimal_jsonl"
GOAL = 1.2


class ConstLM(LM):
    """Zero-cost model: a constant answer for every request, no work at all."""

    def generate_until(self, requests, disable_tqdm: bool = False):
        return [" Yes"] * len(requests)

    def loglikelihood(self, requests, disable_tqdm: bool = False):
        return [(-1.0, False)] * len(requests)

    def loglikelihood_rolling(self, requests, disable_tqdm: bool = False):
        return [-1.0] * len(requests)


def scaled_data_root(dst: Path, scale: int) -> Path:
    """gold_news fixture CSV with every row repeated ``scale`` times (+ a MANIFEST with the HELM 10 % split)."""
    src = D.fixture_dir(DATASET) / "finalDataset_0208.csv"
    with open(src, newline="", encoding="utf-8-sig") as f:
        reader = csv.DictReader(f)
        fields, rows = reader.fieldnames, list(reader)
    out_rows = [{**r, "News": f"{r['News']} (copy {k})"} for k in range(scale) for r in rows]
    d = dst / DATASET
    d.mkdir(parents=True, exist_ok=True)
    with open(d / src.name, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        w.writerows(out_rows)
    n = len(out_rows)
    (d / D.MANIFEST).write_text(
        json.dumps(
            {
                "dataset": DATASET,
                "note": "bench copy",
                "tolerance": 0,
                "expected_rows": {"train": n // 10, "test": n - n // 10},
            }
        )
    )
    return dst


def minimal_task_dir(dst: Path, data_root: Path) -> tuple[Path, int]:
    """Write the minimal task (same docs, same prompt) into ``dst``; returns (folder, number of eval docs)."""
    recs = D.load_records(DATASET, SUBTASK, data_root=str(data_root))
    for split in ("test", "fewshot"):
        with open(dst / f"{split}.jsonl", "w", encoding="utf-8") as f:
            for r in recs[split]:
                f.write(json.dumps({"text": r["text"], "label": r["label"]}) + "\n")
    ours = load_yaml(next(Path(TASK_DIR).glob(f"*/{DATASET}/{OUR_TASK}.yaml")), resolve_func=False)
    cfg = {
        "task": MIN_TASK,
        "dataset_path": "json",
        "dataset_kwargs": {"data_files": {"test": str(dst / "test.jsonl"), "fewshot": str(dst / "fewshot.jsonl")}},
        "test_split": "test",
        "fewshot_split": "fewshot",
        "fewshot_config": {"sampler": "first_n"},
        "num_fewshot": ours["num_fewshot"],
        "description": ours.get("description", ""),
        "doc_to_text": ours["doc_to_text"],
        "doc_to_target": ours["doc_to_target"],
        "target_delimiter": ours["target_delimiter"],
        "fewshot_delimiter": ours["fewshot_delimiter"],
        "output_type": "generate_until",
        "generation_kwargs": ours["generation_kwargs"],
        "metric_list": [{"metric": "exact_match", "aggregation": "mean", "higher_is_better": True}],
        "metadata": {"version": 1.0},
    }
    import yaml

    (dst / f"{MIN_TASK}.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False, allow_unicode=True))
    return dst, len(recs["test"])


def clear_our_caches() -> None:
    D.clear_caches()


def run_once(task: str, tm: TaskManager, log_samples: bool = False) -> tuple[float, float, dict]:
    """(wall s, CPU s of this process, results) of one simple_evaluate run."""
    if task == OUR_TASK:
        clear_our_caches()
    t0, c0 = time.perf_counter(), time.process_time()
    res = lm_eval.simple_evaluate(model=ConstLM(), tasks=[task], task_manager=tm, log_samples=log_samples)
    return time.perf_counter() - t0, time.process_time() - c0, res


def check_same_prompts(tm_ours: TaskManager, tm_min: TaskManager) -> None:
    """Sanity check: both tasks build identical prompts for the first docs."""
    *_, a = run_once(OUR_TASK, tm_ours, log_samples=True)
    *_, b = run_once(MIN_TASK, tm_min, log_samples=True)
    pa = [s["arguments"][0][0] for s in sorted(a["samples"][OUR_TASK], key=lambda s: s["doc_id"])[:5]]
    pb = [s["arguments"][0][0] for s in sorted(b["samples"][MIN_TASK], key=lambda s: s["doc_id"])[:5]]
    if pa != pb:
        raise SystemExit("bench_overhead: the two tasks do not build the same prompts; the comparison is invalid")


def measure(scale: int, reps: int, tmp: Path) -> dict:
    root = scaled_data_root(tmp / f"data_x{scale}", scale)
    mdir = tmp / f"minimal_x{scale}"
    mdir.mkdir()
    _, n_docs = minimal_task_dir(mdir, root)
    tm_ours = TaskManager(include_path=TASK_DIR, include_defaults=False, metadata={"data_root": str(root)})
    tm_min = TaskManager(include_path=str(mdir), include_defaults=False)
    check_same_prompts(tm_ours, tm_min)  # also the warm-up of both (imports, HF json cache)
    times = {OUR_TASK: [], MIN_TASK: []}
    cpu = {OUR_TASK: [], MIN_TASK: []}
    for _ in range(reps):
        for task, tm in ((OUR_TASK, tm_ours), (MIN_TASK, tm_min)):
            dt, dc, res = run_once(task, tm)
            n = res["n-samples"][task]["effective"]
            if n != n_docs:
                raise SystemExit(f"{task}: {n} docs evaluated, expected {n_docs}")
            times[task].append(dt)
            cpu[task].append(dc)
    return {
        "scale": scale,
        "n_docs": n_docs,
        "root": root,
        "tm_ours": tm_ours,
        "tm_min": tm_min,
        "ours": statistics.median(times[OUR_TASK]),
        "min": statistics.median(times[MIN_TASK]),
        "cpu_ours": statistics.median(cpu[OUR_TASK]),
        "cpu_min": statistics.median(cpu[MIN_TASK]),
        "all": times,
    }


def profile(task: str, tm: TaskManager, top: int = 25) -> str:
    if task == OUR_TASK:
        clear_our_caches()
    pr = cProfile.Profile()
    pr.enable()
    lm_eval.simple_evaluate(model=ConstLM(), tasks=[task], task_manager=tm, log_samples=False)
    pr.disable()
    buf = io.StringIO()
    st = pstats.Stats(pr, stream=buf).strip_dirs().sort_stats("cumulative")
    st.print_stats(top)
    buf.write("\n--- by own time ---\n")
    st.sort_stats("tottime").print_stats(top)
    return buf.getvalue()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=5, help="timed runs per task and scale (median reported)")
    ap.add_argument("--scale", type=int, default=20, help="fixture replication factor of the main measurement")
    ap.add_argument("--small-scale", type=int, default=2, help="second scale for the marginal per-doc cost")
    ap.add_argument("--profile", action="store_true", help="profile even when the ratio is within the goal")
    args = ap.parse_args()
    logging.disable(logging.WARNING)  # lm-eval's per-task INFO/WARNING lines would swamp the table

    with tempfile.TemporaryDirectory(prefix="lmee-bench-") as tmp:
        tmp = Path(tmp)
        small = measure(args.small_scale, args.reps, tmp)
        big = measure(args.scale, args.reps, tmp)
        per_doc = {k: big[k] / big["n_docs"] * 1e3 for k in ("ours", "min")}
        dn = big["n_docs"] - small["n_docs"]
        marginal = {k: (big[k] - small[k]) / dn * 1e3 for k in ("ours", "min")}
        ratio_total = per_doc["ours"] / per_doc["min"]
        ratio_marg = marginal["ours"] / marginal["min"] if marginal["min"] > 0 else float("nan")
        fixed = {k: (small[k] - marginal[k] / 1e3 * small["n_docs"]) for k in ("ours", "min")}

        print(
            f"\nHarness overhead per document, zero-cost model, median of {args.reps} runs "
            f"(lm_eval {lm_eval.__version__}, Python {sys.version.split()[0]})"
        )
        print(f"our task: {OUR_TASK}   minimal: local JSONL, same docs/prompt, exact_match, no filters/hooks\n")
        w = 34
        print(f"| {'measure':{w}} | {'ours':>10} | {'minimal':>10} | {'ratio':>6} |")
        print(f"|{'-' * (w + 2)}|{'-' * 12}|{'-' * 12}|{'-' * 8}|")
        for sc in (small, big):
            label = f"total s, {sc['n_docs']} docs (x{sc['scale']})"
            print(f"| {label:{w}} | {sc['ours']:10.3f} | {sc['min']:10.3f} | {sc['ours'] / sc['min']:6.2f} |")
        label = f"ms per doc (total / {big['n_docs']})"
        print(f"| {label:{w}} | {per_doc['ours']:10.3f} | {per_doc['min']:10.3f} | {ratio_total:6.2f} |")
        cpu_doc = {k: big[f"cpu_{k}"] / big["n_docs"] * 1e3 for k in ("ours", "min")}
        print(
            f"| {'CPU ms per doc (total / docs)':{w}} | {cpu_doc['ours']:10.3f} | {cpu_doc['min']:10.3f} | "
            f"{cpu_doc['ours'] / cpu_doc['min']:6.2f} |"
        )
        print(
            f"| {'ms per doc (marginal, slope)':{w}} | {marginal['ours']:10.3f} | {marginal['min']:10.3f} | "
            f"{ratio_marg:6.2f} |"
        )
        print(
            f"| {'fixed cost per run, s (intercept)':{w}} | {fixed['ours']:10.3f} | {fixed['min']:10.3f} | "
            f"{fixed['ours'] / fixed['min'] if fixed['min'] > 0 else float('nan'):6.2f} |"
        )
        verdict = "within" if ratio_total <= GOAL else "ABOVE"
        print(
            f"\nper-doc ratio (total/docs) {ratio_total:.2f}x: {verdict} the goal of {GOAL}x "
            f"(marginal per-doc ratio {ratio_marg:.2f}x)"
        )
        print("raw times (s): " + json.dumps({k: [round(t, 3) for t in v] for k, v in big["all"].items()}))

        if ratio_total > GOAL or args.profile:
            print(f"\n=== cProfile: {OUR_TASK} ({big['n_docs']} docs) ===")
            print(profile(OUR_TASK, big["tm_ours"]))
            print(f"\n=== cProfile: {MIN_TASK} ({big['n_docs']} docs) ===")
            print(profile(MIN_TASK, big["tm_min"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
