"""Reading lm-eval output folders (docs/lm_eval.md#output-files, docs/sharpe.md#inputs).

``OUT/<model_name_sanitized>/results_<ts>.json`` + ``samples_<task>_<ts>.jsonl``. Every results file found under
the given paths is read; per (model, task) the newest timestamp wins unless ``run`` selects one. Template-variant
identity comes from ``results.configs[task].metadata`` (``variant_group``, ``template_id``, ...); a task without it
is grouped by ``--variant_pattern`` on its name (flagged) or skipped with a message.

All problems with the inputs raise :class:`SharpeInputError` (one line naming the file), which the CLI turns into
exit code 1 (a failed run, as lm-eval); an unusable flag value is a :class:`SharpeUsageError` (exit code 2).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from ..taskmeta import TaskMeta

DEFAULT_VARIANT_PATTERN = r"(?P<group>.+)__t(?P<tid>\d+)$"
DECODING_TAGS = {"regex_constrained": "regex-constrained"}  # decoding mode → tag of the model's display name
SETTING_KEYS = ("chat_template_sha", "system_instruction_sha", "fewshot_as_multiturn")


class SharpeInputError(Exception):
    """Inconsistent or unreadable inputs (exit code 1)."""

    exit_code = 1


class SharpeUsageError(SharpeInputError):
    """A command-line value the tool cannot use (exit code 2, with the usage line)."""

    exit_code = 2


@dataclass
class ResultsFile:
    path: Path
    timestamp: str
    data: dict
    sha256: str

    @property
    def model_name(self) -> str:
        name = self.data.get("model_name")
        if name:
            return str(name)
        args = model_args_dict(self.config.get("model_args"))
        return str(args.get("pretrained") or args.get("model") or self.config.get("model") or self.path.parent.name)

    @property
    def config(self) -> dict:
        return self.data.get("config") or {}

    @property
    def model_args(self) -> str:
        args = self.config.get("model_args")
        if isinstance(args, dict):
            return ",".join(f"{k}={v}" for k, v in sorted(args.items()))
        return str(args or "")

    @property
    def settings(self) -> dict:
        return {k: self.data.get(k) for k in SETTING_KEYS}

    @property
    def signature(self) -> tuple:
        return (self.model_args,) + tuple(str(self.data.get(k)) for k in SETTING_KEYS)

    @cached_property
    def decoding(self) -> str:
        """``"regex_constrained"`` for a run of a constrained model wrapper (``config.decoding``), else
        ``"unconstrained"`` (see :func:`lm_eval_enterprise.harness.constrained.decoding_mode`)."""
        from ..harness.constrained import ConstraintError, decoding_mode

        try:
            mode = decoding_mode(self.data)
        except ConstraintError as exc:
            raise SharpeInputError(f"{self.path}: {exc}") from None
        if mode not in DECODING_TAGS and mode != "unconstrained":
            raise SharpeInputError(f"{self.path}: unknown config.decoding {mode!r} (known: regex_constrained)")
        return mode


def model_args_dict(args: Any) -> dict:
    """lm-eval ``model_args`` (``"k=v,k2=v2"`` string or dict) as a dict."""
    if isinstance(args, dict):
        return args
    out = {}
    for part in str(args or "").split(","):
        if "=" in part:
            k, v = part.split("=", 1)
            out[k.strip()] = v.strip()
    return out


@dataclass
class TaskRun:
    """One template variant of one model: its results row, metadata and (optional) samples file."""

    task: str
    source: ResultsFile
    row: dict
    config: dict
    meta: dict
    variant_group: str
    template_id: str
    dataset: str
    domain: str
    subtask: str | None
    family: str | None
    primary_metric: str | None
    primary_filter: str | None
    grouped_by: str  # "metadata" | "name"
    samples_path: Path | None
    model: str = ""  # display key, set by assign_models
    base_model: str = ""  # display name without the decoding and settings tags (assign_models)
    n_shot: Any = None
    higher_is_better: dict = field(default_factory=dict)
    n_samples: dict = field(default_factory=dict)

    @property
    def limit(self):
        return self.source.config.get("limit")

    @property
    def decoding(self) -> str:
        return self.source.decoding

    @property
    def toy_data(self) -> bool:
        """Scored on the package's embedded fixture data (see :func:`is_toy_data_root`)."""
        return self.meta.get("toy_data") is True or is_toy_data_root(self.meta.get("data_root"))

    @property
    def lm_eval_version(self):
        return self.source.data.get("lm_eval_version")


