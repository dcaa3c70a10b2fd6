#!/usr/bin/env python
"""Regenerate every task YAML from the dataset folders' templates.py (``make tasks``).

``--check`` writes nothing and exits 1 listing the files that differ (used by the test suite).
"""

import argparse
import sys
from pathlib import Path

from lm_eval_enterprise import task_dir
from lm_eval_enterprise.templating import generate


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--check", action="store_true", help="only report files that are out of date")
    args = ap.parse_args()
    root = Path(task_dir())
    files = generate(root, write=not args.check)
    if args.check:
        stale = [str(p) for p, text in files.items() if not p.exists() or p.read_text() != text]
        for p in stale:
            print(f"out of date: {p}")
        return 1 if stale else 0
    print(f"wrote {len(files)} files under {root}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
