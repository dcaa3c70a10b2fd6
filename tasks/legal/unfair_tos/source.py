"""unfair_tos — UNFAIR-ToS (Lippi et al. 2019) in its LegalBench form (single-label, 8 unfair types + Other).

Source layout (two origins, see README Source row):

* test: the hub's auto-converted parquet files of the script-based HF dataset ``nguha/legalbench`` (revision
  ``refs/convert/parquet``), config ``unfair_tos``: ``unfair_tos/test/*.parquet`` (listed with the hub API, shard
  names not hard-coded), columns ``text``, ``answer``, ``index``; 3,813 rows stated — or, when the hub cannot be
  had (the download's fallback, or a user's own copy), ``test.tsv`` of GitHub ``HazyResearch/legalbench``
  ``tasks/unfair_tos/test.tsv`` (same commit and columns as train.tsv), which has 3,841 rows. The two releases
  differ by 28 rows; each layout is checked against its own count (both unverified: README, How to obtain);
* train: ``train.tsv`` of GitHub ``HazyResearch/legalbench`` ``tasks/unfair_tos/train.tsv`` (pinned commit),
  tab-separated with a header ``text, answer, index``; 9 rows, one per class = the few-shot pool.

Records (classification schema): ``{id: f"{split}-{index}", text (as stored, whitespace kept), label: answer}``;
``answer`` must be one of the 9 labels (matched after [NORM] and returned in the canonical spelling).
Pre-split layout (``train.jsonl``/``test.jsonl`` rows with ``text``, ``answer``, ``index``, as in
the real sample, docs/data.md#real-samples) goes through the same :func:`to_record`.
"""

from __future__ import annotations

import csv
import io
import logging
from pathlib import Path

from lm_eval_enterprise.data import (
    HF_CONVERTED_REVISION,
    DataError,
    HFParquetSource,
    RemoteFile,
    download_url,
    read_text_utf8,
    require_columns,
    require_text,
    unverified,
    verified,
)
from lm_eval_enterprise.text import norm

log = logging.getLogger("lm_eval_enterprise.data")

HF_REPO = "nguha/legalbench"
CONFIG = "unfair_tos"
GITHUB_COMMIT = "ce482446b8eac4403b6db2c17223af4514bb24e3"
TRAIN_TSV = "train.tsv"
TEST_TSV = "test.tsv"
GITHUB_RAW = f"https://raw.githubusercontent.com/HazyResearch/legalbench/{GITHUB_COMMIT}/tasks/unfair_tos"
TRAIN_URL = f"{GITHUB_RAW}/{TRAIN_TSV}"
TEST_URL = f"{GITHUB_RAW}/{TEST_TSV}"
TEST_ROWS = {  # the test split's count in each of the two layouts (README, How to obtain the data)
    "parquet": unverified(3813, "size stated for the hub's test split (refs/convert/parquet); not counted here"),
    "tsv": unverified(3841, "rows reported for LegalBench GitHub tasks/unfair_tos/test.tsv; not counted here"),
}
COLUMNS = ("text", "answer", "index")
LABELS = (
    "Arbitration",
    "Unilateral change",
    "Content removal",
    "Jurisdiction",
    "Choice of law",
    "Limitation of liability",
    "Unilateral termination",
    "Contract by using",
    "Other",
)
_BY_NORM = {norm(label): label for label in LABELS}


def canonical_label(value, where: str) -> str:
    """The class name of ``answer`` in the canonical spelling (``" choice of law "`` → ``"Choice of law"``)."""
    label = _BY_NORM.get(norm(value)) if isinstance(value, str) else None
    if label is None:
        raise DataError("unfair_tos", where, f"answer {value!r} is not one of {list(LABELS)}")
    return label


def row_index(value, where: str) -> int:
    """The ``index`` column as an int (parquet int64, TSV/JSON string or int)."""
    if isinstance(value, bool):
        raise DataError("unfair_tos", where, f"index {value!r} is not an integer")
    try:
        idx = int(value) if isinstance(value, int) else int(str(value).strip())
    except (TypeError, ValueError):
        raise DataError("unfair_tos", where, f"index {value!r} is not an integer") from None
    return idx


def to_record(row: dict, split: str, where: str) -> dict:
    """One LegalBench row → ``{id: f"{split}-{index}", text, label}`` (text kept as stored)."""
    require_columns(row, COLUMNS, "unfair_tos", where)
    text = require_text(row["text"], "unfair_tos", where, f"empty clause text (index {row['index']!r})")
    return {
        "id": f"{split}-{row_index(row['index'], where)}",
        "text": text,
        "label": canonical_label(row["answer"], where),
    }


