"""Data layer: locate, download, cache, convert, split and check every dataset.

One :class:`Source` subclass per dataset lives in ``tasks/<domain>/<id>/source.py`` and knows only its own
source format (download URLs, conversion to the common record schema, split recipe). Everything shared is here:

* where the files come from (in this order): an explicit ``data_root`` (``--metadata '{"data_root": DIR}'``,
  ``lm-eval-enterprise run --data-root DIR``) or ``$LM_EVAL_ENTERPRISE_DATA`` → ``DIR/<id>/``; else the cache
  ``$LM_EVAL_ENTERPRISE_CACHE`` (default ``~/.cache/lm-eval-enterprise/data``) → ``<cache>/<id>/``, filled by
  ``lm-eval-enterprise prepare`` or on first use; offline (``HF_DATASETS_OFFLINE``/``HF_HUB_OFFLINE``) with
  nothing there → one :class:`DataError` line saying how to provide the files;
* two layouts of a data folder: the **source layout** (the files exactly as downloaded; converted and split by
  the dataset's recipe, row counts checked against the spec or a ``MANIFEST.json``) and the **pre-split layout**
  (``train.jsonl``/``test.jsonl``/``valid.jsonl`` holding source rows already split, as in ``../shared/data``;
  rows go through the same per-row conversion);
* the ``fewshot`` split, ordered by [BAL] (:mod:`lm_eval_enterprise.fewshot`);
* :func:`load_task_dataset`, the ``custom_dataset`` hook every task YAML uses.
"""
from __future__ import annotations

import hashlib
import importlib
import json
import logging
import os
import shutil
import tempfile
import threading
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterable

from .fewshot import helm_balanced

log = logging.getLogger("lm_eval_enterprise.data")

ENV_DATA = "LM_EVAL_ENTERPRISE_DATA"
ENV_CACHE = "LM_EVAL_ENTERPRISE_CACHE"
PRESPLIT_FILES = {"train": "train.jsonl", "valid": "valid.jsonl", "test": "test.jsonl"}
FEWSHOT_POOL_MAX = 256  # length of the [BAL]-ordered fewshot split (any --num_fewshot up to this is exact)
MANIFEST = "MANIFEST.json"
COMPLETE_MARKER = ".complete"


class DataError(RuntimeError):
    """A dataset cannot be loaded; the message is one line naming the dataset, the file and the problem."""

    def __init__(self, dataset: str, where: str | os.PathLike | None, problem: str):
        self.dataset, self.where, self.problem = dataset, str(where) if where else None, problem
        loc = f" {where}:" if where else ""
        super().__init__(f"[{dataset}]{loc} {problem}")


@dataclass(frozen=True)
class RemoteFile:
    """One file a dataset downloads: ``name`` in the data folder, ``url`` to fetch, optional ``sha256``."""

    name: str
    url: str
    sha256: str | None = None


def is_offline() -> bool:
    return any(os.environ.get(v, "").lower() in ("1", "true", "yes")
               for v in ("HF_DATASETS_OFFLINE", "HF_HUB_OFFLINE", "LM_EVAL_ENTERPRISE_OFFLINE"))


def cache_root() -> Path:
    if os.environ.get(ENV_CACHE):
        return Path(os.environ[ENV_CACHE]).expanduser()
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return base / "lm-eval-enterprise" / "data"


def download_url(url: str, dest: Path, dataset: str, sha256: str | None = None, progress: bool = True) -> Path:
    """Fetch ``url`` to ``dest`` atomically with a progress bar; verify ``sha256`` when given."""
    import urllib.request

    from tqdm.auto import tqdm

    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(dest.name + ".part")
    try:
        req = urllib.request.Request(url, headers={"User-Agent": "lm-eval-enterprise"})
        with urllib.request.urlopen(req, timeout=60) as resp, open(tmp, "wb") as out:
            total = int(resp.headers.get("Content-Length") or 0) or None
            digest = hashlib.sha256()
            with tqdm(total=total, unit="B", unit_scale=True, desc=f"{dataset}: {dest.name}",
                      disable=not progress) as bar:
                while chunk := resp.read(1 << 20):
                    out.write(chunk)
                    digest.update(chunk)
                    bar.update(len(chunk))
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise DataError(dataset, url, f"download failed ({exc}); obtain the source files by hand and point "
                        f"${ENV_DATA} (or --data-root) at a folder holding {dataset}/") from exc
    if sha256 and digest.hexdigest() != sha256:
        tmp.unlink(missing_ok=True)
        raise DataError(dataset, url, f"sha256 {digest.hexdigest()} != expected {sha256}")
    tmp.replace(dest)
    return dest


def read_jsonl(path: Path, dataset: str) -> list[dict]:
    rows = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError as exc:
                    raise DataError(dataset, f"{path}:{n}", f"invalid JSON line ({exc.msg})") from exc
    return rows


