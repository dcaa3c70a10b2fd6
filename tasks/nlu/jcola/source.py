"""jcola — JCoLA v1.0 (Someya et al. 2024), the Japanese Corpus of Linguistic Acceptability.

Source layout: the JSON-lines files of GitHub ``osekilab/JCoLA`` at a pinned commit, ``data/jcola-v1.0/``, under
their published names in the data folder (:mod:`lm_eval_enterprise.tasks.nlu.jglue`):

* ``in_domain_valid-v1.0.json`` → split ``valid``, the evaluated split (required);
* ``in_domain_train-v1.0.json`` → ``train``, the few-shot pool (optional: a folder without it has no pool);
* ``out_of_domain_valid-v1.0.json`` → ``valid_ood``, a labelled alternative evaluation split (optional).

Row fields: ``uid`` (int), ``source`` (the publication, ``author_year``), ``label`` (int: 0 unacceptable,
1 acceptable), ``diacritic`` (the author's mark: ``g``, ``*``, ``??`` …), ``sentence`` (the sentence, possibly
edited by the JCoLA authors), ``original`` (as printed in the source; it may be a fragment). Record ``{id:
str(uid), text: sentence, label: LABELS[label]}``: the item is ``sentence``, the complete sentence whose
acceptability the label gives (``original`` may be a fragment of it). Rows are not sorted by ``uid``; the file order is kept. Any other label (a string, a bool, 2) or
a missing or empty field is one :class:`DataError` naming file and line. README: Deviations and decisions.
"""

from __future__ import annotations

from lm_eval_enterprise.tasks.nlu.jglue import JCOLA_COMMIT, JsonLinesSource, is_int, jcola_file

from lm_eval_enterprise.data import DataError, require_columns, require_text, verified

UNACCEPTABLE, ACCEPTABLE = "容認できない", "容認できる"
LABELS = (UNACCEPTABLE, ACCEPTABLE)  # JCoLA label 0, 1
COMMIT = JCOLA_COMMIT
SPLIT_FILES = {
    "train": jcola_file("in_domain_train", "c665f8a8b371b34c3c8947cde3670637cf0403ac7529ba8bb62370d07f008396"),
    "valid": jcola_file("in_domain_valid", "677fb021886b6829d6a84e8ca9f62808f6bd479fa829439f49eac4f94f23658c"),
    "valid_ood": jcola_file("out_of_domain_valid"),
}
COLUMNS = ("uid", "label", "sentence")


class JCoLA(JsonLinesSource):
    id = "jcola"
    domain = "nlu"
    task_type = "classification_mcc"
    split_files = SPLIT_FILES
    files = tuple(SPLIT_FILES.values())
    labels = LABELS
    eval_split = "valid"
    fewshot_source_split = "train"
    expected_rows = {
        "train": verified(
            6919,
            "counted on the genuine in_domain_train-v1.0.json of the pinned commit (sha256 c665f8a8…; "
            "5,769 acceptable / 1,150 unacceptable)",
        ),
        "valid": verified(
            865,
            "counted on the genuine in_domain_valid-v1.0.json of the pinned commit (sha256 677fb021…; "
            "726 acceptable / 139 unacceptable)",
        ),
        "valid_ood": verified(
            685,
            "counted on the genuine out_of_domain_valid-v1.0.json of the pinned commit (502 acceptable / "
            "183 unacceptable; its sha256 was not recorded)",
        ),
    }

    def record(self, row: dict, where: str) -> dict:
        require_columns(row, COLUMNS, self.id, where)
        uid, label = row["uid"], row["label"]
        if not is_int(uid):
            raise DataError(self.id, where, f"uid {uid!r} is not an integer")
        if not is_int(label) or label not in (0, 1):
            raise DataError(self.id, where, f"label {label!r} is not 0 or 1 (JCoLA: 0 unacceptable, 1 acceptable)")
        text = require_text(row["sentence"], self.id, where, f"uid {uid}: empty or missing sentence")
        return {"id": str(uid), "text": text, "label": LABELS[label]}


SOURCE = JCoLA()
