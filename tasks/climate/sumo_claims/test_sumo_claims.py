"""sumo_claims: HELM ``sumosum`` split (fixture .xlsx, real sample, rebuilt 1,036-row sheet), errors, 0-shot, e2e.

What the real sample (docs/data.md#real-samples: the first 300 of HELM's 428 filtered test items and the first 100
HELM train items, drawn from the pinned climate_claims_raw.xlsx) lets us prove without the original file:

1. ``convert_presplit`` keeps the sample's HELM order and reproduces its ``document``/``summary`` fields and ids.
2. The recipe's train sample (``sample(frac=0.2, random_state=0)`` over the 875 rows left by dropna) puts the 100
   sample train rows at positions whose Claim_ids are non-decreasing — consistent with a file sorted by claim
   (positions computed with numpy directly, independent of the pandas code in source.py).
3. A 1,036-row sheet rebuilt in tmp_path (first row to skip, 161 rows dropna removes, the sample rows at their
   recipe positions with ``_x000D_`` markers re-inserted, synthetic rows elsewhere) goes through ``convert()`` and
   the normal loader to exactly the sample's train order and test order, with the spec's counts 175 / 428.
The real positions of test items among the 700 unfiltered test rows cannot be checked without the original file.
"""

from pathlib import Path

import pytest
from lm_eval_enterprise.tasks.climate.sumo_claims import source as S
from lm_eval_enterprise.tasks.climate.sumo_claims.templates import TASKS, TEMPLATES

from conftest import assert_summary_sample_loads_row_for_row, run_summary_sample, sample_rows
from lm_eval_enterprise.data import DataError, fixture_dir, get_source, load_records
from lm_eval_enterprise.prompting.templating import answer_filter
from testkit.testing import checked_free_text_filter, helm_positions, oracle_samples, write_presplit

SRC = get_source("sumo_claims")
FIXTURE = fixture_dir("sumo_claims")
N_ROWS, N_KEPT, N_TRAIN, N_TEST_ALL, N_TEST = 1036, 875, 175, 700, 428


def _read_fixture_rows() -> list[dict]:
    import openpyxl

    ws = openpyxl.load_workbook(FIXTURE / S.XLSX_NAME, read_only=True).active
    values = list(ws.iter_rows(values_only=True))
    header = values[1]
    return [dict(zip(header, v)) for v in values[2:]]


# ----------------------------------------------------------------------------------------------- fixture
def test_fixture_layout_has_a_first_row_to_skip_and_the_real_columns():
    import openpyxl

    ws = openpyxl.load_workbook(FIXTURE / S.XLSX_NAME, read_only=True).active
    first, header = list(ws.iter_rows(min_row=1, max_row=2, values_only=True))
    assert "Claim_id" not in first and tuple(header) == S.COLUMNS


def test_convert_fixture_is_the_helm_split_with_cleaning_and_length_filter():
    rows = _read_fixture_rows()
    kept = [r for r in rows if r["Title"] is not None and r["Doc_text"] is not None]  # dropna
    assert (len(rows), len(kept)) == (24, 22)
    train_pos, test_pos = helm_positions(len(kept))
    splits = SRC.convert(FIXTURE)
    assert [r["id"] for r in splits["train"]] == [str(kept[i]["Claim_id"]) for i in train_pos]
    words = [len(kept[i]["Doc_text"].replace("_x000D_", "").split()) for i in test_pos]
    expected_test = [str(kept[i]["Claim_id"]) for i, w in zip(test_pos, words) if 100 <= w <= 3700]
    assert [r["id"] for r in splits["test"]] == expected_test
    assert len(expected_test) == 16 and len(test_pos) - len(expected_test) == 2  # 3,814 and 31 words dropped
    texts = [r["document"] + r["summary"] for s in splits.values() for r in s]
    assert not any("_x000D_" in t or "\n" in t or "  " in t for t in texts)
    src_row = kept[3]  # the row with two _x000D_ markers in Doc_text
    rec = next(r for r in splits["test"] + splits["train"] if r["summary"] == " ".join(src_row["Title"].split()))
    assert rec["document"] == " ".join(src_row["Doc_text"].replace("_x000D_", "").split())
    assert SRC.convert(FIXTURE) == splits  # deterministic


def test_clean_and_length_filter_units():
    assert S.clean(" a \n\t b  c ") == "a b c"
    assert S.keep_test({"Doc_text": "w " * 100}) and S.keep_test({"Doc_text": "w " * 3700})
    assert not S.keep_test({"Doc_text": "w " * 99}) and not S.keep_test({"Doc_text": "w " * 3701})
    assert S.to_record({"Claim_id": 12.0, "Title": "T _x", "Doc_text": "d"})["id"] == "12"  # float-upcast ids


def test_zero_shot_generation_settings():  # the few-shot pool lm-eval still needs: tests/data/test_datasets.py
    assert TASKS.num_fewshot == 0 and TASKS.max_gen_toks == 100 and TASKS.until == ("\n\n",)


