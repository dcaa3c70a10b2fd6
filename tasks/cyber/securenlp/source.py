"""securenlp — SemEval-2018 Task 8 SubTask 1 (Phandi et al. 2018): is a malware-report sentence relevant?

Source layout: the tokenized report files of MalwareTextDB-2.0 as vendored in GitHub ``basel-a/secureNLP``
(pinned commit), one folder per official split, kept with the repository's relative layout below
``data/MalwareTextDB-2.0/data/``: ``train/tokenized/*``, ``dev/tokenized/*``, ``test_1/tokenized/*``. The folders
are listed with the GitHub contents API and every file is downloaded raw.

File format: one ``token TAG`` per line (IOB tags ``B-``/``I-`` over Entity/Action/Modifier, or ``O``), a blank
line between sentences. Sentences are numbered from 0 within each file (files in name order).

Mapping (SubTask 1 definition): ``label = "relevant"`` if any tag is not ``O``, else ``"irrelevant"``; record
``{id: f"{file}:{sent_idx}", text: " ".join(tokens), label}``. Official split: eval = test_1 (618), few-shot
pool = train (9,435); dev (1,213) is converted and counted only.
"""

from __future__ import annotations

import logging
from pathlib import Path

from lm_eval_enterprise.data import (
    ENV_DATA,
    DataError,
    RemoteFile,
    Source,
    download_url,
    fetch_json,
    map_rows,
    verified,
)

REPO = "basel-a/secureNLP"
COMMIT = "6438597d50f1110e4c1c00d53158ce7a4bf339e6"
REPO_DIR = "data/MalwareTextDB-2.0/data"
CONTENTS_API = "https://api.github.com/repos/{repo}/contents/{path}?ref={ref}"
RAW_URL = "https://raw.githubusercontent.com/{repo}/{ref}/{path}"
# our split name -> the repository's split folder
SPLIT_DIRS = {"train": "train", "valid": "dev", "test": "test_1"}
RELEVANT, IRRELEVANT = "relevant", "irrelevant"
log = logging.getLogger("lm_eval_enterprise.data")
LABELS = (RELEVANT, IRRELEVANT)


def split_folder(split: str) -> str:
    """Folder of one split in the data folder (= the repository path below ``REPO_DIR``)."""
    return f"{SPLIT_DIRS[split]}/tokenized"


def read_tokens_file(path: Path) -> list[tuple[list[str], list[str]]]:
    """Sentences of one ``token TAG`` file as (tokens, tags); blank (or whitespace-only) lines separate sentences.

    A line holds the token and the tag separated by whitespace (the tag is the last field). A token followed by
    whitespace and then nothing has an **empty tag**: the genuine release has one such line (``NN `` inside an
    entity span of ``train/tokenized/apt28.tokens``, line 6,668); it is read as the token with tag ``O`` and one
    warning names file:line. A line with a single field and no separator is a format error naming file and line.
    """
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError("securenlp", path, f"cannot read the token file ({exc})") from exc
    sentences, tokens, tags = [], [], []
    for n, line in enumerate(lines + [""], 1):
        parts = line.split()
        if not parts:
            if tokens:
                sentences.append((tokens, tags))
            tokens, tags = [], []
            continue
        if len(parts) < 2:
            if line.rstrip() == line:
                raise DataError("securenlp", f"{path}:{n}", f"expected 'token TAG', got {line!r}")
            log.warning("[securenlp] %s:%d: token %r has an empty tag; read as tag O", path, n, parts[0])
            parts = parts + ["O"]
        tokens.append(" ".join(parts[:-1]))
        tags.append(parts[-1])
    return sentences


def sentence_label(tags: list[str]) -> str:
    """SubTask 1: ``relevant`` iff any token carries a non-``O`` tag."""
    return RELEVANT if any(t != "O" for t in tags) else IRRELEVANT


