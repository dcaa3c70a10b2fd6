"""casehold — CaseHOLD (Zheng et al. 2021), HF ``casehold/casehold`` config ``all`` (HELM ``casehold_scenario.py``).

Source layout, either of two (README, How to obtain the data):

* the hub's auto-converted parquet files of the script-based dataset (revision ``refs/convert/parquet``, whose
  presence is unconfirmed), config ``all``: ``all/{train,validation,test}/*.parquet`` (shard names not hard-coded).
  Columns ``example_id``, ``citing_prompt`` (contains ``<HOLDING>``), ``holding_0`` … ``holding_4``, ``label`` (the
  string ``"0"``–``"4"``; a ClassLabel int is accepted too and mapped through the file's class names);
* the repo's raw CSV files ``data/all/{train,dev,test}.csv`` (revision ``main``), the download's fallback when the
  parquet branch is unavailable. Their header names the columns by position (``""``, ``"0"`` … ``"11"``; pandas
  reads the first as ``Unnamed: 0``), per the original loading script: the unnamed column = example id, 0 =
  citing_prompt, 1–5 = holdings, 6–10 similarity scores, 11 = label. ``dev`` is the validation split.

Records (multiple-choice schema, as HELM builds its instances): ``{id: f"id{example_id}", question: citing_prompt,
choices: [holding_0 … holding_4], answer: int(label)}``; the data layer adds ``label_names`` (A–E),
``answer_letter`` and ``n_options`` (:func:`lm_eval_enterprise.data.mc_fields`). Official split: eval = test,
few-shot pool = train ([BAL] keyed by the correct letter).

Unlabelled test split: a label that is empty, null or ``-1`` (how unlabelled releases mark it) gives ``answer:
None``. When *every* test row is unlabelled, the data layer evaluates on ``validation`` instead (``eval_fallback``)
and records it (``evaluated_split``, ``data_notes`` in the task metadata); the task YAMLs read the split ``eval``,
which the data layer fills with the evaluated split. A test split that is only partly unlabelled is an error.
Row counts: no per-split size of this config is published (45,000 / 3,900 / 3,600 are LexGLUE's ``case_hold``,
a different release); the paper's total of 53,137 questions is checked over all splits, unverified (a warning).
"""

from __future__ import annotations

import csv
import logging
import sys
from pathlib import Path

from lm_eval_enterprise.data import (
    HF_CONVERTED_REVISION,
    MANIFEST,
    MC_LETTERS,
    DataError,
    HFParquetSource,
    check_count,
    require_columns,
    require_text,
    snapshot,
    unverified,
)
from lm_eval_enterprise.data.hub import hf_where

log = logging.getLogger("lm_eval_enterprise.data")

HF_REPO = "casehold/casehold"
CONFIG = "all"
# the raw CSV fallback: a named revision (no commit sha of the repo could be confirmed; README)
CSV_REVISION = "main"
CSV_DIR = "data/all"
CSV_FILES = {"train": "train.csv", "valid": "dev.csv", "test": "test.csv"}  # split → file of CSV_DIR
TOTAL = 53137  # CaseHOLD paper (Zheng et al. 2021): 53,137 multiple-choice questions
N_OPTIONS = 5
HOLDINGS = tuple(f"holding_{i}" for i in range(N_OPTIONS))
COLUMNS = ("example_id", "citing_prompt", *HOLDINGS, "label")


INDEX_COLUMNS = ("", "Unnamed: 0")  # the raw CSV's unnamed first column: as written, and as pandas names it
POSITIONAL = {
    "Unnamed: 0": "example_id",
    "0": "citing_prompt",
    **{str(i + 1): f"holding_{i}" for i in range(5)},
    "11": "label",
}  # the repo's raw CSV header (original loading script's column order)


def unlabelled(value) -> bool:
    """The row carries no gold label (empty, null, NaN or -1)."""
    if isinstance(value, float):
        return value != value or value == -1
    if isinstance(value, str):
        return value.strip() in ("", "-1")
    return value is None or (isinstance(value, int) and not isinstance(value, bool) and value == -1)


def answer_index(value, where: str, class_names: list[str] | None = None) -> int | None:
    """``label`` → 0-based index of the correct holding: the string ``"0"``–``"4"`` (HELM compares
    ``label == str(i)``), or a ClassLabel int mapped through ``class_names`` (the file's metadata) when given;
    ``None`` for an unlabelled row (:func:`unlabelled`)."""
    if unlabelled(value):
        return None
    if isinstance(value, bool):
        raise DataError("casehold", where, f"label {value!r} is not a holding index 0–{N_OPTIONS - 1}")
    if isinstance(value, int) and class_names is not None:
        if not 0 <= value < len(class_names):
            raise DataError("casehold", where, f"label index {value} outside the class names {class_names}")
        value = class_names[value]
    text = str(value).strip()
    if text not in {str(i) for i in range(N_OPTIONS)}:
        raise DataError("casehold", where, f"label {value!r} is not a holding index 0–{N_OPTIONS - 1}")
    return int(text)


def to_record(row: dict, where: str, class_names: list[str] | None = None) -> dict:
    """One CaseHOLD row → ``{id: f"id{example_id}", question, choices, answer}`` (``answer`` None: unlabelled)."""
    if "citing_prompt" not in row and "Unnamed: 0" not in row and "" in row:
        row = {("Unnamed: 0" if k == "" else k): v for k, v in row.items()}
    if "citing_prompt" not in row and all(k in row for k in POSITIONAL):
        row = {POSITIONAL.get(k, k): v for k, v in row.items()}
    require_columns(row, COLUMNS, "casehold", where)
    example = f"(example_id {row['example_id']!r})"
    question = require_text(row["citing_prompt"], "casehold", where, f"empty citing_prompt {example}")
    choices = [require_text(row[h], "casehold", where, f"empty {h} {example}") for h in HOLDINGS]
    return {
        "id": f"id{row['example_id']}",
        "question": question,
        "choices": choices,
        "answer": answer_index(row["label"], where, class_names),
    }


