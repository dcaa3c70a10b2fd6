"""fiqa_qa: BEIR-format loader on the fixture (candidates, BM25 negatives, shuffle, shot pool), errors, the
hub download (against a local fake hub), and an end-to-end run of both tables with the tiny model.

No real sample of FiQA exists (docs/data.md#real-samples), so everything runs on the embedded fixture.
"""

import gzip
import json
import math
import random
import re
import shutil
from collections import Counter

import pytest
from lm_eval_enterprise.tasks.finance.fiqa_qa import source as fiqa

from conftest import FakeHub
from lm_eval_enterprise.data import DataError, fixture_dir, get_source, load_records
from testkit.testing import run_hf_model

SRC = get_source("fiqa_qa")
FIX = fixture_dir("fiqa_qa")


def _fixture_tables():
    corpus = [json.loads(line) for line in (FIX / "corpus.jsonl").open()]
    queries = {q["_id"]: q["text"] for q in map(json.loads, (FIX / "queries.jsonl").open())}
    return corpus, queries


def _brute_force_bm25(corpus, query, k1=0.9, b=0.4):
    """Independent re-implementation of the spec's BM25, one document at a time (for cross-checking)."""
    tok = lambda s: re.findall(r"[a-z0-9]+", s.lower())  # noqa: E731
    docs = [tok((d["title"] + " " + d["text"]).strip()) for d in corpus]
    n, avgdl = len(docs), sum(map(len, docs)) / len(docs)
    df = Counter(t for d in docs for t in set(d))
    scores = []
    for d in docs:
        tf = Counter(d)
        s = 0.0
        for t in tok(query):
            if tf[t]:
                idf = math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
                s += idf * tf[t] * (k1 + 1) / (tf[t] + k1 * (1 - b + b * len(d) / avgdl))
        scores.append(s)
    return scores


def test_convert_fixture_candidates_follow_the_spec():
    splits = SRC.convert(FIX)
    assert [r["qid"] for r in splits["test"]] == ["8", "15", "23"]  # qrels order
    assert [r["qid"] for r in splits["train"]] == ["201", "202", "203", "204"]
    corpus, queries = _fixture_tables()
    ids = [d["_id"] for d in corpus]
    qrels = fiqa.read_qrels(FIX / "qrels" / "test.tsv")
    for rec in splits["test"]:
        qid = rec["qid"]
        assert rec["question"] == queries[qid]
        assert len(rec["candidates"]) == 20
        all_rel = qrels[qid]
        kept = sorted(all_rel, key=lambda d: int(d))[:10]  # first 10 by numeric document id
        assert sorted(rec["relevant"], key=int) == kept
        # negatives: the BM25 top non-relevant documents (ties by corpus order), independently recomputed
        scores = _brute_force_bm25(corpus, queries[qid])
        order = sorted((i for i in range(len(ids)) if ids[i] not in all_rel), key=lambda i: (-scores[i], i))
        negatives = [ids[i] for i in order[: 20 - len(kept)]]
        unshuffled = [(d, True) for d in kept] + [(d, False) for d in negatives]
        random.Random(f"{qid}").shuffle(unshuffled)
        assert [c["docid"] for c in rec["candidates"]] == [d for d, _ in unshuffled]
    q8 = splits["test"][0]
    assert len(q8["relevant"]) == 10 and not {"37", "41"} & {c["docid"] for c in q8["candidates"]}


def test_train_pool_is_first_relevant_plus_bm25_top_negative():
    corpus, queries = _fixture_tables()
    ids = [d["_id"] for d in corpus]
    train = {r["qid"]: r for r in SRC.convert(FIX)["train"]}
    q = train["202"]  # relevant 58 and 56 → 56 comes first by id
    assert q["relevant"] == ["56"] and q["candidates"][0]["docid"] == "56"
    scores = _brute_force_bm25(corpus, queries["202"])
    best = min((i for i in range(len(ids)) if ids[i] not in ("56", "58")), key=lambda i: (-scores[i], i))
    assert q["candidates"][1]["docid"] == ids[best]
    assert all(len(r["candidates"]) == 2 and len(r["relevant"]) == 1 for r in train.values())


def test_pair_documents_and_balanced_shots():
    recs = load_records("fiqa_qa", data_root="embedded")
    assert (len(recs["test"]), len(recs["train"]), len(recs["fewshot"])) == (60, 8, 8)
    first = recs["test"][0]
    assert set(first) == {"qid", "docid", "question", "passage", "label", "cand_index", "label_names"}
    assert all(isinstance(first[k], str) for k in ("qid", "docid", "question", "passage", "label"))
    assert [d["cand_index"] for d in recs["test"][:20]] == list(range(20))
    assert [d["qid"] for d in recs["test"]] == ["8"] * 20 + ["15"] * 20 + ["23"] * 20  # query-major
    assert sum(d["label"] == "Yes" for d in recs["test"]) == 10 + 2 + 1
    shots = [d["label"] for d in recs["fewshot"][:5]]
    assert sorted(Counter(shots).values()) == [2, 3]  # [BAL]: 3 + 2


