#!/usr/bin/env python
"""Write the synthetic EDTSUM fixture ``fixture/data/test-00000-of-00001.parquet``.

Same layout and columns as the HF dataset ``TheFinAI/flare-edtsum`` (one ``test`` parquet; ``id``, ``query``,
``answer``, ``text``). The 60 press releases are invented for lm-eval-enterprise from the templates below (fictional
companies and figures; nothing copied from EDT). Row 7 carries a long safe-harbour section (> 1,024 words) so the
[TRUNC] path runs in the oracle test. Deterministic (``random.Random(7)``).

    .venv/bin/python tasks/finance/edtsum/make_fixture.py [--out DIR]
"""

from __future__ import annotations

import random
from pathlib import Path

from lm_eval_enterprise.data import generator_main, write_manifest

FILE = "data/test-00000-of-00001.parquet"
N_ROWS = 60
LONG_ROW = 7

COMPANIES = [
    "Northwind Robotics",
    "Calder Bay Bancorp",
    "Ostrava Biosciences",
    "Pellham Energy Partners",
    "Junebrook Foods",
    "Tessaro Semiconductor",
    "Lindqvist Medical Devices",
    "Harbor Crest REIT",
    "Marlow Freight Systems",
    "Quillon Software",
    "Ashgrove Mining",
    "Veridian Water Technologies",
    "Sable Point Insurance",
    "Kestrel Aerospace",
    "Bramford Pharmaceuticals",
]
CITIES = [
    "Boston, Mass.",
    "Austin, Texas",
    "San Diego",
    "Denver",
    "Chicago",
    "Toronto",
    "Charlotte, N.C.",
    "Minneapolis",
    "Seattle",
    "Atlanta",
]
PEOPLE = [
    "Maria Okafor",
    "Daniel Reyes",
    "Priya Natarajan",
    "Thomas Albrecht",
    "Hannah Lindgren",
    "Samuel Osei",
    "Elena Petrova",
    "Marcus Whitfield",
    "Yuki Tanaka",
    "Grace Holloway",
]
QUARTERS = ["First", "Second", "Third", "Fourth"]
PRODUCTS = [
    "cloud analytics platform",
    "compact surgical stapler",
    "grid-scale battery system",
    "plant-based snack line",
    "automotive radar chip",
    "freight visibility app",
    "water reuse module",
]
QUERY_PROMPT = "Summarize the following financial news article into its headline.\nText: {text}\nAnswer:"
SAFE_HARBOUR = [
    "This press release contains forward-looking statements within the meaning of federal securities laws.",
    "Words such as expects, anticipates, intends, plans, believes and estimates identify such statements.",
    "Forward-looking statements are based on current expectations and are subject to risks and uncertainties.",
    "Actual results may differ materially because of changes in demand, pricing, supply costs and competition.",
    "Other factors include the timing of regulatory approvals, litigation outcomes and general economic conditions.",
    "The company undertakes no obligation to update any forward-looking statement except as required by law.",
    "Readers are cautioned not to place undue reliance on these statements, which speak only as of today.",
    "Additional risk factors are described in the company's most recent annual report on Form 10-K.",
]


def earnings(rng, co, city, person):
    qi, year = rng.randrange(4), rng.choice([2018, 2019, 2020])
    q, month, release_year = QUARTERS[qi], ["May", "Aug.", "Nov.", "Feb."][qi], year + (qi == 3)
    rev, growth, eps = round(rng.uniform(20, 900), 1), rng.randint(3, 28), round(rng.uniform(0.05, 2.4), 2)
    title = f"{co} Reports {q} Quarter {year} Results; Revenue Up {growth}% to ${rev} Million"
    text = (
        f"{city.upper()}, {month} {rng.randint(2, 27)}, {release_year} -- {co} "
        f"today announced financial results for the {q.lower()} quarter of {year}. Revenue was ${rev} million, "
        f"an increase of {growth}% compared with the same quarter last year. Diluted earnings per share were "
        f'${eps}. "Our teams delivered another quarter of disciplined growth," said {person}, chief executive '
        f"officer. Gross margin improved by {rng.randint(20, 180)} basis points, driven by a richer product mix "
        f"and lower freight costs. The company reaffirmed its full-year outlook and will host a conference call "
        f"at 5:00 p.m. Eastern Time today to discuss the results."
    )
    return title, text


def acquisition(rng, co, city, person):
    target = rng.choice([c for c in COMPANIES if c != co])
    price = rng.randint(40, 2500)
    title = f"{co} to Acquire {target} for ${price} Million"
    text = (
        f"{city.upper()} -- {co} and {target} today announced a definitive agreement under which {co} will "
        f"acquire {target} in an all-cash transaction valued at approximately ${price} million. The boards of "
        f"directors of both companies have unanimously approved the transaction, which is expected to close in "
        f"the {rng.choice(['first', 'second'])} half of the year, subject to regulatory approvals and customary "
        f'closing conditions. "This combination broadens our portfolio and accelerates our growth strategy," '
        f"said {person}. {co} expects the deal to be accretive to adjusted earnings within "
        f"{rng.choice(['twelve', 'eighteen', 'twenty-four'])} months of closing."
    )
    return title, text


