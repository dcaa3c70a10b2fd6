"""Shared code of the pointwise yes/no ranking datasets (fiqa_qa, insurance_qa): BM25, candidate lists,
flattening to (query, candidate) pair documents, and a :class:`RankingSource` base for their loaders.

Record shapes (docs/conventions.md#records):

* ranking record (what ``convert()`` returns, one per query):
  ``{qid, question, candidates: [{docid, text}], relevant: [docid]}``;
* pair document (what the lm-eval tasks see, one per (query, candidate), query-major):
  ``{qid, docid, question, passage, label: "Yes"|"No", cand_index}`` (+ ``label_names`` for the answer filter).

Candidate list of an eval query (size C = 20): the relevant documents (first 10 in the dataset's order), then
non-relevant documents in ranked order (BM25 for fiqa_qa, the Solr pool for insurance_qa) until C is reached,
then ``random.Random(f"{qid}").shuffle``. Few-shot pool: per train query one (query, relevant) pair and one
(query, top-ranked non-relevant) pair, selected by [BAL] over Yes/No in :mod:`lm_eval_enterprise.data`.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Iterable, Sequence

from ..scoring.filters import label_format
from ..text import truncate_words
from . import Source

CANDIDATES = 20  # C: candidates per eval query
RELEVANT_CAP = 10  # at most this many relevant candidates per query
SHOT_WORDS = 200  # [TRUNC] of passages in few-shot blocks
YES, NO = "Yes", "No"

_TOKEN = re.compile(r"[a-z0-9]+")


# ------------------------------------------------------------------------------------------------ BM25
def tokenize(text: str) -> list[str]:
    """BM25 tokens: lower-case, then every maximal run of ``[a-z0-9]`` (no stemming, no stop words).

    ``tokenize("Roth-IRA's 2024 limit?") == ["roth", "ira", "s", "2024", "limit"]``; non-ASCII letters split tokens.
    """
    return _TOKEN.findall(str(text).lower())


class BM25:
    """Okapi BM25 over a fixed corpus (k1 = 0.9, b = 0.4 by default, the Anserini/Pyserini BEIR setting).

    score(q, d) = Σ_{t ∈ q} idf(t) · tf(t,d)·(k1 + 1) / (tf(t,d) + k1·(1 − b + b·|d|/avgdl)),
    idf(t) = ln(1 + (N − df(t) + 0.5) / (df(t) + 0.5)); |d| = number of tokens of d, avgdl = mean |d|.
    A query token that occurs twice counts twice (the sum runs over query tokens, as in Lucene and
    ``rank_bm25``); tokens absent from the corpus contribute 0. The (k1 + 1) factor is a constant per corpus and
    does not change rankings. Scores are computed with a sparse document × term weight matrix (scipy).
    """

    def __init__(self, texts: Sequence[str], k1: float = 0.9, b: float = 0.4):
        import numpy as np
        from scipy.sparse import csr_matrix

        self.k1, self.b, self.n_docs = k1, b, len(texts)
        vocab: dict[str, int] = {}
        indptr, indices, counts, lengths = [0], [], [], []
        for text in texts:
            toks = tokenize(text)
            lengths.append(len(toks))
            for term, c in Counter(toks).items():
                indices.append(vocab.setdefault(term, len(vocab)))
                counts.append(c)
            indptr.append(len(indices))
        self.vocab = vocab
        tf = np.asarray(counts, dtype=np.float64)
        cols = np.asarray(indices, dtype=np.int64)
        dl = np.asarray(lengths, dtype=np.float64)
        self.avgdl = float(dl.mean()) if len(dl) and dl.mean() > 0 else 1.0
        df = np.bincount(cols, minlength=len(vocab)).astype(np.float64)
        self.idf = np.log1p((self.n_docs - df + 0.5) / (df + 0.5))
        norm = k1 * (1.0 - b + b * dl / self.avgdl)
        per_entry_norm = np.repeat(norm, np.diff(np.asarray(indptr)))
        weights = self.idf[cols] * tf * (k1 + 1.0) / (tf + per_entry_norm)
        self._w = csr_matrix((weights, cols, np.asarray(indptr)), shape=(self.n_docs, len(vocab))).tocsc()

    def scores(self, query: str):
        """BM25 score of every corpus document for ``query`` (numpy array of length N)."""
        import numpy as np

        q = Counter(t for t in tokenize(query) if t in self.vocab)
        if not q:
            return np.zeros(self.n_docs)
        cols = [self.vocab[t] for t in q]
        return np.asarray(self._w[:, cols] @ np.asarray([q[t] for t in q], dtype=np.float64)).ravel()

    def top(self, query: str, k: int, exclude: Iterable[int] = ()) -> list[int]:
        """Indices of the ``k`` best documents, by score descending, ties by corpus position; ``exclude`` skipped."""
        import numpy as np

        s = self.scores(query).copy()
        excluded = sorted(set(exclude))
        if excluded:
            s[excluded] = -np.inf
        k = min(k, self.n_docs - len(excluded))
        if k <= 0:
            return []
        threshold = s[np.argpartition(-s, k - 1)[:k]].min()
        cand = np.flatnonzero(s >= threshold)  # every document tied at the threshold is a contender
        order = cand[np.lexsort((cand, -s[cand]))]  # score descending, then corpus position
        return [int(i) for i in order[:k]]


# ------------------------------------------------------------------------------------------------ candidates
def natural_id_key(docid: str) -> tuple:
    """Order of document ids: numeric ids by value (``"9" < "10"``), before any non-numeric id (by string)."""
    s = str(docid)
    return (0, int(s), "") if s.isdigit() else (1, 0, s)


def candidate_ids(
    qid: str, relevant: Sequence[str], ranked: Iterable[str], size: int = CANDIDATES, relevant_cap: int = RELEVANT_CAP
) -> list[tuple[str, bool]]:
    """The shuffled candidate list of one query as ``(docid, is_relevant)`` pairs.

    ``relevant`` in the dataset's order (the first ``relevant_cap`` are kept); ``ranked`` = documents in
    retrieval order, of which the ones not in ``relevant`` (all of them, kept or not) and not seen before fill
    the list up to ``size``. The list is then shuffled with ``random.Random(f"{qid}")``. Fewer than ``size``
    candidates are returned only when ``ranked`` runs out.
    """
    all_rel = set(relevant)
    kept = list(dict.fromkeys(relevant))[:relevant_cap]
    out = [(d, True) for d in kept]
    seen = set(kept)
    for d in ranked:
        if len(out) >= size:
            break
        if d in all_rel or d in seen:
            continue
        seen.add(d)
        out.append((d, False))
    random.Random(f"{qid}").shuffle(out)
    return out


def ranking_record(qid: str, question: str, cands: Sequence[tuple[str, bool]], texts) -> dict:
    """Ranking record from ``(docid, is_relevant)`` candidates and a docid → text mapping."""
    return {
        "qid": str(qid),
        "question": question,
        "candidates": [{"docid": str(d), "text": texts[d]} for d, _ in cands],
        "relevant": [str(d) for d, rel in cands if rel],
    }


def flatten(record: dict) -> list[dict]:
    """Pair documents of one ranking record, in candidate order (``cand_index`` = position in the list)."""
    relevant = set(record["relevant"])
    return [
        {
            "qid": record["qid"],
            "docid": c["docid"],
            "question": record["question"],
            "passage": c["text"],
            "label": YES if c["docid"] in relevant else NO,
            "cand_index": i,
        }
        for i, c in enumerate(record["candidates"])
    ]


def flatten_all(records: Iterable[dict]) -> list[dict]:
    """Pair documents of many ranking records, query-major (the lm-eval doc order; --limit must be k·C)."""
    return [pair for rec in records for pair in flatten(rec)]


# ------------------------------------------------------------------------------------------------ Source base
class RankingSource(Source):
    """Base of the ranking loaders: ``convert()`` returns ranking records per split (row counts = queries);
    :meth:`select` flattens them into pair documents; shots get [TRUNC] to :data:`SHOT_WORDS` words."""

    task_type = "ranking"
    eval_unit = "query"  # the evaluation order keeps a query's candidates together (Source.eval_group)
    labels = (YES, NO)
    shot_words = SHOT_WORDS

    def select(self, splits: dict[str, list[dict]], subtask: str | None) -> dict[str, list[dict]]:
        super().select(splits, subtask)  # rejects subtasks
        return {split: flatten_all(recs) for split, recs in splits.items()}

    def finalize(self, record: dict) -> dict:
        # label_names: the label set the answer filter of the generation-based variant reads ([PARSE])
        return {**record, "label_names": list(self.labels)}

    def fewshot_key(self, record: dict):
        return record["label"]

    def fewshot_transform(self, record: dict) -> dict:
        return {**record, "passage": truncate_words(record["passage"], self.shot_words)}


# ---------------------------------------------------------------------------------------------------- task tables
# the answer format every ranking template asks for (generation-based table: format_adherence; [PARSE] reads
# yes/no with the label rule, the same for all templates)
YES_NO_FORMAT = label_format((YES, NO))


def ranking_task_tables(source: type, templates: list, num_fewshot: int = 5, primary_metric: str = "rr_at_10") -> list:
    """The two template tables of a pointwise yes/no ranking dataset, over the same prompts:

    * ``ent_<dataset>`` (in the domain group): log-probability scoring (HELM binary ranking), one lm-eval doc per
      (query, candidate), ``multiple_choice`` over [No, Yes] (index 0 = No), ranking key from ℓY and ℓN;
    * ``ent_<dataset>_gen`` (standalone group): the model *generates* yes/no, for backends without
      log-probabilities; a different measurement, never pooled with the first table.
    """
    from dataclasses import replace

    from ..prompting.templating import DatasetTasks

    common = dict(
        source=source, primary_metric=primary_metric, num_fewshot=num_fewshot, candidates_per_query=CANDIDATES
    )
    return [
        DatasetTasks(
            **common,
            family="ranking",
            output_type="multiple_choice",
            templates=[replace(t, choices=(NO, YES)) for t in templates],
            doc_to_target="{{ 1 if label == 'Yes' else 0 }}",
            extra_metadata={"scoring": "loglikelihood"},
        ),
        DatasetTasks(
            **common,
            family="ranking_generate",
            variant="gen",
            in_domain_group=False,
            templates=list(templates),
            max_gen_toks=5,
            until=("\n",),
            extra_metadata={"scoring": "generate"},
        ),
    ]
