"""Checks of a dataset's data at load time, shared by every loader (called by :mod:`lm_eval_enterprise.data.folder`).

* **Expected counts.** Every :class:`~lm_eval_enterprise.data.Source` declares, per split, a :class:`Rows`: the
  expected count and whether a genuine file confirmed it (:func:`verified`, with the evidence) or not
  (:func:`unverified`: approximate or secondary figures, recipe sizes nobody has counted on the real files; the
  evidence string says why). A verified mismatch is an error; an unverified one is a warning, logged and recorded
  in the task metadata. Other counts a loader checks (rows before a filter, files in an archive, ...) go through
  :func:`check_count` as well, so that every count lands in the same :class:`DataReport`.
* **Declared copies.** A data folder with a ``MANIFEST.json`` declares its own counts (our fixtures; any
  hand-made subset): they are checked exactly, like verified counts. A folder with a ``SOURCE.md`` and no manifest
  is a documented *partial copy* (rows sampled from the genuine files, with the sampling written down — the
  layout of the real samples our tests read in place): a split may then hold at most the full count (more is a
  mismatch, error or warning as above), and every load says that the data is partial (warning + metadata).
  Anything else is held to the published counts, so a genuine-size mismatch is never silent.
* **Provenance.** The sha256 of every file of the data folder goes into the report (and so into the task
  metadata and the results); hashes are cached by (path, size, mtime) in ``<cache>/.sha256-cache.json``, so a
  large file is hashed once, not on every run.
* **Gold labels.** Every record's gold answer must exist and lie in the dataset's label set (:func:`gold_problem`),
  checked on every split when the data is loaded — not by the metric after the model run. A split whose records
  all lack a gold answer may be replaced for evaluation by the Source's ``eval_fallback`` split (said in the
  report); a partly unlabelled split is an error naming the first unlabelled row.
* **Text encoding.** A conversion stopped by bytes that are not UTF-8 is re-reported as one line naming the file
  and line (:func:`utf8_error`).
* **Splits a run needs.** The evaluated split and the few-shot pool must hold rows (:func:`require_splits`), checked
  by every run's loader and by ``verify`` alike.
* **Repeated ids.** Record ids repeated within a split are kept but counted in the results metadata
  (:func:`repeated_ids`) and logged: a warning, or information for a Source that documents them.
"""

from __future__ import annotations

import contextvars
import gzip
import hashlib
import json
import logging
import math
import operator
import os
import tempfile
import threading
import zipfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import families
from ..errors import DataError, warn_once
from ..taskmeta import TOY_DATA

log = logging.getLogger("lm_eval_enterprise.data")

MANIFEST = "MANIFEST.json"
SAMPLE_NOTE = "SOURCE.md"  # provenance note of a partial copy (see the module docstring)
OK, WARNING, ERROR = "ok", "warning", "error"
_RANK = {OK: 0, WARNING: 1, ERROR: 2}


# ------------------------------------------------------------------------------------------------ expected counts
@dataclass(frozen=True)
class Rows:
    """The expected count of one split (or other unit), whether a genuine file confirmed it, and the evidence.

    ``n`` = ``None``: no count is published (the split is counted and recorded, never compared). ``tolerance``
    (verified counts only): a difference up to ``tolerance × n`` is a warning instead of an error.
    """

    n: int | None
    verified: bool = False
    evidence: str = ""
    tolerance: float = 0.0


def verified(n: int, evidence: str, tolerance: float = 0.0) -> Rows:
    """A count confirmed on the genuine file(s); ``evidence`` says where it was counted."""
    if not evidence:
        raise ValueError("a verified count needs its evidence")
    return Rows(int(n), True, evidence, tolerance)


def unverified(n: int | None, evidence: str) -> Rows:
    """A count nobody has confirmed on the genuine files (or ``None``: none published); ``evidence`` says why."""
    return Rows(None if n is None else int(n), False, evidence)


def as_rows(value: Rows | int | None) -> Rows:
    """A declaration as :class:`Rows`; a bare int is an unverified count without evidence."""
    return value if isinstance(value, Rows) else Rows(None if value is None else int(value))


