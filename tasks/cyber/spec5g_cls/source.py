"""spec5g_cls — SPEC5G sentence classification "5GSC" (Karim et al., AACL 2023); also the shared SPEC5G download.

Source layout: ``5GSC.csv`` from the SPEC5G Google Drive folder (``1Km1wdYnwjdGHiULFO0GL8JZFtDT5ZDb_``, linked from
GitHub ``SysNetS/SPEC5G``), columns ``text`` and ``label`` ∈ {0, 1, 2}. Google Drive has no plain download URL for
a file of a folder, so :meth:`SPEC5GDriveSource.download` uses the optional ``gdown`` client (``pip install
"gdown>=5"``); without it, or when Drive refuses, one :class:`DataError` line tells the user to place the file by hand
in ``$LM_EVAL_ENTERPRISE_DATA/<id>/`` (or ``--metadata '{"data_root": DIR}'``), which is always accepted.

Split (no official one): ``test = df.sample(frac=0.15, random_state=0)`` (evaluated in that order), the other rows
in file order = few-shot pool. The split is drawn on the whole file; rows whose text is empty are dropped
afterwards from both parts (counted in the log), so a bad row never shifts the split.
"""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

from lm_eval_enterprise.data import DataError, RemoteFile, Source, map_rows, unverified

log = logging.getLogger("lm_eval_enterprise.data")

DRIVE_FOLDER_ID = "1Km1wdYnwjdGHiULFO0GL8JZFtDT5ZDb_"
DRIVE_FOLDER_URL = f"https://drive.google.com/drive/folders/{DRIVE_FOLDER_ID}"
CSV_NAME = "5GSC.csv"
TEST_FRAC = 0.15
SEED = 0

# Verbaliser (id → class name), the one constant every template and the metric use. NOT verified against a
# published class definition (none was found: see the README): 0/1 are supported by the authors' task ("security-
# related text classification") and the class statistics of the genuine file; class 2 has no published name and is
# called "other" so that no template builds a meaning into it (the earlier "procedure" was a guess its members
# contradict). The task metadata carries label_names_verified: false and this note until the names are confirmed.
LABEL_NAMES: dict[int, str] = {0: "not security related", 1: "security related", 2: "other"}
LABEL_NAMES_VERIFIED = False
LABEL_NAMES_NOTE = (
    "class names unverified: no published definition of the three 5GSC classes was found; 0 = not "
    "security related and 1 = security related are inferred (authors' security-related text "
    "classification task; 18.9 % of class-1 vs 3.0 % of class-0 sentences name a security concept); "
    "class 2 is unexplained (short, often context-dependent sentences; no more 'procedure' "
    "sentences than class 0) and is called 'other'"
)


# ---------------------------------------------------------------------------------------------- shared SPEC5G code
def gdown_fetch(
    file_name: str, dest: Path, dataset: str, progress: bool = True, folder_id: str = DRIVE_FOLDER_ID
) -> Path:
    """Download ``file_name`` of the SPEC5G Drive folder to ``dest/file_name`` with the optional ``gdown`` client.

    The folder is listed with ``gdown.download_folder(id=..., skip_download=True)`` (gdown ≥ 5), the entry whose
    path ends with ``file_name`` is fetched with ``gdown.download(id=..., output=...)``. Any failure (gdown not
    installed, Drive quota/permission, file not in the folder) → one :class:`DataError` line saying how to
    provide the file by hand.
    """
    by_hand = (
        f"download {file_name} from {DRIVE_FOLDER_URL} by hand and run `lm-eval-enterprise prepare --dataset "
        f"{dataset} --from PATH`, or put it in $LM_EVAL_ENTERPRISE_DATA/{dataset}/ (or pass --metadata "
        f"'{{\"data_root\": DIR}}' with DIR/{dataset}/)"
    )
    try:
        import gdown  # optional dependency: Google Drive client
    except ImportError as exc:
        raise DataError(
            dataset,
            DRIVE_FOLDER_URL,
            f"automatic download needs the optional package gdown (pip install 'gdown>=5'); or {by_hand}",
        ) from exc
    target = dest / file_name
    dest.mkdir(parents=True, exist_ok=True)
    try:
        entries = (
            gdown.download_folder(
                id=folder_id, output=str(dest / ".listing"), quiet=not progress, skip_download=True, remaining_ok=True
            )
            or []
        )
        match = next(
            (e for e in entries if str(getattr(e, "path", e)).replace("\\", "/").split("/")[-1] == file_name), None
        )
        if match is None:
            raise FileNotFoundError(f"{file_name} not listed in the Drive folder")
        out = gdown.download(id=match.id, output=str(target), quiet=not progress)
        if not out or not target.exists():
            raise OSError("gdown returned no file")
    except Exception as exc:  # gdown raises its own errors for quota/permission/HTML pages; TypeError: gdown < 5
        target.unlink(missing_ok=True)
        text = str(exc).strip().splitlines()
        raise DataError(
            dataset,
            DRIVE_FOLDER_URL,
            f"Google Drive download failed ({type(exc).__name__}{': ' + text[0] if text else ''}); {by_hand}",
        ) from exc
    finally:
        shutil.rmtree(dest / ".listing", ignore_errors=True)
    return target


