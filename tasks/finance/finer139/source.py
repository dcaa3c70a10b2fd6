"""finer139 — FiNER-139 numeric XBRL entity recognition (Loukas et al., ACL 2022), reduced to the top-10 tags.

Source layouts of the HF dataset ``nlpaueb/finer-139`` (all give the same records), tried in this order:

1. **as published** on the hub's main branch (what :meth:`Finer139.download` fetches with ``hf_hub_download``):
   ``finer139.zip`` holding ``train.jsonl``, ``validation.jsonl``, ``test.jsonl`` — one JSON object per line with
   ``id``, ``tokens`` (list of strings) and ``ner_tags`` (list of IOB2 tag **strings**, e.g.
   ``B-DebtInstrumentInterestRateStatedPercentage``; ClassLabel ids are accepted too) — plus
   ``dataset_infos.json`` beside it (the ClassLabel names of ``ner_tags``: 279 labels = ``O`` + B-/I- of 139 XBRL
   tags, and the split sizes, checked exactly when present);
2. the same archive **unzipped**: ``train.jsonl`` and ``test.jsonl`` in the dataset folder or in one sub-folder;
3. the hub's auto-converted **parquet** files (revision ``refs/convert/parquet``): ``<config>/train/*.parquet``
   and ``<config>/test/*.parquet`` (config folder ``finer-139``; another single config folder is accepted) with
   ``ner_tags`` as ClassLabel ids; names from the files' ``huggingface`` schema metadata, else from
   ``label_names.json`` (one JSON list) or ``dataset_infos.json`` beside them.
Only train and test are read (validation is unused by the recipe).

Recipe (README; k = 10, n = 1,000, seed 0 are our decisions, see its Deviations):
1. decode IOB2 spans: ``B-X`` starts a span, ``I-X`` continues a span of type X, an ``I-X`` after anything else
   starts a new span;
2. top-10 = the 10 entity types with the most spans in the TRAIN split, ties broken by type name;
3. entities of other types are removed (treated as ``O``); only sentences with >= 1 kept entity remain;
4. eval = ``random.Random(0).sample(kept test sentences in file order, 1000)`` sorted by id (numerically when
   every id is a number); few-shot pool = kept train sentences, [BAL]-ordered by each sentence's most frequent
   kept type (ties: type name).
Types are verbalised by splitting the CamelCase name into lower-case words (digits become their own word):
``DebtInstrumentBasisSpreadOnVariableRate1`` → ``debt instrument basis spread on variable rate 1``.
Train (900k sentences) is scanned column-wise with numpy (parquet) or line by line (JSONL: one ``json.loads`` per
line, every line validated; a second pass re-reads only the lines with a kept entity); only kept sentences become
Python records.
"""

from __future__ import annotations

import json
import logging
import random
import re
import zipfile
from collections import Counter
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

from lm_eval_enterprise.data import (
    ENV_DATA,
    HF_CONVERTED_REVISION,
    MANIFEST,
    DataError,
    HFParquetSource,
    RemoteFile,
    check_count,
    download_failure,
    exc_line,
    is_offline,
    local_parquet_files,
    unverified,
    verified,
)
from lm_eval_enterprise.data.fewshot import top_k_labels

log = logging.getLogger("lm_eval_enterprise.finer139")

HF_REPO = "nlpaueb/finer-139"
# the files as published: a named revision, not a commit (no commit sha of the repo could be confirmed; README)
HF_MAIN = "main"
CONFIG = "finer-139"
TOP_K = 10
N_EVAL = 1000
SEED = 0
LABEL_NAMES_FILE = "label_names.json"
ZIP_NAME = "finer139.zip"
INFOS_NAME = "dataset_infos.json"
HUB_URL = "https://huggingface.co/datasets/{repo}/resolve/{revision}/{name}"
SPLITS = ("train", "test")  # read; the published validation.jsonl is unused
# sentences before filtering: from the dataset card, not counted on the genuine files (a mismatch is a warning)
RAW_ROWS = {"train": 900_384, "test": 108_378}
_CAMEL = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")


def verbalise(xbrl: str) -> str:
    """CamelCase XBRL element name → lower-case words (``...VariableRate1`` → ``... variable rate 1``)."""
    words = _CAMEL.findall(xbrl)
    if not words:
        raise ValueError(f"cannot verbalise XBRL name {xbrl!r}")
    return " ".join(w.lower() for w in words)


