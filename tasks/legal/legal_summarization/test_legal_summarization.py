"""legal_summarization: HELM pandas split (fixture, real sample, rebuilt file), errors, 0-shot, end to end.

What the real sample (docs/data.md#real-samples: the first 300 rows of HELM's test order and all 89 HELM
train rows, drawn from the pinned all_v1.json with 446 records) lets us prove without the original file:

1. ``convert_presplit`` keeps the sample's HELM order and maps every row exactly like the sample's own
   ``document``/``summary`` fields (HELM ``_clean``).
2. The recipe (``sample(frac=0.2, random_state=0)`` then ``drop().sample(frac=1, random_state=0)`` on 446 rows) puts
   the 389 sample uids at positions that are in ascending uid order — i.e. the sample is consistent with our split
   code applied to a uid-sorted 446-record file (an independent check: 389 uids in sorted order by chance is
   impossible).
3. A file rebuilt in tmp_path from the 389 sample records at those positions plus 57 synthetic records reproduces,
   through ``convert()``, the sample's train order and test order exactly, with the 57 synthetic records last in the
   test order; running it twice gives identical output (determinism).
The full 446-record test order (items 301-357) cannot be checked without the original file.
"""

import json
import math
import re
from pathlib import Path

import pytest
from lm_eval_enterprise.tasks.legal.legal_summarization import source as S
from lm_eval_enterprise.tasks.legal.legal_summarization.templates import TASKS, TEMPLATES

from conftest import assert_summary_sample_loads_row_for_row, run_summary_sample, sample_rows
from lm_eval_enterprise.data import DataError, fixture_dir, get_source, load_records
from testkit.testing import assert_summary_reading, helm_positions, oracle_samples, write_presplit

SRC = get_source("legal_summarization")
FIXTURE = fixture_dir("legal_summarization")
N_FULL = 446
ORIGINAL_FIELDS = ("uid", "id", "doc", "title", "original_text", "reference_summary")


def _helm_positions(n: int, n_train_known: int, n_test_known: int) -> tuple[list[int], list[int]]:
    """Original-file positions of the first k train / test rows under HELM's recipe, computed with numpy directly
    (pandas ``sample(frac, random_state=0)`` = ``RandomState(0).choice(n, round(frac·n), replace=False)``, which is
    ``RandomState(0).permutation(n)[:k]``) — independent of the pandas code in source.py."""
    train_pos, test_pos = helm_positions(n)
    return train_pos[:n_train_known], test_pos[:n_test_known]


# ----------------------------------------------------------------------------------------------- fixture
def test_convert_fixture_is_the_helm_split():
    raw = json.loads((FIXTURE / "all_v1.json").read_text())
    assert len(raw) == 21
    kept = [v for v in raw.values() if v.get("reference_summary") is not None]  # dropna removes one record
    train_pos, test_pos = _helm_positions(len(kept), 4, 16)
    splits = SRC.convert(FIXTURE)
    assert [r["id"] for r in splits["train"]] == [kept[i]["uid"] for i in train_pos]
    assert [r["id"] for r in splits["test"]] == [kept[i]["uid"] for i in test_pos]
    assert not {r["id"] for r in splits["train"]} & {r["id"] for r in splits["test"]}
    rec = next(r for r in splits["test"] if r["id"] == "legalsum04")
    assert rec == {
        "id": "legalsum04",
        "document": re.sub(r"\s+", " ", raw["legalsum04"]["original_text"]),
        "summary": raw["legalsum04"]["reference_summary"],
    }
    assert "\n" not in rec["document"] and "  " not in rec["document"]  # HELM _clean


def test_clean_is_helm_clean_without_strip():
    assert S.clean("a \n\t b  c ") == "a b c "
    assert S.clean(" x") == " x"


def test_zero_shot_generation_settings():  # the few-shot pool lm-eval still needs: tests/data/test_datasets.py
    assert TASKS.num_fewshot == 0 and TASKS.max_gen_toks == 100 and TASKS.until == ("\n\n",)


