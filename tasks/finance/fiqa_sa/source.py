"""fiqa_sa — FiQA 2018 Task 1 sentiment analysis, HF ``TheFinAI/fiqa-sentiment-classification`` (MIT).

Source layout: the repo's parquet files ``data/{train,valid,test}-00000-of-00001-<hash>.parquet`` (listed with the
hub API, pinned to the upload commit), columns ``_id``, ``sentence``, ``target``, ``aspect``, ``score`` (float64 in
[-1, 1]), ``type``. The continuous score becomes a class with our thresholds (:func:`score_label`; README, Deviations).
Official split: eval = test (234), few-shot pool = train (822); valid (117) is converted and checked only.
"""

from __future__ import annotations

import math
from pathlib import Path

from lm_eval_enterprise.data import DataError, HFParquetSource, require_text, unverified

HF_REPO = "TheFinAI/fiqa-sentiment-classification"
HF_COMMIT = "b669064ceb406dfc33a86a8ddce203b7395a0fa1"  # "Upload 4 files" (2024-03-04): data/*.parquet
COLUMNS = ("_id", "sentence", "target", "score")
LABELS = ("positive", "neutral", "negative")
THRESHOLD = 0.1


def score_label(score) -> str:
    """Our thresholds: ``negative`` if score < −0.1; ``neutral`` if −0.1 ≤ score < 0.1; ``positive`` if score ≥ 0.1.

    The comparison is on the float64 score as stored (``-0.1`` → neutral, ``0.1`` → positive).
    """
    s = float(score)
    if math.isnan(s):
        raise ValueError("score is NaN")
    if s < -THRESHOLD:
        return "negative"
    if s < THRESHOLD:
        return "neutral"
    return "positive"


def to_record(row: dict, where: str) -> dict:
    """One source row → ``{id: _id, text: sentence, target, label}``."""
    try:
        label = score_label(row["score"])
        rec = {"id": str(row["_id"]), "text": row["sentence"], "target": row["target"], "label": label}
    except (KeyError, TypeError, ValueError) as exc:
        raise DataError("fiqa_sa", where, f"bad row ({type(exc).__name__}: {exc})") from exc
    for field in ("text", "target"):
        require_text(rec[field], "fiqa_sa", where, f"row {rec['id']}: empty {field!r}")
    return rec


class FiqaSA(HFParquetSource):
    id = "fiqa_sa"
    domain = "finance"
    task_type = "classification_weighted"
    hf_repo = HF_REPO
    hf_revision = HF_COMMIT
    hf_prefix = "data"
    hf_splits = ("train", "valid", "test")
    hf_layout_hint = "{prefix}{split}-*.parquet"
    expected_rows = {
        s: unverified(n, "split sizes 822 / 117 / 234 stated by the hub card; genuine parquet not counted")
        for s, n in (("train", 822), ("valid", 117), ("test", 234))
    }
    labels = LABELS
    # the genuine files repeat _ids with different targets (one sentence, several aspects): kept, counted in the
    # results metadata (repeated_ids) — README, Deviations
    repeated_ids_note = "the genuine files repeat _ids for different targets of one sentence"

    def convert(self, raw_dir: Path) -> dict[str, list[dict]]:
        return {split: self.parquet_records(raw_dir, split, to_record, COLUMNS) for split in self.hf_splits}

    def convert_presplit(self, rows: dict[str, list[dict]], data_dir: Path) -> dict[str, list[dict]]:
        """``train/valid/test.jsonl`` holding the source rows (same columns, e.g. exported with ``datasets``)."""
        return self.map_presplit(rows, data_dir, to_record)


SOURCE = FiqaSA()
