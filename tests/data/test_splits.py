"""Shared split recipes (lm_eval_enterprise.data.splits) against the literal HELM calls."""

import random

import pandas as pd

from lm_eval_enterprise.data.splits import helm_ten_percent, pandas_frac_split


def test_helm_ten_percent_equals_seeded_global_random():
    random.seed(0)
    expected = set(random.sample(range(2000), 200))
    assert helm_ten_percent(2000) == expected
    assert len(helm_ten_percent(19)) == 1 and helm_ten_percent(9) == set()


def test_pandas_frac_split_is_helm_calls_and_partitions_rows():
    df = pd.DataFrame({"x": range(50)})
    train, test = pandas_frac_split(df, 0.2, 0)
    exp_train = df.sample(frac=0.2, random_state=0)
    exp_test = df.drop(exp_train.index).sample(frac=1, random_state=0)
    assert list(train.index) == list(exp_train.index) and list(test.index) == list(exp_test.index)
    assert len(train) == 10 and sorted(list(train.index) + list(test.index)) == list(range(50))