# ------------------------------------------------------------------------------------------------ label names
def sequence_class_names(feature: Any) -> list[str] | None:
    """ClassLabel names of a ``Sequence(ClassLabel)`` feature in the JSON ``datasets`` serialises:
    ``{"feature": {...ClassLabel}, "_type": "Sequence"|"List"|"LargeList"}``, ``[{...ClassLabel}]`` or a bare
    ClassLabel dict."""
    if isinstance(feature, list) and len(feature) == 1:
        feature = feature[0]
    if (
        isinstance(feature, dict)
        and "names" not in feature
        and feature.get("_type", "Sequence") in ("Sequence", "List", "LargeList")
    ):
        feature = feature.get("feature")
    if isinstance(feature, dict) and feature.get("_type", "ClassLabel") == "ClassLabel" and feature.get("names"):
        return [str(n) for n in feature["names"]]
    return None


def parquet_label_names(path: Path) -> list[str] | None:
    """``ner_tags`` label names from a parquet file's ``huggingface`` schema metadata (``None`` if absent)."""
    import pyarrow.parquet as pq

    raw = (pq.read_schema(path).metadata or {}).get(b"huggingface")
    if not raw:
        return None
    try:
        return sequence_class_names(json.loads(raw)["info"]["features"]["ner_tags"])
    except (ValueError, KeyError, TypeError):
        return None


def read_dataset_infos(path: Path) -> tuple[list[str] | None, dict[str, int]]:
    """``dataset_infos.json`` as published beside ``finer139.zip``: ``{config: {"features": {"ner_tags":
    Sequence(ClassLabel)}, "splits": {split: {"num_examples": n}}}}`` (config ``finer-139``, or the only one) →
    (``ner_tags`` label names or ``None``, {split: num_examples})."""
    try:
        infos = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise DataError("finer139", path, f"not a readable JSON file ({exc_line(exc)})") from exc
    info = infos.get(CONFIG) if isinstance(infos, dict) else None
    if info is None and isinstance(infos, dict) and len(infos) == 1:
        info = next(iter(infos.values()))
    if not isinstance(info, dict):
        raise DataError("finer139", path, f"no '{CONFIG}' configuration in the dataset infos")
    names = sequence_class_names((info.get("features") or {}).get("ner_tags"))
    splits = info.get("splits") or {}
    rows = {s: int(v["num_examples"]) for s, v in splits.items() if isinstance(v, dict) and "num_examples" in v}
    return names, rows


def check_label_names(names: list[str], where) -> list[str]:
    if "O" not in names:
        raise DataError("finer139", where, "label names have no 'O'")
    bad = [n for n in names if n != "O" and not re.fullmatch(r"[BI]-[A-Za-z0-9]+", n)]
    if bad:
        raise DataError("finer139", where, f"label names are not IOB2 XBRL tags: {bad[:3]}")
    return names


# ------------------------------------------------------------------------------------------------ IOB2 spans
def iob2_spans(tags: list[str]) -> list[tuple[str, int, int]]:
    """IOB2 decoding: (type, start, end) with end exclusive; ``I-X`` not continuing an ``X`` span starts one."""
    spans: list[list] = []
    prev = None
    for i, tag in enumerate(tags):
        if tag == "O":
            prev = None
            continue
        prefix, etype = tag[0], tag[2:]
        if prefix == "I" and prev == etype:
            spans[-1][2] = i + 1
        else:
            spans.append([etype, i, i + 1])
        prev = etype
    return [tuple(s) for s in spans]


def _label_arrays(names: list[str]):
    import numpy as np

    types = sorted({n[2:] for n in names if n != "O"})
    index = {t: j for j, t in enumerate(types)}
    type_of = np.array([-1 if n == "O" else index[n[2:]] for n in names], dtype=np.int32)
    is_b = np.array([n.startswith("B-") for n in names], dtype=bool)
    return types, type_of, is_b


def _span_starts(flat, offsets, type_of, is_b):
    """Boolean mask over flattened tag ids: True where an IOB2 span starts (see :func:`iob2_spans`)."""
    import numpy as np

    t = type_of[flat]
    start = (t >= 0) & is_b[flat]
    cont = np.zeros_like(start)
    if len(t) > 1:
        cont[1:] = (t[1:] >= 0) & (t[1:] == t[:-1])
    first = np.zeros(len(t), dtype=bool)
    first[offsets[:-1][offsets[:-1] < len(t)]] = True  # a sentence's first token never continues a span
    return start | ((t >= 0) & ~is_b[flat] & (~cont | first))


