#!/usr/bin/env python
"""Write the synthetic CommonsenseQA fixture ``fixture/data/{train,validation,test}-00000-of-00001.parquet``.

Laid out like the hub's parquet files of ``tau/commonsense_qa`` (``data/<split>-00000-of-00001.parquet``) with its
columns ``id`` (32 hex digits), ``question`` (the stem), ``question_concept``, ``choices`` (``{label: [A..E],
text: [5 texts]}``) and ``answerKey``; written with ``datasets`` so that, as on the hub, the features sit in each
file's ``huggingface`` schema metadata. The hub's ``test`` split has no answers (``answerKey`` empty): so has the
fixture's, which the loader never reads. The questions are invented for lm-eval-enterprise (nothing copied from
CommonsenseQA); like the genuine data, one validation row repeats an option text and one stem has a double space.
The right option is placed at a seeded position (``random.Random(5)``) so that every letter occurs in the fixture. Deterministic.

    .venv/bin/python tasks/nlu/commonsense_qa/make_fixture.py [--out DIR]
"""

from __future__ import annotations

import hashlib
import random
from pathlib import Path

from lm_eval_enterprise.data import generator_main, write_manifest

LETTERS = "ABCDE"
# (question, concept, right option, four wrong options)
TRAIN = [
    (
        "Where would you keep milk so that it stays cold?",
        "milk",
        "refrigerator",
        ["oven", "bookshelf", "garage", "mailbox"],
    ),
    (
        "What do people usually do when they feel tired at night?",
        "tired",
        "go to sleep",
        ["run a marathon", "paint the house", "buy a car", "climb a tree"],
    ),
    (
        "Where can you borrow a novel without paying for it?",
        "novel",
        "library",
        ["bakery", "gas station", "dentist", "stadium"],
    ),
    (
        "What does a gardener use to water the plants?",
        "gardener",
        "watering can",
        ["frying pan", "stapler", "umbrella", "suitcase"],
    ),
    (
        "If you drop a glass on a stone floor, what is likely to happen?",
        "glass",
        "it breaks",
        ["it grows", "it sings", "it melts", "it floats"],
    ),
    (
        "Where would a pilot spend most of a working day?",
        "pilot",
        "cockpit",
        ["kitchen", "classroom", "barn", "submarine"],
    ),
]
VALID = [
    (
        "Where do you put a letter so the postal service picks it up?",
        "letter",
        "mailbox",
        ["refrigerator", "bathtub", "oven", "closet"],
    ),
    ("What would you wear on your feet to walk in the snow?", "snow", "boots", ["gloves", "scarf", "hat", "earrings"]),
    # a double space inside the stem, as some genuine stems have
    (
        "The  child was hungry after school, so what did she want?",
        "hungry",
        "a snack",
        ["a nap", "homework", "a bath", "a nap"],
    ),
    (
        "Where are you likely to find many trees growing close together?",
        "trees",
        "forest",
        ["desert", "parking lot", "ocean", "airport"],
    ),
    ("What do you need to open a locked front door?", "door", "key", ["spoon", "pillow", "candle", "ladder"]),
    (
        "Where would you go to see a doctor about a broken arm?",
        "doctor",
        "hospital",
        ["cinema", "zoo", "supermarket", "beach"],
    ),
]
TEST = [  # unlabelled, as on the hub
    ("What do cows drink on a hot day?", "cows", "water", ["milk", "juice", "coffee", "tea"]),
    ("Where would you hang a wet towel to dry?", "towel", "clothesline", ["drawer", "freezer", "oven", "piano"]),
]


def rows(items, rng: random.Random, labelled: bool = True) -> list[dict]:
    out = []
    for question, concept, right, wrong in items:
        pos = rng.randrange(5)
        texts = list(wrong)
        texts.insert(pos, right)
        out.append(
            {
                "id": hashlib.md5(question.encode("utf-8")).hexdigest(),
                "question": question,
                "question_concept": concept,
                "choices": {"label": list(LETTERS), "text": texts},
                "answerKey": LETTERS[pos] if labelled else "",
            }
        )
    return out


def write(out: Path) -> None:
    import datasets

    features = datasets.Features(
        {
            "id": datasets.Value("string"),
            "question": datasets.Value("string"),
            "question_concept": datasets.Value("string"),
            "choices": datasets.Sequence({"label": datasets.Value("string"), "text": datasets.Value("string")}),
            "answerKey": datasets.Value("string"),
        }
    )
    rng = random.Random(5)
    splits = {"train": rows(TRAIN, rng), "validation": rows(VALID, rng), "test": rows(TEST, rng, labelled=False)}
    for split, rs in splits.items():
        path = out / "data" / f"{split}-00000-of-00001.parquet"
        path.parent.mkdir(parents=True, exist_ok=True)
        datasets.Dataset.from_list(rs, features=features).to_parquet(str(path))
    write_manifest(
        out,
        "commonsense_qa",
        "Synthetic commonsense questions written for lm-eval-enterprise (not from the real data), laid out like "
        "the hub's parquet files of tau/commonsense_qa: data/{train,validation,test}-00000-of-00001.parquet with "
        "columns id, question, question_concept, choices {label, text}, answerKey (empty in test, as on the hub). "
        "Generated by tasks/nlu/commonsense_qa/make_fixture.py.",
        {"train": len(TRAIN), "valid": len(VALID)},
    )


if __name__ == "__main__":
    generator_main(write)
