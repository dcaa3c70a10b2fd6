"""finer139 — FiNER-139 numeric XBRL entity recognition (Loukas et al., ACL 2022), reduced to the top-10 tags.

Source layout: the parquet files of the HF dataset ``nlpaueb/finer-139`` (a script-based dataset, so the hub's
auto-converted revision ``refs/convert/parquet``): ``<config>/train/*.parquet`` and ``<config>/test/*.parquet``
(config folder ``finer-139``; another single config folder is accepted). Columns ``id``, ``tokens`` (list of
strings), ``ner_tags`` (list of ClassLabel ids: IOB2 over 139 XBRL tags, 279 labels with ``O``). The label
names are read from the ``huggingface`` schema metadata that ``datasets`` writes into every parquet file (the
ClassLabel ``names`` of ``features["ner_tags"]``); if a copy lacks it, from ``label_names.json`` beside the
files (one JSON list, written by :meth:`Finer139.download` from the hub's dataset-info API).

Recipe (DATASETS.md; k = 10, n = 1,000, seed 0 are the spec's DECISION):
1. decode IOB2 spans: ``B-X`` starts a span, ``I-X`` continues a span of type X, an ``I-X`` after anything else
   starts a new span;
2. top-10 = the 10 entity types with the most spans in the TRAIN split, ties broken by type name;
3. entities of other types are removed (treated as ``O``); only sentences with >= 1 kept entity remain;
4. eval = ``random.Random(0).sample(kept test sentences in file order, 1000)`` sorted by id (numerically when
   every id is a number); few-shot pool = kept train sentences, [BAL]-ordered by each sentence's most frequent
   kept type (ties: type name).
Types are verbalised by splitting the CamelCase name into lower-case words (digits become their own word):
``DebtInstrumentBasisSpreadOnVariableRate1`` → ``debt instrument basis spread on variable rate 1``.
Train (900k sentences) is scanned column-wise with numpy; only kept sentences become Python records.
"""
from __future__ import annotations

import json
import logging
import random
import re
from collections import Counter
from pathlib import Path
from typing import Any, Iterator

from lm_eval_enterprise.fewshot import top_k_labels
from lm_eval_enterprise.data import (HF_CONVERTED_REVISION, MANIFEST, DataError, HFParquetSource, ENV_DATA,
                                     download_hf_parquet, fetch_json, hf_parquet_files, is_offline, local_parquet_files)
from lm_eval_enterprise.datacheck import unverified

log = logging.getLogger("lm_eval_enterprise.finer139")

HF_REPO = "nlpaueb/finer-139"
CONFIG = "finer-139"
TOP_K = 10
N_EVAL = 1000
SEED = 0
LABEL_NAMES_FILE = "label_names.json"
RAW_ROWS = {"train": 900_384, "test": 108_378}  # sentences before filtering (±1 %)
INFO_URL = "https://datasets-server.huggingface.co/info?dataset={repo}&config={config}"
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
    if isinstance(feature, dict) and feature.get("_type") in ("Sequence", "List", "LargeList"):
        feature = feature.get("feature")
    if isinstance(feature, dict) and feature.get("_type") == "ClassLabel" and feature.get("names"):
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


def info_label_names(info: dict) -> list[str] | None:
    """``ner_tags`` names from a datasets-server ``/info`` response (``dataset_info.features.ner_tags``)."""
    try:
        return sequence_class_names(info["dataset_info"]["features"]["ner_tags"])
    except (KeyError, TypeError):
        return None


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
    if not (pa.types.is_list(col.type) or pa.types.is_large_list(col.type)) or \
            not pa.types.is_integer(col.type.value_type):
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
    """The k types with the most spans; ties by type name (shared rule: :func:`~lm_eval_enterprise.fewshot.top_k_labels`)."""
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
    ents = [{"text": " ".join(tokens[s:e]), "type": verbalise(t), "xbrl": t, "start": s, "end": e}
            for t, s, e in iob2_spans(tags) if t in keep_set]
    counts = Counter(e["xbrl"] for e in ents)
    top = min(counts, key=lambda t: (-counts[t], t)) if counts else None
    types = [verbalise(t) for t in keep]
    return {"id": str(sid), "text": " ".join(tokens), "entities": ents,
            "target": ", ".join(f"{e['text']} ({e['type']})" for e in ents) or "None",
            "entity_types": types, "type_list": ", ".join(types), "top_type": top}


def _id_key(ids: list[str]):
    if all(i.isdigit() for i in ids):
        return lambda r: (int(r["id"]), r["id"])
    return lambda r: r["id"]


def sample_eval(records: list[dict], n: int = N_EVAL, seed: int = SEED) -> list[dict]:
    """``random.Random(seed).sample(records, min(n, len))`` sorted by id (numerically when all ids are numbers)."""
    chosen = random.Random(seed).sample(records, min(n, len(records)))
    return sorted(chosen, key=_id_key([r["id"] for r in chosen]))


