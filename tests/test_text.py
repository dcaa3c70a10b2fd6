"""[NORM], [TRUNC] and the stop-sequence cut of lm_eval_enterprise/text.py (docs/conventions.md#norm, #trunc)."""

import string

import pytest

from lm_eval_enterprise.text import collapse_ws, cut_at_stop, fold_width, norm, truncate_words


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("Yes", "yes"),
        (" The  Yes. ", "the yes"),  # articles are NOT removed (HELM classification metric)
        ("Positive!!!", "positive"),
        ("no\tentities\n", "no entities"),  # whitespace runs (tabs, newlines) → one space; stripped
        ("N/A", "na"),  # "/" is punctuation: removed, not replaced by a space
        ("U.S.-based", "usbased"),
        ("a (b) [c] {d}", "a b c d"),
        ("", ""),
        ("   ", ""),
        ("don’t", "don’t"),  # typographic apostrophe is not in string.punctuation: kept
        ("ÉLAN", "élan"),
    ],
)
def test_norm(raw, expected):
    assert norm(raw) == expected


def test_norm_removes_exactly_string_punctuation():
    assert norm(string.punctuation) == ""
    assert norm("x" + string.punctuation + "y") == "xy"


def test_norm_non_str_and_idempotent():
    assert norm(1.5) == "15"  # str() first; "." removed
    for s in [" The  Yes. ", "A, B; C", "x\ny"]:
        assert norm(norm(s)) == norm(s)


def test_collapse_ws():
    assert collapse_ws("  a \n\t b  c ") == "a b c"
    assert collapse_ws("") == ""


def test_truncate_words_keeps_the_beginning():
    text = "one two  three\nfour five"
    assert truncate_words(text, 3) == "one two three"  # first 3 words, re-joined with single spaces
    assert truncate_words(text, 5) is text  # ≤ N words: unchanged, own whitespace kept
    assert truncate_words(text, 10) is text
    assert truncate_words(text, None) is text  # None disables
    assert truncate_words(text, 0) == ""
    assert "five" not in truncate_words(text, 4)  # never keeps the end


@pytest.mark.parametrize(
    "raw, stop, expected",
    [
        (" Yes\nNo", "\n", "Yes"),  # strip, then cut at the first stop
        (" Yes", "\n", "Yes"),
        ("Yes\n\nmore", "\n\n", "Yes"),
        ("a\nb\n\nc", "\n\n", "a\nb"),  # a longer stop keeps single newlines
        ("Yes\nNo", None, "Yes\nNo"),  # no stop: only stripped
        ("Yes\nNo", "", "Yes\nNo"),
        ("  Yes  \n", "\n", "Yes"),  # the trailing newline is stripped before the search
        ("Yes ###", "###", "Yes"),  # text before the stop is stripped again
    ],
)
def test_cut_at_stop(raw, stop, expected):
    assert cut_at_stop(raw, stop) == expected


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("３番", "3番"),  # full-width digits → ASCII
        ("ＡＢｃ", "ABc"),  # full-width letters → ASCII, case kept
        ("答え：３．５", "答え:3.5"),  # full-width colon and full stop → ASCII
        ("ｶﾀｶﾅ", "カタカナ"),  # half-width katakana → full-width
        ("「知識」です。", "「知識」です。"),  # kana, kanji, corner brackets and 。 unchanged
        ("\u3000x", " x"),  # ideographic space → space
        ("plain ASCII", "plain ASCII"),
    ],
)
def test_fold_width_is_nfkc(raw, expected):
    assert fold_width(raw) == expected