class Source:
    """Base class of a dataset's loader. Subclasses set the class attributes and implement :meth:`convert`.

    ``convert(raw_dir)`` turns the files of the source layout into ``{split: [record, ...]}`` in the common record
    schema (DATASETS.md §Common conventions) applying the split recipe; ``convert_presplit(rows)`` maps rows of
    the pre-split layout with the same per-row code. Records must have a string ``id`` (or ``qid`` for ranking).
    """

    id: str = ""
    domain: str = ""
    task_type: str = ""                 # classification | ner | kpi | ranking | numeric | summarization | mc
    files: tuple[RemoteFile, ...] = ()  # the source layout: what download() fetches
    expected_rows: dict[str, int] = {}  # full-data row counts per split after the recipe (checked ±tolerance)
    row_tolerance: float = 0.01
    labels: tuple[str, ...] = ()        # classification label set (canonical spelling, spec order)
    positive_label: str | None = None   # binary F1 tasks
    subtasks: tuple[str, ...] = ()      # datasets made of several tasks (gold_news)
    eval_split: str = "test"
    fewshot_source_split: str = "train"

    # -- what subclasses implement ------------------------------------------------------------------------------
    def download(self, dest: Path, progress: bool = True) -> None:
        """Fetch the source layout into ``dest`` (default: every :attr:`files` URL)."""
        for f in self.files:
            download_url(f.url, dest / f.name, self.id, f.sha256, progress)

    def convert(self, raw_dir: Path) -> dict[str, list[dict]]:
        raise NotImplementedError

    def convert_presplit(self, rows: dict[str, list[dict]], data_dir: Path) -> dict[str, list[dict]]:
        raise DataError(self.id, data_dir, "this dataset has no pre-split layout; provide the source files "
                        f"{[f.name for f in self.files]}")

    def fewshot_key(self, record: dict) -> Any:
        """[BAL] label key: the class label for classification, the reference string otherwise."""
        for field in ("label", "target", "answer", "summary"):
            if field in record:
                return record[field]
        raise KeyError("fewshot_key: record has no label/target field; override fewshot_key")

    def select(self, splits: dict[str, list[dict]], subtask: str | None) -> dict[str, list[dict]]:
        """Records of one subtask (identity for datasets without subtasks)."""
        if subtask:
            raise DataError(self.id, None, f"unknown subtask {subtask!r} (dataset has none)")
        return splits

    def finalize(self, record: dict) -> dict:
        """Add the fields every task of this type needs (label set, positive label)."""
        if self.task_type == "classification":
            record = {**record, "label_names": list(self.labels)}
            if self.positive_label is not None:
                record["positive_label"] = self.positive_label
        return record

    def fewshot_transform(self, record: dict) -> dict:
        """Applied to few-shot examples only (e.g. shorter truncation of long documents in shots)."""
        return record

    # -- shared machinery ---------------------------------------------------------------------------------------
    def has_source_layout(self, d: Path) -> bool:
        return bool(self.files) and all((d / f.name).exists() for f in self.files)

    def check_rows(self, splits: dict[str, list[dict]], data_dir: Path) -> None:
        manifest = data_dir / MANIFEST
        expected = self.expected_rows
        tolerance = self.row_tolerance
        if manifest.exists():
            try:
                spec = json.loads(manifest.read_text())
                expected, tolerance = spec["expected_rows"], float(spec.get("tolerance", 0))
            except (ValueError, KeyError) as exc:
                raise DataError(self.id, manifest, f"bad manifest ({exc})") from exc
        for split, n_exp in expected.items():
            n = len(splits.get(split, []))
            if abs(n - n_exp) > tolerance * n_exp:
                raise DataError(self.id, data_dir, f"split '{split}' has {n:,} rows after conversion, expected "
                                f"{n_exp:,} (±{tolerance:.0%}); the source files are incomplete or changed")


# ---------------------------------------------------------------------------------------------------- registry
def _task_package():
    return importlib.import_module("lm_eval_enterprise.tasks")


@lru_cache(maxsize=1)
def registry() -> dict[str, str]:
    """dataset id → module path of its ``source.py`` (found by walking the task tree)."""
    root = Path(_task_package().__file__).parent
    out = {}
    for src in sorted(root.glob("*/*/source.py")):
        domain, ds = src.parent.parent.name, src.parent.name
        out[ds] = f"lm_eval_enterprise.tasks.{domain}.{ds}.source"
    return out


def get_source(dataset: str) -> Source:
    mods = registry()
    if dataset not in mods:
        raise DataError(dataset, None, f"unknown dataset id; known: {', '.join(sorted(mods))}")
    mod = importlib.import_module(mods[dataset])
    return mod.SOURCE


# ---------------------------------------------------------------------------------------------------- locating
def resolve_data_dir(src: Source, data_root: str | os.PathLike | None = None, download: bool = True,
                     progress: bool = True) -> Path:
    """Folder with this dataset's files (see the module docstring for the search order)."""
    root = data_root or os.environ.get(ENV_DATA)
    if root:
        d = Path(root).expanduser() / src.id
        if not d.is_dir():
            raise DataError(src.id, d, f"data root {root} has no folder '{src.id}/'; put the source files "
                            f"{[f.name for f in src.files]} (or train/test.jsonl) there")
        return d
    d = cache_root() / src.id
    if (d / COMPLETE_MARKER).exists():
        return d
    if not download or is_offline():
        raise DataError(src.id, d, "not in the cache and downloads are off (offline); run `lm-eval-enterprise "
                        f"prepare --dataset {src.id}` with internet, or set ${ENV_DATA}=DIR with DIR/{src.id}/ "
                        f"holding {[f.name for f in src.files]}, or pass --metadata '{{\"data_root\": \"DIR\"}}'")
    return prepare(src, progress=progress)