class Finer139(HFParquetSource):
    id = "finer139"
    domain = "finance"
    task_type = "ner"
    hf_repo = HF_REPO
    hf_revision = HF_CONVERTED_REVISION
    hf_prefix = CONFIG
    hf_splits = ("train", "test")
    expected_rows = {"test": unverified(N_EVAL, "recipe sample size (1,000 kept test sentences); genuine files "
                                                "not counted"),
                     "train": unverified(None, "kept train sentences (top-10 filter): no published count")}

    # -- source layout: config folder found, not assumed ----------------------------------------------------
    def config_dir(self, d: Path) -> str:
        """``finer-139`` if present, else the single folder holding train/ and test/ parquet files."""
        if local_parquet_files(d, CONFIG).get("train"):
            return CONFIG
        found = [p.name for p in sorted(d.iterdir()) if p.is_dir() and not p.name.startswith(".")
                 and all(local_parquet_files(d, p.name).get(s) for s in self.hf_splits)] if d.is_dir() else []
        return found[0] if len(found) == 1 else CONFIG

    def has_source_layout(self, d: Path) -> bool:
        found = local_parquet_files(d, self.config_dir(d))
        return all(found.get(s) for s in self.hf_splits)

    def parquet_files(self, raw_dir: Path, split: str) -> list[Path]:
        prefix = self.config_dir(raw_dir)
        files = local_parquet_files(raw_dir, prefix).get(split)
        if not files:
            raise DataError(self.id, raw_dir / prefix, f"no parquet files for split '{split}'")
        return files

    def download(self, dest: Path, progress: bool = True, api: Any = None) -> None:
        """Fetch the train/test parquet shards of the single config folder (``finer-139``) of the converted
        revision; write ``label_names.json`` only if the files carry no ClassLabel names (``api``: a
        ``huggingface_hub.HfApi``-like object, for tests)."""
        configs = hf_parquet_files(self.hf_repo, dataset=self.id, revision=self.hf_revision, api=api)  # by folder
        config = CONFIG if CONFIG in configs else (next(iter(configs)) if len(configs) == 1 else None)
        if config is None:
            raise DataError(self.id, f"hf://datasets/{self.hf_repo}@{self.hf_revision}",
                            f"several config folders {sorted(configs)} and none is '{CONFIG}'")
        files = download_hf_parquet(self.hf_repo, dest, dataset=self.id, revision=self.hf_revision, prefix=config,
                                    splits=self.hf_splits, api=api)
        if parquet_label_names(files["train"][0]) is None:
            names = fetch_info_label_names(self.hf_repo, config)
            (dest / LABEL_NAMES_FILE).write_text(json.dumps(names))

    # -- conversion -----------------------------------------------------------------------------------------
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
            raise DataError(self.id, first, "no ClassLabel names for ner_tags: the parquet file has no "
                            f"'huggingface' schema metadata and there is no {LABEL_NAMES_FILE} beside it")
        return check_label_names([str(n) for n in names], side if side.exists() else first)

    def convert(self, raw_dir: Path) -> dict[str, list[dict]]:
        names = self.label_names(raw_dir)
        train_files, test_files = self.parquet_files(raw_dir, "train"), self.parquet_files(raw_dir, "test")
        counts, n_train = count_train_spans(train_files, names)
        keep = top_k_types(counts)
        if len(keep) < TOP_K:
            raise DataError(self.id, raw_dir, f"train has only {len(keep)} entity types; top-{TOP_K} needs more")
        log.info("[finer139] top-%d train types: %s", TOP_K, ", ".join(f"{t} ({counts[t]})" for t in keep))
        out, raw_counts = {}, {}
        for split, files in (("train", train_files), ("test", test_files)):
            rows, raw_counts[split] = kept_rows(files, names, set(keep))
            where = str(files[0].parent)
            out[split] = [sentence_record(sid, tokens, tags, keep, where) for sid, tokens, tags in rows]
        if raw_counts["train"] != n_train:
            raise DataError(self.id, train_files[0].parent, "train files changed while reading")
        self._check_raw_rows(raw_counts, raw_dir)
        out["test"] = sample_eval(out["test"])
        return out

    def _check_raw_rows(self, counts: dict[str, int], raw_dir: Path) -> None:
        expected, tol = RAW_ROWS, 0.01
        manifest = raw_dir / MANIFEST
        if manifest.exists():
            spec = json.loads(manifest.read_text())
            expected, tol = spec.get("raw_rows", expected), float(spec.get("tolerance", 0))
        for split, n_exp in expected.items():
            n = counts.get(split, 0)
            if abs(n - n_exp) > tol * n_exp:
                raise DataError(self.id, raw_dir, f"split '{split}' has {n:,} sentences in the parquet files, "
                                f"expected {n_exp:,} (±{tol:.0%}); the download is incomplete or changed")

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


def fetch_info_label_names(repo: str, config: str) -> list[str]:
    """``ner_tags`` names from the datasets-server ``/info`` endpoint (fallback when the parquet files carry no
    ``huggingface`` metadata)."""
    url = INFO_URL.format(repo=repo, config=config)
    if is_offline():
        raise DataError("finer139", url, "offline: cannot fetch the label names; put label_names.json in "
                        f"${ENV_DATA}/finer139/")
    info = fetch_json(url, "finer139", hint=f"put label_names.json in ${ENV_DATA}/finer139/")
    names = info_label_names(info)
    if not names:
        raise DataError("finer139", url, "the dataset info has no ClassLabel names for ner_tags")
    return names


SOURCE = Finer139()
