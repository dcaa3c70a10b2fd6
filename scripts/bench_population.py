"""Benchmark of template populations (issue 19): the population estimator at a budget of a few single-template runs.

1. ``--make-runs``: SmolLM2-135M-Instruct (fp32, CPU, its chat template) runs DENSELY — every template on every
   one of the first ``--docs`` test documents of the real samples — the core five and a population of ``--size``
   templates (``lm-eval-enterprise population``, seed 0) of each dataset of :data:`DATASETS`. The tasks are built
   and scored by lm-eval (``lm_eval_enterprise.harness.runner.evaluate``) exactly as ``lm-eval-enterprise run`` does; only
   the model's generation is done here by :class:`PrefixCachedHF`, lm-eval's ``HFLM`` with greedy decoding over a
   KV cache of the prompt prefix all documents of a template share (instruction + shots), one request at a time:
   the same tokens, ~5× less CPU than padded batches on this 2-core machine. Each run is checked against lm-eval's
   own per-task score. The compact ground truth — per (template, document) cell the parsed label (label families)
   or the per-document metric value (ROUGE-L), per document the gold label, per population template its axis
   values — goes to ``benchmarks/population_cells.json.gz`` (no prompts, no raw outputs).
2. ``--report``: for each dataset, the full-population values (template scores, μ, σ, the 5/25/50/75/95 %
   quantiles of the template scores, S) and, at budgets of 1, 2 and 4 single-template runs (share = runs / T of the
   cells), ``--designs`` seeded designs of the planner (``cellplan.design``; a binary F1 stratified by gold class, ``cellplan.stratified_design``), the population estimator
   (``estimator.estimate_population``, axis values as covariates) against (a) the naive per-template estimate of
   the same cells and (b) the core five run densely. Prints the Markdown table of ``docs/populations.md``.

    python scripts/bench_population.py --make-runs      # ≈ 5 process-hours on 2 shared cores (docs/populations.md)
    python scripts/bench_population.py --report [--designs 40]
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import random
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

GROUND_TRUTH = ROOT / "benchmarks" / "population_cells.json.gz"
DATA = ROOT.parent / "shared" / "data"  # the real samples beside the checkout (docs/data.md#real-samples)
# (dataset, variant group of its core set): three families — binary F1, macro F1 (20 shots), ROUGE-L (free text)
DATASETS = (
    ("securenlp", "ent_securenlp"),
    ("tram", "ent_tram"),
    ("legal_summarization", "ent_legal_summarization"),
)
BUDGET_RUNS = (1, 2, 4)
BATCH = 16  # requests decoded together after the shared prefix
CHUNK = 5  # tasks per lm-eval call (the ground truth is saved after each)


# ============================================================================================ the dense runs
def _prefix_lm_class():
    import torch
    from lm_eval.models.huggingface import HFLM
    from lm_eval.models.utils import handle_stop_sequences, postprocess_generated_text

    class PrefixCachedHF(HFLM):
        """``HFLM`` whose ``generate_until`` decodes greedily one request at a time, reusing the KV cache of the
        longest token prefix shared by all requests of a task (instruction + shots under a fixed template)."""

        def generate_until(self, requests, disable_tqdm: bool = False):
            out: list[str | None] = [None] * len(requests)
            by_task = defaultdict(list)
            for i, req in enumerate(requests):
                by_task[(req.task_name, json.dumps(req.args[1], sort_keys=True, default=str))].append(i)
            eos = self.tok_decode(self.eot_token_id, skip_special_tokens=False)
            done, start = 0, time.time()
            for idxs in by_task.values():
                kwargs = dict(requests[idxs[0]].args[1])
                until = handle_stop_sequences(kwargs.get("until"), eos=eos)
                max_gen = int(kwargs.get("max_gen_toks", self.max_gen_toks))
                encs = [self.tok_encode(requests[i].args[0]) for i in idxs]
                lcp, first = _common_prefix(encs), encs[0]
                # batches of similar length: padding every suffix to the longest of a batch costs quadratic time
                order = sorted(range(len(idxs)), key=lambda j: (len(encs[j]), j))
                idxs, encs = [idxs[j] for j in order], [encs[j] for j in order]
                with torch.no_grad():
                    prefix = self.model(torch.tensor([first[:lcp]]), use_cache=True).past_key_values if lcp else None
                    for b0 in range(0, len(idxs), BATCH):
                        chunk = list(zip(idxs, encs))[b0 : b0 + BATCH]
                        texts = self._batch_greedy([e[lcp:] for _, e in chunk], prefix, lcp, until, max_gen)
                        for (i, _), text in zip(chunk, texts):
                            out[i] = text
                            self.cache_hook.add_partial("generate_until", requests[i].args, text)
                done += len(idxs)
                print(f"  {done}/{len(requests)} requests, {time.time() - start:.0f} s", file=sys.stderr, flush=True)
            return out

        def _batch_greedy(self, suffixes, prefix, lcp, until, max_gen):
            """Greedy continuations of ``suffixes`` after the cached prefix, as one batch: each suffix left-padded
            between the prefix and itself (masked out), positions counted without the padding."""
            import copy

            n, width = len(suffixes), max(len(x) for x in suffixes)
            ids = torch.full((n, width), int(self.tokenizer.pad_token_id or 0), dtype=torch.long)
            smask = torch.zeros((n, width), dtype=torch.long)
            for r, x in enumerate(suffixes):
                ids[r, width - len(x) :] = torch.tensor(x)
                smask[r, width - len(x) :] = 1
            attn = torch.cat([torch.ones((n, lcp), dtype=torch.long), smask], 1)
            pos = lcp + (smask.cumsum(1) - 1).clamp(min=0)
            cache = None
            if prefix is not None:
                cache = copy.deepcopy(prefix)
                cache.batch_repeat_interleave(n)
            gen: list[list[int]] = [[] for _ in range(n)]
            live = [True] * n
            for _ in range(max_gen):
                res = self.model(
                    input_ids=ids, attention_mask=attn, position_ids=pos, past_key_values=cache, use_cache=True
                )
                cache = res.past_key_values
                nxt = res.logits[:, -1].argmax(-1)
                _extend(gen, live, [int(t) for t in nxt], self.eot_token_id, lambda g: self.tok_decode(g), until)
                if not any(live):
                    break
                ids = nxt[:, None]
                attn = torch.cat([attn, torch.ones((n, 1), dtype=torch.long)], 1)
                pos = pos[:, -1:] + 1
            return [postprocess_generated_text(self.tok_decode(g), until, None) for g in gen]

    return PrefixCachedHF


def _common_prefix(encs: list[list[int]]) -> int:
    """Length of the token prefix all encodings share, leaving at least one token of each to feed."""
    lcp, first = min(len(e) for e in encs) - 1, encs[0]
    for e in encs[1:]:
        k = 0
        while k < lcp and e[k] == first[k]:
            k += 1
        lcp = k
    return lcp


def _extend(gen: list[list[int]], live: list[bool], tokens: list[int], eot: int, decode, until) -> None:
    """Append one greedy token per live row; a row ends at the end-of-turn token or a stop sequence."""
    for r, tok in enumerate(tokens):
        if not live[r]:
            continue
        if tok == eot:
            live[r] = False
            continue
        gen[r].append(tok)
        if any(u and u in decode(gen[r]) for u in until):
            live[r] = False


def _cells(res: dict, task: str) -> tuple[list[str], list, list, list[str] | None]:
    """(doc ids, gold, predictions, label names) of one task's logged samples. A label family: the gold labels,
    the parsed labels and the label names. Any other family (entities, KPIs, ...): per document the gold side of
    the metric's sample item (the item without ``pred``), per cell the parsed prediction ``pred``, no names."""
    rows = sorted(res["samples"][task], key=lambda r: r["doc_id"])
    docs = [str(r["doc"].get("id", r["doc_id"])) for r in rows]
    if "label_names" in rows[0]["doc"]:
        gold = [r["doc"]["label"] for r in rows]
        pred = [str(r["filtered_resps"][0]) for r in rows]
        return docs, gold, pred, list(rows[0]["doc"]["label_names"])
    from lm_eval_enterprise.taskmeta import TaskMeta

    metric = TaskMeta.from_config(res["configs"][task]).primary_metric
    items = [r[metric] for r in rows]
    if not isinstance(items[0], dict):  # a mean metric (ROUGE): the per-cell value itself
        return docs, [None] * len(items), [float(v) for v in items], None
    return docs, [{k: v for k, v in it.items() if k != "pred"} for it in items], [it["pred"] for it in items], None


