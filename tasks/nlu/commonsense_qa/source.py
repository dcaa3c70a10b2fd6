"""commonsense_qa — CommonsenseQA v1.11, random split (Talmor et al. 2019): 5-way multiple-choice commonsense questions.

Two source layouts, either of which a data folder may hold (README, How to obtain the data):

* the hub's parquet files of ``tau/commonsense_qa`` (what ``prepare`` downloads), at the pinned commit
  :data:`HF_COMMIT`: ``data/train-*.parquet`` and ``data/validation-*.parquet`` (the hub's ``test`` split has no
  answers and is not fetched). Columns ``id``, ``question`` (the stem), ``question_concept``, ``choices``
  (``{label: [A..E], text: [5 texts]}``), ``answerKey``;
* the genuine published JSON-lines files of the release, under their own names: ``dev_rand_split.jsonl`` and
  ``train_rand_split.jsonl`` (both required), one object per line ``{answerKey, id, question: {question_concept,
  choices: [{label, text} ×5], stem}}``. ``test_rand_split_no_answers.jsonl`` may lie beside them and is ignored.

A folder holding both layouts is refused (one line): which one to read would be a guess. Record ``{id, question:
stem, choices: [the five texts in label order], answer: index of answerKey}``; the data layer adds the
``choice_text`` fields (``label_names`` = the option texts, letter/number aliases, ``answer_text``). The choice
labels of every row must be exactly A, B, C, D, E in that order and ``answerKey`` one of them, else one
:class:`DataError` naming the file and line (row). Option texts and the stem lose surrounding whitespace; inner
whitespace (the stems' occasional double spaces) is kept as published. Duplicate option texts within a row occur
in the genuine files (7 of the first 300 dev rows) and are kept: both letters then name the same answer text.

Splits: ``valid`` = the dev file / hub ``validation`` (the evaluated split; the test labels are hidden), ``train``
the few-shot pool. Counts: verified on the genuine JSON-lines files (sha256 in :data:`SHA256`); the hub parquet is a
re-export that no genuine copy confirmed, so a parquet (or pre-split) folder is held to the same numbers as unverified
counts
(:meth:`CommonsenseQA.expected_for`). README: Deviations and decisions.
"""

from __future__ import annotations

from pathlib import Path

from lm_eval_enterprise.data import (
    MANIFEST,
    DataError,
    HFParquetSource,
    RemoteFile,
    read_jsonl_lines,
    require_columns,
    require_text,
    unverified,
    verified,
)
from lm_eval_enterprise.data.checks import Rows

HF_REPO = "tau/commonsense_qa"
# "Convert dataset to Parquet (#4)": the commit whose README declares data/{train,validation,test}-* (README)
HF_COMMIT = "94630fe30dad47192a8546eb75f094926d47e155"
HF_PREFIX = "data"
LETTERS = ("A", "B", "C", "D", "E")
# the genuine release files: split → file name, and the sha256 of the full files (README, Verified)
JSONL_FILES = {"train": "train_rand_split.jsonl", "valid": "dev_rand_split.jsonl"}
JSONL_URL = "https://s3.amazonaws.com/commensenseqa/{name}"
SHA256 = {
    "train": "58ffa3c8472410e24b8c43f423d89c8a003d8284698a6ed7874355dedd09a2fb",
    "valid": "3210497fdaae614ac085d9eb873dd7f4d49b6f965a93adadc803e1229fd8a02a",
}
COUNTS = {"train": 9741, "valid": 1221}
PARQUET_COLUMNS = ("id", "question", "choices", "answerKey")
DATASET = "commonsense_qa"


def answer_index(labels, key, where: str) -> int:
    """The 0-based index of ``answerKey`` among the row's choice labels, which must be A, B, C, D, E in order."""
    if list(labels) != list(LETTERS):
        raise DataError(DATASET, where, f"choice labels {list(labels)!r} are not A, B, C, D, E in that order")
    if key is None or (isinstance(key, str) and not key.strip()):
        raise DataError(DATASET, where, "no answerKey (an unlabelled row; CommonsenseQA's test split has no answers)")
    if key not in LETTERS:
        raise DataError(DATASET, where, f"answerKey {key!r} is not one of the row's choice labels A, B, C, D, E")
    return LETTERS.index(key)


def make_record(qid, stem, labels, texts, key, where: str) -> dict:
    """``{id, question, choices, answer}`` from the parts of a row of either layout (checks in the module docstring)."""
    if not isinstance(qid, str) or not qid.strip():
        raise DataError(DATASET, where, f"id {qid!r} is not a non-empty string")
    question = require_text(stem, DATASET, where, f"question {qid}: empty or missing question stem").strip()
    texts = list(texts)
    if len(texts) != len(LETTERS):
        raise DataError(DATASET, where, f"question {qid}: {len(texts)} choices, expected 5")
    choices = [
        require_text(t, DATASET, where, f"question {qid}: choice {LETTERS[i]} is empty") for i, t in enumerate(texts)
    ]
    choices = [c.strip() for c in choices]
    return {"id": qid, "question": question, "choices": choices, "answer": answer_index(labels, key, where)}


