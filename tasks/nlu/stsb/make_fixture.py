#!/usr/bin/env python
"""Write the synthetic stsb fixture ``fixture/stsb/{train,validation}-00000-of-00001.parquet``.

Laid out like the hub's parquet files of ``nyu-mll/glue``, config ``stsb`` (the loader's default layout, what a
download fetches), with its columns ``sentence1``, ``sentence2``, ``label`` (the score, float32, as on the hub:
``3.8`` is stored as 3.7999999523…) and ``idx``; written with ``datasets`` so that, as on the hub, the features are
stored in each file's ``huggingface`` schema metadata. :func:`write_published` writes the same rows as GLUE's TSV
release (``dev.tsv``/``train.tsv`` with GLUE's header row, scores with three decimals), with the quirks of the
genuine files: a sentence opening with an unbalanced ``"`` (a quoting TSV reader merges it with the rows after it) and the genre
spelled ``main-forum`` in train but ``main-forums`` in dev. The sentence pairs are invented for
lm-eval-enterprise (nothing copied from STS-B). Deterministic.

    .venv/bin/python tasks/nlu/stsb/make_fixture.py [--out DIR]
"""

from pathlib import Path

from lm_eval_enterprise.data import generator_main, write_manifest

# (genre, source, sentence1, sentence2, score); genre "forum" is spelled per split (write_published)
TRAIN = [
    ("captions", "MSRvid", "A dog is running across a field.", "A dog runs through a field.", "4.800"),
    ("captions", "MSRvid", "A woman is slicing an onion.", "A man is playing a guitar.", "0.000"),
    ("news", "headlines", "Storm closes schools across the region", "Schools shut as storm hits region", "4.200"),
    ("news", "headlines", "Central bank holds interest rates", "Local team wins championship final", "0.400"),
    (
        "forum",
        "answers-forums",
        '"It depends on the context, he said.',
        "It depends on the situation, he said.",
        "3.000",
    ),
    ("forum", "answers-forums", "You should back up your files first.", "Make a copy of your files before.", "3.600"),
    ("captions", "images", "Two children are playing in the sand.", "Two kids play on a beach.", "3.800"),
    ("captions", "images", "A red car is parked on the street.", "A blue bicycle leans on a wall.", "1.250"),
]
VALID = [
    ("captions", "MSRvid", "A man is cutting a tomato.", "A man slices a tomato.", "5.000"),
    ("captions", "MSRvid", "A cat is sleeping on a sofa.", "A bird is flying over a lake.", "0.000"),
    ("news", "headlines", "Train services resume after strike", "Rail strike ends as trains run again", "4.750"),
    ("news", "headlines", "Museum opens new dinosaur hall", "City council debates parking fees", "0.200"),
    (
        "forum",
        "answers-forums",
        "I would check the power cable first.",
        '"Check the power cable before anything.',
        "3.800",
    ),
    ("forum", "answers-forums", "That depends on how much time you have.", "It depends on your budget.", "1.667"),
    ("captions", "images", "A girl is riding a horse on a trail.", "A young woman rides a horse.", "3.200"),
    ("captions", "images", "An old man is reading a newspaper.", "A man reads a paper outside.", "2.500"),
]
HUB_FILES = {"train": ("train", TRAIN), "valid": ("validation", VALID)}  # our split → (hub split, rows)
TSV_FILES = {"train": ("train.tsv", TRAIN), "valid": ("dev.tsv", VALID)}
HEADER = ("index", "genre", "filename", "year", "old_index", "source1", "source2", "sentence1", "sentence2", "score")
GENRES = {  # GLUE's genre names; the forum genre is spelled differently in train and dev (genuine quirk)
    "train": {"captions": "main-captions", "news": "main-news", "forum": "main-forum"},
    "valid": {"captions": "main-captions", "news": "main-news", "forum": "main-forums"},
}


def write_parquet(path: Path, rows: list[tuple]) -> None:
    import datasets

    features = datasets.Features(
        {
            "sentence1": datasets.Value("string"),
            "sentence2": datasets.Value("string"),
            "label": datasets.Value("float32"),
            "idx": datasets.Value("int32"),
        }
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    columns = {
        "sentence1": [r[2] for r in rows],
        "sentence2": [r[3] for r in rows],
        "label": [float(r[4]) for r in rows],
        "idx": list(range(len(rows))),
    }
    datasets.Dataset.from_dict(columns, features=features).to_parquet(str(path))


def tsv_text(rows: list[tuple], split: str) -> str:
    """GLUE's STS-B TSV: the header row, then one tab-separated row per pair (``year``/``old_index`` invented)."""
    lines = ["\t".join(HEADER)]
    for i, (genre, source, s1, s2, score) in enumerate(rows):
        fields = (str(i), GENRES[split][genre], source, "2099test", f"{i:04d}", "none", "none", s1, s2, score)
        lines.append("\t".join(fields))
    return "\n".join(lines) + "\n"


def write_published(out: Path) -> Path:
    """The fixture's rows as GLUE's TSV release: ``out/train.tsv`` and ``out/dev.tsv``; returns ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    for split, (name, rows) in TSV_FILES.items():
        (out / name).write_text(tsv_text(rows, split), encoding="utf-8")
    return out


def write(out: Path) -> None:
    for hub_split, rows in HUB_FILES.values():
        write_parquet(out / "stsb" / f"{hub_split}-00000-of-00001.parquet", rows)
    write_manifest(
        out,
        "stsb",
        "Synthetic English sentence pairs written for lm-eval-enterprise (not from STS-B), laid out like the hub's "
        "parquet files of nyu-mll/glue config stsb: stsb/{train,validation}-00000-of-00001.parquet with columns "
        "sentence1, sentence2, label (float32 score), idx. Generated by tasks/nlu/stsb/make_fixture.py.",
        {split: len(rows) for split, (_, rows) in HUB_FILES.items()},
    )


if __name__ == "__main__":
    generator_main(write)
