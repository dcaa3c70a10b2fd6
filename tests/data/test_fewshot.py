"""[BAL] class-balanced few-shot selection (lm_eval_enterprise/data/fewshot.py::helm_balanced)."""

import random
from collections import defaultdict
from itertools import cycle

import pytest

from lm_eval_enterprise.data.fewshot import helm_balanced


def _label(item):
    return item[1]


def _ids(items):
    return [i for i, _ in items]


# ------------------------------------------------------------------------------------- hand-worked example
#
# pool (loader order): n0 No, y0 Yes, n1 No, y1 Yes, m0 Maybe, y2 Yes, n2 No
# step 2 groups (pool order kept): No [n0, n1, n2], Yes [y0, y1, y2], Maybe [m0]
# step 3 sizes: 3 → labels sorted ["No", "Yes"], shuffled with Random(0): shuffle of 2 items draws
#        _randbelow(2) = 1 → swap x[1] with x[1] → unchanged ["No", "Yes"];
#        size 1 → ["Maybe"] (shuffle of one item draws nothing) → label order [No, Yes, Maybe]
# step 4 (the generator continues; randrange(n) == _randbelow(n), and randrange(1) DOES draw):
#   round 1: No    randrange(3) = 1 → n1   (No left [n0, n2])
#            Yes   randrange(3) = 0 → y0   (Yes left [y1, y2])
#            Maybe randrange(1) = 0 → m0   (Maybe empty)
#   round 2: No    randrange(2) = 1 → n2   (No left [n0])
#            Yes   randrange(2) = 1 → y2   (Yes left [y1])
#            Maybe empty → skipped (no draw)
#   round 3: No    randrange(1) = 0 → n0;  Yes randrange(1) = 0 → y1;  Maybe skipped; all empty → stop
# result: n1, y0, m0, n2, y2, n0, y1
HAND_POOL = [("n0", "No"), ("y0", "Yes"), ("n1", "No"), ("y1", "Yes"), ("m0", "Maybe"), ("y2", "Yes"), ("n2", "No")]
HAND_ORDER = ["n1", "y0", "m0", "n2", "y2", "n0", "y1"]


def test_hand_worked_example():
    assert _ids(helm_balanced(HAND_POOL, _label, 7)) == HAND_ORDER
    assert _ids(helm_balanced(HAND_POOL, _label, 5)) == HAND_ORDER[:5]
    assert _ids(helm_balanced(HAND_POOL, _label, 100)) == HAND_ORDER  # k > pool: every item once


def test_hand_worked_random_draws():
    # the draws quoted in the comment above, taken from a fresh Random(0) in the same call order
    rng = random.Random(0)
    assert rng._randbelow(2) == 1  # shuffle of ["No", "Yes"]
    assert [rng.randrange(3), rng.randrange(3), rng.randrange(1)] == [1, 0, 0]
    assert [rng.randrange(2), rng.randrange(2)] == [1, 1]
    assert [rng.randrange(1), rng.randrange(1)] == [0, 0]
    # randrange(1) consumes generator state (so an implementation that skips the draw for a group of one item
    # diverges from HELM); shuffling a single-item list does not
    a, b = random.Random(0), random.Random(0)
    a.randrange(1)
    assert a.getstate() != b.getstate()
    a = random.Random(0)
    a.shuffle(["x"])
    assert a.getstate() == b.getstate()


# ------------------------------------------------------------------------------------- independent reference
def helm_reference(items, key, k, seed=0):
    """Straight transcription of HELM ``InContextLearningAdapter.sample_examples`` (trial 0, every item labelled),
    using Python's GLOBAL ``random`` exactly as HELM does (state saved and restored around the call)."""
    saved = random.getstate()
    try:
        random.seed(seed)
        num = min(len(items), k)
        label_to_instances = defaultdict(list)
        for inst in items:
            label_to_instances[key(inst)].append(inst)
        counts_to_labels = defaultdict(list)
        for label, insts in sorted(label_to_instances.items(), key=lambda kv: kv[0]):
            counts_to_labels[len(insts)].append(label)
        sorted_labels = []
        for count in sorted(counts_to_labels, reverse=True):
            labels = counts_to_labels[count]
            random.shuffle(labels)
            sorted_labels.extend(labels)
        labels_iterable = cycle(sorted_labels)
        examples = []
        while num > 0:
            next_label = next(labels_iterable, None)
            if next_label is None:
                break
            insts = label_to_instances[next_label]
            if len(insts) == 0:
                continue
            examples.append(insts.pop(random.randrange(len(insts))))
            num -= 1
        return examples
    finally:
        random.setstate(saved)


def _random_pool(rng, n, labels):
    weights = [rng.random() + 0.05 for _ in labels]
    return [(f"i{j}", rng.choices(labels, weights)[0]) for j in range(n)]