def file_columns(path: Path) -> tuple[str, ...]:
    """The columns to require of a parquet file: the named ones, or the positional ones when the file has those."""
    import pyarrow.parquet as pq

    try:
        names = set(pq.read_schema(path).names)
    except Exception:  # unreadable: read_parquet_rows reports it as one line
        return COLUMNS
    return tuple(POSITIONAL) if "citing_prompt" not in names and set(POSITIONAL) <= names else COLUMNS


class CaseHold(HFParquetSource):
    id = "casehold"
    domain = "legal"
    task_type = "multiple_choice"
    hf_repo = HF_REPO
    hf_revision = HF_CONVERTED_REVISION
    hf_prefix = CONFIG
    hf_splits = ("train", "validation", "test")
    # no per-split size of casehold/casehold "all" is published; the paper's total is checked in convert()
    expected_rows = {
        s: unverified(
            None,
            "no published size of this split of casehold/casehold 'all' (45,000 / 3,900 / 3,600 are LexGLUE "
            "case_hold's, coastalcph/lex_glue README); the total is checked against the paper's 53,137",
        )
        for s in ("train", "valid", "test")
    }
    eval_fallback = "valid"  # the hub's validation split, evaluated when the test split carries no labels
    n_options = N_OPTIONS

    def download(self, dest: Path, progress: bool = True) -> None:
        """The parquet branch; when it cannot be had (missing revision or files), the raw CSVs of ``main``."""
        try:
            super().download(dest, progress)
        except DataError as parquet_failure:
            try:
                snapshot(self.hf_repo, dest, dataset=self.id, patterns=[f"{CSV_DIR}/*.csv"], revision=CSV_REVISION)
            except DataError:
                raise parquet_failure from None
            if not self.has_csv_layout(dest):
                raise DataError(
                    self.id,
                    hf_where(self.hf_repo, CSV_REVISION, CSV_DIR),
                    f"{parquet_failure.problem}; the raw CSV fallback found no {sorted(CSV_FILES.values())} either",
                ) from parquet_failure
            log.warning("[%s] parquet branch unavailable; using the raw CSVs %s/*.csv", self.id, CSV_DIR)

    def has_csv_layout(self, d: Path) -> bool:
        return all((d / CSV_DIR / name).is_file() for name in CSV_FILES.values())

    def has_source_layout(self, d: Path) -> bool:
        return super().has_source_layout(d) or self.has_csv_layout(d)

    def convert(self, raw_dir: Path) -> dict[str, list[dict]]:
        """Every shard of train / validation (→ ``valid``) / test, rows in shard order — or, without parquet files,
        the raw CSVs (``dev`` → ``valid``); then the paper's total over all splits (unverified)."""
        if super().has_source_layout(raw_dir):
            out = {
                "valid" if split == "validation" else split: self.parquet_records(
                    raw_dir, split, to_record, file_columns, class_label="label"
                )
                for split in self.hf_splits
            }
        else:
            out = {split: self.csv_records(raw_dir / CSV_DIR / name) for split, name in CSV_FILES.items()}
        if not (raw_dir / MANIFEST).exists():  # a MANIFEST.json folder declares its own (per-split) counts
            self.check_total(out, raw_dir)
        return out

    def check_total(self, out: dict[str, list[dict]], raw_dir: Path) -> None:
        check_count(
            self.id,
            "all splits",
            sum(len(v) for v in out.values()),
            unverified(TOTAL, "CaseHOLD paper: 53,137 questions in all; genuine files not counted"),
            raw_dir,
            subject=f"all splits hold {sum(len(v) for v in out.values()):,} questions",
        )

    def csv_records(self, path: Path) -> list[dict]:
        """Rows of one raw CSV (positional header) through :func:`to_record`, ``where`` = ``<file>:row <i>``."""
        csv.field_size_limit(min(sys.maxsize, 2**31 - 1))  # long citing prompts
        try:
            with open(path, encoding="utf-8", newline="") as f:
                reader = csv.DictReader(f)
                lacking = [c for c in POSITIONAL if c != "Unnamed: 0" and c not in (reader.fieldnames or [])]
                if lacking or not any(c in (reader.fieldnames or []) for c in INDEX_COLUMNS):
                    raise DataError(
                        self.id,
                        path,
                        f"not the positional CaseHOLD header: needs an unnamed first column and "
                        f"{[c for c in POSITIONAL if c != 'Unnamed: 0']} (has {reader.fieldnames})",
                    )
                return [to_record(row, f"{path}:row {i}") for i, row in enumerate(reader)]
        except csv.Error as exc:
            raise DataError(self.id, path, f"not a readable CSV ({exc})") from exc

    def convert_presplit(self, rows: dict[str, list[dict]], data_dir: Path) -> dict[str, list[dict]]:
        """``train``/``valid``/``test.jsonl`` holding the source rows (same columns, e.g. exported with ``datasets``)."""
        return self.map_presplit(rows, data_dir, to_record)

    def fewshot_key(self, record: dict) -> str:
        """[BAL] label key = the correct letter (README: the label key is the correct letter)."""
        return MC_LETTERS[record["answer"]]


SOURCE = CaseHold()
