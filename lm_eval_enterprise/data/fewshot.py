"""HELM class-balanced few-shot selection ([BAL], docs/conventions.md#bal).

lm-eval 0.4.13 has no class-balanced sampler, so every loader returns a ``fewshot`` split that is already in
[BAL] order; the task YAMLs use ``fewshot_config: {sampler: first_n}`` and therefore get exactly HELM's shots.
Taking items is sequential, so the first k items of ``helm_balanced(pool, key, n)`` are the same for every
n >= k: one ordered pool serves every ``--num_fewshot``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import TypeVar

T = TypeVar("T")


def helm_balanced(items: Sequence[T], key: Callable[[T], Hashable], k: int, seed: int = 0) -> list[T]:
    """Select ``k`` items from ``items`` the way HELM's ``InContextLearningAdapter.sample_examples`` does.

    1. ``rng = random.Random(seed)`` (HELM seeds the global ``random`` with 0; same call order here).
    2. Group items by ``key(item)``, keeping pool order inside each group.
    3. For each group size in descending order, take the labels of that size in sorted string order and shuffle
       them with ``rng``; the concatenation is the label order.
    4. Cycle over the label order; from each non-empty group remove the item at ``rng.randrange(len(group))``.
       Stop after ``k`` items or when every group is empty.
    Items are returned in the order they were taken.
    """
    rng = random.Random(seed)
    groups: dict[Hashable, list[T]] = {}
    for item in items:
        groups.setdefault(key(item), []).append(item)
    by_size: dict[int, list[Hashable]] = {}
    for label, group in groups.items():
        by_size.setdefault(len(group), []).append(label)
    order: list[Hashable] = []
    for size in sorted(by_size, reverse=True):
        labels = sorted(by_size[size], key=str)
        rng.shuffle(labels)
        order += labels
    groups = {label: list(group) for label, group in groups.items()}
    out: list[T] = []
    while len(out) < k and any(groups[label] for label in order):
        for label in order:
            if len(out) >= k:
                break
            group = groups[label]
            if group:
                out.append(group.pop(rng.randrange(len(group))))
    return out


def top_k_labels(counts: Mapping[str, int], k: int) -> list[str]:
    """Top-k class reduction (paper §4.1, datasets with > 20 classes): the ``k`` labels with the largest counts,
    ties broken by label name so the list is deterministic. Items of other labels are then removed by the loader.
    """
    if k <= 0:
        raise ValueError(f"k must be positive, not {k}")
    return [label for label, _ in sorted(counts.items(), key=lambda lc: (-lc[1], str(lc[0])))[:k]]
