"""insurance_qa: V2 decoding through `vocabulary`, candidate lists, seeded test sample, shot pool, errors and an
end-to-end run of both tables with the tiny model. No real sample exists (docs/data.md#real-samples) → fixture only."""

import gzip
import math
import random
import shutil
from collections import Counter

import pytest
from lm_eval_enterprise.tasks.finance.insurance_qa import source as ins

from lm_eval_enterprise.data import DataError, fixture_dir, get_source, load_records
from testkit.testing import run_hf_model

SRC = get_source("insurance_qa")
FIX = fixture_dir("insurance_qa")


def _raw_lines(name):
    with gzip.open(FIX / name, "rt", encoding="utf-8") as f:
        return [line.rstrip("\n").split("\t") for line in f if line.strip()]


def test_vocabulary_decoding():
    vocab = ins.read_vocabulary(FIX / ins.VOCAB_FILE)
    assert ins.decode("idx_1 idx_2", vocab, "x") == f"{vocab['idx_1']} {vocab['idx_2']}"
    with pytest.raises(DataError, match=r"\[insurance_qa\] f:3: token 'idx_999999' is not in vocabulary"):
        ins.decode("idx_1 idx_999999", vocab, "f:3")
    questions = ins.read_questions(FIX / ins.TEST_FILE, vocab, "test")
    assert questions[0]["question"] == "What is the difference between term and whole life insurance ?"
    assert questions[0]["qid"] == "test-1" and questions[0]["domain"] == "life-insurance"


def test_eval_sample_is_the_seeded_500_in_file_order():
    picked = ins.eval_sample(2000)
    assert picked == sorted(random.Random(0).sample(range(2000), 500))
    assert len(picked) == 500 and picked == sorted(set(picked))
    assert ins.eval_sample(4) == [0, 1, 2, 3]  # the fixture: fewer than 500 → all, in file order


def test_convert_fixture_candidates_follow_the_spec():
    splits = SRC.convert(FIX)
    vocab = ins.read_vocabulary(FIX / ins.VOCAB_FILE)
    answers = ins.read_answers(FIX / ins.ANSWERS_FILE, vocab)
    raw = _raw_lines(ins.TEST_FILE)
    assert [r["qid"] for r in splits["test"]] == ["test-1", "test-2", "test-3", "test-4"]
    for rec, (_dom, _q, truth, pool) in zip(splits["test"], raw):
        truth, pool = truth.split(), pool.split()
        expected = [(a, True) for a in truth[:10]] + [(a, False) for a in pool if a not in truth][: 20 - len(truth)]
        random.Random(rec["qid"]).shuffle(expected)
        assert [(c["docid"], c["docid"] in rec["relevant"]) for c in rec["candidates"]] == expected
        assert all(c["text"] == answers[c["docid"]] for c in rec["candidates"])
    # the first fixture pool holds a ground-truth answer: it is a candidate only once, as relevant
    assert [c["docid"] for c in splits["test"][0]["candidates"]].count(raw[0][2].split()[0]) == 1
    train = splits["train"]
    assert [r["qid"] for r in train] == ["train-1", "train-2", "train-3", "train-4"]
    for rec, (_dom, _q, truth, pool) in zip(train, _raw_lines(ins.TRAIN_FILE)):
        first_negative = next(a for a in pool.split() if a not in truth.split())
        assert [c["docid"] for c in rec["candidates"]] == [truth.split()[0], first_negative]


def test_pair_documents_and_balanced_shots():
    recs = load_records("insurance_qa", data_root="embedded")
    assert (len(recs["test"]), len(recs["fewshot"])) == (80, 8)
    assert [d["cand_index"] for d in recs["test"][20:40]] == list(range(20))
    assert {d["qid"] for d in recs["test"][20:40]} == {"test-2"}
    assert sorted(Counter(d["label"] for d in recs["fewshot"][:5]).values()) == [2, 3]


def test_malformed_files_name_file_and_line(tmp_path):
    d = tmp_path / "insurance_qa"
    shutil.copytree(FIX, d)
    lines = _raw_lines(ins.TEST_FILE)
    lines[1][3] += " 99999"  # pool label with no answer
    with gzip.open(d / ins.TEST_FILE, "wt", encoding="utf-8") as f:
        f.write("\n".join("\t".join(p) for p in lines) + "\n")
    with pytest.raises(DataError, match=r"\.test\.encoded\.gz:2: answer labels \['99999'\] are not in"):
        SRC.convert(d)
    with gzip.open(d / ins.TEST_FILE, "wt", encoding="utf-8") as f:
        f.write("life-insurance\tidx_1 idx_2\t10\n")  # pool field missing
    with pytest.raises(DataError, match=r"\.test\.encoded\.gz:1: expected 4 tab-separated fields"):
        SRC.convert(d)
    (d / ins.TEST_FILE).write_bytes(b"not gzip")
    with pytest.raises(DataError, match=r"not a readable gzip file"):
        SRC.convert(d)


def test_download_urls_are_the_v2_raw_files():
    urls = {f.name: f.url for f in SRC.files}
    assert urls[ins.VOCAB_FILE] == "https://raw.githubusercontent.com/shuzi/insuranceQA/master/V2/vocabulary"
    assert set(urls) == {ins.TEST_FILE, ins.TRAIN_FILE, ins.ANSWERS_FILE, ins.VOCAB_FILE}


def test_end_to_end_tiny_model_both_tables(tiny_model_dir):
    tasks = ["ent_insurance_qa__t2", "ent_insurance_qa_gen__t2"]
    res = run_hf_model(tiny_model_dir, tasks, "embedded", limit=20)
    filt = "answer"  # one filter name for the log-likelihood table and its generate variant
    for task in tasks:
        row = res["results"][task]
        for metric in ("rr_at_10", "rr_at_5", "ndcg_at_10"):
            assert math.isfinite(row[f"{metric},{filt}"]) and 0.0 <= row[f"{metric},{filt}"] <= 1.0
        assert {s["doc"]["qid"] for s in res["samples"][task]} == {"test-1"}
        assert res["samples"][task][0]["arguments"][0][0].count("Agent answer:") == 6
    assert res["configs"]["ent_insurance_qa_gen__t2"]["metadata"]["dataset"] == "insurance_qa_gen"