# ----------------------------------------------------------------------------------------------- real sample
def test_real_sample_presplit_reproduces_ids_order_and_fields():
    recs = assert_summary_sample_loads_row_for_row("sumo_claims", {"test": 300, "train": 100}, "Claim_id")
    for split in ("test", "train"):
        for row in sample_rows("sumo_claims", split):  # the sample's own columns agree: HELM's split and cleaning
            assert row["helm_split"] == split
            assert row["document"] == " ".join(row["Doc_text"].split())
            assert row["summary"] == " ".join(row["Title"].split())
    # HELM's order of the sample's test file (the data layer serves the evaluated split in its fair order,
    # docs/data.md#evaluation-order; the pool split keeps it)
    assert [str(r["Claim_id"]) for r in sample_rows("sumo_claims", "test")[:5]] == ["6", "73", "83", "5", "38"]
    assert [r["id"] for r in recs["train"][:5]] == ["18", "14", "88", "36", "32"]
    assert all(100 <= len(r["document"].split()) <= 3700 for r in recs["test"])


def test_real_sample_train_order_is_the_recipe_on_a_claim_sorted_file():
    train = sample_rows("sumo_claims", "train")
    train_pos, _ = helm_positions(N_KEPT)
    assert len(train_pos) == N_TRAIN
    seq = [cid for _, cid in sorted(zip(train_pos, (r["Claim_id"] for r in train)))]
    assert seq == sorted(seq)  # 100 claim ids in file-position order: sorted (impossible by chance)


def _rebuild_sheet(out_dir: Path) -> tuple[list[dict], list[dict]]:
    """climate_claims_raw.xlsx with 1,036 rows: the 400 sample rows at their recipe positions (first 300 test
    positions = the sample's test items), 128 further long synthetic test docs (→ 428 after the filter), 272 short
    ones (filtered out), 75 synthetic train rows, and 161 rows without Title or Doc_text spread through the file."""
    import openpyxl

    train, test = sample_rows("sumo_claims", "train"), sample_rows("sumo_claims", "test")
    train_pos, test_pos = helm_positions(N_KEPT)
    placed = dict(zip(train_pos, train)) | dict(zip(test_pos, test))
    long_syn = set(test_pos[300:428])
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["climate claims (rebuilt for a test)"])
    ws.append(list(S.COLUMNS))
    n_written, n_na = 0, 0
    for pos in range(N_KEPT):
        while n_na < N_ROWS - N_KEPT and n_na * N_KEPT < pos * (N_ROWS - N_KEPT):  # dropna rows interleaved
            ws.append([900 + n_na, "claim", None if n_na % 2 else "a title", "text" if n_na % 2 else None, True])
            n_na += 1
        row = placed.get(pos)
        if row is not None:
            title = row["Title"] + ("_x000D_" if pos % 3 == 0 else "")
            doc = row["Doc_text"].replace(". ", "._x000D_\n", 1) if pos % 5 == 0 else row["Doc_text"]
            ws.append([row["Claim_id"], row["Claim"], title, doc, row["Label"]])
            for cell in ws[ws.max_row]:
                if isinstance(cell.value, str) and cell.value.startswith("="):
                    cell.data_type = "s"  # text such as "=>…" in the real sheet, not a formula
        else:
            n_words = 150 if pos in long_syn else 20
            ws.append([500 + pos, "synthetic claim", f"synthetic title {pos}", " ".join(["word"] * n_words), False])
        n_written += 1
    while n_na < N_ROWS - N_KEPT:
        ws.append([900 + n_na, "claim", None, None, False])
        n_na += 1
    out_dir.mkdir(parents=True, exist_ok=True)
    wb.save(out_dir / S.XLSX_NAME)
    assert n_written == N_KEPT and ws.max_row == N_ROWS + 2
    return train, test


def test_rebuilt_sheet_reproduces_the_sample_through_convert_and_the_loader(tmp_path):
    out = tmp_path / "sumo_claims"
    train, test = _rebuild_sheet(out)
    first = SRC.convert(out)
    assert (len(first["train"]), len(first["test"])) == (N_TRAIN, N_TEST)  # the spec's counts
    assert [r["id"] for r in first["train"][:100]] == [str(r["Claim_id"]) for r in train]
    assert [r["id"] for r in first["test"][:300]] == [str(r["Claim_id"]) for r in test]
    assert [(r["document"], r["summary"]) for r in first["test"][:300]] == [(r["document"], r["summary"]) for r in test]
    assert [r["summary"] for r in first["train"][:100]] == [r["summary"] for r in train]
    recs = load_records("sumo_claims", data_root=str(tmp_path))  # exact row-count check (tolerance 0) passes
    assert sorted(r["id"] for r in recs["test"]) == sorted(r["id"] for r in first["test"])  # same docs, fair order