def make_runs(size: int, n_docs: int, out: Path, only: list[str] | None = None, reverse: bool = False) -> None:
    import torch

    from lm_eval_enterprise import TASK_DIR
    from lm_eval_enterprise.harness.models import smollm2_dir
    from lm_eval_enterprise.harness.runner import evaluate, load_tasks, make_task_manager
    from lm_eval_enterprise.prompting.budget import model_budget
    from lm_eval_enterprise.prompting.population import write_population

    torch.set_num_threads(1)
    model = str(smollm2_dir())
    pop_dir = Path(tempfile.mkdtemp(prefix="population_include_"))
    truth = json.loads(gzip.decompress(out.read_bytes())) if out.exists() else {}
    lm = _prefix_lm_class()(pretrained=model, dtype="float32", device="cpu", batch_size=1)
    meta = model_budget("hf", {"pretrained": model})
    for dataset, group in DATASETS:
        if truth.get(dataset, {}).get("complete") or (only and dataset not in only):
            continue
        write_population(dataset, size, 0, pop_dir)
        tm = make_task_manager([TASK_DIR, pop_dir], data_root=DATA, metadata=meta)
        tasks = load_tasks(tm, [group, f"{group}_population"])
        entry = truth.setdefault(dataset, {"group": group, "seconds": 0, "pred": {}, "axes": {}, "sets": {}})
        names = [
            t for t in sorted(tasks.leaves, key=lambda t: ("__p" in t, t)) if t.split("__")[-1] not in entry["pred"]
        ]
        if reverse:  # a second process working from the other end into its own --out (then --merge)
            names.reverse()
        for k in range(0, len(names), CHUNK):  # core five first, then the population in order; saved per chunk
            t0 = time.time()
            chunk = names[k : k + CHUNK]
            res = evaluate(
                lm, [tasks.leaves[t] for t in chunk], task_manager=tm, limit=n_docs, apply_chat_template=True
            )
            for task in chunk:
                _add_task(entry, res, task)
            entry["seconds"] += round(time.time() - t0)
            entry["complete"] = len(entry["pred"]) == len(tasks.leaves)
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(gzip.compress(json.dumps(truth, sort_keys=True).encode(), mtime=0))
            print(f"{dataset}: {len(entry['pred'])} templates x {len(entry['docs'])} docs, {entry['seconds']} s")


