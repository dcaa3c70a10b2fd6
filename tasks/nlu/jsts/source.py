"""jsts — JSTS of JGLUE v1.3 (Kurihara et al. 2022): semantic textual similarity of Japanese caption pairs, 0–5.

Source layout: the JSON-lines files of GitHub ``yahoojapan/JGLUE`` at tag ``v1.3.0`` (pinned commit),
``datasets/jsts-v1.3/``, under their published names in the data folder
(:mod:`lm_eval_enterprise.tasks.nlu.jglue`): ``valid-v1.3.json`` → split ``valid``, the evaluated split
(required); ``train-v1.3.json`` → ``train``, the few-shot pool (optional); ``test-v1.3.json`` → ``test``, a
labelled alternative evaluation split (optional; labelled since v1.3.0).

Row fields: ``sentence_pair_id`` (a string, ``"0"``, ``"1"`` …), ``yjcaptions_id``, ``sentence1``, ``sentence2``,
``label`` (a float 0.0–5.0, the mean of the crowd ratings: 0 no similarity … 5 equivalent). Record ``{id:
sentence_pair_id, sentence1, sentence2, score: label, target: the score as text}`` (:func:`score_text`: ``2.2``,
``0``, ``5``). The sentences are kept as written: they mix full-width and half-width digits (``2頭``, ``２匹``).
The evaluation order is stratified by the score rounded to an integer (:meth:`JSTS.eval_stratum`). A missing
field, an id that is not a string, a label that is not a number in [0, 5] is one :class:`DataError` naming file
and line. README: Deviations and decisions.
"""

from __future__ import annotations

import math

from lm_eval_enterprise.tasks.nlu.jglue import JGLUE_COMMIT, JsonLinesSource, jglue_files

from lm_eval_enterprise.data import DataError, require_columns, require_text, verified

COMMIT = JGLUE_COMMIT
SPLIT_FILES = jglue_files(
    "jsts",
    {
        "train": "db6bd653270ac9786759920413a48973164d322998f34dd4ae32202af5e66969",
        "valid": "7c0bdcb381179f01096c635d058853d96da1e1248d23fe3f5c2beed5dc2d9b1a",
    },
)
COLUMNS = ("sentence_pair_id", "sentence1", "sentence2", "label")
MAX_SCORE = 5.0


def score_text(score: float) -> str:
    """The score as the answer text of a shot and the reference: at most four decimals, trailing zeros and a
    trailing point dropped (``2.2`` → ``"2.2"``, ``0.0`` → ``"0"``, ``5.0`` → ``"5"``)."""
    return f"{score:.4f}".rstrip("0").rstrip(".")


def score_stratum(score: float) -> int:
    """The score rounded to the nearest integer, halves up (``2.4`` → 2, ``2.6`` → 3, ``2.5`` → 3)."""
    return int(math.floor(score + 0.5))


class JSTS(JsonLinesSource):
    id = "jsts"
    domain = "nlu"
    task_type = "similarity"
    split_files = SPLIT_FILES
    files = tuple(SPLIT_FILES.values())
    eval_split = "valid"
    fewshot_source_split = "train"
    expected_rows = {
        "train": verified(12451, "counted on the genuine train-v1.3.json of JGLUE v1.3.0 (sha256 db6bd653…)"),
        "valid": verified(1457, "counted on the genuine valid-v1.3.json of JGLUE v1.3.0 (sha256 7c0bdcb3…)"),
        "test": verified(1589, "counted on the genuine test-v1.3.json of JGLUE v1.3.0 (its sha256 was not recorded)"),
    }

    def record(self, row: dict, where: str) -> dict:
        require_columns(row, COLUMNS, self.id, where)
        pid, score = row["sentence_pair_id"], row["label"]
        if not isinstance(pid, str) or not pid.strip():
            raise DataError(self.id, where, f"sentence_pair_id {pid!r} is not a non-empty string")
        s1 = require_text(row["sentence1"], self.id, where, f"pair {pid}: empty or missing sentence1")
        s2 = require_text(row["sentence2"], self.id, where, f"pair {pid}: empty or missing sentence2")
        ok = isinstance(score, (int, float)) and not isinstance(score, bool) and math.isfinite(score)
        if not ok or not 0.0 <= score <= MAX_SCORE:
            raise DataError(self.id, where, f"pair {pid}: label {score!r} is not a similarity score in [0, 5]")
        score = float(score)
        return {"id": pid, "sentence1": s1, "sentence2": s2, "score": score, "target": score_text(score)}

    def eval_stratum(self, record: dict) -> int:
        """The evaluation order is stratified by the rounded score, so that every prefix (``--limit``) covers the
        scale in proportion (docs/data.md#evaluation-order)."""
        return score_stratum(record["score"])


SOURCE = JSTS()
