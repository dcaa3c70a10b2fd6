#!/usr/bin/env python
"""CLI time to first request for the whole ``enterprise`` group (goal ≤ 3 s).

Measures, in a fresh subprocess, the wall time from process start of

    lm-eval-enterprise run --model lmee-first-request --tasks enterprise --data-root <embedded fixtures>

until the model receives its first request. ``lmee-first-request`` is a tiny ``LM`` registered with lm-eval's
model registry by a plugin module in a temp folder: a ``sitecustomize.py`` on ``PYTHONPATH`` registers it as
a lazy placeholder (``model_registry.register(name, target="module:Class")`` — importing only
``lm_eval.api.registry``, which the CLI imports anyway), and the class records ``time.time()`` when it is
constructed and at its first request, writes both to a JSON file and ends the process (``os._exit(0)``).
Everything the real console script does before the first request is inside the measurement: interpreter
start, imports, argument parsing, task indexing, task/data loading of every variant and building every request.

Prints the median of ``--runs`` runs (default 3), the split at model construction, the child's CPU time (user +
sys, which exits right at the first request; less sensitive to a busy machine than wall time), and the ratio of
the wall time to the goal.
``--full-pass`` also times a whole dummy-model pass over ``--tasks`` (wall and CPU time to exit) of our CLI and of plain
``lm_eval --include_path <task folder>`` (which also indexes lm-eval's ~10k built-in YAMLs), and prints their ratio.
``--template-cache`` is an experiment: it also memoises lm-eval's Jinja template compilation in the subprocess
(lm-eval 0.4.13 recompiles every template for every document and shot), to measure what that fix would save.
Usage: ``.venv/bin/python scripts/bench_startup.py [--runs 3] [--tasks enterprise] [--data-root DIR]
[--full-pass] [--template-cache]``
Not part of the test suite (a benchmark, not a timed test).
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
import textwrap
import time
from pathlib import Path

GOAL_S = 3.0
MODEL = "lmee-first-request"
PLUGIN = "lmee_bench_first_request"

PLUGIN_SRC = '''
"""Benchmark model: records the time of its construction and of its first request, then ends the process."""
import json
import os
import time

from lm_eval.api.model import LM


class FirstRequestLM(LM):
    def __init__(self, *args, **kwargs):
        super().__init__()
        self._t_init = time.time()

    def _first(self, kind, requests):
        t = time.time()
        with open(os.environ["LMEE_BENCH_OUT"], "w") as f:
            json.dump({"t_first": t, "t_init": self._t_init, "kind": kind, "n_requests": len(requests)}, f)
        os._exit(0)

    def generate_until(self, requests, disable_tqdm=False):
        self._first("generate_until", requests)

    def loglikelihood(self, requests, disable_tqdm=False):
        self._first("loglikelihood", requests)

    def loglikelihood_rolling(self, requests, disable_tqdm=False):
        self._first("loglikelihood_rolling", requests)
'''

SITECUSTOMIZE_SRC = f'''
# benchmark only: register the first-request model lazily (no model code imported here)
try:
    from lm_eval.api.registry import model_registry
    model_registry.register("{MODEL}", target="{PLUGIN}:FirstRequestLM")
except Exception as exc:  # never break interpreter start
    import sys
    print(f"bench sitecustomize: {{exc}}", file=sys.stderr)
'''

# --template-cache experiment (NOT project code): lm-eval 0.4.13's utils.apply_template compiles the Jinja
# template on every call (env.from_string, no cache) — once per doc_to_text/doc_to_target of every doc and every
# shot. Memoising the compiled template shows what a fix would save.
TEMPLATE_CACHE_SRC = """
import functools
import lm_eval.utils as _u
_compiled = functools.lru_cache(maxsize=4096)(_u.env.from_string)
def _apply_template(template, doc):
    return _compiled(template).render(**doc)
