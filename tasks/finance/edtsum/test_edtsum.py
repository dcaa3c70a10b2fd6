"""edtsum: loader on the hub-layout parquet fixture, the split rule (HELM 10 % / exposed train split), [TRUNC]
in shots and eval items, hub download (faked, no network), errors, templates, end to end with the tiny model
(no real sample of this dataset exists)."""

import random
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from lm_eval_enterprise.tasks.finance.edtsum import source as S
from lm_eval_enterprise.tasks.finance.edtsum.templates import TASKS, TEMPLATES

from conftest import FakeHub
from lm_eval_enterprise.data import DataError, fixture_dir, get_source, load_records
from lm_eval_enterprise.data.fewshot import helm_balanced
from lm_eval_enterprise.prompting.templating import answer_filter
from testkit.testing import GARBAGE, SUMMARIZATION_SCORES, assert_tiny_run, run_oracle

SRC = get_source("edtsum")
FIXTURE = fixture_dir("edtsum")
FIXTURE_FILE = FIXTURE / "data" / "test-00000-of-00001.parquet"


def _rows(n, words=20, prefix="e"):
    return [
        {
            "id": f"{prefix}{i}",
            "query": f"Summarize.\nText: doc {i}\nAnswer:",
            "answer": f"Title number {i}",
            "text": " ".join(f"w{i}_{j}" for j in range(words)),
        }
        for i in range(n)
    ]


def _write(path: Path, rows, columns=("id", "query", "answer", "text")):
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist([{c: r[c] for c in columns} for r in rows]), path)
    return path


# ----------------------------------------------------------------------------------------------- split
def test_convert_fixture_applies_helm_10_percent_rule():
    raw = pq.read_table(FIXTURE_FILE).to_pylist()
    assert len(raw) == 60 and set(raw[0]) == {"id", "query", "answer", "text"}
    random.seed(0)  # HELM: random.seed(0); random.sample(range(n), floor(n / 10))
    pool_idx = set(random.sample(range(60), 6))
    splits = SRC.convert(FIXTURE)
    assert [r["id"] for r in splits["train"]] == [raw[i]["id"] for i in sorted(pool_idx)]
    assert [r["id"] for r in splits["test"]] == [raw[i]["id"] for i in range(60) if i not in pool_idx]
    rec = splits["test"][0]
    assert set(rec) == {"id", "document", "summary"}
    src_row = next(r for r in raw if r["id"] == rec["id"])
    assert rec["document"] == src_row["text"] and rec["summary"] == src_row["answer"]


def test_exposed_train_split_is_the_pool_and_test_stays_whole(tmp_path):
    d = tmp_path / "edtsum"
    _write(d / "data" / "test-00000-of-00001-abc123.parquet", _rows(30, prefix="t"))
    _write(d / "data" / "train-00000-of-00001-def456.parquet", _rows(7, prefix="tr"))
    splits = SRC.convert(d)
    assert [r["id"] for r in splits["test"]] == [f"t{i}" for i in range(30)]
    assert [r["id"] for r in splits["train"]] == [f"tr{i}" for i in range(7)]
    # a valid split (and no train split) serves as the pool too
    d2 = tmp_path / "v"
    _write(d2 / "data" / "test-00000-of-00001.parquet", _rows(30, prefix="t"))
    _write(d2 / "data" / "validation-00000-of-00001.parquet", _rows(5, prefix="va"))
    splits = SRC.convert(d2)
    assert [r["id"] for r in splits["train"]] == [f"va{i}" for i in range(5)] and len(splits["test"]) == 30


def test_helm_pool_indices_full_size():
    random.seed(0)
    assert S.helm_pool_indices(2000) == set(random.sample(range(2000), 200))
    assert {s: r.n for s, r in SRC.expected_rows.items()} == {"train": 200, "test": 1800}


# ----------------------------------------------------------------------------------------------- [TRUNC]
def test_truncation_1024_eval_512_shots(tmp_path):
    d = tmp_path / "edtsum"
    rows = _rows(50, words=30)
    rows[2]["text"] = " ".join(f"long{j}" for j in range(1500))  # lands in the pool (see below)
    rows[0]["text"] = "first  line\n" + " ".join(f"x{j}" for j in range(1100))
    rows[1]["text"] = "short text\nwith its own   whitespace"
    _write(d / "data" / "test-00000-of-00001.parquet", rows)
    (d / "MANIFEST.json").write_text('{"expected_rows": {"train": 5, "test": 45}, "tolerance": 0}')
    pool_idx = S.helm_pool_indices(50)
    assert pool_idx == {2, 16, 24, 26, 48}
    recs = load_records("edtsum", data_root=str(tmp_path))
    by_id = {r["id"]: r for r in recs["test"]}
    eval_doc = by_id["e0"]["document"]
    assert eval_doc.split() == rows[0]["text"].split()[:1024] and eval_doc.startswith("first line x0 ")
    assert by_id["e1"]["document"] == rows[1]["text"]  # short documents keep their whitespace
    shot = next(r for r in recs["fewshot"] if r["id"] == "e2")
    assert shot["document"].split() == [f"long{j}" for j in range(512)]
    train_e2 = next(r for r in recs["train"] if r["id"] == "e2")
    assert len(train_e2["document"].split()) == 1024  # the pool split itself carries the eval-length cut
    assert all(len(r["document"].split()) <= 512 for r in recs["fewshot"])