def test_shot_passages_are_truncated_to_200_words_eval_passages_are_not(tmp_path):
    d = tmp_path / "fiqa_qa"
    shutil.copytree(FIX, d)
    rows = [json.loads(line) for line in (d / "corpus.jsonl").open()]
    long_text = " ".join(f"word{i}" for i in range(260))
    for r in rows:
        if r["_id"] in ("53", "50"):  # 53: train relevant of query 201; 50: test relevant of query 23
            r["text"] = long_text
    (d / "corpus.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    recs = load_records("fiqa_qa", data_root=str(tmp_path))
    shot = next(r for r in recs["fewshot"] if r["docid"] == "53")
    assert shot["passage"] == " ".join(f"word{i}" for i in range(200))
    assert next(r for r in recs["test"] if r["docid"] == "50")["passage"] == long_text


def test_inconsistent_files_name_the_file(tmp_path):
    d = tmp_path / "fiqa_qa"
    shutil.copytree(FIX, d)
    with open(d / "qrels" / "test.tsv", "a") as f:
        f.write("23\t999999\t1\n")
    with pytest.raises(DataError, match=r"\[fiqa_qa\] .*test\.tsv: corpus ids \['999999'\] of query '23'"):
        SRC.convert(d)
    (d / "qrels" / "test.tsv").write_text("qid\tdocid\trel\n8\t2\t1\n")
    with pytest.raises(DataError, match=r"test\.tsv: not a BEIR qrels file"):
        SRC.convert(d)
    (d / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n777\t2\t1\n")
    with pytest.raises(DataError, match=r"query id '777' is not in queries\.jsonl"):
        SRC.convert(d)


def test_download_writes_the_beir_layout_from_the_hub(tmp_path, monkeypatch):
    """download() against a fake hub holding the repos' real file names (gzipped jsonl, tsv, one parquet)."""
    import huggingface_hub
    import pandas as pd

    hub = tmp_path / "hub"
    (hub / "BeIR/fiqa").mkdir(parents=True)
    (hub / "BeIR/fiqa-qrels").mkdir(parents=True)
    for name in ("corpus.jsonl", "queries.jsonl"):
        with gzip.open(hub / "BeIR/fiqa" / f"{name}.gz", "wb") as f:
            f.write((FIX / name).read_bytes())
    shutil.copy(FIX / "qrels/test.tsv", hub / "BeIR/fiqa-qrels/test.tsv")
    # train qrels only as parquet (the layout of a converted repo) → converted back to TSV
    pd.read_csv(FIX / "qrels/train.tsv", sep="\t", dtype=str).to_parquet(hub / "BeIR/fiqa-qrels/train.parquet")

    files = {
        repo: {p.name: p.read_bytes() for p in (hub / repo).iterdir()} | {"README.md": b""}
        for repo in ("BeIR/fiqa", "BeIR/fiqa-qrels")
    }
    fake = FakeHub(files)
    monkeypatch.setattr(huggingface_hub, "snapshot_download", fake)
    for v in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "LM_EVAL_ENTERPRISE_OFFLINE"):
        monkeypatch.delenv(v, raising=False)
    dest = tmp_path / "data" / "fiqa_qa"
    SRC.download(dest)
    assert SRC.has_source_layout(dest)
    assert (dest / "corpus.jsonl").read_bytes() == (FIX / "corpus.jsonl").read_bytes()
    shutil.copy(FIX / "MANIFEST.json", dest / "MANIFEST.json")
    assert SRC.convert(dest) == SRC.convert(FIX)
    assert [c["repo_id"] for c in fake.calls] == ["BeIR/fiqa", "BeIR/fiqa-qrels"]
    assert sorted(fake.downloaded()) == ["corpus.jsonl.gz", "queries.jsonl.gz", "test.tsv", "train.parquet"]
    assert not (dest / ".hub").exists()  # the raw hub files are not left in the data folder


def _evaluate(model_dir, tasks, limit):
    return run_hf_model(model_dir, tasks, "embedded", limit)


def test_end_to_end_tiny_model_both_tables(tiny_model_dir):
    tasks = ["ent_fiqa_qa__t1", "ent_fiqa_qa_gen__t1"]
    res = _evaluate(tiny_model_dir, tasks, limit=20)  # one whole query (--limit must be a multiple of 20)
    filt = "answer"  # one filter name for the log-likelihood table and its generate variant
    for task in tasks:
        row = res["results"][task]
        for metric in ("rr_at_10", "rr_at_5", "ndcg_at_10", "yes_accuracy"):
            value = row[f"{metric},{filt}"]
            assert math.isfinite(value) and 0.0 <= value <= 1.0, (task, metric, value)
        samples = res["samples"][task]
        assert len(samples) == 20 and {s["doc"]["qid"] for s in samples} == {"8"}
        prompt = samples[0]["arguments"][0][0]
        assert prompt.count("Passage:") == 6 and prompt.endswith("Does the passage answer the query?\nAnswer:")
    assert "format_failure,answer" in res["results"]["ent_fiqa_qa_gen__t1"]
    mc = res["samples"]["ent_fiqa_qa__t1"][0]["arguments"]
    assert [a[1] for a in mc] == [" No", " Yes"]
    meta = res["configs"]["ent_fiqa_qa_gen__t1"]["metadata"]
    assert (meta["dataset"], meta["variant_group"], meta["scoring"]) == ("fiqa_qa_gen", "ent_fiqa_qa_gen", "generate")
    assert res["configs"]["ent_fiqa_qa__t1"]["metadata"]["variant_group"] == "ent_fiqa_qa"
