"""echr_judgment — ECHR binary violation prediction (Chalkidis et al. 2019), HELM ``echr_judgment_classification``.

Source layout: ``ECHR_Dataset.zip`` from ``https://archive.org/download/ECHR-ACL2019/ECHR_Dataset.zip`` (HELM's
URL), read in place with :mod:`zipfile`. It holds the folders ``EN_train`` / ``EN_dev`` / ``EN_test`` (7,100 /
1,380 / 2,998 cases, one JSON file per case; the ``*_Anon`` folders are ignored), optionally below one top-level
folder. A case file has ``ITEMID``, ``TEXT`` (list of fact paragraphs), ``VIOLATED_ARTICLES`` (list) and others.

Mapping (HELM): ``text = " ".join(TEXT)``; label ``Yes`` if ``VIOLATED_ARTICLES`` is non-empty else ``No``; a case
whose ``len(re.split(r"\\W+", text)) > 600`` is dropped in every split (HELM ``filter_max_length=600``).
Records ``{id: ITEMID, text, label}``; splits ``train`` (EN_train, few-shot pool), ``valid`` (EN_dev, converted
only), ``test`` (EN_test, evaluated). Files are read in sorted member-name order (HELM iterates ``os.listdir``,
whose order is unspecified), so the [BAL] shots are reproducible.

Row counts: the spec gives the sizes before the length filter (unverified); :meth:`EchrJudgment.check_rows`
compares the number of case files per folder with them (a mismatch is a warning) and records the filtered counts.
A ``MANIFEST.json`` in the data folder (fixtures) instead pins the filtered counts exactly.
"""

from __future__ import annotations

import json
import logging
import re
import zipfile
from pathlib import Path

from lm_eval_enterprise.data import MANIFEST, DataError, RemoteFile, Source, check_count, unverified

log = logging.getLogger("lm_eval_enterprise.data")

ZIP_NAME = "ECHR_Dataset.zip"
ZIP_URL = "https://archive.org/download/ECHR-ACL2019/ECHR_Dataset.zip"
FOLDERS = {"EN_train": "train", "EN_dev": "valid", "EN_test": "test"}
RAW_COUNTS = {
    s: unverified(n, "case files per folder stated by the specification; archive not counted")
    for s, n in (("train", 7100), ("valid", 1380), ("test", 2998))
}  # before the length filter
MAX_WORDS = 600
YES, NO = "Yes", "No"
_MEMBER = re.compile(r"^(?:.*/)?(EN_train|EN_dev|EN_test)/([^/]+\.json)$")
_NON_WORD = re.compile(r"\W+")


def count_words(text: str) -> int:
    """HELM ``EchrJudgeScenario.count_words``: ``len(re.split(r"\\W+", text))`` (leading/trailing separators
    yield empty pieces that count, exactly as in HELM)."""
    return len(_NON_WORD.split(text))


def to_record(case: dict, where: str) -> dict | None:
    """One case JSON → ``{id: ITEMID, text, label}``, or None when the text is longer than 600 words."""
    try:
        paragraphs, violated, item = case["TEXT"], case["VIOLATED_ARTICLES"], case["ITEMID"]
    except (KeyError, TypeError) as exc:
        raise DataError("echr_judgment", where, f"case lacks the field {exc}") from exc
    if not isinstance(paragraphs, list) or not all(isinstance(p, str) for p in paragraphs):
        raise DataError("echr_judgment", where, "TEXT is not a list of strings")
    if not isinstance(violated, list):
        raise DataError("echr_judgment", where, "VIOLATED_ARTICLES is not a list")
    text = " ".join(paragraphs)
    if count_words(text) > MAX_WORDS:
        return None
    return {"id": str(item), "text": text, "label": YES if violated else NO}


def case_members(zf: zipfile.ZipFile) -> dict[str, list[str]]:
    """split → member names of the case files (sorted), from the archive's ``EN_train/EN_dev/EN_test`` folders."""
    out: dict[str, list[str]] = {s: [] for s in FOLDERS.values()}
    for name in zf.namelist():
        m = _MEMBER.match(name)
        if m and not m.group(2).startswith("."):
            out[FOLDERS[m.group(1)]].append(name)
    return {s: sorted(v) for s, v in out.items()}


class EchrJudgment(Source):
    id = "echr_judgment"
    domain = "legal"
    task_type = "classification_weighted"
    files = (RemoteFile(ZIP_NAME, ZIP_URL),)
    expected_rows = {
        s: unverified(None, "no published count after the 600-word filter") for s in ("train", "valid", "test")
    }  # and the case files per folder: see check_rows
    labels = (YES, NO)

    def _open(self, raw_dir: Path) -> zipfile.ZipFile:
        path = raw_dir / ZIP_NAME
        try:
            return zipfile.ZipFile(path)
        except (OSError, zipfile.BadZipFile) as exc:
            raise DataError(self.id, path, f"not a readable zip archive ({type(exc).__name__})") from exc

    def convert(self, raw_dir: Path) -> dict[str, list[dict]]:
        path = raw_dir / ZIP_NAME
        out: dict[str, list[dict]] = {}
        with self._open(raw_dir) as zf:
            members = case_members(zf)
            for split, names in members.items():
                if not names:
                    raise DataError(
                        self.id,
                        path,
                        f"no case files in the {split} folder "
                        f"({[k for k, v in FOLDERS.items() if v == split][0]}/*.json)",
                    )
                records = []
                for name in names:
                    where = f"{path}:{name}"
                    try:
                        case = json.loads(zf.read(name).decode("utf-8"))
                    except (ValueError, UnicodeDecodeError) as exc:
                        raise DataError(self.id, where, f"invalid JSON ({type(exc).__name__})") from exc
                    rec = to_record(case, where)
                    if rec is not None:
                        records.append(rec)
                log.info(
                    "[%s] %s: %d of %d cases kept (<= %d words)", self.id, split, len(records), len(names), MAX_WORDS
                )
                out[split] = records
        return out

    def check_rows(self, splits: dict[str, list[dict]], data_dir: Path, provided=None) -> list:
        """The filtered split counts (none published: recorded; a ``MANIFEST.json`` pins them exactly) and, for
        the archive without a manifest, its case files per folder against the spec's 7,100 / 1,380 / 2,998
        (unverified: a mismatch is a warning)."""
        checks = super().check_rows(splits, data_dir, provided)
        if (data_dir / MANIFEST).exists() or not self.has_source_layout(data_dir):
            return checks
        with self._open(data_dir) as zf:
            found = {s: len(v) for s, v in case_members(zf).items()}
        for split, rows in RAW_COUNTS.items():
            checks.append(
                check_count(
                    self.id,
                    f"{split}_case_files",
                    found[split],
                    rows,
                    data_dir / ZIP_NAME,
                    subject=f"split '{split}' has {found[split]:,} case files",
                )
            )
        return checks

    def task_metadata(self, splits: dict[str, list[dict]]) -> dict:
        return {"max_words": MAX_WORDS, "filtered_rows": {s: len(splits.get(s, [])) for s in FOLDERS.values()}}


SOURCE = EchrJudgment()
