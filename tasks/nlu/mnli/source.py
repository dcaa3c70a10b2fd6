"""mnli — the Multi-Genre Natural Language Inference corpus (Williams, Nangia & Bowman 2018), GLUE version: does
the premise entail the hypothesis, contradict it, or neither?

Layouts (:mod:`lm_eval_enterprise.tasks.nlu.english`):

* **hub parquet** (what a download fetches): HF ``nyu-mll/glue``, config ``mnli``, named revision ``main`` (commit
  sha unconfirmed), ``mnli/train-*.parquet`` → ``train`` (the few-shot pool), ``mnli/validation_matched-*.parquet``
  → ``valid`` (the evaluated split: the matched dev set; the mismatched dev set and both unlabelled test sets are
  not fetched). Columns ``premise``, ``hypothesis``, ``label`` (ClassLabel 0 = entailment, 1 = neutral,
  2 = contradiction; the names are read from the file's metadata), ``idx``.
* **GLUE's TSV release** (``MNLI.zip``, unzipped): ``dev_matched.tsv`` → ``valid`` (required), ``train.tsv`` →
  ``train`` (optional), directly in the data folder or in ``MNLI/``. A header row (``dev_matched.tsv``: ``index
  promptID pairID genre sentence1_binary_parse sentence2_binary_parse sentence1_parse sentence2_parse sentence1
  sentence2 label1 label2 label3 label4 label5 gold_label``; ``train.tsv`` has ``label1`` only), parsed with
  quoting disabled as the GLUE loaders do; ``sentence1`` is the premise, ``sentence2`` the hypothesis,
  ``gold_label`` the label (``entailment``, ``neutral``, ``contradiction``).

Record ``{id: str(idx), premise, hypothesis, label}`` with FLAN's option words for the labels (``entailment`` →
``yes``, ``neutral`` → ``it is not possible to tell``, ``contradiction`` → ``no``). ``idx`` is the row's 0-based
position in its file in both layouts. No genuine MNLI file was available: the layouts follow the published
descriptions and every count is unverified (README). A label outside the three (e.g. ``-``, the "no gold label"
mark of the original MultiNLI release, which GLUE's files leave out), an empty sentence, a short row is one
``DataError`` naming the file and the line (or parquet row). README: Deviations and decisions.
"""

from __future__ import annotations

from pathlib import Path

from lm_eval_enterprise.tasks.nlu.english import GLUE_HF_REPO, HUB_REVISION, HubOrFilesSource, read_glue_tsv

from lm_eval_enterprise.data import DataError, require_text, unverified

GLUE_LABELS = ("entailment", "neutral", "contradiction")  # GLUE's label names, ClassLabel order 0, 1, 2
LABELS = ("yes", "it is not possible to tell", "no")  # FLAN's mnli options, in GLUE's label order
WORDS = dict(zip(GLUE_LABELS, LABELS))
HUB_SPLITS = {"train": "train", "valid": "validation_matched"}
PUBLISHED = {"train": "train.tsv", "valid": "dev_matched.tsv"}
HUB_COLUMNS = ("premise", "hypothesis", "label", "idx")
TSV_COLUMNS = ("sentence1", "sentence2", "gold_label")


def record(idx: int, premise, hypothesis, gold: str, where: str) -> dict:
    """``{id, premise, hypothesis, label}`` from GLUE's label name ``gold``."""
    if gold not in WORDS:
        raise DataError("mnli", where, f"row {idx}: gold label {gold!r} is not one of {list(GLUE_LABELS)}")
    p = require_text(premise, "mnli", where, f"row {idx}: empty or missing premise")
    h = require_text(hypothesis, "mnli", where, f"row {idx}: empty or missing hypothesis")
    return {"id": str(idx), "premise": p, "hypothesis": h, "label": WORDS[gold]}


def hub_record(row: dict, where: str, names) -> dict:
    """One hub parquet row → a record (``names``: the ClassLabel names of ``label``, :data:`GLUE_LABELS`
    expected)."""
    if list(names or ()) != list(GLUE_LABELS):
        raise DataError("mnli", where, f"label names {names!r} of the parquet file are not {list(GLUE_LABELS)}")
    label = row["label"]
    if isinstance(label, bool) or not isinstance(label, int) or not 0 <= label < len(GLUE_LABELS):
        raise DataError("mnli", where, f"label {label!r} is not 0, 1 or 2 ({', '.join(GLUE_LABELS)})")
    if isinstance(row["idx"], bool) or not isinstance(row["idx"], int):
        raise DataError("mnli", where, f"idx {row['idx']!r} is not an integer")
    return record(row["idx"], row["premise"], row["hypothesis"], GLUE_LABELS[label], where)


def tsv_record(where: str, idx: int, row: dict[str, str]) -> dict:
    """One row of GLUE's ``dev_matched.tsv`` / ``train.tsv`` → a record."""
    return record(idx, row["sentence1"], row["sentence2"], row["gold_label"], where)


class MNLI(HubOrFilesSource):
    id = "mnli"
    domain = "nlu"
    task_type = "classification_accuracy"
    hf_repo = GLUE_HF_REPO
    hf_revision = HUB_REVISION
    hf_prefix = "mnli"
    hub_splits = HUB_SPLITS
    hf_splits = tuple(HUB_SPLITS.values())
    published = PUBLISHED
    archive = "MNLI"
    labels = LABELS
    fewshot_source_split = "train"
    expected_rows = {
        "train": unverified(
            392702,
            "the published size of GLUE's MNLI train split (the hub card's num_examples); no genuine file counted",
        ),
        "valid": unverified(
            9815,
            "the published size of GLUE's MNLI validation_matched split (the hub card's num_examples); no genuine "
            "file counted",
        ),
    }

    def hub_records(self, raw_dir: Path, hub_split: str) -> list[dict]:
        return self.parquet_records(
            raw_dir, hub_split, hub_record, HUB_COLUMNS, class_label="label", class_names=GLUE_LABELS
        )

    def published_records(self, path: Path, split: str) -> list[dict]:
        return [tsv_record(where, idx, row) for where, idx, row in read_glue_tsv(path, self.id, columns=TSV_COLUMNS)]


SOURCE = MNLI()
