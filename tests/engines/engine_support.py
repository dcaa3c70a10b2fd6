"""Helpers and fixtures of the opt-in engine tests (``make test-vllm``; each test module skips itself when its
engine is absent). Not a conftest.py: the default suite imports ``conftest`` by name (``shared_sample``).

Everything runs the real SmolLM2-135M-Instruct (fp32, greedy) on the embedded fixture data, so that the ``hf``
reference and the vLLM paths see exactly the same documents. vLLM runs on CPU with the settings it needs here:
1 GiB of KV cache (``VLLM_CPU_KVCACHE_SPACE``, else start-up fails on memory) and eager mode; ``vllm serve`` is
started on 127.0.0.1 and stopped by its own PID."""
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

MAX_MODEL_LEN = 4096
SERVED_NAME = "smollm2"


def evaluate(model: str, model_args: str, tasks: list[str], limit: int, **kwargs) -> dict:
    """One lm-eval run on the embedded data; returns lm-eval's results dict (with ``samples``)."""
    import lm_eval
    from lm_eval.tasks import TaskManager

    from lm_eval_enterprise import TASK_DIR
    from lm_eval_enterprise.constrained import register_models

    register_models()
    tm = TaskManager(include_path=TASK_DIR, include_defaults=False, metadata={"data_root": "embedded"})
    return lm_eval.simple_evaluate(model=model, model_args=model_args, tasks=tasks, task_manager=tm, limit=limit,
                                   log_samples=True, bootstrap_iters=0, **kwargs)


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
        cmd = [str(Path(sys.executable).with_name("vllm")), "serve", str(model),
               "--host", "127.0.0.1", "--port", str(self.port), "--served-model-name", SERVED_NAME,
               "--dtype", "float32", "--enforce-eager", "--max-model-len", str(MAX_MODEL_LEN), "--seed", "1234",
               "--max-logprobs", "1"]
        self._log = open(log, "w")
        self.proc = subprocess.Popen(cmd, stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True)
        self.startup_timeout = startup_timeout

    def wait_ready(self) -> float:
        t0 = time.time()
        while time.time() - t0 < self.startup_timeout:
            if self.proc.poll() is not None:
                raise RuntimeError(f"vllm serve exited with {self.proc.returncode}; log: {self.log}\n"
                                   + self.log.read_text()[-3000:])
            try:
                with urllib.request.urlopen(self.base + "/health", timeout=2) as r:
                    if r.status == 200:
                        return time.time() - t0
            except OSError:
                time.sleep(1)
        self.stop()
        raise RuntimeError(f"vllm serve not ready after {self.startup_timeout:.0f} s; log: {self.log}")

    def post(self, path: str, body: dict) -> dict:
        req = urllib.request.Request(self.base + path, data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=120) as r:
            return json.loads(r.read())

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)   # the group of our own child (start_new_session=True)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=30)
        self._log.close()


def by_doc(res: dict, task: str) -> dict[int, dict]:
    return {s["doc_id"]: s for s in res["samples"][task]}


@pytest.fixture(scope="session")
def work_dir(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("vllm-runs")
    # module/session-scoped runs happen before the per-test cache isolation of tests/conftest.py
    os.environ["LM_EVAL_ENTERPRISE_CACHE"] = str(d / "cache")
    return d


@pytest.fixture(scope="session")
def smollm2(work_dir) -> Path:
    from lm_eval_enterprise.models import smollm2_dir

    return smollm2_dir()


