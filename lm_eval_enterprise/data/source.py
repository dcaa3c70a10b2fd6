"""The :class:`Source` model: what one dataset's loader (``tasks/<domain>/<id>/source.py``) declares and implements,
the record fields shared by every dataset of a task type (:func:`mc_fields`, :func:`option_fields`) and the row checks loaders share
(:func:`require_columns`, :func:`require_text`).

A Source knows only its own source format: the files to fetch (:attr:`Source.files` / :meth:`Source.download`),
the conversion of those files to the common record schema with the split recipe (:meth:`Source.convert`), the
pre-split rows' conversion (:meth:`Source.convert_presplit`) and the expected counts (:attr:`Source.expected_rows`).
Locating, checking, caching and serving the data is the rest of :mod:`lm_eval_enterprise.data`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from .. import families
from ..errors import DataError
from .checks import MANIFEST, CountCheck, Rows, as_rows, check_count, manifest_rows
from .download import RemoteFile, download_url

log = logging.getLogger("lm_eval_enterprise.data")


MC_LETTERS = "ABCDEFGHIJ"  # option letters of multiple-choice records ([ACC]: A–J, assigned by position)


def mc_fields(record: dict) -> dict:
    """The fields the ``multiple_choice`` task family needs, added to a multiple-choice record
    ``{id, question, choices, answer}`` (docs/conventions.md#records; a Source whose family has ``records="choices"``):

    * ``label_names`` = the option letters ``["A", …]`` (one per choice): the ``AnswerFilter`` verbaliser set;
    * ``answer_letter`` = the letter of ``answer`` (0-based index into ``choices``): compared with the filtered
      letter by :func:`lm_eval_enterprise.scoring.hooks.multiple_choice` and used as the YAML's ``doc_to_target``;
    * ``n_options`` = ``len(choices)`` (k of the uniform accuracy baseline 1/k).

    ``{"choices": ["x", "y", "z"], "answer": 2}`` → ``label_names ["A", "B", "C"]``, ``answer_letter "C"``,
    ``n_options 3``. Raises ``ValueError`` for more than 10 choices or an answer outside the choices.
    """
    import operator

    choices, answer = record["choices"], record["answer"]
    k = len(choices)
    if not 1 <= k <= len(MC_LETTERS):
        raise ValueError(f"multiple-choice record {record.get('id')!r}: {k} choices (1–{len(MC_LETTERS)} allowed)")
    try:
        answer = operator.index(answer) if not isinstance(answer, bool) else None  # int, numpy int; not bool/str
    except TypeError:
        answer = None
    if answer is None or not 0 <= answer < k:
        raise ValueError(
            f"multiple-choice record {record.get('id')!r}: answer {record['answer']!r} is not an "
            f"index of its {k} choices"
        )
    return {**record, "label_names": list(MC_LETTERS[:k]), "answer_letter": MC_LETTERS[answer], "n_options": k}


def option_fields(record: dict) -> dict:
    """The fields the ``choice_text`` task family needs, added to a multiple-choice record whose answer is the
    option's text ``{id, question, choices, answer}`` (a Source whose family has ``records="options"``):

    * ``label_names`` = the option texts (the ``AnswerFilter`` label set of this document);
    * ``label_aliases`` = each option's letter (``A``…) and 1-based number (``1``…) → its text: an answer may name
      the option instead of repeating it;
    * ``answer_text`` = the text of ``answer`` (0-based index), the YAML's ``doc_to_target``; ``answer_letter``
      and ``n_options`` as :func:`mc_fields` gives them.

    ``{"choices": ["bank", "library"], "answer": 1}`` → ``label_names ["bank", "library"]``, ``label_aliases
    {"A": "bank", "B": "library", "1": "bank", "2": "library"}``, ``answer_text "library"``. The checks of
    :func:`mc_fields` apply; an option that is not a non-empty string raises ``ValueError``.
    """
    out = mc_fields(record)
    choices = list(record["choices"])
    if any(not isinstance(c, str) or not c.strip() for c in choices):
        raise ValueError(f"multiple-choice record {record.get('id')!r}: an option is not a non-empty string")
    aliases = {**{MC_LETTERS[i]: c for i, c in enumerate(choices)}, **{str(i + 1): c for i, c in enumerate(choices)}}
    return {
        **out,
        "label_names": choices,
        "label_aliases": aliases,
        "answer_text": choices[MC_LETTERS.index(out["answer_letter"])],
    }


class Source:
    """Base class of a dataset's loader. Subclasses set the class attributes and implement :meth:`convert`.

    ``convert(raw_dir)`` turns the files of the source layout into ``{split: [record, ...]}`` in the common record
    schema (docs/conventions.md#records) applying the split recipe; ``convert_presplit(rows)`` maps rows of
    the pre-split layout with the same per-row code. Records must have a string ``id`` (or ``qid`` for ranking).
    """

    id: str = ""
    domain: str = ""
    task_type: str = ""  # the task family (a record of lm_eval_enterprise.families), e.g. classification_weighted
    files: tuple[RemoteFile, ...] = ()  # the source layout: what download() fetches
    # a known fact about the source added to every download failure (a host gone for good, a gated repository)
    download_note: str = ""
    # per split after the recipe: verified(n, evidence) — counted on a genuine file, a mismatch is an error — or
    # unverified(n | None, evidence) — a mismatch is a warning (lm_eval_enterprise.data.checks); every split declared
    expected_rows: dict[str, Rows] = {}
    labels: tuple[str, ...] = ()  # classification label set (canonical spelling, spec order)
    positive_label: str | None = None  # binary F1 tasks
    # datasets made of several questions about each item (gold_news): one task, documents = item × question
    subtasks: tuple[str, ...] = ()
    eval_split: str = "test"
    # split evaluated instead when every record of eval_split lacks a gold answer (e.g. an unlabelled test release);
    # the task YAML of such a dataset reads the split "eval", which the data layer fills with the chosen one
    eval_fallback: str | None = None
    fewshot_source_split: str = "train"
    # True: convert() already chose the shots and returns the pool split in [BAL] selection order (e.g. a dataset
    # whose few-shot pool is "k rows chosen by [BAL] from all rows"); the fewshot split keeps that order as is
    fewshot_preordered: bool = False
    # True: a data folder may hold the evaluated split alone (a zero-shot benchmark, e.g. the NLU suite, whose
    # genuine samples of SQuAD, JNLI and JSQuAD hold no training file); the few-shot pool is then empty and a run
    # asking for shots fails with one line (lm_eval_enterprise.harness.task)
    fewshot_optional: bool = False

    # -- what subclasses implement ------------------------------------------------------------------------------
    def download(self, dest: Path, progress: bool = True) -> None:
        """Fetch the source layout into ``dest`` (default: every :attr:`files` URL)."""
        for f in self.files:
            download_url(f.url, dest / f.name, self.id, f.sha256, progress, note=self.download_note)

    def convert(self, raw_dir: Path) -> dict[str, list[dict]]:
        raise NotImplementedError

    def convert_presplit(self, rows: dict[str, list[dict]], data_dir: Path) -> dict[str, list[dict]]:
        raise DataError(
            self.id,
            data_dir,
            f"this dataset has no pre-split layout; provide the source files {[f.name for f in self.files]}",
        )

    def map_presplit(
        self, rows: dict[str, list[dict]], data_dir: Path, convert: Callable[[dict, str], dict | None]
    ) -> dict[str, list[dict]]:
        """Every split's rows of the pre-split layout through ``convert(row, where)`` (``where``:
        ``<data_dir>/<split>.jsonl:<n>``, the row's number in the file as :meth:`check_presplit_rows` names it, so a
        bad gold label, a missing column or a NaN is named with its line), with :func:`map_rows`."""
        return {
            split: map_rows(
                list(enumerate(rs, 1)),
                lambda item, s=split: convert(item[1], f"{data_dir}/{s}.jsonl:{item[0]}"),
                self.id,
                split,
            )
            for split, rs in rows.items()
        }

    def check_presplit_rows(
        self,
        rows: list[dict],
        data_dir: Path,
        split: str,
        ok: Callable[[dict], bool],
        problem: str | Callable[[dict], str],
    ) -> None:
        """The rows of one pre-split file (``<data_dir>/<split>.jsonl``) must all pass ``ok``; the first that does
        not is one :class:`DataError` naming the file and its line (``train.jsonl:3``) and ``problem`` (a string,
        or a function of the offending row giving it)."""
        bad = next((i for i, r in enumerate(rows) if not ok(r)), None)
        if bad is not None:
            message = problem(rows[bad]) if callable(problem) else problem
            raise DataError(self.id, data_dir / f"{split}.jsonl:{bad + 1}", message)

    def fewshot_key(self, record: dict) -> Any:
        """[BAL] label key: the class label for classification, the reference string otherwise."""
        for field in ("label", "target", "answer", "summary"):
            if field in record:
                return record[field]
        raise KeyError("fewshot_key: record has no label/target field; override fewshot_key")

    def select(self, splits: dict[str, list[dict]], subtask: str | None) -> dict[str, list[dict]]:
        """Records of one subtask (identity for datasets without subtasks)."""
        if subtask:
            raise DataError(self.id, None, f"unknown subtask {subtask!r} (dataset has none)")
        return splits

    def subtasks_present(self, splits: dict[str, list[dict]]) -> tuple[str, ...]:
        """The :attr:`subtasks` this copy of the data (converted splits) has labels for (default: all)."""
        return self.subtasks

    def finalize(self, record: dict) -> dict:
        """Add the fields every task of this type needs (label set, positive label)."""
        kind = families.get(self.task_type, f"task_type of {self.id}").records
        if kind == "labels":
            record = {**record, "label_names": list(self.labels)}
            if self.positive_label is not None:
                record["positive_label"] = self.positive_label
        elif kind == "choices":
            record = mc_fields(record)
        elif kind == "options":
            record = option_fields(record)
        return record

    # what one unit of the evaluation order is, for the task metadata (``eval_order.unit``)
    eval_unit: str = "document"

    def eval_stratum(self, record: dict) -> Any:
        """The gold label that stratifies the evaluation order (:mod:`lm_eval_enterprise.data.order`): the class
        label of a record of a labelled family (``Family.records == "labels"``: the classification families),
        ``None`` (no stratification: a seeded shuffle) otherwise. Override for a dataset whose documents carry
        another gold key (the value must be hashable)."""
        fam = families.find(self.task_type)
        return record.get("label") if fam is not None and fam.records == "labels" else None

    def eval_group(self, record: dict) -> Any:
        """The unit of the evaluation order a record belongs to (records with the same key stay together, in their
        order): records of a family whose unit is the query (ranking) are grouped by ``qid``; ``None`` — every other
        record is a unit of its own."""
        return record.get("qid") if families.uses_query_units(self.task_type) else None

    def fewshot_transform(self, record: dict) -> dict:
        """Applied to few-shot examples only (e.g. shorter truncation of long documents in shots)."""
        return record

    def task_metadata(self, splits: dict[str, list[dict]]) -> dict[str, Any]:
        """Facts computed from the loaded data that results must record (e.g. finer139's top-10 tag list).

        ``splits`` is :func:`load_records`' output. The task class merges the returned dict (via
        :func:`load_task_data`) into the ``metadata`` of the lm-eval task that loads the data, so it lands in
        ``results["configs"][task]["metadata"]`` and runs on different data are told apart. Default: nothing.
        """
        return {}

    # -- shared machinery ---------------------------------------------------------------------------------------
    def has_source_layout(self, d: Path) -> bool:
        return bool(self.files) and all((d / f.name).exists() for f in self.files)

    def expected_for(self, data_dir: Path) -> dict[str, Rows]:
        """Expected counts for this folder: its ``MANIFEST.json`` (exact, as verified) or :attr:`expected_rows`."""
        manifest = data_dir / MANIFEST
        if manifest.exists():
            return manifest_rows(manifest, self.id)
        return {s: as_rows(r) for s, r in self.expected_rows.items()}

    def check_rows(
        self, splits: dict[str, list[dict]], data_dir: Path, provided: Iterable[str] | None = None
    ) -> list[CountCheck]:
        """Compare every split's count with :meth:`expected_for` (:func:`~lm_eval_enterprise.data.checks.check_count`:
        verified mismatch → error, unverified → warning). ``provided``: the splits a pre-split folder holds (an
        absent file is not a count of 0); ``None`` (source layout): a missing expected split counts 0 rows."""
        expected = self.expected_for(data_dir)
        names = list(expected) + [s for s in splits if s not in expected]
        if provided is not None:
            names = [s for s in names if s in set(provided)]
        return [check_count(self.id, s, len(splits.get(s, [])), expected.get(s), data_dir) for s in names]


def map_rows(rows: list[dict], fn: Callable[[dict], dict | None], dataset: str, where: str) -> list[dict]:
    """Apply a row→record function; a row the recipe drops returns None and is counted in the log."""
    out = [r for r in (fn(row) for row in rows) if r is not None]
    if len(out) != len(rows):
        log.info("[%s] %s: %d of %d rows dropped by the recipe", dataset, where, len(rows) - len(out), len(rows))
    return out


def require_columns(row: dict, columns: Iterable[str], dataset: str, where: Any) -> None:
    """A source row must hold every one of ``columns``; else one :class:`DataError` line listing the missing ones
    and the row's own keys (``row lacks columns ['index'] (has ['answer', 'text'])``)."""
    missing = [c for c in columns if c not in row]
    if missing:
        raise DataError(dataset, where, f"row lacks columns {missing} (has {sorted(row)})")


def require_text(value: Any, dataset: str, where: Any, problem: str) -> str:
    """``value`` when it is a string with a non-space character; else one :class:`DataError` line ``problem``."""
    if not isinstance(value, str) or not value.strip():
        raise DataError(dataset, where, problem)
    return value
