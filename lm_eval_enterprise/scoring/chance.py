"""What a metric scores by chance: the expected score of an uninformative predictor, the baselines b of the Sharpe
score (docs/sharpe.md#baselines: the methods, the table per metric, the formulas). One formula per function, stated
in its docstring; pure functions on counts and texts, no I/O. The Sharpe tool chooses which one applies to a row and
feeds it the row's label information (:mod:`lm_eval_enterprise.sharpe.baselines`).

``uniform``: a uniformly random valid label per document (never an invalid string); ``majority``: always the most
frequent gold label (ties → first in the label list). Every function is exact (no Monte-Carlo) unless its name says
``simulated``; the simulated versions check the exact ones. ROUGE's ``lead-K`` baseline is the ROUGE of the lead-K
summary (:func:`lead_baseline`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from .metrics import average_f1, f1_finalize, ndcg, reciprocal_rank, rouge

SIMULATION_DRAWS = 10_000


# ----------------------------------------------------------------------------------------------------- accuracy
def uniform_accuracy(k: int) -> float:
    """Exactly 1/k for k valid labels/options."""
    if k < 1:
        raise ValueError("uniform_accuracy: need at least one option")
    return 1.0 / k


def majority_share(counts: Sequence[int]) -> float:
    """p_max = max_j n_j / N (accuracy of always predicting the majority class)."""
    n = sum(counts)
    if n <= 0:
        raise ValueError("majority baseline: no gold labels")
    return max(counts) / n


def majority_index(counts: Sequence[int]) -> int:
    """Index of the most frequent class; ties → the first in label order."""
    return list(counts).index(max(counts))


# ----------------------------------------------------------------------------------------------------- F1
def _binom_pmf_range(n: int, q: float) -> tuple[np.ndarray, np.ndarray]:
    """(values, pmf) of Bin(n, q), restricted to mean ± 12 sd (+10) when n is large (outside mass < 1e-30)."""
    from scipy.stats import binom

    if n <= 2000:
        lo, hi = 0, n
    else:
        m, sd = n * q, math.sqrt(n * q * (1 - q))
        lo, hi = max(0, int(m - 12 * sd - 10)), min(n, int(m + 12 * sd + 10))
    x = np.arange(lo, hi + 1)
    return x, binom.pmf(x, n, q)


@lru_cache(maxsize=4096)
def expected_f1_class(n_j: int, n_total: int, k: int) -> float:
    """Exact E[F1_j] of class j (n_j gold of N = n_total) under the uniform predictor over k labels, q = 1/k:
    TP_j ~ Bin(n_j, q), FP_j ~ Bin(N − n_j, q) independent,
    E[F1_j] = Σ_a Σ_c Bin(a; n_j, q)·Bin(c; N − n_j, q)·2a/(n_j + a + c) (a term with a zero denominator is 0)."""
    if not 0 <= n_j <= n_total or k < 1:
        raise ValueError(f"expected_f1_class: bad counts n_j={n_j}, N={n_total}, k={k}")
    if n_j == 0:
        return 0.0  # F1 = 2TP/(2TP+FP+FN) with TP = 0
    q = 1.0 / k
    a, pa = _binom_pmf_range(n_j, q)
    c, pc = _binom_pmf_range(n_total - n_j, q)
    den = n_j + a[:, None] + c[None, :]
    f1 = np.where(den > 0, 2.0 * a[:, None] / np.maximum(den, 1), 0.0)
    return float(pa @ f1 @ pc)


def _average(per: np.ndarray, counts: list[int], average: str, positive: int | None) -> float:
    """The F1 of per-class values ``per``: the positive class's for ``binary``, else their ``average``
    (:func:`lm_eval_enterprise.scoring.metrics.average_f1` with the gold counts as support)."""
    if average != "binary":
        return float(average_f1(per, np.array(counts, dtype=float), average)[0])
    if positive is None:
        raise ValueError("binary F1 baseline needs the positive class index")
    return float(per[positive])


def uniform_f1(counts: Sequence[int], average: str, positive: int | None = None) -> float:
    """Exact expected F1 of the uniform predictor, k = len(counts) labels: weighted Σ_j (n_j/N)·E[F1_j], macro the
    mean of E[F1_j] over the classes present in the gold answers, binary E[F1_c] (:func:`expected_f1_class`)."""
    counts = [int(c) for c in counts]
    n, k = sum(counts), len(counts)
    if n <= 0:
        raise ValueError("uniform F1 baseline: no gold labels")
    return _average(np.array([expected_f1_class(c, n, k) for c in counts]), counts, average, positive)


def majority_f1(counts: Sequence[int], average: str, positive: int | None = None) -> float:
    """Expected F1 of always predicting the majority class m (share p; ties → first label): F1_m = 2p/(1 + p), the
    other classes 0, so weighted p·2p/(1 + p), macro (1/|G|)·2p/(1 + p) (G: the classes present), binary
    2p_c/(1 + p_c) if c is the majority class, else 0."""
    counts = [int(c) for c in counts]
    p = majority_share(counts)
    per = np.zeros(len(counts))
    per[majority_index(counts)] = 2 * p / (1 + p)
    return _average(per, counts, average, positive)


# ----------------------------------------------------------------------------------------------------- ranking
def expected_rr_at_k(n_cand: int, n_rel: int, k: int) -> float:
    """Exact E[RR@k] of a random permutation of C = ``n_cand`` candidates with R = ``n_rel`` relevant:
    E = Σ_{r=1}^{min(k, C−R+1)} (1/r)·C(C−r, R−1)/C(C, R); R = 0 → 0 (H_k/C for R = 1, k ≤ C)."""
    if n_rel <= 0:
        return 0.0
    if n_rel > n_cand:
        raise ValueError(f"RR baseline: {n_rel} relevant of {n_cand} candidates")
    total = math.comb(n_cand, n_rel)
    return sum(math.comb(n_cand - r, n_rel - 1) / total / r for r in range(1, min(k, n_cand - n_rel + 1) + 1))


def expected_ndcg_at_k(n_cand: int, n_rel: int, k: int) -> float:
    """Exact E[NDCG@k] (binary gains) of a random permutation: each position is relevant with probability R/C, so
    E = (R/C)·Σ_{i≤min(k,C)} 1/log2(i+1) / IDCG(R, k) (the ideal DCG is constant); R = 0 → 0."""
    if n_rel <= 0:
        return 0.0
    dcg = n_rel / n_cand * sum(1 / math.log2(i + 1) for i in range(1, min(k, n_cand) + 1))
    ideal = sum(1 / math.log2(i + 1) for i in range(1, min(n_rel, k) + 1))
    return dcg / ideal


def mean_expected_ranking(queries: Sequence[tuple[int, int]], metric: str, k: int) -> float:
    """Mean over queries (C, R) of the expected RR@k or NDCG@k."""
    if not queries:
        raise ValueError("ranking baseline: no queries")
    fn = expected_rr_at_k if metric == "rr" else expected_ndcg_at_k
    return float(sum(fn(c, r, k) for c, r in queries) / len(queries))


# ----------------------------------------------------------------------------------------------------- simulation
def simulated_uniform(
    gold: Sequence[int], k: int, metric: str, positive: int | None = None, draws: int = SIMULATION_DRAWS, seed: int = 0
) -> tuple[float, float]:
    """Monte-Carlo (mean, standard error) of accuracy / weighted / macro / binary F1 of the uniform predictor.

    ``np.random.default_rng(seed)``; draw i is ``rng.integers(0, k, N)`` (the same stream as one (draws, N) call).
    """
    g = np.asarray(gold, dtype=int)
    rng = np.random.default_rng(seed)
    values = np.empty(draws)
    chunk = max(1, 2_000_000 // max(len(g), 1))
    for s in range(0, draws, chunk):
        preds = rng.integers(0, k, (min(chunk, draws - s), len(g)))
        if metric == "accuracy":
            v = (preds == g[None, :]).mean(1)
        elif metric in ("weighted", "macro", "binary"):  # the metric's own F1: summed f1_stats, then f1_finalize
            hit = preds[:, :, None] == np.arange(k)  # draws × N × k
            tp = (hit & (g[:, None] == np.arange(k))).sum(1)
            sums = np.hstack([tp, np.broadcast_to(np.bincount(g, minlength=k), tp.shape), hit.sum(1)])
            v = f1_finalize(sums[:, [positive, k + positive, 2 * k + positive]] if metric == "binary" else sums, metric)
        else:
            raise ValueError(metric)
        values[s : s + len(v)] = v
    return float(values.mean()), float(values.std(ddof=1) / math.sqrt(draws))


def simulated_ranking(
    queries: Sequence[tuple[int, int]], metric: str, k: int, draws: int = SIMULATION_DRAWS, seed: int = 0
) -> tuple[float, float]:
    """Monte-Carlo (mean, se) of mean RR@k / NDCG@k under random permutations (relevant items placed first
    in the candidate list, then permuted: rng.permutation per query per draw)."""
    rng = np.random.default_rng(seed)
    values = np.empty(draws)
    for i in range(draws):
        tot = 0.0
        for c, r in queries:
            rel = np.zeros(c, dtype=int)
            rel[:r] = 1
            order = rel[rng.permutation(c)]
            tot += reciprocal_rank(order, k) if metric == "rr" else ndcg(order, k)
        values[i] = tot / len(queries)
    return float(values.mean()), float(values.std(ddof=1) / math.sqrt(draws))


# ----------------------------------------------------------------------------------------------------- generation
ROUGE_METRICS = ("rouge_l", "rouge_1", "rouge_2")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\s*\n+\s*")


def lead_sentences(text: str, k: int) -> str:
    """The first ``k`` sentences of ``text`` (a sentence ends at ``.``, ``!`` or ``?`` followed by whitespace, or at
    a line break; a simple rule: abbreviations such as "U.S. " also end a sentence)."""
    parts = [p for p in _SENTENCE_END.split(str(text).strip()) if p]
    return " ".join(parts[:k])


def lead_baseline(documents: Sequence[str], references: Sequence[str], k: int, metric: str) -> float:
    """Mean ``metric`` (rouge_l / rouge_1 / rouge_2) of the lead-``k`` summary of each document against its
    reference."""
    if not documents:
        raise ValueError("lead baseline: no documents")
    return float(np.mean([rouge(ref, lead_sentences(doc, k))[metric] for doc, ref in zip(documents, references)]))
