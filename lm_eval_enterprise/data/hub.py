"""Downloads from Hugging Face hub dataset repositories, and :class:`HFParquetSource`, the base of every dataset
read from a repo's parquet files.

Everything goes through ``huggingface_hub.snapshot_download(repo_id, repo_type="dataset", revision=...,
allow_patterns=[...], local_dir=dest)``: the hub lists the repo, picks the files matching the patterns (fnmatch
rules) and downloads them with its own cache, authentication and retries, keeping the repo's relative paths
(:mod:`lm_eval_enterprise.data.parquet` reads them back). No listing or shard naming is hand-written here; the
split check happens on the downloaded files. ``datasets.load_dataset`` is not used: it would convert into its own
cache format, while the data folder must hold the files as published (the same layout users provide by hand).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from ..errors import DataError
from .config import ENV_DATA, is_offline, offline_flags
from .download import RemoteFile, download_failure, from_route
from .parquet import SPLIT_PATTERNS, hf_class_names, local_parquet_files, read_parquet_rows
from .source import Source

Fetch = Callable[..., Any]  # huggingface_hub.snapshot_download or a test double with its keyword arguments


def hf_where(repo_id: str, revision: str | None, prefix: str = "") -> str:
    return f"hf://datasets/{repo_id}@{revision or 'main'}/{prefix.strip('/')}".rstrip("/")


def split_patterns(prefix: str, splits: Iterable[str]) -> list[str]:
    """``allow_patterns`` selecting the parquet shards of ``splits`` under ``prefix`` in any of the hub's layouts."""
    base = prefix.strip("/") + "/" if prefix.strip("/") else ""
    return [base + p.format(s=s) for s in splits for p in SPLIT_PATTERNS]


def snapshot(
    repo_id: str,
    dest: Path,
    *,
    dataset: str,
    patterns: Iterable[str],
    revision: str | None = None,
    prefix: str = "",
    fetch: Fetch | None = None,
    note: str = "",
) -> None:
    """Download the files of a hub dataset repo matching ``patterns`` into ``dest`` (repo-relative paths).

    Offline (:func:`~lm_eval_enterprise.data.config.is_offline`) nothing is asked from the hub; offline or a failed
    download is one :class:`DataError` line (:func:`~lm_eval_enterprise.data.download.download_failure`: the reason,
    ``note``, the ``prepare --from`` route). ``fetch`` replaces ``huggingface_hub.snapshot_download`` (tests).
    """
    where = hf_where(repo_id, revision, prefix)
    if is_offline():
        raise DataError(
            dataset,
            where,
            f"cannot download from the hub: offline ({', '.join(offline_flags())}); run "
            f"with internet, or {from_route(dataset)}, or put the files in ${ENV_DATA}/{dataset}/ by hand",
        )
    if fetch is None:
        from huggingface_hub import snapshot_download as fetch
    try:
        fetch(
            repo_id=repo_id, repo_type="dataset", revision=revision, allow_patterns=list(patterns), local_dir=str(dest)
        )
    except Exception as exc:  # network / auth / gated / missing revision or file: one actionable line
        raise download_failure(dataset, where, exc, repo_id=repo_id, path=prefix.strip("/"), note=note) from exc


def download_hf_parquet(
    repo_id: str,
    dest: Path,
    *,
    dataset: str,
    revision: str | None = None,
    prefix: str = "",
    splits: Iterable[str] = ("train", "test"),
    optional: Iterable[str] = (),
    fetch: Fetch | None = None,
    note: str = "",
) -> dict[str, list[Path]]:
    """Download the parquet shards of ``splits`` (each required) and of ``optional`` splits (when the repo has
    them) under ``prefix``; returns split → local files (shard order). A required split without files → one
    :class:`DataError` line."""
    splits, optional = list(splits), list(optional)
    snapshot(
        repo_id,
        dest,
        dataset=dataset,
        patterns=split_patterns(prefix, splits + optional),
        revision=revision,
        prefix=prefix,
        fetch=fetch,
        note=note,
    )
    found = local_parquet_files(dest, prefix)
    missing = [s for s in splits if not found.get(s)]
    if missing:
        raise DataError(
            dataset,
            hf_where(repo_id, revision, prefix),
            f"no parquet files for split(s) {missing} "
            f"in the repo (found {sorted(found) or 'none'}; repo layout changed?)",
        )
    return {s: found[s] for s in splits + optional if s in found}


class HFParquetSource(Source):
    """Base of a dataset read from parquet files of a HF dataset repo.

    Subclasses set ``hf_repo``, ``hf_revision`` (``None`` = main, :data:`HF_CONVERTED_REVISION` for the
    auto-converted files of a script-based dataset, or a commit), ``hf_prefix`` (folder in the repo),
    ``hf_splits`` (splits to fetch) and implement :meth:`convert` with :meth:`parquet_records` (or, for a
    conversion that is not row by row, :meth:`parquet_files`).
    """

    hf_repo: str = ""
    hf_revision: str | None = None
    hf_prefix: str = ""
    hf_splits: tuple[str, ...] = ("train", "test")
    hf_layout_hint: str = "{prefix}{split}/*.parquet"  # how a split's files look (messages only)

    @property
    def files(self) -> tuple[RemoteFile, ...]:  # type: ignore[override]  # for messages: what the folder holds
        prefix = self.hf_prefix.strip("/") + "/" if self.hf_prefix.strip("/") else ""
        return tuple(
            RemoteFile(
                self.hf_layout_hint.format(prefix=prefix, split=s),
                hf_where(self.hf_repo, self.hf_revision, self.hf_prefix),
            )
            for s in self.hf_splits
        )

    def download(self, dest: Path, progress: bool = True) -> None:
        download_hf_parquet(
            self.hf_repo,
            dest,
            dataset=self.id,
            revision=self.hf_revision,
            prefix=self.hf_prefix,
            splits=self.hf_splits,
            note=self.download_note,
        )

    def has_source_layout(self, d: Path) -> bool:
        found = local_parquet_files(d, self.hf_prefix)
        return all(found.get(s) for s in self.hf_splits)

    def parquet_files(self, raw_dir: Path, split: str) -> list[Path]:
        files = local_parquet_files(raw_dir, self.hf_prefix).get(split)
        if not files:
            raise DataError(self.id, raw_dir / self.hf_prefix, f"no parquet files for split '{split}'")
        return files

    def parquet_records(
        self,
        raw_dir: Path,
        split: str,
        to_record: Callable[..., dict],
        columns: Iterable[str] | Callable[[Path], Iterable[str]],
        *,
        class_label: str | None = None,
        class_names: Sequence[str] | None = None,
    ) -> list[dict]:
        """Every row of ``split``'s parquet shards (shard order, rows in file order) through
        ``to_record(row, where)``, ``where`` = ``"<file>:row <i>"`` (its error messages name the file and row).

        ``columns``: the columns each file must have (:func:`read_parquet_rows`), or a function of the file giving
        them. ``class_label``: the name of a ClassLabel column; then each file's class names of that column
        (:func:`hf_class_names`, read before the rows; ``class_names`` when the file declares none) are passed as
        a third argument, ``to_record(row, where, names)``.
        """
        records: list[dict] = []
        for path in self.parquet_files(raw_dir, split):
            extra = () if class_label is None else (hf_class_names(path, class_label) or class_names,)
            need = columns(path) if callable(columns) else columns
            rows = read_parquet_rows([path], self.id, need)
            records += [to_record(r, f"{path}:row {i}", *extra) for i, r in enumerate(rows)]
        return records
