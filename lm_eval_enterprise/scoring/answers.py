"""The reading of one completion as the metrics see it: :class:`ParsedAnswer` (what
:class:`lm_eval_enterprise.scoring.filters.AnswerFilter` returns) and HELM's whole-completion label rule.

Kept apart from the lm-eval filter so the process_results / aggregation functions (:mod:`lm_eval_enterprise.scoring.hooks`)
and the Sharpe tool that recomputes them import nothing of lm-eval.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..text import norm
from .metrics import INVALID


class ParsedAnswer(str):
    """The reading of one completion (a label, the completion itself, or :data:`INVALID`), as a ``str``.

    ``completion``: the completion cut at the stop sequence and stripped; ``adherent``: it fully matches the
    template's format regex.
    """

    completion: str
    adherent: bool

    def __new__(cls, value: str, completion: str, adherent: bool):
        obj = super().__new__(cls, value)
        obj.completion = completion
        obj.adherent = bool(adherent)
        return obj

    def __reduce__(self):  # pickling (multi-process gathers of logged samples)
        return (ParsedAnswer, (str(self), self.completion, self.adherent))

    @classmethod
    def of(cls, value: Any) -> ParsedAnswer:
        """``value`` as a ParsedAnswer. A plain string did not pass through :class:`AnswerFilter` (test doubles,
        synthetic runs): it stands for a completion that is exactly that answer, adherent iff it is readable;
        anything that is not a string is a format failure."""
        if isinstance(value, ParsedAnswer):
            return value
        if not isinstance(value, str):
            return cls(INVALID, "", False)
        return cls(value, "" if value == INVALID else value, value != INVALID)


def helm_label(completion: str, labels: Sequence[str]) -> str:
    """HELM's classification rule: the label whose [NORM] equals the [NORM] of the whole (stop-cut, stripped)
    completion, else :data:`INVALID`."""
    key = norm(completion)
    return next((lab for lab in labels if norm(lab) == key), INVALID) if completion else INVALID
