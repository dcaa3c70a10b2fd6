"""casehold — CaseHOLD (Zheng et al. 2021), HF ``casehold/casehold`` config ``all`` (HELM ``casehold_scenario.py``).

Source layout: the hub's auto-converted parquet files of the script-based dataset (revision ``refs/convert/parquet``),
config ``all``: ``all/{train,test}/*.parquet`` (listed with the hub API; shard names are not hard-coded; the
validation split is not fetched: HELM and the spec leave it unused). Columns ``example_id``, ``citing_prompt``
(contains ``<HOLDING>``), ``holding_0`` … ``holding_4``, ``label`` (the string ``"0"``–``"4"``; a ClassLabel int is
accepted too and mapped through the file's class names).

Records (multiple-choice schema, as HELM builds its instances): ``{id: f"id{example_id}", question: citing_prompt,
choices: [holding_0 … holding_4], answer: int(label)}``; the data layer adds ``label_names`` (A–E),
``answer_letter`` and ``n_options`` (:func:`lm_eval_enterprise.data.mc_fields`). Official split: eval = test,
few-shot pool = train ([BAL] keyed by the correct letter).
"""
from __future__ import annotations

from pathlib import Path

from lm_eval_enterprise.data import (HF_CONVERTED_REVISION, MC_LETTERS, DataError, HFParquetSource, hf_class_names,
                                     map_rows, read_parquet_rows)

HF_REPO = "casehold/casehold"
CONFIG = "all"
N_OPTIONS = 5
HOLDINGS = tuple(f"holding_{i}" for i in range(N_OPTIONS))
COLUMNS = ("example_id", "citing_prompt", *HOLDINGS, "label")


def answer_index(value, where: str, class_names: list[str] | None = None) -> int:
    """``label`` → 0-based index of the correct holding: the string ``"0"``–``"4"`` (HELM compares
    ``label == str(i)``), or a ClassLabel int mapped through ``class_names`` (the file's metadata) when given."""
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
    """One CaseHOLD row → ``{id: f"id{example_id}", question, choices, answer}``."""
    missing = [c for c in COLUMNS if c not in row]
    if missing:
        raise DataError("casehold", where, f"row lacks columns {missing} (has {sorted(row)})")
    question = row["citing_prompt"]
    if not isinstance(question, str) or not question.strip():
        raise DataError("casehold", where, f"empty citing_prompt (example_id {row['example_id']!r})")
    choices = [row[h] for h in HOLDINGS]
    for h, c in zip(HOLDINGS, choices):
        if not isinstance(c, str) or not c.strip():
            raise DataError("casehold", where, f"empty {h} (example_id {row['example_id']!r})")
    return {"id": f"id{row['example_id']}", "question": question, "choices": choices,
            "answer": answer_index(row["label"], where, class_names)}


class CaseHold(HFParquetSource):
    id = "casehold"
    domain = "legal"
    task_type = "mc"
    hf_repo = HF_REPO
    hf_revision = HF_CONVERTED_REVISION
    hf_prefix = CONFIG
    hf_splits = ("train", "test")
    # DATASETS.md: ≈45k train / 3.6k test ("≈": secondary description, not counted by us); checked ±1 %
    expected_rows = {"train": 45000, "test": 3600}
    n_options = N_OPTIONS

    def convert(self, raw_dir: Path) -> dict[str, list[dict]]:
        out = {}
        for split in self.hf_splits:
            records = []
            for path in self.parquet_files(raw_dir, split):
                names = hf_class_names(path, "label")
                rows = read_parquet_rows([path], self.id, COLUMNS)
                records += [to_record(r, f"{path}:row {i}", names) for i, r in enumerate(rows)]
            out[split] = records
        return out

    def convert_presplit(self, rows: dict[str, list[dict]], data_dir: Path) -> dict[str, list[dict]]:
        """``train.jsonl``/``test.jsonl`` holding the source rows (same columns, e.g. exported with ``datasets``)."""
        return {split: map_rows(rs, lambda r, s=split: to_record(r, f"{data_dir}/{s}.jsonl"), self.id, split)
                for split, rs in rows.items()}

    def fewshot_key(self, record: dict) -> str:
        """[BAL] label key = the correct letter (DATASETS.md casehold: "label key = correct letter")."""
        return MC_LETTERS[record["answer"]]


SOURCE = CaseHold()
