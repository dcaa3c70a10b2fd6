"""reddit_climate — SocialGrep "The Reddit Climate Change Dataset", comments file (CC BY 4.0).

Source layout: ``the-reddit-climate-change-dataset-comments.csv.zip`` as served by SocialGrep's public export
(one CSV member, ≈4.6 M comments) with the columns ``type, id, subreddit.id, subreddit.name, subreddit.nsfw,
created_utc, permalink, body, sentiment, score``. The CSV is **streamed** row by row out of the zip (never loaded
whole). Recipe (README):

* eligible: ``sentiment`` non-null (a float ≠ 0), ``body`` not ``[deleted]``/``[removed]``, 10–200 whitespace words;
* label = ``positive`` if sentiment > 0 else ``negative`` (DECISION: the sign of SocialGrep's automatic score);
* reservoir sample of 2,000 eligible comments in one pass in file order with ``random.Random(0)`` (Algorithm R:
  item i (0-based) ≥ 2,000 replaces slot ``rng.randrange(i + 1)`` when that is < 2,000);
* sort the sample by ``id``; the first 1,000 = test, the other 1,000 = few-shot pool (``train``).

Records: ``{id, text: body whitespace-collapsed, label}``.
"""

from __future__ import annotations

import csv
import io
import json
import math
import random
import sys
import zipfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from lm_eval_enterprise.data import MANIFEST, DataError, RemoteFile, Source, map_rows, unverified

ZIP_NAME = "the-reddit-climate-change-dataset-comments.csv.zip"
ZIP_URL = f"https://exports.socialgrep.com/download/public/{ZIP_NAME}"
# every download fails: reported to every user of the export link (README, How to obtain the data)
UNREACHABLE_NOTE = (
    "SocialGrep's export host (exports.socialgrep.com) has been unreachable (no DNS) since 2025 and no mirror of "
    f"the comments file is known, so this download cannot work: obtain {ZIP_NAME} (or its CSV, re-zipped) from a "
    "copy made earlier (e.g. Kaggle's re-upload of the SocialGrep dataset)"
)
COLUMNS = (
    "type",
    "id",
    "subreddit.id",
    "subreddit.name",
    "subreddit.nsfw",
    "created_utc",
    "permalink",
    "body",
    "sentiment",
    "score",
)
NEEDED = ("id", "body", "sentiment")
LABELS = ("positive", "negative")
REMOVED = frozenset({"[deleted]", "[removed]"})
MIN_WORDS, MAX_WORDS = 10, 200
SAMPLE_SIZE, TEST_SIZE, SEED = 2000, 1000, 0
RECIPE = (
    f"eligible: sentiment non-null and != 0, body not [deleted]/[removed], {MIN_WORDS}-{MAX_WORDS} "
    f"whitespace words; label = positive if sentiment > 0 else negative (sign of SocialGrep's score); "
    f"reservoir sample of {SAMPLE_SIZE} with random.Random({SEED}) in file order (Algorithm R), sorted by "
    f"id; first {TEST_SIZE} = test, rest = few-shot pool"
)


def parse_sentiment(value) -> float | None:
    """The ``sentiment`` cell as a float; empty / unparsable / NaN → ``None`` (not eligible)."""
    if value is None:
        return None
    try:
        s = float(str(value).strip())
    except ValueError:
        return None
    return None if math.isnan(s) else s


def to_record(row: dict) -> dict | None:
    """One CSV row → ``{id, text, label}``, or ``None`` when the row is not eligible."""
    body, sentiment = row.get("body"), parse_sentiment(row.get("sentiment"))
    if sentiment is None or sentiment == 0 or not isinstance(body, str) or body.strip() in REMOVED:
        return None
    words = body.split()
    if not MIN_WORDS <= len(words) <= MAX_WORDS:
        return None
    return {"id": str(row["id"]), "text": " ".join(words), "label": "positive" if sentiment > 0 else "negative"}


def reservoir_sample(items: Iterable[dict], k: int, seed: int = SEED) -> list[dict]:
    """Algorithm R with ``random.Random(seed)``: the first ``k`` items fill the reservoir; item ``i`` (0-based)
    after that draws ``j = rng.randrange(i + 1)`` and replaces slot ``j`` when ``j < k``. One pass, O(k) memory."""
    rng = random.Random(seed)
    out: list[dict] = []
    for i, item in enumerate(items):
        if i < k:
            out.append(item)
        else:
            j = rng.randrange(i + 1)
            if j < k:
                out[j] = item
    return out


