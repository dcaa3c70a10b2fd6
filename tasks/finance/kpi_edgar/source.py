"""kpi_edgar — KPI-EDGAR (Deußer et al., ICMLA 2022); HELM ``kpi_edgar_scenario.py`` recipe.

Source layout: ``kpi_edgar.json`` of GitHub ``tobideusser/kpi-edgar`` pinned at the commit HELM uses: a JSON list
of documents → ``segments[*].sentences[*]`` with ``split_type`` (train/valid/test/null), ``words[*].value`` and
``entities_anno[*]`` (``type_``, ``start``, ``end``: word offsets, end exclusive).

HELM mapping (reproduced exactly): skip sentences whose ``split_type`` is null; keep entities typed kpi, cy, py,
py1 in ``entities_anno`` order; drop the sentence when none remains; text = words joined by " " with ``[``→``(``
and ``]``→``)``; each phrase = its words joined the same way; target = ``", ".join(f"{phrase} [{tag}]")``.
Official split: train → few-shot pool, test → evaluation (valid kept, unused).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from lm_eval_enterprise.data import DataError, RemoteFile, Source, map_rows, read_json, unverified

COMMIT = "2ec7084dcd55b4979bbe288d4aa1e962c685c9ab"
JSON_NAME = "kpi_edgar.json"
JSON_URL = f"https://raw.githubusercontent.com/tobideusser/kpi-edgar/{COMMIT}/data/{JSON_NAME}"

# HELM TAG_DICT (order matters: it is the order of the tag descriptions in the prompt)
TAG_DICT = {
    "kpi": "Key Performance Indicators expressible in numerical and monetary value",
    "cy": "Current Year monetary value",
    "py": "Prior Year monetary value",
    "py1": "Two Year Past Value",
}
TAG_DESCRIPTIONS = ", ".join(f"{k}: {v}" for k, v in TAG_DICT.items()) + "."
SPLITS = ("train", "valid", "test")


def escape_brackets(text: str) -> str:
    """HELM ``escape_parenthesis``: ``[`` → ``(`` and ``]`` → ``)`` (square brackets are the tag markers)."""
    return text.replace("[", "(").replace("]", ")")


def sentence_record(sid: str, words: list[str], annotations: Iterable[dict], where: str) -> dict | None:
    """One sentence → NER record ``{id, text, entities: [{text, type, start, end}], target}`` (HELM mapping), or
    ``None`` when no kpi/cy/py/py1 entity remains. Spans outside the sentence raise :class:`DataError`."""
    entities = []
    for a in annotations or []:
        tag = a.get("type_")
        if tag not in TAG_DICT:
            continue
        try:
            start, end = int(a["start"]), int(a["end"])
        except (KeyError, TypeError, ValueError) as exc:
            raise DataError("kpi_edgar", where, f"entity without integer start/end: {a!r}") from exc
        if not 0 <= start < end <= len(words):
            raise DataError("kpi_edgar", where, f"entity span [{start}, {end}) outside the {len(words)} words")
        entities.append({"text": escape_brackets(" ".join(words[start:end])), "type": tag, "start": start, "end": end})
    if not entities:
        return None
    return {
        "id": sid,
        "text": escape_brackets(" ".join(words)),
        "entities": entities,
        "target": ", ".join(f"{e['text']} [{e['type']}]" for e in entities),
    }


def _word_values(words: list[Any], where: str) -> list[str]:
    out = []
    for w in words or []:
        value = w.get("value") if isinstance(w, dict) else w
        if value is None:
            raise DataError("kpi_edgar", where, f"word without a value: {w!r}")
        out.append(str(value))
    return out


def iter_sentences(documents: list, path: Path):
    """(split_type, id, words, entities_anno, where) for every sentence of the JSON, in file order."""
    if not isinstance(documents, list):
        raise DataError("kpi_edgar", path, "expected a JSON list of documents")
    for d_i, doc in enumerate(documents):
        if not isinstance(doc, dict) or "segments" not in doc:
            raise DataError("kpi_edgar", path, f"document {d_i} has no 'segments'")
        doc_id = doc.get("id_", d_i)
        for s_i, seg in enumerate(doc["segments"] or []):
            seg_id = seg.get("id_", s_i)
            for t_i, sent in enumerate(seg.get("sentences") or []):  # table segments have no sentences
                sent_id = sent.get("id_", t_i)
                where = f"{path}: document {doc_id} segment {seg_id} sentence {sent_id}"
                yield (
                    sent.get("split_type"),
                    f"{doc_id}:{seg_id}:{sent_id}",
                    _word_values(sent.get("words"), where),
                    sent.get("entities_anno") or [],
                    where,
                )


class KpiEdgar(Source):
    id = "kpi_edgar"
    domain = "finance"
    task_type = "kpi"
    files = (RemoteFile(JSON_NAME, JSON_URL),)
    # counted on the authors' xlsx (genuine, same commit), not on kpi_edgar.json, which may differ by a few
    expected_rows = {
        s: unverified(
            n, "counted on the genuine kpi_edgar.xlsx rebuild; kpi_edgar.json not counted (may differ by a few)"
        )
        for s, n in (("train", 839), ("valid", 122), ("test", 217))
    }

    def convert(self, raw_dir: Path) -> dict[str, list[dict]]:
        path = raw_dir / JSON_NAME
        documents = read_json(path, self.id, "not a readable JSON file")
        out: dict[str, list[dict]] = {s: [] for s in SPLITS}
        for split, sid, words, annos, where in iter_sentences(documents, path):
            if split is None:
                continue
            if split not in out:
                raise DataError(self.id, where, f"unknown split_type {split!r} (expected one of {SPLITS})")
            rec = sentence_record(sid, words, annos, where)
            if rec is not None:
                out[split].append(rec)
        return out

    def convert_presplit(self, rows: dict[str, list[dict]], data_dir: Path) -> dict[str, list[dict]]:
        """Sentences already split (the real sample, docs/data.md#real-samples; columns ``doc_name``,
        ``segment_id``, ``sentence_id``, ``words`` (strings or ``{value}`` dicts), ``entities_anno``); the file's
        split wins over ``split_type``."""

        def row(split: str):
            def fn(r: dict) -> dict | None:
                sid = (
                    f"{r.get('doc_name')}:{r.get('segment_id')}:{r.get('sentence_id')}"
                    if "doc_name" in r
                    else str(r["id"])
                )
                where = f"{data_dir}/{split}.jsonl: {sid}"
                return sentence_record(sid, _word_values(r.get("words"), where), r.get("entities_anno"), where)

            return fn

        return {split: map_rows(rs, row(split), self.id, split) for split, rs in rows.items()}


SOURCE = KpiEdgar()