# ----------------------------------------------------------------------------------------------- real sample
def test_real_sample_presplit_keeps_helm_order_and_mapping():
    recs = assert_summary_sample_loads_row_for_row("legal_summarization", {"test": 300, "train": 89}, "uid")
    # HELM's test order is the sample file's (the data layer serves the evaluated split in its fair order)
    assert [r["uid"] for r in sample_rows("legal_summarization", "test")[:3]] == ["legalsum09", "tosdr109", "tosdr344"]
    assert [r["id"] for r in recs["train"][:3]] == ["tosdr414", "tosdr388", "tosdr259"]
    assert len(recs["fewshot"]) == 89  # the pool lm-eval needs even at 0 shots


def test_real_sample_orders_are_the_recipe_on_a_uid_sorted_446_file():
    train, test = sample_rows("legal_summarization", "train"), sample_rows("legal_summarization", "test")
    train_pos, test_pos = _helm_positions(N_FULL, len(train), len(test))
    by_pos = {p: r["uid"] for p, r in zip(train_pos, train)} | {p: r["uid"] for p, r in zip(test_pos, test)}
    assert len(by_pos) == 389
    seq = [by_pos[p] for p in sorted(by_pos)]
    assert seq == sorted(seq)  # file order = uid order, for all 389 known rows
    assert seq[0] == "legalsum01" and seq[-1] == "tosdr421"


def _rebuild_full_file(out_dir: Path) -> tuple[list[dict], list[dict], list[str]]:
    """all_v1.json with the 389 sample records at their HELM positions and 57 synthetic records elsewhere."""
    train, test = sample_rows("legal_summarization", "train"), sample_rows("legal_summarization", "test")
    train_pos, test_pos = _helm_positions(N_FULL, len(train), len(test))
    placed = dict(zip(train_pos, train)) | dict(zip(test_pos, test))
    records, synthetic = [], []
    for pos in range(N_FULL):
        if pos in placed:
            row = placed[pos]
            rec = {k: row[k] for k in ORIGINAL_FIELDS if not (isinstance(row[k], float) and math.isnan(row[k]))}
        else:
            prev = records[-1]["uid"]
            uid = f"{prev}!syn{pos}"  # sorts right after its neighbour, never collides with a real uid
            rec = {
                "doc": "Synthetic Terms",
                "original_text": f"synthetic clause number {pos} about refunds .",
                "reference_summary": f"synthetic summary {pos}.",
                "uid": uid,
            }
            synthetic.append(uid)
        records.append(rec)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / S.JSON_NAME).write_text(json.dumps({r["uid"]: r for r in records}))
    return train, test, synthetic


def test_rebuilt_446_record_file_reproduces_the_sample_and_is_deterministic(tmp_path):
    out = tmp_path / "legal_summarization"
    train, test, synthetic = _rebuild_full_file(out)
    assert len(synthetic) == N_FULL - 389 == 57
    first, second = SRC.convert(out), SRC.convert(out)
    assert first == second
    assert (len(first["train"]), len(first["test"])) == (89, 357)  # the spec's counts
    assert [r["id"] for r in first["train"]] == [r["uid"] for r in train]
    assert [r["id"] for r in first["test"][:300]] == [r["uid"] for r in test]
    assert sorted(r["id"] for r in first["test"][300:]) == sorted(synthetic)
    assert [r["document"] for r in first["test"][:300]] == [r["document"] for r in test]
    # the source layout passes the exact row-count check (tolerance 0) through the normal loader
    recs = load_records("legal_summarization", data_root=str(tmp_path))
    assert sorted(r["id"] for r in recs["test"]) == sorted(r["id"] for r in first["test"])  # same docs, fair order


# ----------------------------------------------------------------------------------------------- errors
def test_wrong_row_count_is_one_line_error(tmp_path):
    d = tmp_path / "legal_summarization"
    d.mkdir()
    raw = {f"u{i}": {"uid": f"u{i}", "original_text": "t", "reference_summary": "s"} for i in range(445)}
    (d / S.JSON_NAME).write_text(json.dumps(raw))
    with pytest.raises(DataError) as e:
        load_records("legal_summarization", data_root=str(tmp_path))
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith("[legal_summarization]")
    assert "split 'test' has 356 rows after conversion, expected 357 (HELM split reproduced on the genuine " in msg


