"""Leakage, imbalance and constant-predictor facts of every dataset, as a Markdown table (issue #7 item 8).

For each dataset (each subtask of a dataset with subtasks) this loads the data exactly as a run does
(:func:`lm_eval_enterprise.data.load_checked`: conversion, count checks, [LEAK] removal) and reports, on the
evaluated split and the few-shot pool:

* eval rows (after [LEAK]) and the rows [LEAK] removed, read from the loaded task metadata
  (:func:`lm_eval_enterprise.data.load_task_data`: ``eval_rows_before_dedup``,
  ``eval_fewshot_pool_duplicates``, ``eval_removed_fewshot_duplicates``; a 0-shot dataset counts, does not remove);
* near-duplicates that remain: evaluated items whose prompt input (the [LEAK] fields,
  :data:`lm_eval_enterprise.data.leakage.PROMPT_INPUT_FIELDS`) equals a pool item's after [NORM] (case, whitespace,
  punctuation: :func:`lm_eval_enterprise.text.norm`), and evaluated items repeating an earlier evaluated item after
  [NORM]; ranking datasets compare their distinct query texts;
* the gold distribution of the evaluated split (class labels; MC answer letters; NER / KPI entity types;
  ranking: relevant and non-relevant candidates) and its largest share;
* the score of the best CONSTANT predictor under the dataset's primary metric, computed with the package's own
  metric code (:mod:`lm_eval_enterprise.scoring.metrics`) on the gold answers: classification — every label of the label
  set tried, the best kept (cross-checked with :func:`lm_eval_enterprise.scoring.chance.majority_f1` /
  ``majority_share`` when the best constant is the majority label); MC — every option letter; ranking — a model
  that gives every candidate the same score, ranked by the tie rule of :func:`lm_eval_enterprise.scoring.metrics.rank_queries`
  (candidate order), RR@10; NER / KPI — the empty prediction (no entity: no true positive, so F1 = 0 by
  definition, computed anyway); numeric QA — 0 for an uninformed generator, and the accuracy of always answering
  the most frequent gold number; summarization — the lead-3 summary's ROUGE-L
  (:func:`lm_eval_enterprise.scoring.chance.lead_baseline`).

Data: ``--data_root DIR`` (folders ``DIR/<id>/`` of genuine files); otherwise the real samples beside the checkout
(folder ``shared/data/<id>/`` in the checkout's parent folder, docs/data.md#real-samples); a dataset with neither
gets the row "no genuine file available here". ``--fixtures`` measures the embedded fixture data instead (synthetic
rows: for tests, never for README numbers). Never uses the network.

    python scripts/dataset_facts.py [--data_root DIR] [--fixtures] [--dataset ID ...]
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lm_eval_enterprise import families
from lm_eval_enterprise.data import (
    EMBEDDED,
    DataError,
    get_source,
    load_checked,
    load_task_data,
    registry,
)
from lm_eval_enterprise.data.leakage import PROMPT_INPUT_FIELDS
from lm_eval_enterprise.scoring import chance, metrics
from lm_eval_enterprise.text import norm

REPO = Path(__file__).resolve().parents[1]
SHARED_SAMPLES = REPO.parent / "shared" / "data"  # real samples beside the checkout (docs/data.md#real-samples)
NO_DATA = "no genuine file available here"
RR_K = 10
LEAD_K = 3


@dataclass
class Facts:
    """One table row: a dataset (or one subtask) measured on one data folder."""

    dataset: str
    subtask: str | None = None
    data: str = NO_DATA  # what was measured ("real sample", "data root", "fixture") or NO_DATA
    eval_split: str | None = None
    eval_rows: int | None = None  # after [LEAK]
    pool_rows: int | None = None
    leak_found: int | None = None  # eval items byte-identical to a pool item ([LEAK])
    leak_removed: int | None = None
    near_dup_pool: int | None = None  # remaining eval items equal to a pool item after [NORM]
    near_dup_eval: int | None = None  # eval items repeating an earlier eval item after [NORM]
    distribution: dict[str, int] = field(default_factory=dict)
    largest_share: float | None = None
    metric: str = ""
    constant: str = ""  # the constant predictor
    constant_score: float | None = None
    cross_check: float | None = None  # scoring.chance's majority formula, where it applies
    note: str = ""

    @property
    def name(self) -> str:
        return f"{self.dataset}/{self.subtask}" if self.subtask else self.dataset


# ------------------------------------------------------------------------------------------------ task facts
def task_spec(dataset: str):
    """The dataset's template table (``TASKS``; a ranking dataset's first, log-likelihood table)."""
    tasks = importlib.import_module(registry()[dataset].rpartition(".")[0] + ".templates").TASKS
    return tasks[0] if isinstance(tasks, (list, tuple)) else tasks


def _field_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, (list, tuple)):
        return " ".join(_field_text(v) for v in value)
    return str(value)


def normalised_input(record: dict, fields: tuple[str, ...]) -> tuple[str, ...]:
    """[NORM] of each prompt-input field (a list field, e.g. ``choices``, joined by spaces first)."""
    return tuple(norm(_field_text(record.get(f))) for f in fields)


def near_duplicates(eval_recs: list[dict], pool: list[dict], fields: tuple[str, ...]) -> tuple[int, int]:
    """(evaluated items whose [NORM] prompt input equals a pool item's, evaluated items repeating an earlier
    evaluated item's [NORM] prompt input)."""
    pool_keys = {normalised_input(r, fields) for r in pool}
    keys = [normalised_input(r, fields) for r in eval_recs]
    return sum(k in pool_keys for k in keys), len(keys) - len(set(keys))


def _distinct_queries(recs: list[dict]) -> list[dict]:
    seen: dict[str, dict] = {}
    for r in recs:
        seen.setdefault(str(r["qid"]), r)
    return list(seen.values())


def gold_distribution(task_type: str, recs: list[dict]) -> Counter:
    """Counts of the gold answers of ``recs`` (see the module docstring for what is counted per task family; by
    the family's gold check, lm_eval_enterprise.families)."""
    gold = families.get(task_type).gold
    if gold in ("label", "ranking"):
        return Counter(str(r["label"]) for r in recs)
    if gold == "choice":
        return Counter(r["answer_letter"] for r in recs)
    if gold == "entities":
        return Counter(e["type"] for r in recs for e in r["entities"])
    return Counter()


def constant_ranking_rr(recs: list[dict], k: int = RR_K) -> float:
    """Mean RR@k of a model that gives every candidate the same score: ``metrics.mean_rr_at_k`` with one constant
    key, so the tie rule (candidate order) decides the ranking."""
    return metrics.mean_rr_at_k([(r["qid"], r["cand_index"], 0.0, r["label"] == "Yes") for r in recs], k)


def constant_classification(
    golds: list[str], labels: list[str], metric: str, positive: str | None
) -> tuple[str, float, float | None]:
    """(best constant label, its score under ``metric``, the majority formula of ``scoring.chance`` when the
    best constant is the majority label, else None). Ties keep the first label in label-set order."""

    def score(pred: str) -> float:
        preds = [pred] * len(golds)
        if metric == "weighted_f1":
            return metrics.weighted_f1(golds, preds, labels)
        if metric == "macro_f1":
            return metrics.macro_f1(golds, preds, labels)
        if metric == "binary_f1":
            return metrics.binary_f1(golds, preds, positive)
        if metric == "accuracy":
            return sum(metrics.exact_match(g, pred) for g in golds) / len(golds)
        if metric == "mcc":  # 0 by its definition for a constant prediction; computed, not assumed
            return metrics.matthews_corrcoef(golds, preds, labels)
        raise ValueError(f"no constant-predictor rule for classification metric {metric!r}")

    scores = [(score(lab), -i, lab) for i, lab in enumerate(labels)]
    best, _, label = max(scores)
    counts = [Counter(golds)[lab] for lab in labels]
    cross = None
    if label == labels[chance.majority_index(counts)] and metric != "mcc":
        if metric == "accuracy":
            cross = chance.majority_share(counts)
        else:
            avg = metric[: -len("_f1")]
            cross = chance.majority_f1(counts, avg, labels.index(positive) if positive else None)
    return label, best, cross


def class_labels(src, recs: list[dict]) -> list[str]:
    """The label set the metric uses: the records' ``label_names`` (tram's top-9 are chosen from the data), else
    the Source's."""
    return list(recs[0].get("label_names") or src.labels) if recs else list(src.labels)


def constant_predictor(src, metric: str, recs: list[dict]) -> tuple[str, float, float | None, str]:
    """(what the constant predictor answers, its score, the cross-check value or None, a note)."""
    fam = families.get(src.task_type)
    t = fam.reader if fam.gold == "entities" else fam.gold  # entity / kpi share the gold check, not the metric
    if t == "label":
        label, score, cross = constant_classification(
            [str(r["label"]) for r in recs], class_labels(src, recs), metric, src.positive_label
        )
        return f"always '{label}'", score, cross, ""
    if t == "choice":
        # a constant position (the option letters; a family whose label set is the option texts has them too)
        letters = sorted({chr(ord("A") + i) for r in recs for i in range(len(r["label_names"]))})
        scores = [
            (sum(metrics.exact_match(r["answer_letter"], x) for r in recs) / len(recs), -i, x)
            for i, x in enumerate(letters)
        ]
        score, _, letter = max(scores)
        counts = Counter(r["answer_letter"] for r in recs)
        return f"always '{letter}'", score, chance.majority_share(list(counts.values())), ""
    if t == "ranking":
        return "same score for every candidate (tie rule)", constant_ranking_rr(recs), None, f"RR@{RR_K}"
    if t == "entity":
        golds = [[(e["text"], e["type"]) for e in r["entities"]] for r in recs]
        f1 = metrics.entity_prf(golds, [[] for _ in recs])["f1"]
        return "no entity", f1, None, "0 by definition: no predicted entity, no true positive"
    if t == "kpi":
        f1 = metrics.kpi_adjusted_f1([r["target"] for r in recs], ["" for _ in recs])[metric]
        return "no entity", f1, None, "0 by definition: no predicted entity, no true positive"
    if t == "answer":
        golds = [str(r["answer"]) for r in recs]
        top = Counter(golds).most_common(1)[0][0]
        acc = sum(metrics.float_equivalence(g, top) for g in golds) / len(golds)
        return "an uninformed generator", 0.0, None, f"always answering the most frequent gold '{top}': {acc:.4f}"
    if t == "score":  # a constant score has no correlation with the gold scores
        golds = [float(r["score"]) for r in recs]
        r = metrics.pearson([2.5] * len(golds), golds)
        return "always the scale's midpoint 2.5", r, None, "0 by definition: a constant prediction"
    if t == "answers":  # extractive QA: an empty answer shares no token (character) with any reference
        return "an empty answer", 0.0, None, "0 by definition: no answer, no overlap"
    if t == "summary":
        score = chance.lead_baseline([r["document"] for r in recs], [r["summary"] for r in recs], LEAD_K, "rouge_l")
        return f"lead-{LEAD_K} (first {LEAD_K} sentences)", score, None, ""
    raise ValueError(f"[{src.id}] no constant-predictor rule for task family {src.task_type!r}")


# ------------------------------------------------------------------------------------------------ measuring
def data_root_for(dataset: str, data_root: str | None, fixtures: bool) -> tuple[str | None, str]:
    """(data root to load ``dataset`` from, what it is) — or (None, NO_DATA)."""
    if fixtures:
        return EMBEDDED, "fixture (synthetic)"
    if data_root:
        return (data_root, "data root") if (Path(data_root) / dataset).is_dir() else (None, NO_DATA)
    if (SHARED_SAMPLES / dataset).is_dir():
        return str(SHARED_SAMPLES), "real sample"
    return None, NO_DATA


def measure(dataset: str, subtask: str | None = None, data_root: str | None = None, what: str = "data root") -> Facts:
    """The facts of one dataset (one subtask) loaded from ``data_root`` (a folder of ``<id>/`` folders or
    ``embedded``)."""
    src = get_source(dataset)
    spec = task_spec(dataset)
    recs, report = load_checked(dataset, subtask, data_root, download=False)
    meta = load_task_data(dataset, subtask, data_root)[1]
    ev = report.eval_split
    eval_recs, pool = recs[ev], recs.get(src.fewshot_source_split, [])  # a folder without its pool file: none
    f = Facts(dataset, subtask, what, ev, len(eval_recs), len(pool), metric=spec.primary_metric)
    fields = PROMPT_INPUT_FIELDS[src.task_type]
    if fields is None:  # ranking: distinct query texts
        f.near_dup_pool, f.near_dup_eval = near_duplicates(
            _distinct_queries(eval_recs), _distinct_queries(pool), ("question",)
        )
        f.note = "[LEAK] not applied (ranking); near-duplicates counted over distinct queries"
    else:
        f.leak_found = meta["eval_fewshot_pool_duplicates"]
        f.leak_removed = meta["eval_removed_fewshot_duplicates"]
        f.near_dup_pool, f.near_dup_eval = near_duplicates(eval_recs, pool, fields)
        if f.leak_found != f.leak_removed:
            f.note = "0-shot: pool duplicates counted, not removed"
    dist = gold_distribution(src.task_type, eval_recs)
    if families.get(src.task_type).gold == "label":
        dist = Counter({lab: dist.get(lab, 0) for lab in class_labels(src, eval_recs)})
    f.distribution = dict(sorted(dist.items(), key=lambda kv: (-kv[1], kv[0])))
    if dist:
        f.largest_share = max(dist.values()) / sum(dist.values())
    f.constant, f.constant_score, f.cross_check, note = constant_predictor(src, f.metric, eval_recs)
    f.note = "; ".join(x for x in (f.note, note) if x)
    return f


def collect(datasets: list[str] | None = None, data_root: str | None = None, fixtures: bool = False) -> list[Facts]:
    out = []
    for ds in datasets or sorted(registry()):
        root, what = data_root_for(ds, data_root, fixtures)
        subtasks = get_source(ds).subtasks or (None,)
        for sub in subtasks:
            if not root:
                out.append(Facts(ds, sub, metric=task_spec(ds).primary_metric))
                continue
            try:
                out.append(measure(ds, sub, root, what))
            except DataError as exc:  # e.g. a partial copy without this subtask's labels: reported, not hidden
                out.append(
                    Facts(
                        ds,
                        sub,
                        f"{what}: not measured",
                        metric=task_spec(ds).primary_metric,
                        note=str(exc).splitlines()[0],
                    )
                )
    return out


# ------------------------------------------------------------------------------------------------ table
def _n(x: Any) -> str:
    return "—" if x is None else str(x)


def _f(x: float | None) -> str:
    return "—" if x is None else f"{x:.4f}"


def format_distribution(dist: dict[str, int], top: int = 4) -> str:
    total = sum(dist.values())
    if not total:
        return "—"
    items = list(dist.items())
    shown = ", ".join(f"{k} {v}" for k, v in items[:top])
    return shown + (f", … ({len(items) - top} more)" if len(items) > top else "") + f" (of {total})"


COLUMNS = (
    "dataset",
    "data",
    "eval split",
    "eval rows",
    "pool rows",
    "[LEAK] found / removed",
    "[NORM] near-dup eval↔pool",
    "[NORM] dup within eval",
    "gold distribution",
    "largest share",
    "primary metric",
    "constant predictor",
    "score",
    "majority formula",
    "note",
)


def markdown(rows: list[Facts]) -> str:
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for f in rows:
        leak = "—" if f.leak_found is None else f"{f.leak_found} / {f.leak_removed}"
        share = "—" if f.largest_share is None else f"{f.largest_share:.3f}"
        cells = (
            f.name,
            f.data,
            _n(f.eval_split),
            _n(f.eval_rows),
            _n(f.pool_rows),
            leak,
            _n(f.near_dup_pool),
            _n(f.near_dup_eval),
            format_distribution(f.distribution),
            share,
            f.metric,
            f.constant or "—",
            _f(f.constant_score),
            _f(f.cross_check),
            f.note,
        )
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--data_root",
        "--data-root",
        dest="data_root",
        metavar="DIR",
        help="folder of <id>/ folders with genuine files (default: the real samples beside the checkout)",
    )
    ap.add_argument("--fixtures", action="store_true", help="measure the embedded fixture data (synthetic)")
    ap.add_argument("--dataset", action="append", metavar="ID", help="only this dataset (repeatable)")
    args = ap.parse_args(argv)
    if args.data_root and not Path(args.data_root).is_dir():
        ap.error(f"--data_root {args.data_root}: no such folder")
    known = registry()
    for ds in args.dataset or ():
        if ds not in known:
            ap.error(f"unknown dataset id {ds!r}; known: {', '.join(sorted(known))}")
    logging.basicConfig(level=logging.ERROR)
    print(markdown(collect(args.dataset, args.data_root, args.fixtures)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