@dataclass(frozen=True)
class CountCheck:
    """One count compared with its expectation: ``status`` ok / warning / error, ``message`` empty when ok."""

    key: str
    n: int
    expected: Rows
    status: str
    message: str = ""

    def to_json(self) -> dict[str, Any]:
        out = {
            "rows": self.n,
            "expected": self.expected.n,
            "verified": self.expected.verified,
            "evidence": self.expected.evidence,
            "status": self.status,
        }
        if self.message:
            out["message"] = self.message
        return out


def compare(
    key: str, n: int, expected: Rows | int | None, *, subject: str | None = None, partial: bool = False
) -> CountCheck:
    """Compare count ``n`` of ``key`` with its expectation (rules in the module docstring).

    ``subject`` words the count in messages (default ``split '<key>' has <n> rows after conversion``).
    """
    e = as_rows(expected)
    subject = subject or f"split '{key}' has {n:,} rows after conversion"
    if e.n is None or n == e.n or (partial and n < e.n):
        return CountCheck(key, n, e, OK)
    if partial:
        head = f"{subject}, more than the full dataset's {e.n:,}: not a partial copy of it"
    else:
        head = f"{subject}, expected {e.n:,}"
    if not e.verified:
        return CountCheck(
            key,
            n,
            e,
            WARNING,
            f"{head} (unverified count: {e.evidence or 'no evidence recorded'}); recorded, not an error",
        )
    if not partial and e.tolerance and abs(n - e.n) <= e.tolerance * e.n:
        return CountCheck(key, n, e, WARNING, f"{head} ({e.evidence}; within the ±{e.tolerance:.0%} tolerance)")
    return CountCheck(key, n, e, ERROR, f"{head} ({e.evidence}); the source files are incomplete or changed")


@dataclass
class _Collector:
    checks: list[CountCheck] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    partial: bool = False
    defer_errors: bool = False


_ACTIVE: contextvars.ContextVar[_Collector | None] = contextvars.ContextVar("lmee_count_checks", default=None)


@contextmanager
def collecting(partial: bool = False, defer_errors: bool = False) -> Iterator[_Collector]:
    """Collect every :func:`check_count` made inside the block (one dataset's load). ``partial``: the folder is a
    declared partial copy; ``defer_errors``: record count errors instead of raising (``verify`` reports all)."""
    col = _Collector(partial=partial, defer_errors=defer_errors)
    token = _ACTIVE.set(col)
    try:
        yield col
    finally:
        _ACTIVE.reset(token)


def check_count(
    dataset: str, key: str, n: int, expected: Rows | int | None, where: Any, *, subject: str | None = None
) -> CountCheck:
    """Compare a count and act on it: an error raises one :class:`DataError` line (or is recorded when the
    collector defers errors), a warning is logged; the check joins the active collector's report."""
    col = _ACTIVE.get()
    check = compare(key, n, expected, subject=subject, partial=bool(col and col.partial))
    if col is not None:
        col.checks.append(check)
    if check.status == ERROR:
        err = DataError(dataset, where, check.message)
        if col is None or not col.defer_errors:
            raise err
        col.errors.append(str(err))
    elif check.status == WARNING:
        log.warning("[%s] %s: %s", dataset, where, check.message)
    return check


def declared_copy(d: Path) -> str | None:
    """How a data folder declares itself: ``MANIFEST.json`` (own exact counts), ``SOURCE.md`` (partial copy)."""
    if (d / MANIFEST).exists():
        return MANIFEST
    if (d / SAMPLE_NOTE).exists():
        return SAMPLE_NOTE
    return None


def manifest_rows(path: Path, dataset: str) -> dict[str, Rows]:
    """``expected_rows`` of a ``MANIFEST.json`` as verified :class:`Rows` (its ``tolerance``, default 0)."""
    try:
        spec = json.loads(path.read_text(encoding="utf-8"))
        tolerance = float(spec.get("tolerance", 0))
        return {s: verified(n, MANIFEST, tolerance) for s, n in spec["expected_rows"].items()}
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise DataError(dataset, path, f"bad manifest ({type(exc).__name__}: {exc})") from exc


