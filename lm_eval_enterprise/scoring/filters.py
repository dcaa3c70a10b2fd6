"""lm-eval filter: one answer-reading rule per dataset ([PARSE]) plus each template's exact answer format.

Used from every generate_until task YAML as::

    filter_list:
      - name: answer
        filter:
          - function: !function lm_eval_enterprise.scoring.filters.AnswerFilter
            reader: label                      # label | entity | kpi | number | text (from the task family)
            format_regex: " ?([Yy]es|[Nn]o)"   # the exact format this template asks for
            stop: "\\n"
            lead_ins: [Answer, Label, A]       # output fields of ALL templates of the dataset
          - function: take_first

Two things are computed from the completion, cut at the stop sequence and stripped:

* **the reading** (what is scored) — the same rule for every template of a dataset, so template scores differ by
  wording only, never by parser leniency ([PARSE]):

  - ``label`` (classification, multiple choice, generated yes/no ranking), labels = ``doc["label_names"]``:
    repeatedly drop leading markdown / quotes / brackets (``* _ ` " ' “ ” ‘ ’ « » ( [ { # >``) and a leading
    lead-in — an output field of any template of the dataset or a :data:`GENERIC_FIELDS` name followed by ``:``,
    or a :data:`GENERIC_PHRASES` phrase (``The answer is``) — case-insensitively; then the answer is the
    **longest** label the text starts with as a whole word (case-insensitive, whitespace inside a label
    flexible); otherwise a format failure, never another label (``Answer: E`` is E, ``not positive`` fails).
    Option letters are labels too, so ``(B)``, ``B)``, ``B.``, ``B:`` read as B. A field lead-in that is itself a
    label is dropped only when its colon is followed by a further answer (``Answer: initiate`` with ``answer``
    among the options reads initiate; ``answer`` and ``Answer:`` read answer). A label is also read without the
    leading wrappers and trailing quotes of its published text (:func:`unwrapped_label`: ``‘知識`` from ``知識``).
    Japanese ([PARSE-JA]): answer and labels width-folded (NFKC), a label closed by quotes / brackets and an
    optional copula, an option number with an optional counter (``3番です``).
  - ``entity`` / ``kpi`` (NER lists): the metric's own parser (:func:`metrics.parse_entities` with the task's
    type table / :func:`metrics.parse_kpi`) decides; the reading is the completion itself, a format failure
    iff the parser finds nothing readable (returns ``None``) or the completion has no letter or digit at all.
  - ``number`` (convfinqa): the completion itself, a failure iff it has no [FEQ] number and no word yes/no (the
    two gold forms); [FEQ] then reads its first number, exactly as HELM scores the whole completion.
  - ``text`` (summarization): the completion itself, a failure iff it has no letter or digit.

  A format failure is the string :data:`~lm_eval_enterprise.scoring.metrics.INVALID`, counted wrong by the metrics
  and as ``format_failure`` = 1 by :mod:`lm_eval_enterprise.scoring.hooks`.

* **format adherence** — 1 iff the completion fully matches the template's own answer regex (the exact format
  the template asks for, Sakai et al. 2024), reported as ``format_adherence``; it never changes the score.

The filter returns :class:`~lm_eval_enterprise.scoring.answers.ParsedAnswer` strings: the reading, carrying the completion and the adherence flag
for :mod:`lm_eval_enterprise.scoring.hooks` (logged samples show the plain reading).

**Format regexes** (``Template.regex``, also in the task metadata ``answer_regex``) are written for
regex-constrained decoders (xgrammar, outlines) as well: no lookarounds, no backreferences, no inline flags
(case variants spelled out, e.g. ``[Yy]es``), no ``\\b``. They describe the completion as generated: an
optional single leading space (`` ?``; completions after ``"Answer:"`` usually start with one) and no stop
sequence. Data-dependent label sets are placeholders filled per document by :func:`render_format_regex`:
``{LABELS}`` (``doc["label_names"]``) and ``{TYPES}`` (``doc["entity_types"]``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any

from lm_eval.api.filter import Filter

from ..text import cut_at_stop, fold_width, norm
from . import metrics as M
from .answers import ParsedAnswer, helm_label  # noqa: F401  (helm_label: read here by templates' tests)
from .metrics import INVALID

# ------------------------------------------------------------------------------------------------ the reading
# characters that wrap or introduce an answer: markdown emphasis / code / headings / quotes, quotes, brackets
# (Japanese corner brackets and full-width parentheses included)
WRAPPERS = "*_`\"'“”‘’«»([{#> \t\n「『（【\u3000"
# characters that close a wrapped answer or end its sentence (stripped from the end of a span reading)
CLOSERS = "*_`\"'“”‘’«»)]}」』）】 \t\n\u3000.,;:!?。、，！？"
# closing quotes a published label may end with (a stray quote of the data: JCommonsenseQA's option "教養’")
LABEL_END_QUOTES = "\"'“”‘’«»」』"
# field names any template may echo, followed by ":" (the dataset adds its templates' own output fields)
GENERIC_FIELDS = (
    "answer",
    "final answer",
    "label",
    "output",
    "prediction",
    "category",
    "classification",
    "sentiment",
    "response",
    "result",
)
# lead-in phrases, optionally followed by ":"
GENERIC_PHRASES = (
    "the answer is",
    "the correct answer is",
    "the final answer is",
    "my answer is",
    "answer is",
    "the label is",
    "the correct label is",
    "the category is",
    "the sentiment is",
    "the correct option is",
)


# Japanese ([PARSE-JA]): the field names and lead-in phrases a Japanese answer may start with (a field is
# followed by ":" or "："), and the copulas that may follow a label word directly ("中立です", "容認できるだ"):
# Japanese has no word boundaries, so a label is read when the next character is not a letter or digit, or
# starts one of these; "含意しない" (does not entail) is a format failure, never the label 含意
GENERIC_FIELDS_JA = ("答え", "回答", "解答", "正解", "答", "ラベル", "出力", "判定", "結果", "類似度", "スコア")
GENERIC_PHRASES_JA = ("答えは", "正解は", "回答は", "解答は", "判定は", "類似度は", "スコアは")
COPULAS_JA = ("でしょう", "でした", "です", "である", "だ")
# what may close a wrapped Japanese label before its copula: quotes, corner brackets, markdown emphasis ("「矛盾」です",
# "**含意**"); consumed whole, so "「矛盾」ではない" is no answer (not ")" or spaces: "C) マザーボード" names option C)
LABEL_CLOSERS_JA = "*_`\"'“”‘’«»」』】"
# counters that may follow an option's number in Japanese ("3番です", "3番目", "3つ目": "number 3", "the third")
COUNTERS_JA = ("番目", "つ目", "番")
LANGUAGES = ("en", "ja")


def _words(text: str) -> str:
    """Regex source of a literal phrase, case-insensitive via the compile flag, whitespace runs flexible."""
    return r"\s+".join(re.escape(w) for w in text.split())


def unwrapped_label(label: str) -> str:
    """``label`` as the reader sees an answer: without the leading :data:`WRAPPERS` it drops from every answer and
    without trailing :data:`LABEL_END_QUOTES` (``"‘知識"`` → ``"知識"``, ``"教養’"`` → ``"教養"``); a label read
    under this spelling too, since a stray quote of the published data would otherwise make it unreadable."""
    return label.lstrip(WRAPPERS).rstrip(LABEL_END_QUOTES)


_DIGITS = re.compile(r"[0-9]+")


@lru_cache(maxsize=256)
def _label_index(labels: tuple[str, ...], aliases: tuple[tuple[str, str], ...], language: str = "en"):
    """(pattern, norm(key) → canonical label) for a label set and its aliases (an alias maps to its target's
    spelling in ``labels``); a label whose :func:`unwrapped_label` differs is an alias of itself under that
    spelling. The pattern's group ``label`` tries the longest key first, case-insensitively (a one-letter alias,
    an option letter, in its own case); the key must not be followed by a letter or digit (a whole word) — in
    Japanese, after closing quotes or brackets (:data:`LABEL_CLOSERS_JA`, all of them) and an optional copula of
    :data:`COPULAS_JA` (``中立です。`` and ``「中立」です`` read 中立; ``矛盾だとは言えない``, ``「矛盾」ではない`` and
    ``含意しない`` read nothing). In Japanese keys are width-folded (:func:`~lm_eval_enterprise.text.fold_width`,
    as the answer is) and a number key may also be followed by a counter of :data:`COUNTERS_JA` (group
    ``number``: ``3番です`` reads the key ``3``)."""
    fold = fold_width if language == "ja" else str
    unwrapped = tuple((u, lab) for lab in labels if (u := unwrapped_label(lab)) and u != lab)
    aliases = (*aliases, *unwrapped)
    by_norm = {norm(fold(lab)): lab for lab in labels}  # a real label wins over an alias of the same [NORM]
    for alias, target in aliases:
        by_norm.setdefault(norm(fold(alias)), by_norm.get(norm(fold(target)), target))
    keys = list(dict.fromkeys(fold(k) for k in (*labels, *(alias for alias, _ in aliases))))
    # a one-letter alias (an option letter) is read in its own case only: "a library" is no answer "A"
    letter_aliases = {fold(a) for a, _ in aliases if len(a) == 1 and a.isalpha()} - {fold(lab) for lab in labels}
    alts = "|".join(
        f"(?-i:{re.escape(k)})" if k in letter_aliases else _words(k) for k in sorted(keys, key=len, reverse=True)
    )
    if language == "en":
        return re.compile(rf"(?P<label>{alts})(?![^\W_])", re.I), by_norm
    end = f"[{re.escape(LABEL_CLOSERS_JA)}]*+(?:{'|'.join(COPULAS_JA)})?(?![^\\W_])"
    numbers = "|".join(sorted((k for k in keys if _DIGITS.fullmatch(k)), key=len, reverse=True))
    counted = f"|(?P<number>{numbers})(?:{'|'.join(COUNTERS_JA)}){end}" if numbers else ""
    return re.compile(rf"(?:(?P<label>{alts}){end}{counted})", re.I), by_norm


@lru_cache(maxsize=64)
def _lead_in_pattern(fields: tuple[str, ...], language: str = "en") -> re.Pattern:
    generic_fields = (*GENERIC_FIELDS, *GENERIC_FIELDS_JA) if language == "ja" else GENERIC_FIELDS
    generic_phrases = (*GENERIC_PHRASES, *GENERIC_PHRASES_JA) if language == "ja" else GENERIC_PHRASES
    names = sorted({norm_field(f) for f in (*generic_fields, *fields)} - {""}, key=len, reverse=True)
    phrases = sorted(generic_phrases, key=len, reverse=True)
    # a phrase ends at a word boundary in English; a Japanese phrase ("答えは") is followed by anything
    phrase_end = "(?![^\\W_])" if language == "en" else ""
    return re.compile(
        rf"(?P<lead>{'|'.join(_words(f) for f in names)})\s*[:：]\s*"
        rf"|(?P<phrase>{'|'.join(_words(p) for p in phrases)}){phrase_end}\s*[:：]?\s*",
        re.I,
    )


def norm_field(field: str) -> str:
    """A field name as a lead-in: lower-case, whitespace collapsed, no trailing colon (ASCII or full-width)."""
    return " ".join(str(field).lower().rstrip().rstrip(":：").split())


_BULLET = re.compile(r"^[-•・]\s+")  # a list bullet echoed from an options block ("- acceptable")


def strip_lead_ins(
    text: str,
    lead_ins: Sequence[str] = (),
    keep: Mapping[str, str] | None = None,
    language: str = "en",
    wrappers: str = WRAPPERS,
) -> str:
    """``text`` without its leading ``wrappers`` (default :data:`WRAPPERS`), list bullets (``- ``) and lead-ins (an
    output field of any template of the dataset or a generic field followed by a colon, or a generic phrase such
    as "The answer is"), dropped repeatedly until stable; a lead-in whose [NORM] is a key of ``keep`` (a label) is
    kept (:func:`read_label` decides whether it is the answer)."""
    lead_re = _lead_in_pattern(tuple(lead_ins), language)
    prev = None
    while text != prev:
        prev = text
        text = _BULLET.sub("", text.lstrip(wrappers))
        m = lead_re.match(text)
        if m and norm(m.group("lead") or m.group("phrase")) not in (keep or {}):
            text = text[m.end() :]
    return text


def read_label(
    text: str,
    labels: Sequence[str],
    lead_ins: Sequence[str] = (),
    aliases: Mapping[str, str] | None = None,
    language: str = "en",
) -> str | None:
    """[PARSE] for a label set (see the module docstring); ``text`` is already stop-cut and stripped.

    Returns the canonical label (its spelling in ``labels``; an alias maps to its target), or ``None``. A field
    lead-in that is itself a label (``answer`` among CommonsenseQA's options) is a lead-in when its colon is
    followed by a further answer (``Answer: initiate`` reads initiate, ``Answer: answer`` answer); otherwise it is
    that label (``Answer``, ``Answer:``, ``Answer: no idea`` read answer, as does ``The answer is``).
    """
    pattern, by_norm = _label_index(tuple(labels), tuple((aliases or {}).items()), language)
    if language == "ja":
        text = fold_width(text)  # full-width digits and letters read as ASCII ones ("３" is 3), as the keys are
    text = strip_lead_ins(text, lead_ins, by_norm, language)
    field = _lead_in_pattern(tuple(lead_ins), language).match(text)
    if field and field.group("lead"):  # a field kept by strip_lead_ins: a label, then ":"
        further = read_label(text[field.end() :], labels, lead_ins, aliases, language)
        if further is not None:
            return further
    m = pattern.match(text)
    return by_norm[norm(m.group("label") or m.group("number"))] if m else None


_YES_NO = re.compile(r"\b(?:yes|no)\b", re.I)
_WORD_CHAR = re.compile(r"[^\W_]")


def _label_reading(
    text: str, doc: Mapping[str, Any], lead_ins: Sequence[str], aliases: Mapping[str, str], language: str = "en"
) -> str | None:
    labels = doc.get("label_names")
    if not labels:
        raise ValueError("AnswerFilter(reader='label') needs doc['label_names']; the loader did not set it")
    if doc.get("label_aliases"):  # per-document aliases (an option's letter or number → its text)
        aliases = {**doc["label_aliases"], **aliases}
    return read_label(text, labels, lead_ins, aliases, language)


# [SCORE] the first number of the answer (after NFKC: full-width digits read as ASCII ones), once statements of the
# scale itself are removed ("on a scale from 0 to 5", "out of 5", "5点満点中", "0から5のうち" …)
_SCORE_NUMBER = re.compile(r"(?<![\d.])[-+]?\d+(?:\.\d+)?")
_SCALE = re.compile(
    r"(?:on\s+a\s+scale\s+(?:of|from)\s+)?(?<![\d.])0\s*(?:-|–|to|～|~|から)\s*5(?![\d.])"
    r"(?:\s*(?:の|で)?(?:うち|中で|段階で|点で))?"
    r"|\bout\s+of\s+5(?![\d.])|/\s*5(?![\d.])|\d+\s*(?:点満点中|点満点で|段階中|段階で)",
    re.I,
)
# the names of the pair's fields, echoed from the prompt ("Sentence 1: …", "文1：…"): their digit is not a score
_PAIR_FIELD = re.compile(r"(?:\bsentence|文)\s*[12](?!\d|\.\d)", re.I)  # not "sentence 1.5"
# a kanji numeral standing as the answer (after a colon, は, a space or punctuation, before 点, a copula or the
# end), never one inside a word: この二つの文 ("these two sentences") holds no score
_KANJI_SCORE = re.compile(r"(?:^|(?<=[\s:：は、。,.「『(（]))([〇零一二三四五])(?=\s*(?:点|です|だ|[。.、,」』)）]|$))")
_KANJI_DIGITS = str.maketrans("〇零一二三四五", "0012345")


def read_score(text: str) -> str | None:
    """[SCORE] (STS-B, JSTS): the first number of the width-folded answer (NFKC, :func:`fold_width`) once statements
    of the scale (:data:`_SCALE`) and echoed field names of the pair (:data:`_PAIR_FIELD`) are removed:
    ``"３.５点"`` → ``"3.5"``, ``"Similarity: 4 out of 5"`` → ``"4"``, ``"5点満点中3点"`` → ``"3"``,
    ``"0から5のうち3"`` → ``"3"``, ``"文1：白い犬"`` → ``None``; an answer without a digit reads a kanji numeral
    〇–五 that stands alone (:data:`_KANJI_SCORE`: ``"四"``, ``"答え：四点"`` → ``"4"``; ``"この二つの文"`` → ``None``);
    ``None`` when it holds no number. The metric clips it to [0, 5]
    (:func:`lm_eval_enterprise.scoring.metrics.similarity_prediction`)."""
    text = _PAIR_FIELD.sub(" ", _SCALE.sub(" ", fold_width(text)))
    m = _SCORE_NUMBER.search(text)
    if m is not None:
        return m.group(0)
    m = _KANJI_SCORE.search(text.strip())
    return m.group(1).translate(_KANJI_DIGITS) if m else None


def _score_reading(
    text: str, doc: Mapping[str, Any], lead_ins: Sequence[str], aliases: Mapping[str, str], language: str = "en"
) -> str | None:
    return read_score(text)


_COPULA_END = re.compile(rf"(?:{'|'.join(COPULAS_JA)})[。．.!！]*$")
_MARKDOWN = "*_`#> \t\n\u3000"  # what a span may be wrapped in besides quotes (which the metrics normalise)


def read_span(text: str, lead_ins: Sequence[str] = (), language: str = "en") -> str | None:
    """[SPAN] (extractive QA): the stop-cut answer without its lead-ins (:func:`strip_lead_ins`, markdown wrappers
    only: quotes and brackets stay, since an answer may be a bracketed phrase — the metrics normalise reference
    and answer alike) and without trailing markdown; in Japanese also without a closing copula and sentence-final
    punctuation (``「梅雨前線」です。`` → ``「梅雨前線」``). ``None`` (a format failure) when no letter or digit of
    :data:`SPAN_LETTERS` is left."""
    span = strip_lead_ins(text, lead_ins, None, language, wrappers=_MARKDOWN).rstrip(_MARKDOWN)
    if language == "ja":
        span = _COPULA_END.sub("", span).rstrip("。．" + _MARKDOWN)
    return span if _SPAN_CHAR.search(span) else None


def _span_reading(
    text: str, doc: Mapping[str, Any], lead_ins: Sequence[str], aliases: Mapping[str, str], language: str = "en"
) -> str | None:
    return read_span(text, lead_ins, language)


def _entity_list(text: str, doc: Mapping[str, Any]) -> bool:
    return M.parse_entities(text, M.entity_type_table(doc["entity_types"])) is not None


def _kpi_list(text: str, doc: Mapping[str, Any]) -> bool:
    return M.parse_kpi(text) is not None


def _number_or_yes_no(text: str, doc: Mapping[str, Any]) -> bool:
    return M.first_number(text) is not None or _YES_NO.search(text) is not None


def _any_text(text: str, doc: Mapping[str, Any]) -> bool:
    return True


def _completion_if(check: Callable[[str, Mapping[str, Any]], bool]) -> Callable[..., str | None]:
    """A reader whose reading is the completion itself when it holds a letter or digit and ``check`` accepts it. A
    completion without any letter or digit answers nothing: a format failure for every such reader (the [EF1]
    parser alone would read ``"#### ????"``, whose [NORM] is empty, as the empty list)."""

    def read(
        text: str, doc: Mapping[str, Any], lead_ins: Sequence[str], aliases: Mapping[str, str], language: str = "en"
    ) -> str | None:
        return text if _WORD_CHAR.search(text) is not None and check(text, doc) else None

    return read


# reader name (the field ``reader`` of the family registry, lm_eval_enterprise.families) → function (stop-cut,
# stripped completion, document, lead-ins, aliases) → the reading, or None for a format failure (module docstring)
READERS: dict[str, Callable[..., str | None]] = {
    "label": _label_reading,
    "entity": _completion_if(_entity_list),
    "kpi": _completion_if(_kpi_list),
    "number": _completion_if(_number_or_yes_no),
    "text": _completion_if(_any_text),
    "score": _score_reading,
    "span": _span_reading,
}


def readable(reader: str, text: str, doc: Mapping[str, Any]) -> bool:
    """Whether ``reader`` reads anything from the stop-cut, stripped completion (module docstring)."""
    if reader not in READERS:
        raise ValueError(f"unknown answer reader {reader!r} (one of {', '.join(READERS)})")
    return READERS[reader](text, doc, (), {}) is not None


# ------------------------------------------------------------------------------------------------ format regexes
PLACEHOLDERS = {"{LABELS}": "label_names", "{TYPES}": "entity_types"}
_REGEX_SPECIAL = set(r"\.^$*+?()[]{}|")


def escape_literal(text: str) -> str:
    """Escape only regex metacharacters (``re.escape`` also escapes spaces, ``&``, ``-``…, which some
    constrained-decoding regex dialects reject)."""
    return "".join("\\" + ch if ch in _REGEX_SPECIAL else ch for ch in str(text))


def render_format_regex(pattern: str, doc: Mapping[str, Any]) -> str:
    """The template's format regex for one document: ``{LABELS}`` / ``{TYPES}`` become the alternation of the
    document's ``label_names`` / ``entity_types``, each escaped, longest first. Pure; a pattern without
    placeholders is returned unchanged."""
    for placeholder, field in PLACEHOLDERS.items():
        if placeholder in pattern:
            values = doc.get(field)
            if not values:
                raise ValueError(f"format regex {pattern!r} needs doc[{field!r}], which this document lacks")
            pattern = pattern.replace(placeholder, _alternation(tuple(values)))
    return pattern


@lru_cache(maxsize=256)
def _alternation(values: tuple[str, ...]) -> str:
    return "|".join(escape_literal(v) for v in sorted(values, key=lambda v: (-len(v), v)))


_NOT_FOR_DECODERS = re.compile(r"\(\?[=!<]|\(\?P?[<=]|\(\?[aiLmsux-]+[):]|\\[1-9]|\\[bBAZz]|\(\?P=")


def check_format_regex(pattern: str) -> str:
    """Raise ValueError if ``pattern`` uses what regex-constrained decoders reject (lookarounds, backreferences,
    inline flags, ``\\b``/anchors) or does not compile once rendered; return it unchanged."""
    bad = _NOT_FOR_DECODERS.search(pattern)
    if bad:
        raise ValueError(
            f"format regex {pattern!r}: {bad.group(0)!r} is not usable by constrained decoders "
            "(no lookarounds, backreferences, inline flags, \\b or anchors)"
        )
    probe = {field: ["x"] for field in PLACEHOLDERS.values()}
    re.compile(render_format_regex(pattern, probe))
    return pattern


@lru_cache(maxsize=4096)
def _compiled(rendered: str) -> re.Pattern:
    return re.compile(rendered)


def adheres(completion: str, pattern: str | None, doc: Mapping[str, Any]) -> bool:
    """1 iff the stop-cut, stripped completion fully matches the rendered format regex (False without one)."""
    if not pattern:
        return False
    return _compiled(render_format_regex(pattern, doc)).fullmatch(completion) is not None


def _case_initial(label: str) -> str:
    head, tail = label[:1], escape_literal(label[1:])
    if head.lower() != head.upper():
        return f"[{head.upper()}{head.lower()}]{tail}"
    return escape_literal(head) + tail


def label_format(labels: Iterable[str], *, start: bool = False, exact_case: bool = False) -> str:
    """Format regex "one of these labels" with an optional leading space: the first letter in either case (or
    spelled exactly as given, ``exact_case``), optionally only ``start``-ing the answer (then anything on the
    line after a non-alphanumeric character)."""
    spell = escape_literal if exact_case else _case_initial
    alts = "|".join(spell(lab) for lab in sorted(labels, key=lambda v: (-len(v), v)))
    return f" ?({alts})" + ("([^A-Za-z0-9].*)?" if start else "")


# free text (summaries, titles): at least one letter or digit; LINE_FORMAT on a single line
TEXT_FORMAT = r" ?(.|\n)*[A-Za-z0-9](.|\n)*"
LINE_FORMAT = r" ?[^\n]*[A-Za-z0-9][^\n]*"
# an extractive answer: one line holding a letter or digit of the Latin or Japanese script (kana, kanji, full-width
# letters and digits), written as literal ranges so that every constrained-decoding engine reads the class
SPAN_LETTERS = (
    "0-9A-Za-z\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff"  # Latin (with accents), Greek, Cyrillic
    "\u3041-\u30ff\u3400-\u9fff\uff10-\uff19\uff21-\uff3a\uff41-\uff5a"  # kana, kanji, full-width
)
SPAN_FORMAT = rf" ?[^\n]*[{SPAN_LETTERS}][^\n]*"
_SPAN_CHAR = re.compile(f"[{SPAN_LETTERS}]")  # the letters SPAN_FORMAT asks for: reading and format agree
# a similarity score on the 0–5 scale: an integer or a decimal ("3", "3.8")
SCORE_FORMAT = r" ?([0-5](\.[0-9]+)?)"


def words_format(max_words: int) -> str:
    """One line of at most ``max_words`` space-separated words, the first holding a letter or digit."""
    return rf" ?[^ \n]*[A-Za-z0-9][^ \n]*( [^ \n]+){{0,{max_words - 1}}}"


def list_format(item: str, empty: str | None = None) -> str:
    """``item, item, …`` (comma + space between items) or the ``empty`` answer, with an optional leading space."""
    alts = f"{item}(, {item})*" + (f"|{empty}" if empty else "")
    return f" ?({alts})"


def entity_item(types: str) -> str:
    """One [EF1] list item ``phrase (type)``; ``types`` is a regex alternation (e.g. ``person|location`` or
    ``{TYPES}``). Use with :func:`list_format`."""
    return rf"[^()\n]+ \(({types})\)"


# ------------------------------------------------------------------------------------------------ lm-eval Filter
class AnswerFilter(Filter):
    """[PARSE] reading + format adherence per completion; see the module docstring."""

    def __init__(
        self,
        reader: str = "text",
        format_regex: str | None = None,
        stop: str | None = "\n",
        lead_ins: Sequence[str] = (),
        aliases: Mapping[str, str] | None = None,
        language: str = "en",
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        if reader not in READERS:
            raise ValueError(f"AnswerFilter: unknown reader {reader!r} (one of {', '.join(READERS)})")
        if language not in LANGUAGES:
            raise ValueError(f"AnswerFilter: unknown language {language!r} (one of {', '.join(LANGUAGES)})")
        self.language = language
        self.reader = reader
        self.format_regex = check_format_regex(format_regex) if format_regex else None
        self.stop = stop
        self.lead_ins = tuple(lead_ins)
        self.aliases = dict(aliases or {})

    def read(self, raw: Any, doc: Mapping[str, Any]) -> ParsedAnswer:
        """The reading of one completion for one document."""
        if not isinstance(raw, str):
            return ParsedAnswer(INVALID, "", False)
        text = cut_at_stop(raw, self.stop)
        adherent = adheres(text, self.format_regex, doc)
        value = READERS[self.reader](text, doc, self.lead_ins, self.aliases, self.language)
        return ParsedAnswer(INVALID if value is None else value, text, adherent)

    def apply(self, resps: Iterable[Sequence[str]], docs: Sequence[dict]) -> list[list[ParsedAnswer]]:
        return [[self.read(r, doc) for r in inst_resps] for inst_resps, doc in zip(resps, docs)]
