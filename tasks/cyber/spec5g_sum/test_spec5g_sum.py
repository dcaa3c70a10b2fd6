"""spec5g_sum: summarizationdataset.csv / simplification_dataset.csv loader (fixture), seeded 15 % split, empty-row drop, shared SPEC5G Drive
download, errors, templates, 0-shot end to end (no real sample exists for SPEC5G: the fixture is used)."""

import sys
import types
from pathlib import Path

import pytest
from lm_eval_enterprise.tasks.cyber.spec5g_cls import source as CLS
from lm_eval_enterprise.tasks.cyber.spec5g_sum import source as S
from lm_eval_enterprise.tasks.cyber.spec5g_sum.templates import TASKS, TEMPLATES

from lm_eval_enterprise.data import DataError, fixture_dir, get_source, load_records
from testkit.testing import (
    SUMMARIZATION_SCORES,
    assert_summary_reading,
    assert_tiny_run,
    csv_rows,
    sample_positions,
)

SRC = get_source("spec5g_sum")
FIX = fixture_dir("spec5g_sum")
N = 60
EMPTY_ROWS = (17, 40)  # fixture rows with an empty Simplification / Paragraph


def _csv_rows():
    return csv_rows(FIX / "simplification_dataset.csv")  # the fixture uses the README's name (an alias)


def test_convert_fixture_is_the_seeded_split_with_empty_rows_dropped():
    rows = _csv_rows()
    assert len(rows) == N
    assert [i for i, r in enumerate(rows) if not r["Paragraph"].strip() or not r["Simplification"].strip()] == list(
        EMPTY_ROWS
    )
    splits = SRC.convert(FIX)
    test_pos = sample_positions(N, 0.15)  # pandas df.sample(frac=0.15, random_state=0), computed independently
    assert 40 in test_pos and 17 not in test_pos
    assert [r["id"] for r in splits["test"]] == [str(i) for i in test_pos if i not in EMPTY_ROWS]
    assert [r["id"] for r in splits["train"]] == [str(i) for i in range(N) if i not in test_pos and i not in EMPTY_ROWS]
    assert (len(splits["train"]), len(splits["test"])) == (50, 8)
    for rec in splits["test"] + splits["train"]:
        row = rows[int(rec["id"])]
        assert rec == {
            "id": rec["id"],
            "document": " ".join(row["Paragraph"].split()),
            "summary": " ".join(row["Simplification"].split()),
        }
    assert any("\n" in rows[int(r["id"])]["Paragraph"] for r in splits["test"] + splits["train"])
    assert SRC.convert(FIX) == splits


def test_zero_shot_generation_settings():  # the few-shot pool lm-eval still needs: tests/data/test_datasets.py
    assert TASKS.num_fewshot == 0 and TASKS.max_gen_toks == 128 and TASKS.until == ("\n\n",)
    assert TASKS.family == "summarization" and TASKS.primary_metric == "rouge_l"


def test_download_is_the_shared_spec5g_code(tmp_path, monkeypatch):
    assert isinstance(SRC, CLS.SPEC5GDriveSource) and SRC.files[0].url == CLS.DRIVE_FOLDER_URL
    calls = []
    entry = types.SimpleNamespace(id="id-sum", path="SPEC5G/simplification_dataset.csv")
    fake = types.ModuleType("gdown")
    fake.download_folder = lambda **kw: calls.append(kw["id"]) or [entry]
    fake.download = lambda id=None, output=None, quiet=False: (
        (calls.append(id), Path(output).write_text("x"))[1] and output
    )
    monkeypatch.setitem(sys.modules, "gdown", fake)
    SRC.download(tmp_path, progress=False)  # the notebook's name is not in the folder: the README's name is fetched
    assert calls == [CLS.DRIVE_FOLDER_ID, CLS.DRIVE_FOLDER_ID, "id-sum"]
    assert (tmp_path / "simplification_dataset.csv").read_text() == "x" and SRC.has_source_layout(tmp_path)
    monkeypatch.setitem(sys.modules, "gdown", None)
    with pytest.raises(DataError, match=r"^\[spec5g_sum\] .*optional package gdown.*summarizationdataset\.csv"):
        SRC.download(tmp_path, progress=False)


def test_bad_csv_is_one_line_error(tmp_path):  # a count that does not match its MANIFEST: tests/data/test_datasets.py
    (tmp_path / S.CSV_NAME).write_text("Paragraph,Summary\na,b\n")
    with pytest.raises(DataError, match=r"summarizationdataset\.csv: missing columns \['Simplification'\]"):
        SRC.convert(tmp_path)


def test_templates_accept_gold_and_reject_garbage():
    assert TEMPLATES[0].description == (
        "Summarize the following text from a 5G protocol specification in plain language.\n\n"
    )
    assert TEMPLATES[0].doc_to_text == "Text: {{document}}\nSummary:"
    golds = [r["summary"] for r in SRC.convert(FIX)["test"]]
    # [PARSE]: the whole completion up to the blank line, a failure iff no letter or digit; t3 asks for one line
    assert_summary_reading(TASKS, golds, " The UE waits.\nThen it retries.\n\nText:", "The UE waits.\nThen it retries.")


def test_end_to_end_fixture_tiny_model(tiny_eval):
    tasks = ["ent_spec5g_sum__t1", "ent_spec5g_sum__t4"]
    res = tiny_eval(tasks, gen_kwargs="max_gen_toks=16")
    first = load_records("spec5g_sum", data_root="embedded")["test"][0]
    assert_tiny_run(res, tasks, SUMMARIZATION_SCORES, num_fewshot=0)
    for t in tasks:
        assert res["samples"][t][0]["target"] == first["summary"]
    prompt = res["samples"][tasks[0]][0]["arguments"][0][0]
    assert prompt == TEMPLATES[0].description + f"Text: {first['document']}\nSummary:"
