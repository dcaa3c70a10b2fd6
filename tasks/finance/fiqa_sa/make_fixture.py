#!/usr/bin/env python
"""Write the synthetic fiqa_sa fixture ``fixture/data/{train,valid,test}-00000-of-00001-<hash>.parquet``.

Laid out like the parquet files of ``TheFinAI/fiqa-sentiment-classification`` (file names with the hub's shard
hashes) with its columns ``_id``, ``sentence``, ``target``, ``aspect``, ``score``, ``type``, written with
``datasets``. Headlines and posts are invented for lm-eval-enterprise (nothing copied from FiQA). The test scores
include the threshold cases 0.1 (positive), -0.1 (neutral), 0.099 (neutral) and -0.101 (negative).

    .venv/bin/python tasks/finance/fiqa_sa/make_fixture.py [--out DIR]
"""

from pathlib import Path

from lm_eval_enterprise.data import generator_main, write_manifest

COLUMNS = ("_id", "sentence", "target", "aspect", "score", "type")
FILES = {
    "train": "train-00000-of-00001-aeefa1eadf5be10b.parquet",
    "valid": "valid-00000-of-00001-51867fe1ac59af78.parquet",
    "test": "test-00000-of-00001-0fb9f3a47c7d0fce.parquet",
}
ROWS = {
    "train": [
        (
            "t101",
            "Unilever shares climb after quarterly sales beat forecasts on strong emerging market demand",
            "Unilever",
            "Stock/Price Action/Bullish",
            0.62,
            "headline",
        ),
        (
            "t102",
            "$NFLX subscriber numbers look great, adding to my position before the close",
            "NFLX",
            "Stock/Price Action/Bullish",
            0.71,
            "post",
        ),
        (
            "t103",
            "Barclays to cut 1,000 jobs as investment bank revenue slumps",
            "Barclays",
            "Corporate/Risks",
            -0.55,
            "headline",
        ),
        (
            "t104",
            "$TSLA breaking below support again, I would stay away until the delivery numbers are out",
            "TSLA",
            "Stock/Technical Analysis",
            -0.48,
            "post",
        ),
        (
            "t105",
            "Glencore to hold annual general meeting in Zug on 12 May",
            "Glencore",
            "Corporate/Company Communication",
            0.0,
            "headline",
        ),
        (
            "t106",
            "Rio Tinto names new chief financial officer effective next quarter",
            "Rio Tinto",
            "Corporate/Appointment",
            0.05,
            "headline",
        ),
        ("t107", "$AMZN watching the open today, no position yet", "AMZN", "Stock/Trade", -0.02, "post"),
        (
            "t108",
            "BP profit falls sharply as oil price slide hits upstream earnings",
            "BP",
            "Corporate/Financial/Results",
            -0.67,
            "headline",
        ),
        (
            "t109",
            "Diageo raises dividend after solid year for premium spirits",
            "Diageo",
            "Corporate/Dividend Policy",
            0.44,
            "headline",
        ),
    ],
    "valid": [
        (
            "v201",
            "Vodafone shares edge higher as analysts upgrade the stock to buy",
            "Vodafone",
            "Stock/Price Action/Bullish",
            0.38,
            "headline",
        ),
        ("v202", "$FB closing flat into the weekend, volume light", "FB", "Stock/Price Action", 0.01, "post"),
        (
            "v203",
            "Tesco warns on profits as price war with discounters deepens",
            "Tesco",
            "Corporate/Risks",
            -0.59,
            "headline",
        ),
    ],
    "test": [
        (
            "s301",
            "AstraZeneca wins approval for new cancer drug in the United States",
            "AstraZeneca",
            "Corporate/Regulatory",
            0.57,
            "headline",
        ),
        (
            "s302",
            "$GOOGL gap up this morning, great momentum after earnings",
            "GOOGL",
            "Stock/Price Action/Bullish",
            0.66,
            "post",
        ),
        (
            "s303",
            "Lloyds Banking Group sets aside another 1 billion pounds for mis-selling claims",
            "Lloyds",
            "Corporate/Legal",
            -0.52,
            "headline",
        ),
        (
            "s304",
            "$TWTR looks weak here, losing the 50 day moving average",
            "TWTR",
            "Stock/Technical Analysis",
            -0.41,
            "post",
        ),
        (
            "s305",
            "Standard Chartered to publish half year results on 2 August",
            "Standard Chartered",
            "Corporate/Company Communication",
            0.0,
            "headline",
        ),
        (
            "s306",
            "Shell completes sale of stake in pipeline venture as planned",
            "Shell",
            "Corporate/M&A",
            0.1,
            "headline",
        ),
        (
            "s307",
            "Aviva chairman to step down at next annual meeting",
            "Aviva",
            "Corporate/Appointment",
            -0.1,
            "headline",
        ),
        ("s308", "$MSFT holding steady while the market chops around", "MSFT", "Stock/Price Action", 0.099, "post"),
        (
            "s309",
            "Rolls-Royce cuts guidance again on weaker civil aerospace orders",
            "Rolls-Royce",
            "Corporate/Financial/Results",
            -0.101,
            "headline",
        ),
    ],
}


def write(out: Path) -> None:
    import datasets

    features = datasets.Features({c: datasets.Value("float64" if c == "score" else "string") for c in COLUMNS})
    (out / "data").mkdir(parents=True, exist_ok=True)
    for split, rows in ROWS.items():
        columns = {c: [r[i] for r in rows] for i, c in enumerate(COLUMNS)}
        datasets.Dataset.from_dict(columns, features=features).to_parquet(str(out / "data" / FILES[split]))
    write_manifest(
        out,
        "fiqa_sa",
        "Synthetic headlines/posts written for lm-eval-enterprise (not from the real data), "
        "laid out like the parquet files of TheFinAI/fiqa-sentiment-classification: "
        "data/{train,valid,test}-00000-of-00001-<hash>.parquet with columns _id, sentence, target, aspect, "
        "score, type. Test scores include the threshold cases 0.1 (positive), -0.1 (neutral), 0.099 "
        "(neutral), -0.101 (negative). Generated by tasks/finance/fiqa_sa/make_fixture.py.",
        {split: len(rows) for split, rows in ROWS.items()},
    )


if __name__ == "__main__":
    generator_main(write)
