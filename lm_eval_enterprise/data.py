"""Data layer: locate, download, cache, convert, split and check every dataset.

One :class:`Source` subclass per dataset lives in ``tasks/<domain>/<id>/source.py`` and knows only its own
source format (download URLs, conversion to the common record schema, split recipe). Everything shared is here:

* where the files come from (in this order): an explicit ``data_root`` (``--metadata '{"data_root": DIR}'``,
  ``lm-eval-enterprise run --data_root DIR``) or ``$LM_EVAL_ENTERPRISE_DATA`` → ``DIR/<id>/``; else the cache
  ``$LM_EVAL_ENTERPRISE_CACHE`` (default ``~/.cache/lm-eval-enterprise/data``) → ``<cache>/<id>/``, filled by
  ``lm-eval-enterprise prepare`` or on first use; offline (``HF_DATASETS_OFFLINE``/``HF_HUB_OFFLINE``) with
  nothing there → one :class:`DataError` line saying how to provide the files;
* ``data_root`` = ``embedded`` selects the package's own fixture data (synthetic rows in each source's format,
  for demos and tests; a warning says so);
* two layouts of a data folder: the **source layout** (the files exactly as downloaded; converted and split by
  the dataset's recipe) and the **pre-split layout** (``train.jsonl``/``test.jsonl``/``valid.jsonl`` holding
  source rows already split; rows go through the same per-row conversion);
* the checks of every load, whatever the layout (:mod:`lm_eval_enterprise.datacheck`): row counts against the
  Source's declared counts (verified → error on mismatch, unverified → warning) or the folder's
  ``MANIFEST.json``; a folder with a ``SOURCE.md`` is a declared partial copy; gold labels inside the label set;
  UTF-8 text; the sha256 of every file — all of it in the :class:`DataReport` that goes into the task metadata;
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

from .datacheck import (MANIFEST, SAMPLE_NOTE, CountCheck, DataReport, Rows, as_rows, check_count, check_gold,
                        collecting, declared_copy, describe_decode_error, folder_hashes, manifest_rows, unverified,
                        utf8_error, verified)
from .errors import DataError, warn_once
from .fewshot import helm_balanced
from .leakage import drop_fewshot_duplicates

__all__ = ["DataError", "DataReport", "Rows", "Source", "check_count", "load_checked", "load_records",
           "load_task_dataset", "prepare", "unverified", "verified"]

log = logging.getLogger("lm_eval_enterprise.data")

ENV_DATA = "LM_EVAL_ENTERPRISE_DATA"
ENV_CACHE = "LM_EVAL_ENTERPRISE_CACHE"
PRESPLIT_FILES = {"train": "train.jsonl", "valid": "valid.jsonl", "test": "test.jsonl"}
FEWSHOT_POOL_MAX = 256  # length of the [BAL]-ordered fewshot split (any --num_fewshot up to this is exact)
EMBEDDED = "embedded"  # data_root / $LM_EVAL_ENTERPRISE_DATA value selecting the package's fixture data
COMPLETE_MARKER = ".complete"


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


def manual_hint(dataset: str, path: str = "") -> str:
    """How to supply a file by hand after a failed download: into the data root when one is set (never "set the
    variable" when it is already set), else by pointing ``$LM_EVAL_ENTERPRISE_DATA`` at a folder."""
    root = os.environ.get(ENV_DATA)
    if root and root != EMBEDDED:
        return f"obtain the source files by hand and put them into {Path(root).expanduser() / dataset}/{path}"
    return f"obtain the source files by hand and point ${ENV_DATA} (or --data_root) at a folder holding {dataset}/{path}"


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
        raise DataError(dataset, url, f"download failed ({exc}); {manual_hint(dataset)}") from exc
    if sha256 and digest.hexdigest() != sha256:
        tmp.unlink(missing_ok=True)
        raise DataError(dataset, url, f"sha256 {digest.hexdigest()} != expected {sha256}")
    tmp.replace(dest)
    return dest


def fetch_json(url: str, dataset: str, headers: dict[str, str] | None = None, hint: str = "") -> Any:
    """GET ``url`` and parse its JSON body (API listings, dataset info); any failure is one :class:`DataError`
    line naming the dataset and URL, with ``hint`` saying how to provide the data by hand."""
    import urllib.request

    req = urllib.request.Request(url, headers={"User-Agent": "lm-eval-enterprise", **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            return json.loads(resp.read())
    except (OSError, ValueError) as exc:
        raise DataError(dataset, url, f"cannot read {url.split('?')[0].rsplit('/', 1)[-1] or 'the response'} "
                        f"({exc}){'; ' + hint if hint else ''}") from exc


def read_jsonl_lines(path: Path, dataset: str) -> tuple[list[dict], list[int]]:
    """Rows of a JSON-lines file and the 1-based line number of each (blank lines skipped). A line that is not
    UTF-8 or not JSON is one :class:`DataError` naming ``file:line``."""
    rows, lines = [], []
    with open(path, "rb") as f:
        for n, raw in enumerate(f, 1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise DataError(dataset, f"{path}:{n}", f"not UTF-8 text: {describe_decode_error(exc)}") from exc
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError as exc:
                    raise DataError(dataset, f"{path}:{n}", f"invalid JSON line ({exc.msg})") from exc
                lines.append(n)
    return rows, lines


def read_jsonl(path: Path, dataset: str) -> list[dict]:
    return read_jsonl_lines(path, dataset)[0]


MC_LETTERS = "ABCDEFGHIJ"  # option letters of multiple-choice records ([ACC]: A–J, assigned by position)


def mc_fields(record: dict) -> dict:
    """The fields the ``multiple_choice`` task family needs, added to a multiple-choice record
    ``{id, question, choices, answer}`` (DATASETS.md §Common conventions; ``Source.task_type == "mc"``):

    * ``label_names`` = the option letters ``["A", …]`` (one per choice): the ``AnswerFilter`` verbaliser set;
    * ``answer_letter`` = the letter of ``answer`` (0-based index into ``choices``): compared with the filtered
      letter by :func:`lm_eval_enterprise.hooks.multiple_choice` and used as the YAML's ``doc_to_target``;
    * ``n_options`` = ``len(choices)`` (k of the uniform accuracy baseline 1/k).

    ``{"choices": ["x", "y", "z"], "answer": 2}`` → ``label_names ["A", "B", "C"]``, ``answer_letter "C"``,
    ``n_options 3``. Raises ``ValueError`` for more than 10 choices or an answer outside the choices.
    """
    import operator

    choices, answer = record["choices"], record["answer"]
    k = len(choices)
    if not 1 <= k <= len(MC_LETTERS):
        raise ValueError(f"multiple-choice record {record.get('id')!r}: {k} choices (1–{len(MC_LETTERS)} allowed)")
    try:
        answer = operator.index(answer) if not isinstance(answer, bool) else None  # int, numpy int; not bool/str
    except TypeError:
        answer = None
    if answer is None or not 0 <= answer < k:
        raise ValueError(f"multiple-choice record {record.get('id')!r}: answer {record['answer']!r} is not an "
                         f"index of its {k} choices")
    return {**record, "label_names": list(MC_LETTERS[:k]), "answer_letter": MC_LETTERS[answer], "n_options": k}


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
    # per split after the recipe: verified(n, evidence) — counted on a genuine file, a mismatch is an error — or
    # unverified(n | None, evidence) — a mismatch is a warning (lm_eval_enterprise.datacheck); every split declared
    expected_rows: dict[str, Rows] = {}
    labels: tuple[str, ...] = ()        # classification label set (canonical spelling, spec order)
    positive_label: str | None = None   # binary F1 tasks
    subtasks: tuple[str, ...] = ()      # datasets made of several tasks (gold_news)
    eval_split: str = "test"
    # split evaluated instead when every record of eval_split lacks a gold answer (e.g. an unlabelled test release);
    # the task YAML of such a dataset reads the split "eval", which the data layer fills with the chosen one
    eval_fallback: str | None = None
    fewshot_source_split: str = "train"
    # True: convert() already chose the shots and returns the pool split in [BAL] selection order (e.g. a dataset
    # whose few-shot pool is "k rows chosen by [BAL] from all rows"); the fewshot split keeps that order as is
    fewshot_preordered: bool = False

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
        elif self.task_type == "mc":
            record = mc_fields(record)
        return record

    def fewshot_transform(self, record: dict) -> dict:
        """Applied to few-shot examples only (e.g. shorter truncation of long documents in shots)."""
        return record

    def task_metadata(self, splits: dict[str, list[dict]]) -> dict[str, Any]:
        """Facts computed from the loaded data that results must record (e.g. finer139's top-10 tag list).

        ``splits`` is :func:`load_records`' output. The task class merges the returned dict (via
        :func:`loaded_task_metadata`) into the ``metadata`` of the lm-eval task that loads the data, so it lands in
        ``results["configs"][task]["metadata"]`` and runs on different data are told apart. Default: nothing.
        """
        return {}

    # -- shared machinery ---------------------------------------------------------------------------------------
    def has_source_layout(self, d: Path) -> bool:
        return bool(self.files) and all((d / f.name).exists() for f in self.files)

    def expected_for(self, data_dir: Path) -> dict[str, Rows]:
        """Expected counts for this folder: its ``MANIFEST.json`` (exact, as verified) or :attr:`expected_rows`."""
        manifest = data_dir / MANIFEST
        if manifest.exists():
            return manifest_rows(manifest, self.id)
        return {s: as_rows(r) for s, r in self.expected_rows.items()}

    def check_rows(self, splits: dict[str, list[dict]], data_dir: Path,
                   provided: Iterable[str] | None = None) -> list[CountCheck]:
        """Compare every split's count with :meth:`expected_for` (:func:`~lm_eval_enterprise.datacheck.check_count`:
        verified mismatch → error, unverified → warning). ``provided``: the splits a pre-split folder holds (an
        absent file is not a count of 0); ``None`` (source layout): a missing expected split counts 0 rows."""
        expected = self.expected_for(data_dir)
        names = list(expected) + [s for s in splits if s not in expected]
        if provided is not None:
            names = [s for s in names if s in set(provided)]
        return [check_count(self.id, s, len(splits.get(s, [])), expected.get(s), data_dir) for s in names]


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
    if root and str(root) == EMBEDDED:
        from . import FIXTURES_DIR

        warn_once(log, "[%s] using the embedded fixture data (a few synthetic rows for demos and tests, "
                  "not the benchmark)", src.id)
        root = FIXTURES_DIR
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
OFFLINE_VARS = ("HF_DATASETS_OFFLINE", "HF_HUB_OFFLINE", "LM_EVAL_ENTERPRISE_OFFLINE")


def data_hint(src: Source, d: Path) -> str:
    """How to provide a dataset by hand (messages)."""
    return (f"put the source files {[f.name for f in src.files]} (or pre-split "
            f"{'/'.join(sorted(PRESPLIT_FILES.values()))}) into {d}")


def has_data(src: Source, d: Path) -> bool:
    """``d`` holds the source layout or at least one pre-split file."""
    return d.is_dir() and (src.has_source_layout(d) or any((d / f).exists() for f in PRESPLIT_FILES.values()))


def prepare(src: Source, progress: bool = True, force: bool = False, data_root: str | os.PathLike | None = None,
            ) -> Path:
    """Make ``src`` ready to load, and check it (conversion, counts, gold labels); returns its folder.

    * With a data root (``data_root``, else ``$LM_EVAL_ENTERPRISE_DATA``): ``<root>/<id>/`` already holding data
      is loaded and checked, never downloaded again (``force``: download and replace it); a missing or empty
      folder is downloaded into. ``embedded``: the fixture folder is checked.
    * Without one: the cache (``$LM_EVAL_ENTERPRISE_CACHE``), filled once (``force``: again).
    * Offline (``HF_DATASETS_OFFLINE``/``HF_HUB_OFFLINE``/``LM_EVAL_ENTERPRISE_OFFLINE``): nothing is ever
      downloaded; a dataset without data is one :class:`DataError` line saying where to put the files.

    A download goes to a temp folder next to the target, is converted and checked there, then renamed into place,
    so a failure never leaves a half-written folder or replaces a good one.
    """
    root = data_root or os.environ.get(ENV_DATA)
    if root and str(root) == EMBEDDED:
        d = resolve_data_dir(src, EMBEDDED)
        inspect_folder(src, d)
        return d
    if root:
        d = Path(root).expanduser() / src.id
        if has_data(src, d) and not force:
            inspect_folder(src, d)
            return d
        if d.is_dir() and any(d.iterdir()) and not force:
            raise DataError(src.id, d, f"the folder holds neither the source files nor pre-split files; "
                            f"{data_hint(src, d)}, or pass --force to download into it")
    else:
        d = cache_root() / src.id
        if (d / COMPLETE_MARKER).exists() and not force:
            return d
    if is_offline():
        flags = ", ".join(v for v in OFFLINE_VARS if os.environ.get(v, "").lower() in ("1", "true", "yes"))
        raise DataError(src.id, d, f"offline ({flags}): nothing is downloaded; {data_hint(src, d)}, or unset "
                        f"{flags} to download")
    with _prepare_lock:
        if not force and ((d / COMPLETE_MARKER).exists() or (root and has_data(src, d))):
            return d  # another thread finished it meanwhile
        d.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{src.id}-", dir=d.parent))
        try:
            src.download(tmp, progress=progress)
            splits, _ = inspect_folder(src, tmp)
            (tmp / COMPLETE_MARKER).write_text(json.dumps({k: len(v) for k, v in splits.items()}))
            if d.exists():
                shutil.rmtree(d)
            tmp.rename(d)
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)
    return d


# ---------------------------------------------------------------------------------------------------- loading
def inspect_folder(src: Source, d: Path, defer_errors: bool = False) -> tuple[dict[str, list[dict]], DataReport]:
    """Convert one data folder (source or pre-split layout) and run every shared check of
    :mod:`lm_eval_enterprise.datacheck`: counts against the declarations (or the folder's ``MANIFEST.json``; a
    ``SOURCE.md`` folder is a partial copy), gold labels of every record, UTF-8 text, sha256 of every file.

    Returns the converted splits (an unlabelled eval split replaced by the Source's ``eval_fallback``) and the
    :class:`DataReport`. Problems raise one :class:`DataError` line; ``defer_errors`` (``verify``) records count
    errors in the report instead, so that every count is shown.
    """
    declared = declared_copy(d)
    with collecting(partial=declared == SAMPLE_NOTE, defer_errors=defer_errors) as col:
        try:
            if src.has_source_layout(d):
                layout = "source files"
                splits = src.convert(d)
                src.check_rows(splits, d)

                def locate(split: str, i: int) -> str:
                    return f"{d} [split '{split}', record {i}]"
            else:
                layout = "pre-split"
                present = {s: d / f for s, f in PRESPLIT_FILES.items() if (d / f).exists()}
                if not present:
                    raise DataError(src.id, d, f"no data files: expected the source files "
                                    f"{[f.name for f in src.files]} or pre-split {sorted(PRESPLIT_FILES.values())}")
                rows, lines = {}, {}
                for s, path in present.items():
                    rows[s], lines[s] = read_jsonl_lines(path, src.id)
                splits = src.convert_presplit(rows, d)
                src.check_rows(splits, d, provided=present)

                def locate(split: str, i: int) -> str:  # exact line when the rows map 1:1 onto the records
                    if split not in present:
                        return f"{d} [split '{split}', record {i}]"
                    if len(splits[split]) == len(lines[split]):
                        return f"{present[split]}:{lines[split][i]}"
                    return f"{present[split]} [record {i}]"
        except UnicodeDecodeError as exc:
            raise utf8_error(src.id, d, exc) from exc
        served, eval_split, note = check_gold(src, splits, locate, d)
    report = DataReport(src.id, d, layout, declared, list(col.checks), folder_hashes(d), eval_split, note,
                        list(col.errors))
    if report.partial_note:
        log.warning("[%s] %s: %s", src.id, d, report.partial_note)
    for split, recs in served.items():
        log.info("[%s] %s: %d records from %s", src.id, split, len(recs), d)
    return served, report


@lru_cache(maxsize=64)
def _converted(dataset: str, data_dir: str, mtime: float) -> tuple[dict[str, list[dict]], DataReport]:
    return inspect_folder(get_source(dataset), Path(data_dir))


def _dir_mtime(d: Path) -> float:
    return max([d.stat().st_mtime] + [p.stat().st_mtime for p in d.iterdir()])


def load_checked(dataset: str, subtask: str | None = None, data_root: str | None = None,
                 download: bool = True) -> tuple[dict[str, list[dict]], DataReport]:
    """:func:`load_records` plus the :class:`DataReport` of the data folder (counts, hashes, eval split)."""
    src = get_source(dataset)
    d = resolve_data_dir(src, data_root, download=download)
    converted, report = _converted(dataset, str(d), _dir_mtime(d))
    splits = src.select(converted, subtask)
    eval_split = report.eval_split
    splits, _DEDUP_FACTS[(dataset, subtask, data_root)] = drop_fewshot_duplicates(src, splits, d, eval_split)  # [LEAK]
    if eval_split not in splits or not splits[eval_split]:
        raise DataError(dataset, d, f"evaluation split '{eval_split}' is empty or missing")
    out = {name: [src.finalize(r) for r in recs] for name, recs in splits.items()}
    if src.eval_fallback:
        out["eval"] = out[eval_split]  # the split the task YAML reads (test_split: eval)
    pool = out.get(src.fewshot_source_split, [])
    if not pool:
        raise DataError(dataset, d, f"few-shot pool split '{src.fewshot_source_split}' is empty or missing")
    ordered = (pool[:FEWSHOT_POOL_MAX] if src.fewshot_preordered
               else helm_balanced(pool, src.fewshot_key, min(len(pool), FEWSHOT_POOL_MAX)))
    out["fewshot"] = [src.fewshot_transform(r) for r in ordered]
    return out, report


def load_records(dataset: str, subtask: str | None = None, data_root: str | None = None,
                 download: bool = True) -> dict[str, list[dict]]:
    """All splits of a dataset (one subtask) as lists of records, plus the [BAL]-ordered ``fewshot`` split (and
    ``eval``, the evaluated split, for a Source with an ``eval_fallback``)."""
    return load_checked(dataset, subtask, data_root, download)[0]


@lru_cache(maxsize=256)
def _dataset_dict(dataset: str, subtask: str | None, data_root: str | None):
    import datasets

    recs, report = load_checked(dataset, subtask, data_root)
    # the data report (counts, verified?, sha256 of every file, eval split) + [LEAK] facts + the Source's own facts
    _TASK_METADATA[(dataset, subtask, data_root)] = {**report.metadata(),
                                                     **_DEDUP_FACTS.get((dataset, subtask, data_root), {}),
                                                     **get_source(dataset).task_metadata(recs)}
    return datasets.DatasetDict({k: _from_records(v) for k, v in recs.items()})


def _from_records(records: list[dict]):
    """``datasets.Dataset.from_list(records)`` with a content fingerprint (sha256 of the records' JSON) passed to
    ``datasets.Dataset(table, fingerprint=...)`` instead of ``datasets``' dill hash of the whole Arrow table, which
    costs ~5x the conversion itself. The fingerprint only names the in-memory dataset (cache keys of ``.map``); it
    still changes whenever the content changes. Columns and types: those of the first record's keys, inferred by
    Arrow, as ``from_list`` does (``tests/test_data_layer.py`` checks both give the same dataset)."""
    import datasets
    import pyarrow as pa

    digest = hashlib.sha256(json.dumps(records, sort_keys=True, default=str).encode()).hexdigest()[:16]
    return datasets.Dataset(pa.Table.from_pylist(records), fingerprint=digest)


_TASK_METADATA: dict[tuple, dict] = {}  # (dataset, subtask, data_root) → report + Source facts of the cached data
_DEDUP_FACTS: dict[tuple, dict] = {}    # same key → facts of the last [LEAK] few-shot de-duplication (leakage.py)


def _dataset_key(dataset_id: str | None, subtask_id: str | None, data_root: str | None) -> tuple:
    return dataset_id, subtask_id or None, str(data_root) if data_root else None


def load_task_dataset(dataset_id: str | None = None, subtask_id: str | None = None, data_root: str | None = None,
                      **_metadata: Any):
    """``custom_dataset`` hook of every task YAML: ``dataset_kwargs: {dataset_id: <id>, subtask_id: <name>}``.

    lm-eval calls it as ``loader(**metadata, **dataset_kwargs)`` (so these keys must differ from the metadata
    keys ``dataset``/``subtask``); ``data_root`` may come from ``--metadata``.
    Returns a ``datasets.DatasetDict`` with the dataset's splits and ``fewshot``. Cached per process, so the
    five-plus template variants of a dataset share one conversion. The facts :meth:`Source.task_metadata`
    computed from the data are kept for :func:`loaded_task_metadata`.
    """
    if not dataset_id:
        raise DataError("?", None, "task YAML has no dataset_kwargs.dataset_id")
    return _dataset_dict(*_dataset_key(dataset_id, subtask_id, data_root))


def loaded_task_metadata(dataset_id: str | None = None, subtask_id: str | None = None,
                         data_root: str | None = None, **_metadata: Any) -> dict:
    """The :meth:`Source.task_metadata` facts of the data :func:`load_task_dataset` loaded for the same arguments
    (``{}`` if none). The task class (:class:`lm_eval_enterprise.task.EnterpriseTask`) merges them into the task's
    metadata right after loading, so they reach ``results["configs"][task]["metadata"]``."""
    return dict(_TASK_METADATA.get(_dataset_key(dataset_id, subtask_id, data_root)) or {})


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


# ---------------------------------------------------------------------------------------------------- HF parquet
# Datasets published as parquet on the Hugging Face hub (FiQA, FiNER-139, EDTSum, CaseHOLD, ...), and the parquet
# files the hub auto-converts from script-based datasets (revision ``refs/convert/parquet``). Shard names are never
# hard-coded: they are listed with the hub API and mapped to splits by :func:`hf_parquet_split`. The source layout
# of such a dataset is the repo's own relative paths (e.g. ``transcript-sentiment/train/0000.parquet``).
HF_CONVERTED_REVISION = "refs/convert/parquet"


def hf_parquet_split(path: str, prefix: str = "") -> str | None:
    """Split name of a parquet file of a HF dataset repo, from its repo path (``None``: not under ``prefix``).

    With ``rel`` = the path below ``prefix``: the auto-converted layout ``<split>/0000.parquet`` gives the first
    folder; the ``data/`` layout ``<split>-00000-of-00001[-<hash>].parquet`` gives the name before the shard
    numbers; a bare ``<split>.parquet`` gives its stem.
    """
    import re

    prefix = prefix.strip("/")
    if not path.endswith(".parquet"):
        return None
    if prefix:
        if not path.startswith(prefix + "/"):
            return None
        path = path[len(prefix) + 1:]
    parts = path.split("/")
    if len(parts) > 1:
        return parts[0]
    m = re.match(r"^(.+?)-\d{5}-of-\d{5}(?:-[0-9a-fA-F]+)?\.parquet$", parts[0])
    return m.group(1) if m else parts[0][: -len(".parquet")]


def _exc_line(exc: BaseException) -> str:
    """``Type: first line of the message`` (DataError messages stay one line)."""
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text.splitlines()[0]}" if text else type(exc).__name__


def _hf_where(repo_id: str, revision: str | None, prefix: str = "") -> str:
    return f"hf://datasets/{repo_id}@{revision or 'main'}/{prefix.strip('/')}".rstrip("/")


def hf_parquet_files(repo_id: str, *, dataset: str, revision: str | None = None, prefix: str = "",
                     api: Any = None) -> dict[str, list[str]]:
    """List the parquet files of a HF dataset repo under ``prefix``: split → repo paths (sorted = shard order).

    Uses ``huggingface_hub.HfApi().list_repo_files(repo_id, repo_type="dataset", revision=revision)``; offline,
    or when the listing fails, raises one :class:`DataError` line. Raises too when no parquet file is found.
    """
    where = _hf_where(repo_id, revision, prefix)
    if is_offline():
        raise DataError(dataset, where, "cannot list the hub files: offline (HF_HUB_OFFLINE/HF_DATASETS_OFFLINE); "
                        f"run with internet, or put the parquet files in ${ENV_DATA}/{dataset}/ by hand")
    if api is None:
        from huggingface_hub import HfApi

        api = HfApi()
    try:
        paths = api.list_repo_files(repo_id, repo_type="dataset", revision=revision)
    except Exception as exc:  # network / auth / missing revision: all one actionable line
        raise DataError(dataset, where, f"cannot list the hub files ({_exc_line(exc)})") from exc
    out: dict[str, list[str]] = {}
    for p in paths:
        split = hf_parquet_split(p, prefix)
        if split is not None:
            out.setdefault(split, []).append(p)
    if not out:
        raise DataError(dataset, where, "no parquet files there (repo layout changed?)")
    return {s: sorted(v) for s, v in sorted(out.items())}


def download_hf_parquet(repo_id: str, dest: Path, *, dataset: str, revision: str | None = None, prefix: str = "",
                        splits: Iterable[str] | None = None, api: Any = None) -> dict[str, list[Path]]:
    """Download every parquet shard of ``splits`` (default: all) under ``prefix`` to ``dest/<repo path>``.

    Listing as :func:`hf_parquet_files`; each file via ``HfApi.hf_hub_download(..., local_dir=dest)`` (the hub's
    own cache/auth/retries). A missing split or a failed download raises one :class:`DataError` line.
    """
    if api is None:
        from huggingface_hub import HfApi

        api = HfApi()
    listed = hf_parquet_files(repo_id, dataset=dataset, revision=revision, prefix=prefix, api=api)
    wanted = list(splits) if splits is not None else list(listed)
    missing = [s for s in wanted if s not in listed]
    if missing:
        raise DataError(dataset, _hf_where(repo_id, revision, prefix),
                        f"no parquet files for split(s) {missing}; found {sorted(listed)}")
    out: dict[str, list[Path]] = {}
    for split in wanted:
        for path in listed[split]:
            try:
                local = api.hf_hub_download(repo_id=repo_id, filename=path, repo_type="dataset", revision=revision,
                                            local_dir=str(dest))
            except Exception as exc:
                raise DataError(dataset, _hf_where(repo_id, revision, path), f"download failed "
                                f"({_exc_line(exc)}); {manual_hint(dataset, path)}") from exc
            out.setdefault(split, []).append(Path(local))
    return out


def local_parquet_files(root: Path, prefix: str = "") -> dict[str, list[Path]]:
    """The downloaded layout read back: split → parquet files under ``root/prefix`` (hidden folders skipped)."""
    base = root / prefix.strip("/") if prefix.strip("/") else root
    out: dict[str, list[Path]] = {}
    if not base.is_dir():
        return out
    for p in sorted(base.rglob("*.parquet")):
        rel = p.relative_to(root).as_posix()
        if any(part.startswith(".") for part in rel.split("/")):
            continue
        split = hf_parquet_split(rel, prefix)
        if split is not None:
            out.setdefault(split, []).append(p)
    return out


def read_parquet_rows(paths: Iterable[Path], dataset: str, columns: Iterable[str] | None = None) -> list[dict]:
    """Rows of parquet files (in file order) as dicts; ``columns`` that a file lacks → :class:`DataError`."""
    import pyarrow.parquet as pq

    rows: list[dict] = []
    need = list(columns or ())
    for path in paths:
        try:
            table = pq.read_table(path)
        except Exception as exc:  # ArrowInvalid, OSError: an unreadable or truncated file
            raise DataError(dataset, path, f"not a readable parquet file ({type(exc).__name__})") from exc
        lacking = [c for c in need if c not in table.column_names]
        if lacking:
            raise DataError(dataset, path, f"missing columns {lacking} (has {table.column_names})")
        rows.extend(table.to_pylist())
    return rows


def hf_class_names(path: Path, column: str) -> list[str] | None:
    """ClassLabel names of ``column`` from the ``huggingface`` schema metadata ``datasets`` writes into parquet
    files (``None`` when the file has no such metadata or the column is no ClassLabel)."""
    import pyarrow.parquet as pq

    meta = pq.read_schema(path).metadata or {}
    raw = meta.get(b"huggingface")
    if not raw:
        return None
    try:
        feature = json.loads(raw)["info"]["features"][column]
    except (ValueError, KeyError, TypeError):
        return None
    if isinstance(feature, dict) and feature.get("_type") == "ClassLabel" and feature.get("names"):
        return [str(n) for n in feature["names"]]
    return None


class HFParquetSource(Source):
    """Base of a dataset read from parquet files of a HF dataset repo (listed with the hub API).

    Subclasses set ``hf_repo``, ``hf_revision`` (``None`` = main, :data:`HF_CONVERTED_REVISION` for the
    auto-converted files of a script-based dataset, or a commit), ``hf_prefix`` (folder in the repo),
    ``hf_splits`` (splits to fetch) and implement :meth:`convert` with :meth:`parquet_rows`.
    """

    hf_repo: str = ""
    hf_revision: str | None = None
    hf_prefix: str = ""
    hf_splits: tuple[str, ...] = ("train", "test")
    hf_layout_hint: str = "{prefix}{split}/*.parquet"  # how a split's files look (messages only)

    @property
    def files(self) -> tuple[RemoteFile, ...]:  # type: ignore[override]  # for messages: what the folder holds
        prefix = self.hf_prefix.strip("/") + "/" if self.hf_prefix.strip("/") else ""
        return tuple(RemoteFile(self.hf_layout_hint.format(prefix=prefix, split=s),
                                _hf_where(self.hf_repo, self.hf_revision, self.hf_prefix)) for s in self.hf_splits)

    def download(self, dest: Path, progress: bool = True) -> None:
        download_hf_parquet(self.hf_repo, dest, dataset=self.id, revision=self.hf_revision, prefix=self.hf_prefix,
                            splits=self.hf_splits)

    def has_source_layout(self, d: Path) -> bool:
        found = local_parquet_files(d, self.hf_prefix)
        return all(found.get(s) for s in self.hf_splits)

    def parquet_files(self, raw_dir: Path, split: str) -> list[Path]:
        files = local_parquet_files(raw_dir, self.hf_prefix).get(split)
        if not files:
            raise DataError(self.id, raw_dir / self.hf_prefix, f"no parquet files for split '{split}'")
        return files
