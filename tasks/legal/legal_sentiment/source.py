"""legal_sentiment — legal opinion sentiment (Ratnayaka et al. 2020), HELM ``legal_opinion_sentiment_classification``.

Source layout: the two OSF files HELM downloads, saved under HELM's names:

* ``train.xlsx`` ← ``https://osf.io/download/hfn62/`` — columns ``Phrase``, ``Label`` and ``Sentiment``;
* ``test.xlsx``  ← ``https://osf.io/download/q4adh/`` — columns ``sentence``, ``label``.

Each is read with pandas + openpyxl (first sheet, as HELM's ``pd.read_excel``). Label index → name as the paper
authors' own code does: **0→negative, 1→neutral, 2→positive** (``INDEX_TO_LABEL``). HELM's
``["positive", "negative", "neutral"][int(label)]`` is a HELM defect and is not followed: the genuine train sheet
carries a ``Sentiment`` column (−1/0/1) that pairs one-to-one with ``Label`` 0/1/2. Wherever a ``Sentiment`` column
exists, every row must satisfy ``Label == Sentiment + 1`` (else one-line :class:`DataError` naming file and row),
so a sheet whose label scale differs is refused instead of silently mislabelled.

Records ``{id: row index (str), text, label}``; official split, eval = test, few-shot pool = train. The spec states
no row counts (DECISION: use as shipped and log them): the counts are logged and recorded in the task metadata
(``source_rows``); a ``MANIFEST.json`` in the data folder, when present, is checked exactly.
"""

from __future__ import annotations

import math
from pathlib import Path

from lm_eval_enterprise.data import DataError, RemoteFile, Source, unverified, verified

# the index order of the source files' Label/label column (NOT the label order of the metric; NOT HELM's
# ["positive", "negative", "neutral"], which contradicts the Sentiment column of the train sheet)
INDEX_TO_LABEL = ("negative", "neutral", "positive")
LABELS = ("positive", "neutral", "negative")  # [WF1] label list of the spec
COLUMNS = {"train": ("Phrase", "Label"), "test": ("sentence", "label")}  # HELM's per-split column names
SENTIMENT_COLUMN = "Sentiment"  # −1/0/1 beside Label in the genuine train sheet: Label == Sentiment + 1
FILES = {"train": "train.xlsx", "test": "test.xlsx"}
URLS = {"train": "https://osf.io/download/hfn62/", "test": "https://osf.io/download/q4adh/"}


def _blank(value) -> bool:
    return (
        value is None
        or (isinstance(value, float) and math.isnan(value))
        or (isinstance(value, str) and not value.strip())
    )


def _integer(value, what: str) -> int:
    """An integer cell: int, integral float (``2.0``) or integer string (``" -1 "``); else ``ValueError``."""
    if isinstance(value, bool):
        raise ValueError(f"{what} {value!r} is not an integer")
    if isinstance(value, float):
        if not value.is_integer():
            raise ValueError(f"{what} {value!r} is not an integer")
        value = int(value)
    try:
        return int(str(value).strip()) if isinstance(value, str) else int(value)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{what} {value!r} is not an integer") from exc


def label_name(value) -> str:
    """``INDEX_TO_LABEL[int(label)]`` (0→negative, 1→neutral, 2→positive); accepts 0/1/2 as int, float (``2.0``)
    or digit string."""
    idx = _integer(value, "label")
    if not 0 <= idx < len(INDEX_TO_LABEL):
        raise ValueError(f"label index {idx} outside 0..{len(INDEX_TO_LABEL) - 1}")
    return INDEX_TO_LABEL[idx]


def check_sentiment(label, sentiment) -> None:
    """``Label == Sentiment + 1`` (the train sheet's −1/0/1 column); ``ValueError`` naming both values otherwise."""
    ok = False
    try:
        ok = _integer(label, "label") == _integer(sentiment, "Sentiment") + 1
    except ValueError:
        pass
    if not ok:
        shown = "(empty)" if _blank(sentiment) else repr(sentiment)
        raise ValueError(
            f"Label {label!r} != Sentiment {shown} + 1 (expected Label 0/1/2 = Sentiment "
            f"-1/0/1 = negative/neutral/positive)"
        )


def to_record(index: int, text, label, where: str, sentiment=None, has_sentiment: bool = False) -> dict | None:
    """One spreadsheet row → ``{id, text, label}``; a fully empty row (Excel padding) → None (dropped).
    ``has_sentiment``: the sheet has a ``Sentiment`` column, checked against the label on this row."""
    if _blank(text) and _blank(label) and (not has_sentiment or _blank(sentiment)):
        return None
    if _blank(text):
        raise DataError("legal_sentiment", where, f"row {index}: empty text")
    try:
        name = label_name(label)
        if has_sentiment:
            check_sentiment(label, sentiment)
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
    has_sentiment = SENTIMENT_COLUMN in df.columns
    sentiments = df[SENTIMENT_COLUMN].tolist() if has_sentiment else [None] * len(df)
    out = []
    for i, (text, label, senti) in enumerate(zip(df[text_col].tolist(), df[label_col].tolist(), sentiments)):
        rec = to_record(i, text, label, str(path), senti, has_sentiment)
        if rec is not None:
            out.append(rec)
    if not out:
        raise DataError("legal_sentiment", path, "no rows")
    return out


class LegalSentiment(Source):
    id = "legal_sentiment"
    domain = "legal"
    task_type = "classification_weighted"
    files = tuple(RemoteFile(FILES[s], URLS[s]) for s in ("train", "test"))
    expected_rows = {  # train: Label counts 282/122/172 read off the genuine train.xlsx; test: nothing published
        "train": verified(576, "Label counts 282/122/172 counted on the genuine train.xlsx"),
        "test": unverified(500, "500 sentences stated by the OSF metadata of test.xlsx; genuine file not counted"),
    }
    labels = LABELS

    def convert(self, raw_dir: Path) -> dict[str, list[dict]]:
        return {split: read_sheet(raw_dir / name, split) for split, name in FILES.items()}

    def task_metadata(self, splits: dict[str, list[dict]]) -> dict:
        return {"source_rows": {s: len(splits.get(s, [])) for s in FILES}}


SOURCE = LegalSentiment()
