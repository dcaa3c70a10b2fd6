"""tram — Threat Report ATT&CK Mapper (MITRE CTID), sentence → ATT&CK technique, reduced to the top-9 techniques.

Source layout: ``single_label.json`` from GitHub ``center-for-threat-informed-defense/tram``
``data/tram2-data/`` (raw URL, pinned commit): a JSON list of ``{text, label (technique ID), doc_title}`` (5,089
sentences, 50 technique IDs); and ``enterprise-attack.json``, the ATT&CK Enterprise STIX 2 bundle of GitHub
``mitre/cti`` (tag ``ATT&CK-v10.1``, the file cti_to_mitre uses; any recent version has the same nine names),
which gives the technique names.

Recipe (README; k = 9 and the split are our decisions, see its Deviations):
1. split first: ``rng = random.Random(1234)``; ``idx = list(range(N))``; ``rng.shuffle(idx)``; the first
   ``round(0.3 × N)`` indices (1,527) are test, the rest train; each split in shuffled order;
2. top-9: the 9 technique IDs with the most sentences over the WHOLE file
   (:func:`lm_eval_enterprise.data.fewshot.top_k_labels`, ties by ID); rows of other IDs are dropped from both splits;
3. labels are ATT&CK names, sub-techniques as ``"Parent: Sub"`` (``T1071.001`` → ``Application Layer Protocol:
   Web Protocols``); the 9 names in rank order are every record's ``label_names`` (prompt and macro F1).

Records: ``{id: str(original index), text, label: technique name, technique_id, doc_title, label_names}``.

Pre-split layout (``train.jsonl``/``test.jsonl`` of source rows already split, e.g. the real sample, see
docs/data.md#real-samples): such a copy is usually a sample, whose counts need not rank the techniques as the whole
file does, so the top-9 are our nine IDs (:data:`SPEC_TOP9`, the top-9 of the pinned file); names come from
``enterprise-attack.json`` when the folder has it, else from :data:`SPEC_NAMES` (our verbaliser, = ATT&CK names).
"""

from __future__ import annotations

import json
import logging
import random
import re
from collections import Counter
from pathlib import Path
from typing import Any

from lm_eval_enterprise.data import (
    MANIFEST,
    DataError,
    RemoteFile,
    Source,
    check_count,
    map_rows,
    read_json,
    unverified,
    verified,
)
from lm_eval_enterprise.data.fewshot import top_k_labels
from lm_eval_enterprise.errors import warn_once

log = logging.getLogger("lm_eval_enterprise.tram")

COMMIT = "f29793d8d665f7f552898696e00065ef24a29a20"
DATA_FILE = "single_label.json"
STIX_FILE = "enterprise-attack.json"
DATA_URL = (
    f"https://raw.githubusercontent.com/center-for-threat-informed-defense/tram/{COMMIT}/data/tram2-data/{DATA_FILE}"
)
STIX_URL = "https://raw.githubusercontent.com/mitre/cti/ATT%26CK-v10.1/enterprise-attack/enterprise-attack.json"
SEED = 1234
TEST_FRACTION = 0.3
TOP_K = 9
RAW_ROWS = 5089  # sentences of the pinned file
KEPT_ROWS = 2687  # sentences of the top-9 techniques over both splits (spec counts 685 + 455 + … + 139)
RAW_EXPECTED = verified(RAW_ROWS, "counted on the genuine single_label.json (5,089 sentences, 50 techniques)")
KEPT_EXPECTED = verified(
    KEPT_ROWS, "recounted on the genuine single_label.json at the pinned commit (2,687 sentences of the top-9 IDs)"
)
SPEC_TOP9 = ("T1027", "T1140", "T1059.003", "T1055", "T1105", "T1106", "T1078", "T1071.001", "T1090")
SPEC_NAMES = {
    "T1027": "Obfuscated Files or Information",
    "T1140": "Deobfuscate/Decode Files or Information",
    "T1059.003": "Command and Scripting Interpreter: Windows Command Shell",
    "T1055": "Process Injection",
    "T1105": "Ingress Tool Transfer",
    "T1106": "Native API",
    "T1078": "Valid Accounts",
    "T1071.001": "Application Layer Protocol: Web Protocols",
    "T1090": "Proxy",
}


# ------------------------------------------------------------------------------------------------ split
def split_indices(n: int, seed: int = SEED, test_fraction: float = TEST_FRACTION) -> tuple[list[int], list[int]]:
    """(test, train) row indices: ``Random(seed).shuffle(list(range(n)))``, the first ``round(0.3 n)`` are test."""
    idx = list(range(n))
    random.Random(seed).shuffle(idx)
    cut = round(test_fraction * n)
    return idx[:cut], idx[cut:]


