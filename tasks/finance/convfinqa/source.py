"""convfinqa — ConvFinQA (Chen et al., EMNLP 2022); HELM ``conv_fin_qa_calc`` recipe.

Source layout: ``data.zip`` of ``czyssrs/ConvFinQA`` at commit cf3eed2 (the file HELM downloads), holding the
per-turn files ``data/train_turn.json`` (few-shot pool) and ``data/dev_turn.json`` (evaluation: the public test
set has no answers). Each turn becomes one numeric-QA record ``{id, context, question, answer}`` whose context is
HELM's rendering: the table as pseudo-markdown rows, the gold text facts, then the conversation up to the current
question with the earlier turns answered by their gold answers (README, Record).
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

from lm_eval_enterprise.data import DataError, RemoteFile, Source, unverified

COMMIT = "cf3eed2d5984960bf06bb8145bcea5e80b0222a6"
ZIP_NAME = "data.zip"
ZIP_URL = f"https://github.com/czyssrs/ConvFinQA/raw/{COMMIT}/data.zip"
MEMBERS = {"train": "data/train_turn.json", "valid": "data/dev_turn.json"}

# Our rendering joins the text facts with ' '. (HELM's scenario concatenates them with no separator;
# see README "Deviations".)
TEXT_FACT_SEPARATOR = " "
# [TRUNC] for the one shot only: its Table/Text block keeps the first N words (line structure kept), the
# conversation is never cut. The eval item is never truncated.
FEWSHOT_MAX_WORDS = 512
DIALOGUE_START = "Question: "


def table_markdown(table: list[list[Any]]) -> str:
    """HELM ``make_pseudo_markdown_table``: one line per row, ``"| " + " | ".join(cells) + " |"``."""
    return "\n".join("| " + " | ".join(str(cell) for cell in row) + " |" for row in table)


def gold_facts(annotation: dict) -> dict:
    """``annotation["gold_ind"]``, else ``annotation["gold_inds"]``, else ``{}`` (HELM's lookup order)."""
    if "gold_ind" in annotation:
        return annotation["gold_ind"] or {}
    if "gold_inds" in annotation:
        return annotation["gold_inds"] or {}
    return {}


def render_context(turn: dict) -> str:
    """HELM's ConvFinQA input text for one turn record (README, context rendering)::

        Table: ⏎<rows>⏎⏎Text: ⏎<text facts>⏎⏎Question: q1⏎Answer: a1⏎…Question: q_last

    Text facts are the values of the gold-fact keys containing ``"text"`` in their dict order (block omitted
    when empty); earlier turns are answered with ``str(exe_ans_list[i])``.
    """
    ann = turn["annotation"]
    out = f"Table: \n{table_markdown(turn['table'])}\n\n"
    text = TEXT_FACT_SEPARATOR.join(str(v) for k, v in gold_facts(ann).items() if "text" in k)
    if text:
        out += f"Text: \n{text}\n\n"
    questions = ann["cur_dial"]
    for i, q in enumerate(questions[:-1]):
        out += f"{DIALOGUE_START}{q}\nAnswer: {ann['exe_ans_list'][i]}\n"
    return out + f"{DIALOGUE_START}{questions[-1]}"


def turn_record(turn: dict, where: str) -> dict:
    """One per-turn source record → ``{id, context, question, answer}`` (answer = ``str(exe_ans)``)."""
    try:
        ann = turn["annotation"]
        questions = ann["cur_dial"]
        if not questions:
            raise ValueError("annotation.cur_dial is empty")
        if len(ann["exe_ans_list"]) < len(questions) - 1:
            raise ValueError("annotation.exe_ans_list is shorter than the dialogue")
        return {
            "id": str(turn["id"]),
            "context": render_context(turn),
            "question": str(questions[-1]),
            "answer": str(ann["exe_ans"]),
        }
    except (KeyError, TypeError, ValueError) as exc:
        what = f"missing field {exc}" if isinstance(exc, KeyError) else str(exc)
        raise DataError("convfinqa", where, f"not a ConvFinQA turn record ({what})") from exc


def _truncate_keep_lines(text: str, n_words: int) -> str:
    """[TRUNC] on a multi-line block: keep the first ``n_words`` whitespace words, keeping line breaks (a table
    stays one row per line); the line where the budget runs out is cut, later lines are dropped."""
    out, left = [], n_words
    for line in text.split("\n"):
        words = line.split()
        if len(words) <= left:
            out.append(line)
            left -= len(words)
            continue
        if left > 0:
            out.append(" ".join(words[:left]))
        break
    return "\n".join(out)


def truncate_shot_context(context: str, n_words: int = FEWSHOT_MAX_WORDS) -> str:
    """The few-shot version of a context: the Table/Text block truncated to ``n_words`` words, dialogue kept."""
    cut = context.find("\n\n" + DIALOGUE_START)
    if cut < 0:  # cannot happen for contexts built by render_context; leave unknown text alone
        return context
    head, dialogue = context[:cut], context[cut + 2 :]
    if len(head.split()) <= n_words:
        return context
    return _truncate_keep_lines(head, n_words) + "\n\n" + dialogue


class ConvFinQA(Source):
    id = "convfinqa"
    domain = "finance"
    task_type = "numeric"
    files = (RemoteFile(ZIP_NAME, ZIP_URL),)
    expected_rows = {  # turns stated by the ConvFinQA README; data.zip never counted by us
        "train": unverified(11104, "ConvFinQA README: train 11,104 turns; data.zip not counted"),
        "valid": unverified(1490, "ConvFinQA README: dev 1,490 turns; data.zip not counted"),
    }
    eval_split = "valid"
    fewshot_source_split = "train"

    def convert(self, raw_dir: Path) -> dict[str, list[dict]]:
        path = raw_dir / ZIP_NAME
        try:
            archive = zipfile.ZipFile(path)
        except (OSError, zipfile.BadZipFile) as exc:
            raise DataError(self.id, path, f"not a readable zip archive ({exc})") from exc
        out = {}
        with archive:
            names = set(archive.namelist())
            for split, member in MEMBERS.items():
                if member not in names:
                    raise DataError(self.id, path, f"archive has no {member}")
                where = f"{path}!{member}"
                try:
                    turns = json.loads(archive.read(member))
                except ValueError as exc:
                    raise DataError(self.id, where, f"invalid JSON ({exc})") from exc
                if not isinstance(turns, list):
                    raise DataError(self.id, where, "expected a JSON list of turn records")
                out[split] = [turn_record(t, f"{where}[{i}]") for i, t in enumerate(turns)]
        return out

    def fewshot_key(self, record: dict) -> Any:
        """[BAL] label key = the answer string (all but unique, so the selection is random)."""
        return record["answer"]

    def fewshot_transform(self, record: dict) -> dict:
        return {**record, "context": truncate_shot_context(record["context"])}


SOURCE = ConvFinQA()
