"""Fixtures and helpers shared by every test: ``tests/`` (the machinery) and ``tasks/<domain>/<id>/test_<id>.py``
(one dataset each). One conftest for both, at the repository root; import the helpers with
``from conftest import shared_sample, FakeHub``."""

import json
import os
import tempfile
from pathlib import Path

import pytest

OFFLINE = {
    "HF_HUB_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "TOKENIZERS_PARALLELISM": "false",
}
for _name, _value in OFFLINE.items():
    os.environ.setdefault(_name, _value)
# for the CLI subprocesses tests start: offline whatever the caller set, and run's answer cache (README: "Long runs")
# in the temp folder, never the user's
TEST_REQUEST_CACHE = Path(tempfile.gettempdir()) / "lm-eval-enterprise-test-requests"
OFFLINE_ENV = {**os.environ, **OFFLINE, "LM_EVAL_ENTERPRISE_REQUEST_CACHE": str(TEST_REQUEST_CACHE)}

SHARED_DATA = Path(__file__).resolve().parents[1] / "shared" / "data"


def shared_sample(dataset: str) -> Path:
    """<checkout>/../shared/data/<dataset>: real samples for tests (docs/data.md#real-samples). Missing → skip locally, fail under CI."""
    d = SHARED_DATA / dataset
    if not d.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"CI: real sample folder {d} is missing (../shared/data must sit beside the checkout)")
        pytest.skip(f"real sample {d} not available")
    return d