EMBEDDED_DATA_ROOT = "embedded"


def is_toy_data_root(data_root: Any) -> bool:
    """True when a task's ``metadata.data_root`` selects the embedded fixture data (a few synthetic rows per
    dataset for demos and tests, not the benchmark): the value ``embedded`` (the only way to select them), or the
    ``.../lm_eval_enterprise/fixtures`` folder older versions kept them in (results made with such a version)."""
    if not isinstance(data_root, str) or not data_root:
        return False
    if data_root == EMBEDDED_DATA_ROOT:
        return True
    return Path(data_root).expanduser().parts[-2:] == ("lm_eval_enterprise", "fixtures")


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


# lm-eval's EvaluationTracker: OUT/<model>/results_<date_id>.json, or for an --output_path ending in .json
# (OUT/name.json) OUT/name_<date_id>.json; date_id = datetime.now().isoformat() with ':' replaced by '-'
_DATE_ID = r"\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d+)?"
_RESULTS_NAME = re.compile(rf"^(?!samples_)(?P<stem>.+)_(?P<ts>{_DATE_ID})\.json$")


def results_timestamp(path: Path) -> str | None:
    """The ``<date_id>`` of a results file lm-eval named (``results_<ts>.json`` or ``<stem>_<ts>.json``), else
    None."""
    m = _RESULTS_NAME.match(path.name)
    return m.group("ts") if m else None


def find_results_files(paths: Sequence[str | os.PathLike]) -> list[Path]:
    """Every lm-eval results file (``results_<ts>.json``, or ``<name>_<ts>.json`` from an ``--output_path`` ending
    in ``.json``) under the given folders (recursively) or given directly."""
    if not paths:
        raise SharpeInputError("no input paths given")
    files: list[Path] = []
    for p in map(Path, paths):
        if not p.exists():
            raise SharpeInputError(f"{p}: no such file or folder")
        if p.is_file():
            if not (p.name.startswith("results_") and p.suffix == ".json") and results_timestamp(p) is None:
                raise SharpeInputError(
                    f"{p}: not an lm-eval results file (results_<timestamp>.json or <name>_<timestamp>.json)"
                )
            files.append(p)
        else:
            files.extend(f for f in sorted(p.rglob("*.json")) if results_timestamp(f) or f.name.startswith("results_"))
    if not files:
        raise SharpeInputError(
            f"no results_*.json (or <name>_<timestamp>.json) found under {', '.join(map(str, paths))}"
        )
    return sorted(set(files))


