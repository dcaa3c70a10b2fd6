"""earnings_call — Earnings Call Transcripts (Roozen & Lelli 2021), HF ``jlh-ibm/earnings_call``.

Source layout: the hub's auto-converted parquet files of the script-based dataset (revision
``refs/convert/parquet``), config ``transcript-sentiment``: ``transcript-sentiment/{train,test}/*.parquet``, listed
with the hub API (shard names are not hard-coded). Columns ``text``, ``label``, ``company``, ``date``, ``para_no``.
``label`` is a string (``"negative"``/``"positive"``, current script) or a ClassLabel int (0 = negative,
1 = positive, older card metadata); both are accepted. Official train/test split; eval = test, few-shot pool = train.
The ``transcripts.zip`` fallback (a decision, docs/conventions.md#decisions) is not implemented (see README).
"""

from __future__ import annotations

import datetime as _dt
import logging
import re
from collections import Counter
from pathlib import Path

from lm_eval_enterprise.data import (
    HF_CONVERTED_REVISION,
    DataError,
    HFParquetSource,
    require_text,
    unverified,
)

log = logging.getLogger("lm_eval_enterprise.earnings_call")

HF_REPO = "jlh-ibm/earnings_call"
CONFIG = "transcript-sentiment"
COLUMNS = ("text", "label", "company", "date", "para_no")
LABELS = ("positive", "negative")
CLASS_LABEL_NAMES = ("negative", "positive")  # ClassLabel order of the card metadata: 0 = negative, 1 = positive
_ISO_DATE = re.compile(r"^(\d{4}-\d{2}-\d{2})(?:[ T]00:00(?::00(?:\.0+)?)?)?$")


def iso_date(value, where: str) -> str:
    """The call date as ``YYYY-MM-DD`` (parquet ``date32``/``date64`` → ``datetime.date``; midnight timestamps
    and ISO strings are accepted too)."""
    if isinstance(value, _dt.datetime):
        if value.time() != _dt.time(0, 0):
            raise DataError("earnings_call", where, f"date {value!r} has a time of day; expected a calendar date")
        return value.date().isoformat()
    if isinstance(value, _dt.date):
        return value.isoformat()
    m = _ISO_DATE.match(str(value).strip())
    if m:
        return m.group(1)
    raise DataError("earnings_call", where, f"date {value!r} is not a calendar date")


def label_name(value, where: str, class_names=CLASS_LABEL_NAMES) -> str:
    """``"positive"``/``"negative"`` from a string label or a ClassLabel int (``class_names[int]``)."""
    if isinstance(value, bool):
        raise DataError("earnings_call", where, f"label {value!r} is neither a class name nor a class index")
    if isinstance(value, int):
        if not 0 <= value < len(class_names):
            raise DataError("earnings_call", where, f"label index {value} outside {list(class_names)}")
        value = class_names[value]
    name = str(value).strip().lower()
    if name not in LABELS:
        raise DataError("earnings_call", where, f"label {value!r} is not one of {list(LABELS)}")
    return name


def to_record(row: dict, where: str, class_names=CLASS_LABEL_NAMES) -> dict:
    """One source row → ``{id: f"{company}_{date}_{para_no}", text, label}`` (date as YYYY-MM-DD)."""
    try:
        company, para_no, text = str(row["company"]).strip(), int(row["para_no"]), row["text"]
    except (KeyError, TypeError, ValueError) as exc:
        raise DataError("earnings_call", where, f"bad row ({type(exc).__name__}: {exc})") from exc
    require_text(text, "earnings_call", where, f"empty text in paragraph {company} {para_no}")
    date = iso_date(row["date"], where)
    return {"id": f"{company}_{date}_{para_no}", "text": text, "label": label_name(row["label"], where, class_names)}


def _warn_duplicate_ids(records: list[dict], split: str) -> None:
    dup = [k for k, n in Counter(r["id"] for r in records).items() if n > 1]
    if dup:
        log.warning("[earnings_call] %s: %d duplicate ids (e.g. %s); scores are unaffected", split, len(dup), dup[0])


class EarningsCall(HFParquetSource):
    id = "earnings_call"
    domain = "finance"
    task_type = "classification_weighted"
    hf_repo = HF_REPO
    hf_revision = HF_CONVERTED_REVISION
    hf_prefix = CONFIG
    hf_splits = ("train", "test")
    expected_rows = {
        "train": unverified(6851, "split size stated by the hub card; genuine parquet not counted"),
        "test": unverified(1693, "split size stated by the hub card; genuine parquet not counted"),
    }
    labels = LABELS

    def convert(self, raw_dir: Path) -> dict[str, list[dict]]:
        out = {}
        for split in self.hf_splits:
            out[split] = self.parquet_records(
                raw_dir, split, to_record, COLUMNS, class_label="label", class_names=CLASS_LABEL_NAMES
            )
            _warn_duplicate_ids(out[split], split)
        return out

    def convert_presplit(self, rows: dict[str, list[dict]], data_dir: Path) -> dict[str, list[dict]]:
        """``train.jsonl``/``test.jsonl`` holding the source rows (same columns, e.g. exported with ``datasets``)."""
        return self.map_presplit(rows, data_dir, to_record)


SOURCE = EarningsCall()