def sentence_record(file: str, sent_idx: int, tokens: list[str], tags: list[str], where: str) -> dict:
    if not tokens or len(tokens) != len(tags):
        raise DataError("securenlp", where, f"{len(tokens)} tokens but {len(tags)} tags")
    if any(not str(t).strip() for t in tags):  # pre-split rows keeping the release's empty tag (see read_tokens_file)
        log.warning("[securenlp] %s: empty tag read as tag O", where)
        tags = [str(t).strip() or "O" for t in tags]
    return {"id": f"{file}:{sent_idx}", "text": " ".join(tokens), "label": sentence_label(list(tags))}


class SecureNLP(Source):
    id = "securenlp"
    domain = "cyber"
    task_type = "classification_binary"
    # the source layout is three folders of report files, listed at download time (see download())
    files = tuple(
        RemoteFile(
            f"{split_folder(s)}/", CONTENTS_API.format(repo=REPO, path=f"{REPO_DIR}/{split_folder(s)}", ref=COMMIT)
        )
        for s in SPLIT_DIRS
    )
    expected_rows = {
        "train": verified(9435, "counted on the genuine train reports (2,204 relevant / 7,231)"),
        "valid": verified(1213, "counted on the genuine dev reports"),
        "test": verified(618, "counted on the genuine test_1 reports (90 relevant / 528)"),
    }
    labels = LABELS
    positive_label = RELEVANT

    def download(self, dest: Path, progress: bool = True) -> None:
        """List each split folder with the GitHub contents API (pinned commit) and fetch every file raw."""
        for split in SPLIT_DIRS:
            path = f"{REPO_DIR}/{split_folder(split)}"
            url = CONTENTS_API.format(repo=REPO, path=path, ref=COMMIT)
            listing = fetch_json(
                url,
                self.id,
                {"Accept": "application/vnd.github+json"},
                hint=f"download {REPO}@{COMMIT} {path}/* by hand into ${ENV_DATA}/{self.id}/{split_folder(split)}/",
            )
            names = sorted(e["name"] for e in listing if isinstance(e, dict) and e.get("type") == "file")
            if not names:
                raise DataError(self.id, url, "the folder listing has no files")
            for name in names:
                download_url(
                    RAW_URL.format(repo=REPO, ref=COMMIT, path=f"{path}/{name}"),
                    dest / split_folder(split) / name,
                    self.id,
                    progress=progress,
                )

    def has_source_layout(self, d: Path) -> bool:
        return all((d / split_folder(s)).is_dir() and any((d / split_folder(s)).iterdir()) for s in SPLIT_DIRS)

    def convert(self, raw_dir: Path) -> dict[str, list[dict]]:
        out = {}
        for split in SPLIT_DIRS:
            folder = raw_dir / split_folder(split)
            files = sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith("."))
            if not files:
                raise DataError(self.id, folder, "no token files")
            out[split] = [
                sentence_record(p.name, i, toks, tags, f"{p}: sentence {i}")
                for p in files
                for i, (toks, tags) in enumerate(read_tokens_file(p))
            ]
        return out

    def convert_presplit(self, rows: dict[str, list[dict]], data_dir: Path) -> dict[str, list[dict]]:
        """Sentences already split (the real sample, docs/data.md#real-samples: ``file``, ``sent_idx``,
        ``tokens``, ``tags``); the label is derived from the tags with the same code as :meth:`convert`."""

        def row(split: str):
            def fn(r: dict) -> dict:
                try:
                    return sentence_record(
                        str(r["file"]),
                        int(r["sent_idx"]),
                        r["tokens"],
                        r["tags"],
                        f"{data_dir}/{split}.jsonl: {r.get('file')}:{r.get('sent_idx')}",
                    )
                except KeyError as exc:
                    raise DataError(self.id, data_dir / f"{split}.jsonl", f"row without {exc}") from exc

            return fn

        return {split: map_rows(rs, row(split), self.id, split) for split, rs in rows.items()}


SOURCE = SecureNLP()