def test_fixture_long_article_is_truncated():
    recs = load_records("edtsum", data_root="embedded")
    raw = {r["id"]: r for r in pq.read_table(FIXTURE_FILE).to_pylist()}
    long_doc = next(r for r in recs["test"] if r["id"] == "edtsum7")["document"]
    assert len(raw["edtsum7"]["text"].split()) > 1024 and len(long_doc.split()) == 1024
    pool = SRC.convert(FIXTURE)["train"]
    assert [r["id"] for r in recs["fewshot"]] == [r["id"] for r in helm_balanced(pool, lambda r: r["summary"], 6)]
    assert TASKS.num_fewshot == 5 and TASKS.max_gen_toks == 64 and TASKS.until == ("\n",)


# ----------------------------------------------------------------------------------------------- download
def _parquet_bytes(rows) -> bytes:
    buf = pa.BufferOutputStream()
    pq.write_table(pa.Table.from_pylist(rows), buf)
    return buf.getvalue().to_pybytes()


@pytest.fixture
def online(monkeypatch):
    for v in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "LM_EVAL_ENTERPRISE_OFFLINE"):
        monkeypatch.delenv(v, raising=False)


def test_download_fetches_test_only_when_that_is_all_the_hub_has(online, monkeypatch, tmp_path):
    import huggingface_hub

    hub = FakeHub(
        {".gitattributes": b"", "README.md": b"", "data/test-00000-of-00001-5f1e.parquet": _parquet_bytes(_rows(20))}
    )
    monkeypatch.setattr(huggingface_hub, "snapshot_download", hub)
    SRC.download(tmp_path)
    assert [(c["repo_id"], c["repo_type"]) for c in hub.calls] == [("TheFinAI/flare-edtsum", "dataset")]
    assert hub.downloaded() == ["data/test-00000-of-00001-5f1e.parquet"]
    assert SRC.has_source_layout(tmp_path)
    assert len(SRC.convert(tmp_path)["train"]) == 2


def test_download_also_fetches_an_exposed_train_split(online, monkeypatch, tmp_path):
    import huggingface_hub

    hub = FakeHub(
        {
            "data/test-00000-of-00001-aa.parquet": _parquet_bytes(_rows(20)),
            "data/train-00000-of-00001-bb.parquet": _parquet_bytes(_rows(4, prefix="tr")),
        }
    )
    monkeypatch.setattr(huggingface_hub, "snapshot_download", hub)
    SRC.download(tmp_path)
    assert sorted(hub.downloaded()) == ["data/test-00000-of-00001-aa.parquet", "data/train-00000-of-00001-bb.parquet"]
    assert [r["id"] for r in SRC.convert(tmp_path)["train"]] == ["tr0", "tr1", "tr2", "tr3"]


# ----------------------------------------------------------------------------------------------- errors
def test_missing_column_and_no_test_file_name_the_file(tmp_path):
    f = _write(tmp_path / "a" / "data" / "test-00000-of-00001.parquet", _rows(3), columns=("id", "query", "text"))
    with pytest.raises(DataError, match=r"\[edtsum\] .*test-00000-of-00001\.parquet: missing columns \['answer'\]"):
        SRC.convert(tmp_path / "a")
    assert f.exists()
    _write(tmp_path / "b" / "data" / "train-00000-of-00001.parquet", _rows(3))
    with pytest.raises(DataError, match=r"no parquet files for split 'test'"):
        SRC.convert(tmp_path / "b")


# ----------------------------------------------------------------------------------------------- templates
def test_templates_accept_gold_and_reject_garbage():
    assert TEMPLATES[0].description == "Generate the headline of the following financial news article.\n\n"
    assert TEMPLATES[0].doc_to_text == "Article: {{document}}\nHeadline:"
    golds = [r["summary"] for r in SRC.convert(FIXTURE)["test"]]
    for t in TEMPLATES:
        flt = answer_filter(TASKS, t)  # [PARSE]: the whole first line, a failure iff no letter or digit
        for g in golds:
            assert flt.read(" " + g, {}) == g and flt.read(" " + g, {}).adherent
        for junk in (GARBAGE, "", "  --- ", "?? \nHeadline text after the stop"):
            assert flt.read(junk, {}) == "[invalid]", (t.id, junk)


# ----------------------------------------------------------------------------------------------- end to end
def test_end_to_end_fixture_tiny_model(tiny_eval):
    tasks = ["ent_edtsum__t1", "ent_edtsum__t4"]
    res = tiny_eval(tasks)
    assert_tiny_run(res, tasks, SUMMARIZATION_SCORES, num_fewshot=5)
    prompt = res["samples"]["ent_edtsum__t1"][0]["arguments"][0][0]
    assert prompt.startswith("Generate the headline of the following financial news article.\n\nArticle: ")
    assert prompt.count("\nHeadline:") == 6 and prompt.endswith("\nHeadline:")


def test_context_budget_drops_shots_then_cuts_the_article():
    """Wiring of the shared prompt budget ([BAL] last paragraph, [TRUNC]) for this dataset: under a 2,048-token
    budget the 1,024-word fixture article (edtsum7) keeps no shot and its article is cut (its field is
    ``document``); the other items keep all 5 shots and byte-identical prompts."""

    res = run_oracle(["ent_edtsum__t1"], "embedded", max_context_tokens=2048)
    samples = {s["doc"]["id"]: s for s in res["samples"]["ent_edtsum__t1"]}
    long = samples["edtsum7"]
    assert (long["shots_used"], long["prompt_cut"]) == (0.0, 1.0)
    prompt = long["arguments"][0][0]
    assert prompt.count("Headline:") == 1 and prompt.endswith("\nHeadline:")
    assert long["doc"]["document"].startswith(prompt.split("Article: ", 1)[1].split("\nHeadline:")[0])
    others = [s for k, s in samples.items() if k != "edtsum7"]
    assert all(s["shots_used"] == 5.0 and s["prompt_cut"] == 0.0 for s in others)
    assert res["results"]["ent_edtsum__t1"]["rouge_l,answer"] == 1.0