def launch(rng, co, city, person):
    product = rng.choice(PRODUCTS)
    title = f"{co} Launches New {product.title()}"
    text = (
        f"{city.upper()} -- {co} today introduced a new {product} designed to help customers cut operating "
        f"costs and improve reliability. The launch follows a {rng.randint(6, 30)}-month development program and "
        f'pilot deployments with {rng.randint(3, 40)} customers. "Customers asked for a simpler way to scale, '
        f'and this release delivers it," said {person}, president of the company. The {product} will be '
        f"available in North America beginning next month, with European availability planned for later in "
        f"the year."
    )
    return title, text


def dividend(rng, co, city, person):
    amount = round(rng.uniform(0.05, 1.5), 2)
    title = f"{co} Declares Quarterly Dividend of ${amount} Per Share"
    text = (
        f"{city.upper()} -- The board of directors of {co} has declared a quarterly cash dividend of ${amount} "
        f"per share of common stock. The dividend is payable on {rng.choice(['March', 'June', 'September'])} "
        f'{rng.randint(1, 28)} to shareholders of record at the close of business two weeks earlier. "The '
        f'dividend reflects our confidence in the cash-generating strength of the business," said {person}, '
        f"chief financial officer. The company has paid a dividend for {rng.randint(4, 60)} consecutive "
        f"quarters."
    )
    return title, text


def appointment(rng, co, city, person):
    role = rng.choice(["Chief Financial Officer", "Chief Operating Officer", "Chief Technology Officer"])
    title = f"{co} Appoints {person} as {role}"
    text = (
        f"{city.upper()} -- {co} today announced the appointment of {person} as {role}, effective "
        f"{rng.choice(['immediately', 'January 1', 'April 1'])}. {person.split()[0]} brings more than "
        f"{rng.randint(12, 30)} years of experience in finance and operations, most recently at a publicly "
        f'traded industrial company. "We are delighted to welcome an executive with a strong record of '
        f"execution,\" said the company's chief executive officer. {person.split()[0]} succeeds an executive "
        f"who is retiring after {rng.randint(8, 25)} years with the company."
    )
    return title, text


def financing(rng, co, city, person):
    amount = rng.randint(25, 600)
    title = f"{co} Closes ${amount} Million Senior Notes Offering"
    text = (
        f"{city.upper()} -- {co} today announced the closing of its previously announced offering of "
        f"${amount} million aggregate principal amount of {round(rng.uniform(2.5, 8.5), 3)}% senior notes due "
        f"{rng.randint(2025, 2032)}. The company intends to use the net proceeds to repay outstanding borrowings "
        f'under its revolving credit facility and for general corporate purposes. "This offering extends our '
        f'debt maturities and strengthens our balance sheet," said {person}, treasurer.'
    )
    return title, text


KINDS = [earnings, acquisition, launch, dividend, appointment, financing]


def rows():
    rng = random.Random(7)
    out = []
    for i in range(N_ROWS):
        kind = KINDS[i % len(KINDS)]
        title, text = kind(rng, rng.choice(COMPANIES), rng.choice(CITIES), rng.choice(PEOPLE))
        if i == LONG_ROW:
            extra = [SAFE_HARBOUR[j % len(SAFE_HARBOUR)] for j in range(80)]
            text = text + " " + " ".join(extra)
        out.append({"id": f"edtsum{i}", "query": QUERY_PROMPT.format(text=text), "answer": title, "text": text})
    return out


def write(out: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    data = rows()
    (out / FILE).parent.mkdir(parents=True, exist_ok=True)
    table = pa.Table.from_pylist(data, schema=pa.schema([(c, pa.string()) for c in ("id", "query", "answer", "text")]))
    pq.write_table(table, out / FILE)
    n_pool = N_ROWS // 10  # HELM's 10 % rule on the only split
    write_manifest(
        out,
        "edtsum",
        "Synthetic press releases and headlines written for lm-eval-enterprise (fictional "
        "companies and figures, not from EDT), in the layout and columns of the HF dataset "
        "TheFinAI/flare-edtsum (data/test-*.parquet; id, query, answer, text). Generated by "
        "tasks/finance/edtsum/make_fixture.py. Only a test split, as on the hub, so HELM's 10 % rule "
        f"applies: {N_ROWS} rows -> pool {n_pool} / eval {N_ROWS - n_pool}. Row edtsum{LONG_ROW} is "
        "longer than 1,024 words (exercises [TRUNC]).",
        {"train": n_pool, "test": N_ROWS - n_pool},
    )
    print(f"{FILE}: {len(data)} rows; row {LONG_ROW} has {len(data[LONG_ROW]['text'].split())} words")


if __name__ == "__main__":
    generator_main(write)