# ------------------------------------------------------------------------------------------------ provenance
_HASH_LOCK = threading.Lock()
_HASHES: dict[str, str] = {}  # "path|size|mtime_ns" → sha256, this process
_LOADED: set[str] = set()  # persisted cache files already read


def data_files(d: Path) -> list[Path]:
    """Regular files below ``d`` in sorted order, hidden files and folders (``.complete``, ``.cache``) skipped."""
    out = []
    for p in sorted(d.rglob("*")):
        rel = p.relative_to(d).parts
        if p.is_file() and not any(part.startswith(".") for part in rel):
            out.append(p)
    return out


def _hash_cache_file() -> Path:
    from .config import cache_root

    return cache_root() / ".sha256-cache.json"


def _sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def file_hashes(paths: Iterable[Path]) -> dict[Path, str]:
    """sha256 of each file, reusing hashes cached for the same (resolved path, size, mtime)."""
    cache_file = _hash_cache_file()
    with _HASH_LOCK:
        if str(cache_file) not in _LOADED:
            _LOADED.add(str(cache_file))
            try:
                _HASHES.update(json.loads(cache_file.read_text(encoding="utf-8")))
            except (OSError, ValueError):
                pass
        out, new = {}, {}
        for p in paths:
            st = p.stat()
            key = f"{p.resolve()}|{st.st_size}|{st.st_mtime_ns}"
            if key not in _HASHES:
                new[key] = _HASHES[key] = _sha256_of(p)
            out[p] = _HASHES[key]
        if new:
            _save_hashes(cache_file, new)
    return out


