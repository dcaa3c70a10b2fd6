"""spec5g_sum — SPEC5G summarization "5GSum" (Karim et al., AACL 2023).

Source layout: one CSV from the SPEC5G Google Drive folder, columns ``Paragraph`` (3GPP specification text) →
``Simplification`` (plain-language summary). The authors disagree on its name: their notebook (GitHub
``Imtiazkarimik23/SPEC5G``) reads ``summarizationdataset.csv``, their README names ``simplification_dataset.csv``;
both are accepted (the notebook's name first, :attr:`csv_aliases`), downloaded and read alike. The download
(optional ``gdown`` client, or the file imported with ``prepare --from`` / placed by hand), the CSV reader and the
seeded split are shared with spec5g_cls (:class:`~lm_eval_enterprise.tasks.cyber.spec5g_cls.source.SPEC5GDriveSource`).

Split: ``test = df.sample(frac=0.15, random_state=0)`` on the whole file (evaluated in that order); the rest is the
(unused at 0 shots) pool. Records ``{id: row index, document: Paragraph, summary: Simplification}``, both
whitespace-collapsed; rows with either field empty are dropped after the split (counted in the log).
"""

from __future__ import annotations

from lm_eval_enterprise.tasks.cyber.spec5g_cls.source import SPEC5GDriveSource

from lm_eval_enterprise.data import unverified
from lm_eval_enterprise.text import collapse_ws

CSV_NAME = "summarizationdataset.csv"  # the authors' notebook
CSV_ALIASES = ("simplification_dataset.csv",)  # the authors' README
DOCUMENT, SUMMARY = "Paragraph", "Simplification"


def collapse(text) -> str:
    return collapse_ws(text)


class Spec5GSum(SPEC5GDriveSource):
    id = "spec5g_sum"
    domain = "cyber"
    task_type = "summarization"
    csv_name = CSV_NAME
    csv_aliases = CSV_ALIASES
    csv_columns = (DOCUMENT, SUMMARY)
    expected_rows = {
        "train": unverified(None, "no published size for summarizationdataset.csv / simplification_dataset.csv"),
        "test": unverified(
            None, "no published size for summarizationdataset.csv / simplification_dataset.csv (seeded 15 %)"
        ),
    }

    def to_record(self, row: dict, where: str) -> dict | None:
        document, summary = collapse(row[DOCUMENT]), collapse(row[SUMMARY])
        if not document or not summary:
            return None
        return {"id": str(row["_row"]), "document": document, "summary": summary}


SOURCE = Spec5GSum()
