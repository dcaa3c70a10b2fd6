"""legal_summarization — Plain English Summarization of Contracts (Manor & Li 2019); HELM recipe.

Source layout: ``all_v1.json`` of ``lauramanor/legal_summarization`` (pinned commit 9d20329; HELM reads the same
file from ``master``): a dict keyed by uid → ``{doc, id, original_text, reference_summary, title, uid}``
(446 records; the TOS;DR records have no ``id``/``title``). HELM's split, reproduced exactly with pandas::

    df = pd.DataFrame.from_records(list(json.values())).dropna(subset=[original_text, reference_summary, uid])
    train = df.sample(frac=0.2, random_state=0)                       # 89
    test = df.drop(train.index).sample(frac=1, random_state=0)         # 357

Records: ``{id: uid, document: re.sub(r"\\s+", " ", original_text), summary: re.sub(r"\\s+", " ", reference_summary)}``.
"""

from __future__ import annotations

import re
from pathlib import Path

from lm_eval_enterprise.data import DataError, RemoteFile, Source, map_rows, read_json, verified
from lm_eval_enterprise.data.splits import pandas_frac_split

COMMIT = "9d203292eb188e13523366490863b0cc14c89017"
JSON_NAME = "all_v1.json"
JSON_URL = f"https://raw.githubusercontent.com/lauramanor/legal_summarization/{COMMIT}/{JSON_NAME}"
TEXT, SUMMARY, UID = "original_text", "reference_summary", "uid"  # HELM's column names
TRAIN_FRAC = 0.2
SEED = 0
_WS = re.compile(r"\s+")


def clean(text: str) -> str:
    """HELM ``_clean``: every whitespace run → one space (no strip)."""
    return _WS.sub(" ", text)


def has_fields(row: dict) -> bool:
    """A pre-split row has string ``uid`` / ``original_text`` / ``reference_summary``."""
    return all(isinstance(row.get(c), str) for c in (UID, TEXT, SUMMARY))


def helm_split(raw: dict):
    """HELM ``LegalContractSummarizationScenario._load_dataset`` on the loaded JSON dict → (train_df, test_df)."""
    import pandas as pd

    df = pd.DataFrame.from_records(list(raw.values()))
    missing = [c for c in (TEXT, SUMMARY, UID) if c not in df.columns]
    if missing:
        raise KeyError(", ".join(missing))
    df = df.dropna(subset=[TEXT, SUMMARY, UID])
    return pandas_frac_split(df, TRAIN_FRAC, SEED)


def to_record(row: dict) -> dict:
    """One source row (a JSON record, or a row of the pre-split files) → summarization record."""
    return {"id": str(row[UID]), "document": clean(str(row[TEXT])), "summary": clean(str(row[SUMMARY]))}


class LegalSummarization(Source):
    id = "legal_summarization"
    domain = "legal"
    task_type = "summarization"
    files = (RemoteFile(JSON_NAME, JSON_URL),)
    expected_rows = {  # pinned file, exact HELM split
        "train": verified(89, "HELM split reproduced on the genuine all_v1.json (446 records)"),
        "test": verified(357, "HELM split reproduced on the genuine all_v1.json (446 records)"),
    }
    fewshot_source_split = "train"  # 0 shots (paper), but lm-eval still gets a [BAL]-ordered pool

    def convert(self, raw_dir: Path) -> dict[str, list[dict]]:
        path = raw_dir / JSON_NAME
        raw = read_json(path, self.id, "cannot read the JSON file")
        if not isinstance(raw, dict) or not all(isinstance(v, dict) for v in raw.values()):
            raise DataError(self.id, path, "expected a JSON object mapping uid → record")
        try:
            train, test = helm_split(raw)
        except KeyError as exc:
            raise DataError(self.id, path, f"records lack the field(s) {exc}") from exc
        return {
            "train": [to_record(r) for r in train.to_dict("records")],
            "test": [to_record(r) for r in test.to_dict("records")],
        }

    def convert_presplit(self, rows: dict[str, list[dict]], data_dir: Path) -> dict[str, list[dict]]:
        """Rows already in HELM order (the real sample, docs/data.md#real-samples: test = first 300 of the HELM test
        order, train = all 89 HELM train rows), with the original fields; same per-row code as :meth:`convert`."""
        out = {}
        for split, rs in rows.items():
            self.check_presplit_rows(rs, data_dir, split, has_fields, f"row lacks a string {UID}/{TEXT}/{SUMMARY}")
            out[split] = map_rows(rs, to_record, self.id, split)
        return out


SOURCE = LegalSummarization()
