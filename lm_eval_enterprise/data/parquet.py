"""Parquet files laid out as in a Hugging Face dataset repository, read back from a local data folder.

Datasets published as parquet on the hub (FiQA, FiNER-139, EDTSum, CaseHOLD, ...) and the parquet files the hub
auto-converts from script-based datasets (revision ``refs/convert/parquet``) keep the repository's own relative
paths in the data folder (e.g. ``transcript-sentiment/train/0000.parquet``); shard names are never hard-coded:
:func:`hf_parquet_split` maps a path to its split.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path

from ..errors import DataError

HF_CONVERTED_REVISION = "refs/convert/parquet"
# the three ways a hub repo names a split's parquet shards (see hf_parquet_split); {s} = split
SPLIT_PATTERNS = ("{s}/*.parquet", "{s}-*.parquet", "{s}.parquet")


def hf_parquet_split(path: str, prefix: str = "") -> str | None:
    """Split name of a parquet file of a HF dataset repo, from its repo path (``None``: not under ``prefix``).

    With ``rel`` = the path below ``prefix``: the auto-converted layout ``<split>/0000.parquet`` gives the first
    folder; the ``data/`` layout ``<split>-00000-of-00001[-<hash>].parquet`` gives the name before the shard
    numbers; a bare ``<split>.parquet`` gives its stem.
    """
    prefix = prefix.strip("/")
    if not path.endswith(".parquet"):
        return None
    if prefix:
        if not path.startswith(prefix + "/"):
            return None
        path = path[len(prefix) + 1 :]
    parts = path.split("/")
    if len(parts) > 1:
        return parts[0]
    m = re.match(r"^(.+?)-\d{5}-of-\d{5}(?:-[0-9a-fA-F]+)?\.parquet$", parts[0])
    return m.group(1) if m else parts[0][: -len(".parquet")]


def local_parquet_files(root: Path, prefix: str = "") -> dict[str, list[Path]]:
    """The downloaded layout read back: split → parquet files under ``root/prefix`` (hidden folders skipped)."""
    base = root / prefix.strip("/") if prefix.strip("/") else root
    out: dict[str, list[Path]] = {}
    if not base.is_dir():
        return out
    for p in sorted(base.rglob("*.parquet")):
        rel = p.relative_to(root).as_posix()
        if any(part.startswith(".") for part in rel.split("/")):
            continue
        split = hf_parquet_split(rel, prefix)
        if split is not None:
            out.setdefault(split, []).append(p)
    return out


def read_parquet_rows(paths: Iterable[Path], dataset: str, columns: Iterable[str] | None = None) -> list[dict]:
    """Rows of parquet files (in file order) as dicts; ``columns`` that a file lacks → :class:`DataError`."""
    import pyarrow.parquet as pq

    rows: list[dict] = []
    need = list(columns or ())
    for path in paths:
        try:
            table = pq.read_table(path)
        except Exception as exc:  # ArrowInvalid, OSError: an unreadable or truncated file
            raise DataError(dataset, path, f"not a readable parquet file ({type(exc).__name__})") from exc
        lacking = [c for c in need if c not in table.column_names]
        if lacking:
            raise DataError(dataset, path, f"missing columns {lacking} (has {table.column_names})")
        rows.extend(table.to_pylist())
    return rows


def hf_class_names(path: Path, column: str) -> list[str] | None:
    """ClassLabel names of ``column`` from the ``huggingface`` schema metadata ``datasets`` writes into parquet
    files (``None`` when the file has no such metadata or the column is no ClassLabel)."""
    import pyarrow.parquet as pq

    meta = pq.read_schema(path).metadata or {}
    raw = meta.get(b"huggingface")
    if not raw:
        return None
    try:
        feature = json.loads(raw)["info"]["features"][column]
    except (ValueError, KeyError, TypeError):
        return None
    if isinstance(feature, dict) and feature.get("_type") == "ClassLabel" and feature.get("names"):
        return [str(n) for n in feature["names"]]
    return None
