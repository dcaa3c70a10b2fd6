"""Synthetic lm-eval output folders for tests and the benchmark (not used by the aggregation itself).

:func:`write_run` writes ``results_<ts>.json`` and ``samples_<task>_<ts>.jsonl`` in lm-eval 0.4.13's layout
(docs/lm_eval.md#output-files) for any family of :mod:`lm_eval_enterprise.families`. Per-document metric
values come from the real ``process_results`` hooks and the results rows from the real aggregations, so the files
are what lm-eval writes for our tasks. :func:`make_docs` / :func:`make_outputs` generate documents and model
outputs of a chosen quality for every family.
"""

from __future__ import annotations

import hashlib
import json
import random
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lm_eval_enterprise import families
from lm_eval_enterprise.configkeys import QUESTION_FIELD
from lm_eval_enterprise.scoring import hooks
from lm_eval_enterprise.scoring.metrics import INVALID
from lm_eval_enterprise.taskmeta import TaskMeta


@dataclass
class SynthTask:
    """One template variant: its docs and the model's (filtered) outputs, one per doc.

    Outputs are answer strings (``"[invalid]"`` = format failure) for generate families and
    ``(ll_no, ll_yes)`` pairs for the log-likelihood ranking family.
    """

    task: str
    family: str
    variant_group: str
    template_id: str
    docs: list[dict]
    outputs: list[Any]
    primary_metric: str
    dataset: str = "synthetic"
    domain: str = "finance"
    subtask: str | None = None  # metric version ≤ 1.2's layout (a question as a task): results the tool refuses
    metadata: dict | None = None  # replaces the generated metadata entirely when given (None → generated)
    extra_metadata: dict = field(default_factory=dict)
    n_shot: int = 0
    hook: str | None = None  # process_results in hooks (default: the family's; ``<family>_helm`` adds
    #                                     the HELM-reading metric of the family's record)

    @property
    def filter(self) -> str:
        return "none" if families.get(self.family).loglikelihood else "answer"

    @property
    def metrics(self) -> dict[str, tuple[str, bool]]:
        """metric → (aggregation, higher_is_better) of the task's hook."""
        fam = families.get(self.family)
        extra = fam.helm_metrics if (self.hook or "").endswith("_helm") else {}
        return {**fam.metrics, **extra}


def _hash(obj: Any) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True).encode()).hexdigest()


def metadata_for(t: SynthTask) -> dict:
    """The variant metadata the generator would write (:class:`~lm_eval_enterprise.taskmeta.TaskMeta`), then the
    task's ``extra_metadata`` as given (tests set any key through it, schema keys included)."""
    meta = TaskMeta(
        version=1.2 if t.subtask else 1.0,
        dataset=t.dataset,
        domain=t.domain,
        variant_group=t.variant_group,
        template_id=t.template_id,
        primary_metric=t.primary_metric,
        primary_filter=t.filter,
        task_family=t.family,
    ).to_metadata()
    if t.subtask:
        meta["subtask"] = t.subtask  # the shape of results of version <= 1.2
    meta.update(t.extra_metadata)
    return meta


