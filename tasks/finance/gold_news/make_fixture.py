#!/usr/bin/env python
"""Write the synthetic gold_news fixture ``fixture/finalDataset_0208.csv``.

The schema of the Kaggle/HELM ``finalDataset_0208.csv``: the headline column ``News`` and nine 0/1 columns, one
per subtask (the source's own column names, ``Asset Comparision`` spelling included), rows separated by CRLF as
the ``csv`` module writes them. The 60 headlines are invented for lm-eval-enterprise (nothing copied from the real
data) and all distinct, so that no evaluation headline equals a few-shot pool headline ([LEAK] removes nothing
from the embedded data). HELM's split (``random.seed(0)``, 10 % pool) gives 6 pool / 54 evaluation rows.

    .venv/bin/python tasks/finance/gold_news/make_fixture.py [--out DIR]
"""

import csv
from pathlib import Path

from lm_eval_enterprise.data import generator_main, write_manifest

HEADER = [
    "News",
    "Price or Not",
    "Direction Up",
    "Direction Constant",
    "Direction Down",
    "PastPrice",
    "FuturePrice",
    "PastNews",
    "FutureNews",
    "Asset Comparision",
]
ROWS = [  # (headline, the nine labels in HEADER order as a string of 0/1)
    ("gold climbs 11 dollars to settle at $2070.29/oz", "110010000"),
    ("gold loses ground on firmer dollar", "100110000"),
    ("gold steady near $2031.74 an ounce", "101010000"),
    ("traders see gold falling further next week", "100001000"),
    ("gold beats oil as best performing asset of 2008", "100010001"),
    ("refinery expands vault capacity in zurich", "000000010"),
    ("gold jumps to a 6-week high on haven demand", "110010000"),
    ("gold slips as the dollar firms after data", "100110000"),
    ("gold prices flat in quiet trade", "101010000"),
    ("analysts see gold falling further next month", "100001000"),
    ("gold beats oil as best performing asset of 2012", "100010001"),
    ("refinery expands vault capacity in geneva", "000000110"),
    ("bullion gains for third straight session", "110010000"),
    ("bullion retreats after fed minutes", "100110000"),
    ("gold little changed ahead of fed decision", "101010000"),
    ("gold expected to rise if inflation persists", "100001000"),
    ("gold beats oil as best performing asset of 2017", "100010001"),
    ("jewellery demand survey due next week", "000000110"),
    ("gold climbs 19 dollars to settle at $1916.68/oz", "110010000"),
    ("gold drops to lowest level since 2005", "100110000"),
    ("gold prices flat in thin holiday trade", "101010000"),
    ("gold expected to rise if rate cuts come early", "100001000"),
    ("gold outperforms silver as investors seek safety", "100010001"),
    ("mining company names new chief executive", "000000110"),
    ("gold jumps to a 4-week high on haven demand", "110010000"),
    ("bullion retreats after strong retail sales", "100110000"),
    ("gold prices flat in quiet asian trade", "101010000"),
    ("gold could test $1489.39 next month, analysts say", "100001000"),
    ("gold lags equities for the quarter", "100010001"),
    ("central bank to publish reserve report on friday", "000000010"),
    ("gold futures rise as dollar weakens", "110010000"),
    ("gold loses ground as treasury yields climb", "100110000"),
    ("gold little changed ahead of ecb decision", "101010000"),
    ("gold could test $1510.17 next month, analysts say", "100001000"),
    ("gold outperforms platinum as investors seek safety", "100010001"),
    ("central bank to publish reserve report on monday", "000000110"),
    ("gold jumps to a 8-week high on haven demand", "110010000"),
    ("gold drops to lowest level since 2014", "100110000"),
    ("gold little changed ahead of inflation data", "101010000"),
    ("traders expect gold to weaken into the weekend", "100001000"),
    ("gold beats oil as best performing asset of 2018", "100010001"),
    ("jewellery demand survey due next month", "000000010"),
    ("gold climbs 23 dollars to settle at $1656.13/oz", "110010000"),
    ("gold futures fall as stocks rally", "100110000"),
    ("gold prices flat in quiet european trade", "101010000"),
    ("gold could test $1751.38 next month, analysts say", "100001000"),
    ("gold lags equities for the month", "100010001"),
    ("jewellery demand survey due after the holidays", "000000110"),
    ("gold edges higher after jobs report", "110010000"),
    ("bullion retreats after hawkish fed remarks", "100110000"),
    ("gold prices flat as traders await payrolls", "101010000"),
    ("strategists see gold sliding further next quarter", "100001000"),
    ("gold lags equities for the year", "100010001"),
    ("mining company names new chief financial officer", "000000110"),
    ("gold jumps to a 5-week high on haven demand", "110010000"),
    ("gold futures fall as equities rally", "100110000"),
    ("gold prices unchanged in quiet trade", "101010000"),
    ("gold expected to rise if the dollar weakens", "100001000"),
    ("gold outperforms copper as investors seek safety", "100010001"),
    ("mining company names new chairman", "000000110"),
]


def write(out: Path) -> None:
    with open(out / "finalDataset_0208.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(HEADER)
        w.writerows([text, *labels] for text, labels in ROWS)
    n_pool = len(ROWS) // 10
    write_manifest(
        out,
        "gold_news",
        "Synthetic headlines written for lm-eval-enterprise (not from the real data), in "
        "the schema of finalDataset_0208.csv; all 60 headlines are distinct. Generated by "
        "tasks/finance/gold_news/make_fixture.py.",
        {"train": n_pool, "test": len(ROWS) - n_pool},
    )


if __name__ == "__main__":
    generator_main(write)
