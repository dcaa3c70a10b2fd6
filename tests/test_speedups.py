"""The render speed-up of the task class must give exactly lm-eval's output (and the same errors), leave lm-eval's
own function alone, and be version-guarded."""

import jinja2
import lm_eval.utils as lm_utils
import pytest

from lm_eval_enterprise.prompting import speedups

TEMPLATES = [
    "Headline: {{text}}\nAnswer:",
    "{{ 1 if label == 'Yes' else 0 }}",
    "{% for c in choices %}{{ 'ABCDE'[loop.index0] }}. {{ c }}\n{% endfor %}Answer:",
    "{{ range(3) | list }} {{ dict(a=1) }} {{ text | upper }} {{ text | regex_replace('o', '0') }}|",
    "trailing newline kept\n",
]
DOCS = [{"text": "gold up", "label": "Yes", "choices": ["x", "y"]}, {"text": "", "label": "No", "choices": []}]


def test_same_output_as_lm_eval_renderer():
    assert speedups.enabled()
    original = lm_utils.apply_template
    for t in TEMPLATES:
        for d in DOCS:
            assert speedups.render(t, d) == lm_utils.env.from_string(t).render(**d) == original(t, d)
    assert lm_utils.apply_template is original and not hasattr(original, "_lmee_cached")  # nothing replaced


def test_errors_still_raise():
    with pytest.raises(jinja2.exceptions.UndefinedError):
        speedups.render("{{ missing }}", {"text": "a"})  # StrictUndefined, as in lm-eval


@pytest.mark.parametrize(
    "lm_eval_version,switch,expected",
    [("0.4.13", None, True), ("0.4.13", "0", False), ("0.4.14", None, False), ("0.5.0", "1", False)],
)
def test_version_guard_and_switch(monkeypatch, lm_eval_version, switch, expected):
    import lm_eval

    monkeypatch.setattr(lm_eval, "__version__", lm_eval_version)
    if switch is None:
        monkeypatch.delenv(speedups.ENV_SWITCH, raising=False)
    else:
        monkeypatch.setenv(speedups.ENV_SWITCH, switch)
    speedups.enabled.cache_clear()
    try:
        assert speedups.enabled() is expected
        assert speedups.render("a {{text}}", {"text": "b"}) == "a b"  # either path renders the same
    finally:
        monkeypatch.undo()
        speedups.enabled.cache_clear()
