#!/usr/bin/env python
"""Write the synthetic earnings_call fixture ``fixture/transcript-sentiment/{train,test}/0000.parquet``.

Laid out like the hub's auto-converted parquet files of ``jlh-ibm/earnings_call`` (revision
``refs/convert/parquet``, config ``transcript-sentiment``) with its columns ``text``, ``label`` (the strings
``positive``/``negative``), ``company``, ``date``, ``para_no``; written with ``datasets`` so that, as on the hub,
the features are stored in each file's ``huggingface`` schema metadata. The paragraphs are invented for
lm-eval-enterprise (nothing copied from the real transcripts). Deterministic.

    .venv/bin/python tasks/finance/earnings_call/make_fixture.py [--out DIR]
"""

from datetime import date
from pathlib import Path

from lm_eval_enterprise.data import generator_main, write_manifest

COLUMNS = ("text", "label", "company", "date", "para_no")
TRAIN = [
    (
        "Thank you, Tim. Revenue for the March quarter came in above the high end of our guidance range, and we saw double digit growth in services, which set a new all time record for the quarter across every geographic segment we report.",
        "positive",
        "AAPL",
        date(2017, 5, 2),
        3,
    ),
    (
        "Looking ahead to the June quarter, we expect revenue between 43.5 and 45.5 billion dollars, gross margin between 37.5 and 38 percent, and we plan to return a further 50 billion dollars to shareholders through buybacks and dividends.",
        "positive",
        "AAPL",
        date(2017, 5, 2),
        6,
    ),
    (
        "Before we begin, I want to note that our results this quarter include a one time net charge related to the new tax legislation, which reduced diluted earnings per share and will weigh on comparisons for the rest of the fiscal year.",
        "negative",
        "MSFT",
        date(2018, 1, 31),
        2,
    ),
    (
        "On the commercial side, transactional licensing declined again as customers continued to move workloads to the cloud, and we now expect some pressure on on premises server revenue to persist through the second half of the year.",
        "negative",
        "MSFT",
        date(2018, 1, 31),
        5,
    ),
    (
        "Data center revenue was down six percent year over year, reflecting a softer demand environment, customer inventory digestion and a more cautious spending posture in China, and we are lowering our full year outlook accordingly to reflect these trends.",
        "negative",
        "INTC",
        date(2019, 4, 25),
        4,
    ),
    (
        "We are also taking a charge to exit the 5G smartphone modem business, and we expect gross margin to come in about two points lower than we indicated in January as we ramp our ten nanometer products through the year.",
        "negative",
        "INTC",
        date(2019, 4, 25),
        9,
    ),
    (
        "Good afternoon, everyone. We delivered a strong finish to the fiscal year with record revenue, record non GAAP earnings per share and continued momentum in our security and collaboration businesses, which both grew at double digit rates.",
        "positive",
        "CSCO",
        date(2016, 8, 17),
        1,
    ),
    (
        "Deferred revenue grew eleven percent, with software and subscription deferred revenue up more than twenty percent, which gives us good visibility as we continue shifting our portfolio towards more recurring revenue offers for our customers.",
        "positive",
        "CSCO",
        date(2016, 8, 17),
        7,
    ),
]
TEST = [
    (
        "Third quarter revenue was below our outlook, driven by excess channel inventory of mid range gaming cards following the end of the crypto currency boom, and we expect it will take one to two quarters for the channel to normalise.",
        "negative",
        "NVDA",
        date(2018, 11, 15),
        2,
    ),
    (
        "As a result, our fourth quarter guidance is well below what we communicated previously, with revenue expected to decline sequentially as we work down inventory and ship less into the gaming channel than end customers are buying.",
        "negative",
        "NVDA",
        date(2018, 11, 15),
        4,
    ),
    (
        "Operating expenses grew faster than revenue this quarter because we continued to invest in headcount for autonomous driving and data center programs, so operating margin contracted by several points compared with the same period last year.",
        "negative",
        "NVDA",
        date(2018, 11, 15),
        8,
    ),
    (
        "Net sales increased twenty percent to 63.4 billion dollars, and our third party seller services and subscription revenue both grew faster than the overall business, supported by the rollout of one day shipping for prime members.",
        "positive",
        "AMZN",
        date(2019, 7, 25),
        3,
    ),
    (
        "Cloud services revenue grew thirty seven percent year over year and now runs at an annual rate above thirty three billion dollars, with strong customer adoption across compute, storage, databases and our machine learning services.",
        "positive",
        "AMZN",
        date(2019, 7, 25),
        5,
    ),
    (
        "Operating cash flow increased to 35.2 billion dollars for the trailing twelve months, and free cash flow improved to 25.8 billion dollars, giving us plenty of room to keep investing in logistics capacity and new devices for customers.",
        "positive",
        "AMZN",
        date(2019, 7, 25),
        6,
    ),
    (
        "Total revenues for the fourth quarter came in below consensus, mostly because growth in search advertising slowed and other bets revenue was lower than last year, while headcount and data center depreciation kept costs climbing quickly.",
        "negative",
        "GOOGL",
        date(2020, 2, 3),
        1,
    ),
    (
        "We are also disclosing cloud and video revenue for the first time, and as you can see margins in these businesses remain under pressure as we continue to invest ahead of demand in sales capacity, engineering talent and infrastructure.",
        "negative",
        "GOOGL",
        date(2020, 2, 3),
        2,
    ),
    (
        "Finally, our outlook for capital expenditures is higher than in prior years, and foreign exchange movements reduced reported revenue growth by about one point, so we expect margin comparisons to remain difficult in the first half.",
        "negative",
        "GOOGL",
        date(2020, 2, 3),
        10,
    ),
]


def write_split(out: Path, split: str, rows: list[tuple]) -> None:
    import datasets

    features = datasets.Features(
        {
            "text": datasets.Value("string"),
            "label": datasets.Value("string"),
            "company": datasets.Value("string"),
            "date": datasets.Value("date64"),
            "para_no": datasets.Value("int32"),
        }
    )
    path = out / "transcript-sentiment" / split / "0000.parquet"
    path.parent.mkdir(parents=True, exist_ok=True)
    columns = {c: [r[i] for r in rows] for i, c in enumerate(COLUMNS)}
    datasets.Dataset.from_dict(columns, features=features).to_parquet(str(path))


def write(out: Path) -> None:
    write_split(out, "train", TRAIN)
    write_split(out, "test", TEST)
    write_manifest(
        out,
        "earnings_call",
        "Synthetic earnings-call paragraphs written for lm-eval-enterprise (not from "
        "the real data), laid out like the hub's auto-converted parquet files of jlh-ibm/earnings_call "
        "(revision refs/convert/parquet): transcript-sentiment/{train,test}/0000.parquet with columns "
        "text, label, company, date, para_no. Generated by tasks/finance/earnings_call/make_fixture.py.",
        {"train": len(TRAIN), "test": len(TEST)},
    )


if __name__ == "__main__":
    generator_main(write)