POOL_CASES = [
    (n, labels, k)
    for n, labels, k in [
        (1, ["Yes", "No"], 1),
        (2, ["Yes", "No"], 5),
        (10, ["Yes", "No"], 5),
        (40, ["Yes", "No"], 5),
        (40, ["positive", "neutral", "negative"], 5),
        (60, list("ABCDE"), 2),
        (25, [f"t{c}" for c in range(9)], 20),
        (200, ["Yes", "No"], 256),
        (30, [str(c) for c in range(30)], 10),  # all distinct (generation reference keys)
    ]
]


@pytest.mark.parametrize("n, labels, k", POOL_CASES)
@pytest.mark.parametrize("case_seed", [1, 2, 3])
def test_matches_helm_reference(n, labels, k, case_seed):
    pool = _random_pool(random.Random(case_seed * 1000 + n), n, labels)
    assert _ids(helm_balanced(pool, _label, k)) == _ids(helm_reference(pool, _label, k))


def test_hand_example_matches_reference():
    assert _ids(helm_reference(HAND_POOL, _label, 7)) == HAND_ORDER


# ------------------------------------------------------------------------------------- properties
@pytest.mark.parametrize("case_seed", range(5))
def test_prefix_property(case_seed):
    # the first k items of a selection of n ≥ k items are the selection of k items: one ordered fewshot split
    # serves every --num_fewshot
    pool = _random_pool(random.Random(case_seed), 50, ["Yes", "No", "Maybe"])
    full = _ids(helm_balanced(pool, _label, len(pool)))
    assert sorted(full) == sorted(_ids(pool))  # a permutation of the pool
    for k in range(0, len(pool) + 1):
        assert _ids(helm_balanced(pool, _label, k)) == full[:k]


def test_both_classes_present_despite_imbalance():
    pool = [(f"n{j}", "No") for j in range(50)]
    pool.insert(37, ("y0", "Yes"))
    for k in (2, 5, 20):
        shots = helm_balanced(pool, _label, k)
        assert len(shots) == k
        # larger class first in the label order (sizes descending), then the minority class
        assert [lab for _, lab in shots[:2]] == ["No", "Yes"]
        assert [lab for _, lab in shots].count("Yes") == 1  # the only Yes; the rest cycle over No


def test_balanced_counts():
    # 3 classes with plenty of items: k = 7 → per class 3, 2, 2 in label order
    pool = _random_pool(random.Random(7), 90, ["a", "b", "c"])
    shots = helm_balanced(pool, _label, 7)
    counts = sorted(([lab for _, lab in shots].count(c) for c in "abc"), reverse=True)
    assert counts == [3, 2, 2]
    # the label sequence cycles: positions 0, 3, 6 share a label, as do 1, 4 and 2, 5
    labs = [lab for _, lab in shots]
    assert labs[0] == labs[3] == labs[6] and labs[1] == labs[4] and labs[2] == labs[5]
    assert len(set(labs[:3])) == 3


def test_deterministic_and_leaves_global_random_alone():
    pool = _random_pool(random.Random(11), 40, ["Yes", "No"])
    random.seed(12345)
    state = random.getstate()
    first = helm_balanced(pool, _label, 10)
    assert random.getstate() == state  # private Random(0): the global generator is untouched
    random.random()  # perturb the global generator: the result must not depend on it
    assert helm_balanced(pool, _label, 10) == first
    assert helm_balanced(list(pool), _label, 10) == first


def test_seed_changes_selection_and_input_is_not_mutated():
    pool = _random_pool(random.Random(5), 40, ["Yes", "No"])
    copy = list(pool)
    a = helm_balanced(pool, _label, 10, seed=0)
    b = helm_balanced(pool, _label, 10, seed=1)
    assert a != b
    assert pool == copy


def test_label_order_is_sorted_before_the_shuffle():
    # the same groups given in a different pool order must give the same label order (sorted, then shuffled):
    # groups of equal size a/b, items a0 a1 / b0 b1
    p1 = [("a0", "a"), ("a1", "a"), ("b0", "b"), ("b1", "b")]
    p2 = [("b0", "b"), ("a0", "a"), ("b1", "b"), ("a1", "a")]
    labs1 = [lab for _, lab in helm_balanced(p1, _label, 4)]
    labs2 = [lab for _, lab in helm_balanced(p2, _label, 4)]
    assert labs1 == labs2
    # within a group the pool order matters (index draws are positions in pool order)
    assert _ids(helm_balanced(p1, _label, 4)) == _ids(helm_reference(p1, _label, 4))
    assert _ids(helm_balanced(p2, _label, 4)) == _ids(helm_reference(p2, _label, 4))


def test_empty_pool_and_zero_k():
    assert helm_balanced([], _label, 5) == []
    assert helm_balanced(HAND_POOL, _label, 0) == []


def test_top_k_labels_counts_then_name():
    from lm_eval_enterprise.data.fewshot import top_k_labels

    # counts B=5, A=3, C=3, D=1 → B first; A and C tie at 3 → by name A, C; k=3 cuts D
    assert top_k_labels({"C": 3, "B": 5, "D": 1, "A": 3}, 3) == ["B", "A", "C"]
    assert top_k_labels({"x": 1}, 5) == ["x"]
    with pytest.raises(ValueError):
        top_k_labels({"x": 1}, 0)