def sample_rows(dataset: str, split: str) -> list[dict]:
    """The rows of a real sample's pre-split ``<split>.jsonl`` as stored (the tests' own reading of the file)."""
    with (shared_sample(dataset) / f"{split}.jsonl").open(encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def file_ordered(records: list[dict], ids: list, key: str = "id") -> list[dict]:
    """An evaluated split's ``records`` (which the data layer serves in its seeded fair order, docs/data.md#evaluation-order;
    ``tests/data/test_eval_order.py`` checks that order) put back in the order of ``ids``, the file's: both must hold the
    same ids, each once. For tests of a loader's mapping row for row."""
    by_id = {str(r[key]): r for r in records}
    assert len(by_id) == len(records) and sorted(by_id) == sorted(str(i) for i in ids), "not the same records"
    return [by_id[str(i)] for i in ids]


def sample_records(dataset: str) -> dict:
    """A real sample loaded by the data layer (its pre-split layout; the data root is the samples' folder)."""
    from lm_eval_enterprise.data import load_records

    return load_records(dataset, data_root=str(shared_sample(dataset).parent))


def assert_summary_sample_loads_row_for_row(dataset: str, counts: dict[str, int], id_field: str) -> dict:
    """A summarization sample (HELM-ordered rows: the original columns plus the ``document`` / ``summary`` HELM
    makes of them) loads row for row: per split ``counts[split]`` records, the file's rows (the evaluated split in
    the data layer's fair order, the others in the file's order), each with ``id == str(row[id_field])`` and the
    row's ``document`` and ``summary``. Returns the loaded records."""
    recs = sample_records(dataset)
    for split, n in counts.items():
        rows = sample_rows(dataset, split)
        assert len(recs[split]) == len(rows) == n, (dataset, split, len(recs[split]), len(rows))
        # the same (id, document, summary) rows, each once (ids may repeat: sumo_claims has several articles per
        # claim); the evaluated split is served in the fair order, the others in the file's
        loaded = [(r["id"], r["document"], r["summary"]) for r in recs[split]]
        expected = [(str(row[id_field]), row["document"], row["summary"]) for row in rows]
        assert sorted(loaded) == sorted(expected), (dataset, split)
        if split != "test":
            assert loaded == expected, (dataset, split)
    return recs


def run_summary_sample(tiny_model_dir, dataset: str, tasks: list[str]) -> tuple[dict, dict]:
    """A 0-shot summarization dataset's real sample through ``tasks`` with the tiny model (first 2 documents): the
    ROUGE scores are unit shares at 0 shots (``assert_tiny_run``) and every task's first document is the first test
    row of the data layer's fair order, its target that row's summary. Returns lm-eval's results and that row."""
    from testkit.testing import SUMMARIZATION_SCORES, assert_tiny_run, run_hf_model

    res = run_hf_model(tiny_model_dir, tasks, shared_sample(dataset).parent)
    rec = sample_records(dataset)["test"][0]
    first = next(
        r for r in sample_rows(dataset, "test") if (r["document"], r["summary"]) == (rec["document"], rec["summary"])
    )
    assert_tiny_run(res, tasks, SUMMARIZATION_SCORES, num_fewshot=0)
    for t in tasks:
        assert res["samples"][t][0]["target"] == first["summary"], t
    return res, first


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory):
    from lm_eval_enterprise.harness.models import build_tiny_model

    return build_tiny_model(tmp_path_factory.mktemp("tiny-llama"))


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path, monkeypatch):
    # never touch the user's cache; a test that needs data passes data_root explicitly
    monkeypatch.setenv("LM_EVAL_ENTERPRISE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("LM_EVAL_ENTERPRISE_REQUEST_CACHE", str(tmp_path / "requests"))
    monkeypatch.delenv("LM_EVAL_ENTERPRISE_DATA", raising=False)


class FakeHub:
    """Stands in for ``huggingface_hub.snapshot_download`` over ``{repo path: bytes}`` (or ``{repo id: {...}}`` when
    several repos are served): picks the files with the hub's own pattern filter
    (``huggingface_hub.utils.filter_repo_objects``, the fnmatch rules of ``allow_patterns``) and writes them under
    ``local_dir`` at their repo paths, as the real function does; records every call."""

    def __init__(self, files: dict, fail: BaseException | None = None):
        self.files, self.fail, self.calls = files, fail, []

    def __call__(self, *, repo_id, repo_type=None, revision=None, allow_patterns=None, local_dir=None, **_):
        from huggingface_hub.utils import filter_repo_objects

        self.calls.append(
            {
                "repo_id": repo_id,
                "repo_type": repo_type,
                "revision": revision,
                "allow_patterns": list(allow_patterns or ()),
            }
        )
        if self.fail:
            raise self.fail
        files = self.files.get(repo_id, {}) if all(isinstance(v, dict) for v in self.files.values()) else self.files
        for path in filter_repo_objects(list(files), allow_patterns=allow_patterns):
            dest = Path(local_dir) / path
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(files[path])
        return str(local_dir)

    def downloaded(self) -> list[str]:
        """Repo paths the calls selected (all repos), in call and listing order."""
        from huggingface_hub.utils import filter_repo_objects

        out = []
        for call in self.calls:
            files = (
                self.files.get(call["repo_id"], {})
                if all(isinstance(v, dict) for v in self.files.values())
                else self.files
            )
            out += list(filter_repo_objects(list(files), allow_patterns=call["allow_patterns"]))
        return out


# ------------------------------------------------------------------------------------------------ tiny-model runs
def table_specs() -> dict:
    """Every template table (``templates.py`` ``TASKS``) by table id (``fiqa_qa``, ``fiqa_qa_gen``, ...)."""
    from lm_eval_enterprise import TASK_DIR
    from lm_eval_enterprise.prompting.templating import all_specs

    return {s.table_id: s for _, s in all_specs(Path(TASK_DIR))}


def e2e_tasks(table_id: str) -> tuple[str, str]:
    """The two variants every table runs end to end with the tiny model: its first and its last template."""
    names = table_specs()[table_id].task_names()
    return names[0], names[-1]


E2E_MAX_GEN_TOKS = 16  # generation bound of the tiny-model runs (a random model rarely emits a stop sequence)


@pytest.fixture(scope="session")
def tiny_eval(tiny_model_dir):
    """``run(tasks, data_root="embedded", limit=2, gen_kwargs=None)``: lm-eval's ``simple_evaluate`` with the tiny
    random Llama (hf backend, samples logged), memoised for the session so that the shared end-to-end test
    (``tests/data/test_datasets.py``) and a dataset's own test read the same run."""
    cache: dict = {}

    def run(tasks, data_root="embedded", limit=2, gen_kwargs=None) -> dict:
        key = (tuple(tasks), str(data_root), limit, gen_kwargs)
        if key not in cache:
            from testkit.testing import run_hf_model

            cache[key] = run_hf_model(tiny_model_dir, list(tasks), data_root, limit, gen_kwargs=gen_kwargs)
        return cache[key]

    return run


def fixture_run(tiny_eval, dataset: str, tasks: list[str], keys: tuple[str, ...], num_fewshot: int):
    """A dataset's own tiny-model run of ``tasks`` on its embedded fixture (``tiny_eval``: memoised, first 2
    documents), checked with ``assert_tiny_run``. Returns lm-eval's results and the fixture's records."""
    from lm_eval_enterprise.data import load_records
    from testkit.testing import assert_tiny_run

    res = tiny_eval(tasks)
    assert_tiny_run(res, tasks, keys, num_fewshot)
    return res, load_records(dataset, data_root="embedded")


@pytest.fixture(scope="session")
def tiny_e2e(tiny_eval):
    """``run(table_id)``: the embedded-data run of :func:`e2e_tasks` (limit 2 documents, a whole query of 20
    candidate documents for the log-likelihood ranking tables; generation bounded by :data:`E2E_MAX_GEN_TOKS`)."""

    def run(table_id: str) -> dict:
        spec = table_specs()[table_id]
        ranking = spec.family.startswith("ranking")  # one query = 20 documents: --limit must be a multiple of 20
        long_gen = spec.output_type == "generate_until" and spec.max_gen_toks > E2E_MAX_GEN_TOKS
        return tiny_eval(
            e2e_tasks(table_id),
            limit=20 if ranking else 2,
            gen_kwargs=f"max_gen_toks={E2E_MAX_GEN_TOKS}" if long_gen else None,
        )

    return run
