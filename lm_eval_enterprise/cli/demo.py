"""``make demo``: SmolLM2-135M-Instruct on the embedded fixture data of the vertical slice (five enterprise datasets
and the NLU suite's CoLA, all their templates), fully offline.

The model is an instruct model, so it is prompted through its chat template, as ``lm-eval-enterprise run
--apply_chat_template`` does: lm-eval's defaults with a chat template are kept — few-shot examples as
multi-turn user/assistant messages (``fewshot_as_multiturn``), the template's instruction as the system
message, and for log-likelihood tasks the answer choice scored right after the assistant turn opens (lm-eval
drops the target delimiter, so ``Yes`` rather than `` Yes``). Without it the model continues the raw prompt and
fails the answer format far more often (``--no_chat_template`` reproduces that; README: "The demo").

Prints a per-dataset × per-template table of the primary metric (and format-failure rate), the share of
format failures, then the Sharpe leaderboard across templates. Results and samples are written in lm-eval's
layout under ``--output_path``.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from ..taskmeta import TaskMeta

# five enterprise datasets and one of the NLU suite (CoLA: short sentences, zero-shot, answers of a few tokens)
SLICE = ["ent_gold_news", "ent_kpi_edgar", "ent_fiqa_qa", "ent_convfinqa", "ent_legal_summarization", "nlu_cola"]
DEFAULT_LIMIT = 4  # documents per task variant; keeps the demo well under 10 minutes on 2 CPU cores


def _available(names: list[str], task_manager) -> list[str]:
    """The ``names`` the task manager's index knows."""
    return [n for n in names if n in task_manager.all_groups or n in task_manager.all_tasks]


def _demo_docs(meta: TaskMeta, n: int) -> int:
    """Documents the demo runs per variant: ``n`` items — one whole query for ranking tasks (one document per
    (query, candidate): ``candidates_per_query``), whole headlines for gold_news (one document per (headline,
    question): ``n`` × its ``questions``)."""
    if meta.candidates_per_query:
        return meta.candidates_per_query
    return n * max(1, len(meta.questions))


def score_table(results: dict) -> list[tuple[str, str, str, float, float | None]]:
    """(variant_group, template_id, metric, score, format_failure) for every task variant in a results dict."""
    rows = []
    for task, cfg in results["configs"].items():
        meta = TaskMeta.from_config(cfg)
        if not meta.is_variant:
            continue
        res = results["results"][task]
        metric, filt = meta.primary_metric, meta.primary_filter
        rows.append(
            (
                meta.variant_group,
                meta.template_id,
                metric,
                res[f"{metric},{filt}"],
                res.get(f"format_failure,{filt}"),
            )
        )
    return sorted(rows)


def format_table(rows) -> str:
    groups = sorted({r[0] for r in rows})
    tids = sorted({r[1] for r in rows}, key=lambda t: (len(t), t))
    by = {(r[0], r[1]): r for r in rows}
    head = "| dataset (metric) | " + " | ".join(tids) + " |"
    lines = [head, "|" + "---|" * (len(tids) + 1)]
    for g in groups:
        metric = next(r[2] for r in rows if r[0] == g)
        cells = []
        for t in tids:
            r = by.get((g, t))
            if r is None:
                cells.append("–")
            else:
                ff = f" (fail {r[4]:.0%})" if r[4] is not None else ""
                cells.append(f"{r[3]:.3f}{ff}")
        lines.append(f"| {g.removeprefix('ent_')} ({metric}) | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def format_failure_rate(rows) -> float | None:
    """Mean format-failure rate over the generate variants of ``score_table`` rows (None: none has one)."""
    rates = [r[4] for r in rows if r[4] is not None]
    return sum(rates) / len(rates) if rates else None


def run_demo(
    limit: int | None = None, out_dir: str = "demo_out", model_dir: str | None = None, chat_template: bool = True
) -> int:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from lm_eval.loggers import EvaluationTracker

    from ..data import EMBEDDED
    from ..harness.models import smollm2_dir
    from ..harness.runner import evaluate, load_tasks, make_task_manager
    from ..prompting.budget import model_budget

    t0 = time.time()
    model = Path(model_dir) if model_dir else smollm2_dir()
    print(f"model: {model} (ready in {time.time() - t0:.1f}s)")
    model_args = {"pretrained": str(model), "dtype": "float32"}
    # the model's own context window and tokenizer as the prompt budget, as `lm-eval-enterprise run` does
    tm = make_task_manager(metadata={**model_budget("hf", model_args), "data_root": EMBEDDED})
    tasks = load_tasks(tm, _available(SLICE, tm))  # built once: the sample lists below read them, lm-eval runs them
    n = limit or DEFAULT_LIMIT
    samples = {
        name: list(range(_demo_docs(TaskMeta.from_config(task.config), n))) for name, task in tasks.leaves.items()
    }
    tracker = EvaluationTracker(output_path=out_dir)
    res = evaluate(
        "hf",
        tasks.top,
        task_manager=tm,
        model_args=model_args,
        device="cpu",
        batch_size=4,
        samples=samples,
        evaluation_tracker=tracker,
        apply_chat_template=chat_template,
        fewshot_as_multiturn=chat_template,
    )
    from ..harness.runner import save_results

    save_results(tracker, res, res.pop("samples"))
    rows = score_table(res)
    how = "with its chat template" if chat_template else "WITHOUT its chat template (--no_chat_template)"
    print(f"\n{model.name} {how} on the embedded fixture data ({n} docs per variant; {time.time() - t0:.0f}s)\n")
    print(format_table(rows))
    rate = format_failure_rate(rows)
    if rate is not None:
        print(f"\nformat failures: {rate:.0%} of generated answers (mean over the generate variants)")
    try:
        from ..sharpe.pipeline import leaderboard_markdown
    except ImportError:
        return 0
    print("\nSharpe score across templates (uniform baseline, ddof 1):\n")
    print(leaderboard_markdown([out_dir]))
    return 0


def _demo(args) -> int:
    return run_demo(
        limit=args.limit, out_dir=args.output_path, model_dir=args.model_dir, chat_template=not args.no_chat_template
    )


def register(sub) -> None:
    """The ``demo`` parser on the top-level subparsers ``sub``."""
    from .common import add_option, positive_int

    p = sub.add_parser("demo", help="offline demo with SmolLM2-135M-Instruct on the embedded fixture data")
    p.add_argument(
        "--limit",
        type=positive_int,
        default=None,
        metavar="<n>",
        help="documents per task variant (default: the demo's setting)",
    )
    p.add_argument("--output_path", "-o", default="demo_out", metavar="<path>")
    add_option(
        p,
        "--model_dir",
        "--model-dir",
        default=None,
        metavar="<dir>",
        help="use this HF model folder instead of SmolLM2",
    )
    p.add_argument(
        "--no_chat_template",
        action="store_true",
        help="prompt the instruct model without its chat template (as plain completion)",
    )
    p.set_defaults(handler=_demo)