def read_csv(path: Path, dataset: str, columns: tuple[str, ...]):
    """The CSV as a pandas DataFrame (default RangeIndex = row index); missing columns → :class:`DataError`."""
    import pandas as pd

    try:
        df = pd.read_csv(path, keep_default_na=False, dtype=str)
    except (OSError, ValueError, pd.errors.ParserError) as exc:
        raise DataError(dataset, path, f"cannot read the CSV ({type(exc).__name__})") from exc
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise DataError(dataset, path, f"missing columns {missing} (has {list(df.columns)})")
    return df


def seeded_split(df, frac: float = TEST_FRAC, seed: int = SEED):
    """``test = df.sample(frac=frac, random_state=seed)``; pool = the other rows in file order (README, Split)."""
    test = df.sample(frac=frac, random_state=seed)
    return df.drop(test.index), test


class SPEC5GDriveSource(Source):
    """Base of the two SPEC5G datasets: one CSV of the Drive folder, seeded 15 % test split."""

    csv_name: str = ""
    # other names the same file is published under (publishers disagree), accepted in this order after csv_name
    csv_aliases: tuple[str, ...] = ()
    csv_columns: tuple[str, ...] = ()
    fewshot_source_split = "train"

    @property
    def files(self) -> tuple[RemoteFile, ...]:  # type: ignore[override]
        return (RemoteFile(self.csv_name, DRIVE_FOLDER_URL),)

    def csv_path(self, d: Path) -> Path:
        """The data file of folder ``d``: ``csv_name``, else the first of ``csv_aliases`` present."""
        return next((d / n for n in (self.csv_name, *self.csv_aliases) if (d / n).is_file()), d / self.csv_name)

    def has_source_layout(self, d: Path) -> bool:
        return self.csv_path(d).is_file()

    def download(self, dest: Path, progress: bool = True) -> None:
        """``csv_name`` from the Drive folder; when the folder does not list it, each of ``csv_aliases`` in turn
        (a failure of the last is reported as the failure of ``csv_name``)."""
        names = (self.csv_name, *self.csv_aliases)
        first: DataError | None = None
        for i, name in enumerate(names):
            try:
                gdown_fetch(name, dest, self.id, progress)
                return
            except DataError as exc:
                first = first or exc
                if i + 1 == len(names) or "not listed in the Drive folder" not in exc.problem:
                    raise first from None
                log.warning("[%s] %s not in the Drive folder; trying %s", self.id, name, names[i + 1])

    def to_record(self, row: dict, where: str) -> dict | None:
        raise NotImplementedError

    def _records(self, rows: list[dict], where: str, split: str) -> list[dict]:
        def fn(r: dict) -> dict | None:
            return self.to_record(r, f"{where}:row {r['_row']}")

        return map_rows(rows, fn, self.id, split)

    def convert(self, raw_dir: Path) -> dict[str, list[dict]]:
        path = self.csv_path(raw_dir)
        df = read_csv(path, self.id, self.csv_columns)
        pool, test = seeded_split(df)
        out = {}
        for split, part in (("train", pool), ("test", test)):
            rows = [{**r, "_row": int(i)} for i, r in zip(part.index, part.to_dict("records"))]
            out[split] = self._records(rows, str(path), split)
        return out

    def convert_presplit(self, rows: dict[str, list[dict]], data_dir: Path) -> dict[str, list[dict]]:
        """``train/test.jsonl`` with the CSV columns plus the original row index in ``_row`` (or ``id``)."""
        out = {}
        for split, rs in rows.items():
            fixed = []
            for n, r in enumerate(rs, 1):
                if "_row" not in r and "id" not in r:
                    raise DataError(self.id, data_dir / f"{split}.jsonl:{n}", "row has no '_row'/'id' (row index)")
                fixed.append({**r, "_row": r.get("_row", r.get("id"))})
            out[split] = self._records(fixed, str(data_dir / f"{split}.jsonl"), split)
        return out


# ---------------------------------------------------------------------------------------------- 5GSC
def label_name(value, where: str) -> str:
    """``0``/``1``/``2`` (also ``"1.0"``) → class name of :data:`LABEL_NAMES`."""
    try:
        key = int(float(str(value).strip()))
        if str(value).strip() not in (str(key), f"{key}.0"):
            raise ValueError
        return LABEL_NAMES[key]
    except (ValueError, KeyError):
        raise DataError("spec5g_cls", where, f"label {value!r} is not one of {sorted(LABEL_NAMES)}") from None


class Spec5GCls(SPEC5GDriveSource):
    id = "spec5g_cls"
    domain = "cyber"
    task_type = "classification_weighted"
    csv_name = CSV_NAME
    csv_columns = ("text", "label")
    expected_rows = {
        "train": unverified(None, "no published size for 5GSC.csv"),
        "test": unverified(None, "no published size for 5GSC.csv (seeded 15 %)"),
    }
    labels = tuple(LABEL_NAMES.values())

    def to_record(self, row: dict, where: str) -> dict | None:
        label = label_name(row["label"], where)
        text = str(row["text"])
        if not text.strip():
            return None  # empty sentence: dropped (counted by map_rows)
        return {"id": str(row["_row"]), "text": text, "label": label}


SOURCE = Spec5GCls()
