"""The file layout the four Japanese NLU datasets share: one published file per split, on GitHub, at a pinned commit.

JGLUE v1.3 (``yahoojapan/JGLUE``, tag ``v1.3.0``) publishes ``datasets/<task>-v1.3/{train,valid,test}-v1.3.json``
for JSTS, JNLI and JSQuAD (JSON lines; JSQuAD one SQuAD-style JSON document), and JCoLA v1.0 (``osekilab/JCoLA``)
``data/jcola-v1.0/{in_domain_train,in_domain_valid,out_of_domain_valid}-v1.0.json`` (JSON lines). A data folder
holds those files under their published names, side by side (``<root>/<id>/valid-v1.3.json`` …).

:class:`SplitFilesSource` is a Source over such files: the evaluated split's file is the source layout (a folder
holding it is read); every other file is optional — a folder without it has no such split, is not counted for it,
and says so once in the log. So a folder holding only the evaluated file (a genuine sample without its training
file, or a user who downloaded only the dev set) converts for zero-shot runs; whether a run can do without the
few-shot pool is the data layer's decision (``lm_eval_enterprise.data.checks.require_splits``).
:class:`JsonLinesSource` reads the JSON-lines files row by row, each problem named ``file:line``.
"""

from __future__ import annotations

import logging
from pathlib import Path

from lm_eval_enterprise.data import DataError, RemoteFile, Source, read_jsonl_lines

log = logging.getLogger("lm_eval_enterprise.data")

RAW_URL = "https://raw.githubusercontent.com/{repo}/{ref}/{path}"
JGLUE_REPO = "yahoojapan/JGLUE"
JGLUE_TAG = "v1.3.0"
JGLUE_COMMIT = "6f071c09316baae89c3d083a90985b4b1cb9968c"  # the commit of tag v1.3.0
JCOLA_REPO = "osekilab/JCoLA"
JCOLA_COMMIT = "736d9eef3af04bb17e4cf59adf01325973234ff9"
JCOLA_DIR = "data/jcola-v1.0"


def is_int(value) -> bool:
    """A JSON integer (``true``/``false`` are not)."""
    return isinstance(value, int) and not isinstance(value, bool)


def jglue_files(task: str, sha256: dict[str, str] | None = None) -> dict[str, RemoteFile]:
    """split → the JGLUE v1.3 file of ``task`` (``jsts``, ``jnli``, ``jsquad``) at the pinned commit: ``train``,
    ``valid``, ``test`` (``test-v1.3.json``, labelled since v1.3.0). ``sha256``: split → the file's sha256 where a
    genuine copy confirmed it."""
    sha256 = sha256 or {}
    return {
        split: RemoteFile(
            f"{split}-v1.3.json",
            RAW_URL.format(repo=JGLUE_REPO, ref=JGLUE_COMMIT, path=f"datasets/{task}-v1.3/{split}-v1.3.json"),
            sha256.get(split),
        )
        for split in ("train", "valid", "test")
    }


def jcola_file(name: str, sha256: str | None = None) -> RemoteFile:
    """One JCoLA v1.0 file (``in_domain_valid`` …) at the pinned commit."""
    file = f"{name}-v1.0.json"
    return RemoteFile(file, RAW_URL.format(repo=JCOLA_REPO, ref=JCOLA_COMMIT, path=f"{JCOLA_DIR}/{file}"), sha256)


class SplitFilesSource(Source):
    """A Source over one published file per split (module docstring). Subclasses set :attr:`split_files` (split →
    :class:`RemoteFile`, whose ``name`` is the file's name in the data folder), ``files`` (the same files, what
    :meth:`download` fetches) and implement :meth:`read_split`."""

    split_files: dict[str, RemoteFile] = {}
    eval_split = "valid"

    def read_split(self, path: Path, split: str) -> list[dict]:
        raise NotImplementedError

    def present(self, d: Path) -> dict[str, Path]:
        """split → its file, for the files the folder holds."""
        return {s: d / f.name for s, f in self.split_files.items() if (d / f.name).is_file()}

    def has_source_layout(self, d: Path) -> bool:
        return (d / self.split_files[self.eval_split].name).is_file()

    def convert(self, raw_dir: Path) -> dict[str, list[dict]]:
        present = self.present(raw_dir)
        absent = [f.name for s, f in self.split_files.items() if s not in present]
        if absent:
            log.info("[%s] %s: no %s; those splits are absent", self.id, raw_dir, ", ".join(absent))
        return {split: self.read_split(path, split) for split, path in present.items()}

    def check_rows(self, splits: dict[str, list[dict]], data_dir: Path, provided=None) -> list:
        """The counts of the splits whose file the folder holds (an absent optional file is no count of 0)."""
        return super().check_rows(splits, data_dir, list(splits) if provided is None else provided)


class JsonLinesSource(SplitFilesSource):
    """:class:`SplitFilesSource` over JSON-lines files: every row through :meth:`record` (``where`` =
    ``file:line``); a row that is not a JSON object is one :class:`DataError` naming its line."""

    def record(self, row: dict, where: str) -> dict:
        raise NotImplementedError

    def read_split(self, path: Path, split: str) -> list[dict]:
        rows, lines = read_jsonl_lines(path, self.id)
        out = []
        for row, n in zip(rows, lines):
            if not isinstance(row, dict):
                raise DataError(self.id, f"{path}:{n}", f"a line is a JSON {type(row).__name__}, not an object")
            out.append(self.record(row, f"{path}:{n}"))
        if not out:
            raise DataError(self.id, path, "the file holds no rows")
        return out
