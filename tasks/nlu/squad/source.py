"""squad — the Stanford Question Answering Dataset v1.1 (Rajpurkar et al. 2016): answer a question about a
Wikipedia paragraph with a span of that paragraph.

Layouts (:mod:`lm_eval_enterprise.tasks.nlu.english`):

* **hub parquet** (what a download fetches): HF ``rajpurkar/squad``, config ``plain_text``, named revision
  ``main`` (commit sha unconfirmed), ``plain_text/train-*.parquet`` → ``train`` (the few-shot pool),
  ``plain_text/validation-*.parquet`` → ``valid`` (the evaluated split, SQuAD's dev set; SQuAD's test set is
  hidden). Columns ``id``, ``title``, ``context``, ``question``, ``answers`` (``{text: [...], answer_start: [...]}``).
* **SQuAD's own JSON files**: ``dev-v1.1.json`` → ``valid`` (required), ``train-v1.1.json`` → ``train`` (optional:
  a folder holding only the dev file converts, without a few-shot pool). ``{"data": [{"title", "paragraphs":
  [{"context", "qas": [{"id", "question", "answers": [{"text", "answer_start"}]}]}]}], "version": "1.1"}``, one
  question per record, in file order.

Record ``{id, title, context, question, answers, target}``: ``title`` with ``_`` replaced by a space, as FLAN does
(``Super_Bowl_50`` → ``Super Bowl 50``; FLAN's squad_v1 patterns 1 and 8 show it), ``answers`` every reference
answer's text in the published order, duplicates included (dev questions have 1–6, mostly three, often the same
text: the metric takes the maximum over them, as SQuAD's official script does), ``target`` = ``answers[0]``
(FLAN's training target). ``answer_start`` is not used. A file of another SQuAD version, a question without
answers, an empty answer or question is one ``DataError`` naming the file and the question's place in it
(``dev-v1.1.json: data[0].paragraphs[3].qas[2]``; the JSON file is a single line) or the parquet row. README:
Deviations and decisions.
"""

from __future__ import annotations

from pathlib import Path

from lm_eval_enterprise.tasks.nlu.english import HUB_REVISION, HubOrFilesSource

from lm_eval_enterprise.data import DataError, read_json, require_text, unverified, verified

HF_REPO = "rajpurkar/squad"
VERSION = "1.1"
HUB_SPLITS = {"train": "train", "valid": "validation"}
PUBLISHED = {"train": "train-v1.1.json", "valid": "dev-v1.1.json"}
HUB_COLUMNS = ("id", "title", "context", "question", "answers")


def flan_title(title: str) -> str:
    """The article title as FLAN shows it (``flan/tasks.py`` ``_process_squad_v1``: ``_`` → space)."""
    return title.replace("_", " ")


def record(qid, title, context, question, answers, where: str) -> dict:
    """``{id, title, context, question, answers, target}`` (``answers``: the reference texts, in order)."""
    if not isinstance(qid, str) or not qid.strip():
        raise DataError("squad", where, f"question id {qid!r} is not a non-empty string")
    title = require_text(title, "squad", where, f"question {qid}: empty or missing article title")
    context = require_text(context, "squad", where, f"question {qid}: empty or missing context")
    question = require_text(question, "squad", where, f"question {qid}: empty or missing question")
    if not isinstance(answers, list) or not answers:
        raise DataError("squad", where, f"question {qid}: no reference answers (a SQuAD v2 unanswerable question?)")
    bad = next((a for a in answers if not isinstance(a, str) or not a.strip()), None)
    if bad is not None:
        raise DataError("squad", where, f"question {qid}: reference answer {bad!r} is not a non-empty string")
    return {
        "id": qid,
        "title": flan_title(title),
        "context": context,
        "question": question,
        "answers": list(answers),
        "target": answers[0],
    }


def hub_record(row: dict, where: str) -> dict:
    """One hub parquet row → a record."""
    answers = row["answers"]
    texts = answers.get("text") if isinstance(answers, dict) else None
    return record(row["id"], row["title"], row["context"], row["question"], texts, where)


def _items(parent, key: str, where: str) -> list:
    value = parent.get(key) if isinstance(parent, dict) else None
    if not isinstance(value, list):
        raise DataError("squad", where, f"expected a list '{key}' (SQuAD v1.1 layout)")
    return value


def json_records(path: Path) -> list[dict]:
    """Every question of a SQuAD v1.1 JSON file, in file order (module docstring)."""
    doc = read_json(path, "squad", "not a readable SQuAD JSON file")
    version = doc.get("version") if isinstance(doc, dict) else None
    if version != VERSION:
        raise DataError("squad", path, f"version {version!r}: not a SQuAD v{VERSION} file")
    out = []
    for i, article in enumerate(_items(doc, "data", f"{path}")):
        for j, paragraph in enumerate(_items(article, "paragraphs", f"{path}: data[{i}]")):
            for k, qa in enumerate(_items(paragraph, "qas", f"{path}: data[{i}].paragraphs[{j}]")):
                where = f"{path}: data[{i}].paragraphs[{j}].qas[{k}]"
                if not isinstance(qa, dict):
                    raise DataError("squad", where, "a question is not a JSON object")
                answers = _items(qa, "answers", where)
                texts = [a.get("text") if isinstance(a, dict) else a for a in answers]
                out.append(
                    record(
                        qa.get("id"), article.get("title"), paragraph.get("context"), qa.get("question"), texts, where
                    )
                )
    if not out:
        raise DataError("squad", path, "the file holds no questions")
    return out


class SQuAD(HubOrFilesSource):
    id = "squad"
    domain = "nlu"
    task_type = "extractive_qa"
    hf_repo = HF_REPO
    hf_revision = HUB_REVISION
    hf_prefix = "plain_text"
    hub_splits = HUB_SPLITS
    hf_splits = tuple(HUB_SPLITS.values())
    published = PUBLISHED
    fewshot_source_split = "train"
    expected_rows = {
        "train": unverified(
            87599,
            "the published size of SQuAD v1.1 train (87,599 questions: the SQuAD paper and the hub card); no "
            "genuine train-v1.1.json counted",
        ),
        "valid": verified(
            10570,
            "counted on the genuine dev-v1.1.json (sha256 95aa6a52…: 48 articles, 2,067 paragraphs, 10,570 "
            "questions); the hub copy is converted from the same file",
        ),
    }

    def hub_records(self, raw_dir: Path, hub_split: str) -> list[dict]:
        return self.parquet_records(raw_dir, hub_split, hub_record, HUB_COLUMNS)

    def published_records(self, path: Path, split: str) -> list[dict]:
        return json_records(path)


SOURCE = SQuAD()
