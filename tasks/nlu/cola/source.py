"""cola — the Corpus of Linguistic Acceptability (Warstadt, Singh & Bowman 2019), GLUE version: is an English
sentence acceptable?

Layouts (:mod:`lm_eval_enterprise.tasks.nlu.english`):

* **hub parquet** (what a download fetches): HF ``nyu-mll/glue``, config ``cola``, named revision ``main`` (commit
  sha unconfirmed), ``cola/train-*.parquet`` → ``train`` (the few-shot pool), ``cola/validation-*.parquet`` →
  ``valid`` (the evaluated split; GLUE's test split has no labels and is not fetched). Columns ``sentence``,
  ``label`` (ClassLabel 0 = unacceptable, 1 = acceptable; the names are read from the file's metadata), ``idx``.
* **GLUE's TSV release** (``CoLA.zip``, unzipped): ``dev.tsv`` → ``valid`` (required), ``train.tsv`` → ``train``
  (optional), directly in the data folder or in ``CoLA/``. No header; four tab-separated fields: the source code of
  the publication (``gj04``), the label ``0``/``1``, the original author's acceptability mark (``*``, ``?*``,
  ``??`` …, empty for acceptable; once a single space in the genuine dev file, line 684) and the sentence. The
  author mark is not read; the last dev row has no trailing newline (both tolerated).

Record ``{id: str(idx), text: sentence, label: "unacceptable" | "acceptable"}`` (FLAN's option words, in GLUE's
label order). ``idx`` is the row's 0-based position in its file in both layouts, so both give the same records.
A label other than 0/1 (or a ClassLabel name other than FLAN's words), an empty sentence, a row without four
fields is one ``DataError`` naming the file and the line (or parquet row). README: Deviations and decisions.
"""

from __future__ import annotations

from pathlib import Path

from lm_eval_enterprise.tasks.nlu.english import GLUE_HF_REPO, HUB_REVISION, HubOrFilesSource, read_glue_tsv

from lm_eval_enterprise.data import DataError, require_text, verified

LABELS = ("unacceptable", "acceptable")  # FLAN's cola options = GLUE labels 0, 1
HUB_SPLITS = {"train": "train", "valid": "validation"}
PUBLISHED = {"train": "train.tsv", "valid": "dev.tsv"}
HUB_COLUMNS = ("sentence", "label", "idx")
TSV_FIELDS = 4  # source, label, author mark, sentence


def record(idx: int, sentence, label: str, where: str) -> dict:
    text = require_text(sentence, "cola", where, f"row {idx}: empty or missing sentence")
    return {"id": str(idx), "text": text, "label": label}


def hub_record(row: dict, where: str, names) -> dict:
    """One hub parquet row → a record (``names``: the ClassLabel names of ``label``, :data:`LABELS` expected)."""
    if list(names or ()) != list(LABELS):
        raise DataError("cola", where, f"label names {names!r} of the parquet file are not {list(LABELS)}")
    label = row["label"]
    if isinstance(label, bool) or not isinstance(label, int) or not 0 <= label < len(LABELS):
        raise DataError("cola", where, f"label {label!r} is not 0 (unacceptable) or 1 (acceptable)")
    if isinstance(row["idx"], bool) or not isinstance(row["idx"], int):
        raise DataError("cola", where, f"idx {row['idx']!r} is not an integer")
    return record(row["idx"], row["sentence"], LABELS[label], where)


def tsv_record(where: str, idx: int, fields: list[str]) -> dict:
    """One row of GLUE's ``dev.tsv`` / ``train.tsv`` → a record (the author mark, field 3, is not read)."""
    _source, label, _mark, sentence = fields
    if label not in ("0", "1"):
        raise DataError("cola", where, f"label {label!r} is not 0 (unacceptable) or 1 (acceptable)")
    return record(idx, sentence, LABELS[int(label)], where)


class CoLA(HubOrFilesSource):
    id = "cola"
    domain = "nlu"
    task_type = "classification_mcc"
    hf_repo = GLUE_HF_REPO
    hf_revision = HUB_REVISION
    hf_prefix = "cola"
    hub_splits = HUB_SPLITS
    hf_splits = tuple(HUB_SPLITS.values())
    published = PUBLISHED
    archive = "CoLA"
    labels = LABELS
    fewshot_source_split = "train"
    expected_rows = {
        "train": verified(
            8551,
            "counted on GLUE's genuine CoLA/train.tsv (sha256 cb368ebe…, in CoLA.zip sha256 f212fcd8…); the hub "
            "copy is converted from the same file",
        ),
        "valid": verified(
            1043,
            "counted on GLUE's genuine CoLA/dev.tsv (sha256 8c013e21…, 527 in-domain + 516 out-of-domain rows); "
            "the hub copy is converted from the same file",
        ),
    }

    def hub_records(self, raw_dir: Path, hub_split: str) -> list[dict]:
        return self.parquet_records(
            raw_dir, hub_split, hub_record, HUB_COLUMNS, class_label="label", class_names=LABELS
        )

    def published_records(self, path: Path, split: str) -> list[dict]:
        return [
            tsv_record(where, idx, fields) for where, idx, fields in read_glue_tsv(path, self.id, n_fields=TSV_FIELDS)
        ]


SOURCE = CoLA()