_u.apply_template = _apply_template
"""


def one_run(exe: Path, plugin_dir: Path, tasks: str, data_root: str, out: Path, cwd: Path) -> dict:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(plugin_dir), os.environ.get("PYTHONPATH")])),
        "LMEE_BENCH_OUT": str(out),
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "TOKENIZERS_PARALLELISM": "false",
    }
    out.unlink(missing_ok=True)
    cmd = [str(exe), "run", "--model", MODEL, "--tasks", tasks, "--data-root", data_root]
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.time()
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
    t_end = time.time()
    ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime)
    if not out.exists():
        raise SystemExit(
            f"bench_startup: the model got no request (exit {proc.returncode}).\nstderr tail:\n{proc.stderr[-3000:]}"
        )
    rec = json.loads(out.read_text())
    return {
        "first": rec["t_first"] - t0,
        "init": rec["t_init"] - t0,
        "exit": t_end - t0,
        "kind": rec["kind"],
        "n_requests": rec["n_requests"],
        "cpu": cpu,
    }


def full_pass(cmd: list[str], env: dict, cwd: Path) -> tuple[float, float]:
    """(wall s, CPU s) of one complete run of ``cmd`` (the dummy model answers at once)."""
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.time()
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=1800)
    wall = time.time() - t0
    ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"bench_startup: {' '.join(cmd)} failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    return wall, (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime)


def compare_full_pass(exe: Path, tasks: str, data_root: str, task_dir: str, runs: int, cwd: Path) -> None:
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "TOKENIZERS_PARALLELISM": "false",
    }
    ours_cmd = [str(exe), "run", "--model", "dummy", "--tasks", tasks, "--data-root", data_root]
    plain_cmd = [
        str(exe.with_name("lm_eval")),
        "--model",
        "dummy",
        "--tasks",
        tasks,
        "--include_path",
        task_dir,
        "--metadata",
        json.dumps({"data_root": data_root}),
    ]
    ours, plain = [], []
    for _ in range(runs):  # interleaved, so both see the same machine load
        ours.append(full_pass(ours_cmd, env, cwd))
        plain.append(full_pass(plain_cmd, env, cwd))
    med = lambda xs, i: statistics.median(x[i] for x in xs)  # noqa: E731
    print(f"\nFull dummy pass over `{tasks}` (median of {runs}):")
    print(f"| {'command':<42} | {'wall, s':>8} | {'CPU, s':>8} |")
    print(f"|{'-' * 44}|{'-' * 10}|{'-' * 10}|")
    print(f"| {'lm-eval-enterprise run':<42} | {med(ours, 0):8.2f} | {med(ours, 1):8.2f} |")
    print(f"| {'lm_eval --include_path <task folder>':<42} | {med(plain, 0):8.2f} | {med(plain, 1):8.2f} |")
    print(
        f"ratio ours / plain lm_eval: wall {med(ours, 0) / med(plain, 0):.2f}x, CPU {med(ours, 1) / med(plain, 1):.2f}x"
    )


def count_variants(task_dir: str) -> int:
    return len(list(Path(task_dir).glob("*/*/*__t*.yaml")))


def main() -> int:
    from lm_eval_enterprise import TASK_DIR

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--tasks", default="enterprise")
    ap.add_argument("--data-root", default="embedded")
    ap.add_argument(
        "--full-pass",
        action="store_true",
        help="also time a whole dummy pass of our CLI and of plain lm_eval, and their ratio",
    )
    ap.add_argument(
        "--template-cache",
        action="store_true",
        help="experiment: also memoise lm-eval's Jinja template compilation in the subprocess",
    )
    args = ap.parse_args()

    exe = Path(sys.executable).with_name("lm-eval-enterprise")
    if not exe.exists():
        raise SystemExit(f"{exe} not found: install the package (pip install -e .)")
    with tempfile.TemporaryDirectory(prefix="lmee-startup-") as tmp:
        tmp = Path(tmp)
        plugin_dir = tmp / "plugin"
        plugin_dir.mkdir()
        (plugin_dir / f"{PLUGIN}.py").write_text(textwrap.dedent(PLUGIN_SRC))
        site = textwrap.dedent(SITECUSTOMIZE_SRC) + (textwrap.dedent(TEMPLATE_CACHE_SRC) if args.template_cache else "")
        (plugin_dir / "sitecustomize.py").write_text(site)
        runs = [
            one_run(exe, plugin_dir, args.tasks, args.data_root, tmp / f"out{i}.json", tmp) for i in range(args.runs)
        ]
        if args.full_pass:
            compare_full_pass(exe, args.tasks, args.data_root, TASK_DIR, args.runs, tmp)

    med_first = statistics.median(r["first"] for r in runs)
    med_init = statistics.median(r["init"] for r in runs)
    print(
        f"\nTime to first request: `lm-eval-enterprise run --model {MODEL} --tasks {args.tasks} "
        f"--data-root {args.data_root}`"
    )
    if args.template_cache:
        print("EXPERIMENT: lm-eval's apply_template patched to memoise compiled Jinja templates")
    print(
        f"({count_variants(TASK_DIR)} task variants on disk; first request: {runs[0]['kind']} batch of "
        f"{runs[0]['n_requests']} requests)\n"
    )
    med_cpu = statistics.median(r["cpu"] for r in runs)
    print(f"| {'run':>3} | {'model constructed, s':>20} | {'first request, s':>16} | {'CPU s until exit':>16} |")
    print(f"|{'-' * 5}|{'-' * 22}|{'-' * 18}|{'-' * 18}|")
    for i, r in enumerate(runs, 1):
        print(f"| {i:>3} | {r['init']:20.2f} | {r['first']:16.2f} | {r['cpu']:16.2f} |")
    print(f"| {'med':>3} | {med_init:20.2f} | {med_first:16.2f} | {med_cpu:16.2f} |")
    verdict = "within" if med_first <= GOAL_S else "ABOVE"
    print(
        f"\nmedian time to first request {med_first:.2f} s = {med_first / GOAL_S:.2f} x the goal of {GOAL_S:.0f} s "
        f"({verdict} the goal); start-up to model construction {med_init:.2f} s, task/data/request building "
        f"{med_first - med_init:.2f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