def split_sample(sample: list[dict], test_size: int) -> dict[str, list[dict]]:
    ordered = sorted(sample, key=lambda r: r["id"])
    return {"test": ordered[:test_size], "train": ordered[test_size:]}


class RedditClimate(Source):
    id = "reddit_climate"
    domain = "climate"
    task_type = "classification_weighted"
    files = (RemoteFile(ZIP_NAME, ZIP_URL),)
    download_note = UNREACHABLE_NOTE
    expected_rows = {  # fixed by the recipe; they hold if the genuine CSV has >= 2,000 eligible comments
        "test": unverified(TEST_SIZE, "recipe sample size; genuine CSV not counted"),
        "train": unverified(SAMPLE_SIZE - TEST_SIZE, "recipe sample size; genuine CSV not counted"),
    }
    labels = LABELS
    sample_size, test_size = SAMPLE_SIZE, TEST_SIZE

    def sizes(self, raw_dir: Path) -> tuple[int, int]:
        """(sample size, test size): the recipe's 2,000 / 1,000, unless the folder's MANIFEST.json sets
        ``"reservoir": {"sample_size": n, "test_size": m}`` (the small embedded fixture does, so that its few
        dozen rows still exercise the replacement step of the reservoir)."""
        manifest = raw_dir / MANIFEST
        if manifest.exists():
            try:
                res = json.loads(manifest.read_text()).get("reservoir")
                if res:
                    return int(res["sample_size"]), int(res["test_size"])
            except (ValueError, KeyError, TypeError, AttributeError) as exc:
                raise DataError(self.id, manifest, f"bad 'reservoir' entry ({exc})") from exc
        return self.sample_size, self.test_size

    def iter_rows(self, path: Path) -> Iterator[dict]:
        """Stream the CSV member of the zip as dicts (never holding the file in memory)."""
        csv.field_size_limit(min(sys.maxsize, 2**31 - 1))  # long comment bodies
        try:
            zf = zipfile.ZipFile(path)
        except (OSError, zipfile.BadZipFile) as exc:
            raise DataError(self.id, path, f"not a readable zip file ({exc})") from exc
        with zf:
            members = [n for n in zf.namelist() if n.lower().endswith(".csv")]
            if len(members) != 1:
                raise DataError(self.id, path, f"expected one .csv member, found {members}")
            with zf.open(members[0]) as raw:
                reader = csv.DictReader(io.TextIOWrapper(raw, encoding="utf-8", newline=""))
                lacking = [c for c in NEEDED if c not in (reader.fieldnames or [])]
                if lacking:
                    raise DataError(
                        self.id, f"{path}:{members[0]}", f"missing columns {lacking} (has {reader.fieldnames})"
                    )
                try:
                    yield from reader
                except (csv.Error, UnicodeDecodeError) as exc:
                    raise DataError(
                        self.id, f"{path}:{members[0]}:{reader.line_num}", f"bad CSV ({type(exc).__name__}: {exc})"
                    ) from exc

    def convert(self, raw_dir: Path) -> dict[str, list[dict]]:
        k, n_test = self.sizes(raw_dir)
        eligible = (rec for rec in map(to_record, self.iter_rows(raw_dir / ZIP_NAME)) if rec is not None)
        return split_sample(reservoir_sample(eligible, k), n_test)

    def convert_presplit(self, rows: dict[str, list[dict]], data_dir: Path) -> dict[str, list[dict]]:
        """``train/test.jsonl`` holding source CSV rows already sampled and split (e.g. exported from a run of
        :meth:`convert`); the same eligibility/label code applies (ineligible rows are dropped and logged)."""
        out = {}
        for split, rs in rows.items():
            self.check_presplit_rows(
                rs, data_dir, split, lambda r: "id" in r and "body" in r, "row lacks 'id' or 'body'"
            )
            out[split] = map_rows(rs, to_record, self.id, split)
        return out


SOURCE = RedditClimate()
