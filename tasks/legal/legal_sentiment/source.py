"""legal_sentiment — legal opinion sentiment (Ratnayaka et al. 2020), HELM ``legal_opinion_sentiment_classification``.

Source layout: the two OSF files HELM downloads, saved under HELM's names:

* ``train.xlsx`` ← ``https://osf.io/download/hfn62/`` — columns ``Phrase``, ``Label``;
* ``test.xlsx``  ← ``https://osf.io/download/q4adh/`` — columns ``sentence``, ``label``.

Each is read with pandas + openpyxl (first sheet, as HELM's ``pd.read_excel``). Label index → name exactly as HELM:
``["positive", "negative", "neutral"][int(label)]`` (0→positive, 1→negative, 2→neutral). Records
``{id: row index (str), text, label}``; official split, eval = test, few-shot pool = train. The spec states no row
counts (DECISION: use as shipped and log them): the counts are logged and recorded in the task metadata
(``source_rows``); a ``MANIFEST.json`` in the data folder, when present, is checked exactly.
"""
from __future__ import annotations

import math
from pathlib import Path

from lm_eval_enterprise.data import DataError, RemoteFile, Source
from lm_eval_enterprise.datacheck import unverified, verified

# HELM SENTIMENT_CLASSES: the index order of the source files (NOT the label order of the metric)
INDEX_TO_LABEL = ("positive", "negative", "neutral")
LABELS = ("positive", "neutral", "negative")  # [WF1] label list of the spec
COLUMNS = {"train": ("Phrase", "Label"), "test": ("sentence", "label")}  # HELM's per-split column names
FILES = {"train": "train.xlsx", "test": "test.xlsx"}
URLS = {"train": "https://osf.io/download/hfn62/", "test": "https://osf.io/download/q4adh/"}


def _blank(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value)) or \
        (isinstance(value, str) and not value.strip())


def label_name(value) -> str:
    """HELM: ``SENTIMENT_CLASSES[int(label)]``; accepts 0/1/2 as int, float (``2.0``) or digit string."""
    if isinstance(value, bool):
        raise ValueError(f"label {value!r} is not an index")
    if isinstance(value, float):
        if not value.is_integer():
            raise ValueError(f"label {value!r} is not an integer index")
        value = int(value)
    try:
        idx = int(str(value).strip()) if isinstance(value, str) else int(value)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"label {value!r} is not an integer index") from exc
    if not 0 <= idx < len(INDEX_TO_LABEL):
        raise ValueError(f"label index {idx} outside 0..{len(INDEX_TO_LABEL) - 1}")
    return INDEX_TO_LABEL[idx]


def to_record(index: int, text, label, where: str) -> dict | None:
    """One spreadsheet row → ``{id, text, label}``; a fully empty row (Excel padding) → None (dropped)."""
    if _blank(text) and _blank(label):
        return None
    if _blank(text):
        raise DataError("legal_sentiment", where, f"row {index}: empty text")
    try:
        name = label_name(label)
    except ValueError as exc:
        raise DataError("legal_sentiment", where, f"row {index}: {exc}") from exc
    return {"id": str(index), "text": str(text), "label": name}


def read_sheet(path: Path, split: str) -> list[dict]:
    """Rows of one xlsx file (HELM ``pd.read_excel`` then ``itertuples``) → records, in file order."""
    import pandas as pd

    text_col, label_col = COLUMNS[split]
    try:
        df = pd.read_excel(path, engine="openpyxl")
    except Exception as exc:  # zipfile.BadZipFile, KeyError, ValueError from openpyxl: not a readable workbook
        raise DataError("legal_sentiment", path, f"not a readable xlsx file ({type(exc).__name__})") from exc
    missing = [c for c in (text_col, label_col) if c not in df.columns]
    if missing:
        raise DataError("legal_sentiment", path, f"missing columns {missing} (has {[str(c) for c in df.columns]})")
    out = []
    for i, (text, label) in enumerate(zip(df[text_col].tolist(), df[label_col].tolist())):
        rec = to_record(i, text, label, str(path))
        if rec is not None:
            out.append(rec)
    if not out:
        raise DataError("legal_sentiment", path, "no rows")
    return out


class LegalSentiment(Source):
    id = "legal_sentiment"
    domain = "legal"
    task_type = "classification"
    files = tuple(RemoteFile(FILES[s], URLS[s]) for s in ("train", "test"))
    expected_rows = {  # train: Label counts 282/122/172 read off the genuine train.xlsx; test: nothing published
        "train": verified(576, "Label counts 282/122/172 counted on the genuine train.xlsx"),
        "test": unverified(None, "no published size for test.xlsx")}
    labels = LABELS

    def convert(self, raw_dir: Path) -> dict[str, list[dict]]:
        return {split: read_sheet(raw_dir / name, split) for split, name in FILES.items()}

    def task_metadata(self, splits: dict[str, list[dict]]) -> dict:
        return {"source_rows": {s: len(splits.get(s, [])) for s in FILES}}


SOURCE = LegalSentiment()
