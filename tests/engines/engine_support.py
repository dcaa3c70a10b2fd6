"""Helpers and session fixtures of the opt-in engine tests (``make test-vllm``; each test module skips itself when
its engine is absent). Not a conftest.py: the default suite imports ``conftest`` by name (``shared_sample``).
Test modules load it with ``pytest_plugins = ["engine_support"]`` and import only helpers from it, never a fixture:
a fixture imported into a module is a separate definition there, so each module would start its own engine and
server (measured: two of each in one session before this rule).

Everything runs the real SmolLM2-135M-Instruct (fp32, greedy) on the embedded fixture data, so that the ``hf``
reference and the vLLM paths see exactly the same documents. What is expensive is loaded once per session and
shared by every test module: one ``hf`` model, one in-process vLLM engine, one ``vllm serve`` and one task
index; the constrained runs use :func:`~lm_eval_enterprise.harness.constrained.constrained_twin` of the loaded ``hf`` and
``vllm`` backends (same weights, same engine, no second start-up). vLLM runs on CPU with the settings it needs
here: 1 GiB of KV cache (``VLLM_CPU_KVCACHE_SPACE``, else start-up fails on memory) and eager mode; ``vllm serve``
is started on 127.0.0.1 as soon as the first model is requested (it boots while the in-process work runs) and
stopped by its own PID at the end of the session.

Every backend gets the same explicit context budget (:data:`MAX_MODEL_LEN` tokens counted with SmolLM2's own
tokenizer), so the prompts cannot differ by budget source; the documents used here need < 500 tokens.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "1")
os.environ.setdefault("VLLM_LOGGING_LEVEL", "WARNING")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# engine core in the calling process (in-process runs and `vllm serve` alike): one process less to start
os.environ.setdefault("VLLM_ENABLE_V1_MULTIPROCESSING", "0")

MAX_MODEL_LEN = 2048  # vLLM's max_model_len, the server's --max-model-len and every run's prompt budget
SERVED_NAME = "smollm2"
TIMES: dict[str, float] = {}  # wall seconds of each expensive step, printed at the end of the session
MEASURED: dict[str, str] = {}  # measurements the tests make (e.g. the largest log-likelihood difference), printed too


def timed(name: str, fn):
    t0 = time.time()
    out = fn()
    TIMES[name] = round(time.time() - t0, 1)
    return out


def evaluate(model, tasks: list[str], task_manager, limit: int, model_args: str | None = None, **kwargs) -> dict:
    """One lm-eval run on the embedded data; ``model`` is a registered name (with ``model_args``) or a loaded
    lm-eval LM. Returns lm-eval's results dict (with ``samples``)."""
    from lm_eval_enterprise.harness.constrained import register_models
    from lm_eval_enterprise.harness.runner import evaluate as run

    register_models()
    return run(model, tasks, task_manager=task_manager, model_args=model_args, limit=limit, **kwargs)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class VLLMServer:
    """``vllm serve`` on 127.0.0.1 in its own process group, stopped by its own PID (never by name)."""

    def __init__(self, model: Path, log: Path, startup_timeout: float = 420.0):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = log
        cmd = [
            str(Path(sys.executable).with_name("vllm")),
            "serve",
            str(model),
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--served-model-name",
            SERVED_NAME,
            "--dtype",
            "float32",
            "--enforce-eager",
            "--max-model-len",
            str(MAX_MODEL_LEN),
            "--seed",
            "1234",
            "--max-logprobs",
            "1",
        ]
        self._log = open(log, "w")
        self.started = time.time()
        self.proc = subprocess.Popen(cmd, stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True)
        self.startup_timeout = startup_timeout
        self.ready = False

    def wait_ready(self) -> None:
        """Block until ``/health`` answers (at most ``startup_timeout`` seconds of waiting here: the server was
        launched earlier and usually booted while the in-process runs worked); records the time waited."""
        t0 = time.time()
        while not self.ready:
            if self.proc.poll() is not None:
                raise RuntimeError(
                    f"vllm serve exited with {self.proc.returncode}; log: {self.log}\n" + self.log.read_text()[-3000:]
                )
            try:
                with urllib.request.urlopen(self.base + "/health", timeout=2) as r:
                    self.ready = r.status == 200
            except OSError:
                if time.time() - t0 > self.startup_timeout:
                    self.stop()
                    raise RuntimeError(
                        f"vllm serve not ready {time.time() - self.started:.0f} s after its launch "
                        f"(waited {self.startup_timeout:.0f} s here); log: {self.log}"
                    ) from None
                time.sleep(1)
        TIMES.setdefault("serve_waited", round(time.time() - t0, 1))

    def post(self, path: str, body: dict) -> dict:
        req = urllib.request.Request(
            self.base + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(req, timeout=120) as r:
            return json.loads(r.read())

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)  # the group of our own child (start_new_session=True)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=30)
        self._log.close()


def by_doc(res: dict, task: str) -> dict[int, dict]:
    return {s["doc_id"]: s for s in res["samples"][task]}


@pytest.fixture(scope="session")
def work_dir(tmp_path_factory, request) -> Path:
    d = tmp_path_factory.mktemp("vllm-runs")
    # session-scoped runs happen before the per-test cache isolation of tests/conftest.py
    os.environ["LM_EVAL_ENTERPRISE_CACHE"] = str(d / "cache")
    yield d
    if TIMES or MEASURED:  # shown even under output capture: where the session's time went, what was measured
        with request.config.pluginmanager.getplugin("capturemanager").global_and_fixture_disabled():
            print("\nwall seconds:", json.dumps(TIMES), "\nmeasured:", json.dumps(MEASURED))


@pytest.fixture(scope="session")
def smollm2(work_dir) -> Path:
    from lm_eval_enterprise.harness.models import smollm2_dir

    return smollm2_dir()


@pytest.fixture(scope="session")
def task_manager(smollm2):
    """One task index for every run, with the explicit budget of every backend (see the module docstring)."""
    from lm_eval.tasks import TaskManager

    from lm_eval_enterprise import TASK_DIR

    return TaskManager(
        include_path=TASK_DIR,
        include_defaults=False,
        metadata={"data_root": "embedded", "max_context_tokens": MAX_MODEL_LEN, "context_tokenizer": str(smollm2)},
    )


@pytest.fixture(scope="session")
def server(smollm2, work_dir):
    """``vllm serve``, launched (not awaited: :meth:`VLLMServer.wait_ready`) when first requested."""
    srv = VLLMServer(smollm2, work_dir / "vllm-serve.log")
    yield srv
    srv.stop()
    assert srv.proc.poll() is not None


@pytest.fixture(scope="session")
def hf_lm(smollm2, server):  # noqa: ARG001  (server: launched first, so that it boots while hf works)
    from lm_eval.models.huggingface import HFLM

    return timed("hf_load", lambda: HFLM(pretrained=str(smollm2), dtype="float32", device="cpu", batch_size=8))


@pytest.fixture(scope="session")
def vllm_lm(smollm2, server):  # noqa: ARG001  (server: launched first, so that it boots meanwhile)
    from lm_eval.models.vllm_causallms import VLLM

    return timed(
        "vllm_engine",
        lambda: VLLM(
            pretrained=str(smollm2), dtype="float32", enforce_eager=True, max_model_len=MAX_MODEL_LEN, seed=1234
        ),
    )
