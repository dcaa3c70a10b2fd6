"""Readers of the pre-split layout's JSON-lines files (and any JSONL a Source reads): one error line per bad line."""

from __future__ import annotations

import json
from pathlib import Path

from ..errors import DataError
from .checks import describe_decode_error


def read_jsonl_lines(path: Path, dataset: str) -> tuple[list[dict], list[int]]:
    """Rows of a JSON-lines file and the 1-based line number of each (blank lines skipped). A line that is not
    UTF-8 or not JSON is one :class:`DataError` naming ``file:line``."""
    rows, lines = [], []
    with open(path, "rb") as f:
        for n, raw in enumerate(f, 1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise DataError(dataset, f"{path}:{n}", f"not UTF-8 text: {describe_decode_error(exc)}") from exc
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError as exc:
                    raise DataError(dataset, f"{path}:{n}", f"invalid JSON line ({exc.msg})") from exc
                lines.append(n)
    return rows, lines


def read_jsonl(path: Path, dataset: str) -> list[dict]:
    return read_jsonl_lines(path, dataset)[0]


def read_json(path: Path, dataset: str, problem: str):
    """The parsed JSON file at ``path``; a file that cannot be read or parsed is one :class:`DataError`
    ``problem (reason)`` naming the file."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise DataError(dataset, path, f"{problem} ({exc})") from exc
