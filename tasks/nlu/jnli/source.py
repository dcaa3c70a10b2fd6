"""jnli — JNLI of JGLUE v1.3 (Kurihara et al. 2022): Japanese natural language inference on caption pairs.

Source layout: the JSON-lines files of GitHub ``yahoojapan/JGLUE`` at tag ``v1.3.0`` (pinned commit),
``datasets/jnli-v1.3/``, under their published names in the data folder
(:mod:`lm_eval_enterprise.tasks.nlu.jglue`): ``valid-v1.3.json`` → split ``valid``, the evaluated split
(required); ``train-v1.3.json`` → ``train``, the few-shot pool (optional: a folder holding only the dev file has
no pool); ``test-v1.3.json`` → ``test``, a labelled alternative evaluation split (optional).

Row fields: ``sentence_pair_id`` (a string), ``yjcaptions_id``, ``sentence1`` (the premise), ``sentence2`` (the
hypothesis), ``label`` — one of the strings ``entailment``, ``contradiction``, ``neutral``. Record ``{id:
sentence_pair_id, premise: sentence1, hypothesis: sentence2, label}`` with the label word of :data:`LABEL_WORDS`
(含意 / 矛盾 / 中立). An **integer label** is refused: some third-party mirrors store JNLI labels as integers,
but no genuine JNLI file does, so nothing confirms which integer means which class and the loader never guesses
a mapping (convert such a copy back to the label strings, or use the genuine files). Any other label, a missing
field or an id that is not a string is one :class:`DataError` naming file and line. README: Deviations and
decisions.
"""

from __future__ import annotations

from lm_eval_enterprise.tasks.nlu.jglue import JGLUE_COMMIT, JsonLinesSource, is_int, jglue_files

from lm_eval_enterprise.data import DataError, require_columns, require_text, unverified, verified

ENTAILMENT, NEUTRAL, CONTRADICTION = "含意", "中立", "矛盾"
LABELS = (ENTAILMENT, NEUTRAL, CONTRADICTION)  # the order of FLAN's mnli options (GLUE labels 0, 1, 2)
LABEL_WORDS = {"entailment": ENTAILMENT, "neutral": NEUTRAL, "contradiction": CONTRADICTION}
COMMIT = JGLUE_COMMIT
SPLIT_FILES = jglue_files("jnli", {"valid": "ca0353efc7c2eebfb6de4e13f16295053c8b1ee65e7b0849190c90426fbc495f"})
COLUMNS = ("sentence_pair_id", "sentence1", "sentence2", "label")


class JNLI(JsonLinesSource):
    id = "jnli"
    domain = "nlu"
    task_type = "classification_accuracy"
    split_files = SPLIT_FILES
    files = tuple(SPLIT_FILES.values())
    labels = LABELS
    eval_split = "valid"
    fewshot_source_split = "train"
    expected_rows = {
        "train": unverified(
            20073, "the JGLUE README's size of train-v1.3.json; no genuine copy of that file was available to count"
        ),
        "valid": verified(
            2434,
            "counted on the genuine valid-v1.3.json of JGLUE v1.3.0 (sha256 ca0353ef…; neutral 1,350 / "
            "contradiction 735 / entailment 349)",
        ),
        "test": verified(
            2508,
            "counted on the genuine test-v1.3.json of JGLUE v1.3.0 (neutral 1,365 / contradiction 776 / "
            "entailment 367; its sha256 was not recorded)",
        ),
    }

    def record(self, row: dict, where: str) -> dict:
        require_columns(row, COLUMNS, self.id, where)
        pid, label = row["sentence_pair_id"], row["label"]
        if not isinstance(pid, str) or not pid.strip():
            raise DataError(self.id, where, f"sentence_pair_id {pid!r} is not a non-empty string")
        if is_int(label):
            raise DataError(
                self.id,
                where,
                f"pair {pid}: integer label {label!r}; genuine JNLI files label pairs with the strings entailment / "
                "contradiction / neutral and no genuine file confirms a mirror's integer mapping, so none is "
                "guessed: use the genuine files or write the label strings",
            )
        if label not in LABEL_WORDS:
            raise DataError(
                self.id, where, f"pair {pid}: label {label!r} is not one of entailment, contradiction, neutral"
            )
        premise = require_text(row["sentence1"], self.id, where, f"pair {pid}: empty or missing sentence1")
        hypothesis = require_text(row["sentence2"], self.id, where, f"pair {pid}: empty or missing sentence2")
        return {"id": pid, "premise": premise, "hypothesis": hypothesis, "label": LABEL_WORDS[label]}


SOURCE = JNLI()
