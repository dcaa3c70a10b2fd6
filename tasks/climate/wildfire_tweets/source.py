"""wildfire_tweets — "Tweets about Wildfire and climate change", HF ``rubrix/wildfire_tweets`` (Apache-2.0).

**Provisional** (our decision, README Deviations): fewer than 100 eval rows, so probably not the paper's exact source.

Source layout: the repo's parquet file ``data/train-00000-of-00001.parquet`` (listed with the hub API, pinned to
commit a28e393; the ``data/unlabelled-*`` file is not downloaded), 104 rows with columns ``text`` and ``label``
(ClassLabel ``["against", "favor", "none"]``, stored as integers; the names are read from the file's
``huggingface`` schema metadata when present). Recipe:

* drop ``none``; records ``{id: row index in the file, text, label}`` with labels ``favor`` / ``against``;
* few-shot pool = 5 rows chosen by [BAL] (``random.Random(0)``) from all labelled rows, kept in selection order
  (``train``); eval = every other labelled row in file order (``test``).
"""

from __future__ import annotations

import json
from pathlib import Path

from lm_eval_enterprise.data import (
    MANIFEST,
    DataError,
    HFParquetSource,
    check_count,
    hf_class_names,
    map_rows,
    read_parquet_rows,
    require_text,
    unverified,
    verified,
)
from lm_eval_enterprise.data.fewshot import helm_balanced

HF_REPO = "rubrix/wildfire_tweets"
HF_COMMIT = "a28e393ac0dac81655bd2076743b29697fca827d"  # "Upload dataset_infos.json" (main, 2022-08)
CLASS_NAMES = ("against", "favor", "none")  # dataset_infos.json ClassLabel order
LABELS = ("favor", "against")
DROPPED = "none"
N_SHOTS = 5
SOURCE_ROWS = unverified(104, "train num_examples of the hub's dataset_infos.json; parquet not counted")


def label_name(value, names) -> str:
    """The ``label`` cell (ClassLabel index, or already a name) → class name; anything else → ValueError."""
    if isinstance(value, str) and value in names:
        return value
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(names):
        return names[value]
    raise ValueError(f"label {value!r} is not one of {list(names)} or their indices")


def to_record(row: dict, index: int, names, where: str) -> dict | None:
    """One source row → ``{id, text, label}``; ``None`` for the dropped class ``none``."""
    try:
        label = label_name(row["label"], names)
        text = row["text"]
    except (KeyError, ValueError) as exc:
        raise DataError("wildfire_tweets", where, f"bad row {index} ({type(exc).__name__}: {exc})") from exc
    require_text(text, "wildfire_tweets", where, f"row {index}: empty 'text'")
    if label == DROPPED:
        return None
    return {"id": str(index), "text": text, "label": label}


def split_records(records: list[dict], k: int = N_SHOTS) -> dict[str, list[dict]]:
    """[BAL] picks ``k`` shots from all labelled records (selection order kept); the rest, in order, is eval."""
    shots = helm_balanced(records, lambda r: r["label"], k)
    chosen = {r["id"] for r in shots}
    return {"train": shots, "test": [r for r in records if r["id"] not in chosen]}


class WildfireTweets(HFParquetSource):
    id = "wildfire_tweets"
    domain = "climate"
    task_type = "classification_weighted"
    hf_repo = HF_REPO
    hf_revision = HF_COMMIT
    hf_prefix = "data"
    hf_splits = ("train",)
    hf_layout_hint = "{prefix}{split}-*.parquet"
    expected_rows = {
        "train": unverified(N_SHOTS, "recipe: 5 [BAL] shots from the labelled rows"),
        "test": unverified(None, "labelled rows minus the shots: depends on the uncounted share of 'none'"),
    }
    labels = LABELS
    fewshot_preordered = True  # convert() made the [BAL] selection over all labelled rows

    def convert(self, raw_dir: Path) -> dict[str, list[dict]]:
        records = []
        index = 0
        for path in self.parquet_files(raw_dir, "train"):
            names = hf_class_names(path, "label") or list(CLASS_NAMES)
            if set(names) != set(CLASS_NAMES):
                raise DataError(self.id, path, f"label classes {names}, expected {list(CLASS_NAMES)}")
            for row in read_parquet_rows([path], self.id, ("text", "label")):
                rec = to_record(row, index, names, str(path))
                index += 1
                if rec is not None:
                    records.append(rec)
        return split_records(records)

    def source_row_count(self, data_dir: Path) -> int:
        import pyarrow.parquet as pq

        return sum(pq.ParquetFile(p).metadata.num_rows for p in self.parquet_files(data_dir, "train"))

    def check_rows(self, splits: dict[str, list[dict]], data_dir: Path, provided=None) -> list:
        """The split counts plus, for the parquet layout, the file's own size: ≈104 rows before dropping ``none``
        (unverified; ``MANIFEST.json`` may pin ``expected_source_rows`` exactly), since the eval size after the
        drop is not known in advance."""
        checks = super().check_rows(splits, data_dir, provided)
        if not self.has_source_layout(data_dir):
            return checks
        expected = SOURCE_ROWS
        manifest = data_dir / MANIFEST
        if manifest.exists() and "expected_source_rows" in json.loads(manifest.read_text()):
            expected = verified(json.loads(manifest.read_text())["expected_source_rows"], MANIFEST)
        n = self.source_row_count(data_dir)
        checks.append(
            check_count(self.id, "source_rows", n, expected, data_dir, subject=f"the train parquet file has {n:,} rows")
        )
        return checks

    def convert_presplit(self, rows: dict[str, list[dict]], data_dir: Path) -> dict[str, list[dict]]:
        """``train/test.jsonl`` already split (train = the shots in selection order), rows ``{id?, text, label}``
        with ``label`` a class name or ClassLabel index; ``id`` defaults to the row's position in its file."""
        out = {}
        for split, rs in rows.items():
            out[split] = map_rows(
                [{**r, "_i": r.get("id", i)} for i, r in enumerate(rs)],
                lambda r, s=split: to_record(r, r["_i"], CLASS_NAMES, f"{data_dir}/{s}.jsonl"),
                self.id,
                split,
            )
        return out


SOURCE = WildfireTweets()