def read_results_file(path: Path) -> ResultsFile:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SharpeInputError(f"{path}: cannot read ({exc})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SharpeInputError(f"{path}: malformed JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    if not isinstance(data, dict) or not isinstance(data.get("results"), dict):
        raise SharpeInputError(f"{path}: not an lm-eval results file (no 'results' object)")
    if not isinstance(data.get("configs"), dict):
        raise SharpeInputError(f"{path}: no 'configs' object (task metadata); written by lm-eval ≥ 0.4?")
    ts = results_timestamp(path) or (path.stem[len("results_") :] if path.stem.startswith("results_") else path.stem)
    return ResultsFile(path, ts, data, hashlib.sha256(text.encode("utf-8")).hexdigest())


def task_metadata(paths: Sequence[str | os.PathLike]) -> Iterator[dict]:
    """The ``metadata`` of every task in the readable results files under ``paths``, for a quick look at what the
    inputs hold before the tool runs (unreadable inputs yield nothing: the tool itself reports them)."""
    try:
        files = find_results_files(paths)
    except SharpeInputError:
        return
    for p in files:
        try:
            rf = read_results_file(p)
        except SharpeInputError:
            continue
        for cfg in rf.data["configs"].values():
            meta = cfg.get("metadata") if isinstance(cfg, dict) else None
            if isinstance(meta, dict):
                yield meta


def task_runs(rf: ResultsFile, variant_pattern: str, messages: list[str], template_set: str = "core") -> list[TaskRun]:
    """TaskRuns of the leaf tasks of one results file; tasks that are no template variant are reported in
    ``messages`` and skipped. Only tasks of ``template_set`` (``metadata.template_set``, default ``core``: the
    committed templates; ``population``: a generated template population, ``lm_eval_enterprise.prompting.population``) are
    returned, so the two sets are never pooled; population tasks are reported in their own section."""
    out = []
    pattern = re.compile(variant_pattern)
    for task, cfg in rf.data["configs"].items():
        row = rf.data["results"].get(task)
        if not isinstance(row, dict):
            messages.append(f"{rf.path}: task {task} has a config but no results row; skipped")
            continue
        meta = (cfg or {}).get("metadata") or {}
        tm = TaskMeta.from_metadata(meta)
        if tm.template_set != template_set:
            continue
        if tm.is_variant:
            grouped_by = "metadata"
            group, tid = tm.variant_group, tm.template_id
        else:
            m = pattern.search(task)
            if not m:
                messages.append(
                    f"{rf.path}: task {task} has no template metadata (configs.{task}.metadata."
                    f"variant_group/template_id) and its name does not match --variant_pattern "
                    f"{variant_pattern!r}; skipped"
                )
                continue
            grouped_by = "name"
            group = m.group("group")
            tid = m.group("tid")
            tid = tid if not tid.isdigit() else f"t{int(tid)}"
            messages.append(
                f"{rf.path}: task {task} has no template metadata; grouped by its name as "
                f"{group} / {tid} (flag grouped_by_name)"
            )
        samples = rf.path.parent / f"samples_{task}_{rf.timestamp}.jsonl"
        out.append(
            TaskRun(
                task=task,
                source=rf,
                row=row,
                config=cfg or {},
                meta=meta,
                variant_group=group,
                template_id=tid,
                dataset=tm.dataset or group,
                domain=tm.domain or "unknown",
                subtask=(str(meta["subtask"]) if meta.get("subtask") else None),  # results of version <= 1.2
                family=tm.task_family,
                primary_metric=tm.primary_metric,
                primary_filter=tm.primary_filter,
                grouped_by=grouped_by,
                samples_path=samples if samples.exists() else None,
                n_shot=(rf.data.get("n-shot") or {}).get(task),
                higher_is_better=(rf.data.get("higher_is_better") or {}).get(task) or {},
                n_samples=(rf.data.get("n-samples") or {}).get(task) or {},
            )
        )
    return out


def listed_templates(
    rf: ResultsFile, runs: Sequence[TaskRun], variant_pattern: str
) -> tuple[dict[str, set[str]], list[str]]:
    """The template variants a results file *lists* in ``group_subtasks`` (variant group → template ids), whether
    or not they have a results row, plus the listed leaf tasks whose variant cannot be told.

    A leaf is a task listed under a group that is not itself a group with subtasks (lm-eval writes standalone
    tasks as ``{task: []}``). Its variant is taken from its TaskRun (``runs``: the TaskRuns of ``rf``), else from
    ``configs[task].metadata``, else from ``variant_pattern`` on its name (the variant group then comes from its
    sibling tasks when they agree on one, else from the pattern). Used to detect templates that were requested but
    have no result (a crashed or partially merged run)."""
    gs = rf.data.get("group_subtasks")
    out: dict[str, set[str]] = {}
    unresolved: list[str] = []
    if not isinstance(gs, dict):
        return out, unresolved
    known = {r.task: r for r in runs}
    pattern = re.compile(variant_pattern)
    configs = rf.data.get("configs") or {}
    seen: set[str] = set()
    for parent, subs in gs.items():
        if not isinstance(subs, list):
            continue
        for task in subs or [parent]:  # a standalone task is written as {task: []}
            task = str(task)
            if task in seen or (isinstance(gs.get(task), list) and gs[task]):
                continue  # already handled / a (sub)group, not a leaf
            seen.add(task)
            if task in known:
                vg, tid = known[task].variant_group, known[task].template_id
            else:
                tm = TaskMeta.from_config(configs.get(task) or {})
                m = pattern.search(task)
                if tm.is_variant:
                    vg, tid = tm.variant_group, tm.template_id
                elif m:
                    sib = {known[s].variant_group for s in subs if s in known}
                    vg = sib.pop() if len(sib) == 1 else m.group("group")
                    tid = m.group("tid")
                    tid = tid if not tid.isdigit() else f"t{int(tid)}"
                else:
                    if task not in (rf.data.get("results") or {}):  # no result and no way to tell its variant
                        unresolved.append(task)
                    continue
            out.setdefault(vg, set()).add(tid)
    return out, unresolved


def display_name(model_name: str, names: dict[str, str] | None = None) -> str:
    """Display name: the name map's entry, else the basename of a local path, else the model name."""
    if names:
        for key in (model_name, model_name.replace("/", "__"), os.path.basename(model_name.rstrip("/"))):
            if key in names:
                return names[key]
    if model_name.startswith(("/", ".", "~")) or os.sep in model_name and os.path.exists(model_name):
        return os.path.basename(model_name.rstrip("/")) or model_name
    return model_name


def load_name_map(path: str | None) -> dict[str, str]:
    """Model display-name map from JSON / YAML ({raw: display}) or CSV (raw,display)."""
    if not path:
        return {}
    p = Path(path)
    if not p.exists():
        raise SharpeInputError(f"{p}: model name map not found")
    text = p.read_text(encoding="utf-8")
    if p.suffix == ".csv":
        import csv

        rows = list(csv.reader(text.splitlines()))
        return {r[0]: r[1] for r in rows if len(r) >= 2 and r[0] not in ("model", "raw")}
    try:
        import yaml

        data = yaml.safe_load(text)
    except Exception as exc:  # noqa: BLE001 - any YAML/JSON syntax error
        raise SharpeInputError(f"{p}: cannot parse model name map ({exc})") from None
    if not isinstance(data, dict):
        raise SharpeInputError(f"{p}: model name map must be a mapping raw name → display name")
    return {str(k): str(v) for k, v in data.items()}


def assign_models(runs: list[TaskRun], names: dict[str, str], strict: bool, messages: list[str]) -> None:
    """Set ``run.model``: the display name, split by settings when one model name was run with different
    model_args / chat settings (reported separately; an error under ``--strict``).

    The decoding mode is part of a model's identity: a regex-constrained run is the model
    ``<name> [regex-constrained]`` (never pooled with, nor superseded by, the unconstrained runs of ``<name>``);
    settings are told apart within one decoding mode (``<name> [regex-constrained] [settings 2]``)."""
    by_name: dict[tuple[str, str], dict[tuple, list[TaskRun]]] = {}
    for r in runs:
        by_name.setdefault((r.source.model_name, r.decoding), {}).setdefault(r.source.signature, []).append(r)
    displays: dict[str, str] = {}
    for raw, _ in by_name:
        if raw in displays:
            continue
        d = display_name(raw, names)
        if d in displays.values():
            d = raw
        displays[raw] = d
    for (raw, decoding), sigs in by_name.items():
        label = raw if decoding not in DECODING_TAGS else f"{raw} ({decoding} decoding)"
        if len(sigs) > 1:
            desc = "; ".join(
                f"model_args={s[0]!r}, chat_template_sha={s[1]}, system_instruction_sha={s[2]}, "
                f"fewshot_as_multiturn={s[3]}"
                for s in sigs
            )
            msg = (
                f"model {label} was run with {len(sigs)} different settings ({desc}); "
                "results are reported as separate models"
            )
            if strict:
                raise SharpeInputError(
                    msg.replace("results are reported as separate models", "mixed settings cannot be pooled (--strict)")
                )
            messages.append(msg)
        base = displays[raw]
        tagged = base if decoding not in DECODING_TAGS else f"{base} [{DECODING_TAGS[decoding]}]"
        for i, (_sig, rs) in enumerate(sorted(sigs.items(), key=lambda kv: kv[0])):
            name = tagged if len(sigs) == 1 else f"{tagged} [settings {i + 1}]"
            for r in rs:
                r.model, r.base_model = name, base


def select_newest(runs: list[TaskRun], run_ts: str | None, messages: list[str] | None = None) -> list[TaskRun]:
    """Per (model, task): the run with timestamp ``run_ts`` if given, else the newest. ``model`` carries the
    decoding mode, so a newer regex-constrained run never supersedes an unconstrained one (or the reverse). Every
    results file left out, wholly or for some tasks, is named in ``messages`` with the reason (not the ``--run``
    timestamp; superseded by a newer run of the same model, or a copy with the same timestamp) — nothing is
    dropped silently."""
    messages = [] if messages is None else messages
    if run_ts:
        keep = [r for r in runs if r.source.timestamp == run_ts or r.source.timestamp.startswith(run_ts)]
        if not keep:
            raise SharpeInputError(f"--run {run_ts}: no results file with that timestamp")
        for path in sorted({str(r.source.path) for r in runs} - {str(r.source.path) for r in keep}):
            messages.append(f"{path}: not the results of --run {run_ts}; skipped")
        runs = keep
    best: dict[tuple[str, str], TaskRun] = {}
    for r in runs:
        key = (r.model, r.task)
        if key not in best or r.source.timestamp > best[key].source.timestamp:
            best[key] = r
    left_out: dict[Path, dict[Path, list[TaskRun]]] = {}
    per_file: dict[Path, int] = {}
    for r in runs:
        per_file[r.source.path] = per_file.get(r.source.path, 0) + 1
        winner = best[(r.model, r.task)]
        if winner is not r:
            left_out.setdefault(r.source.path, {}).setdefault(winner.source.path, []).append(r)
    for old, by_new in sorted(left_out.items()):
        n = sum(len(rs) for rs in by_new.values())
        what = "skipped" if n == per_file[old] else f"{n} of its {per_file[old]} tasks skipped"
        reasons = []
        for new, rs in sorted(by_new.items()):
            same = rs[0].source.timestamp == best[(rs[0].model, rs[0].task)].source.timestamp
            reasons.append(
                f"{'a copy with the same timestamp as' if same else 'superseded by the newer run in'} "
                f"{new}" + (f" ({len(rs)} tasks)" if len(by_new) > 1 else "")
            )
        messages.append(
            f"{old}: {what}: {'; '.join(reasons)} (model {rs[0].model}; the newest run per model and "
            "task is used; choose another with --run TIMESTAMP)"
        )
    return sorted(best.values(), key=lambda r: (r.model, r.variant_group, r.template_id))


# --------------------------------------------------------------------------------------------------- samples
class SampleTable:
    """The primary-filter lines of one samples file, column-wise (one entry per line). Document fields are
    extracted on first use (most tables only need the document keys)."""

    def __init__(
        self,
        path: Path,
        docs: list[dict] | None,
        hashes: list,
        doc_ids: list,
        values: dict[str, list],
        failure: list | None,
        keys: dict[str, list] | None = None,
    ):
        self.path, self.docs, self.hashes, self.doc_ids = path, docs, hashes, doc_ids
        self.values, self.failure = values, failure
        if keys is not None:  # documents not kept: the pairing keys (ids, qid, cand) were extracted while reading
            self.__dict__.update(keys)

    def _docs(self) -> list[dict]:
        if self.docs is None:
            raise RuntimeError(f"{self.path}: documents were not kept (read_samples(keep_docs=False))")
        return self.docs

    def __len__(self) -> int:
        return len(self.doc_ids)

    @cached_property
    def ids(self) -> list:
        return [d.get("id") for d in self.docs]

    @cached_property
    def gold(self) -> list:
        return [d.get("label") if d.get("label") is not None else d.get("answer") for d in self._docs()]

    @cached_property
    def label_names(self) -> list | None:
        return next((list(d["label_names"]) for d in self._docs() if d.get("label_names") is not None), None)

    @cached_property
    def n_choices(self) -> list:
        return [len(d["choices"]) if type(d.get("choices")) is list else None for d in self._docs()]

    @cached_property
    def documents(self) -> list:
        """Source text of generation tasks (``doc.document``)."""
        return [d.get("document") for d in self._docs()]

    @cached_property
    def references(self) -> list:
        """Reference output of generation tasks (``doc.summary``)."""
        return [d.get("summary") for d in self._docs()]

    @cached_property
    def qid(self) -> list:
        return [d.get("qid") for d in self.docs]

    @cached_property
    def cand(self) -> list:
        return [d.get("cand_index") for d in self.docs]


def _check_filters(path: Path, filter_name: str | None, seen_filters: set, found: bool) -> None:
    """The filter to read is unambiguous (None: the file has one) and present."""
    if filter_name is None and len(seen_filters) > 1:
        raise SharpeInputError(
            f"{path}: several filters {sorted(map(str, seen_filters))}; name one with --metric NAME,FILTER"
        )
    if filter_name is not None and not found and seen_filters:
        raise SharpeInputError(
            f"{path}: no sample line with filter {filter_name!r} (filters present: {sorted(map(str, seen_filters))})"
        )


def _failure_column(path: Path, failure: list) -> list | None:
    """``format_failure`` on every line (the column), on none (None), or an error when only some lines have it."""
    if all(v is None for v in failure):
        return None
    if any(v is None for v in failure):
        raise SharpeInputError(f"{path}: format_failure present on some sample lines only")
    return failure


def read_samples(path: Path, filter_name: str | None, metrics: Iterable[str], keep_docs: bool = True) -> SampleTable:
    """Parse a ``samples_<task>_<ts>.jsonl`` file, keeping lines with ``filter == filter_name`` (all lines if
    ``filter_name`` is None and the file has a single filter). ``keep_docs=False`` keeps only the document keys
    (saves memory and time when the label fields are not needed).

    Fields are extracted line by line so that each parsed line is freed at once (keeping whole lines alive until
    the end of the file made reading ~1.5× slower)."""
    metrics = list(metrics)
    loads = json.loads
    docs: list[dict] = []
    ids: list = []
    qids: list = []
    cands: list = []
    hashes: list = []
    doc_ids: list = []
    failure: list = []
    values: dict[str, list] = {m: [] for m in metrics}
    cols = [(m, values[m].append) for m in metrics]
    seen_filters: set = set()
    try:
        fh = open(path, encoding="utf-8")
    except OSError as exc:
        raise SharpeInputError(f"{path}: cannot read ({exc})") from None
    with fh:
        for lineno, line in enumerate(fh, 1):
            try:
                d = loads(line)
            except json.JSONDecodeError as exc:
                if not line.strip():
                    continue
                raise SharpeInputError(f"{path}:{lineno}: malformed JSON ({exc.msg})") from None
            if type(d) is not dict:
                raise SharpeInputError(f"{path}:{lineno}: a sample line must be a JSON object")
            f = d.get("filter")
            if f != filter_name:
                seen_filters.add(f)
                if filter_name is not None:
                    continue
            doc = d.get("doc")
            if type(doc) is not dict:
                doc = {}
            try:
                for m, append in cols:
                    append(d[m])
            except KeyError as exc:
                raise SharpeInputError(
                    f"{path}:{lineno}: sample line has no value for metric {exc.args[0]!r} "
                    f"(keys: {sorted(k for k in d if k not in ('doc', 'arguments'))})"
                ) from None
            if keep_docs:
                docs.append(doc)
            else:
                ids.append(doc.get("id"))
                qids.append(doc.get("qid"))
                cands.append(doc.get("cand_index"))
            hashes.append(d.get("doc_hash"))
            doc_ids.append(d.get("doc_id"))
            failure.append(d.get("format_failure"))
    _check_filters(path, filter_name, seen_filters, found=bool(doc_ids))
    failure_out = _failure_column(path, failure)
    if keep_docs:
        return SampleTable(path, docs, hashes, doc_ids, values, failure_out)
    return SampleTable(path, None, hashes, doc_ids, values, failure_out, {"ids": ids, "qid": qids, "cand": cands})