def sample_lines(t: SynthTask, prompt_chars: int = 300) -> tuple[list[dict], dict]:
    """(sample dicts, results row) computed with the family's hook and aggregations."""
    proc = getattr(hooks, t.hook or t.family)
    metrics = t.metrics
    lines, per_metric = [], {m: [] for m in metrics}
    pad = ("Context: " + "lorem ipsum dolor sit amet " * (prompt_chars // 27 + 1))[:prompt_chars]
    for i, (doc, out) in enumerate(zip(t.docs, t.outputs)):
        if families.get(t.family).loglikelihood:
            ll_no, ll_yes = out
            results = [(ll_no, False), (ll_yes, False)]
            resps = [[[str(ll_no), "False"]], [[str(ll_yes), "False"]]]
            filtered = [[str(ll_no), "False"], [str(ll_yes), "False"]]
        else:
            results = [out]
            resps, filtered = [[f" {out}"]], [out]
        vals = proc(doc, results)
        for m in metrics:
            per_metric[m].append(vals[m])
        target = doc.get("label", doc.get("target", doc.get("answer", "")))
        line = {
            "doc_id": i,
            "doc": doc,
            "target": str(target),
            "arguments": {
                "gen_args_0": {
                    "arg_0": f"{pad}\n{t.template_id}: {doc.get('text', '')}\nAnswer:",
                    "arg_1": {"until": ["\n"], "max_gen_toks": 5},
                }
            },
            "resps": resps,
            "filtered_resps": filtered,
            "filter": t.filter,
            "metrics": list(metrics),
            "doc_hash": _hash(doc),
            "prompt_hash": _hash([t.task, i]),
            "target_hash": _hash(str(target)),
        }
        line.update(vals)
        lines.append(line)
    row = {"name": t.task, "alias": t.task, "sample_len": len(lines)}
    for m, (agg, _) in metrics.items():
        items = per_metric[m]
        if agg == "mean":
            v = sum(items) / len(items)
            row[f"{m},{t.filter}"] = v
            row[f"{m}_stderr,{t.filter}"] = 0.0
        else:
            row[f"{m},{t.filter}"] = getattr(hooks, agg)(items)
            row[f"{m}_stderr,{t.filter}"] = "N/A"
    return lines, row


def write_run(
    out_dir: str | Path,
    model_name: str,
    tasks: Sequence[SynthTask],
    timestamp: str = "2026-01-01T00-00-00.000000",
    with_samples: bool = True,
    model_args: str | None = None,
    limit: int | None = None,
    chat_template_sha: str | None = None,
    prompt_chars: int = 300,
    dumps=json.dumps,
    config_extra: dict | None = None,
) -> Path:
    """Write one lm-eval run (results + samples) into ``out_dir/<model_name_sanitized>/``; returns the results path.
    ``config_extra`` is merged into ``results["config"]`` (e.g. the label a regex-constrained run carries)."""
    sanitized = model_name.replace("/", "__")
    d = Path(out_dir) / sanitized
    d.mkdir(parents=True, exist_ok=True)
    results, configs, hib, n_samples, n_shot, versions = {}, {}, {}, {}, {}, {}
    for t in tasks:
        lines, row = sample_lines(t, prompt_chars)
        results[t.task] = row
        configs[t.task] = {
            "task": t.task,
            "output_type": families.get(t.family).output_type,
            "num_fewshot": t.n_shot,
            "metadata": metadata_for(t) if t.metadata is None else t.metadata,
        }
        hib[t.task] = {m: h for m, (_, h) in t.metrics.items()}
        n_samples[t.task] = {"original": len(lines), "effective": len(lines)}
        n_shot[t.task] = t.n_shot
        versions[t.task] = 1.0
        if with_samples:
            with open(d / f"samples_{t.task}_{timestamp}.jsonl", "w", encoding="utf-8") as f:
                for line in lines:
                    f.write(dumps(line, ensure_ascii=False) + "\n")
    data = {
        "results": results,
        "group_subtasks": {t.task: [] for t in tasks},
        "configs": configs,
        "versions": versions,
        "n-shot": n_shot,
        "higher_is_better": hib,
        "n-samples": n_samples,
        "config": {
            "model": "hf",
            "model_args": model_args or f"pretrained={model_name},dtype=float32",
            "model_dtype": "torch.float32",
            "model_sha": "",
            "batch_size": 1,
            "device": "cpu",
            "limit": limit,
            "bootstrap_iters": 0,
            "random_seed": 0,
            **(config_extra or {}),
        },
        "git_hash": "synthetic",
        "date": 0.0,
        "lm_eval_version": "0.4.13",
        "model_name": model_name,
        "model_name_sanitized": sanitized,
        "system_instruction": None,
        "system_instruction_sha": None,
        "fewshot_as_multiturn": False,
        "chat_template": None,
        "chat_template_sha": chat_template_sha,
    }
    path = d / f"results_{timestamp}.json"
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


# ------------------------------------------------------------------------------------------------ generators
# the label set of a synthetic classification task, by the family's primary metric (binary: the first is positive)
LABELS = {
    "weighted_f1": ["positive", "neutral", "negative"],
    "macro_f1": ["T1001", "T1002", "T1003", "T1004"],
    "binary_f1": ["relevant", "irrelevant"],
    "mcc": ["unacceptable", "acceptable"],
    "accuracy": ["yes", "it is not possible to tell", "no"],
}
ENTITY_TYPES = ["person", "organization", "location", "miscellaneous"]
WORDS = "alpha beta gamma delta revenue profit bank court climate network".split()


def _labels_doc(rng: random.Random, i: int, family: str, n_candidates: int) -> dict:
    primary = families.get(family).primary
    labels = LABELS[primary]
    doc = {"id": f"d{i}", "text": f"document {i}", "label": rng.choice(labels), "label_names": labels}
    if primary == "binary_f1":
        doc["positive_label"] = labels[0]
    return doc


def _entity_doc(rng: random.Random, i: int, family: str, n_candidates: int) -> dict:
    ents = [(rng.choice(WORDS), rng.choice(ENTITY_TYPES)) for _ in range(rng.randint(0, 3))]
    return {
        "id": f"d{i}",
        "text": f"sentence {i}",
        "entity_types": ENTITY_TYPES,
        "target": ", ".join(f"{p} ({t})" for p, t in ents) or "none",
    }


def _kpi_doc(rng: random.Random, i: int, family: str, n_candidates: int) -> dict:
    ents = [(" ".join(rng.sample(WORDS, 2)), rng.choice(["kpi", "cy", "py", "py1"])) for _ in range(2)]
    return {"id": f"d{i}", "text": f"sentence {i}", "target": ", ".join(f"{p} [{t}]" for p, t in ents)}


def _ranking_doc(rng: random.Random, i: int, family: str, n_candidates: int) -> dict:
    q, c = divmod(i, n_candidates)
    relevant = c == (q * 7) % n_candidates or (q % 2 == 1 and c == (q * 3 + 1) % n_candidates)
    return {
        "qid": f"q{q}",
        "docid": f"p{i}",
        "question": f"question {q}",
        "passage": f"passage {i}",
        "cand_index": c,
        "label": "Yes" if relevant else "No",
    }


def _numeric_doc(rng: random.Random, i: int, family: str, n_candidates: int) -> dict:
    return {"id": f"d{i}", "context": f"table {i}", "question": "how much?", "answer": str(rng.randint(1, 99))}


def _summarization_doc(rng: random.Random, i: int, family: str, n_candidates: int) -> dict:
    return {"id": f"d{i}", "document": f"text {i}", "summary": " ".join(rng.sample(WORDS, 4))}


def _choice_doc(rng: random.Random, i: int, family: str, n_candidates: int) -> dict:
    k = 4
    ans = rng.randrange(k)
    return {
        "id": f"d{i}",
        "question": f"q {i}",
        "choices": [f"c{j}" for j in range(k)],
        "answer": ans,
        "answer_letter": "ABCD"[ans],
    }


def _similarity_doc(rng: random.Random, i: int, family: str, n_candidates: int) -> dict:
    score = round(rng.uniform(0, 5), 1)
    return {
        "id": f"d{i}",
        "sentence1": f"first {i}",
        "sentence2": f"second {i}",
        "score": score,
        "target": f"{score:g}",
    }


def _qa_doc(rng: random.Random, i: int, family: str, n_candidates: int) -> dict:
    answers = [" ".join(rng.sample(WORDS, 2)) for _ in range(rng.randint(1, 3))]
    return {
        "id": f"d{i}",
        "title": "t",
        "context": f"passage {i}",
        "question": "what?",
        "answers": answers,
        "target": answers[0],
    }


def _choice_text_doc(rng: random.Random, i: int, family: str, n_candidates: int) -> dict:
    from lm_eval_enterprise.data import option_fields

    return option_fields(
        {"id": f"d{i}", "question": f"q {i}", "choices": rng.sample(WORDS, 5), "answer": rng.randrange(5)}
    )


def _ranking_loglikelihood_output(rng: random.Random, doc: dict, good: bool, fail: bool):
    rel = doc["label"] == "Yes"
    s = rng.gauss(1.0 if (rel and good) or (not rel and not good) else -1.0, 1.0)
    return (round(-s / 2, 6), round(s / 2, 6))


def _answer_output(gold, wrong):
    """An output generator from the gold answer and a wrong answer drawn with ``rng`` (``fail``: [invalid])."""

    def output(rng: random.Random, doc: dict, good: bool, fail: bool):
        return INVALID if fail else gold(doc) if good else wrong(rng, doc)

    return output


# the generators a family's record names (``Family.synthetic``, lm_eval_enterprise.families): (document, output)
GENERATORS = {
    "labels": (
        _labels_doc,
        _answer_output(
            lambda d: d["label"], lambda rng, d: rng.choice([x for x in d["label_names"] if x != d["label"]])
        ),
    ),
    "entity": (_entity_doc, _answer_output(lambda d: d["target"], lambda rng, d: f"{rng.choice(WORDS)} (person)")),
    "kpi": (_kpi_doc, _answer_output(lambda d: d["target"], lambda rng, d: f"{rng.choice(WORDS)} [kpi]")),
    "ranking_loglikelihood": (_ranking_doc, _ranking_loglikelihood_output),
    "ranking_generate": (
        _ranking_doc,
        lambda rng, d, good, fail: INVALID if fail else "Yes" if (d["label"] == "Yes") == good else "No",
    ),
    "numeric": (_numeric_doc, _answer_output(lambda d: d["answer"], lambda rng, d: str(int(d["answer"]) + 1))),
    "summarization": (
        _summarization_doc,
        _answer_output(lambda d: d["summary"], lambda rng, d: " ".join(rng.sample(WORDS, 3))),
    ),
    "similarity": (
        _similarity_doc,
        _answer_output(lambda d: d["target"], lambda rng, d: f"{rng.uniform(0, 5):.1f}"),
    ),
    "extractive_qa": (
        _qa_doc,
        _answer_output(lambda d: d["target"], lambda rng, d: " ".join(rng.sample(WORDS, 2))),
    ),
    "choice_text": (
        _choice_text_doc,
        _answer_output(
            lambda d: d["answer_text"], lambda rng, d: rng.choice([c for c in d["choices"] if c != d["answer_text"]])
        ),
    ),
    "multiple_choice": (
        _choice_doc,
        _answer_output(
            lambda d: d["answer_letter"], lambda rng, d: rng.choice([x for x in "ABCD" if x != d["answer_letter"]])
        ),
    ),
}


def _generators(family: str):
    try:
        return GENERATORS[families.get(family).synthetic]
    except KeyError:
        raise ValueError(f"unknown family {family}") from None


def make_docs(family: str, n: int, seed: int = 0, n_candidates: int = 20) -> list[dict]:
    """``n`` documents (ranking families: ``n`` candidate docs, i.e. n // n_candidates queries)."""
    rng = random.Random(seed)
    doc = _generators(family)[0]
    return [doc(rng, i, family, n_candidates) for i in range(n)]


def make_outputs(family: str, docs: list[dict], p_correct: float, p_fail: float = 0.0, seed: int = 0) -> list:
    """Model outputs: gold with probability ``p_correct``, a format failure with ``p_fail``, else a wrong answer."""
    rng = random.Random(seed)
    output = _generators(family)[1]
    outs = []
    for doc in docs:
        u = rng.random()
        fail = u < p_fail
        good = not fail and rng.random() < p_correct
        outs.append(output(rng, doc, good, fail))
    return outs


def family_task(
    family: str,
    template_id: str,
    n_docs: int,
    p_correct: float,
    p_fail: float = 0.0,
    seed: int = 0,
    group: str | None = None,
    questions: Sequence[str] = (),
    **kw,
) -> SynthTask:
    """A ready SynthTask of ``family`` (docs seeded by ``seed`` only, outputs by (seed, template, quality));
    ``questions``: a dataset made of questions (gold_news), every document asked each of them (``question_id``)."""
    group = group or f"ent_syn_{family}"
    docs = make_docs(family, n_docs, seed)
    if questions:
        docs = [{**d, "id": f"{d['id']}/{q}", QUESTION_FIELD: q} for d in docs for q in questions]
    out_seed = zlib.crc32(repr((seed, template_id, round(p_correct, 6), round(p_fail, 6))).encode())
    prim = families.get(family).primary
    return SynthTask(
        task=f"{group}__{template_id}",
        family=family,
        variant_group=group,
        template_id=template_id,
        docs=docs,
        outputs=make_outputs(family, docs, p_correct, p_fail, out_seed),
        primary_metric=kw.pop("primary_metric", prim),
        dataset=kw.pop("dataset", group[4:]),
        **kw,
    )


def choice_task(
    group: str,
    tid: str,
    correct: Sequence[int],
    parsed: Sequence[bool] | None = None,
    k: int = 3,
    dataset: str | None = None,
    subtask: str | None = None,
    **kw,
) -> SynthTask:
    """A multiple_choice variant whose per-document correctness (and parse success) is given exactly; its uniform
    baseline is 1/k. ``dataset`` defaults to the group name without ``ent_``."""
    docs = [
        {"id": f"d{i}", "question": f"q{i}", "choices": [f"c{j}" for j in range(k)], "answer": 0, "answer_letter": "A"}
        for i in range(len(correct))
    ]
    parsed = parsed if parsed is not None else [True] * len(correct)
    outs = ["A" if c else ("B" if ok else INVALID) for c, ok in zip(correct, parsed)]
    return SynthTask(
        task=f"{group}__{tid}",
        family="multiple_choice",
        variant_group=group,
        template_id=tid,
        docs=docs,
        outputs=outs,
        primary_metric="accuracy",
        dataset=dataset or group[4:],
        subtask=subtask,
        **kw,
    )


def correct_counts(n_correct: int, n: int = 100) -> list[int]:
    """Per-document correctness with ``n_correct`` right answers out of ``n`` (score n_correct / n)."""
    return [1] * n_correct + [0] * (n - n_correct)


# ------------------------------------------------------------------------------------------------ report scenario
REPORT_MODELS = (
    ("HuggingFaceTB/SmolLM2-135M-Instruct", 0.55, 0.0),
    ("Qwen/Qwen2.5-0.5B-Instruct", 0.68, 0.04),
    ("/models/checkpoints/local-finetune-step-0042", 0.45, 0.02),
)
REPORT_DATASETS = (
    ("fiqa_sa", "classification_weighted", "finance"),
    ("kpi_edgar", "kpi", "finance"),
    ("fiqa_qa", "ranking", "finance"),
    ("convfinqa", "numeric", "finance"),
    ("credit_risk_ner", "entity", "finance"),
    ("casehold", "multiple_choice", "legal"),
    ("legal_summarization", "summarization", "legal"),
    ("tram", "classification_macro", "cyber"),
    ("securenlp", "classification_binary", "cyber"),
)


def report_scenario(out_dir: str | Path, n_docs: int = 40, toy: bool = True) -> Path:
    """lm-eval output folders of three models × ten dataset rows (one made of two questions) × five templates, with
    the situations a report must show clearly: a summarization dataset where one model fails to answer in 78 % of
    the outputs (the other models in 0 %), per-template spread, long and local model names, and (``toy``) the
    embedded-fixture marker in every task's metadata. Used by the report tests and to look at a report."""
    extra = {"data_root": "embedded"} if toy else {}
    for mi, (model, quality, fail) in enumerate(REPORT_MODELS):
        tasks = []
        for di, (ds, family, domain) in enumerate(REPORT_DATASETS):
            loglikelihood = families.get(family).loglikelihood
            n = 3 * 20 if loglikelihood else n_docs
            for t in range(1, 6):
                q = min(0.95, quality + 0.05 * ((t * 3 + di + mi) % 4) - 0.04 * (t == 4))
                f = 0.78 if (ds == "legal_summarization" and mi == 1) else (0.0 if loglikelihood else fail)
                tasks.append(
                    family_task(
                        family, f"t{t}", n, q, f, seed=di, group=f"ent_{ds}", domain=domain, extra_metadata=dict(extra)
                    )
                )
        for t in range(1, 6):
            q = min(0.95, quality + 0.04 * ((t + mi) % 3))
            tasks.append(
                family_task(
                    "classification_weighted",
                    f"t{t}",
                    n_docs // 2,
                    q,
                    fail,
                    seed=11,
                    group="ent_gold_news",
                    domain="finance",
                    questions=("direction_up", "price_or_not"),
                    extra_metadata=dict(extra),
                )
            )
        path = write_run(out_dir, model, tasks)
        if mi == 2:  # a model-level flag: samples of one template lost (scores from the results file only)
            next(path.parent.glob("samples_ent_tram__t2_*.jsonl")).unlink()
    return Path(out_dir)
