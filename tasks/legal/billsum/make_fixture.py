#!/usr/bin/env python
"""Write fixture/data/*.parquet + MANIFEST.json.

Invented bills (fictional Acts, not from BillSum or the US Code) in the layout of the HF dataset
``FiscalNote/billsum``: ``data/{train,test,ca_test}-00000-of-00001.parquet`` with columns ``text``, ``summary``,
``title``; bill texts keep the source's line breaks and indentation, summaries are multi-line like the CRS ones.
Test row 3 is longer than 2,048 words (exercises [TRUNC]); ca_test is present, as on the hub, but unused.
"""

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from lm_eval_enterprise.data import generator_main, write_manifest

TOPICS = [
    ("Rural Broadband Access", "the Secretary of Agriculture", "grants to extend broadband service to rural areas"),
    ("Veterans Dental Care", "the Secretary of Veterans Affairs", "a pilot program of dental care for veterans"),
    (
        "Small Business Export",
        "the Administrator of the Small Business Administration",
        "loan guarantees for small exporters",
    ),
    (
        "Coastal Flood Mapping",
        "the Administrator of the Federal Emergency Management Agency",
        "updated flood maps for coastal communities",
    ),
    ("School Lunch Nutrition", "the Secretary of Agriculture", "grants for fresh produce in school lunches"),
    (
        "Wildfire Smoke Research",
        "the Director of the National Institutes of Health",
        "research on the health effects of wildfire smoke",
    ),
    ("Apprenticeship Expansion", "the Secretary of Labor", "grants to expand registered apprenticeships"),
    ("Transit Safety Reporting", "the Secretary of Transportation", "a public database of transit safety incidents"),
    ("Tribal Water Infrastructure", "the Secretary of the Interior", "water systems on tribal lands"),
    (
        "Pharmacy Price Transparency",
        "the Secretary of Health and Human Services",
        "public reporting of prescription drug prices",
    ),
    (
        "Library Digital Literacy",
        "the Director of the Institute of Museum and Library Services",
        "digital literacy classes in public libraries",
    ),
    ("Bridge Inspection Modernization", "the Secretary of Transportation", "drone-based bridge inspections"),
    ("Farmworker Heat Safety", "the Secretary of Labor", "heat safety standards for farmworkers"),
    ("Community College Cybersecurity", "the Secretary of Education", "cybersecurity programs at community colleges"),
    ("State Election Audit", "the California Secretary of State", "post-election audits of county results"),
    ("Urban Tree Canopy", "the Director of the California Department of Forestry", "tree planting in cities"),
]


def bill(i: int, long: bool = False) -> dict:
    name, officer, purpose = TOPICS[i]
    year = 2011 + i % 6
    amount = 10 + 5 * i
    text = (
        f"SECTION 1. SHORT TITLE.\n\n    This Act may be cited as the ``{name} Act of {year}''.\n\n"
        f"SEC. 2. PROGRAM.\n\n    (a) In General.--{officer} shall establish a program to provide {purpose}.\n"
        f"    (b) Eligibility.--An entity is eligible under this section if it submits an application at such time"
        f" and in such manner as {officer} may require.\n\n"
        f"SEC. 3. REPORT.\n\n    Not later than 2 years after the date of enactment of this Act, {officer} "
        f"shall submit to Congress a report on the results of the program.\n\n"
        f"SEC. 4. AUTHORIZATION OF APPROPRIATIONS.\n\n    There are authorized to be appropriated "
        f"${amount},000,000 for each of fiscal years {year + 1} through {year + 5} to carry out this Act."
    )
    if long:
        text += "\n\nSEC. 5. DEFINITIONS.\n\n" + "".join(
            f"    ({k}) Term {k}.--The term ``item {k}'' means an eligible activity described in section 2.\n"
            for k in range(1, 181)
        )
    summary = (
        f"{name} Act of {year}\n\n"
        f"This bill directs {officer} to establish a program to provide {purpose}.\n\n"
        f"{officer[0].upper() + officer[1:]} must report to Congress on the program within two years. "
        f"The bill authorizes ${amount} million for each of FY{year + 1}-FY{year + 5}."
    )
    title = f"To direct {officer} to establish a program to provide {purpose}, and for other purposes."
    return {"text": text, "summary": summary, "title": title}


def write_split(out: Path, split: str, rows: list[dict]) -> None:
    table = pa.Table.from_pylist(
        rows, schema=pa.schema([("text", pa.string()), ("summary", pa.string()), ("title", pa.string())])
    )
    pq.write_table(table, out / "data" / f"{split}-00000-of-00001.parquet")


def write(out: Path) -> None:
    (out / "data").mkdir(parents=True, exist_ok=True)
    train = [bill(i) for i in range(0, 5)]
    test = [bill(i, long=(i == 8)) for i in range(5, 14)]
    write_split(out, "train", train)
    write_split(out, "test", test)
    write_split(out, "ca_test", [bill(14), bill(15)])
    write_manifest(
        out,
        "billsum",
        "Invented bills and CRS-style summaries (fictional Acts, not from BillSum) in the layout "
        "of the HF dataset FiscalNote/billsum: data/{train,test,ca_test}-00000-of-00001.parquet, "
        "columns text, summary, title. Test row 3 has more than 2,048 words ([TRUNC]); ca_test "
        "(2 rows) is unused. Generated by tasks/legal/billsum/make_fixture.py.",
        {"train": len(train), "test": len(test)},
    )


if __name__ == "__main__":
    generator_main(write)