# ------------------------------------------------------------------------------------------------ ATT&CK names
def _attack_id(obj: dict) -> str | None:
    for ref in obj.get("external_references") or []:
        if isinstance(ref, dict) and ref.get("source_name") == "mitre-attack" and ref.get("external_id"):
            return str(ref["external_id"])
    return None


def stix_technique_names(bundle: dict, where: Any = STIX_FILE) -> dict[str, str]:
    """Technique ID → name from an ATT&CK STIX bundle: ``attack-pattern`` objects, ID from the ``mitre-attack``
    external reference; sub-techniques (``Txxxx.yyy``) as ``"<parent name>: <name>"``. Revoked or deprecated
    objects are used only for IDs that no current object has."""
    if not isinstance(bundle, dict) or not isinstance(bundle.get("objects"), list):
        raise DataError("tram", where, "not a STIX bundle (no 'objects' list)")
    current: dict[str, str] = {}
    stale: dict[str, str] = {}
    for obj in bundle["objects"]:
        if not isinstance(obj, dict) or obj.get("type") != "attack-pattern" or not obj.get("name"):
            continue
        tid = _attack_id(obj)
        if not tid:
            continue
        table = stale if (obj.get("revoked") or obj.get("x_mitre_deprecated")) else current
        table.setdefault(tid, str(obj["name"]).strip())
    own = {**stale, **current}
    out = {}
    for tid, name in own.items():
        if "." in tid:
            parent = own.get(tid.split(".", 1)[0])
            if parent is None:
                continue  # a sub-technique without its parent cannot be named "Parent: Sub"
            name = f"{parent}: {name}"
        out[tid] = name
    return out


def load_stix_names(path: Path) -> dict[str, str]:
    bundle = read_json(path, "tram", "cannot read the ATT&CK STIX bundle")
    return stix_technique_names(bundle, path)


def technique_names(ids: list[str], names: dict[str, str], where: Any) -> list[str]:
    missing = [t for t in ids if t not in names]
    if missing:
        raise DataError("tram", where, f"no ATT&CK name for technique(s) {missing}")
    out = [names[t] for t in ids]
    if len(set(out)) != len(out):
        raise DataError("tram", where, f"technique names are not distinct: {out}")
    return out


# ------------------------------------------------------------------------------------------------ records
TECHNIQUE_ID = re.compile(r"T\d{4}(?:\.\d{3})?")  # ATT&CK technique / sub-technique id


def check_row(row: Any, where: str) -> dict:
    """A row ``{text: str, label: technique id, doc_title}``; an id that is empty, padded or not ``Txxxx[.yyy]``
    is one :class:`DataError` line — never dropped as if it were a technique outside the top 9."""
    if not isinstance(row, dict) or not isinstance(row.get("text"), str) or not isinstance(row.get("label"), str):
        raise DataError("tram", where, "row is not {text: str, label: str, doc_title}")
    if not TECHNIQUE_ID.fullmatch(row["label"]):
        raise DataError("tram", where, f"technique id {row['label']!r} is not an ATT&CK id (Txxxx or Txxxx.yyy)")
    return row


def report_unknown_ids(rows: list[dict], names: dict[str, str], where: Any, place: str = "item") -> None:
    """Well-formed ids the ATT&CK bundle does not know (``T9999``): counted and logged with their rows (a warning;
    such rows are outside the top 9 unless frequent, when the missing name is an error of :func:`technique_names`)."""
    unknown = [(i, r["label"]) for i, r in enumerate(rows) if r["label"] not in names]
    if unknown:
        shown = ", ".join(f"{place} {i} {tid!r}" for i, tid in unknown[:5]) + (", ..." if len(unknown) > 5 else "")
        warn_once(
            log, "[tram] %s: %d rows with a technique id not in the ATT&CK bundle (%s)", where, len(unknown), shown
        )


def to_record(index: int, row: dict, names: dict[str, str], label_names: list[str]) -> dict:
    tid = row["label"]
    return {
        "id": str(index),
        "text": row["text"],
        "label": names[tid],
        "technique_id": tid,
        "doc_title": str(row.get("doc_title") or ""),
        "label_names": list(label_names),
    }


