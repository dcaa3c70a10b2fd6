"""The file layouts the four English NLU datasets (cola, stsb, mnli, squad) share: the hub's parquet copy, which a
download fetches, or the files as their authors published them, which a user may already hold.

* **Hub parquet** (the default layout, :class:`HubOrFilesSource` is an ``HFParquetSource``): the data files of a
  Hugging Face dataset repository under their repository paths, e.g. ``cola/validation-00000-of-00001.parquet`` of
  ``nyu-mll/glue`` or ``plain_text/validation-00000-of-00001.parquet`` of ``rajpurkar/squad`` (shard names are never
  hard-coded: ``lm_eval_enterprise.data.hf_parquet_split``).
* **Published files**: one file per split under its published name — GLUE's TSV release (``dev.tsv`` /
  ``train.tsv``; MNLI ``dev_matched.tsv`` / ``train.tsv``), SQuAD's ``dev-v1.1.json`` / ``train-v1.1.json`` —
  directly in the data folder or in the folder the GLUE archive unpacks to (``CoLA/dev.tsv``: a user who unzipped
  ``CoLA.zip`` into the data folder, or ran ``prepare --from`` on the unzipped folder). The archive itself is not
  read: a folder holding only ``CoLA.zip`` is one error line saying to unzip it.

In both layouts the evaluated split's file is what makes the folder a source layout; the few-shot pool's file is
optional: a folder without it (a genuine sample of the dev file only, or a user who fetched only the dev set) has
no such split, is not counted for it, and says so once in the log. Whether a run can do without the pool is the
data layer's decision (``lm_eval_enterprise.data.checks.require_splits``). A folder holding the evaluated split in
both layouts is an error (which copy is meant is not guessed).

:func:`read_glue_tsv` reads GLUE's TSV files as GLUE's own loaders do (the Hugging Face ``glue`` script, the
source of the hub copy): UTF-8, universal newlines, tab-separated **with quoting disabled** (``csv.QUOTE_NONE``:
STS-B has sentences with an unbalanced ``"``, which a quoting reader merges with the next row), the row's
0-based position in the file as its ``idx``. Every row must have the expected number of fields; a blank line, a
short or long row, a missing header column is one ``DataError`` naming the file and line.
"""

from __future__ import annotations

import csv
import io
import logging
from collections.abc import Sequence
from pathlib import Path

from lm_eval_enterprise.data import DataError, HFParquetSource, local_parquet_files, read_text_utf8

log = logging.getLogger("lm_eval_enterprise.data")

GLUE_HF_REPO = "nyu-mll/glue"
# a named revision: no commit sha of the repository could be confirmed offline (the READMEs say so); the sha256 of
# every downloaded file is recorded in the task metadata instead
HUB_REVISION = "main"
GLUE_ARCHIVE_URL = "https://dl.fbaipublicfiles.com/glue/data/{archive}.zip"