def _batches(files: list[Path], columns: list[str], dataset: str) -> Iterator:
    import pyarrow.parquet as pq

    for path in files:
        try:
            pf = pq.ParquetFile(path)
            lacking = [c for c in columns if c not in pf.schema_arrow.names]
            if lacking:
                raise DataError(dataset, path, f"missing columns {lacking} (has {pf.schema_arrow.names})")
            for batch in pf.iter_batches(columns=columns, batch_size=65536):
                yield path, batch
        except DataError:
            raise
        except Exception as exc:  # ArrowInvalid, OSError: unreadable or truncated file
            raise DataError(dataset, path, f"not a readable parquet file ({type(exc).__name__}: {exc})") from exc


def _flat_tags(batch, n_labels: int, path: Path):
    import numpy as np
    import pyarrow as pa

    col = batch.column(batch.schema.get_field_index("ner_tags"))
    if not (pa.types.is_list(col.type) or pa.types.is_large_list(col.type)) or not pa.types.is_integer(
        col.type.value_type
    ):
        raise DataError("finer139", path, f"ner_tags is {col.type}, expected lists of ClassLabel ids")
    offsets = np.asarray(col.offsets)
    offsets = offsets - offsets[0]  # a sliced list array keeps its parent's offsets
    flat = np.asarray(col.flatten()).astype(np.int64, copy=False)
    if len(flat) and (flat.min() < 0 or flat.max() >= n_labels):
        raise DataError("finer139", path, f"ner_tags id outside the {n_labels} label names")
    return flat, offsets


def count_train_spans(files: list[Path], names: list[str]) -> tuple[Counter, int]:
    """Entity spans per type over the train files (vectorised), and the number of sentences."""
    import numpy as np

    types, type_of, is_b = _label_arrays(names)
    counts = np.zeros(len(types), dtype=np.int64)
    rows = 0
    for path, batch in _batches(files, ["ner_tags"], "finer139"):
        flat, offsets = _flat_tags(batch, len(names), path)
        rows += batch.num_rows
        starts = _span_starts(flat, offsets, type_of, is_b)
        counts += np.bincount(type_of[flat][starts], minlength=len(types))
    return Counter({t: int(c) for t, c in zip(types, counts) if c}), rows


def top_k_types(counts: Counter, k: int = TOP_K) -> list[str]:
    """The k types with the most spans; ties by type name (shared rule: :func:`~lm_eval_enterprise.data.fewshot.top_k_labels`)."""
    return top_k_labels(counts, k)


def kept_rows(files: list[Path], names: list[str], keep: set[str]) -> tuple[list[tuple], int]:
    """(id, tokens, tag names) of the sentences with >= 1 token of a kept type, in file order; and the number of
    sentences read. Only those sentences are converted to Python objects."""
    import numpy as np

    keep_label = np.array([n != "O" and n[2:] in keep for n in names], dtype=bool)
    out, rows = [], 0
    for path, batch in _batches(files, ["id", "tokens", "ner_tags"], "finer139"):
        flat, offsets = _flat_tags(batch, len(names), path)
        rows += batch.num_rows
        hits = np.concatenate([[0], np.cumsum(keep_label[flat])])
        idx = np.nonzero(hits[offsets[1:]] - hits[offsets[:-1]] > 0)[0]
        if len(idx):
            for row in batch.take(idx).to_pylist():
                out.append((row["id"], row["tokens"], [names[t] for t in row["ner_tags"]]))
    return out, rows


def sentence_record(sid: Any, tokens: list[str], tags: list[str], keep: list[str], where: str) -> dict:
    """Kept-type entities (IOB2 spans) → ``{id, text, entities, target, entity_types, type_list, top_type}``."""
    if len(tokens) != len(tags):
        raise DataError("finer139", where, f"sentence {sid}: {len(tokens)} tokens but {len(tags)} tags")
    keep_set = set(keep)
    ents = [
        {"text": " ".join(tokens[s:e]), "type": verbalise(t), "xbrl": t, "start": s, "end": e}
        for t, s, e in iob2_spans(tags)
        if t in keep_set
    ]
    counts = Counter(e["xbrl"] for e in ents)
    top = min(counts, key=lambda t: (-counts[t], t)) if counts else None
    types = [verbalise(t) for t in keep]
    return {
        "id": str(sid),
        "text": " ".join(tokens),
        "entities": ents,
        "target": ", ".join(f"{e['text']} ({e['type']})" for e in ents) or "None",
        "entity_types": types,
        "type_list": ", ".join(types),
        "top_type": top,
    }


