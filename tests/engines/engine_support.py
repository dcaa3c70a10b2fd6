"""Helpers of the opt-in engine tests (vLLM in-process, ``vllm serve``): lm-eval runs on the embedded data and a
server started on 127.0.0.1 and stopped by its own PID."""
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
