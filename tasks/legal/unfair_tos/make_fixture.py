#!/usr/bin/env python
"""Write the synthetic UNFAIR-ToS fixture ``fixture/``.

Same layout and columns as the real source (README.md, Source row): ``unfair_tos/test/0000.parquet`` (the hub's
auto-converted parquet of ``nguha/legalbench`` config ``unfair_tos``: ``text``, ``answer``, ``index``) and
``train.tsv`` (LegalBench's tab-separated ``text``/``answer``/``index`` file, one clause per class). The clauses
are invented for lm-eval-enterprise (fictional services; lower-cased and space-tokenised like the corpus);
nothing is copied from CLAUDETTE/LexGLUE/LegalBench.

    .venv/bin/python tasks/legal/unfair_tos/make_fixture.py [--out DIR]
"""

from __future__ import annotations

from pathlib import Path

from lm_eval_enterprise.data import generator_main, write_manifest

TRAIN = [
    ("these terms were last revised on march 3 , 2021 . ", "Other"),
    (
        "any dispute arising from your use of quillpad will be settled by final and binding arbitration under the "
        "rules of the international chamber of commerce . ",
        "Arbitration",
    ),
    (
        "by opening the app or creating a profile you confirm that you accept these terms in full . ",
        "Contract by using",
    ),
    (
        "we may revise these terms from time to time and the revised version applies as soon as it is posted . ",
        "Unilateral change",
    ),
    (
        "harborline may suspend or close your account at any time if we suspect misuse of the service . ",
        "Unilateral termination",
    ),
    (
        "to the fullest extent permitted by law , harborline is not liable for any indirect or consequential loss , "
        "including loss of profits or data . ",
        "Limitation of liability",
    ),
    (
        "these terms are governed by the laws of the state of oregon , without regard to conflict of laws rules . ",
        "Choice of law",
    ),
    (
        "you agree that the courts of multnomah county , oregon have exclusive jurisdiction over any claim against "
        "us . ",
        "Jurisdiction",
    ),
    ("we may remove any photo or comment that we consider offensive , without notice to you . ", "Content removal"),
]

TEST = [
    ("you can contact our support team through the help page at any time . ", "Other"),
    (
        "we reserve the right to change the subscription features and these conditions at our discretion . ",
        "Unilateral change",
    ),
    (
        "all claims shall be resolved exclusively by individual binding arbitration in seattle , washington . ",
        "Arbitration",
    ),
    (
        "the service is provided as is and in no event shall tallowbrook be liable for damages exceeding ten "
        "dollars . ",
        "Limitation of liability",
    ),
    (
        "your continued use of the platform after registration means you agree to be bound by this agreement . ",
        "Contract by using",
    ),
    ("our moderators may delete listings that break the community rules , in whole or in part . ", "Content removal"),
    ("this agreement shall be interpreted in accordance with the laws of ireland . ", "Choice of law"),
    ("any legal action must be brought only in the courts located in dublin , ireland . ", "Jurisdiction"),
    (
        "we may terminate your access to the marketplace immediately and without prior notice for any reason . ",
        "Unilateral termination",
    ),
    ("please read our privacy notice to learn how we handle your personal information . ", "Other"),
    ("premium members receive early access to new game levels . ", "Other"),
    ("you must be at least sixteen years old to open an account . ", "Other"),
]


def write(out: Path) -> None:
    import datasets

    (out / "unfair_tos" / "test").mkdir(parents=True, exist_ok=True)
    feats = datasets.Features(
        {"answer": datasets.Value("string"), "index": datasets.Value("int64"), "text": datasets.Value("string")}
    )
    cols = {"answer": [a for _, a in TEST], "index": list(range(len(TEST))), "text": [t for t, _ in TEST]}
    datasets.Dataset.from_dict(cols, features=feats).to_parquet(str(out / "unfair_tos" / "test" / "0000.parquet"))
    lines = ["text\tanswer\tindex"] + [f"{t}\t{a}\t{i}" for i, (t, a) in enumerate(TRAIN)]
    (out / "train.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    write_manifest(
        out,
        "unfair_tos",
        "Synthetic terms-of-service clauses written for lm-eval-enterprise (not from the real data), "
        "laid out like the real sources: unfair_tos/test/0000.parquet (hub auto-converted parquet of "
        "nguha/legalbench config unfair_tos; columns text, answer, index) and LegalBench's "
        "train.tsv (text, answer, index; one clause per class). Written by "
        "tasks/legal/unfair_tos/make_fixture.py.",
        {"train": len(TRAIN), "test": len(TEST)},
    )


if __name__ == "__main__":
    generator_main(write)