def _add_task(entry: dict, res: dict, task: str) -> None:
    """One task's cells into the ground truth, checked against lm-eval's own score of the task."""
    from lm_eval_enterprise.taskmeta import TaskMeta

    meta_t = res["configs"][task]["metadata"]
    tm = TaskMeta.from_metadata(meta_t)
    docs, gold, pred, names = _cells(res, task)
    entry.setdefault("docs", docs)
    entry.setdefault("gold", gold)
    if names is not None:
        entry.setdefault("labels", names)
    if (docs, gold) != (entry["docs"], entry["gold"]):
        raise SystemExit(f"{task}: documents differ from the other templates'")
    tid = tm.template_id
    entry["pred"][tid] = pred
    entry["sets"][tid] = tm.template_set
    if tm.population_axes is not None:
        entry["axes"][tid] = tm.population_axes
    entry["metric"] = tm.primary_metric
    entry["family"] = tm.task_family
    entry["positive"] = meta_t.get("positive_label")  # a table's own fact (extra metadata)
    lm_eval_score = res["results"][task][f"{tm.primary_metric},{tm.primary_filter}"]
    mine = _score(entry, [tid])[0]
    if abs(mine - lm_eval_score) > 1e-9:
        raise SystemExit(f"{task}: recomputed {mine} != lm-eval's {lm_eval_score}")


def merge(files: list[Path], out: Path) -> None:
    """Union of ground-truth files of several processes (e.g. one per dataset); a template run twice must have
    the same predictions in both (the runs are deterministic)."""
    truth: dict = {}
    for f in files:
        for d, e in json.loads(gzip.decompress(f.read_bytes())).items():
            o = truth.setdefault(d, e)
            if o is e:
                continue
            if (o["docs"], o["gold"], o.get("labels")) != (e["docs"], e["gold"], e.get("labels")):
                raise SystemExit(f"{f}: {d} has other documents than an earlier file")
            for k in ("pred", "sets", "axes"):
                for t, v in e[k].items():
                    if o[k].get(t, v) != v:
                        raise SystemExit(f"{f}: {d} {t}: {k} differs from an earlier file")
                    o[k][t] = v
            o["seconds"] += e["seconds"]
            o["complete"] = o.get("complete") or e.get("complete")
    out.write_bytes(gzip.compress(json.dumps(truth, sort_keys=True).encode(), mtime=0))