def _id_key(ids: list[str]):
    if all(i.isdigit() for i in ids):
        return lambda r: (int(r["id"]), r["id"])
    return lambda r: r["id"]


def sample_eval(records: list[dict], n: int = N_EVAL, seed: int = SEED) -> list[dict]:
    """``random.Random(seed).sample(records, min(n, len))`` sorted by id (numerically when all ids are numbers)."""
    chosen = random.Random(seed).sample(records, min(n, len(records)))
    return sorted(chosen, key=_id_key([r["id"] for r in chosen]))


# ------------------------------------------------------------------------------------------------ JSONL layout
_IOB2_NAME = re.compile(r"O|[BI]-[A-Za-z0-9]+")


class JsonlSplits:
    """The published JSONL files of the splits, in ``finer139.zip`` (members found by file name, at any depth) or
    unzipped in a folder; :meth:`lines` yields (line number, text) and names the file on a decoding error."""

    def __init__(self, dataset: str, root: Path, members: dict[str, str], archive: Path | None):
        self.dataset, self.root, self.members, self.archive = dataset, root, members, archive

    @classmethod
    def find(cls, d: Path) -> JsonlSplits | None:
        """``d/finer139.zip`` if present, else a folder (``d`` or one sub-folder) with train.jsonl and test.jsonl."""
        zpath = d / ZIP_NAME
        if zpath.is_file():
            try:
                with zipfile.ZipFile(zpath) as zf:
                    names = [n for n in zf.namelist() if not n.endswith("/") and not n.startswith("__MACOSX/")]
            except (OSError, zipfile.BadZipFile) as exc:
                raise DataError("finer139", zpath, f"not a readable zip archive ({exc_line(exc)})") from exc
            members = {}
            for split in SPLITS:
                found = [n for n in names if n.rsplit("/", 1)[-1] == f"{split}.jsonl"]
                if len(found) != 1:
                    raise DataError(
                        "finer139",
                        zpath,
                        f"expected one {split}.jsonl in the archive, found {len(found)} (members: {names[:6]})",
                    )
                members[split] = found[0]
            return cls("finer139", d, members, zpath)
        if not d.is_dir():
            return None
        folders = [d] + sorted(p for p in d.iterdir() if p.is_dir() and not p.name.startswith("."))
        found = [f for f in folders if all((f / f"{s}.jsonl").is_file() for s in SPLITS)]
        if not found:
            return None
        if len(found) > 1:
            raise DataError(
                "finer139",
                d,
                f"several folders hold train.jsonl and test.jsonl: {[str(f.relative_to(d)) or '.' for f in found]}",
            )
        return cls("finer139", found[0], {s: f"{s}.jsonl" for s in SPLITS}, None)

    def where(self, split: str) -> str:
        return f"{self.archive}!{self.members[split]}" if self.archive else str(self.root / self.members[split])

    def lines(self, split: str) -> Iterator[tuple[int, str]]:
        where = self.where(split)
        try:
            if self.archive:
                with zipfile.ZipFile(self.archive) as zf, zf.open(self.members[split]) as f:
                    yield from self._decoded(f, where)
            else:
                with open(self.root / self.members[split], "rb") as f:
                    yield from self._decoded(f, where)
        except (OSError, zipfile.BadZipFile, EOFError) as exc:  # truncated archive, CRC error, unreadable file
            raise DataError(self.dataset, where, f"cannot read the file ({exc_line(exc)})") from exc

    def _decoded(self, f, where: str) -> Iterator[tuple[int, str]]:
        for n, raw in enumerate(f, 1):
            try:
                yield n, raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise DataError(self.dataset, f"{where}:{n}", f"not UTF-8 ({exc.reason} at byte {exc.start})") from exc


