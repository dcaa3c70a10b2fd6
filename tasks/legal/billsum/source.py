"""billsum — BillSum, US Congressional bills and their CRS summaries (Kornilova & Eidelman 2019).

Source layout: the parquet files of the HF dataset ``FiscalNote/billsum`` (CC0-1.0) as the hub stores them since
the "Convert dataset to Parquet" commit (pinned): ``data/{train,test,ca_test}-00000-of-00001.parquet`` (listed
with the hub API, never hard-coded), columns ``text``, ``summary``, ``title``. Only ``train`` (18,949, the few-shot
pool lm-eval requires even at 0 shots) and ``test`` (3,269 US bills, evaluated) are fetched; ``ca_test`` (California
bills) is unused.

Records (README, Record): ``{id: row index, document: " ".join(text.replace("\\n", " ").split())`` cut to its
first 2,048 words ([TRUNC], HELM ``doc_max_length``)``, summary: summary whitespace-collapsed}``.
"""

from __future__ import annotations

from pathlib import Path

from lm_eval_enterprise.data import HFParquetSource, read_parquet_rows, require_text, unverified
from lm_eval_enterprise.text import collapse_ws, truncate_words

HF_REPO = "FiscalNote/billsum"
HF_COMMIT = "80bf8bc45b509641bd203107fff6a1db72949eaa"  # "Convert dataset to Parquet": data/*.parquet
COLUMNS = ("text", "summary", "title")
DOC_MAX_WORDS = 2048


def to_record(index: int, row: dict, where: str) -> dict:
    """One parquet row → ``{id, document (collapsed, first 2,048 words), summary (collapsed)}``."""
    text = require_text(row.get("text"), "billsum", where, f"row {index}: empty or missing text")
    summary = require_text(row.get("summary"), "billsum", where, f"row {index}: empty or missing summary")
    document = collapse_ws(text)
    return {"id": str(index), "document": truncate_words(document, DOC_MAX_WORDS), "summary": collapse_ws(summary)}


class BillSum(HFParquetSource):
    id = "billsum"
    domain = "legal"
    task_type = "summarization"
    hf_repo = HF_REPO
    hf_revision = HF_COMMIT
    hf_prefix = "data"
    hf_splits = ("train", "test")  # ca_test is not evaluated (spec) and not downloaded
    hf_layout_hint = "{prefix}{split}-*.parquet"
    expected_rows = {
        "train": unverified(18949, "BillSum card: train 18,949 (test 3,269, ca_test 1,237); parquet not counted"),
        "test": unverified(3269, "BillSum card: test 3,269 (train 18,949, ca_test 1,237); parquet not counted"),
    }

    def convert(self, raw_dir: Path) -> dict[str, list[dict]]:
        out = {}
        for split in self.hf_splits:
            paths = self.parquet_files(raw_dir, split)
            records: list[dict] = []
            for path in paths:
                rows = read_parquet_rows([path], self.id, COLUMNS)
                records += [to_record(len(records) + i, r, str(path)) for i, r in enumerate(rows)]
            out[split] = records
        return out


SOURCE = BillSum()
