"""Fixtures of the opt-in engine tests (``make test-vllm``; each module skips itself when vLLM is absent).

Everything runs the real SmolLM2-135M-Instruct (fp32, greedy) on the embedded fixture data, so that the ``hf``
reference and the vLLM paths see exactly the same documents. vLLM runs on CPU with the settings it needs here:
1 GiB of KV cache (``VLLM_CPU_KVCACHE_SPACE``, else start-up fails on memory) and eager mode.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "1")
os.environ.setdefault("VLLM_LOGGING_LEVEL", "WARNING")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# engine core in the calling process (in-process runs and `vllm serve` alike): one process less to start
os.environ.setdefault("VLLM_ENABLE_V1_MULTIPROCESSING", "0")


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


