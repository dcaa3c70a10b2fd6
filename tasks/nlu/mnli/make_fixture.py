#!/usr/bin/env python
"""Write the synthetic mnli fixture ``fixture/mnli/{train,validation_matched}-00000-of-00001.parquet``.

Laid out like the hub's parquet files of ``nyu-mll/glue``, config ``mnli`` (the loader's default layout, what a
download fetches), with its columns ``premise``, ``hypothesis``, ``label`` (ClassLabel ``entailment``/``neutral``/
``contradiction``) and ``idx``; written with ``datasets`` so that, as on the hub, the features are stored in each
file's ``huggingface`` schema metadata. :func:`write_published` writes the same rows as GLUE's TSV release:
``dev_matched.tsv`` with its 16 columns (``index promptID pairID genre sentence1_binary_parse
sentence2_binary_parse sentence1_parse sentence2_parse sentence1 sentence2 label1 … label5 gold_label``) and
``train.tsv`` with its 12 (``label1`` only), a premise opening with an unbalanced ``"`` (read with quoting
disabled; a quoting reader merges it with the rows after it) and a hypothesis ending in a space, as GLUE's first
dev row does. No genuine MNLI file was available: the layout follows the published column lists. The sentences,
ids and parses are invented for lm-eval-enterprise (nothing copied from MultiNLI; the parses are flat bracketings
of the words). Deterministic.

    .venv/bin/python tasks/nlu/mnli/make_fixture.py [--out DIR]
"""

from pathlib import Path

from lm_eval_enterprise.data import generator_main, write_manifest

GLUE_LABELS = ("entailment", "neutral", "contradiction")
# (genre, premise, hypothesis, gold label, annotator labels)
TRAIN = [
    ("fiction", "The lantern flickered as the wind rose outside.", "There was wind outside.", "entailment", ()),
    ("fiction", "She folded the letter twice before hiding it.", "She burned the letter.", "contradiction", ()),
    ("government", "The office is open on weekdays only.", "The office employs forty people.", "neutral", ()),
    ("government", "Applications must be filed by the end of May.", "There is a deadline.", "entailment", ()),
    (
        "travel",
        '"Follow the river and you will find it, the guide said.',
        "The guide gave no advice.",
        "contradiction",
        (),
    ),
    ("travel", "The hotel overlooks the old harbour.", "The hotel is expensive.", "neutral", ()),
]
VALID = [
    (
        "slate",
        "The new rules are clear enough for most readers.",
        "Everyone praises the new rules ",
        "neutral",
        ("neutral", "entailment", "neutral", "neutral", "neutral"),
    ),
    (
        "telephone",
        "yeah we drove up to the lake last summer",
        "They went to the lake.",
        "entailment",
        ("entailment", "entailment", "entailment", "neutral", "entailment"),
    ),
    (
        "fiction",
        "The old clock in the hall had stopped at noon.",
        "The clock was still running.",
        "contradiction",
        ("contradiction", "contradiction", "contradiction", "contradiction", "contradiction"),
    ),
    (
        "government",
        "The report recommends more funding for rural clinics.",
        "The report says rural clinics need no money.",
        "contradiction",
        ("contradiction", "contradiction", "neutral", "contradiction", "contradiction"),
    ),
    (
        "travel",
        "Ferries to the island leave every two hours in summer.",
        "There are ferries to the island.",
        "entailment",
        ("entailment", "entailment", "entailment", "entailment", "entailment"),
    ),
    (
        "slate",
        "The critic reviewed three films this week.",
        "The critic liked all three films.",
        "neutral",
        ("neutral", "neutral", "neutral", "contradiction", "neutral"),
    ),
]
HUB_FILES = {"train": ("train", TRAIN), "valid": ("validation_matched", VALID)}  # our split → (hub split, rows)
TSV_FILES = {"train": ("train.tsv", TRAIN), "valid": ("dev_matched.tsv", VALID)}
PARSE_COLUMNS = ("sentence1_binary_parse", "sentence2_binary_parse", "sentence1_parse", "sentence2_parse")
DEV_HEADER = (
    ("index", "promptID", "pairID", "genre", *PARSE_COLUMNS, "sentence1", "sentence2")
    + tuple(f"label{i}" for i in range(1, 6))
    + ("gold_label",)
)
TRAIN_HEADER = (
    "index",
    "promptID",
    "pairID",
    "genre",
    *PARSE_COLUMNS,
    "sentence1",
    "sentence2",
    "label1",
    "gold_label",
)


def write_parquet(path: Path, rows: list[tuple]) -> None:
    import datasets

    features = datasets.Features(
        {
            "premise": datasets.Value("string"),
            "hypothesis": datasets.Value("string"),
            "label": datasets.ClassLabel(names=list(GLUE_LABELS)),
            "idx": datasets.Value("int32"),
        }
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    columns = {
        "premise": [r[1] for r in rows],
        "hypothesis": [r[2] for r in rows],
        "label": [GLUE_LABELS.index(r[3]) for r in rows],
        "idx": list(range(len(rows))),
    }
    datasets.Dataset.from_dict(columns, features=features).to_parquet(str(path))


def _parses(sentence: str) -> tuple[str, str]:
    """A flat binary bracketing and a flat constituency parse of the words (invented, same shape as GLUE's)."""
    words = sentence.split()
    return "( " + " ".join(words) + " )", "(ROOT (S " + " ".join(f"(X {w})" for w in words) + "))"


def tsv_text(rows: list[tuple], split: str) -> str:
    """GLUE's MNLI TSV: the header row, then one tab-separated row per pair."""
    lines = ["\t".join(DEV_HEADER if split == "valid" else TRAIN_HEADER)]
    for i, (genre, premise, hypothesis, gold, votes) in enumerate(rows):
        prompt = 70000 + 10 * i + (split == "valid")
        (b1, p1), (b2, p2) = _parses(premise), _parses(hypothesis)
        labels = list(votes) if split == "valid" else [gold]
        fields = [str(i), str(prompt), f"{prompt}{gold[0]}", genre, b1, b2, p1, p2, premise, hypothesis, *labels, gold]
        lines.append("\t".join(fields))
    return "\n".join(lines) + "\n"


def write_published(out: Path) -> Path:
    """The fixture's rows as GLUE's TSV release: ``out/train.tsv`` and ``out/dev_matched.tsv``; returns ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    for split, (name, rows) in TSV_FILES.items():
        (out / name).write_text(tsv_text(rows, split), encoding="utf-8")
    return out


def write(out: Path) -> None:
    for hub_split, rows in HUB_FILES.values():
        write_parquet(out / "mnli" / f"{hub_split}-00000-of-00001.parquet", rows)
    write_manifest(
        out,
        "mnli",
        "Synthetic English premise/hypothesis pairs written for lm-eval-enterprise (not from MultiNLI), laid out "
        "like the hub's parquet files of nyu-mll/glue config mnli: mnli/{train,validation_matched}-00000-of-00001."
        "parquet with columns premise, hypothesis, label (ClassLabel entailment/neutral/contradiction), idx. "
        "Generated by tasks/nlu/mnli/make_fixture.py.",
        {split: len(rows) for split, (_, rows) in HUB_FILES.items()},
    )


if __name__ == "__main__":
    generator_main(write)
