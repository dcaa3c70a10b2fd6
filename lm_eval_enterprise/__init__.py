"""lm-eval-enterprise: enterprise benchmark tasks for lm-evaluation-harness 0.4.x.

The YAML task tree is the subpackage :mod:`lm_eval_enterprise.tasks` (``tasks/`` in a checkout). Pass
:data:`TASK_DIR` to lm-eval as ``--include_path`` or use the ``lm-eval-enterprise`` CLI, which does it for you.
"""

from __future__ import annotations

import importlib
import os

__version__ = "0.1.0"

PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def task_dir() -> str:
    """Folder holding the task YAMLs (works for a checkout, an editable install and a wheel)."""
    return os.path.dirname(importlib.import_module("lm_eval_enterprise.tasks").__file__)


TASK_DIR = task_dir()
