"""The render speed-up must give exactly lm-eval's output (and the same errors)."""
import jinja2
import pytest

import lm_eval.utils as lm_utils
from lm_eval_enterprise.speedups import install

TEMPLATES = [
    "Headline: {{text}}\nAnswer:",
    "{{ 1 if label == 'Yes' else 0 }}",
    "{% for c in choices %}{{ 'ABCDE'[loop.index0] }}. {{ c }}\n{% endfor %}Answer:",
    "{{ range(3) | list }} {{ dict(a=1) }} {{ text | upper }} {{ text | regex_replace('o', '0') }}|",
]
DOCS = [{"text": "gold up", "label": "Yes", "choices": ["x", "y"]}, {"text": "", "label": "No", "choices": []}]


def test_same_output_as_lm_eval_renderer():
    install()
    original = lambda t, d: lm_utils.env.from_string(t).render(**d)  # noqa: E731  (lm-eval's own body)
    for t in TEMPLATES:
        for d in DOCS:
            assert lm_utils.apply_template(t, d) == original(t, d)
    assert lm_utils.apply_template._lmee_cached


def test_errors_still_raise():
    install()
    with pytest.raises(jinja2.exceptions.UndefinedError):
        lm_utils.apply_template("{{ missing }}", {"text": "a"})  # StrictUndefined, as in lm-eval
