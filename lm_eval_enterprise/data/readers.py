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


def read_text_utf8(path: Path, dataset: str, problem: str = "cannot read") -> str:
    """The text of ``path``; bytes that are not UTF-8 are one :class:`DataError` naming ``file:line`` and the
    column (as :func:`read_jsonl_lines` does), a file that cannot be read one ``problem (reason)`` line."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise DataError(dataset, path, f"{problem} ({exc})") from exc
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line_start = raw.rfind(b"\n", 0, exc.start) + 1
        line = raw.count(b"\n", 0, exc.start) + 1
        at = UnicodeDecodeError(exc.encoding, raw[line_start : exc.end], exc.start - line_start, exc.end - line_start,
                                exc.reason)  # fmt: skip
        raise DataError(dataset, f"{path}:{line}", f"not UTF-8 text: {describe_decode_error(at)}") from exc


def read_json(path: Path, dataset: str, problem: str):
    """The parsed JSON file at ``path``; a file that cannot be read or parsed is one :class:`DataError`
    ``problem (reason)`` naming the file (bytes that are not UTF-8: naming the line, :func:`read_text_utf8`)."""
    text = read_text_utf8(path, dataset, problem)
    try:
        return json.loads(text)
    except ValueError as exc:
        raise DataError(dataset, path, f"{problem} ({exc})") from exc