def jsonl_row(line: str, n: int, where: str, names: list[str] | None) -> tuple[str, list[str], list[str]] | None:
    """One line → (id, tokens, tag names); ``None`` for a blank line. ``id`` defaults to the 0-based line index
    (the key of the hub's loading script); ``ner_tags`` may be names or ClassLabel ids (ids need ``names``);
    tag names must be ``names`` (when known) or IOB2-shaped. Anything else is a one-line :class:`DataError`."""
    if not line.strip():
        return None
    loc = f"{where}:{n}"
    try:
        row = json.loads(line)
    except ValueError as exc:
        raise DataError("finer139", loc, f"invalid JSON line ({exc_line(exc)})") from exc
    tokens, tags = (row.get("tokens"), row.get("ner_tags")) if isinstance(row, dict) else (None, None)
    if not isinstance(tokens, list) or not isinstance(tags, list):
        raise DataError("finer139", loc, "expected an object with 'tokens' and 'ner_tags' lists")
    if len(tokens) != len(tags):
        raise DataError("finer139", loc, f"{len(tokens)} tokens but {len(tags)} ner_tags")
    try:
        distinct = set(tags)  # a handful per sentence: validate those, not 40M tags one by one
    except TypeError:
        raise DataError("finer139", loc, "ner_tags must be strings or integer ids") from None
    if distinct and all(type(t) is int for t in distinct):
        if names is None:
            raise DataError(
                "finer139", loc, f"ner_tags are ClassLabel ids but there is no {INFOS_NAME} with their names"
            )
        if min(distinct) < 0 or max(distinct) >= len(names):
            raise DataError("finer139", loc, f"ner_tags id outside the {len(names)} label names")
        tags = [names[t] for t in tags]
    elif distinct != {"O"}:
        unknown = {t for t in distinct if not isinstance(t, str) or not _IOB2_NAME.fullmatch(t)}
        if names is not None:
            unknown |= distinct - _name_set(tuple(names))
        if unknown:
            raise DataError("finer139", loc, f"unknown ner_tags {sorted(map(str, unknown))[:3]}")
    if not set(map(type, tokens)) <= {str}:
        raise DataError("finer139", loc, "tokens must be strings")
    sid = row["id"] if row.get("id") is not None else n - 1
    return str(sid), tokens, tags


@lru_cache(maxsize=4)
def _name_set(names: tuple[str, ...]) -> frozenset[str]:
    return frozenset(names)


def jsonl_train_spans(splits: JsonlSplits, names: list[str] | None) -> tuple[Counter, int, dict[int, frozenset]]:
    """Pass 1 over train: entity spans per type, the number of sentences, and per line with entities its types."""
    counts: Counter = Counter()
    rows, types_of_line = 0, {}
    where = splits.where("train")
    for n, line in splits.lines("train"):
        row = jsonl_row(line, n, where, names)
        if row is None:
            continue
        rows += 1
        spans = iob2_spans(row[2]) if row[2].count("O") != len(row[2]) else ()
        if spans:
            counts.update(t for t, _, _ in spans)
            types_of_line[n] = frozenset(t for t, _, _ in spans)
    return counts, rows, types_of_line


def jsonl_kept_rows(
    splits: JsonlSplits, split: str, names: list[str] | None, keep: set[str], lines: set[int] | None = None
) -> tuple[list[tuple], int]:
    """(id, tokens, tags) of the sentences with >= 1 token of a kept type, in file order, and the number of
    sentences read; ``lines``: parse only these line numbers (the train lines pass 1 found a kept type in)."""
    out, rows = [], 0
    where = splits.where(split)
    for n, line in splits.lines(split):
        if not line.strip():
            continue
        rows += 1
        if lines is not None and n not in lines:
            continue
        row = jsonl_row(line, n, where, names)
        tags = row[2]
        if tags.count("O") != len(tags) and any(t != "O" and t[2:] in keep for t in tags):
            out.append(row)
    return out, rows