# ----------------------------------------------------------------------------------------------- errors
def test_wrong_row_count_is_one_line_error(tmp_path):
    import openpyxl

    d = tmp_path / "sumo_claims"
    d.mkdir()
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["skip me"])
    ws.append(list(S.COLUMNS))
    for i in range(50):
        ws.append([i, "c", f"t{i}", " ".join(["w"] * 120), True])
    wb.save(d / S.XLSX_NAME)
    with pytest.raises(DataError) as e:
        load_records("sumo_claims", data_root=str(tmp_path))
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith(f"[sumo_claims] {d}:")
    assert "split 'train' has 10 rows after conversion, expected 175 (HELM split reproduced on the genuine " in msg


def test_bad_files_name_the_file(tmp_path):
    import openpyxl

    (tmp_path / S.XLSX_NAME).write_text("not a workbook")
    with pytest.raises(DataError, match=r"climate_claims_raw\.xlsx: cannot read the Excel file"):
        SRC.convert(tmp_path)
    wb = openpyxl.Workbook()
    wb.active.append(["Claim_id", "Claim", "Title", "Doc_text", "Label"])  # no first row to skip
    wb.active.append([1, "c", "t", "d", True])
    wb.save(tmp_path / S.XLSX_NAME)
    with pytest.raises(
        DataError,
        match=r"climate_claims_raw\.xlsx: sheet lacks the column\(s\) 'Claim_id, Title, "
        r"Doc_text' after skipping the first row",
    ):
        SRC.convert(tmp_path)
    with pytest.raises(DataError, match=r"test\.jsonl:2: row lacks Claim_id or a string Title/Doc_text"):
        SRC.convert_presplit(
            {
                "test": [
                    {"Claim_id": 1, "Title": "t", "Doc_text": "w " * 100},
                    {"Claim_id": 2, "Title": None, "Doc_text": "x"},
                ]
            },
            tmp_path,
        )
    with pytest.raises(DataError, match=r"test\.jsonl:1: document has 3 words, outside HELM's test filter"):
        SRC.convert_presplit({"test": [{"Claim_id": 1, "Title": "t", "Doc_text": "too short doc"}]}, tmp_path)


def test_source_url_is_pinned():
    assert SRC.files[0].url == (
        "https://github.com/rahulOmishra/SUMO/raw/5c39fb0b28f91eea0d9d0a92ef209c0338ecaf87/climate_claims_raw.xlsx"
    )


# ----------------------------------------------------------------------------------------------- templates
def test_templates_accept_gold_and_reject_garbage():
    golds = [r["summary"] for r in SRC.convert(FIXTURE)["test"]]
    assert TEMPLATES[0].description == "Generate the title of the following article.\n\n"
    assert TEMPLATES[0].doc_to_text == "{{document}}\nTitle:"  # HELM: no input noun
    assert len(TEMPLATES) >= 5
    for t in TEMPLATES:
        # [PARSE]: the whole completion, a failure iff no letter or digit
        checked_free_text_filter(TASKS, t, golds)
    # t5 asks for at most fifteen words: format_adherence, never the score
    t5 = answer_filter(TASKS, TEMPLATES[4])
    assert t5.read(" " + " ".join(["word"] * 15), {}).adherent and not t5.read(" " + " ".join(["w"] * 16), {}).adherent


# ----------------------------------------------------------------------------------------------- end to end
def test_end_to_end_real_sample_tiny_model(tiny_model_dir):
    res, first = run_summary_sample(tiny_model_dir, "sumo_claims", ["ent_sumo_claims__t1", "ent_sumo_claims__t4"])
    prompt = res["samples"]["ent_sumo_claims__t1"][0]["arguments"][0][0]
    assert prompt.startswith("Generate the title of the following article.\n\n") and prompt.endswith("\nTitle:")
    body = prompt[len("Generate the title of the following article.\n\n") : -len("\nTitle:")]
    assert first["document"].startswith(body) and body  # whole, or cut keeping the beginning ([TRUNC])


def test_document_too_long_for_the_context_budget_is_cut_keeping_its_start(tmp_path):
    """[TRUNC] without a fixed N: a 3,600-word article (inside HELM's filter) does not fit the default budget and
    is cut from the end; a short one is sent whole."""
    long_text = " ".join(f"ice{i}" for i in range(3600))
    short_text = " ".join(["glaciers retreat fast"] * 40)
    rows = [
        {"Claim_id": 1, "Claim": "c", "Title": "Long article", "Doc_text": long_text, "Label": True},
        {"Claim_id": 2, "Claim": "c", "Title": "Short article", "Doc_text": short_text, "Label": True},
    ]
    write_presplit(tmp_path, "sumo_claims", {"test": rows, "train": rows[1:]})
    samples = oracle_samples("ent_sumo_claims__t1", tmp_path)
    cut, whole = samples["1"], samples["2"]
    assert cut["prompt_cut"] == 1.0 and whole["prompt_cut"] == 0.0
    sent = cut["arguments"][0][0].split("\n\n", 1)[1].rsplit("\nTitle:", 1)[0]
    assert long_text.startswith(sent) and 0 < len(sent.split()) < 3600
    assert whole["arguments"][0][0] == f"Generate the title of the following article.\n\n{short_text}\nTitle:"
