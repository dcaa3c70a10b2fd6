"""Stage 2 — samples and pairing: read each (model, template)'s samples of the primary filter and key its lines by
document (``doc.id`` → ``doc_hash`` → ``doc_id``) or, for ranking, by query (``doc.qid`` with candidates by
``doc.cand_index``); every score is then computed on the documents shared by all templates and models."""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from ..taskmeta import TaskMeta
from .grouping import Group, strict_or_note
from .io import SampleTable, SharpeInputError, read_samples
from .options import Options, natural_key


def read_group_samples(g: Group, messages: list[str]) -> None:
    """Fill ``g.tables[model][tid]``; a model with a missing or empty samples file keeps results-file scores only
    (flag ``no_samples``)."""
    metrics = [m.name for m in g.metrics]
    filt = g.metrics[0].filter
    if any(m.filter != filt for m in g.metrics):
        raise SharpeInputError(f"group {g.name}: metrics with different filters cannot be paired in one run")
    for model in g.models:
        tables = {}
        missing = []
        for tid in g.templates:
            run = g.runs[model][tid]
            if run.samples_path is None:
                missing.append(f"{tid} (no samples_{run.task}_{run.source.timestamp}.jsonl)")
                continue
            # the documents' label fields are read for the baseline from the first model with samples only
            tab = read_samples(run.samples_path, filt, metrics, keep_docs=not g.tables)
            if len(tab) == 0:
                missing.append(f"{tid} ({run.samples_path.name} is empty)")
                continue
            tables[tid] = tab
        if missing:
            if tables:
                messages.append(
                    f"group {g.name}, model {model}: samples missing for {', '.join(missing)}; "
                    "sample-based statistics of this model are null (flag no_samples)"
                )
            else:
                messages.append(
                    f"group {g.name}, model {model}: no samples ({', '.join(missing)}); scores from "
                    "the results files only, sample-based statistics null (flag no_samples)"
                )
            g.model_flags.setdefault(model, {})["no_samples"] = missing
            continue
        g.tables[model] = tables


def _unit_keys(tab: SampleTable, unit: str, source: str) -> list | None:
    col = getattr(tab, {"id": "ids", "doc_hash": "hashes", "doc_id": "doc_ids"}[source])
    if unit == "query":
        if any(q is None for q in tab.qid) or any(c is None for c in tab.cand):
            return None
        return [(str(q), int(c)) for q, c in zip(tab.qid, tab.cand)]
    if any(v is None for v in col):
        return None
    return [str(v) for v in col]


def _key_problems(g: Group, tabs: list, sources: tuple[str, ...]) -> str:
    """Which samples file(s) break the preferred key (``sources[0]``; the fallbacks failed too): a line without
    it, or its first duplicated value and how often it occurs — naming those files, not the group's first."""
    label = {"qid": "(doc.qid, doc.cand_index)", "id": "doc.id", "doc_hash": "doc_hash", "doc_id": "doc_id"}
    source, bad = sources[0], []
    for _, _, tab in tabs:
        keys = _unit_keys(tab, g.unit, source if source != "qid" else "id")
        if keys is None:
            bad.append(f"{tab.path}: a line has no {label[source]}")
            continue
        counts: dict = {}
        for k in keys:
            counts[k] = counts.get(k, 0) + 1
        dup = next((k for k, n in counts.items() if n > 1), None)
        if dup is not None:
            bad.append(f"{tab.path}: {label[source]} {dup!r} occurs {counts[dup]} times (duplicated samples)")
    more = f" (+{len(bad) - 2} more files)" if len(bad) > 2 else ""
    fallbacks = " / ".join(label[s] for s in sources[1:])
    return "; ".join(bad[:2]) + more + (f"; no unique {fallbacks} either" if fallbacks else "")


def pair(g: Group, opts: Options, messages: list[str]) -> None:
    """Choose the key source, intersect the key sets, and record each table's line order per unit
    (``g.keys``, ``g.lines``; flag ``doc_set_intersected`` when templates or models cover different documents)."""
    tabs = [(m, t, tab) for m, by_t in g.tables.items() for t, tab in by_t.items()]
    if not tabs:
        return
    chosen, per_tab = None, None
    sources = ("qid",) if g.unit == "query" else ("id", "doc_hash", "doc_id")
    for source in sources:
        keys = [_unit_keys(tab, g.unit, source if source != "qid" else "id") for _, _, tab in tabs]
        if any(k is None for k in keys):
            continue
        if any(len(set(k)) != len(k) for k in keys):
            continue
        chosen, per_tab = source, keys
        break
    if chosen is None:
        raise SharpeInputError(
            f"group {g.name}: cannot pair documents across templates: " + _key_problems(g, tabs, sources)
        )
    g.key_source = chosen
    sets = [set(k) for k in per_tab]
    common = set.intersection(*sets)
    sizes = sorted({len(s) for s in sets})
    if any(len(s) != len(common) for s in sets):
        detail = ", ".join(f"{m}/{t}: {len(s)}" for (m, t, _), s in zip(tabs, sets))
        msg = (
            f"group {g.name}: templates/models cover different documents ({detail}); "
            f"{len(common)} shared (usual cause: differing --limit)"
        )
        strict_or_note(
            opts, messages, msg, "", "; every score recomputed on the intersection (flag doc_set_intersected)"
        )
        g.flags["doc_set_intersected"] = {"shared": len(common), "sizes": sizes}
    if not common:
        raise SharpeInputError(f"group {g.name}: no document is shared by all templates and models")
    if g.unit == "doc":
        g.keys = sorted(common, key=natural_key)
        for (m, t, _), ks in zip(tabs, per_tab):
            pos = {k: i for i, k in enumerate(ks)}
            g.lines[(m, t)] = np.array([pos[k] for k in g.keys])
        return
    qids = sorted({q for q, _ in common}, key=natural_key)
    g.keys = qids
    for (m, t, _), ks in zip(tabs, per_tab):
        by_q: dict[str, list[tuple[int, int]]] = defaultdict(list)
        for i, (q, c) in enumerate(ks):
            if (q, c) in common:
                by_q[q].append((c, i))
        g.lines[(m, t)] = [[i for _, i in sorted(by_q[q])] for q in qids]
    _flag_cut_queries(g, messages)


def _flag_cut_queries(g: Group, messages: list[str]) -> None:
    """Flag ``cut_queries``: queries scored over fewer candidates than the task's ``candidates_per_query`` (a
    ``--limit`` that ended inside a query, as plain ``lm_eval`` allows): their RR@k / nDCG@k rank part of the
    candidates only."""
    runs = [r for by_t in g.runs.values() for r in by_t.values()]
    expected = next((c for r in runs if (c := TaskMeta.from_metadata(r.meta).candidates_per_query)), None)
    if not expected:
        return
    cut = sorted(
        {q for (m, t), per_q in g.lines.items() for q, lines in zip(g.keys, per_q) if len(lines) < int(expected)},
        key=natural_key,
    )
    if cut:
        g.flags["cut_queries"] = {"queries": cut, "candidates_per_query": int(expected)}
        messages.append(
            f"group {g.name}: {len(cut)} quer{'y' if len(cut) == 1 else 'ies'} scored over fewer than their "
            f"{expected} candidates ({', '.join(cut[:3])}{', ...' if len(cut) > 3 else ''}: a --limit that cuts "
            "a query; flag cut_queries)"
        )
