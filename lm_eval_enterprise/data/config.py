"""Where data lives and whether downloads are allowed: the environment the rest of the data layer reads.

* ``$LM_EVAL_ENTERPRISE_DATA`` (or a ``data_root`` argument) — a folder holding one sub-folder per dataset id; the
  value :data:`EMBEDDED` selects the fixture data embedded in each dataset folder instead;
* ``$LM_EVAL_ENTERPRISE_CACHE`` — the download cache (default ``$XDG_CACHE_HOME/lm-eval-enterprise/data``, i.e.
  ``~/.cache/lm-eval-enterprise/data``), which also holds the file-hash cache and the converted-split cache;
* any of :data:`OFFLINE_VARS` set to 1/true/yes — nothing is downloaded.
"""

from __future__ import annotations

import os
from pathlib import Path

ENV_DATA = "LM_EVAL_ENTERPRISE_DATA"
ENV_CACHE = "LM_EVAL_ENTERPRISE_CACHE"
EMBEDDED = "embedded"  # data_root / $LM_EVAL_ENTERPRISE_DATA value selecting the embedded fixture data
OFFLINE_VARS = ("HF_DATASETS_OFFLINE", "HF_HUB_OFFLINE", "LM_EVAL_ENTERPRISE_OFFLINE")


def _truthy(value: str | None) -> bool:
    return (value or "").lower() in ("1", "true", "yes")


def offline_flags() -> list[str]:
    """The offline variables that are set (empty: downloads allowed)."""
    return [v for v in OFFLINE_VARS if _truthy(os.environ.get(v))]


def is_offline() -> bool:
    return bool(offline_flags())


def cache_root() -> Path:
    if os.environ.get(ENV_CACHE):
        return Path(os.environ[ENV_CACHE]).expanduser()
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return base / "lm-eval-enterprise" / "data"
