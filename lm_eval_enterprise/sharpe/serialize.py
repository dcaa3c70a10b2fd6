"""The JSON form of the aggregation result (``aggregate.json``): valid JSON without NaN/inf, private fields
dropped. Shared by every writer (no writer imports another)."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np

PRIVATE = ("_per_doc", "_scores_bt")


def clean(obj: Any) -> Any:
    """JSON-ready copy: private fields dropped, numpy scalars converted, non-finite floats → None (the Sharpe
    status fields say why)."""
    if isinstance(obj, dict):
        return {str(k): clean(v) for k, v in obj.items() if k not in PRIVATE}
    if isinstance(obj, (list, tuple)):
        return [clean(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return clean(obj.tolist())
    if isinstance(obj, (np.floating, float)):
        v = float(obj)
        return v if math.isfinite(v) else None
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.bool_):
        return bool(obj)
    return obj


def to_json(result: dict) -> str:
    return json.dumps(clean(result), indent=1, allow_nan=False, ensure_ascii=False)
