"""jcommonsenseqa — JCommonsenseQA of JGLUE v1.3 (Kurihara et al. 2022): 5-way multiple-choice commonsense questions.

Source layout: the JSON-lines files of GitHub ``yahoojapan/JGLUE`` at tag ``v1.3.0`` (pinned commit),
``datasets/jcommonsenseqa-v1.3/``, under their published names in the data folder
(:mod:`lm_eval_enterprise.tasks.nlu.jglue`): ``valid-v1.3.json`` → split ``valid``, the evaluated split
(required); ``train-v1.3.json`` → ``train``, the few-shot pool (optional, as for the other JGLUE datasets: a folder
without it has no pool); ``test-v1.3.json`` → ``test``, a labelled alternative evaluation split (optional).

Row fields: ``q_id`` (an integer that continues across the files: train 0–8,938, valid from 8,939), ``question``,
``choice0`` … ``choice4``, ``label`` (the 0-based index of the right choice). Record ``{id: str(q_id), question,
choices: [choice0 … choice4], answer: label}``; the data layer adds the ``choice_text`` fields (``label_names`` =
the option texts, letter/number aliases, ``answer_text``). Mirrors store ``label`` and ``q_id`` as digit strings
too: both are normalised (``"2"`` → 2); a label outside 0–4, a bool, a missing field or an empty text is one
:class:`DataError` naming file and line. Texts lose surrounding whitespace (one genuine train option is
``"シャンプー "``); duplicate option texts within a row are kept as published. README: Deviations and decisions.
"""

from __future__ import annotations

from pathlib import Path

from lm_eval_enterprise.tasks.nlu.jglue import JGLUE_COMMIT, JsonLinesSource, is_int, jglue_files

from lm_eval_enterprise.data import DataError, require_columns, require_text, verified

COMMIT = JGLUE_COMMIT
SHA256 = {
    "train": "9b55fae5ecb3aedd6f8ce5bc09196c3b629864668ec6c18eee4d65c0aa48229e",
    "valid": "0d8d76f3bfa0d174866939882faccdd01fbc2bcd5a76c43748ba0c40a7b3b8d4",
}
SPLIT_FILES = jglue_files("jcommonsenseqa", SHA256)
N_CHOICES = 5
CHOICES = tuple(f"choice{i}" for i in range(N_CHOICES))
COLUMNS = ("q_id", "question", *CHOICES, "label")


def as_index(value, what: str, where: str, upper: int | None = None) -> int:
    """A JSON integer, or a mirror's digit string (``"2"`` → 2); ``upper``: it must be below it."""
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if not is_int(value) or value < 0 or (upper is not None and value >= upper):
        bound = f" in 0–{upper - 1}" if upper is not None else ""
        raise DataError("jcommonsenseqa", where, f"{what} {value!r} is not an integer{bound}")
    return value


class JCommonsenseQA(JsonLinesSource):
    id = "jcommonsenseqa"
    domain = "nlu"
    task_type = "choice_text"
    split_files = SPLIT_FILES
    files = tuple(SPLIT_FILES.values())
    eval_split = "valid"
    fewshot_source_split = "train"
    expected_rows = {
        "train": verified(8939, "counted on the genuine train-v1.3.json of JGLUE v1.3.0 (sha256 9b55fae5…)"),
        "valid": verified(1119, "counted on the genuine valid-v1.3.json of JGLUE v1.3.0 (sha256 0d8d76f3…)"),
        "test": verified(
            1118,
            "counted on the genuine test-v1.3.json of JGLUE v1.3.0 (its sha256 was not recorded); the JGLUE README "
            "gives the same 8,939 / 1,119 / 1,118",
        ),
    }

    def record(self, row: dict, where: str) -> dict:
        if not isinstance(row, dict):
            raise DataError(self.id, where, f"a row is a JSON {type(row).__name__}, not an object")
        require_columns(row, COLUMNS, self.id, where)
        qid = str(as_index(row["q_id"], "q_id", where))
        question = require_text(row["question"], self.id, where, f"q_id {qid}: empty or missing question").strip()
        choices = [require_text(row[c], self.id, where, f"q_id {qid}: {c} is empty").strip() for c in CHOICES]
        answer = as_index(row["label"], f"q_id {qid}: label", where, N_CHOICES)
        return {"id": qid, "question": question, "choices": choices, "answer": answer}

    def convert_presplit(self, rows: dict[str, list[dict]], data_dir: Path) -> dict[str, list[dict]]:
        """``train.jsonl`` / ``valid.jsonl`` / ``test.jsonl`` holding the files' rows (the same fields)."""
        return self.map_presplit(rows, data_dir, self.record)

    def fewshot_key(self, record: dict) -> int:
        """[BAL] label key: the index of the right option, so the shots spread over the answer positions."""
        return record["answer"]


SOURCE = JCommonsenseQA()