def read_tsv(path: Path) -> list[dict]:
    """Rows of LegalBench's ``train.tsv`` (tab-separated, header line, csv quoting as ``pandas.read_csv``)."""
    content = read_text_utf8(path, "unfair_tos")
    reader = csv.DictReader(io.StringIO(content, newline=""), delimiter="\t")
    header = reader.fieldnames or []
    lacking = [c for c in COLUMNS if c not in header]
    if lacking:
        raise DataError("unfair_tos", path, f"missing columns {lacking} (header {header})")
    return [row for row in reader if any((v or "").strip() for v in row.values())]


def _check_unique(records: list[dict], where) -> None:
    seen = set()
    for r in records:
        if r["id"] in seen:
            raise DataError("unfair_tos", where, f"duplicate index in {r['id']!r}")
        seen.add(r["id"])


class UnfairTos(HFParquetSource):
    id = "unfair_tos"
    domain = "legal"
    task_type = "classification_weighted"
    hf_repo = HF_REPO
    hf_revision = HF_CONVERTED_REVISION
    hf_prefix = CONFIG
    hf_splits = ("test",)  # the train split comes from GitHub (train.tsv)
    train_file = RemoteFile(TRAIN_TSV, TRAIN_URL)
    expected_rows = {
        "train": verified(9, "counted on the genuine LegalBench train.tsv (9 rows)"),
        "test": TEST_ROWS["parquet"],  # the GitHub test.tsv layout: TEST_ROWS["tsv"] (expected_for)
    }
    labels = LABELS

    @property
    def files(self) -> tuple[RemoteFile, ...]:  # type: ignore[override]
        return super().files + (self.train_file,)

    def download(self, dest: Path, progress: bool = True) -> None:
        """The hub's test parquet, or — when the hub cannot be had — GitHub's test.tsv; then GitHub's train.tsv."""
        try:
            super().download(dest, progress)
        except DataError as hub_failure:
            log.warning("[%s] %s; trying GitHub's %s instead", self.id, hub_failure.problem, TEST_TSV)
            download_url(TEST_URL, dest / TEST_TSV, self.id, progress=progress)
        download_url(self.train_file.url, dest / self.train_file.name, self.id, progress=progress)

    def tsv_test(self, d: Path) -> bool:
        """The folder holds GitHub's test.tsv and no hub parquet (the parquet wins when both are there)."""
        return not super().has_source_layout(d) and (d / TEST_TSV).is_file()

    def has_source_layout(self, d: Path) -> bool:
        return (super().has_source_layout(d) or (d / TEST_TSV).is_file()) and (d / TRAIN_TSV).is_file()

    def expected_for(self, data_dir: Path) -> dict:
        expected = super().expected_for(data_dir)
        if self.tsv_test(data_dir) and expected.get("test") is TEST_ROWS["parquet"]:
            expected = {**expected, "test": TEST_ROWS["tsv"]}
        return expected

    def convert(self, raw_dir: Path) -> dict[str, list[dict]]:
        if self.tsv_test(raw_dir):
            path = raw_dir / TEST_TSV
            test = [to_record(r, "test", f"{path}:line {i + 2}") for i, r in enumerate(read_tsv(path))]
        else:
            test = self.parquet_records(raw_dir, "test", lambda r, where: to_record(r, "test", where), COLUMNS)
        tsv = raw_dir / TRAIN_TSV
        # line n + 2: the header is line 1 (rows with quoted newlines would shift this; none in LegalBench)
        train = [to_record(r, "train", f"{tsv}:line {i + 2}") for i, r in enumerate(read_tsv(tsv))]
        _check_unique(test, raw_dir / (TEST_TSV if self.tsv_test(raw_dir) else self.hf_prefix))
        _check_unique(train, tsv)
        return {"train": train, "test": test}

    def convert_presplit(self, rows: dict[str, list[dict]], data_dir: Path) -> dict[str, list[dict]]:
        """``train.jsonl``/``test.jsonl`` holding LegalBench rows (``text``, ``answer``, ``index``; extra fields such
        as the sample's ``label`` copy are ignored)."""
        out = {}
        for split, rs in rows.items():  # errors name the file and line (map_presplit)
            out |= self.map_presplit({split: rs}, data_dir, lambda r, where, s=split: to_record(r, s, where))
            _check_unique(out[split], data_dir / f"{split}.jsonl")
        return out


SOURCE = UnfairTos()
