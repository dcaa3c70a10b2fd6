"""Split recipes that several HELM scenarios share (one implementation each; docs/conventions.md#split-recipes,
each dataset README names its recipe).

* :func:`helm_ten_percent` — ``random.seed(seed); random.sample(range(n), floor(n / 10))``: the rows HELM moves
  from an all-test dataset to the few-shot pool (gold_news, edtsum).
* :func:`pandas_frac_split` — ``train = df.sample(frac, random_state=seed)``,
  ``test = df.drop(train.index).sample(frac=1, random_state=seed)``: HELM's pandas split (legal_summarization,
  sumo_claims with frac 0.2 and seed 0; cti_to_mitre with frac 0.7 and seed 42).
"""

from __future__ import annotations

import random


def helm_ten_percent(n: int, seed: int = 0) -> set[int]:
    """Indices of the ``floor(n / 10)`` rows HELM samples with Python's ``random`` seeded with ``seed``
    (a private ``random.Random(seed)`` makes the same draws as the seeded global module)."""
    return set(random.Random(seed).sample(range(n), n // 10))


def pandas_frac_split(df, frac: float, seed: int):
    """``(train, test)`` DataFrames: ``train = df.sample(frac=frac, random_state=seed)``; ``test`` = the other rows,
    shuffled with ``df.drop(train.index).sample(frac=1, random_state=seed)`` (HELM's exact calls and order)."""
    train = df.sample(frac=frac, random_state=seed)
    test = df.drop(train.index).sample(frac=1, random_state=seed)
    return train, test
