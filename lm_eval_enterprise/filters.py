"""lm-eval filter: per-template answer extraction with a verbaliser and an explicit format-failure marker.

Used from every generate_until task YAML as::

    filter_list:
      - name: answer
        filter:
          - function: !function lm_eval_enterprise.filters.AnswerFilter
            regex_pattern: "(?i)^(yes|no)\\b"
            verbalise: true
          - function: take_first

The filter (1) strips the raw completion and cuts it at the stop sequence (API backends may run past it),
(2) applies the template's regex (``group`` 1 if the pattern has groups, else the whole match),
(3) with ``verbalise: true`` maps the extracted text to the document's canonical label (``doc["label_names"]``,
compared after [NORM], plus ``aliases``). When the regex does not match, or the text is no label, the output
is :data:`~lm_eval_enterprise.metrics.INVALID` — a format failure, counted as wrong by the metrics and as
``format_failure`` = 1 by :mod:`lm_eval_enterprise.hooks`.
"""
from __future__ import annotations

import re
from typing import Any, Iterable, Mapping, Sequence

from lm_eval.api.filter import Filter

from .metrics import INVALID
from .text import cut_at_stop, norm


def extract_answer(raw: str, pattern: re.Pattern, stop: str | None = "\n", labels: Sequence[str] | None = None,
                   aliases: Mapping[str, str] | None = None) -> str:
    """Pure core of :class:`AnswerFilter` (see the module docstring); returns INVALID on a format failure."""
    if not isinstance(raw, str):
        return INVALID
    text = cut_at_stop(raw, stop)
    m = pattern.search(text)
    if not m:
        return INVALID
    value = (m.group(1) if pattern.groups else m.group(0))
    value = (value or "").strip()
    if not value:
        return INVALID
    if labels is None:
        return value
    key = norm(value)
    for label in labels:
        if norm(label) == key:
            return label
    if aliases:
        target = {norm(a): lab for a, lab in aliases.items()}.get(key)
        if target is not None:
            return target
    return INVALID


class AnswerFilter(Filter):
    """Regex extraction + optional label verbaliser; see the module docstring."""

    def __init__(self, regex_pattern: str = r"(?s)^(.*)$", stop: str | None = "\n", verbalise: bool = False,
                 aliases: Mapping[str, str] | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.pattern = re.compile(regex_pattern)
        self.stop = stop
        self.verbalise = verbalise
        self.aliases = dict(aliases or {})

    def apply(self, resps: Iterable[Sequence[str]], docs: Sequence[dict]) -> list[list[str]]:
        out = []
        for inst_resps, doc in zip(resps, docs):
            labels = doc.get("label_names") if self.verbalise else None
            if self.verbalise and not labels:
                raise ValueError("AnswerFilter(verbalise=True) needs doc['label_names']; the loader did not set it")
            out.append([extract_answer(r, self.pattern, self.stop, labels, self.aliases) for r in inst_resps])
        return out
