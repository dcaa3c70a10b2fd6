#!/usr/bin/env python
"""Write the synthetic CaseHOLD fixture ``fixture/all/{train,validation,test}/0000.parquet``.

Same layout and columns as the hub's auto-converted parquet files of ``casehold/casehold`` config ``all``
(``example_id`` int, ``citing_prompt`` with a ``(<HOLDING>)`` marker, ``holding_0`` … ``holding_4``, ``label`` the
string "0"–"4"). The citing contexts and holdings are invented for lm-eval-enterprise (fictional cases and
reporters); nothing is copied from CaseHOLD. The correct holding is placed at a seeded position
(``random.Random(11)``) so every letter occurs.

    .venv/bin/python tasks/legal/casehold/make_fixture.py [--out DIR]
"""

from __future__ import annotations

import random
from pathlib import Path

from lm_eval_enterprise.data import generator_main, write_manifest

# (citing context, correct holding); wrong options are drawn from the other items' holdings
ITEMS = [
    (
        "The district court dismissed the claim as untimely. See Harlow v. Pennick Mills, 412 F.3d 88, 91 (9th Cir. "
        "2005) (<HOLDING>). We agree that the limitations period began when the plaintiff learned of the injury.",
        "holding that a claim accrues when the plaintiff knows or should know of the injury",
    ),
    (
        "A landlord who accepts rent after learning of a breach may lose the right to evict. Carrow v. Ames Realty "
        "Co., 77 N.E.2d 310, 312 (Mass. 1948) (<HOLDING>).",
        "holding that acceptance of rent with knowledge of a breach waives the forfeiture",
    ),
    (
        "Officers may briefly detain a person on reasonable suspicion. State v. Delmore, 201 P.3d 455, 459 (Or. 2009) "
        "(<HOLDING>). Here the officer pointed to no specific facts.",
        "holding that an investigatory stop requires specific and articulable facts",
    ),
    (
        "An arbitration clause is enforced unless the party shows it was never formed. Lund v. Brightwater Tel., "
        "640 F.2d 17, 20 (2d Cir. 1981) (<HOLDING>).",
        "holding that a court must decide whether an agreement to arbitrate was formed",
    ),
    (
        "The employer argued that the statements were privileged. See Ordway v. Linton Press, 355 So. 2d 902, 905 "
        "(Fla. 1978) (<HOLDING>).",
        "holding that statements made in judicial proceedings are absolutely privileged",
    ),
    (
        "Summary judgment is improper where credibility is at issue. Pike v. Norcross Freight, 88 F.4th 214, 219 "
        "(5th Cir. 2023) (<HOLDING>).",
        "holding that a court may not weigh witness credibility on summary judgment",
    ),
    (
        "A guilty plea must be knowing and voluntary. United States v. Farrant, 512 F.2d 600, 603 (7th Cir. 1975) "
        "(<HOLDING>). The record shows no such advisement.",
        "holding that a defendant must be informed of the direct consequences of a plea",
    ),
    (
        "The insurer refused to defend. See Bexley Mut. Ins. v. Trowe, 610 A.2d 41, 44 (N.J. 1992) (<HOLDING>). "
        "The complaint here alleged at least one covered claim.",
        "holding that the duty to defend arises if the complaint alleges any potentially covered claim",
    ),
    (
        "Hearsay within hearsay is admissible only if each part fits an exception. Dunmore v. Keel, 143 F.3d 700, "
        "706 (3d Cir. 1998) (<HOLDING>).",
        "holding that each layer of hearsay must satisfy an exception",
    ),
    (
        "The city contends that the ordinance is a valid time, place and manner restriction. Verity v. City of "
        "Ashby, 300 F. Supp. 3d 12, 18 (D. Mont. 2018) (<HOLDING>).",
        "holding that a content-neutral restriction must be narrowly tailored to a significant interest",
    ),
    (
        "Courts read a contract as a whole. Ellery Grain Co. v. Stamps, 94 S.W.3d 377, 380 (Tex. 2002) (<HOLDING>). "
        "We therefore give effect to both provisions.",
        "holding that a contract should be construed to give effect to all of its provisions",
    ),
    (
        "A party who fails to object at trial forfeits the issue. People v. Marchetti, 19 Cal. 5th 51, 58 (2019) "
        "(<HOLDING>).",
        "holding that an unpreserved evidentiary objection is forfeited on appeal",
    ),
]
N_TRAIN = 4  # the first 4 items form train (pool >= 2 shots), the remaining 8 test
# validation: three more invented items (the split evaluated instead of an unlabelled test split)
VALID_ITEMS = [
    (
        "The trustee sold the property to his own company. In re Estate of Marlowe, 233 N.W.2d 60, 64 (Minn. 1975) "
        "(<HOLDING>). The sale must therefore be set aside.",
        "holding that a trustee's self-dealing sale is voidable by the beneficiaries",
    ),
    (
        "The plaintiff never saw the warning label. See Crane v. Ostrander Tools, 71 P.3d 512, 517 (Colo. 2003) "
        "(<HOLDING>).",
        "holding that an inadequate warning is not a cause of injury when the user never read it",
    ),
    (
        "A municipality is not liable merely because it employs a tortfeasor. Hollis v. Town of Greer, 501 F.2d 93, "
        "96 (4th Cir. 1974) (<HOLDING>).",
        "holding that a town is liable only for injuries caused by its own policy or custom",
    ),
]


def rows(items, rng, start_id):
    out = []
    all_holdings = [h for _, h in ITEMS]  # wrong options (validation items too) come from these
    for n, (context, gold) in enumerate(items):
        wrong = [h for h in all_holdings if h != gold]
        rng.shuffle(wrong)
        pos = rng.randrange(5)
        options = wrong[:4]
        options.insert(pos, gold)
        row = {"example_id": start_id + n, "citing_prompt": context}
        row.update({f"holding_{i}": options[i] for i in range(5)})
        row["label"] = str(pos)
        out.append(row)
    return out


def write(out: Path) -> None:
    import datasets

    rng = random.Random(11)
    feats = datasets.Features(
        {
            "example_id": datasets.Value("int32"),
            "citing_prompt": datasets.Value("string"),
            **{f"holding_{i}": datasets.Value("string") for i in range(5)},
            "label": datasets.Value("string"),
        }
    )
    splits = {
        "train": rows(ITEMS[:N_TRAIN], rng, 0),
        "test": rows(ITEMS[N_TRAIN:], rng, 100),
        "validation": rows(VALID_ITEMS, rng, 200),
    }
    for split, rs in splits.items():
        path = out / "all" / split / "0000.parquet"
        path.parent.mkdir(parents=True, exist_ok=True)
        cols = {k: [r[k] for r in rs] for k in feats}
        datasets.Dataset.from_dict(cols, features=feats).to_parquet(str(path))
    write_manifest(
        out,
        "casehold",
        "Synthetic citing contexts and holdings written for lm-eval-enterprise (not from the real "
        "data), laid out like the hub's auto-converted parquet files of casehold/casehold config "
        "all (revision refs/convert/parquet): all/{train,validation,test}/0000.parquet with columns "
        "example_id, citing_prompt, holding_0..holding_4, label ('0'-'4'). Written by "
        "tasks/legal/casehold/make_fixture.py.",
        {("valid" if k == "validation" else k): len(v) for k, v in splits.items()},
    )


if __name__ == "__main__":
    generator_main(write)