def jsonl_record(row, where: str) -> dict:
    """One row of the genuine release: ``{answerKey, id, question: {stem, choices: [{label, text}]}}``."""
    if not isinstance(row, dict):
        raise DataError(DATASET, where, f"a line is a JSON {type(row).__name__}, not an object")
    require_columns(row, ("id", "question", "answerKey"), DATASET, where)
    q = row["question"]
    if not isinstance(q, dict) or not isinstance(q.get("choices"), list):
        raise DataError(DATASET, where, "'question' is not an object with a 'choices' list (not the release's layout)")
    require_columns(q, ("stem", "choices"), DATASET, where)
    if not all(isinstance(c, dict) and "label" in c and "text" in c for c in q["choices"]):
        raise DataError(DATASET, where, "a choice is not an object with 'label' and 'text'")
    labels = [c["label"] for c in q["choices"]]
    texts = [c["text"] for c in q["choices"]]
    return make_record(row["id"], q["stem"], labels, texts, row["answerKey"], where)


def hub_record(row, where: str) -> dict:
    """One row of the hub's parquet export: ``{id, question, question_concept, choices: {label, text}, answerKey}``."""
    require_columns(row, PARQUET_COLUMNS, DATASET, where)
    choices = row["choices"]
    if not isinstance(choices, dict) or not {"label", "text"} <= set(choices):
        raise DataError(DATASET, where, f"choices {choices!r} is not a {{label: [...], text: [...]}} struct")
    labels, texts = list(choices["label"] or ()), list(choices["text"] or ())
    if len(labels) != len(texts):
        raise DataError(DATASET, where, f"{len(labels)} choice labels for {len(texts)} choice texts")
    return make_record(row["id"], row["question"], labels, texts, row["answerKey"], where)


def any_record(row, where: str) -> dict:
    """A pre-split row in either schema: the release's (``question`` an object) or the hub's (``question`` the stem)."""
    if isinstance(row, dict) and isinstance(row.get("question"), dict):
        return jsonl_record(row, where)
    return hub_record(row, where)


class CommonsenseQA(HFParquetSource):
    id = DATASET
    domain = "nlu"
    task_type = "choice_text"
    hf_repo = HF_REPO
    hf_revision = HF_COMMIT
    hf_prefix = HF_PREFIX
    hf_splits = ("train", "validation")
    hf_layout_hint = "{prefix}{split}-*.parquet"
    eval_split = "valid"
    fewshot_source_split = "train"
    expected_rows = {
        split: verified(
            n,
            f"counted on the genuine {JSONL_FILES[split]} of CommonsenseQA v1.11 (sha256 {SHA256[split][:8]}…, "
            "the checksum other public loaders pin for the release file)",
        )
        for split, n in COUNTS.items()
    }

    @property
    def files(self) -> tuple[RemoteFile, ...]:  # type: ignore[override]  # for messages: either layout's files
        release = tuple(RemoteFile(n, JSONL_URL.format(name=n), SHA256[s]) for s, n in JSONL_FILES.items())
        return super().files + release

    def has_jsonl_layout(self, d: Path) -> bool:
        return all((d / name).is_file() for name in JSONL_FILES.values())

    def has_source_layout(self, d: Path) -> bool:
        return super().has_source_layout(d) or self.has_jsonl_layout(d)

    def expected_for(self, data_dir: Path) -> dict[str, Rows]:
        """The verified counts for the release's JSON-lines files; for an export — the hub's parquet files or
        pre-split rows — the same numbers as unverified counts (no export was counted on a genuine copy); a
        ``MANIFEST.json`` wins."""
        if (data_dir / MANIFEST).exists() or self.has_jsonl_layout(data_dir):
            return super().expected_for(data_dir)
        evidence = (
            f"the size {HF_REPO}'s card gives for this split, equal to the genuine release file's count; this "
            "folder holds an export (the hub's parquet files or pre-split rows), not counted on a genuine copy"
        )
        return {s: unverified(r.n, evidence) for s, r in self.expected_rows.items()}

    def convert(self, raw_dir: Path) -> dict[str, list[dict]]:
        parquet, release = super().has_source_layout(raw_dir), self.has_jsonl_layout(raw_dir)
        if parquet and release:
            raise DataError(
                self.id,
                raw_dir,
                f"holds both the hub's parquet files ({HF_PREFIX}/) and the release's {sorted(JSONL_FILES.values())};"
                " keep one layout",
            )
        if release:
            return {split: self.jsonl_split(raw_dir / name) for split, name in JSONL_FILES.items()}
        return {
            "valid" if split == "validation" else split: self.parquet_records(
                raw_dir, split, hub_record, PARQUET_COLUMNS
            )
            for split in self.hf_splits
        }

    def jsonl_split(self, path: Path) -> list[dict]:
        rows, lines = read_jsonl_lines(path, self.id)
        if not rows:
            raise DataError(self.id, path, "the file holds no rows")
        return [jsonl_record(row, f"{path}:{n}") for row, n in zip(rows, lines)]

    def convert_presplit(self, rows: dict[str, list[dict]], data_dir: Path) -> dict[str, list[dict]]:
        """``train.jsonl`` / ``valid.jsonl`` holding source rows in either schema (the release's or the hub's)."""
        return self.map_presplit(rows, data_dir, any_record)

    def fewshot_key(self, record: dict) -> str:
        """[BAL] label key: the letter of the right option, so the shots spread over the answer positions."""
        return LETTERS[record["answer"]]


SOURCE = CommonsenseQA()
