#!/usr/bin/env python
"""Benchmark of the on-disk cache of converted splits on a synthetic full-size FiNER-139.

Writes ``finer139.zip`` with the published sizes (train 900,384 and test 108,378 sentences, see
``tasks/finance/finer139/source.py``) by cycling through the embedded fixture's sentences with fresh ids, then loads
it in fresh processes (what every lm-eval start does):

* ``off``  — ``LM_EVAL_ENTERPRISE_CONVERTED_CACHE=0``: converted on every start (the behaviour without the cache);
* ``cold`` — cache on, empty: converted and the entry written;
* ``warm`` — cache on, entry present: read back from the cache.

    .venv/bin/python scripts/bench_converted_cache.py [--scale 1.0] [--work DIR] [--repeat 1]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

SIZES = {"train": 900_384, "validation": 112_494, "test": 108_378}

LOAD = """
import sys, time
from pathlib import Path
t = time.perf_counter()
from lm_eval_enterprise import data as D
splits, report = D.convert_folder(D.get_source("finer139"), Path(sys.argv[1]))
print(time.perf_counter() - t, sum(len(v) for v in splits.values()))
"""


def write_full_size(out: Path, scale: float) -> dict[str, int]:
    from lm_eval_enterprise.data import fixture_dir

    fixture = fixture_dir("finer139")
    out.mkdir(parents=True, exist_ok=True)
    counts = {}
    with (
        zipfile.ZipFile(fixture / "finer139.zip") as src,
        zipfile.ZipFile(out / "finer139.zip", "w", zipfile.ZIP_DEFLATED) as dst,
    ):
        for split, n in SIZES.items():
            rows = [json.loads(line) for line in src.read(f"{split}.jsonl").decode().splitlines() if line.strip()]
            n = max(len(rows), int(n * scale))
            counts[split] = n
            with dst.open(f"{split}.jsonl", "w") as f:
                for i in range(n):
                    row = dict(rows[i % len(rows)], id=i)
                    f.write((json.dumps(row) + "\n").encode())
    infos = json.loads((fixture / "dataset_infos.json").read_text())
    for split, n in counts.items():  # the published sizes, which the loader checks the archive against
        infos["finer-139"]["splits"][split]["num_examples"] = n
    (out / "dataset_infos.json").write_text(json.dumps(infos))
    return counts


def timed_load(folder: Path, cache: Path, enabled: bool) -> tuple[float, float, int]:
    """Wall time of a fresh process importing the package and loading the folder; also the time inside."""
    env = dict(
        os.environ, LM_EVAL_ENTERPRISE_CACHE=str(cache), LM_EVAL_ENTERPRISE_CONVERTED_CACHE="1" if enabled else "0"
    )
    t = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", LOAD, str(folder)], env=env, check=True, capture_output=True, text=True
    ).stdout.split()
    return time.perf_counter() - t, float(out[0]), int(out[1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=float, default=1.0, help="share of the published sizes (default 1.0)")
    ap.add_argument("--work", type=Path, default=None, help="work folder (default: a temporary one, removed)")
    ap.add_argument("--repeat", type=int, default=1, help="runs of each case (the best is reported)")
    args = ap.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="bench-converted-"))
    try:
        folder, cache = work / "finer139", work / "cache"
        t = time.perf_counter()
        counts = write_full_size(folder, args.scale)
        size = (folder / "finer139.zip").stat().st_size
        print(
            f"wrote {folder}/finer139.zip: {counts} sentences, {size / 1e6:.1f} MB in {time.perf_counter() - t:.1f} s"
        )
        results = {}
        for case, enabled in (("off", False), ("cold", True), ("warm", True)):
            runs = []
            for _ in range(args.repeat):
                if case == "cold":
                    shutil.rmtree(cache, ignore_errors=True)
                runs.append(timed_load(folder, cache, enabled))
            wall, inside, n = min(runs)
            results[case] = wall
            print(f"{case:5s} wall {wall:7.2f} s (load {inside:7.2f} s), {n:,} records served")
        entry = sorted((cache / ".converted").glob("*.pickle"))
        print(f"cache entry: {entry[0].stat().st_size / 1e6:.1f} MB" if entry else "no cache entry")
        print(f"warm / off = {results['warm'] / results['off']:.3f}")
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
