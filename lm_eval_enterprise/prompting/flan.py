"""FLAN's instruction patterns as template text (the NLU suite's templates, ``tasks/nlu/<id>/templates.py``).

FLAN v2 (``google-research/FLAN``, file ``flan/v2/templates.py``, dict ``PATTERNS``; Apache-2.0; the file as of
commit :data:`FLAN_COMMIT`) writes a zero-shot pattern as a Python format string over the example's fields, e.g.
``"{sentence}\\n\\nHow would you consider the linguistic integrity of the preceding sentence?\\n{options_}"``, and
renders ``{options_}`` with ``flan/v2/preprocessors.py::format_options``: ``"OPTIONS:\\n- " + "\\n- ".join(options)``.
The patterns are data: each dataset's table quotes them verbatim, and :func:`jinja` turns one into the Jinja
``doc_to_text`` lm-eval renders, with the options block FLAN would have produced — a fixed label list
(:func:`options_block`) or the document's own options (:data:`CHOICES_BLOCK`). The Japanese tables use the same
shape with a Japanese heading (:data:`OPTIONS_HEADING`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

FLAN_REPO = "google-research/FLAN"
FLAN_FILE = "flan/v2/templates.py"
FLAN_COMMIT = "e9e4ec6e2701182c7a91af176f705310da541277"  # the file last changed in 2c79a31; Apache-2.0
FLAN_LICENSE = "Apache-2.0"

# the heading of FLAN's options block, per template language
OPTIONS_HEADING = {"en": "OPTIONS:", "ja": "選択肢："}

_FIELD = re.compile(r"\{(\w+)\}")


def options_block(options: Sequence[str], language: str = "en") -> str:
    """FLAN's ``format_options`` for a fixed option list: ``"OPTIONS:\\n- a\\n- b"`` (Japanese heading for ``ja``)."""
    if not options:
        raise ValueError("options_block: no options")
    return OPTIONS_HEADING[language] + "\n- " + "\n- ".join(options)


def choices_block(field: str = "choices", language: str = "en") -> str:
    """FLAN's options block over a document's own option list (Jinja: one ``- option`` line per entry of
    ``field``), for tasks whose options differ per document (CommonsenseQA)."""
    return OPTIONS_HEADING[language] + "{% for c in " + field + " %}\n- {{ c }}{% endfor %}"


CHOICES_BLOCK = choices_block()


def jinja(pattern: str, options: str = "", fields: Mapping[str, str] | None = None) -> str:
    """The Jinja ``doc_to_text`` of a FLAN pattern: every ``{name}`` becomes ``{{name}}`` (renamed through
    ``fields``, FLAN's field name → the record's), and ``{options_}`` becomes ``options`` (an
    :func:`options_block` or :func:`choices_block`). Trailing whitespace is dropped (lm-eval appends the target
    delimiter). A pattern naming ``{options_}`` without ``options``, or a literal ``{{``/``}}``, is refused."""
    if "{{" in pattern or "}}" in pattern:
        raise ValueError(f"FLAN pattern {pattern[:40]!r}…: literal braces are not supported")
    fields = dict(fields or {})

    def sub(m: re.Match) -> str:
        name = m.group(1)
        if name == "options_":
            if not options:
                raise ValueError(f"FLAN pattern {pattern[:40]!r}… needs its options block")
            return options
        return "{{" + fields.get(name, name) + "}}"

    return _FIELD.sub(sub, pattern).rstrip()