_prepare_lock = threading.Lock()


def prepare(src: Source, progress: bool = True, force: bool = False) -> Path:
    """Download ``src`` into the cache (atomic: a temp folder renamed into place), convert once to check it."""
    d = cache_root() / src.id
    with _prepare_lock:
        if (d / COMPLETE_MARKER).exists() and not force:
            return d
        d.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{src.id}-", dir=d.parent))
        try:
            src.download(tmp, progress=progress)
            splits = src.convert(tmp)
            src.check_rows(splits, tmp)
            (tmp / COMPLETE_MARKER).write_text(json.dumps({k: len(v) for k, v in splits.items()}))
            if d.exists():
                shutil.rmtree(d)
            tmp.rename(d)
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)
    return d


# ---------------------------------------------------------------------------------------------------- loading
@lru_cache(maxsize=64)
def _converted(dataset: str, data_dir: str, mtime: float) -> dict[str, list[dict]]:
    src = get_source(dataset)
    d = Path(data_dir)
    if src.has_source_layout(d):
        splits = src.convert(d)
        src.check_rows(splits, d)
    else:
        present = {s: d / f for s, f in PRESPLIT_FILES.items() if (d / f).exists()}
        if not present:
            raise DataError(dataset, d, f"no data files: expected the source files {[f.name for f in src.files]} "
                            f"or pre-split {sorted(PRESPLIT_FILES.values())}")
        rows = {s: read_jsonl(p, dataset) for s, p in present.items()}
        splits = src.convert_presplit(rows, d)
    for split, recs in splits.items():
        log.info("[%s] %s: %d records from %s", dataset, split, len(recs), d)
    return splits


def _dir_mtime(d: Path) -> float:
    return max([d.stat().st_mtime] + [p.stat().st_mtime for p in d.iterdir()])


def load_records(dataset: str, subtask: str | None = None, data_root: str | None = None,
                 download: bool = True) -> dict[str, list[dict]]:
    """All splits of a dataset (one subtask) as lists of records, plus the [BAL]-ordered ``fewshot`` split."""
    src = get_source(dataset)
    d = resolve_data_dir(src, data_root, download=download)
    splits = src.select(_converted(dataset, str(d), _dir_mtime(d)), subtask)
    if src.eval_split not in splits or not splits[src.eval_split]:
        raise DataError(dataset, d, f"evaluation split '{src.eval_split}' is empty or missing")
    out = {name: [src.finalize(r) for r in recs] for name, recs in splits.items()}
    pool = out.get(src.fewshot_source_split, [])
    if not pool:
        raise DataError(dataset, d, f"few-shot pool split '{src.fewshot_source_split}' is empty or missing")
    ordered = helm_balanced(pool, src.fewshot_key, min(len(pool), FEWSHOT_POOL_MAX))
    out["fewshot"] = [src.fewshot_transform(r) for r in ordered]
    return out


@lru_cache(maxsize=256)
def _dataset_dict(dataset: str, subtask: str | None, data_root: str | None):
    import datasets

    recs = load_records(dataset, subtask, data_root)
    return datasets.DatasetDict({k: datasets.Dataset.from_list(v) for k, v in recs.items()})


def load_task_dataset(dataset_id: str | None = None, subtask_id: str | None = None, data_root: str | None = None,
                      **_metadata: Any):
    """``custom_dataset`` hook of every task YAML: ``dataset_kwargs: {dataset_id: <id>, subtask_id: <name>}``.

    lm-eval calls it as ``loader(**metadata, **dataset_kwargs)`` (so these keys must differ from the metadata
    keys ``dataset``/``subtask``); ``data_root`` may come from ``--metadata``.
    Returns a ``datasets.DatasetDict`` with the dataset's splits and ``fewshot``. Cached per process, so the
    five-plus template variants of a dataset share one conversion.
    """
    if not dataset_id:
        raise DataError("?", None, "task YAML has no dataset_kwargs.dataset_id")
    return _dataset_dict(dataset_id, subtask_id or None, str(data_root) if data_root else None)


def iter_sources(domain: str | None = None) -> Iterable[Source]:
    for ds in registry():
        src = get_source(ds)
        if domain is None or src.domain == domain:
            yield src


def map_rows(rows: list[dict], fn: Callable[[dict], dict | None], dataset: str, where: str) -> list[dict]:
    """Apply a row→record function; a row the recipe drops returns None and is counted in the log."""
    out = [r for r in (fn(row) for row in rows) if r is not None]
    if len(out) != len(rows):
        log.info("[%s] %s: %d of %d rows dropped by the recipe", dataset, where, len(rows) - len(out), len(rows))
    return out
