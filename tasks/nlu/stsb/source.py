"""stsb — the Semantic Textual Similarity Benchmark (Cer et al., SemEval-2017), GLUE version: how similar are two
English sentences, on a scale from 0 (no meaning overlap) to 5 (meaning equivalence)?

Layouts (:mod:`lm_eval_enterprise.tasks.nlu.english`):

* **hub parquet** (what a download fetches): HF ``nyu-mll/glue``, config ``stsb``, named revision ``main`` (commit
  sha unconfirmed), ``stsb/train-*.parquet`` → ``train`` (the few-shot pool), ``stsb/validation-*.parquet`` →
  ``valid`` (the evaluated split; GLUE's test split has no scores and is not fetched). Columns ``sentence1``,
  ``sentence2``, ``label`` (a float32 score), ``idx``.
* **GLUE's TSV release** (``STS-B.zip``, unzipped): ``dev.tsv`` → ``valid`` (required), ``train.tsv`` → ``train``
  (optional), directly in the data folder or in ``STS-B/``. A header row ``index genre filename year old_index
  source1 source2 sentence1 sentence2 score``; parsed with quoting disabled (the genuine files hold sentences
  with an unbalanced ``"``: 19 in dev, 63 in train). Only ``sentence1``, ``sentence2`` and ``score`` are read, so
  the genre spelling that differs by split (``main-forum`` in train, ``main-forums`` in dev) does not matter.

Record ``{id: str(idx), sentence1, sentence2, score, target}``: ``target`` is the score as text (:func:`score_text`:
``"3.8"``, ``"4.75"``, ``"5"``, trailing zeros dropped) and ``score`` the number that text states, so a float32
score of the hub copy (3.799999952…) and the TSV's ``3.800`` give the same record. ``idx`` is the row's 0-based
position in its file in both layouts. The evaluation order is stratified by the score rounded to an integer
(:meth:`STSB.eval_stratum`), so that every ``--limit`` prefix spans the scale. A score that is not a number in
[0, 5], an empty sentence, a short row is one ``DataError`` naming the file and the line (or parquet row).
README: Deviations and decisions.
"""

from __future__ import annotations

import math
from pathlib import Path

from lm_eval_enterprise.tasks.nlu.english import GLUE_HF_REPO, HUB_REVISION, HubOrFilesSource, read_glue_tsv

from lm_eval_enterprise.data import DataError, require_text, verified

HUB_SPLITS = {"train": "train", "valid": "validation"}
PUBLISHED = {"train": "train.tsv", "valid": "dev.tsv"}
HUB_COLUMNS = ("sentence1", "sentence2", "label", "idx")
TSV_COLUMNS = ("sentence1", "sentence2", "score")
MAX_SCORE = 5.0


def score_text(score: float) -> str:
    """The score as the answer text of a shot and the reference: at most four decimals, trailing zeros and a
    trailing point dropped (``3.8`` → ``"3.8"``, ``4.75`` → ``"4.75"``, ``5.0`` → ``"5"``, ``0.0`` → ``"0"``; a
    float32 ``3.799999952`` → ``"3.8"``). GLUE's scores have at most three decimals."""
    return f"{score:.4f}".rstrip("0").rstrip(".")


def score_stratum(score: float) -> int:
    """The score rounded to the nearest integer, halves up (``2.4`` → 2, ``2.5`` → 3, ``4.75`` → 5)."""
    return int(math.floor(score + 0.5))


def record(idx: int, sentence1, sentence2, score, where: str) -> dict:
    """``{id, sentence1, sentence2, score, target}``; ``score`` a number (or its text) in [0, 5]."""
    s1 = require_text(sentence1, "stsb", where, f"row {idx}: empty or missing sentence1")
    s2 = require_text(sentence2, "stsb", where, f"row {idx}: empty or missing sentence2")
    value = score
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            value = None
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if not ok or not 0.0 <= value <= MAX_SCORE:
        raise DataError("stsb", where, f"row {idx}: score {score!r} is not a similarity score in [0, 5]")
    target = score_text(float(value))
    return {"id": str(idx), "sentence1": s1, "sentence2": s2, "score": float(target), "target": target}


def hub_record(row: dict, where: str) -> dict:
    """One hub parquet row → a record (``label`` is the score)."""
    if isinstance(row["idx"], bool) or not isinstance(row["idx"], int):
        raise DataError("stsb", where, f"idx {row['idx']!r} is not an integer")
    return record(row["idx"], row["sentence1"], row["sentence2"], row["label"], where)


def tsv_record(where: str, idx: int, row: dict[str, str]) -> dict:
    """One row of GLUE's ``dev.tsv`` / ``train.tsv`` → a record."""
    return record(idx, row["sentence1"], row["sentence2"], row["score"], where)


class STSB(HubOrFilesSource):
    id = "stsb"
    domain = "nlu"
    task_type = "similarity"
    hf_repo = GLUE_HF_REPO
    hf_revision = HUB_REVISION
    hf_prefix = "stsb"
    hub_splits = HUB_SPLITS
    hf_splits = tuple(HUB_SPLITS.values())
    published = PUBLISHED
    archive = "STS-B"
    fewshot_source_split = "train"
    expected_rows = {
        "train": verified(
            5749,
            "counted on GLUE's genuine STS-B/train.tsv (sha256 41c4d978…, in STS-B.zip sha256 e60a6393…; parsed "
            "with quoting disabled); the hub copy is converted from the same file",
        ),
        "valid": verified(
            1500,
            "counted on GLUE's genuine STS-B/dev.tsv (sha256 fe7dc063…; parsed with quoting disabled); the hub "
            "copy is converted from the same file",
        ),
    }

    def hub_records(self, raw_dir: Path, hub_split: str) -> list[dict]:
        return self.parquet_records(raw_dir, hub_split, hub_record, HUB_COLUMNS)

    def published_records(self, path: Path, split: str) -> list[dict]:
        return [tsv_record(where, idx, row) for where, idx, row in read_glue_tsv(path, self.id, columns=TSV_COLUMNS)]

    def eval_stratum(self, record: dict) -> int:
        """The evaluation order is stratified by the rounded score, so that every prefix (``--limit``) covers the
        scale in proportion (docs/data.md#evaluation-order)."""
        return score_stratum(record["score"])


SOURCE = STSB()
