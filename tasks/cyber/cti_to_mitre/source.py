"""cti_to_mitre — CTI-to-MITRE with NLP (Orbinato et al. 2022) as a 10-way multiple choice; HELM recipe.

Source layout (HELM ``cti_to_mitre_scenario.py``):

* ``dataset.csv`` — ``dessertlab/cti-to-mitre-with-nlp`` ``data/dataset.csv`` at commit a8cacf3 (Git LFS; the
  GitHub raw URL serves the content), columns ``sentence``, ``label_tec`` (technique ID), ``label_subtec``,
  ``tec_name``;
* ``enterprise-attack.json`` — ATT&CK v10.1 STIX bundle of ``mitre/cti``; technique names = objects with
  ``type == "attack-pattern"`` whose ``x_mitre_is_subtechnique`` is **present and false** and that are not
  ``revoked``, ID = the ``external_id`` of the ``mitre-attack`` external reference (199 techniques in v10.1; see
  :func:`technique_names`).

Split (HELM): ``train = df.sample(frac=0.7, random_state=42)``; ``test = df.drop(train.index).sample(frac=1,
random_state=42)``.

Options (draw order, documented so runs are reproducible; our decision, see README Deviations; HELM parity of the
exact draws not required): one ``random.Random(42)`` shared over all instances, train rows first then test rows,
each in split order; per row: ``rng.sample(others, 8)`` from the technique names sorted by technique ID without the
gold name, append the gold name, ``rng.shuffle`` the 9 names, append ``Others`` as option J. The options are
written into the record (``choices``), so the prompt never re-draws them.

Record: ``{id: row index, question: sentence, choices: [10 names], answer: gold index, technique_id}``; the shared
``Source.finalize`` (``data.mc_fields``) adds ``answer_letter``, ``label_names`` (the letters A–J, the answer
filter's verbaliser set) and ``n_options``.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from lm_eval_enterprise.data import MANIFEST, DataError, RemoteFile, Source, map_rows, unverified
from lm_eval_enterprise.data.splits import pandas_frac_split

CTI_COMMIT = "a8cacf3185d098c686e0d88768a619a03a4d76d1"
CSV_NAME = "dataset.csv"
CSV_URL = f"https://github.com/dessertlab/cti-to-mitre-with-nlp/raw/{CTI_COMMIT}/data/{CSV_NAME}"
STIX_NAME = "enterprise-attack.json"
STIX_URL = "https://github.com/mitre/cti/raw/refs/tags/ATT&CK-v10.1/enterprise-attack/enterprise-attack.json"
COLUMNS = ("sentence", "label_tec")
TRAIN_FRAC = 0.7
SPLIT_SEED = 42
OPTION_SEED = 42
NUM_OPTIONS = 10  # HELM num_options: 8 distractors + gold + Others
OTHERS = "Others"
EXPECTED_TECHNIQUES = 199  # ATT&CK v10.1 enterprise techniques (not sub-techniques)


def is_technique(obj: dict) -> bool:
    """A current ATT&CK technique: an ``attack-pattern`` whose ``x_mitre_is_subtechnique`` is present and ``False``
    (HELM ``make_label_category_name_dict``: ``not o.get("x_mitre_is_subtechnique", True)``) and not ``revoked``.

    The genuine v10.1 bundle holds 707 attack-patterns: 199 with the flag false (11 of them deprecated — kept, they
    are in HELM's 199), 379 sub-techniques, and 129 revoked objects **without** the flag, which a
    "false or absent" rule wrongly counts (328). Later releases (e.g. v18.1) give revoked objects the flag
    ``false``; excluding ``revoked`` keeps them out too and changes nothing on v10.1 (no revoked object has the flag).
    """
    return (
        obj.get("type") == "attack-pattern"
        and obj.get("x_mitre_is_subtechnique", True) is False
        and not obj.get("revoked", False)
    )


def technique_names(bundle: dict, where: str) -> dict[str, str]:
    """Technique ID → name of every :func:`is_technique` object of a STIX bundle."""
    objects = bundle.get("objects") if isinstance(bundle, dict) else None
    if not isinstance(objects, list):
        raise DataError("cti_to_mitre", where, "not a STIX bundle (no 'objects' list)")
    out: dict[str, str] = {}
    for obj in objects:
        if not is_technique(obj):
            continue
        ids = [
            r.get("external_id") for r in obj.get("external_references", []) if r.get("source_name") == "mitre-attack"
        ]
        if len(ids) != 1 or not ids[0]:
            raise DataError("cti_to_mitre", where, f"attack-pattern {obj.get('id')} has {len(ids)} mitre-attack ids")
        if ids[0] in out:
            raise DataError(
                "cti_to_mitre", where, f"technique {ids[0]} appears twice ({out[ids[0]]!r}, {obj.get('name')!r})"
            )
        out[ids[0]] = obj["name"]
    return out


def mc_options(rng: random.Random, gold_name: str, sorted_names: list[str]) -> list[str]:
    """The 10 options of one instance (see the module docstring for the draw order)."""
    others = [n for n in sorted_names if n != gold_name]
    picks = rng.sample(others, min(len(others), NUM_OPTIONS - 2))
    options = picks + [gold_name]
    rng.shuffle(options)
    return options + [OTHERS]


def build_records(splits: dict[str, list[dict]], names: dict[str, str], where: str) -> dict[str, list[dict]]:
    """Rows (``_row``, ``sentence``, ``label_tec``) of train then test → MC records, one shared RNG."""
    sorted_names = [names[k] for k in sorted(names)]
    rng = random.Random(OPTION_SEED)
    out = {}
    for split in ("train", "test"):
        recs = []
        for row in splits.get(split, []):
            tec = str(row["label_tec"]).strip()
            if tec not in names:
                raise DataError(
                    "cti_to_mitre",
                    where,
                    f"row {row['_row']}: technique {tec!r} is not in the ATT&CK "
                    "technique table (wrong enterprise-attack.json version?)",
                )
            sentence = str(row["sentence"])
            if not sentence.strip():
                raise DataError("cti_to_mitre", where, f"row {row['_row']}: empty sentence")
            choices = mc_options(rng, names[tec], sorted_names)
            answer = choices.index(names[tec])
            recs.append(
                {
                    "id": str(row["_row"]),
                    "question": sentence,
                    "choices": choices,
                    "answer": answer,
                    "technique_id": tec,
                }
            )
        out[split] = recs
    return out


def helm_split(df):
    """HELM ``CtiToMitreScenario`` split (frac 0.7, seed 42)."""
    return pandas_frac_split(df, TRAIN_FRAC, SPLIT_SEED)


def _rows(part) -> list[dict]:
    return [{**r, "_row": int(i)} for i, r in zip(part.index, part.to_dict("records"))]


class CtiToMitre(Source):
    id = "cti_to_mitre"
    domain = "cyber"
    task_type = "multiple_choice"
    files = (RemoteFile(CSV_NAME, CSV_URL), RemoteFile(STIX_NAME, STIX_URL))
    expected_rows = {
        "train": unverified(None, "no published size for dataset.csv (70 % split)"),
        "test": unverified(None, "no published size for dataset.csv (30 % split)"),
    }
    fewshot_source_split = "train"

    def fewshot_key(self, record: dict) -> str:
        """[BAL] label key = the gold technique name (README)."""
        return record["choices"][record["answer"]]

    def load_names(self, raw_dir: Path) -> dict[str, str]:
        path = raw_dir / STIX_NAME
        try:
            bundle = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise DataError(self.id, path, f"cannot read the STIX JSON ({type(exc).__name__})") from exc
        names = technique_names(bundle, str(path))
        expected = EXPECTED_TECHNIQUES
        manifest = raw_dir / MANIFEST
        if manifest.exists():
            try:
                expected = int(json.loads(manifest.read_text()).get("expected_techniques", expected))
            except (ValueError, TypeError) as exc:
                raise DataError(self.id, manifest, f"bad manifest ({exc})") from exc
        if len(names) != expected:
            raise DataError(self.id, path, f"{len(names)} techniques, expected {expected} (ATT&CK v10.1)")
        if len(names) < NUM_OPTIONS - 1:
            raise DataError(self.id, path, f"only {len(names)} techniques; {NUM_OPTIONS - 1} needed for the options")
        return names

    def read_csv(self, raw_dir: Path):
        import pandas as pd

        path = raw_dir / CSV_NAME
        head = path.read_bytes()[:200] if path.exists() else b""
        if head.startswith(b"version https://git-lfs"):
            raise DataError(
                self.id, path, f"is a Git LFS pointer, not the data; download it through the GitHub raw URL {CSV_URL}"
            )
        try:
            df = pd.read_csv(path, dtype=str, keep_default_na=False)  # row order/index as HELM's read_csv
        except (OSError, ValueError, pd.errors.ParserError) as exc:
            raise DataError(self.id, path, f"cannot read the CSV ({type(exc).__name__})") from exc
        missing = [c for c in COLUMNS if c not in df.columns]
        if missing:
            raise DataError(self.id, path, f"missing columns {missing} (has {list(df.columns)})")
        return df

    def convert(self, raw_dir: Path) -> dict[str, list[dict]]:
        names = self.load_names(raw_dir)
        train, test = helm_split(self.read_csv(raw_dir))
        return build_records({"train": _rows(train), "test": _rows(test)}, names, str(raw_dir / CSV_NAME))

    def convert_presplit(self, rows: dict[str, list[dict]], data_dir: Path) -> dict[str, list[dict]]:
        """``train/test.jsonl`` with the CSV columns (+ row index in ``_row``/``id``) in split order, and
        ``enterprise-attack.json`` beside them; options are drawn exactly as in :meth:`convert`."""
        names = self.load_names(data_dir)
        fixed = {}
        for split, rs in rows.items():
            fixed[split] = map_rows(rs, lambda r: {**r, "_row": r.get("_row", r.get("id"))}, self.id, split)
        return build_records(fixed, names, str(data_dir))


SOURCE = CtiToMitre()
