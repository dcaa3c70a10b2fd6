#!/usr/bin/env python
"""Regenerate every task YAML from the dataset folders' templates.py (``make tasks``).

``--check`` writes nothing and exits 1 listing the files that differ (used by the test suite).
``--root DIR`` generates a task root outside the package (your own dataset folders ``DIR/<domain>/<id>/``,
docs/adding.md): only their dataset files, no domain or ``enterprise`` groups.
"""

import argparse
import sys
from pathlib import Path

from lm_eval_enterprise import task_dir
from lm_eval_enterprise.prompting.templating import generate


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--check", action="store_true", help="only report files that are out of date")
    ap.add_argument("--root", type=Path, help="a task root outside the package (default: the package's task tree)")
    args = ap.parse_args(argv)
    root = Path(task_dir()) if args.root is None else args.root
    if args.root is not None and not any(root.glob("*/*/templates.py")):
        ap.error(f"--root {root}: no dataset folder <domain>/<id>/templates.py in it")
    files = generate(root, write=not args.check, groups=args.root is None)
    if args.check:
        stale = [str(p) for p, text in files.items() if not p.exists() or p.read_text() != text]
        for p in stale:
            print(f"out of date: {p}")
        return 1 if stale else 0
    print(f"wrote {len(files)} files under {root}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