def _save_hashes(cache_file: Path, new: dict[str, str]) -> None:
    """Merge ``new`` into the persisted cache (atomic replace; entries of vanished files are dropped)."""
    try:
        try:
            stored = json.loads(cache_file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            stored = {}
        stored = {k: v for k, v in stored.items() if os.path.exists(k.rsplit("|", 2)[0])}
        stored.update(new)
        cache_file.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".sha256-", dir=cache_file.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(stored, f)
        os.replace(tmp, cache_file)
    except OSError as exc:  # a read-only cache only costs re-hashing next time
        log.debug("sha256 cache not written (%s)", exc)


def folder_hashes(d: Path) -> dict[str, str]:
    """``{relative path: sha256}`` of every file of a data folder (see :func:`data_files`)."""
    files = data_files(d)
    hashes = file_hashes(files)
    return {p.relative_to(d).as_posix(): hashes[p] for p in files}


def combined_sha256(files: dict[str, str]) -> str:
    """One digest for a folder: sha256 over ``"<relative path>\\0<sha256>\\n"`` lines in path order."""
    return hashlib.sha256("".join(f"{k}\0{v}\n" for k, v in sorted(files.items())).encode()).hexdigest()


# ------------------------------------------------------------------------------------------------ gold labels
MISSING, INVALID = "missing", "invalid"


def _missing(value: Any) -> bool:
    return (
        value is None
        or (isinstance(value, str) and not value.strip())
        or (isinstance(value, float) and math.isnan(value))
    )


def _mc_gold_problem(record: dict) -> tuple[str, str] | None:
    answer, k = record.get("answer"), len(record.get("choices") or ())
    if _missing(answer):
        return MISSING, "no gold answer"
    try:
        index = None if isinstance(answer, bool) else operator.index(answer)
    except TypeError:
        index = None
    if index is None or not 0 <= index < k:
        return INVALID, f"gold answer {answer!r} is not an index of its {k} choices"
    return None


def _ranking_gold_problem(record: dict) -> tuple[str, str] | None:
    ids = [c.get("docid") for c in record.get("candidates") or () if isinstance(c, dict)]
    if not ids:
        return INVALID, "no candidates"
    stray = [r for r in record.get("relevant") or () if r not in set(ids)]
    return (INVALID, f"relevant document(s) {stray[:3]} not among its candidates") if stray else None


def _entities_gold_problem(record: dict) -> tuple[str, str] | None:
    if not isinstance(record.get("target"), str):
        return MISSING, "no gold target"
    types = record.get("entity_types")
    stray = [e.get("type") for e in record.get("entities") or () if types and e.get("type") not in types]
    return (INVALID, f"entity type {stray[0]!r} is not one of {list(types)}") if stray else None


def _label_gold_problem(record: dict, labels: Iterable[str]) -> tuple[str, str] | None:
    if "label" in record:
        values = [("", record["label"])]
    elif isinstance(record.get("labels"), dict):
        values = sorted(record["labels"].items())
    else:
        return MISSING, "no gold label"
    allowed = list(record.get("label_names") or labels)
    for name, value in values:
        of = f" ({name})" if name else ""
        if _missing(value):
            return MISSING, f"no gold label{of}"
        if allowed and value not in allowed:
            return INVALID, f"gold label {value!r}{of} is not one of {allowed}"
    return None


SCORE_RANGE = (0.0, 5.0)  # the similarity scale of STS-B / JSTS ([PEARSON])


def _score_gold_problem(record: dict) -> tuple[str, str] | None:
    """``score``: a finite number within :data:`SCORE_RANGE` (a bool is no score)."""
    value = record.get("score")
    if _missing(value):
        return MISSING, "no gold score"
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return INVALID, f"gold score {value!r} is not a number"
    lo, hi = SCORE_RANGE
    if not lo <= value <= hi:
        return INVALID, f"gold score {value!r} is outside [{lo:g}, {hi:g}]"
    return None


def _answers_gold_problem(record: dict) -> tuple[str, str] | None:
    """``answers``: a non-empty list of non-empty strings (extractive QA: every reference answer)."""
    answers = record.get("answers")
    if not isinstance(answers, list) or not answers:
        return MISSING, "no reference answers"
    bad = next((a for a in answers if not isinstance(a, str) or not a.strip()), None)
    return (INVALID, f"reference answer {bad!r} is not a non-empty string") if bad is not None else None


# the gold checks a family's record names (``Family.gold``, lm_eval_enterprise.families)
GOLD_CHECKS: dict[str, Callable[[dict, Iterable[str]], tuple[str, str] | None]] = {
    "choice": lambda record, labels: _mc_gold_problem(record),
    "ranking": lambda record, labels: _ranking_gold_problem(record),
    "entities": lambda record, labels: _entities_gold_problem(record),
    "summary": lambda record, labels: (MISSING, "empty reference summary") if _missing(record.get("summary")) else None,
    "answer": lambda record, labels: (MISSING, "no gold answer") if _missing(record.get("answer")) else None,
    "label": _label_gold_problem,
    "score": lambda record, labels: _score_gold_problem(record),
    "answers": lambda record, labels: _answers_gold_problem(record),
}


def gold_problem(task_type: str, record: dict, labels: Iterable[str] = ()) -> tuple[str, str] | None:
    """What is wrong with a record's gold answer: ``(MISSING | INVALID, text)``, or ``None`` when it is usable.

    By the ``gold`` check of the task family (:mod:`lm_eval_enterprise.families`): ``choice`` — ``answer`` an int
    index of ``choices``; ``ranking`` — every ``relevant`` docid among the ``candidates``; ``entities`` — a string
    ``target`` and entity types within the record's ``entity_types`` (when given); ``summary`` — a non-empty
    ``summary``; ``answer`` — a non-empty ``answer``; ``score`` — a number in [0, 5]; ``answers`` — a non-empty list
    of non-empty strings; ``label`` — ``label`` (or each value of a ``labels`` dict, one
    per subtask) in the record's ``label_names``, else in the Source's ``labels``.
    """
    return GOLD_CHECKS[families.get(task_type).gold](record, labels)


def check_gold(
    src: Any, splits: dict[str, list[dict]], locate: Callable[[str, int], str], data_dir: Path
) -> tuple[dict[str, list[dict]], str, str | None]:
    """Check the gold answer of every record of every split (:func:`gold_problem`).

    Returns ``(splits, eval_split, note)``: when every record of the Source's ``eval_split`` lacks a gold answer
    and it names an ``eval_fallback`` split, that split is evaluated instead and the unlabelled one is dropped
    (``note`` says so). Any other problem raises one :class:`DataError` naming the file and line/row
    (``locate(split, index)``).
    """
    unlabelled: dict[str, int] = {}
    for split, recs in splits.items():
        missing: list[tuple[int, str]] = []
        for i, rec in enumerate(recs):
            problem = gold_problem(src.task_type, rec, src.labels)
            if problem is None:
                continue
            kind, text = problem
            rid = rec.get("id", rec.get("qid"))
            text += f" (id {rid!r})" if rid is not None else ""
            if kind == INVALID:
                raise DataError(src.id, locate(split, i), text)
            missing.append((i, text))
        if not missing:
            continue
        if len(missing) == len(recs) and split == src.eval_split and getattr(src, "eval_fallback", None):
            unlabelled[split] = len(recs)
            continue
        i, text = missing[0]
        raise DataError(
            src.id,
            locate(split, i),
            f"{text}; {len(missing):,} of {len(recs):,} records of split '{split}' have no gold answer",
        )
    if not unlabelled:
        return splits, src.eval_split, None
    fallback, (split, n) = src.eval_fallback, next(iter(unlabelled.items()))
    if not splits.get(fallback):
        raise DataError(
            src.id,
            data_dir,
            f"split '{split}' has no gold labels ({n:,} rows) and the fallback split '{fallback}' is missing or empty",
        )
    note = f"split '{split}' has no gold labels ({n:,} rows): evaluated on '{fallback}' instead"
    log.warning("[%s] %s: %s", src.id, data_dir, note)
    return {k: v for k, v in splits.items() if k != split}, fallback, note


# ------------------------------------------------------------------------------------------------ text encoding
BINARY_SUFFIXES = frozenset(
    {
        ".parquet",
        ".xlsx",
        ".xlsm",
        ".xls",
        ".arrow",
        ".feather",
        ".pkl",
        ".npy",
        ".npz",
        ".bin",
        ".png",
        ".jpg",
        ".jpeg",
        ".gif",
        ".pdf",
        ".pt",
        ".safetensors",
    }
)


def require_splits(src: Any, d: Path, splits: dict[str, list], eval_split: str) -> None:
    """One :class:`DataError` line if the evaluated split or the few-shot pool split is missing or empty (the pool
    may be absent for a Source with ``fewshot_optional``): checked by the loader of every run and by ``verify``, so
    both refuse the same folders."""
    for role, split in (("evaluation", eval_split), ("few-shot pool", src.fewshot_source_split)):
        if role == "few-shot pool" and getattr(src, "fewshot_optional", False):
            continue  # zero-shot datasets read an evaluation file alone; a run asking for shots fails then
        if not splits.get(split):
            raise DataError(src.id, d, f"{role} split '{split}' is empty or missing")


def repeated_ids(dataset: str, splits: dict[str, list[dict]], quirk: str | None = None) -> dict[str, Any]:
    """Record ids that occur more than once within a split: ``{"repeated_ids": {split: {"ids": n, "rows": m,
    "first": [...]}}}`` for the results metadata (empty when none), logged once as a warning — or, when the Source
    documents them (``quirk``: e.g. the genuine fiqa_sa files), as information naming that note. Such rows are
    kept (they are the data as published) but never silently: the Sharpe tool then pairs by content hash."""
    found: dict[str, dict[str, Any]] = {}
    for split, recs in splits.items():
        if split in ("fewshot", "eval"):  # derived views of other splits
            continue
        counts: dict[Any, int] = {}
        for rec in recs:
            if rec.get("id") is not None:
                counts[rec["id"]] = counts.get(rec["id"], 0) + 1
        dup = [k for k, n in counts.items() if n > 1]
        if dup:
            found[split] = {"ids": len(dup), "rows": sum(counts[k] for k in dup), "first": dup[:3]}
    if not found:
        return {}
    text = "; ".join(f"{s}: {f['ids']} ids on {f['rows']} rows (e.g. {f['first']})" for s, f in found.items())
    if quirk:
        log.info("[%s] repeated record ids (%s): %s", dataset, quirk, text)
    else:
        warn_once(log, "[%s] repeated record ids, kept and counted in the metadata (repeated_ids): %s", dataset, text)
    return {"repeated_ids": found}


def describe_decode_error(exc: UnicodeDecodeError) -> str:
    return f"byte 0x{exc.object[exc.start]:02x} at column {exc.start + 1} is not UTF-8"


def _first_bad_line(lines: Iterable[bytes]) -> tuple[int, str] | None:
    for n, raw in enumerate(lines, 1):
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            return n, describe_decode_error(exc)
    return None


def first_non_utf8(d: Path) -> tuple[str, str] | None:
    """``(file:line, detail)`` of the first line that is not UTF-8 in a data folder's text files, looking inside
    ``.zip`` members and ``.gz`` files too (binary formats such as parquet and xlsx are skipped)."""
    for path in data_files(d):
        suffix = path.suffix.lower()
        if suffix in BINARY_SUFFIXES:
            continue
        try:
            if suffix == ".zip":
                with zipfile.ZipFile(path) as zf:
                    for name in sorted(zf.namelist()):
                        if name.endswith("/") or Path(name).suffix.lower() in BINARY_SUFFIXES:
                            continue
                        with zf.open(name) as f:
                            hit = _first_bad_line(f)
                        if hit:
                            return f"{path}:{name}:{hit[0]}", hit[1]
                continue
            opener = gzip.open if suffix == ".gz" else open
            with opener(path, "rb") as f:
                hit = _first_bad_line(f)
        except (OSError, zipfile.BadZipFile, EOFError):
            continue
        if hit:
            return f"{path}:{hit[0]}", hit[1]
    return None


def utf8_error(dataset: str, d: Path, exc: UnicodeDecodeError) -> DataError:
    """One :class:`DataError` line for a conversion stopped by non-UTF-8 bytes, naming the file and line."""
    hit = first_non_utf8(d)
    if hit:
        return DataError(dataset, hit[0], f"not UTF-8 text: {hit[1]}; re-save the file as UTF-8")
    return DataError(dataset, d, f"not UTF-8 text in a file of this folder ({describe_decode_error(exc)})")


# ------------------------------------------------------------------------------------------------ the report
@dataclass
class DataReport:
    """Everything the checks found for one data folder; :meth:`metadata` goes into the task metadata."""

    dataset: str
    data_dir: Path
    layout: str  # "source files" | "pre-split"
    declared: str | None  # MANIFEST.json | SOURCE.md | None (see declared_copy)
    checks: list[CountCheck]
    files: dict[str, str]  # relative path → sha256
    eval_split: str
    eval_note: str | None = None
    errors: list[str] = field(default_factory=list)  # count errors recorded instead of raised (verify)
    # read from a dataset's embedded fixture folder (a few synthetic rows per dataset, for demos and tests): results
    # and reports must never present such scores as benchmark scores
    toy_data: bool = False

    @property
    def partial_note(self) -> str | None:
        if self.declared != SAMPLE_NOTE:
            return None
        return (
            f"partial copy ({SAMPLE_NOTE} in the folder): splits checked against the full counts as upper "
            "bounds; not the benchmark data"
        )

    @property
    def status(self) -> str:
        worst = max([_RANK[c.status] for c in self.checks] + [0])
        if self.errors:
            worst = _RANK[ERROR]
        if self.partial_note or self.eval_note:
            worst = max(worst, _RANK[WARNING])
        return [OK, WARNING, ERROR][worst]

    @property
    def messages(self) -> list[str]:
        notes = [c.message for c in self.checks if c.status == WARNING]
        return self.errors + notes + [m for m in (self.partial_note, self.eval_note) if m]

    @property
    def sha256(self) -> str:
        return combined_sha256(self.files)

    def metadata(self) -> dict[str, Any]:
        """Facts for ``results["configs"][task]["metadata"]``: counts with their expectations, status, hashes."""
        out = {
            "data_dir": str(self.data_dir),
            "data_layout": self.layout,
            "data_declared": self.declared,
            "data_status": self.status,
            "data_notes": self.messages,
            "row_counts": {c.key: c.to_json() for c in self.checks},
            "evaluated_split": self.eval_split,
            "source_sha256": self.sha256,
            "source_files": dict(self.files),
            TOY_DATA: self.toy_data,
        }
        return out