# ============================================================================================ scoring
AVERAGE = {"binary_f1": "binary", "weighted_f1": "weighted", "macro_f1": "macro"}


def cell_matrix(entry: dict, templates: list[str]):
    """The :class:`CellMatrix` of some templates of a dataset (every cell observed)."""
    from lm_eval_enterprise.estimator import CellMatrix

    if "labels" not in entry:
        return _item_matrix(entry, templates)
    labels = entry["labels"]
    idx = {lab: i for i, lab in enumerate(labels)}
    gold = [idx[g] for g in entry["gold"]]
    pred = np.array([[idx.get(p, -1) for p in entry["pred"][t]] for t in templates], dtype=float)
    positive = idx[entry["positive"]] if entry.get("positive") else None
    return CellMatrix.from_labels(
        gold, pred, len(labels), AVERAGE[entry["metric"]], positive=positive, templates=templates, name=entry["group"]
    )


def _item_matrix(entry: dict, templates: list[str]):
    """A family without labels: each template's sample items (gold side + parsed prediction) through the Sharpe
    tool's own per-document sufficient statistics (``scoring.corpus.doc_stats``), as a sparse run is read."""
    from lm_eval_enterprise import families
    from lm_eval_enterprise.estimator import CellMatrix
    from lm_eval_enterprise.scoring import corpus

    metric = entry["metric"]
    agg = families.aggregation_of(entry["family"], metric)
    scorers = [
        corpus.doc_stats(
            agg, [p if g is None else {**g, "pred": p} for g, p in zip(entry["gold"], entry["pred"][t])], metric
        )
        for t in templates
    ]
    feats = np.stack([sc.features for sc in scorers])
    return CellMatrix(
        list(templates),
        list(entry["docs"]),
        feats,
        np.ones(feats.shape[:2], bool),
        scorers[0].finalize,
        scorers[0].layout,
        name=entry["group"],
        metric=metric,
    )


def _score(entry: dict, templates: list[str]) -> np.ndarray:
    cm = cell_matrix(entry, templates)
    return cm.finalize(cm.features.sum(1))


def covariates(entry: dict, templates: list[str]) -> np.ndarray:
    from lm_eval_enterprise.estimator import axis_covariates

    return axis_covariates([entry["axes"][t] for t in templates])


# ============================================================================================ the report
def _summary(scores: np.ndarray, baseline: float) -> dict:
    from lm_eval_enterprise.estimator import population_quantiles
    from lm_eval_enterprise.scoring.sharpe_score import sharpe

    st = sharpe(scores, baseline, 1, 1.0, "off", 100)
    return {
        "mean": float(np.mean(scores)),
        "std": float(np.std(scores, ddof=1)),
        "sharpe": st["sharpe"],
        "quantiles": [float(q) for q in population_quantiles(scores)],
    }


def report(designs: int, n_boot: int, path: Path = GROUND_TRUTH, only: list[str] | None = None, sizes=(None,)) -> dict:
    from lm_eval_enterprise.estimator import estimate_population, naive_scores
    from lm_eval_enterprise.harness.cellplan import design, runs_to_share, stratified_design

    truth = json.loads(gzip.decompress(path.read_bytes()))
    out = {}
    for (dataset, entry), size in ((de, n) for de in truth.items() for n in sizes):
        if only and dataset not in only:
            continue
        pop = sorted(t for t, s in entry["sets"].items() if s == "population")
        if size is not None and size > len(pop):
            continue
        pop = pop[:size] if size else pop  # the first N templates of a population of the same seed
        core = sorted(t for t, s in entry["sets"].items() if s == "core")
        full = cell_matrix(entry, pop)
        scores = full.finalize(full.features.sum(1))
        baseline = _baseline(entry)
        ref = _summary(scores, baseline)
        ref_ci = _population_interval(full, baseline, n_boot)
        core_s = _summary(_score(entry, core), baseline)
        x = covariates(entry, pop)
        rows = {}
        for runs in (r for r in BUDGET_RUNS if r <= len(pop)):
            share = runs_to_share(runs, len(pop))
            acc = defaultdict(list)
            for r in range(designs):
                rng = random.Random(f"bench_population|{dataset}|{runs}|{r}")
                positive = full.positive_docs()  # a binary F1: stratified as the planner does (cellplan step 4)
                if positive is None:
                    plan = design(full.mask.shape[1], len(pop), share, rng)
                else:
                    plan, _ = stratified_design(list(positive), len(pop), share, rng, f"{dataset}: ")
                keep = np.zeros_like(full.mask)
                for d, ts in enumerate(plan):
                    keep[ts, d] = True
                cm = full.subset(keep)
                est = estimate_population(cm, baseline, covariates=x, n_boot=n_boot, seed=r)
                naive = _summary(naive_scores(cm), baseline)
                _collect(acc, est, naive, ref, ref_ci, core_s)
            rows[runs] = {k: float(np.nanmean(v)) if np.isfinite(v).any() else math.nan for k, v in acc.items()}
        out[f"{dataset} ({len(pop)})" if size else dataset] = {
            "ref": ref,
            "ref_ci": ref_ci,
            "core": core_s,
            "budgets": rows,
            "T": len(pop),
            "D": full.mask.shape[1],
            "baseline": baseline,
        }
    return out


