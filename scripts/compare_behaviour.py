#!/usr/bin/env python
"""Before/after check of a refactoring: dump what every task variant does, then diff two dumps.

``dump OUT.json.gz [--data-root DIR] [--groups G ...] [--metadata KEY=VALUE ...]`` runs every task variant (the
``enterprise`` and ``nlu`` groups plus the standalone groups, or the task and group names of ``--groups``) through
lm-eval on a data root (default ``embedded``, the fixture data) with the oracle LM (gold target as output) and the
garbage LM of :mod:`testkit.testing`, and writes, per variant:

* every document (record) and every request lm-eval built for it: its ``arguments`` (the whole prompt, few-shot block included, and the
  continuation or generation kwargs), byte for byte;
* the per-document metric items and the aggregated results of both LMs (the oracle scores).

``diff A.json.gz B.json.gz`` compares two dumps and prints one line per difference (exit 1 when any): variants
present in only one dump, prompts that differ (with the first differing character), scores that differ.

``--metadata`` adds run metadata (a JSON value or a string), e.g. the exact context budget of a model:
``--metadata max_context_tokens=8192 context_tokenizer=<model folder>`` (with ``--data-root`` a folder of genuine
data and ``--groups`` the variants of the datasets it holds).

Run ``dump`` on the old checkout and on the new one (each in its own environment) and ``diff`` the files. Only
lm-eval and :mod:`testkit.testing` are used, so the script runs on either side of a refactoring.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # testkit/ (test doubles) beside the package


def _jsonable(value: Any) -> Any:
    """Results and metric items as plain JSON (NaN kept comparable as the string "nan")."""
    if isinstance(value, float):
        return "nan" if math.isnan(value) else value
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, (str, int, bool)):
        return value
    if hasattr(value, "item"):  # numpy scalars
        return _jsonable(value.item())
    return repr(value)


def _groups() -> list[str]:
    from lm_eval_enterprise import TASK_DIR
    from lm_eval_enterprise.prompting.templating import all_specs

    specs = [s for _, s in all_specs(Path(TASK_DIR))]
    suites = ["enterprise"] + (["nlu"] if (Path(TASK_DIR) / "nlu" / "_nlu.yaml").exists() else [])
    return suites + [s.base_name for s in specs if not s.in_domain_group]


def _metadata(pairs: list[str]) -> dict[str, Any]:
    """``KEY=VALUE`` pairs as run metadata (the value parsed as JSON when it is JSON, else kept as a string)."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise SystemExit(f"--metadata {pair!r}: expected KEY=VALUE")
        try:
            out[key] = json.loads(value)
        except json.JSONDecodeError:
            out[key] = value
    return out


def _run(lm_name: str, data_root: str, groups: list[str] | None = None, metadata: dict | None = None) -> dict:
    import lm_eval

    try:  # the test doubles live beside the package (testkit/) since the package layout of #18; before, inside it
        from testkit import testing
    except ImportError:
        from lm_eval_enterprise import testing

    groups = groups or _groups()
    tm, built = testing.build_tasks(groups, data_root, **(metadata or {}))
    # older checkouts return lm-eval's nested task dict and flatten it with testing.leaf_tasks; newer ones the leaves
    tasks = testing.leaf_tasks(built) if hasattr(testing, "leaf_tasks") else built
    lm = getattr(testing, lm_name)(tasks)
    return lm_eval.simple_evaluate(model=lm, tasks=groups, task_manager=tm, log_samples=True, bootstrap_iters=0)