class Tram(Source):
    id = "tram"
    domain = "cyber"
    task_type = "classification_macro"
    files = (RemoteFile(DATA_FILE, DATA_URL), RemoteFile(STIX_FILE, STIX_URL))
    expected_rows = {  # the split sizes after the top-9 filter are not published; raw/kept: see _check_counts
        "train": unverified(None, "top-9 train sentences: no published count"),
        "test": unverified(None, "top-9 test sentences: no published count"),
    }

    def convert(self, raw_dir: Path) -> dict[str, list[dict]]:
        path = raw_dir / DATA_FILE
        rows = read_json(path, self.id, "cannot read the JSON list")
        if not isinstance(rows, list):
            raise DataError(self.id, path, "not a JSON list of sentences")
        names = load_stix_names(raw_dir / STIX_FILE)
        rows = [check_row(r, f"{path}:item {i}") for i, r in enumerate(rows)]
        report_unknown_ids(rows, names, path)
        test_idx, train_idx = split_indices(len(rows))  # 1. split before filtering
        top = top_k_labels(Counter(r["label"] for r in rows), TOP_K)  # 2. top-9 over the whole file
        if len(top) < TOP_K:
            raise DataError(self.id, path, f"only {len(top)} technique IDs; top-{TOP_K} needs more")
        label_names = technique_names(top, names, raw_dir / STIX_FILE)  # 3. ATT&CK names, rank order
        keep = set(top)
        out = {
            split: [to_record(i, rows[i], names, label_names) for i in idx if rows[i]["label"] in keep]
            for split, idx in (("train", train_idx), ("test", test_idx))
        }
        log.info("[tram] top-%d techniques: %s", TOP_K, ", ".join(top))
        self._check_counts({"raw": len(rows), "kept": len(out["train"]) + len(out["test"])}, raw_dir)
        return out

    def _check_counts(self, counts: dict[str, int], raw_dir: Path) -> None:
        """Raw sentences (verified: 5,089 counted on the genuine file) and kept top-9 sentences (unverified: the
        sum of the spec's per-technique counts) — or exactly the folder's ``MANIFEST.json`` ``raw_rows`` /
        ``kept_rows`` — through the shared count check (verified mismatch → error, unverified → warning)."""
        expected = {"raw": RAW_EXPECTED, "kept": KEPT_EXPECTED}
        manifest = raw_dir / MANIFEST
        if manifest.exists():
            try:
                spec = json.loads(manifest.read_text())
                expected = {k: verified(spec[f"{k}_rows"], MANIFEST) for k in expected}
            except (ValueError, KeyError) as exc:
                raise DataError(self.id, manifest, f"bad manifest ({exc})") from exc
        for what, rows in expected.items():
            check_count(
                self.id,
                f"{what}_sentences",
                counts[what],
                rows,
                raw_dir / DATA_FILE,
                subject=f"{counts[what]:,} {what} sentences",
            )

    def convert_presplit(self, rows: dict[str, list[dict]], data_dir: Path) -> dict[str, list[dict]]:
        """Source rows already split (``text``, ``label`` = technique ID, ``doc_title``, ``orig_index``): the spec's
        top-9 IDs are kept (see the module docstring); names from the folder's STIX bundle if present."""
        stix = data_dir / STIX_FILE
        names = load_stix_names(stix) if stix.exists() else dict(SPEC_NAMES)
        label_names = technique_names(list(SPEC_TOP9), names, stix if stix.exists() else data_dir)
        keep = set(SPEC_TOP9)

        def row(split: str):
            def fn(r: dict) -> dict | None:
                where = f"{data_dir}/{split}.jsonl: orig_index {r.get('orig_index')}"
                check_row(r, where)
                if r["label"] not in keep:
                    return None
                if "orig_index" not in r:
                    raise DataError(self.id, where, "row without orig_index (the sentence's index in the file)")
                return to_record(int(r["orig_index"]), r, names, label_names)

            return fn

        if stix.exists():  # without the bundle only the ids' form can be checked
            for split, rs in rows.items():
                checked = [check_row(r, f"{data_dir}/{split}.jsonl: orig_index {r.get('orig_index')}") for r in rs]
                report_unknown_ids(checked, names, data_dir / f"{split}.jsonl", "row")
        return {split: map_rows(rs, row(split), self.id, split) for split, rs in rows.items()}

    def finalize(self, record: dict) -> dict:
        """Every record carries its dataset's 9 names (``label_names``, from the data); the prompt's list too."""
        return {**record, "label_list": ", ".join(record["label_names"])}

    def task_metadata(self, splits: dict[str, list[dict]]) -> dict[str, Any]:
        """The nine techniques used (IDs and names, rank order) → results metadata."""
        recs = [r for s in ("test", "train") for r in splits.get(s, [])]
        if not recs:
            return {}
        label_names = recs[0]["label_names"]
        ids = {r["label"]: r["technique_id"] for r in recs}
        return {"top_k_labels": list(label_names), "top_k_technique_ids": [ids.get(n) for n in label_names]}


SOURCE = Tram()
