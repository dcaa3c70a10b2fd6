"""sumo_claims — SUMO climate claims (Mishra et al. 2020) → article-title generation; HELM ``sumosum`` recipe.

Source layout: ``climate_claims_raw.xlsx`` of GitHub ``rahulOmishra/SUMO`` (pinned commit 5c39fb0; HELM reads the
same file from ``main``). The sheet's first row is skipped (``pd.read_excel(path, skiprows=1)``); the header row
then gives ``Claim_id, Claim, Title, Doc_text, Label`` (1,036 rows). HELM ``SUMOSumScenario._load_dataset``,
reproduced exactly with pandas::

    df = pd.read_excel(path, skiprows=1).dropna(subset=["Title", "Doc_text"])        # 875
    df = df.replace({r"_x000D_": ""}, regex=True)                                   # Excel carriage returns
    train = df.sample(frac=0.2, random_state=0)                                      # 175
    test = df.drop(train.index).sample(frac=1, random_state=0)                       # 700
    test = test[100 <= len(Doc_text.split()) <= 3700]                                 # 428 (HELM run spec)

Records: ``{id: str(Claim_id), document: " ".join(Doc_text.split()), summary: " ".join(Title.split())}``.
"""

from __future__ import annotations

import math
from pathlib import Path

from lm_eval_enterprise.data import DataError, RemoteFile, Source, map_rows, verified
from lm_eval_enterprise.data.splits import pandas_frac_split
from lm_eval_enterprise.text import collapse_ws

COMMIT = "5c39fb0b28f91eea0d9d0a92ef209c0338ecaf87"
XLSX_NAME = "climate_claims_raw.xlsx"
XLSX_URL = f"https://github.com/rahulOmishra/SUMO/raw/{COMMIT}/{XLSX_NAME}"
ID, TITLE, DOC = "Claim_id", "Title", "Doc_text"  # HELM's column names
COLUMNS = ("Claim_id", "Claim", "Title", "Doc_text", "Label")
TRAIN_FRAC = 0.2
SEED = 0
TEST_MIN_WORDS, TEST_MAX_WORDS = 100, 3700  # HELM run spec test_filter_min/max_length (whitespace words)


def clean(text: str) -> str:
    """HELM ``_clean_and_truncate`` without truncation: every whitespace run → one space, stripped."""
    return collapse_ws(text)


def word_count(text: str) -> int:
    """HELM's length filter counts ``len(Doc_text.split())`` on the raw (``_x000D_``-free) text."""
    return len(str(text).split())


def keep_test(row: dict) -> bool:
    return TEST_MIN_WORDS <= word_count(row[DOC]) <= TEST_MAX_WORDS


def outside_test_filter(row: dict) -> str:
    """The problem of a pre-split test row that :func:`keep_test` rejects."""
    return f"document has {word_count(row[DOC])} words, outside HELM's test filter {TEST_MIN_WORDS}-{TEST_MAX_WORDS}"


def has_fields(row: dict) -> bool:
    """A pre-split row has a ``Claim_id`` and string ``Title`` / ``Doc_text``."""
    return row.get(ID) is not None and all(isinstance(row.get(c), str) for c in (TITLE, DOC))


def helm_split(df):
    """HELM ``SUMOSumScenario._load_dataset`` on the sheet read with ``skiprows=1`` → (train_df, test_df);
    the test length filter is applied by the caller (:func:`keep_test`)."""
    missing = [c for c in (ID, TITLE, DOC) if c not in df.columns]
    if missing:
        raise KeyError(", ".join(missing))
    df = df.dropna(subset=[TITLE, DOC])
    df = df.replace({r"_x000D_": ""}, regex=True)
    return pandas_frac_split(df, TRAIN_FRAC, SEED)


def _id(value) -> str:
    """``Claim_id`` as a string; a float column (pandas upcasts ints when a cell is empty) loses its ``.0``."""
    if isinstance(value, float) and not math.isnan(value) and value.is_integer():
        value = int(value)
    return str(value)


def to_record(row: dict) -> dict:
    """One source row (an Excel row, or a row of the pre-split files) → summarization record."""
    return {"id": _id(row[ID]), "document": clean(row[DOC]), "summary": clean(row[TITLE])}


class SumoClaims(Source):
    id = "sumo_claims"
    domain = "climate"
    task_type = "summarization"
    files = (RemoteFile(XLSX_NAME, XLSX_URL),)
    expected_rows = {  # pinned file, exact HELM split
        "train": verified(175, "HELM split reproduced on the genuine climate_claims_raw.xlsx (1,036 -> 875 rows)"),
        "test": verified(428, "HELM split + 100-3,700-word filter reproduced on the genuine climate_claims_raw.xlsx"),
    }
    fewshot_source_split = "train"  # 0 shots (paper), but lm-eval still gets a [BAL]-ordered pool

    def read_sheet(self, path: Path):
        import pandas as pd

        try:
            return pd.read_excel(path, skiprows=1)
        except Exception as exc:  # zipfile.BadZipFile, ValueError, OSError: not a readable workbook
            raise DataError(self.id, path, f"cannot read the Excel file ({type(exc).__name__}: {exc})") from exc

    def convert(self, raw_dir: Path) -> dict[str, list[dict]]:
        path = raw_dir / XLSX_NAME
        df = self.read_sheet(path)
        try:
            train, test = helm_split(df)
        except KeyError as exc:
            raise DataError(
                self.id,
                path,
                f"sheet lacks the column(s) {exc} after skipping the first row (has {[str(c) for c in df.columns]})",
            ) from exc
        test_rows = [r for r in test.to_dict("records") if keep_test(r)]
        return {"train": [to_record(r) for r in train.to_dict("records")], "test": [to_record(r) for r in test_rows]}

    def convert_presplit(self, rows: dict[str, list[dict]], data_dir: Path) -> dict[str, list[dict]]:
        """Rows already in HELM order (the real sample, docs/data.md#real-samples; test = first 300 of the 428
        filtered HELM test items, train = first 100 HELM train items), with the original columns; same per-row code as
        :meth:`convert` (test rows must already satisfy the length filter)."""
        out = {}
        for split, rs in rows.items():
            self.check_presplit_rows(rs, data_dir, split, has_fields, f"row lacks {ID} or a string {TITLE}/{DOC}")
            if split == "test":
                self.check_presplit_rows(rs, data_dir, split, keep_test, outside_test_filter)
            out[split] = map_rows(rs, to_record, self.id, split)
        return out


SOURCE = SumoClaims()
