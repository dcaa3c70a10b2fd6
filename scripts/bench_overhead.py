#!/usr/bin/env python
"""Harness time of our tasks against plain lm-eval on the identical prompts (goal ≤ 1.0×), as a user runs them.

**The work**: every enterprise dataset of ``--data-root`` with an evaluation split (or ``--datasets``) × every
template of its table, with lm-eval's ``dummy`` model (a constant answer: no model time, so every second is
harness time) and the exact context budget of a tokenizer (``--tokenizer``, default SmolLM2-135M-Instruct's;
``--max-context-tokens``, default its window), each side a fresh process of its command line:

* **ours**: ``lm-eval-enterprise run --model dummy --tasks <the variants> --data_root R --metadata
  {max_context_tokens, context_tokenizer} --output_path O --log_samples`` (with its default answer cache, in a
  fresh folder per run: a model's first run);
* **floor**: plain ``lm_eval run --model dummy --tasks <bare tasks> --include_path B --output_path O --log_samples``
  (lm-eval's own command line, as a user runs it: it also indexes lm-eval's ~10k built-in task YAMLs, which our
  command line skips);
* **floor, own index**: the same command with lm-eval's index restricted to the bare folder (lm-eval's
  ``TaskManager(include_defaults=False)``, as our command line builds it): the stricter floor, reported beside.

The bare tasks are plain lm-eval YAML tasks, one per variant, whose documents are the requests of our first run:
``id``, ``prompt`` (the whole prompt our task built: instruction, budgeted shots, item) and ``target`` as JSON lines
in our order, read with ``doc_to_text: prompt`` (a field name: lm-eval takes it as it is), zero shots, our
generation settings, ``exact_match`` and no filter, hook or task class — lm-eval's own per-request work on the
identical prompts, the floor under any task. The first run of each side runs
with cold caches (our converted-data cache and the ``datasets`` cache live in the bench's temp folder); after it
every request of the floor is checked to be identical to ours, document by document (keyed by document id).

Then ``--reps`` timed rounds of the three, the order rotating from round to round (other work on the machine hits
every side alike). Printed: median and spread (min–max) of wall and CPU time (user + system of the process and its
children) of each side, the ratios of the medians and the medians of the per-round ratios; the cold first runs
apart. ``--profile FILE``
adds one run of ours under cProfile (stats in FILE, the top functions printed).

Usage: ``.venv/bin/python scripts/bench_overhead.py --data-root DIR [--reps 5] [--datasets ID ...]``
(``make bench`` passes ``$LM_EVAL_ENTERPRISE_DATA``). Not part of the test suite (a benchmark, not a timed test).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

GOAL = 1.0
MODEL = "dummy"
BARE_PREFIX = "bare__"
# the floor: lm-eval's own CLI, its task index restricted to --include_path (as our CLI restricts its own)
FLOOR_MAIN = (
    "import sys\n"
    "import lm_eval.tasks.manager as m\n"
    "_init = m.TaskManager.__init__\n"
    "def _own_tasks_only(self, *a, include_defaults=False, **k):\n"
    "    _init(self, *a, include_defaults=include_defaults, **k)\n"
    "m.TaskManager.__init__ = _own_tasks_only\n"
    "from lm_eval.__main__ import cli_evaluate\n"
    "sys.argv = ['lm_eval', *sys.argv[1:]]\n"
    "cli_evaluate()\n"
)


# ============================================================================================ the work
def our_variants(data_root: str, datasets: list[str] | None) -> list[str]:
    """Every variant of the enterprise tables whose dataset loads from ``data_root`` (or of ``datasets``)."""
    from lm_eval_enterprise import TASK_DIR
    from lm_eval_enterprise.data import DataError, load_task_data
    from lm_eval_enterprise.prompting.templating import all_specs

    out = []
    for _, spec in all_specs(Path(TASK_DIR)):
        if spec.suite != "enterprise" or not spec.in_domain_group:
            continue
        if datasets is not None:
            if spec.dataset in datasets:
                out += spec.task_names()
            continue
        if not (Path(data_root) / spec.dataset).is_dir():
            continue
        try:
            load_task_data(dataset_id=spec.dataset, data_root=data_root)
        except DataError as exc:
            print(f"skipped: {exc}", file=sys.stderr)
            continue
        out += spec.task_names()
    return out


def write_bare_tasks(ours: Path, folder: Path) -> dict[str, str]:
    """The bare lm-eval tasks (module docstring) into ``folder``, one per variant of our run whose outputs are in
    ``ours``: its documents in its order as JSON lines of ``id``, ``prompt`` (the request's whole prompt) and
    ``target``, and its generation settings. Returns bare task → variant."""
    import yaml

    owner = {}
    for path in sorted(ours.rglob("samples_*.jsonl")):
        variant = path.name.removeprefix("samples_").rsplit("_", 1)[0]
        lines = sorted((json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()), key=_doc_id)
        gen = [s["arguments"]["gen_args_0"] for s in lines]
        if any(g["arg_1"] != gen[0]["arg_1"] for g in gen):
            raise SystemExit(f"{variant}: requests with different generation settings; not a bare task")
        bare = BARE_PREFIX + variant
        data = folder / f"{bare}.jsonl"
        with open(data, "w", encoding="utf-8") as f:
            for s, g in zip(lines, gen):
                doc = {"id": str(s["doc"].get("id", s["doc_id"])), "prompt": g["arg_0"], "target": str(s["target"])}
                f.write(json.dumps(doc, ensure_ascii=False) + "\n")
        cfg = {
            "task": bare,
            "dataset_path": "json",
            "dataset_kwargs": {"data_files": {"test": str(data)}},
            "test_split": "test",
            "num_fewshot": 0,
            "doc_to_text": "prompt",  # a field name: lm-eval takes the field as it is
            "doc_to_target": "target",
            "output_type": "generate_until",
            "generation_kwargs": gen[0]["arg_1"],
            "metric_list": [{"metric": "exact_match", "aggregation": "mean", "higher_is_better": True}],
            "metadata": {"version": 1.0},
        }
        (folder / f"{bare}.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False, allow_unicode=True))
        owner[bare] = variant
    return owner


def _doc_id(sample: dict) -> int:
    return int(sample["doc_id"])


# ============================================================================================ the runs
def commands(args, variants: list[str], bare: list[str], bare_dir: Path, tmp: Path) -> dict[str, Callable]:
    """side → function(run number) giving the command line of one run of that side."""
    meta = json.dumps({"max_context_tokens": args.max_context_tokens, "context_tokenizer": args.tokenizer})
    exe = Path(sys.executable).parent

    def ours(k: int) -> list[str]:
        return [
            str(exe / "lm-eval-enterprise"), "run", "--model", MODEL, "--tasks", ",".join(variants),
            "--data_root", args.data_root, "--metadata", meta, "--output_path", str(tmp / f"ours{k}"),
            "--log_samples", "--use_cache", str(tmp / f"answers{k}"),
        ]  # fmt: skip

    def floor(k: int) -> list[str]:
        return [
            sys.executable, "-m", "lm_eval", "run", "--model", MODEL, "--tasks", ",".join(bare),
            "--include_path", str(bare_dir), "--output_path", str(tmp / f"floor{k}"), "--log_samples",
        ]  # fmt: skip

    def own_index(k: int) -> list[str]:
        return [
            sys.executable,
            "-c",
            FLOOR_MAIN,
            *floor(k)[3:-3],
            "--output_path",
            str(tmp / f"own{k}"),
            "--log_samples",
        ]

    return {"ours": ours, "floor": floor, "own index": own_index}


def timed(cmd: list[str], env: dict, log: Path) -> tuple[float, float]:
    """(wall s, CPU s of the child) of one command; exits on failure with its log's tail."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    with open(log, "w") as f:
        rc = subprocess.run(cmd, env=env, stdout=f, stderr=subprocess.STDOUT).returncode
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if rc != 0:
        raise SystemExit(f"{cmd[0]} failed (exit {rc}):\n" + "".join(log.read_text().splitlines(True)[-15:]))
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def requests(out: Path, owner: dict[str, str] | None) -> dict[tuple[str, str], str]:
    """(variant, document id) → the request's arguments (JSON) of every sample line under ``out``."""
    got = {}
    for path in out.rglob("samples_*.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            s = json.loads(line)
            task = path.name.removeprefix("samples_").rsplit("_", 1)[0]
            variant = owner[task] if owner is not None else task
            got[(variant, str(s["doc"].get("id", s["doc_id"])))] = json.dumps(s["arguments"], sort_keys=True)
    return got


def check_identical(ours: Path, floor: Path, owner: dict[str, str]) -> int:
    """The number of requests; exits when the two sides built different ones."""
    a, b = requests(ours, None), requests(floor, owner)
    if a.keys() != b.keys():
        raise SystemExit(f"the two sides ran different documents: {len(a.keys() - b.keys())} only ours, "
                         f"{len(b.keys() - a.keys())} only the floor's")  # fmt: skip
    differ = [k for k in a if a[k] != b[k]]
    if differ:
        raise SystemExit(f"{len(differ)} of {len(a)} requests differ (e.g. {differ[0]}): the comparison is invalid")
    return len(a)


def spread(xs: list[float]) -> str:
    return f"{statistics.median(xs):6.2f} ({min(xs):.2f}–{max(xs):.2f})"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-root", default=os.environ.get("LM_EVAL_ENTERPRISE_DATA"), help="genuine data folder")
    ap.add_argument("--datasets", nargs="+", help="dataset ids (default: every enterprise dataset in the data root)")
    ap.add_argument("--reps", type=int, default=5, help="timed runs per side (default 5)")
    ap.add_argument("--tokenizer", help="tokenizer of the exact budget (default: SmolLM2-135M-Instruct's folder)")
    ap.add_argument("--max-context-tokens", type=int, help="the budget (default: the tokenizer's model window)")
    ap.add_argument("--profile", type=Path, help="also profile one run of ours with cProfile into this file")
    args = ap.parse_args(argv)
    if not args.data_root:
        ap.error("--data-root (or $LM_EVAL_ENTERPRISE_DATA): a folder of genuine data")
    for v in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"):
        os.environ.setdefault(v, "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    if args.tokenizer is None:
        from lm_eval_enterprise.harness.models import smollm2_dir

        args.tokenizer = str(smollm2_dir())
    if args.max_context_tokens is None:
        from lm_eval_enterprise.prompting.budget import model_budget

        args.max_context_tokens = model_budget("hf", {"pretrained": args.tokenizer})["max_context_tokens"]

    with tempfile.TemporaryDirectory(prefix="lmee-bench-") as tmp:
        tmp = Path(tmp)
        env = {**os.environ, "LM_EVAL_ENTERPRISE_CACHE": str(tmp / "cache"), "HF_DATASETS_CACHE": str(tmp / "hf")}
        os.environ["LM_EVAL_ENTERPRISE_CACHE"] = str(tmp / "setup-cache")  # the runs' first one stays cold
        variants = our_variants(args.data_root, args.datasets)
        if not variants:
            ap.error(f"no enterprise dataset with an evaluation split in {args.data_root}")
        bare_dir = tmp / "bare"
        bare_dir.mkdir()
        bare = [BARE_PREFIX + v for v in variants]
        cmd = commands(args, variants, bare, bare_dir, tmp)
        cold = {"ours": timed(cmd["ours"](0), env, tmp / "ours0.log")}  # its requests make the bare tasks
        owner = write_bare_tasks(tmp / "ours0", bare_dir)
        if sorted(owner) != sorted(bare):
            raise SystemExit(f"our run logged {len(owner)} of the {len(bare)} variants' samples")
        cold["floor"] = timed(cmd["floor"](0), env, tmp / "floor0.log")
        cold["own index"] = timed(cmd["own index"](0), env, tmp / "own0.log")
        n = check_identical(tmp / "ours0", tmp / "floor0", owner)
        sides = list(cmd)
        times: dict[str, list[tuple[float, float]]] = {side: [] for side in sides}
        for k in range(1, args.reps + 1):
            for side in sides[k % 3 :] + sides[: k % 3]:
                times[side].append(timed(cmd[side](k), env, tmp / f"{side.replace(' ', '_')}{k}.log"))
        report(args, variants, n, cold, times)
        if args.profile:
            timed([sys.executable, "-m", "cProfile", "-o", str(args.profile), *cmd["ours"](99)], env, tmp / "p.log")
            import pstats

            pstats.Stats(str(args.profile)).sort_stats("cumulative").print_stats(30)
    return 0


def report(args, variants: list[str], n: int, cold: dict, times: dict) -> None:
    import lm_eval

    datasets = sorted({v.removeprefix("ent_").rsplit("__", 1)[0] for v in variants})
    wall = {s: [w for w, _ in ts] for s, ts in times.items()}
    cpu = {s: [c for _, c in ts] for s, ts in times.items()}
    print(
        f"\n{len(datasets)} datasets ({', '.join(datasets)}) × their templates = {len(variants)} variants, "
        f"{n:,} requests; model dummy; budget {args.max_context_tokens} tokens of {Path(args.tokenizer).name}; "
        f"lm_eval {lm_eval.__version__}, Python {sys.version.split()[0]}, load average {os.getloadavg()[0]:.1f}\n"
    )
    head = f"seconds, median (min–max) of {len(wall['ours'])} runs"
    print(f"| {head:30} | {'ours':>20} | {'floor: lm_eval':>20} | {'floor: own index':>20} | ratios |")
    print(f"|{'-' * 32}|{'-' * 22}|{'-' * 22}|{'-' * 22}|-------------|")
    for label, d in (("wall", wall), ("CPU (user + system)", cpu)):
        r = [statistics.median(d["ours"]) / statistics.median(d[f]) for f in ("floor", "own index")]
        cells = " | ".join(f"{spread(d[side]):>20}" for side in d)
        print(f"| {label:30} | {cells} | {r[0]:4.2f}, {r[1]:4.2f} |")
    cells = " | ".join(f"{cold[side][0]:20.2f}" for side in wall)
    r = [cold["ours"][0] / cold[f][0] for f in ("floor", "own index")]
    print(f"| {'cold first run, wall':30} | {cells} | {r[0]:4.2f}, {r[1]:4.2f} |")
    for floor in ("floor", "own index"):
        pairs = [o / f for o, f in zip(wall["ours"], wall[floor])]
        ratio = statistics.median(wall["ours"]) / statistics.median(wall[floor])
        print(
            f"wall ratio to {floor if floor != 'floor' else 'plain lm_eval'}: {ratio:.2f}× (median of the per-round "
            f"ratios {statistics.median(pairs):.2f}×, {min(pairs):.2f}–{max(pairs):.2f})"
            + (f": {'within' if ratio <= GOAL else 'ABOVE'} the goal of {GOAL}×" if floor == "floor" else "")
        )


if __name__ == "__main__":
    sys.exit(main())