class HubOrFilesSource(HFParquetSource):
    """A Source whose data folder holds the hub's parquet files or the published files (module docstring).

    Subclasses set the ``HFParquetSource`` attributes (``hf_repo``, ``hf_revision``, ``hf_prefix``,
    ``hf_splits``), :attr:`hub_splits` (our split → the hub's split name), :attr:`published` (our split → the
    published file name), :attr:`archive` (the folder and zip name of the published archive, ``""`` for none) and
    implement :meth:`hub_records` and :meth:`published_records`.
    """

    eval_split = "valid"
    fewshot_optional = True  # a folder holding the evaluated file alone serves zero-shot runs
    hf_layout_hint = "{prefix}{split}-*.parquet"
    hub_splits: dict[str, str] = {}
    published: dict[str, str] = {}
    archive: str = ""

    # -- what subclasses implement ------------------------------------------------------------------------------
    def hub_records(self, raw_dir: Path, hub_split: str) -> list[dict]:
        """The records of one hub split (``self.parquet_records``)."""
        raise NotImplementedError

    def published_records(self, path: Path, split: str) -> list[dict]:
        """The records of one published file."""
        raise NotImplementedError

    # -- the two layouts ----------------------------------------------------------------------------------------
    def hub_present(self, d: Path) -> dict[str, str]:
        """Our split → its hub split, for the hub splits the folder holds parquet files of."""
        found = local_parquet_files(d, self.hf_prefix)
        return {split: hub for split, hub in self.hub_splits.items() if found.get(hub)}

    def published_present(self, d: Path) -> dict[str, Path]:
        """Our split → its published file, for the files the folder holds (directly, else in the archive's
        folder); a file in both places is an error."""
        out = {}
        for split, name in self.published.items():
            places = [p for p in (d / name, d / self.archive / name if self.archive else None) if p and p.is_file()]
            if len(places) > 1:
                raise DataError(self.id, d, f"holds {name} twice ({places[0]} and {places[1]}); keep one")
            if places:
                out[split] = places[0]
        return out

    def layout(self, d: Path) -> str | None:
        """``"hub"``, ``"published"`` or ``None``: which layout holds the evaluated split."""
        hub = self.eval_split in self.hub_present(d)
        files = self.eval_split in self.published_present(d)
        if hub and files:
            raise DataError(
                self.id,
                d,
                f"holds the evaluated split twice: as hub parquet files under {self.hf_prefix}/ and as "
                f"{self.published[self.eval_split]}; keep one layout",
            )
        return "hub" if hub else "published" if files else None

    def archive_zip(self, d: Path) -> Path | None:
        zipped = d / f"{self.archive}.zip"
        return zipped if self.archive and zipped.is_file() else None

    def has_source_layout(self, d: Path) -> bool:
        return d.is_dir() and (self.layout(d) is not None or self.archive_zip(d) is not None)

    def convert(self, raw_dir: Path) -> dict[str, list[dict]]:
        layout = self.layout(raw_dir)
        if layout is None:
            zipped = self.archive_zip(raw_dir)
            raise DataError(
                self.id,
                zipped or raw_dir,
                f"the archive is not read: unzip it into this folder (its {self.archive}/ folder holds "
                f"{self.published[self.eval_split]}), or run `prepare --dataset {self.id} --from` on the unzipped "
                f"{self.archive}/ folder",
            )
        if layout == "hub":
            present = self.hub_present(raw_dir)
            splits = {split: self.hub_records(raw_dir, hub) for split, hub in present.items()}
            absent = [f"{self.hf_prefix}/{hub}-*.parquet" for s, hub in self.hub_splits.items() if s not in present]
        else:
            files = self.published_present(raw_dir)
            splits = {split: self.published_records(path, split) for split, path in files.items()}
            absent = [name for s, name in self.published.items() if s not in files]
        if absent:
            log.info("[%s] %s: no %s; those splits are absent", self.id, raw_dir, ", ".join(absent))
        return splits

    def check_rows(self, splits: dict[str, list[dict]], data_dir: Path, provided=None) -> list:
        """The counts of the splits the folder holds (an absent optional file is no count of 0)."""
        return super().check_rows(splits, data_dir, list(splits) if provided is None else provided)


def _rows(reader, path: Path, dataset: str):
    """The reader's rows; a line the csv module refuses (a NUL byte) is one error naming it."""
    while True:
        try:
            yield next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise DataError(dataset, f"{path}:{reader.line_num}", f"not a TSV line ({exc})") from exc


def read_glue_tsv(
    path: Path, dataset: str, *, columns: Sequence[str] | None = None, n_fields: int | None = None
) -> list[tuple[str, int, list[str] | dict[str, str]]]:
    """The rows of one GLUE TSV file as ``(where, idx, row)``: ``where`` = ``<file>:<line>``, ``idx`` the row's
    0-based position among the data rows (the hub copy's ``idx``), ``row`` the fields (a list of ``n_fields``
    fields for a file without header, CoLA) or ``{column: field}`` (a file with a header row holding every one of
    ``columns``, STS-B and MNLI; every row has as many fields as the header). Module docstring: the reading rules."""
    text = read_text_utf8(path, dataset, "cannot read the TSV file")
    reader = csv.reader(io.StringIO(text, newline=None), delimiter="\t", quoting=csv.QUOTE_NONE)
    header: list[str] | None = None
    out: list[tuple[str, int, list[str] | dict[str, str]]] = []
    for fields in _rows(reader, path, dataset):
        where = f"{path}:{reader.line_num}"
        if columns is not None and header is None:
            header = fields
            missing = [c for c in columns if c not in header]
            if missing:
                raise DataError(dataset, where, f"the header row lacks the columns {missing} (has {header})")
            continue
        want = len(header) if header is not None else n_fields
        if not fields:
            raise DataError(dataset, where, "blank line (every line of a GLUE TSV file is a row)")
        if want is not None and len(fields) != want:
            raise DataError(
                dataset, where, f"{len(fields)} tab-separated fields, expected {want} (a tab inside a sentence?)"
            )
        out.append((where, len(out), dict(zip(header, fields)) if header is not None else fields))
    if columns is not None and header is None:
        raise DataError(dataset, path, "the file is empty (no header row)")
    if not out:
        raise DataError(dataset, path, "the file holds no rows")
    return out
