"""iotspotter — IoT companion-app detection from Google Play descriptions (Jin et al. 2022).

Source layout: ``training_set.txt``, ``validation_set.txt``, ``test_set.txt`` from GitHub ``xinjin95/IoTSpotter``
``data/dataset/`` (raw URLs, pinned commit). JSON lines ``{pkg_name, description, label}``; label ``"1"`` = IoT
app, ``"0"`` = non-IoT (an integer 0/1 is accepted too). Descriptions are the authors' pre-processed text
(lower-cased, stop words removed), used as is.

Mapping: ``{id: pkg_name, text: description, label: "iot" if label == "1" else "non-iot"}``. Official split:
eval = test (965), few-shot pool = training_set; validation (1,058) is converted and counted only. In few-shot
examples the description is cut to its first 150 words ([TRUNC]; README).
"""

from __future__ import annotations

import json
from pathlib import Path

from lm_eval_enterprise.data import DataError, RemoteFile, Source, map_rows, unverified, verified
from lm_eval_enterprise.text import truncate_words

COMMIT = "604fb10e00721212bc32e54ba9d2c7c574edda86"
BASE_URL = f"https://raw.githubusercontent.com/xinjin95/IoTSpotter/{COMMIT}/data/dataset"
SPLIT_FILES = {"train": "training_set.txt", "valid": "validation_set.txt", "test": "test_set.txt"}
IOT, NON_IOT = "iot", "non-iot"
LABELS = (IOT, NON_IOT)
FEWSHOT_MAX_WORDS = 150


def label_name(value, where: str) -> str:
    """Source label → name: ``"1"``/``1`` → ``iot``, ``"0"``/``0`` → ``non-iot``; anything else is an error."""
    v = str(value).strip()
    if v == "1":
        return IOT
    if v == "0":
        return NON_IOT
    raise DataError("iotspotter", where, f"label {value!r} is not 0/1")


def to_record(row: dict, where: str) -> dict:
    """One source row → ``{id: pkg_name, text: description, label}`` (the description may be empty)."""
    try:
        pkg, desc, raw = row["pkg_name"], row["description"], row["label"]
    except (KeyError, TypeError) as exc:
        raise DataError("iotspotter", where, f"row without {exc} (expected pkg_name, description, label)") from exc
    if not isinstance(pkg, str) or not pkg or not isinstance(desc, str):
        raise DataError("iotspotter", where, "pkg_name/description is not a string")
    return {"id": pkg, "text": desc, "label": label_name(raw, where)}


def read_json_lines(path: Path) -> list[tuple[dict, str]]:
    """(row, "file:line") of a JSON-lines file; a bad line is one :class:`DataError` naming file and line."""
    out = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError("iotspotter", path, f"cannot read ({exc})") from exc
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            out.append((json.loads(line), f"{path}:{n}"))
        except json.JSONDecodeError as exc:
            raise DataError("iotspotter", f"{path}:{n}", f"invalid JSON line ({exc.msg})") from exc
    return out


class IoTSpotter(Source):
    id = "iotspotter"
    domain = "cyber"
    task_type = "classification_binary"
    files = tuple(RemoteFile(name, f"{BASE_URL}/{name}") for name in SPLIT_FILES.values())
    expected_rows = {
        "train": unverified(None, "training_set.txt: no published size, not counted"),
        "valid": verified(1058, "counted on the genuine validation_set.txt (500 iot / 558 non-iot)"),
        "test": verified(965, "counted on the genuine test_set.txt (414 iot / 551 non-iot)"),
    }
    labels = LABELS
    positive_label = IOT

    def convert(self, raw_dir: Path) -> dict[str, list[dict]]:
        return {
            split: [to_record(row, where) for row, where in read_json_lines(raw_dir / name)]
            for split, name in SPLIT_FILES.items()
        }

    def convert_presplit(self, rows: dict[str, list[dict]], data_dir: Path) -> dict[str, list[dict]]:
        """Rows already split. The shared sample overwrote ``label`` with the name and keeps the source 0/1 in
        ``label_id``: that value goes through the same :func:`to_record` code."""

        def row(split: str):
            def fn(r: dict) -> dict:
                src = {**r, "label": r["label_id"]} if "label_id" in r else r
                return to_record(src, f"{data_dir}/{split}.jsonl: {r.get('pkg_name')}")

            return fn

        return {split: map_rows(rs, row(split), self.id, split) for split, rs in rows.items()}

    def fewshot_transform(self, record: dict) -> dict:
        return {**record, "text": truncate_words(record["text"], FEWSHOT_MAX_WORDS)}


SOURCE = IoTSpotter()