def test_bad_files_name_the_file(tmp_path):
    (tmp_path / S.JSON_NAME).write_text("[1, 2]")
    with pytest.raises(DataError, match=r"all_v1\.json: expected a JSON object mapping uid"):
        SRC.convert(tmp_path)
    (tmp_path / S.JSON_NAME).write_text(json.dumps({"a": {"uid": "a", "original_text": "x"}}))
    with pytest.raises(DataError, match=r"all_v1\.json: records lack the field\(s\) 'reference_summary'"):
        SRC.convert(tmp_path)
    (tmp_path / S.JSON_NAME).write_text("{not json")
    with pytest.raises(DataError, match="cannot read the JSON file"):
        SRC.convert(tmp_path)
    with pytest.raises(DataError, match=r"test\.jsonl:2: row lacks a string uid"):
        SRC.convert_presplit(
            {"test": [{"uid": "a", "original_text": "x", "reference_summary": "y"}, {"uid": "b"}]}, tmp_path
        )


def test_source_url_is_pinned():
    assert SRC.files[0].url == (
        "https://raw.githubusercontent.com/lauramanor/legal_summarization/"
        "9d203292eb188e13523366490863b0cc14c89017/all_v1.json"
    )


# ----------------------------------------------------------------------------------------------- templates
def test_templates_accept_gold_and_reject_garbage():
    golds = [r["summary"] for r in SRC.convert(FIXTURE)["test"]]
    assert TEMPLATES[0].description == "Summarize the legal document in plain English.\n\n"
    assert TEMPLATES[0].doc_to_text == "Document: {{document}}\nSummary:"
    # [PARSE]: the whole completion, a failure iff no letter or digit; a two-line summary is kept whole (stop is a
    # blank line), text after a blank line is dropped; t3 asks for one line
    assert_summary_reading(TASKS, golds, " you can quit.\nwe keep data.\n\nDocument:", "you can quit.\nwe keep data.")


# ----------------------------------------------------------------------------------------------- end to end
def test_end_to_end_real_sample_tiny_model(tiny_model_dir):
    tasks = ["ent_legal_summarization__t1", "ent_legal_summarization__t4"]
    res, first = run_summary_sample(tiny_model_dir, "legal_summarization", tasks)
    for t in tasks:
        prompt = res["samples"][t][0]["arguments"][0][0]
        assert first["document"] in prompt and prompt.count(first["document"]) == 1
    t1_prompt = res["samples"][tasks[0]][0]["arguments"][0][0]
    assert t1_prompt == (
        "Summarize the legal document in plain English.\n\nDocument: " + first["document"] + "\nSummary:"
    )


def test_document_too_long_for_the_context_budget_is_cut_keeping_its_start(tmp_path):
    """[TRUNC] without a fixed N (shared prompt budget, field ``document``): a 3,000-word clause does not fit the
    default 4,096-token budget and is cut from the end; a short one is sent whole."""
    long_text = " ".join(f"clause{i}" for i in range(3000))
    rows = [
        {"uid": "long1", "original_text": long_text, "reference_summary": "it is long."},
        {"uid": "short1", "original_text": "you may cancel at any time.", "reference_summary": "cancel any time."},
    ]
    write_presplit(tmp_path, "legal_summarization", {"test": rows, "train": rows[1:]})
    samples = oracle_samples("ent_legal_summarization__t1", tmp_path)
    cut, whole = samples["long1"], samples["short1"]
    assert cut["prompt_cut"] == 1.0 and whole["prompt_cut"] == 0.0
    sent = cut["arguments"][0][0].split("Document: ", 1)[1].split("\nSummary:")[0]
    assert long_text.startswith(sent) and 0 < len(sent.split()) < 3000
    assert whole["arguments"][0][0] == (
        "Summarize the legal document in plain English.\n\nDocument: you may cancel at any time.\nSummary:"
    )
