"""Cell matrices (the observed cells of one variant group) and their cell models: every unobserved cell's expected
sufficient statistics (plug-in scores) and draws of them (the package docstring has the layouts and their models).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

import numpy as np

from ..scoring import metrics as M
from .sampler import SampledFit
from .twoway import TwoWayFit, fit_two_way

ERROR_SHRINK = 1.0  # pseudo-cells pulling a template's error distribution towards the pooled one


class SparseError(ValueError):
    """A metric or input the sparse estimator cannot handle (one line)."""


@dataclass
class CellMatrix:
    """Observed cells of one variant group: ``features`` T × D × K (anything where unobserved), ``mask`` T × D,
    the metric's ``finalize`` (rows of K summed features → scores) and the feature ``layout``:

    * ``("mean",)`` — [value, 1];
    * ``("classification", k)`` — [tp_1..k, gold_1..k, pred_1..k], with ``correct`` (T × D, 0/1);
    * ``("counts", slots)`` — ``slots``: list of ("tp_fp_fn" | "o_p_g", first column).
    """

    templates: list[str]
    docs: list[str]
    features: np.ndarray
    mask: np.ndarray
    finalize: Callable[[np.ndarray], np.ndarray]
    layout: tuple
    correct: np.ndarray | None = None
    name: str = ""
    metric: str = ""
    covariates: np.ndarray | None = None  # T × p template features (population axes), for the cell models

    def __post_init__(self):
        self.features = np.asarray(self.features, dtype=float)
        self.mask = np.asarray(self.mask, dtype=bool)
        t, d = self.mask.shape
        if self.features.shape[:2] != (t, d) or (len(self.templates), len(self.docs)) != (t, d):
            raise SparseError(
                f"{self.name}: features {self.features.shape}, mask {self.mask.shape}, "
                f"{len(self.templates)} templates and {len(self.docs)} documents disagree"
            )
        if t < 1 or not self.mask.any(0).all():
            missing = [self.docs[i] for i in np.flatnonzero(~self.mask.any(0))[:3]]
            raise SparseError(f"{self.name}: documents without any observed template (e.g. {missing})")
        if not self.mask.any(1).all():
            missing = [self.templates[i] for i in np.flatnonzero(~self.mask.any(1))]
            raise SparseError(f"{self.name}: templates without any observed document: {missing}")
        self.features = np.where(self.mask[:, :, None], np.nan_to_num(self.features), 0.0)
        if self.layout[0] == "classification":
            if self.correct is None:
                raise SparseError(f"{self.name}: the classification layout needs per-cell correctness")
            self.correct = np.where(self.mask, np.asarray(self.correct, dtype=float), 0.0)

    @property
    def share(self) -> float:
        return float(self.mask.mean())

    def positive_docs(self) -> np.ndarray | None:
        """A binary F1's gold-positive documents (D booleans; the cell planner's strata, ``cellplan`` step 4), else
        None."""
        if self.layout != ("classification", 1):
            return None
        return self.features[0, :, 1] > 0

    def subset(self, keep: np.ndarray) -> CellMatrix:
        """The same matrix with only the cells ``keep`` & ``mask`` observed (subsampling a full run)."""
        keep = np.asarray(keep, dtype=bool) & self.mask
        return CellMatrix(
            self.templates,
            self.docs,
            self.features,
            keep,
            self.finalize,
            self.layout,
            correct=self.correct,
            name=self.name,
            metric=self.metric,
            covariates=self.covariates,
        )

    # --------------------------------------------------------------------------- constructors for plain matrices
    @classmethod
    def from_values(
        cls, values: np.ndarray, mask: np.ndarray | None = None, templates=None, docs=None, name: str = ""
    ) -> CellMatrix:
        """Mean metric from a T × D matrix of per-document values (NaN = unobserved when ``mask`` is None)."""
        v = np.asarray(values, dtype=float)
        mask = ~np.isnan(v) if mask is None else np.asarray(mask, dtype=bool)
        feats = np.stack([np.nan_to_num(v), np.ones_like(v)], axis=2)
        return cls(
            list(templates or [f"t{i + 1}" for i in range(v.shape[0])]),
            list(docs or [str(j) for j in range(v.shape[1])]),
            feats,
            mask,
            M.mean_finalize,
            ("mean",),
            name=name,
        )

    @classmethod
    def from_labels(
        cls,
        gold: Sequence[int],
        pred: np.ndarray,
        k: int,
        average: str,
        mask: np.ndarray | None = None,
        positive: int | None = None,
        templates=None,
        docs=None,
        name: str = "",
    ) -> CellMatrix:
        """Classification from gold class indices (D) and predicted indices (T × D; −1 = no label / unparsable,
        NaN or ``mask`` False = unobserved). ``average`` weighted | macro | binary (``positive`` class)."""
        g = np.asarray(gold, dtype=int)
        p = np.asarray(pred, dtype=float)
        mask = ~np.isnan(p) if mask is None else np.asarray(mask, dtype=bool)
        p = np.where(mask, np.nan_to_num(p, nan=-1), -1).astype(int)
        cols = [positive] if average == "binary" else list(range(k))
        g1 = np.stack([(g == c) for c in cols], 1).astype(float)  # D × k'
        p1 = np.stack([(p == c) for c in cols], 2).astype(float)  # T × D × k'
        feats = np.concatenate([p1 * g1[None], np.broadcast_to(g1, p1.shape), p1], axis=2)
        correct = (p == g[None, :]).astype(float)
        return cls(
            list(templates or [f"t{i + 1}" for i in range(p.shape[0])]),
            list(docs or [str(j) for j in range(len(g))]),
            feats,
            mask,
            partial(M.f1_finalize, average=average),
            ("classification", len(cols)),
            correct=correct,
            name=name,
        )


# ============================================================================================ cell models
def zero_one(cm: CellMatrix) -> bool:
    """Whether ``cm`` holds 0/1 values (accuracy, exact match): the "mean" layout with every observed value 0 or 1.
    Such a template may be broken — never right, score 0 — which the sampled fit models (zero inflation) and the
    population interval allows for (:func:`~.estimate.resample_templates`)."""
    if cm.layout[0] != "mean":
        return False
    obs = cm.features[:, :, 0][cm.mask]
    return bool(np.all((obs == 0) | (obs == 1)))


class _CellModel:
    """A fitted model of the unobserved cells. :meth:`sums` gives, per row of document weights ``w`` (B × D),
    Σ_d w_bd · (observed F_td, or for an unobserved cell its expectation (``mode="mean"``) or a posterior
    predictive draw (``mode="draw"``: parameters from the fit's posterior, then the cell outcome)), B × T × K."""

    def __init__(self, cm: CellMatrix, fitter: Callable | None = None):
        self.cm = cm
        self.m = cm.mask.astype(float)
        self.obs_f = cm.features * self.m[:, :, None]
        self.fitter = fitter or fit_two_way  # (y, mask, family, trials=, covariates=, strong=) → fit
        # The sampled fitter's zero-inflated fit (a template may never succeed: an output nothing parses, a class it
        # never answers) for the 0/1 outcomes whose template effects have no covariates: a Rasch template effect
        # cannot be −∞, and with two or three cells per template and class it pulls a never-right template up and
        # the others down (tram's macro F1 in a sparse run, docs/sparse.md). With template covariates (a
        # population's axis values and label bias) the plain fit did better (docs/populations.md).
        zero_inflated = getattr(self.fitter, "zero_inflated", None)
        self.fit_01 = zero_inflated if zero_inflated is not None and cm.covariates is None else self.fitter

    def fits(self) -> list[TwoWayFit]:
        raise NotImplementedError

    def cells(self, fits: list[TwoWayFit], mode: str, rng, n: int | None) -> np.ndarray:
        """Values of every cell (rows × T × D × K) under ``mode``."""
        raise NotImplementedError

    def sums(self, w: np.ndarray, mode: str = "mean", rng=None) -> np.ndarray:
        fits = self.fits()
        x = self.cells(fits, mode, rng, len(w) if mode == "draw" else None)
        miss = (1.0 - self.m)[None, :, :] * w[:, None, :]
        return np.einsum("bd,tdk->btk", w, self.obs_f) + np.matmul(miss[:, :, None, :], x)[:, :, 0, :]

    def describe(self) -> dict:
        raise NotImplementedError


def _eta(f: TwoWayFit, mode: str, rng, n: int | None) -> np.ndarray:
    return f.draw_eta(rng, n) if mode == "draw" else f.eta()


def _fit_info(f: TwoWayFit, templates: list[str]) -> dict:
    sampler = dict(f.sampler) if isinstance(f, SampledFit) else None
    if sampler and "broken_probability" in sampler:  # template index → name
        sampler["broken_probability"] = {templates[t]: p for t, p in sampler["broken_probability"].items()}
    return {
        "family": f.family,
        "doc_effect_sd": f.tau,
        "template_effect_sd": f.sigma_a,
        "noise_var": f.phi if f.family == "gaussian" else None,
        "converged": f.converged,
        "degenerate": f.constant,
        **({"sampler": sampler} if sampler is not None else {}),
    }


class _MeanModel(_CellModel):
    def __init__(self, cm: CellMatrix, fitter: Callable | None = None):
        super().__init__(cm, fitter)
        self.y = cm.features[:, :, 0]
        self.family = "binomial" if zero_one(cm) else "gaussian"
        # 0/1 values: a template may be broken (never right), with the sampled fit, covariates or not
        fit = getattr(self.fitter, "zero_inflated", self.fitter) if self.family == "binomial" else self.fitter
        self.fit = fit(self.y, cm.mask, self.family, covariates=cm.covariates)

    def fits(self):
        return [self.fit]

    def cells(self, fits, mode, rng, n):
        f = fits[0]
        eta = _eta(f, mode, rng, n)
        mu = f.mean(eta=eta)
        out = np.empty(mu.shape + (2,))
        out[..., 1] = 1.0
        if mode != "draw":
            out[..., 0] = mu
        elif self.family == "binomial":
            out[..., 0] = rng.random(mu.shape) < mu
        else:
            out[..., 0] = np.clip(mu + rng.standard_normal(mu.shape) * math.sqrt(f.phi), f.lo, f.hi)
        return out

    def describe(self):
        kind = "Rasch (logit) model of 0/1 values" if self.family == "binomial" else "additive model of values"
        return {"model": kind, **_fit_info(self.fit, self.cm.templates)}


class _ClassificationModel(_CellModel):
    """Correctness ~ Rasch within each gold class (template effects per class: a template's accuracy depends on the
    class through its label bias); a wrong answer's predicted label ~ template t's error distribution for the
    document's gold class (categories: the k feature labels and "none" = no feature label, e.g. unparsable)."""

    def __init__(self, cm: CellMatrix, fitter: Callable | None = None):
        super().__init__(cm, fitter)
        k = cm.layout[1]
        self.k = k
        d_idx = np.arange(len(cm.docs))
        first = cm.mask.argmax(0)
        self.g = cm.features[first, d_idx, k : 2 * k]  # D × k (document's)
        self.sig = np.where(self.g.sum(1) > 0, self.g.argmax(1), -1)  # gold class (−1: none)
        pred = cm.features[:, :, 2 * k : 3 * k]
        cat = np.where(pred.sum(2) > 0, pred.argmax(2), k)  # T × D category
        wrong = cm.mask & (cm.correct < 0.5)
        t_n = len(cm.templates)
        q = np.zeros((t_n, len(cm.docs), k + 1))
        for s in np.unique(self.sig):
            cols = self.sig == s
            cw, cc = wrong[:, cols], cat[:, cols]
            pooled = np.bincount(cc[cw], minlength=k + 1).astype(float)
            pooled = pooled / pooled.sum() if pooled.sum() else np.eye(k + 1)[k]  # unseen: "none"
            for t in range(t_n):
                own = np.bincount(cc[t][cw[t]], minlength=k + 1).astype(float)
                q[t, cols] = (own + ERROR_SHRINK * pooled) / (own.sum() + ERROR_SHRINK)
        self.q = q
        self.cum = np.cumsum(q, axis=2)
        onehot = np.vstack([np.eye(k), np.zeros((1, k))])  # category → pred part
        self.onehot = onehot
        zeros = np.zeros((t_n, len(cm.docs), k))
        self.err = np.concatenate([zeros, np.broadcast_to(self.g, zeros.shape), q @ onehot], axis=2)
        self.right = np.concatenate([self.g, self.g, self.g], axis=1)  # D × 3k
        self.classes = [np.flatnonzero(self.sig == s) for s in np.unique(self.sig)]
        two_class = getattr(self.fitter, "two_class", None)
        self.joint = two_class is not None and len(self.classes) == 2
        self.fit = two_class(cm.correct, cm.mask, self.classes, cm.covariates) if self.joint else None
        if self.fit is None:
            self.joint = False
            self.fit = [
                self.fit_01(cm.correct[:, c], cm.mask[:, c], "binomial", covariates=x, strong=strong)
                for c, (x, strong) in zip(self.classes, self._class_covariates(cat))
            ]

    def _class_covariates(self, cat: np.ndarray) -> list[tuple[np.ndarray | None, int]]:
        """Covariates of each gold class's correctness fit. Without template covariates (a sparse run): none. With
        them (a template population): the axis values plus the template's **label bias** towards the class — the
        template effects of a Rasch model of "answers class s" (its feature label; for the class outside the
        feature columns, no feature label) fitted on the documents of the other classes. A template that rarely
        answers "relevant" on irrelevant documents rarely answers it on relevant ones: with few observed cells of
        a rare class per template, its accuracy there is read from the many cells of the other classes."""
        x = self.cm.covariates
        if x is None or len(self.classes) < 2:
            return [(x, 0)] * len(self.classes)
        out = []
        for s, cols in zip(np.unique(self.sig), self.classes):
            other = np.setdiff1d(np.arange(len(self.cm.docs)), cols)
            says = (cat[:, other] == (s if s >= 0 else self.k)).astype(float)
            bias = fit_two_way(says, self.cm.mask[:, other], "binomial", covariates=x).a[0]
            out.append((np.column_stack([np.asarray(x, dtype=float).reshape(len(bias), -1), bias]), 1))
        return out

    def fits(self):
        return list(self.fit)

    def cells(self, fits, mode, rng, n):
        rows = n if n is not None else fits[0].a.shape[0]
        p = np.empty((rows,) + self.m.shape)
        if self.joint and mode == "draw":  # one posterior draw of both classes' effects per row
            index = fits[0].draw_index(rng, n)
            for f, c in zip(fits, self.classes):
                p[:, :, c] = f.mean(eta=f.draw_eta(rng, n, index))
        else:
            for f, c in zip(fits, self.classes):
                p[:, :, c] = f.mean(eta=_eta(f, mode, rng, n))
        if mode != "draw":
            p = p[..., None]
            return p * self.right[None, None] + (1 - p) * self.err[None]
        ok = rng.random(p.shape) < p
        u = rng.random(p.shape)
        cat = (u[..., None] > self.cum[None]).sum(-1).clip(max=self.k)  # rows × T × D
        k = self.k
        out = np.empty(p.shape + (3 * k,))
        out[..., :k] = 0.0
        out[..., k : 2 * k] = self.g[None, None]
        out[..., 2 * k :] = self.onehot[cat]
        return np.where(ok[..., None], self.right[None, None], out)

    def describe(self):
        return {
            "model": "Rasch (logit) model of correctness per gold class + per-template error distribution",
            "classes": [_fit_info(f, self.cm.templates) for f in self.fit],
        }


class _CountModel(_CellModel):
    """Per slot: hits TP ~ Binomial(g_d, logit⁻¹ η), false positives FP ~ Poisson(exp η')."""

    def __init__(self, cm: CellMatrix, fitter: Callable | None = None):
        super().__init__(cm, fitter)
        first = cm.mask.argmax(0)
        d_idx = np.arange(len(cm.docs))
        self.parts = []
        for kind, c in cm.layout[1]:
            f = cm.features[:, :, c : c + 3]
            if kind == "tp_fp_fn":
                tp, fp, g = f[:, :, 0], f[:, :, 1], (f[:, :, 0] + f[:, :, 2])[first, d_idx]
            elif kind == "o_p_g":
                tp, fp, g = f[:, :, 0], f[:, :, 1] - f[:, :, 0], f[:, :, 2][first, d_idx]
            else:
                raise SparseError(f"unknown count slot {kind!r}")
            x = cm.covariates
            fit_tp = self.fit_01(tp, cm.mask, "binomial", trials=g[None, :], covariates=x) if (g > 0).any() else None
            fit_fp = self.fitter(fp, cm.mask, "poisson", covariates=x)
            self.parts.append((kind, c, tp, fp, g, fit_tp, fit_fp))

    def fits(self):
        return [f for p in self.parts for f in p[5:7]]

    def cells(self, fits, mode, rng, n):
        t_n, d_n = self.m.shape
        rows = n if n is not None else next(f.a.shape[0] for f in fits if f is not None)
        out = np.zeros((rows, t_n, d_n, self.cm.features.shape[2]))
        for j, (kind, c, _tp, _fp, g, _, _) in enumerate(self.parts):
            f_tp, f_fp = fits[2 * j], fits[2 * j + 1]
            gg = np.broadcast_to(g[None, None, :], (rows, t_n, d_n))
            if f_tp is None:
                etp = np.zeros((rows, t_n, d_n))
            else:
                p = f_tp.mean(eta=_eta(f_tp, mode, rng, n))
                etp = rng.binomial(gg.astype(int), np.clip(p, 0, 1)).astype(float) if mode == "draw" else p * gg
            efp = f_fp.mean(eta=_eta(f_fp, mode, rng, n))
            if mode == "draw":
                efp = rng.poisson(efp).astype(float)
            efp = np.broadcast_to(efp, (rows, t_n, d_n))
            etp = np.broadcast_to(etp, (rows, t_n, d_n))
            if kind == "tp_fp_fn":
                out[..., c], out[..., c + 1], out[..., c + 2] = etp, efp, gg - etp
            else:
                out[..., c], out[..., c + 1], out[..., c + 2] = etp, etp + efp, gg
        return out

    def describe(self):
        return {
            "model": "binomial (logit) model of hits out of the gold count + Poisson (log) model of false "
            "positives, per slot",
            "slots": [
                {
                    "hits": None if p[5] is None else _fit_info(p[5], self.cm.templates),
                    "false_positives": _fit_info(p[6], self.cm.templates),
                }
                for p in self.parts
            ],
        }


def cell_model(cm: CellMatrix, fitter: Callable | None = None) -> _CellModel:
    """The cell model of ``cm``'s layout; ``fitter`` fits its two-way models (default :func:`fit_two_way`, the
    Laplace empirical-Bayes fit; the population estimator passes :func:`sampled_fitter`)."""
    kind = cm.layout[0]
    if kind == "mean":
        return _MeanModel(cm, fitter)
    if kind == "classification":
        return _ClassificationModel(cm, fitter)
    if kind == "counts":
        return _CountModel(cm, fitter)
    raise SparseError(f"{cm.name}: unknown feature layout {cm.layout!r}")


# ============================================================================================ estimates
def naive_scores(cm: CellMatrix) -> np.ndarray:
    """Per-template score from the observed cells only (what lm-eval reports for a sparse run)."""
    return cm.finalize((cm.features * cm.mask[:, :, None]).sum(1))


def plugin_scores(cm: CellMatrix, model: _CellModel | None = None) -> np.ndarray:
    """ŝ_t = finalize(Σ observed F_td + Σ unobserved E[F_td]) at the fitted parameters."""
    model = model or cell_model(cm)
    return cm.finalize(model.sums(np.ones((1, len(cm.docs))))[0])


def draw_scores(groups, models, w_rows: np.ndarray | None, n: int, rng, cols=None) -> np.ndarray:
    """Scores (rows × T, mean over groups) with every unobserved cell drawn from the posterior predictive."""
    out = 0.0
    for gi, (g, m) in enumerate(zip(groups, models)):
        w = np.ones((n, len(g.docs))) if w_rows is None else w_rows[:, cols[gi]]
        sums = m.sums(w, mode="draw", rng=rng)
        out = out + g.finalize(sums.reshape(-1, sums.shape[2])).reshape(len(w), -1)
    return out / len(groups)
