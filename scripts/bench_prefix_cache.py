"""What vLLM's prefix caching saves on a 20-shot dataset (vLLM CPU, SmolLM2-135M-Instruct, fp32).

The prompts are the real requests of every template of the dataset (lm-eval builds them; embedded fixture data by
default): within a template all documents share the instruction and the same 20 shots, so most prompt tokens
are a prefix some earlier request already computed. Each setting (``enable_prefix_caching`` off / on) runs in a
fresh process with a fresh engine; the requests are submitted at once, in lm-eval's order (longest first), as
its ``vllm`` backend does. Reported: prompt tokens, prefill wall time (``max_tokens=1``) and, with caching, the
share of prompt tokens served from the cache (vLLM's ``prefix_cache_hits / prefix_cache_queries``).

Usage: ``.venv-vllm/bin/python scripts/bench_prefix_cache.py [--dataset tram] [--limit N] [--repeats 2]``
(``make bench-vllm``). Prints one Markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "1")
os.environ.setdefault("VLLM_ENABLE_V1_MULTIPROCESSING", "0")
os.environ.setdefault("VLLM_LOGGING_LEVEL", "WARNING")
for _k in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"):
    os.environ.setdefault(_k, "1")


def build_prompts(dataset: str, limit: int | None) -> tuple[list[str], int]:
    """Contexts of every generate request of ``ent_<dataset>`` (all templates) and the task's shot count."""
    from lm_eval.tasks import TaskManager

    from lm_eval_enterprise import TASK_DIR
    from lm_eval_enterprise.harness.runner import load_tasks

    tm = TaskManager(include_path=TASK_DIR, include_defaults=False, metadata={"data_root": "embedded"})
    tasks = load_tasks(tm, [f"ent_{dataset}"]).leaves
    prompts, shots = [], 0
    for name in sorted(tasks):
        task = tasks[name]
        task.build_all_requests(limit=limit, rank=0, world_size=1)
        prompts += [inst.args[0] for inst in task.instances]
        shots = task.config.num_fewshot
    return prompts, shots


def worker(model: str, prompts_file: str, caching: bool, repeats: int) -> dict:
    from transformers import AutoTokenizer
    from vllm import LLM, SamplingParams
    from vllm.inputs import TokensPrompt

    prompts = json.load(open(prompts_file))
    tok = AutoTokenizer.from_pretrained(model)
    ids = sorted((tok(p).input_ids for p in prompts), key=lambda t: (-len(t), t))  # lm-eval's Collator order
    llm = LLM(
        model=model,
        dtype="float32",
        enforce_eager=True,
        max_model_len=4096,
        seed=1234,
        enable_prefix_caching=caching,
        disable_log_stats=False,
    )
    params = SamplingParams(temperature=0, max_tokens=1)
    llm.generate([TokensPrompt(prompt_token_ids=[1, 2, 3])], params, use_tqdm=False)  # warm-up, no shared prefix
    times = []
    for _ in range(repeats):
        if caching:
            llm.reset_prefix_cache()  # every repeat starts cold
        before = _cache_counters(llm)
        t0 = time.perf_counter()
        llm.generate([TokensPrompt(prompt_token_ids=t) for t in ids], params, use_tqdm=False)
        times.append(time.perf_counter() - t0)
        after = _cache_counters(llm)
    queries, hits = after[0] - before[0], after[1] - before[1]
    return {
        "seconds": times,
        "prompt_tokens": sum(map(len, ids)),
        "requests": len(ids),
        "hit_rate": hits / queries if queries else 0.0,
    }


def _cache_counters(llm) -> tuple[float, float]:
    values = {m.name: m.value for m in llm.get_metrics() if hasattr(m, "value")}
    return values.get("vllm:prefix_cache_queries", 0.0), values.get("vllm:prefix_cache_hits", 0.0)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", default="tram", help="a 20-shot dataset id (tram, kpi_edgar, credit_risk_ner)")
    ap.add_argument("--limit", type=int, default=None, help="documents per template (default: all)")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--worker", choices=["on", "off"], help=argparse.SUPPRESS)
    ap.add_argument("--prompts", help=argparse.SUPPRESS)
    ap.add_argument("--model", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args.model, args.prompts, args.worker == "on", args.repeats)))
        return 0

    from lm_eval_enterprise.harness.models import smollm2_dir

    model = str(smollm2_dir())
    prompts, shots = build_prompts(args.dataset, args.limit)
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
        json.dump(prompts, fh)
    out = {}
    for setting in ("off", "on"):
        proc = subprocess.run(
            [
                sys.executable,
                __file__,
                "--worker",
                setting,
                "--prompts",
                fh.name,
                "--model",
                model,
                "--repeats",
                str(args.repeats),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode:
            raise SystemExit(f"worker {setting} failed:\n{proc.stderr[-3000:]}")
        out[setting] = json.loads(proc.stdout.strip().splitlines()[-1])
    os.unlink(fh.name)
    off, on = (statistics.median(out[s]["seconds"]) for s in ("off", "on"))
    print(
        f"ent_{args.dataset}: {out['on']['requests']} requests ({shots}-shot, all templates), "
        f"{out['on']['prompt_tokens']} prompt tokens; load average {os.getloadavg()[0]:.1f}\n"
    )
    print("| enable_prefix_caching | prefill wall time (s, median) | prompt tokens from cache |\n|---|---|---|")
    print(f"| False | {off:.1f} | 0 % |")
    print(f"| True | {on:.1f} | {out['on']['hit_rate']:.0%} |")
    print(f"\nsaving: {off / on:.2f}x less prefill time with prefix caching")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
