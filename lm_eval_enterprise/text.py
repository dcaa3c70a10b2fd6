"""Text helpers shared by loaders, filters, metrics and the Sharpe tool ([NORM], [TRUNC]: docs/conventions.md#norm,
#trunc; the natural sort order of template ids and document keys)."""

from __future__ import annotations

import re
import string
import unicodedata

_PUNCT_TABLE = str.maketrans("", "", string.punctuation)
_WS = re.compile(r"\s+")


def norm(text: str) -> str:
    """[NORM]: lower-case, delete every ``string.punctuation`` character, collapse whitespace, strip.

    HELM's ``normalize_text`` without article removal: ``norm(" The  Yes. ") == "the yes"``.
    """
    return _WS.sub(" ", str(text).lower().translate(_PUNCT_TABLE)).strip()


def fold_width(text: str) -> str:
    """[NORM] width folding: Unicode NFKC, so full-width letters, digits and signs read as their ASCII forms and
    half-width katakana as full-width (``fold_width("３番") == "3番"``, ``fold_width("ＡＢ") == "AB"``,
    ``fold_width("：") == ":"``); kana, kanji and 「」 are unchanged. Applied by the Japanese label reader
    ([PARSE-JA], to answer and labels), [SCORE] (both STS datasets) and [CHARF1] (to answer and reference);
    :func:`norm` does not fold widths."""
    return unicodedata.normalize("NFKC", str(text))


_EDGE = string.punctuation + " "


def norm_entity(text: str) -> str:
    """[NORM-E] entity-phrase key: lower-case, collapse whitespace, strip leading/trailing ``string.punctuation``
    and whitespace (repeatedly, until stable); characters inside the phrase are kept.

    ``norm_entity(" $1.5 ") == "1.5"``, ``norm_entity("15") != norm_entity("1.5")``,
    ``norm_entity("Acme,  Inc.") == "acme, inc"`` (unlike [NORM], which would give ``"15"`` and ``"acme inc"``).
    """
    return _WS.sub(" ", str(text).lower()).strip(_EDGE)


def collapse_ws(text: str) -> str:
    """Replace every whitespace run by one space and strip (``re.sub(r"\\s+", " ", s).strip()``)."""
    return _WS.sub(" ", str(text)).strip()


def truncate_words(text: str, n_words: int | None) -> str:
    """[TRUNC]: keep the first ``n_words`` whitespace-separated words (never the end).

    Text with at most ``n_words`` words is returned unchanged (its own whitespace kept); longer text is
    re-joined with single spaces. ``None`` disables truncation.
    """
    if n_words is None:
        return text
    words = str(text).split()
    if len(words) <= n_words:
        return text
    return " ".join(words[:n_words])


def natural_key(s: str) -> list:
    """Sort key with numbers compared as numbers (``t2`` < ``t10``): the order of template ids and document keys."""
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", str(s))]


def cut_at_stop(text: str, stop: str | None) -> str:
    """Strip a completion and cut it at the first stop sequence (what HF generation does with ``until``).

    API backends may return text past the stop sequence; cutting here makes every backend score alike. Trailing
    U+FFFD characters are dropped first: a completion cut at ``max_gen_toks`` inside a multi-byte character (a
    byte-level tokenizer on Japanese text) decodes its last bytes to the replacement character, which is no part
    of any answer (``cut_at_stop("梅雨前\ufffd", None) == "梅雨前"``).
    """
    text = str(text).strip().rstrip("\ufffd").strip()
    if stop and stop in text:
        text = text.split(stop, 1)[0].strip()
    return text
