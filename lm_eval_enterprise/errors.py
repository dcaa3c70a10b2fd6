"""The one exception type of the data layer (re-exported by :mod:`lm_eval_enterprise.data`)."""
from __future__ import annotations

import os


class DataError(RuntimeError):
    """A dataset cannot be loaded; the message is one line naming the dataset, the file and the problem."""

    def __init__(self, dataset: str, where: str | os.PathLike | None, problem: str):
        self.dataset, self.where, self.problem = dataset, str(where) if where else None, problem
        loc = f" {where}:" if where else ""
        super().__init__(f"[{dataset}]{loc} {problem}")