def _baseline(entry: dict) -> float:
    """The Sharpe tool's default baseline: the exact expected F1 of the uniform predictor over the labels; 0 for a
    family whose metrics have the no-information baseline 0 (entities: docs/sharpe.md#generation-baseline)."""
    from lm_eval_enterprise import families
    from lm_eval_enterprise.scoring.chance import uniform_f1

    if "labels" not in entry:
        if not families.FAMILIES[entry["family"]].zero_baseline:
            raise SystemExit(f"{entry['group']}: no baseline for family {entry['family']} in this benchmark")
        return 0.0
    labels = entry["labels"]
    counts = [entry["gold"].count(lab) for lab in labels]
    positive = labels.index(entry["positive"]) if entry.get("positive") else None
    return uniform_f1(counts, AVERAGE[entry["metric"]], positive)


def _population_interval(full, baseline: float, n_boot: int) -> dict:
    """95 % interval of the full-population S (documents and templates resampled), for 'S inside'."""
    from lm_eval_enterprise.estimator import estimate_population

    est = estimate_population(full, baseline, covariates=None, n_boot=n_boot, seed=12345)
    return {"sharpe": est["ci"]["sharpe"], "mean": est["ci"]["mean"], "std": est["ci"]["std"]}


def _err(a, b) -> float:
    """|a − b|, NaN when either is undefined (σ = 0: no Sharpe score); averaged with nanmean."""
    return math.nan if a is None or b is None or not (math.isfinite(a) and math.isfinite(b)) else abs(a - b)


def _inside(value, ci) -> float:
    """1 when ``value`` lies in ``ci``, 0 when not (or no interval), NaN when the value itself is undefined."""
    if value is None or not math.isfinite(value):
        return math.nan
    return float(ci is not None and ci[0] <= value <= ci[1])


def _collect(acc, est, naive, ref, ref_ci, core) -> None:
    qe = np.array(est["quantiles"])
    qr = np.array(ref["quantiles"])
    acc["q_mae"].append(float(np.mean(np.abs(qe - qr))))
    acc["q_mae_naive"].append(float(np.mean(np.abs(np.array(naive["quantiles"]) - qr))))
    acc["q_mae_core"].append(float(np.mean(np.abs(np.array(core["quantiles"]) - qr))))
    for k in ("mean", "std", "sharpe"):
        acc[f"{k}_err"].append(_err(est[k], ref[k]))
        acc[f"{k}_err_naive"].append(_err(naive[k], ref[k]))
        acc[f"{k}_err_core"].append(_err(core[k], ref[k]))
    acc["s_in_pop_ci"].append(_inside(est["sharpe"], ref_ci["sharpe"]))
    acc["s_in_pop_ci_naive"].append(_inside(naive["sharpe"], ref_ci["sharpe"]))
    acc["s_in_pop_ci_core"].append(_inside(core["sharpe"], ref_ci["sharpe"]))
    ci = est["ci"]
    cov = [_inside(ref[k], ci[k]) for k in ("mean", "std", "sharpe")]
    cov += [_inside(q, c) for q, c in zip(ref["quantiles"], ci["quantiles"])]
    acc["coverage"].append(float(np.mean(cov)))
    acc["coverage_sharpe"].append(cov[2])
    run = est.get("ci_full_run") or {}  # what a full run of these templates would give: against the dense values
    cov = [_inside(ref[k], run.get(k)) for k in ("mean", "std", "sharpe")]
    cov += [_inside(q, c) for q, c in zip(ref["quantiles"], run.get("quantiles") or [None] * 5)]
    acc["coverage_run"].append(float(np.nanmean(cov)))
    acc["coverage_run_sharpe"].append(cov[2])
    acc["std_signed"].append(est["std"] - ref["std"])
    if est["sharpe"] is not None and ref["sharpe"] is not None:
        acc["sharpe_signed"].append(est["sharpe"] - ref["sharpe"])


