#!/usr/bin/env python
"""Write fixture/{ECHR_Dataset.zip,MANIFEST.json}.

Invented case summaries (fictional applicants and facts, not from HUDOC or the real archive) in the layout of
archive.org ``ECHR-ACL2019/ECHR_Dataset.zip``: folders ``EN_train``, ``EN_dev``, ``EN_test`` (and
``EN_train_Anon``, which the loader ignores), one ``<ITEMID>.json`` per case with the archive's fields. One case
in EN_train and one in EN_test are longer than 600 words and are dropped by the HELM length filter.
The zip is written with fixed timestamps, so the file is byte-identical on every run.
"""

import json
import zipfile
from pathlib import Path

from lm_eval_enterprise.data import generator_main, write_manifest

FACTS_VIOLATION = [
    "The applicant was arrested without a warrant and held for nine days before being brought before a judge.",
    "The applicant complained that the police beat him during questioning and that no inquiry followed.",
    "The domestic courts took eleven years to decide the applicant's claim for compensation.",
    "The applicant's newspaper was closed by order of the Ministry after it published criticism of the mayor.",
    "The authorities refused for six years to enforce a final judgment in the applicant's favour.",
    "The applicant was convicted on the basis of statements by witnesses he could never question.",
    "The applicant's telephone was tapped without any legal basis in domestic law.",
    "The applicant's land was expropriated and no compensation was ever paid.",
    "The applicant, detained in an overcrowded cell, had less than two square metres of personal space.",
    "The applicant's child was taken into care and all contact was refused for three years.",
]
FACTS_NO_VIOLATION = [
    "The applicant's request for a retrial was examined and rejected by two levels of jurisdiction within a year.",
    "The applicant was detained for two days on reasonable suspicion and released after a prompt judicial review.",
    "The applicant's complaint about a planning permission was heard in public by an independent tribunal.",
    "The applicant was fined for speeding and appealed; the appeal court held a hearing and reduced the fine.",
    "The applicant's expulsion order was reviewed by a court that considered his family ties in detail.",
    "The applicant was refused a firearms licence after a fair administrative procedure with a right of appeal.",
    "The applicant's defamation claim was dismissed after a full adversarial hearing.",
    "The applicant's pension was recalculated under a general law applying equally to all former civil servants.",
    "The applicant was searched at the border under a statute with clear safeguards and judicial oversight.",
    "The applicant's disciplinary case was decided by a board whose members were independent of the employer.",
]
FILLER = (
    "The Government submitted further observations on the admissibility and merits of the application "
    "and the applicant replied within the time allowed. "
)


def case(item: str, paragraphs: list[str], violated: list[str], respondent: str) -> dict:
    return {
        "ITEMID": item,
        "LANGUAGEISOCODE": "ENG",
        "RESPONDENT": respondent,
        "BRANCH": "CHAMBER",
        "DATE": 2009,
        "DOCNAME": f"CASE OF {item.upper()} v. {respondent}",
        "IMPORTANCE": "4",
        "CONCLUSION": ("Violation of Article " + violated[0]) if violated else "No violation",
        "JUDGES": "Fictional Judge A;Fictional Judge B",
        "TEXT": paragraphs,
        "VIOLATED_ARTICLES": violated,
        "VIOLATED_PARAGRAPHS": [f"{a}-1" for a in violated],
        "VIOLATED_BULLETPOINTS": [],
        "NON_VIOLATED_ARTICLES": [] if violated else ["6"],
        "NON_VIOLATED_PARAGRAPHS": [],
        "NON_VIOLATED_BULLETPOINTS": [],
    }


def build() -> dict[str, list[dict]]:
    folders: dict[str, list[dict]] = {"EN_train": [], "EN_dev": [], "EN_test": []}
    n = 0

    def add(folder: str, facts: str, violated: list[str], extra: int = 0) -> None:
        nonlocal n
        n += 1
        paragraphs = [
            f"{n}. The applicant, a national of the respondent State, was born in 19{50 + n} and lives "
            "in a fictional town.",
            facts,
            "The applicant relied on the Convention before the Court.",
        ]
        paragraphs += [FILLER] * extra
        folders[folder].append(case(f"001-9{n:04d}", paragraphs, violated, "RUR" if n % 2 else "TUR"))

    for i in range(5):  # EN_train: 5 Yes + 5 No + 1 too long
        add("EN_train", FACTS_VIOLATION[i], ["5" if i % 2 else "6"])
        add("EN_train", FACTS_NO_VIOLATION[i], [])
    add("EN_train", FACTS_VIOLATION[5], ["6"], extra=40)  # ~800 words: filtered out
    add("EN_dev", FACTS_VIOLATION[6], ["8"])
    add("EN_dev", FACTS_NO_VIOLATION[5], [])
    add("EN_dev", FACTS_NO_VIOLATION[6], [])
    for i in range(5):  # EN_test: 5 Yes + 5 No + 1 too long
        add("EN_test", FACTS_VIOLATION[(i + 5) % 10], ["3" if i % 2 else "P1-1"])
        add("EN_test", FACTS_NO_VIOLATION[(i + 5) % 10], [])
    add("EN_test", FACTS_NO_VIOLATION[9], [], extra=40)  # filtered out
    return folders


def write(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    folders = build()
    with zipfile.ZipFile(out / "ECHR_Dataset.zip", "w", zipfile.ZIP_DEFLATED) as zf:
        for folder in ("EN_dev", "EN_test", "EN_train", "EN_train_Anon"):
            zf.writestr(zipfile.ZipInfo(f"{folder}/", date_time=(2019, 6, 2, 0, 0, 0)), "")
            cases = folders.get(folder, folders["EN_train"][:2])  # two anonymised copies: ignored by the loader
            for c in cases:
                info = zipfile.ZipInfo(f"{folder}/{c['ITEMID']}.json", date_time=(2019, 6, 2, 0, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                zf.writestr(info, json.dumps(c, indent=1))
    write_manifest(
        out,
        "echr_judgment",
        "Invented case summaries (fictional applicants, not from HUDOC or the archive) in the layout "
        "of archive.org ECHR-ACL2019/ECHR_Dataset.zip: EN_train 11, EN_dev 3, EN_test 11 case "
        "files (+ EN_train_Anon, ignored); one train and one test case exceed 600 words and are "
        "dropped by the HELM filter -> train 10 / valid 3 / test 10 (5 Yes, 5 No each). Generated "
        "by tasks/legal/echr_judgment/make_fixture.py.",
        {"train": 10, "valid": 3, "test": 10},
    )


if __name__ == "__main__":
    generator_main(write)
