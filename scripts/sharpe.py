#!/usr/bin/env python
"""Sharpe score across instruction templates (thin wrapper of ``lm-eval-enterprise sharpe``; see docs/sharpe.md).

python scripts/sharpe.py OUT_DIR [OUT_DIR ...] [--output_path DIR] [--ddof {0,1}] [--baseline ...] [--bootstrap B] ...
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing

from lm_eval_enterprise.cli.sharpe import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
