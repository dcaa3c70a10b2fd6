#!/usr/bin/env python
"""Write the synthetic squad fixture ``fixture/plain_text/{train,validation}-00000-of-00001.parquet``.

Laid out like the hub's parquet files of ``rajpurkar/squad``, config ``plain_text`` (the loader's default layout,
what a download fetches), one row per question with the columns ``id``, ``title`` (with underscores, as
published), ``context``, ``question`` and ``answers`` (``{text: [...], answer_start: [...]}``); written with
``datasets`` so that, as on the hub, the features are stored in each file's ``huggingface`` schema metadata.
:func:`write_published` writes the same questions as SQuAD's own JSON files (``train-v1.1.json``,
``dev-v1.1.json``: ``{"data": [{"title", "paragraphs": [{"context", "qas": [...]}]}], "version": "1.1"}``,
serialised as the genuine files are, ``json.dumps`` defaults and no trailing newline). Dev questions carry one to
three reference answers, often the same text twice or three times, as in the genuine dev file. The articles,
questions and ids are invented for lm-eval-enterprise (nothing copied from SQuAD or Wikipedia). Deterministic.

    .venv/bin/python tasks/nlu/squad/make_fixture.py [--out DIR]
"""

import json
from pathlib import Path

from lm_eval_enterprise.data import generator_main, write_manifest

# article title → paragraphs: (context, [(question id, question, [answer texts])])
TRAIN = {
    "Lighthouse_of_Varn": [
        (
            "The Lighthouse of Varn stands on a granite cliff at the northern tip of the island. It was built in "
            "1871 by the engineer Tomas Ekdal and first lit in the spring of 1872.",
            [
                ("f000000000000000000000a1", "Who built the Lighthouse of Varn?", ["Tomas Ekdal"]),
                ("f000000000000000000000a2", "When was the lighthouse first lit?", ["in the spring of 1872"]),
            ],
        ),
        (
            "Its lamp burned whale oil until 1903, when it was replaced by a kerosene burner. Since 1960 the "
            "light has been electric and fully automatic.",
            [
                ("f000000000000000000000a3", "What did the lamp burn before 1903?", ["whale oil"]),
                ("f000000000000000000000a4", "Since when has the light been electric?", ["1960"]),
            ],
        ),
    ],
}
VALID = {
    "River_Ostra": [
        (
            "The Ostra is a river of about 240 kilometres that rises in the Kessel Hills and flows east into "
            "the Bay of Lune. Its largest tributary is the Mirn, which joins it near the town of Halvik.",
            [
                (
                    "f000000000000000000000b1",
                    "Where does the Ostra rise?",
                    ["the Kessel Hills", "Kessel Hills", "the Kessel Hills"],
                ),
                ("f000000000000000000000b2", "What is the largest tributary of the Ostra?", ["the Mirn"] * 3),
                ("f000000000000000000000b3", "How long is the Ostra?", ["about 240 kilometres", "240 kilometres"]),
            ],
        ),
        (
            "A stone bridge with seven arches crosses the river at Halvik. It was completed in 1650, and its "
            "central arch was rebuilt after the flood of 1811.",
            [
                ("f000000000000000000000b4", "How many arches does the bridge at Halvik have?", ["seven"] * 3),
                ("f000000000000000000000b5", "What caused the central arch to be rebuilt?", ["the flood of 1811"]),
            ],
        ),
    ],
}
HUB_FILES = {"train": ("train", TRAIN), "valid": ("validation", VALID)}  # our split → (hub split, articles)
JSON_FILES = {"train": ("train-v1.1.json", TRAIN), "valid": ("dev-v1.1.json", VALID)}


def _answers(context: str, texts: list[str]) -> list[dict]:
    return [{"answer_start": context.index(t), "text": t} for t in texts]


def squad_json(articles: dict) -> dict:
    """SQuAD v1.1's JSON document of ``articles``."""
    data = [
        {
            "title": title,
            "paragraphs": [
                {
                    "context": context,
                    "qas": [{"answers": _answers(context, a), "question": q, "id": qid} for qid, q, a in qas],
                }
                for context, qas in paragraphs
            ],
        }
        for title, paragraphs in articles.items()
    ]
    return {"data": data, "version": "1.1"}


def hub_rows(articles: dict) -> dict[str, list]:
    """The hub's columns: one row per question, in file order."""
    cols: dict[str, list] = {"id": [], "title": [], "context": [], "question": [], "answers": []}
    for title, paragraphs in articles.items():
        for context, qas in paragraphs:
            for qid, question, texts in qas:
                starts = [a["answer_start"] for a in _answers(context, texts)]
                for key, value in zip(cols, (qid, title, context, question, {"text": texts, "answer_start": starts})):
                    cols[key].append(value)
    return cols


def write_parquet(path: Path, articles: dict) -> None:
    import datasets

    features = datasets.Features(
        {
            "id": datasets.Value("string"),
            "title": datasets.Value("string"),
            "context": datasets.Value("string"),
            "question": datasets.Value("string"),
            "answers": datasets.Sequence({"text": datasets.Value("string"), "answer_start": datasets.Value("int32")}),
        }
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    datasets.Dataset.from_dict(hub_rows(articles), features=features).to_parquet(str(path))


def write_published(out: Path) -> Path:
    """The fixture's questions as SQuAD's JSON files ``out/train-v1.1.json`` and ``out/dev-v1.1.json``."""
    out.mkdir(parents=True, exist_ok=True)
    for name, articles in JSON_FILES.values():
        (out / name).write_text(json.dumps(squad_json(articles)), encoding="utf-8")
    return out


def n_questions(articles: dict) -> int:
    return sum(len(qas) for paragraphs in articles.values() for _, qas in paragraphs)


def write(out: Path) -> None:
    for hub_split, articles in HUB_FILES.values():
        write_parquet(out / "plain_text" / f"{hub_split}-00000-of-00001.parquet", articles)
    write_manifest(
        out,
        "squad",
        "Synthetic articles and questions written for lm-eval-enterprise (not from SQuAD), laid out like the hub's "
        "parquet files of rajpurkar/squad config plain_text: plain_text/{train,validation}-00000-of-00001.parquet "
        "with columns id, title, context, question, answers{text, answer_start}. Generated by "
        "tasks/nlu/squad/make_fixture.py.",
        {split: n_questions(articles) for split, (_, articles) in HUB_FILES.items()},
    )


if __name__ == "__main__":
    generator_main(write)
