"""The one exception type of the data layer (re-exported by :mod:`lm_eval_enterprise.data`), and its
once-per-process warnings."""

from __future__ import annotations

import logging
import os

_WARNED: set[str] = set()


def warn_once(logger: logging.Logger, msg: str, *args) -> None:
    """``logger.warning(msg, *args)`` unless the same text was already logged by this process: the data of one
    dataset is loaded once per subtask (gold_news: nine), and each load would repeat the same line."""
    text = msg % args if args else msg
    if text not in _WARNED:
        _WARNED.add(text)
        logger.warning(text)


def forget_warnings() -> None:
    """Let :func:`warn_once` log every text again (``data.clear_caches``: a fresh load says what it found)."""
    _WARNED.clear()


class DataError(RuntimeError):
    """A dataset cannot be loaded; the message is one line naming the dataset, the file and the problem."""

    def __init__(self, dataset: str, where: str | os.PathLike | None, problem: str):
        self.dataset, self.where, self.problem = dataset, str(where) if where else None, problem
        loc = f" {where}:" if where else ""
        super().__init__(f"[{dataset}]{loc} {problem}")