def print_report(res: dict) -> None:
    for dataset, r in res.items():
        ref, core = r["ref"], r["core"]
        q = ", ".join(f"{v:.3f}" for v in ref["quantiles"])
        s_ci = r["ref_ci"]["sharpe"] or [None, None]
        print(
            f"\n**{dataset}** ({r['T']} population templates x {r['D']} documents; b = {r['baseline']:.3f}): "
            f"population μ {ref['mean']:.3f}, σ {ref['std']:.3f}, S {_f(ref['sharpe'])} "
            f"[{_f(s_ci[0])}, {_f(s_ci[1])}], quantiles {q}; "
            f"core five μ {core['mean']:.3f}, σ {core['std']:.3f}, S {_f(core['sharpe'])}, "
            f"quantile MAE {np.mean(np.abs(np.array(core['quantiles']) - np.array(ref['quantiles']))):.3f}\n"
        )
        print(
            "| runs (share) | quantile MAE est / naive / core5 | μ error est / naive / core5 | "
            "σ error est / naive / core5 | S error est / naive / core5 | S in pop. 95 % CI est / naive / core5 | "
            "est. population intervals cover the dense value (all stats / S) | est. full-run intervals cover "
            "(all stats / S) | σ / S bias est |"
        )
        print("|---|---|---|---|---|---|---|---|---|")
        for runs, b in r["budgets"].items():
            share = int(runs) / r["T"]
            print(
                f"| {runs} ({share:.1%}) | {b['q_mae']:.3f} / {b['q_mae_naive']:.3f} / {b['q_mae_core']:.3f} | "
                f"{b['mean_err']:.3f} / {b['mean_err_naive']:.3f} / {b['mean_err_core']:.3f} | "
                f"{b['std_err']:.3f} / {b['std_err_naive']:.3f} / {b['std_err_core']:.3f} | "
                f"{b['sharpe_err']:.2f} / {b['sharpe_err_naive']:.2f} / {b['sharpe_err_core']:.2f} | "
                f"{b['s_in_pop_ci']:.0%} / {b['s_in_pop_ci_naive']:.0%} / {b['s_in_pop_ci_core']:.0%} | "
                f"{b['coverage']:.0%} / {b['coverage_sharpe']:.0%} | "
                f"{b['coverage_run']:.0%} / {b['coverage_run_sharpe']:.0%} | "
                f"{b['std_signed']:+.3f} / {b['sharpe_signed']:+.2f} |"
            )


def _f(x) -> str:
    return "n/a" if x is None or not math.isfinite(x) else f"{x:.2f}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--make-runs", action="store_true", help="run SmolLM2 densely and write the ground truth")
    ap.add_argument("--report", action="store_true", help="subsample the ground truth and print the table")
    ap.add_argument("--size", type=int, default=30, help="population templates per dataset (runs)")
    ap.add_argument("--docs", type=int, default=100, help="documents per dataset (runs)")
    ap.add_argument("--designs", type=int, default=40, help="seeded designs per budget (report)")
    ap.add_argument("--boot", type=int, default=200, help="bootstrap resamples per estimate (report)")
    ap.add_argument("--json", type=Path, help="also write the report as JSON")
    ap.add_argument(
        "--sizes", nargs="*", type=int, default=[None], help="report the first N population templates (report)"
    )
    ap.add_argument("--datasets", nargs="*", help="only these datasets (runs, report)")
    ap.add_argument("--merge", nargs="*", type=Path, help="merge these ground-truth files into --out")
    ap.add_argument("--out", type=Path, default=GROUND_TRUTH, help="ground-truth file (runs)")
    ap.add_argument(
        "--reverse", action="store_true", help="run the templates last to first (a second process, own --out)"
    )
    args = ap.parse_args(argv)
    if args.merge:
        merge(args.merge, args.out)
    if args.make_runs:
        make_runs(args.size, args.docs, args.out, args.datasets, args.reverse)
    if args.report:
        res = report(args.designs, args.boot, args.out, args.datasets, args.sizes)
        print_report(res)
        if args.json:
            args.json.write_text(json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
