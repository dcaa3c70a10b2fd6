"""casehold — CaseHOLD (Zheng et al. 2021), HF ``casehold/casehold`` config ``all`` (HELM ``casehold_scenario.py``).

Source layout: the hub's auto-converted parquet files of the script-based dataset (revision ``refs/convert/parquet``),
config ``all``: ``all/{train,validation,test}/*.parquet`` (listed with the hub API; shard names are not hard-coded).
Columns ``example_id``, ``citing_prompt`` (contains ``<HOLDING>``), ``holding_0`` … ``holding_4``, ``label`` (the
string ``"0"``–``"4"``; a ClassLabel int is accepted too and mapped through the file's class names). The raw CSV
files of the repo name their columns by position (``Unnamed: 0``, ``"0"`` … ``"11"``, per the original loading
script: 0 = citing_prompt, 1–5 = holdings, 6–10 similarity scores, 11 = label); rows with those names are read too.

Records (multiple-choice schema, as HELM builds its instances): ``{id: f"id{example_id}", question: citing_prompt,
choices: [holding_0 … holding_4], answer: int(label)}``; the data layer adds ``label_names`` (A–E),
``answer_letter`` and ``n_options`` (:func:`lm_eval_enterprise.data.mc_fields`). Official split: eval = test,
few-shot pool = train ([BAL] keyed by the correct letter).

Unlabelled test split: a label that is empty, null or ``-1`` (how unlabelled releases mark it) gives ``answer:
None``. When *every* test row is unlabelled, the data layer evaluates on ``validation`` instead (``eval_fallback``)
and records it (``evaluated_split``, ``data_notes`` in the task metadata); the task YAMLs read the split ``eval``,
which the data layer fills with the evaluated split. A test split that is only partly unlabelled is an error.
Row counts: all unverified (the sizes may be LexGLUE's), so a mismatch is a warning, recorded in the metadata.
"""

from __future__ import annotations

from pathlib import Path

from lm_eval_enterprise.data import (
    HF_CONVERTED_REVISION,
    MC_LETTERS,
    DataError,
    HFParquetSource,
    require_columns,
    require_text,
    unverified,
)

HF_REPO = "casehold/casehold"
CONFIG = "all"
N_OPTIONS = 5
HOLDINGS = tuple(f"holding_{i}" for i in range(N_OPTIONS))
COLUMNS = ("example_id", "citing_prompt", *HOLDINGS, "label")


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
    # unverified: LexGLUE case_hold's sizes; casehold/casehold "all" may be 42.5k / 5.31k / 5.31k instead
    expected_rows = {
        s: unverified(n, "LexGLUE case_hold sizes (casehold/casehold may differ); genuine files not counted")
        for s, n in (("train", 45000), ("valid", 3900), ("test", 3600))
    }
    eval_fallback = "valid"  # the hub's validation split, evaluated when the test split carries no labels
    n_options = N_OPTIONS

    def convert(self, raw_dir: Path) -> dict[str, list[dict]]:
        """Every shard of train / validation (→ ``valid``) / test, rows in shard order."""
        return {
            "valid" if split == "validation" else split: self.parquet_records(
                raw_dir, split, to_record, file_columns, class_label="label"
            )
            for split in self.hf_splits
        }

    def convert_presplit(self, rows: dict[str, list[dict]], data_dir: Path) -> dict[str, list[dict]]:
        """``train``/``valid``/``test.jsonl`` holding the source rows (same columns, e.g. exported with ``datasets``)."""
        return self.map_presplit(rows, data_dir, to_record)

    def fewshot_key(self, record: dict) -> str:
        """[BAL] label key = the correct letter (README: the label key is the correct letter)."""
        return MC_LETTERS[record["answer"]]


SOURCE = CaseHold()