def dump(out: Path, data_root: str, groups: list[str] | None = None, metadata: dict | None = None) -> None:
    variants: dict[str, dict] = {}
    for lm_name in ("OracleLM", "GarbageLM"):
        res = _run(lm_name, data_root, groups, metadata)
        for task, samples in sorted(res["samples"].items()):
            v = variants.setdefault(task, {"requests": None})
            docs = []
            for s in sorted(samples, key=lambda s: (s["doc_id"], s["filter"])):
                metrics = {k: s[k] for k in s["metrics"]}
                docs.append(
                    {
                        "doc_id": s["doc_id"],
                        "filter": s["filter"],
                        "doc": _jsonable(s["doc"]),
                        "arguments": _jsonable(s["arguments"]),
                        "target": _jsonable(s["target"]),
                        "filtered_resps": _jsonable(s["filtered_resps"]),
                        "metrics": _jsonable(metrics),
                    }
                )
            requests = [{k: d[k] for k in ("doc_id", "filter", "doc", "arguments", "target")} for d in docs]
            if v["requests"] is None:
                v["requests"] = requests
            elif v["requests"] != requests:
                raise SystemExit(f"{task}: the two LMs saw different prompts (nondeterministic prompt building?)")
            v[lm_name] = {
                "results": _jsonable(res["results"].get(task)),
                "docs": [{k: d[k] for k in ("doc_id", "filter", "filtered_resps", "metrics")} for d in docs],
            }
    out.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(out, "wt", encoding="utf-8") as f:
        json.dump({"data_root": data_root, "metadata": metadata or {}, "variants": variants}, f, sort_keys=True)
    n_req = sum(len(v["requests"]) for v in variants.values())
    print(f"wrote {out}: {len(variants)} variants, {n_req} documents")


def _load(path: Path) -> dict:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def _first_diff(a: str, b: str) -> str:
    i = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return f"first difference at character {i}: {a[max(0, i - 30) : i + 30]!r} vs {b[max(0, i - 30) : i + 30]!r}"


def diff(a_path: Path, b_path: Path, show: int = 20) -> int:
    a, b = _load(a_path)["variants"], _load(b_path)["variants"]
    lines: list[str] = []
    for task in sorted(set(a) - set(b)):
        lines.append(f"{task}: only in {a_path.name}")
    for task in sorted(set(b) - set(a)):
        lines.append(f"{task}: only in {b_path.name}")
    same_prompts = same_scores = 0
    docs = 0
    for task in sorted(set(a) & set(b)):
        va, vb = a[task], b[task]
        ra, rb = va["requests"], vb["requests"]
        docs += len(ra)
        if ra == rb:
            same_prompts += 1
        elif len(ra) != len(rb):
            lines.append(f"{task}: {len(ra)} vs {len(rb)} documents")
        else:
            for da, db in zip(ra, rb):
                if da != db:
                    sa, sb = json.dumps(da["arguments"]), json.dumps(db["arguments"])
                    if sa != sb:
                        what = _first_diff(sa, sb)
                    elif da["doc"] != db["doc"]:
                        what = "the document (record) differs"
                    else:
                        what = f"target {da['target']!r} vs {db['target']!r}"
                    lines.append(f"{task} doc {da['doc_id']}: request differs; {what}")
                    break
        scores_equal = True
        for lm in ("OracleLM", "GarbageLM"):
            if va[lm] != vb[lm]:
                scores_equal = False
                res_a, res_b = va[lm]["results"] or {}, vb[lm]["results"] or {}
                keys = sorted(k for k in set(res_a) | set(res_b) if res_a.get(k) != res_b.get(k))
                detail = (
                    ", ".join(f"{k}: {res_a.get(k)!r} vs {res_b.get(k)!r}" for k in keys[:4])
                    or "per-document items differ"
                )
                lines.append(f"{task} {lm}: {detail}")
        same_scores += scores_equal
    for line in lines[:show]:
        print(line)
    if len(lines) > show:
        print(f"... and {len(lines) - show} more differences")
    common = len(set(a) & set(b))
    print(
        f"{common} common variants, {docs} documents: prompts identical in {same_prompts}, "
        f"scores (oracle and garbage) identical in {same_scores}; {len(lines)} difference(s)"
    )
    return 1 if lines else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("dump", help="run every variant with the oracle and garbage LMs and write the dump")
    d.add_argument("out", type=Path)
    d.add_argument("--data-root", default="embedded", help="data root (default: embedded fixture data)")
    d.add_argument("--groups", nargs="+", help="task and group names (default: every suite and standalone group)")
    d.add_argument("--metadata", nargs="+", default=[], help="run metadata KEY=VALUE (e.g. max_context_tokens=8192)")
    c = sub.add_parser("diff", help="compare two dumps (exit 1 on any difference)")
    c.add_argument("a", type=Path)
    c.add_argument("b", type=Path)
    c.add_argument("--show", type=int, default=20, help="differences printed (default 20)")
    args = ap.parse_args(argv)
    if args.cmd == "dump":
        dump(args.out, args.data_root, args.groups, _metadata(args.metadata))
        return 0
    return diff(args.a, args.b, args.show)


if __name__ == "__main__":
    sys.exit(main())
