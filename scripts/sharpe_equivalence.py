#!/usr/bin/env python
"""Before/after check of the Sharpe tool: the same inputs give the same output files under two code versions.

1. ``capture CAPDIR [PYTEST_ARGS ...]`` runs the Sharpe tests (default: every test of the Sharpe tool) with the
   full run's ``aggregate`` and the command ``lm-eval-enterprise sharpe`` (:func:`lm_eval_enterprise.cli.sharpe.main`,
   which routes sparse runs and template populations to the estimators) wrapped: every call stores a copy of its
   input folders and its options or arguments under ``CAPDIR/NNNN/`` (so the unit inputs *and* the end-to-end
   lm-eval runs the tests build are kept).
2. ``replay CAPDIR OUTDIR [--src DIR]`` re-runs every captured call and writes all outputs (aggregate.json, CSVs,
   leaderboard.md, report.html, HF export; for a command: its exit code, standard output and error and every file it
   wrote) — or the one-line error — into ``OUTDIR/NNNN/``, normalised: the run time, the creation time and the
   capture and output folders' absolute paths are replaced by placeholders and the export's timestamped file names
   by ``results_TS.json``. ``--src DIR`` imports ``lm_eval_enterprise`` from DIR (e.g. an older commit unpacked with
   ``git archive``); the replay finds the entry points under the package layout of either version.
3. ``diff A B`` compares two replay folders file by file (exit 1 on any difference).

``check --ref REV`` does all three: capture with this checkout's tests, replay with the package of git revision
REV and with this checkout, diff::

    python scripts/sharpe_equivalence.py check --ref main
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_TESTS = sorted(
    str(p.relative_to(REPO))
    for pattern in ("sharpe/test_*.py", "estimator/test_*.py", "test_new_dataset.py", "test_failed_and_resumed_runs.py")
    for p in (REPO / "tests").glob(pattern)
)
# Options fields renamed since the oldest version the check compares with: new name → old name
OPTION_RENAMES = {"strict_inputs": "strict"}
OUTPUT_FLAGS = ("--output_path", "--out", "-o")


def full_run_api():
    """(module holding the full run's ``aggregate``, ``Options``, ``write_outputs``, ``SharpeInputError``) of the
    imported package, whichever layout it has (one pipeline module, or engine/api/io)."""
    try:
        from lm_eval_enterprise.sharpe import pipeline as P

        return P, P.aggregate, P.Options, P.write_outputs, P.SharpeInputError
    except ImportError:
        from lm_eval_enterprise.sharpe.io import SharpeInputError

        from lm_eval_enterprise.sharpe import api, engine

        return engine, engine.aggregate, engine.Options, api.write_outputs, SharpeInputError


def options_for(cls, fields: dict):
    """``cls(**fields)`` with field names translated to the ones ``cls`` has (:data:`OPTION_RENAMES`)."""
    known = {f.name for f in dataclasses.fields(cls)}
    out = {}
    for k, v in fields.items():
        for name in (k, OPTION_RENAMES.get(k), {b: a for a, b in OPTION_RENAMES.items()}.get(k)):
            if name in known:
                out[name] = v
                break
    return cls(**out)


# ============================================================================================== capture
def _copy_input(p: Path, target: Path) -> None:
    if p.is_dir():
        shutil.copytree(p, target)
    elif p.is_file():
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(p, target)


class CapturePlugin:
    """pytest plugin: wraps the full run's ``aggregate`` (and the names other modules imported it under) and the
    command's ``main`` to record every call."""

    def __init__(self, capdir: Path):
        self.capdir = capdir
        self.count = 0
        self.current = ""

    def pytest_configure(self, config):
        from lm_eval_enterprise.cli import sharpe as command

        module, original, options, _, _ = full_run_api()

        def recording(paths, opts=None, argv=None, **overrides):
            if set(overrides) - {f.name for f in dataclasses.fields(options)}:
                return original(paths, opts, argv, **overrides)  # its own error, not a call to replay
            opts = dataclasses.replace(opts or options(), **overrides)  # keyword overrides: recorded as options
            self._record(paths, opts, argv)
            return original(paths, opts, argv)

        for mod in list(sys.modules.values()):
            if getattr(mod, "__name__", "").startswith("lm_eval_enterprise.sharpe"):
                for name in ("aggregate", "_aggregate", "full_run"):
                    if getattr(mod, name, None) is original:
                        setattr(mod, name, recording)
        main = command.main

        def recording_main(argv=None):
            self._record_command(list(argv or []))
            return main(argv)

        command.main = recording_main

    def pytest_runtest_setup(self, item):
        self.current = item.nodeid

    def _new_call(self) -> Path:
        d = self.capdir / f"{self.count:04d}"
        self.count += 1
        (d / "inputs").mkdir(parents=True)
        return d

    def _record_command(self, argv: list[str]) -> None:
        """A command: every argument naming an existing file or folder is copied (``table:PATH`` too); the output
        folder becomes ``@OUT@``."""
        d = self._new_call()
        out, after_output = [], False
        for i, a in enumerate(argv):
            prefix = "table:" if a.startswith("table:") else ""
            p = Path(a[len(prefix) :])
            if after_output:
                out.append("@OUT@")
            elif a.startswith("-") or not p.exists():
                out.append(a)
            else:
                target = d / "inputs" / str(i) / (p.name or "root")
                _copy_input(p, target)
                out.append(f"{prefix}@CAP@/{target.relative_to(d)}")
            after_output = a in OUTPUT_FLAGS
        (d / "call.json").write_text(
            json.dumps({"test": self.current, "command": out}, indent=1, ensure_ascii=False), encoding="utf-8"
        )

    def _record(self, paths, opts, argv) -> None:
        d = self._new_call()
        rel = []
        for i, p in enumerate(map(Path, paths)):
            target = d / "inputs" / str(i) / (p.name or "root")
            _copy_input(p, target)  # a missing path stays missing (its error is replayed)
            rel.append(str(target.relative_to(d)))
        fields = {k: v for k, v in dataclasses.asdict(opts).items()}
        for k in ("baseline", "model_names"):  # files named by options are inputs too
            v = fields.get(k)
            prefix = "table:" if k == "baseline" and isinstance(v, str) and v.startswith("table:") else ""
            if isinstance(v, str) and (prefix or k == "model_names") and Path(v[len(prefix) :]).is_file():
                copy = d / "inputs" / f"{k}{Path(v[len(prefix) :]).suffix}"
                shutil.copy2(v[len(prefix) :], copy)
                fields[k] = f"{prefix}@CAP@/{copy.relative_to(d)}"
        (d / "call.json").write_text(
            json.dumps({"test": self.current, "paths": rel, "options": fields, "argv": list(argv or [])}, indent=1),
            encoding="utf-8",
        )


def capture(capdir: Path, pytest_args: list[str]) -> int:
    import pytest

    if capdir.exists():
        shutil.rmtree(capdir)
    capdir.mkdir(parents=True)
    plugin = CapturePlugin(capdir)
    code = pytest.main(["-q", "-p", "no:cacheprovider", *(pytest_args or DEFAULT_TESTS)], plugins=[plugin])
    print(f"captured {plugin.count} aggregate() calls into {capdir} (pytest exit {code})", file=sys.stderr)
    return int(code)


# ============================================================================================== replay
def normalise(text: str, capdir: Path, outdir: Path | None = None) -> str:
    if outdir is not None:
        text = text.replace(str(outdir.resolve()), "<OUT>").replace(str(outdir), "<OUT>")
    text = text.replace(str(capdir.resolve()), "<CAP>").replace(str(capdir), "<CAP>")
    q = r'(?:"|&quot;)'
    text = re.sub(rf'({q}(?:created|submitted_time){q}: {q})[^"&]*', r"\1<CREATED>", text)
    text = re.sub(rf"({q}date{q}: )[-+0-9.e]+", r"\1<DATE>", text)
    return re.sub(rf"({q}(?:read_and_bootstrap|total){q}: )[-+0-9.e]+", r"\1<SECONDS>", text)


def _keep_files(out: Path, files: Path, capdir: Path, outdir: Path | None = None) -> None:
    """The files written into ``files``, normalised (``outdir``: the output folder named in them), into ``out``
    (then ``files`` is removed)."""
    for f in sorted(files.rglob("*")) if files.is_dir() else []:
        if not f.is_file():
            continue
        name = re.sub(r"results_[0-9T:.-]+\.json$", "results_TS.json", f.name)
        dest = out / f.relative_to(files).parent / name
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(normalise(f.read_text(encoding="utf-8"), capdir, outdir), encoding="utf-8")
    shutil.rmtree(files, ignore_errors=True)


def _replay_command(d: Path, call: dict, out: Path, capdir: Path) -> None:
    """Run the command with the captured arguments; keep its exit code, output streams and written files."""
    import contextlib
    import io

    from lm_eval_enterprise.cli.sharpe import main

    files = out / "files"
    argv = [a.replace("@CAP@", str(d)).replace("@OUT@", str(files)) for a in call["command"]]
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        try:
            rc = main(argv)
        except SystemExit as exc:
            rc = exc.code
    for name, text in (("rc.txt", f"{rc}\n"), ("stdout.txt", stdout.getvalue()), ("stderr.txt", stderr.getvalue())):
        (out / name).write_text(normalise(text, capdir, files), encoding="utf-8")
    _keep_files(out / "written", files, capdir, files)


def replay(capdir: Path, outdir: Path) -> int:
    import lm_eval_enterprise

    _, aggregate, options, write_outputs, input_error = full_run_api()
    print(f"replaying with {Path(lm_eval_enterprise.__file__).parent}", file=sys.stderr)
    if outdir.exists():
        shutil.rmtree(outdir)
    calls = sorted(p for p in capdir.iterdir() if (p / "call.json").exists())
    for d in calls:
        call = json.loads((d / "call.json").read_text(encoding="utf-8"))
        out = outdir / d.name
        out.mkdir(parents=True)
        if "command" in call:
            _replay_command(d, call, out, capdir)
            continue
        fields = {k: (v.replace("@CAP@", str(d)) if isinstance(v, str) else v) for k, v in call["options"].items()}
        fields["progress"] = False
        try:
            result = aggregate([str(d / p) for p in call["paths"]], options_for(options, fields), call["argv"])
        except input_error as exc:
            (out / "error.txt").write_text(f"{type(exc).__name__}: {exc}\n", encoding="utf-8")
            continue
        write_outputs(result, out / "files")
        _keep_files(out, out / "files", capdir)
    print(f"replayed {len(calls)} calls into {outdir}", file=sys.stderr)
    return 0


# ============================================================================================== diff
def diff(a: Path, b: Path) -> int:
    fa = {p.relative_to(a) for p in a.rglob("*") if p.is_file()}
    fb = {p.relative_to(b) for p in b.rglob("*") if p.is_file()}
    bad = 0
    for rel in sorted(fa ^ fb):
        print(f"only in {'A' if rel in fa else 'B'}: {rel}")
        bad += 1
    for rel in sorted(fa & fb):
        ta, tb = (a / rel).read_text(encoding="utf-8"), (b / rel).read_text(encoding="utf-8")
        if ta != tb:
            bad += 1
            print(f"differs: {rel}")
            print("".join(list(difflib.unified_diff(ta.splitlines(True), tb.splitlines(True), "A", "B", n=1))[:40]))
    print(f"{len(fa & fb)} files compared, {len(fa ^ fb)} present on one side only, {bad} difference(s)")
    return 1 if bad else 0


def _replay_subprocess(capdir: Path, outdir: Path, src: Path | None) -> None:
    cmd = [sys.executable, __file__, "replay", str(capdir), str(outdir)] + (["--src", str(src)] if src else [])
    subprocess.run(cmd, check=True)


def check(ref: str, work: Path, pytest_args: list[str]) -> int:
    work.mkdir(parents=True, exist_ok=True)
    src = work / "ref_src"
    if src.exists():
        shutil.rmtree(src)
    src.mkdir()
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", ref, "lm_eval_enterprise"], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(src)], input=archive, check=True)
    if capture(work / "capture", pytest_args) != 0:
        print("warning: the captured test run did not pass", file=sys.stderr)
    _replay_subprocess(work / "capture", work / "before", src)
    _replay_subprocess(work / "capture", work / "after", None)
    return diff(work / "before", work / "after")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("capture")
    c.add_argument("capdir", type=Path)
    c.add_argument("pytest_args", nargs=argparse.REMAINDER)
    r = sub.add_parser("replay")
    r.add_argument("capdir", type=Path)
    r.add_argument("outdir", type=Path)
    r.add_argument("--src", type=Path, help="import lm_eval_enterprise from this folder")
    d = sub.add_parser("diff")
    d.add_argument("a", type=Path)
    d.add_argument("b", type=Path)
    k = sub.add_parser("check")
    k.add_argument("--ref", default="main", help="git revision of the 'before' code (default main)")
    k.add_argument("--work", type=Path, default=None, help="working folder (default: a temporary one, kept)")
    k.add_argument("pytest_args", nargs=argparse.REMAINDER)
    args = ap.parse_args(argv)
    if args.cmd == "capture":
        return capture(args.capdir, args.pytest_args)
    if args.cmd == "replay":
        sys.path.insert(0, str(args.src.resolve() if args.src else REPO))
        return replay(args.capdir, args.outdir)
    if args.cmd == "diff":
        return diff(args.a, args.b)
    work = args.work or Path(tempfile.mkdtemp(prefix="sharpe_equivalence_"))
    print(f"working folder: {work}", file=sys.stderr)
    return check(args.ref, work, args.pytest_args)


if __name__ == "__main__":
    sys.exit(main())