class Finer139(HFParquetSource):
    id = "finer139"
    domain = "finance"
    task_type = "entity"
    hf_repo = HF_REPO
    hf_revision = HF_CONVERTED_REVISION
    hf_prefix = CONFIG
    hf_splits = SPLITS
    files = tuple(
        RemoteFile(name, HUB_URL.format(repo=HF_REPO, revision=HF_MAIN, name=name)) for name in (ZIP_NAME, INFOS_NAME)
    )
    expected_rows = {
        "test": unverified(N_EVAL, "recipe sample size (1,000 kept test sentences); genuine files not counted"),
        "train": unverified(None, "kept train sentences (top-10 filter): no published count"),
    }

    # -- source layouts: the published zip (or its unzipped files), else the converted parquet files --------------
    def config_dir(self, d: Path) -> str:
        """``finer-139`` if present, else the single folder holding train/ and test/ parquet files."""
        if local_parquet_files(d, CONFIG).get("train"):
            return CONFIG
        found = (
            [
                p.name
                for p in sorted(d.iterdir())
                if p.is_dir()
                and not p.name.startswith(".")
                and all(local_parquet_files(d, p.name).get(s) for s in self.hf_splits)
            ]
            if d.is_dir()
            else []
        )
        return found[0] if len(found) == 1 else CONFIG

    def has_source_layout(self, d: Path) -> bool:
        if (d / ZIP_NAME).is_file() or JsonlSplits.find(d) is not None:
            return True
        found = local_parquet_files(d, self.config_dir(d))
        return all(found.get(s) for s in self.hf_splits)

    def parquet_files(self, raw_dir: Path, split: str) -> list[Path]:
        prefix = self.config_dir(raw_dir)
        files = local_parquet_files(raw_dir, prefix).get(split)
        if not files:
            raise DataError(self.id, raw_dir / prefix, f"no parquet files for split '{split}'")
        return files

    def download(self, dest: Path, progress: bool = True, api: Any = None) -> None:
        """Fetch the files as published on the hub's main branch — ``finer139.zip`` and ``dataset_infos.json`` —
        with ``huggingface_hub`` (``HfApi().hf_hub_download``: the hub's own cache, auth and retries) into ``dest``
        (``api``: an ``HfApi``-like object, for tests)."""
        where = f"hf://datasets/{self.hf_repo}"
        if is_offline():
            raise DataError(
                self.id,
                where,
                "cannot download: offline (HF_HUB_OFFLINE/HF_DATASETS_OFFLINE); put "
                f"{ZIP_NAME} and {INFOS_NAME} in ${ENV_DATA}/{self.id}/ by hand",
            )
        if api is None:
            from huggingface_hub import HfApi

            api = HfApi()
        for f in self.files:
            try:
                api.hf_hub_download(
                    repo_id=self.hf_repo, filename=f.name, repo_type="dataset", revision=HF_MAIN, local_dir=str(dest)
                )
            except Exception as exc:  # network / auth / missing file: one actionable line
                raise download_failure(self.id, f"{where}/{f.name}", exc, repo_id=self.hf_repo) from exc

    # -- conversion -----------------------------------------------------------------------------------------
    def infos(self, d: Path) -> tuple[list[str] | None, dict[str, int], Path | None]:
        """(label names, split sizes, path) of ``dataset_infos.json`` in ``d`` (``None``/``{}`` if absent)."""
        path = d / INFOS_NAME
        if not path.is_file():
            return None, {}, None
        names, rows = read_dataset_infos(path)
        return (check_label_names(names, path) if names else None), rows, path

    def label_names(self, raw_dir: Path) -> list[str]:
        first = self.parquet_files(raw_dir, "train")[0]
        names = parquet_label_names(first)
        side = raw_dir / LABEL_NAMES_FILE
        if side.exists():
            try:
                side_names = json.loads(side.read_text())
            except ValueError as exc:
                raise DataError(self.id, side, f"not a JSON list of label names ({exc})") from exc
            if names is not None and side_names != names:
                raise DataError(self.id, side, f"label names differ from the ClassLabel names in {first}")
            names = side_names
        if not names:
            names = self.infos(raw_dir)[0]
        if not names:
            raise DataError(
                self.id,
                first,
                "no ClassLabel names for ner_tags: the parquet file has no "
                f"'huggingface' schema metadata and there is no {LABEL_NAMES_FILE} or {INFOS_NAME} "
                "beside it",
            )
        return check_label_names([str(n) for n in names], side if side.exists() else first)

    def convert(self, raw_dir: Path) -> dict[str, list[dict]]:
        jsonl = JsonlSplits.find(raw_dir)
        if jsonl is not None:
            return self._convert_jsonl(raw_dir, jsonl)
        names = self.label_names(raw_dir)
        train_files, test_files = self.parquet_files(raw_dir, "train"), self.parquet_files(raw_dir, "test")
        counts, n_train = count_train_spans(train_files, names)
        keep = self._top_k(counts, raw_dir)
        rows, raw_counts = {}, {}
        for split, files in (("train", train_files), ("test", test_files)):
            rows[split], raw_counts[split] = kept_rows(files, names, set(keep))
        if raw_counts["train"] != n_train:
            raise DataError(self.id, train_files[0].parent, "train files changed while reading")
        return self._finish(
            rows,
            keep,
            raw_counts,
            raw_dir,
            {s: str(f[0].parent) for s, f in (("train", train_files), ("test", test_files))},
        )

    def _convert_jsonl(self, raw_dir: Path, jsonl: JsonlSplits) -> dict[str, list[dict]]:
        names, info_rows, info_path = self.infos(raw_dir)
        counts, n_train, types_of_line = jsonl_train_spans(jsonl, names)
        keep = self._top_k(counts, raw_dir)
        keep_set = set(keep)
        wanted = {n for n, types in types_of_line.items() if types & keep_set}
        rows, raw_counts = {}, {}
        rows["train"], raw_counts["train"] = jsonl_kept_rows(jsonl, "train", names, keep_set, wanted)
        rows["test"], raw_counts["test"] = jsonl_kept_rows(jsonl, "test", names, keep_set)
        if raw_counts["train"] != n_train:
            raise DataError(self.id, jsonl.where("train"), "train file changed while reading")
        for split, n in raw_counts.items():  # the publisher's own split sizes, exactly
            if split in info_rows and info_rows[split] != n:
                raise DataError(
                    self.id,
                    jsonl.where(split),
                    f"{n:,} sentences, but {INFOS_NAME} says {info_rows[split]:,} for '{split}' ({info_path})",
                )
        return self._finish(rows, keep, raw_counts, raw_dir, {s: jsonl.where(s) for s in SPLITS})

    def _top_k(self, counts: Counter, raw_dir: Path) -> list[str]:
        keep = top_k_types(counts)
        if len(keep) < TOP_K:
            raise DataError(self.id, raw_dir, f"train has only {len(keep)} entity types; top-{TOP_K} needs more")
        log.info("[finer139] top-%d train types: %s", TOP_K, ", ".join(f"{t} ({counts[t]})" for t in keep))
        return keep

    def _finish(
        self,
        rows: dict[str, list[tuple]],
        keep: list[str],
        raw_counts: dict[str, int],
        raw_dir: Path,
        where: dict[str, str],
    ) -> dict[str, list[dict]]:
        """Kept rows → records; raw row counts checked; the seeded eval sample."""
        out = {
            split: [sentence_record(sid, tokens, tags, keep, where[split]) for sid, tokens, tags in rs]
            for split, rs in rows.items()
        }
        self._check_raw_rows(raw_counts, raw_dir)
        out["test"] = sample_eval(out["test"])
        return out

    def _check_raw_rows(self, counts: dict[str, int], raw_dir: Path) -> None:
        """Sentences per split before filtering, through the shared count check: the card's sizes are unverified
        (warning on mismatch); a fixture's ``MANIFEST.json`` ``raw_rows`` are its own exact counts."""
        expected = {
            k: unverified(
                v, "sizes of a card derived from FiNER-139 (900,384 / 108,378); not counted on the genuine files"
            )
            for k, v in RAW_ROWS.items()
        }
        manifest = raw_dir / MANIFEST
        if manifest.exists():
            try:
                spec = json.loads(manifest.read_text())
                expected = {k: verified(int(v), MANIFEST) for k, v in spec.get("raw_rows", RAW_ROWS).items()}
            except (ValueError, TypeError, AttributeError) as exc:
                raise DataError(self.id, manifest, f"bad manifest ({exc})") from exc
        for split, rows in expected.items():
            check_count(
                self.id,
                f"{split}_raw_sentences",
                counts.get(split, 0),
                rows,
                raw_dir,
                subject=f"{counts.get(split, 0):,} {split} sentences in the source files",
            )

    def fewshot_key(self, record: dict) -> Any:
        """[BAL] label key: the sentence's most frequent kept type (ties: type name)."""
        return record["top_type"]

    def task_metadata(self, splits: dict[str, list[dict]]) -> dict[str, Any]:
        """The top-10 list actually used (XBRL names in rank order, their verbalisation) → results metadata."""
        rec = next(iter(splits.get("test") or splits.get("train") or []), None)
        if rec is None:
            return {}
        xbrl = sorted({e["xbrl"] for s in splits.values() for r in s for e in r["entities"]})
        words = rec["entity_types"]
        by_words = {verbalise(x): x for x in xbrl}
        return {"top_k_types": words, "top_k_xbrl": [by_words.get(w) for w in words]}


SOURCE = Finer139()
