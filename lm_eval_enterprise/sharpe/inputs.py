"""What the tool is given: its settings (:class:`Options`, frozen), the one collector of its messages
(:class:`Diagnostics`), the input errors with their exit codes, and the lm-eval output folders, each results file
parsed once (:func:`read_inputs`; layout: docs/lm_eval.md#output-files, docs/sharpe.md#inputs).

A task is a template variant when ``results.configs[task].metadata`` names its ``variant_group`` and
``template_id`` (else ``--variant_pattern`` on its name: flagged); its ``template_set`` (``core``: the committed
templates, ``population``: a generated population) keeps the two sets apart. Per template set, :func:`select_runs`
names the models (display name, settings, decoding) and keeps the newest run per (model, task) unless ``--run``
picks one.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, fields, replace
from functools import cached_property
from pathlib import Path
from typing import Any

from ..taskmeta import TaskMeta

DEFAULT_VARIANT_PATTERN = r"(?P<group>.+)__t(?P<tid>\d+)$"
DECODING_TAGS = {"regex_constrained": "regex-constrained"}  # decoding mode → tag of the model's display name
SETTING_KEYS = ("chat_template_sha", "system_instruction_sha", "fewshot_as_multiturn")
EMBEDDED_DATA_ROOT = "embedded"
DOC_KEYS = ("id", "qid", "cand_index")  # the document fields that pair lines across templates


class SharpeInputError(Exception):
    """Inconsistent or unreadable inputs (exit code 1)."""

    exit_code = 1


class SharpeUsageError(SharpeInputError):
    """A command-line value the tool cannot use (exit code 2, with the usage line)."""

    exit_code = 2


class OutdatedResultsError(SharpeInputError):
    """Results written by a metric version whose layout the tool no longer reads (exit code 2, one line)."""

    exit_code = 2


# ============================================================================================== settings
# options an estimate (sparse run, template population) cannot honour: (field, value meaning "not used", flag)
ESTIMATE_UNSUPPORTED = (
    ("bootstrap_templates", False, "--bootstrap_templates"),
    ("exclude_templates", [], "--exclude_template"),
    ("compare", None, "--compare"),
    ("generation_baseline", "zero", "--generation_baseline"),
    ("compare_decoding", False, "--compare_decoding"),
)
SETTING_NAMES = {"strict_inputs": "strict"}  # field → its key in the output's settings (the --strict flag)


@dataclass(frozen=True)
class Options:
    """Settings of one run of the tool (the switches of ``lm-eval-enterprise sharpe``), for full runs and estimates
    alike (:meth:`estimate_problem`: the ones an estimate cannot honour)."""

    baseline: str = "uniform"  # uniform | majority | none | simulated | table:PATH
    ddof: int = 1
    alpha: float = 1.0  # --sigma_weight
    sigma_floor: str = "off"  # off | binomial | VALUE
    metrics: list[str] | None = None  # ["name" or "name,filter"]; default: metadata.primary_metric
    scoring: str = "both"  # strict | parsed_only | both: the scoring modes (strict: format failures count as wrong)
    bootstrap: int = 2000
    seed: int = 0
    bootstrap_templates: bool = False
    variant_pattern: str = DEFAULT_VARIANT_PATTERN
    exclude_templates: list[str] = field(default_factory=list)  # "group:tid"
    strict_inputs: bool = False  # --strict: an inconsistent input is an error, not a flagged note
    fail_threshold: float = 0.2
    run: str | None = None
    model_names: str | None = None
    compare: list[str] | None = None  # ["A,B", ...]; None = every pair
    permutations: int = 2000
    fragile_top: int = 10
    progress: bool | None = None  # None: when stderr is a terminal
    workers: int | None = None  # processes for reading/bootstrap; None: auto (>1 only for big inputs)
    hash_samples: bool = False  # SHA-256 of every samples file in the provenance
    generation_baseline: str = "zero"  # ROUGE baseline: zero | lead-K (first K sentences of each document)
    compare_decoding: bool = False  # greedy vs regex-constrained runs of the same model (decoding_comparisons)

    def floor_mode(self):
        if self.sigma_floor in ("off", "binomial"):
            return self.sigma_floor
        try:
            return float(self.sigma_floor)
        except ValueError:
            raise SharpeUsageError(
                f"--sigma_floor must be off, binomial or a number, not {self.sigma_floor!r}"
            ) from None

    @property
    def modes(self) -> list[str]:
        """Scoring modes computed: strict always (other statistics refer to it), parsed_only unless strict only."""
        return ["strict", "parsed_only"] if self.scoring in ("both", "parsed_only") else ["strict"]

    @property
    def record_modes(self) -> list[str]:
        """Scoring modes that get records (``--scoring parsed_only`` reports parsed_only only)."""
        return ["parsed_only"] if self.scoring == "parsed_only" else self.modes

    @property
    def estimate_metric(self) -> str | None:
        """The metric an estimate reads (the one ``--metric``; None: each task's ``metadata.primary_metric``)."""
        return self.metrics[0] if self.metrics else None

    def settings(self) -> dict:
        """The settings as the output records them (``compare_decoding`` only when set)."""
        return {
            SETTING_NAMES.get(f.name, f.name): getattr(self, f.name)
            for f in fields(self)
            if f.name != "progress" and (f.name != "compare_decoding" or self.compare_decoding)
        }

    def estimate_problem(self) -> str | None:
        """The first setting an estimate cannot honour, as one error text (:data:`ESTIMATE_UNSUPPORTED`, more than
        one metric, a metric's filter, parsed-only scoring, a baseline table); None when every setting applies."""
        what = "estimates from a --cell_budget run"
        for attr, unused, flag in ESTIMATE_UNSUPPORTED:
            if getattr(self, attr) not in (unused, None, [], False):
                return f"{flag} is not supported for {what}"
        metrics = self.metrics or []
        if len(metrics) > 1:
            return f"{what}: one --metric at a time"
        if metrics and "," in metrics[0]:
            return f"{what}: --metric NAME,FILTER is not supported (the primary filter is read)"
        if self.scoring == "parsed_only":
            return f"{what}: --scoring parsed_only is not supported (strict scoring only)"
        if str(self.baseline).startswith("table:"):
            return f"{what}: --baseline table:PATH is not supported (uniform, majority, none, simulated)"
        return None

    def validate(self, estimate: bool = False) -> None:
        """Raise :class:`SharpeUsageError` for a value the tool cannot use (``estimate``: first the settings an
        estimate cannot honour)."""
        problem = self.estimate_problem() if estimate else None
        if problem:
            raise SharpeUsageError(problem)
        if self.ddof not in (0, 1):
            raise SharpeUsageError("--ddof must be 0 or 1")
        if self.scoring not in ("strict", "parsed_only", "both"):
            raise SharpeUsageError("--scoring must be strict, parsed_only or both")
        b = self.baseline
        if not (b in ("uniform", "majority", "none", "simulated") or b.startswith("table:")):
            raise SharpeUsageError(f"--baseline {b!r}: expected uniform, majority, none, simulated or table:PATH")
        self.floor_mode()
        try:
            parse_generation_baseline(self.generation_baseline)
        except ValueError as exc:
            raise SharpeUsageError(f"--generation_baseline: {exc}") from None


def parse_generation_baseline(spec: str) -> int | None:
    """``zero`` → None; ``lead-K`` → K (≥ 1); anything else raises ValueError."""
    if spec == "zero":
        return None
    m = re.fullmatch(r"lead-(\d+)", spec)
    if not m or int(m.group(1)) < 1:
        raise ValueError(f"generation baseline {spec!r}: expected zero or lead-K (K ≥ 1)")
    return int(m.group(1))


@dataclass
class Diagnostics:
    """The messages of one result (warnings, written into it and to stderr): :meth:`note` keeps one;
    :meth:`problem` is an inconsistency of the inputs — with ``--strict`` an error, otherwise a note."""

    strict_inputs: bool = False
    notes: list[str] = field(default_factory=list)

    def note(self, msg: str) -> None:
        self.notes.append(msg)

    def problem(self, msg: str, strict_suffix: str = "", note_suffix: str = "") -> None:
        if self.strict_inputs:
            raise SharpeInputError(msg + strict_suffix)
        self.notes.append(msg + note_suffix)


class Progress:
    """tqdm progress bar on stderr when enabled (default: when stderr is a terminal)."""

    def __init__(self, enabled: bool | None):
        self.enabled = sys.stderr.isatty() if enabled is None else enabled

    def __call__(self, it: Iterable, desc: str, total: int | None = None):
        if not self.enabled:
            return it
        from tqdm.auto import tqdm

        return tqdm(it, desc=desc, total=total, file=sys.stderr, leave=False, dynamic_ncols=True)


# ============================================================================================== results files
@dataclass(frozen=True)
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


@dataclass(frozen=True)
class TaskRun:
    """One template variant of one model: its results row, metadata and (optional) samples file."""

    task: str
    source: ResultsFile
    row: dict
    meta: dict
    variant_group: str
    template_id: str
    dataset: str
    domain: str
    grouped_by: str  # "metadata" | "name"
    samples_path: Path | None
    model: str = ""  # display key (:func:`select_runs`)
    base_model: str = ""  # display name without the decoding and settings tags
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
        """Scored on the package's embedded fixture data (``metadata.data_root: embedded`` or ``toy_data``)."""
        return self.taskmeta.toy_data or is_toy_data_root(self.taskmeta.data_root)

    @cached_property
    def taskmeta(self) -> TaskMeta:
        """The task's metadata, read with the schema (:class:`~lm_eval_enterprise.taskmeta.TaskMeta`)."""
        return TaskMeta.from_metadata(self.meta)

    @property
    def lm_eval_version(self):
        return self.source.data.get("lm_eval_version")

    def reported(self, key: str) -> float | None:
        """The results row's value of ``key`` (``metric,filter``) as a float; None when it is not a number."""
        v = self.row.get(key)
        return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def is_toy_data_root(data_root: Any) -> bool:
    """True when a task's ``metadata.data_root`` selects the embedded fixture data (a few synthetic rows per
    dataset for demos and tests, not the benchmark): the value ``embedded``."""
    return data_root == EMBEDDED_DATA_ROOT


# lm-eval's EvaluationTracker: OUT/<model>/results_<date_id>.json, or for an --output_path ending in .json
# (OUT/name.json) OUT/name_<date_id>.json; date_id = datetime.now().isoformat() with ':' replaced by '-'
_DATE_ID = r"\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d+)?"
_RESULTS_NAME = re.compile(rf"^(?!samples_)(?P<stem>.+)_(?P<ts>{_DATE_ID})\.json$")


def results_timestamp(path: Path) -> str | None:
    """The ``<date_id>`` of a results file lm-eval named (``results_<ts>.json`` or ``<stem>_<ts>.json``)."""
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
    ts = results_timestamp(path) or path.stem.removeprefix("results_")
    return ResultsFile(path, ts, data, hashlib.sha256(text.encode("utf-8")).hexdigest())


# ============================================================================================== task runs
@dataclass(frozen=True)
class Inputs:
    """Every results file under the paths, parsed once; the template-variant task runs of every template set
    (models not yet named); the reading's notes, each with the template set it concerns (None: all)."""

    files: list[ResultsFile]
    runs: list[TaskRun]
    notes: list[tuple[str | None, str]]

    def metadata(self) -> list[TaskMeta]:
        """The ``metadata`` of every task config."""
        cfgs = [cfg for rf in self.files for cfg in rf.data["configs"].values() if isinstance(cfg, dict)]
        return [TaskMeta.from_metadata(cfg["metadata"]) for cfg in cfgs if isinstance(cfg.get("metadata"), dict)]

    @property
    def template_sets(self) -> set[str]:
        return {tm.template_set for tm in self.metadata() if tm.template_id}

    @property
    def sparse(self) -> bool:
        """A sparse run: a task whose metadata records a ``cell_budget`` below 1 (``run --cell_budget F``)."""
        return any(tm.cell_budget is not None and tm.cell_budget < 1 for tm in self.metadata())


def outdated(rf: ResultsFile, task: str, meta: TaskMeta) -> OutdatedResultsError:
    """Results of metric version ≤ 1.2, which ran a dataset made of questions (gold_news) as one subtask task per
    question (``metadata.subtask``); from 1.3 on each template is one task asking every question."""
    group, sub = meta.variant_group or task, str(meta.legacy_subtask)
    rerun = group.removesuffix(f"_{sub}") if group.endswith(f"_{sub}") else f"ent_{meta.dataset}"
    version = meta.version if meta.version is not None else "≤ 1.2"
    return OutdatedResultsError(
        f"{rf.path}: written by metric version {version} ({task} is one subtask of "
        f"{meta.dataset}), a layout this version no longer reads; rerun {rerun} with this version "
        f"(lm-eval-enterprise run --tasks {rerun} --log_samples ...)"
    )


def template_id(m: re.Match) -> str:
    """The template id a ``--variant_pattern`` match names: its ``tid`` group, digits as ``t<k>`` (``7`` → ``t7``)."""
    tid = m.group("tid")
    return tid if not tid.isdigit() else f"t{int(tid)}"


def _variant(
    rf: ResultsFile, task: str, meta: TaskMeta, pattern: re.Pattern, notes: list
) -> tuple[str, str, str] | None:
    """(variant group, template id, grouped by) of a task: its metadata, else ``--variant_pattern`` on its name
    (noted), else None (noted: skipped)."""
    if meta.is_variant:
        return meta.variant_group, meta.template_id, "metadata"
    m = pattern.search(task)
    if not m:
        what = f"{rf.path}: task {task} has no template metadata (configs.{task}.metadata.variant_group/template_id)"
        notes.append(
            (meta.template_set, f"{what} and its name does not match --variant_pattern {pattern.pattern!r}; skipped")
        )
        return None
    tid = template_id(m)
    how = f"grouped by its name as {m.group('group')} / {tid} (flag grouped_by_name)"
    notes.append((meta.template_set, f"{rf.path}: task {task} has no template metadata; {how}"))
    return m.group("group"), tid, "name"


def task_runs(rf: ResultsFile, variant_pattern: str, notes: list[tuple[str | None, str]]) -> list[TaskRun]:
    """The template-variant task runs of one results file (every template set); tasks that are none are noted
    and skipped."""
    out = []
    pattern = re.compile(variant_pattern)
    for task, cfg in rf.data["configs"].items():
        row = rf.data["results"].get(task)
        if not isinstance(row, dict):
            notes.append((None, f"{rf.path}: task {task} has a config but no results row; skipped"))
            continue
        meta = (cfg or {}).get("metadata") or {}
        tm = TaskMeta.from_metadata(meta)
        if tm.legacy_subtask:
            raise outdated(rf, task, tm)
        variant = _variant(rf, task, tm, pattern, notes)
        if variant is None:
            continue
        group, tid, grouped_by = variant
        samples = rf.path.parent / f"samples_{task}_{rf.timestamp}.jsonl"
        out.append(
            TaskRun(
                task=task,
                source=rf,
                row=row,
                meta=meta,
                variant_group=group,
                template_id=tid,
                dataset=tm.dataset or group,
                domain=tm.domain or "unknown",
                grouped_by=grouped_by,
                samples_path=samples if samples.exists() else None,
                n_shot=(rf.data.get("n-shot") or {}).get(task),
                higher_is_better=(rf.data.get("higher_is_better") or {}).get(task) or {},
                n_samples=(rf.data.get("n-samples") or {}).get(task) or {},
            )
        )
    return out


def read_inputs(paths: Sequence[str | os.PathLike], variant_pattern: str, progress: Progress) -> Inputs:
    """Find and parse every results file once, and read its template-variant tasks."""
    files = find_results_files(paths)
    rfs = [read_results_file(p) for p in progress(files, "reading results", len(files))]
    notes: list[tuple[str | None, str]] = []
    runs = [r for rf in rfs for r in task_runs(rf, variant_pattern, notes)]
    return Inputs(rfs, runs, notes)


# ============================================================================================== models
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


def name_models(runs: list[TaskRun], names: dict[str, str], diag: Diagnostics) -> list[TaskRun]:
    """The runs with their ``model``: the display name, split by settings when one model name was run with
    different model_args / chat settings (reported separately; an error under ``--strict``).

    The decoding mode is part of a model's identity: a regex-constrained run is the model
    ``<name> [regex-constrained]`` (never pooled with, nor superseded by, the unconstrained runs of ``<name>``);
    settings are told apart within one decoding mode (``<name> [regex-constrained] [settings 2]``)."""
    by_name: dict[tuple[str, str], dict[tuple, list[int]]] = {}
    for i, r in enumerate(runs):
        by_name.setdefault((r.source.model_name, r.decoding), {}).setdefault(r.source.signature, []).append(i)
    displays: dict[str, str] = {}
    for raw, _ in by_name:
        if raw not in displays:
            d = display_name(raw, names)
            displays[raw] = raw if d in displays.values() else d
    out = list(runs)
    for (raw, decoding), sigs in by_name.items():
        label = raw if decoding not in DECODING_TAGS else f"{raw} ({decoding} decoding)"
        if len(sigs) > 1:
            desc = "; ".join(
                f"model_args={s[0]!r}, " + ", ".join(f"{k}={v}" for k, v in zip(SETTING_KEYS, s[1:])) for s in sigs
            )
            diag.problem(
                f"model {label} was run with {len(sigs)} different settings ({desc}); ",
                "mixed settings cannot be pooled (--strict)",
                "results are reported as separate models",
            )
        base = displays[raw]
        tagged = base if decoding not in DECODING_TAGS else f"{base} [{DECODING_TAGS[decoding]}]"
        for k, (_sig, idx) in enumerate(sorted(sigs.items(), key=lambda kv: kv[0])):
            name = tagged if len(sigs) == 1 else f"{tagged} [settings {k + 1}]"
            for i in idx:
                out[i] = replace(runs[i], model=name, base_model=base)
    return out


def select_newest(runs: list[TaskRun], run_ts: str | None, diag: Diagnostics) -> list[TaskRun]:
    """Per (model, task): the run with timestamp ``run_ts`` if given, else the newest. ``model`` carries the
    decoding mode, so a newer regex-constrained run never supersedes an unconstrained one (or the reverse). Every
    results file left out, wholly or for some tasks, is noted with the reason (not the ``--run`` timestamp;
    superseded by a newer run of the same model, or a copy with the same timestamp) — nothing is dropped
    silently."""
    if run_ts:
        keep = [r for r in runs if r.source.timestamp == run_ts or r.source.timestamp.startswith(run_ts)]
        if not keep:
            raise SharpeInputError(f"--run {run_ts}: no results file with that timestamp")
        for path in sorted({str(r.source.path) for r in runs} - {str(r.source.path) for r in keep}):
            diag.note(f"{path}: not the results of --run {run_ts}; skipped")
        runs = keep
    best: dict[tuple[str, str], TaskRun] = {}
    for r in runs:
        key = (r.model, r.task)
        if key not in best or r.source.timestamp > best[key].source.timestamp:
            best[key] = r
    per_file = Counter(r.source.path for r in runs)
    left_out: dict[Path, dict[Path, list[TaskRun]]] = defaultdict(lambda: defaultdict(list))
    for r in runs:
        if (winner := best[(r.model, r.task)]) is not r:
            left_out[r.source.path][winner.source.path].append(r)
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
        diag.note(
            f"{old}: {what}: {'; '.join(reasons)} (model {rs[0].model}; the newest run per model and "
            "task is used; choose another with --run TIMESTAMP)"
        )
    return sorted(best.values(), key=lambda r: (r.model, r.variant_group, r.template_id))


@dataclass(frozen=True)
class RunSet:
    """The task runs of one template set: every one with its model named, and those in use (``--run`` or the
    newest per model and task)."""

    runs: list[TaskRun]
    selected: list[TaskRun]


def select_runs(inputs: Inputs, template_set: str, opts: Options, diag: Diagnostics) -> RunSet:
    """The runs of ``template_set``: the reading's notes about that set, models named, newest runs selected."""
    for tset, msg in inputs.notes:
        if tset in (None, template_set):
            diag.note(msg)
    runs = [r for r in inputs.runs if r.taskmeta.template_set == template_set]
    if not runs:
        raise SharpeInputError(
            "no template-variant tasks in the inputs (tasks need configs[task].metadata with "
            "variant_group and template_id, or names matching --variant_pattern)"
        )
    runs = name_models(runs, load_name_map(opts.model_names), diag)
    return RunSet(runs, select_newest(runs, opts.run, diag))


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
                    tid = template_id(m)
                else:
                    if task not in (rf.data.get("results") or {}):  # no result and no way to tell its variant
                        unresolved.append(task)
                    continue
            out.setdefault(vg, set()).add(tid)
    return out, unresolved


def listed_by_model(rs: RunSet, opts: Options, diag: Diagnostics) -> dict[str, dict[str, set[str]]]:
    """model → variant group → template ids listed in ``group_subtasks`` of the model's results files in use
    (those of the selected runs), so that a template without a result is detected even when no other model has it
    (see :func:`listed_templates`)."""
    by_file: dict[int, list[TaskRun]] = defaultdict(list)
    for r in rs.runs:
        by_file[id(r.source)].append(r)
    files: dict[str, dict[int, ResultsFile]] = defaultdict(dict)
    for r in rs.selected:
        files[r.model][id(r.source)] = r.source
    listed: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for model, fs in files.items():
        for key, rf in fs.items():
            found, unresolved = listed_templates(rf, by_file[key], opts.variant_pattern)
            for vg, tids in found.items():
                listed[model][vg] |= tids
            if unresolved:
                diag.problem(
                    f"{rf.path}: task(s) {', '.join(sorted(unresolved))} listed in group_subtasks have no results "
                    f"row and no template metadata (model {model})",
                    "; missing results (--strict)",
                    "; they are not part of any score",
                )
    return listed


# ============================================================================================== samples
@dataclass(eq=False)
class SampleTable:
    """The primary-filter lines of one samples file, column-wise (one entry per line): documents (None when not
    kept), ``doc_hash``, ``doc_id``, the metrics' values, ``format_failure`` (None: not logged) and the documents'
    pairing keys (:data:`DOC_KEYS`, read for every table). Other document fields are extracted on first use (most
    tables only need the keys)."""

    path: Path
    docs: list[dict] | None
    hashes: list
    doc_ids: list
    values: dict[str, list]
    failure: list | None
    keys: dict[str, list] = field(default_factory=dict)  # pairing key → its column (absent: read from docs)

    def _docs(self) -> list[dict]:
        if self.docs is None:
            raise RuntimeError(f"{self.path}: documents were not kept (read_samples(keep_docs=False))")
        return self.docs

    def __len__(self) -> int:
        return len(self.doc_ids)

    @cached_property
    def gold(self) -> list:
        return [d.get("label") if d.get("label") is not None else d.get("answer") for d in self._docs()]

    @cached_property
    def label_names(self) -> list | None:
        return next((list(d["label_names"]) for d in self._docs() if d.get("label_names") is not None), None)

    @cached_property
    def n_choices(self) -> list:
        return [len(d["choices"]) if type(d.get("choices")) is list else None for d in self._docs()]

    def column(self, key: str) -> list:
        """``doc[key]`` of every line (None where absent): a pairing key (:data:`DOC_KEYS`), or e.g. a generation
        task's source text (``document``) and reference output (``summary``)."""
        return self.keys[key] if key in self.keys else [d.get(key) for d in self._docs()]


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
    ``filter_name`` is None and the file has a single filter). ``keep_docs=False`` keeps only the documents'
    pairing keys (:data:`DOC_KEYS`, read for every table; saves memory and time when the label fields are not
    needed).

    Fields are extracted line by line so that each parsed line is freed at once (keeping whole lines alive until
    the end of the file made reading ~1.5× slower)."""
    metrics = list(metrics)
    loads = json.loads
    docs: list[dict] = []
    hashes: list = []
    doc_ids: list = []
    failure: list = []
    values: dict[str, list] = {m: [] for m in metrics}
    cols = [(m, values[m].append) for m in metrics]
    keys: dict[str, list] = {k: [] for k in DOC_KEYS}
    key_cols = [(k, keys[k].append) for k in DOC_KEYS]
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
            for k, append in key_cols:
                append(doc.get(k))
            hashes.append(d.get("doc_hash"))
            doc_ids.append(d.get("doc_id"))
            failure.append(d.get("format_failure"))
    _check_filters(path, filter_name, seen_filters, found=bool(doc_ids))
    failure_out = _failure_column(path, failure)
    return SampleTable(path, docs if keep_docs else None, hashes, doc_ids, values, failure_out, keys)
