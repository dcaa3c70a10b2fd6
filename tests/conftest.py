import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def shared_sample(dataset: str) -> Path:
    """../shared/data/<dataset>: real samples for tests. Missing → skip locally, fail under CI."""
    d = SHARED_DATA / dataset
    if not d.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"CI: real sample folder {d} is missing (../shared/data must sit beside the checkout)")
        pytest.skip(f"real sample {d} not available")
    return d


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory):
    from lm_eval_enterprise.models import build_tiny_model

    return build_tiny_model(tmp_path_factory.mktemp("tiny-llama"))


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path, monkeypatch):
    # never touch the user's cache; a test that needs data passes data_root explicitly
    monkeypatch.setenv("LM_EVAL_ENTERPRISE_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("LM_EVAL_ENTERPRISE_DATA", raising=False)
