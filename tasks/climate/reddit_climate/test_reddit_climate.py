"""reddit_climate: eligibility + sign label, streamed zip CSV, reservoir sampling, split, errors, end to end.

No real sample exists for this dataset; the loader runs on the embedded fixture (a small zip in SocialGrep's CSV
layout whose MANIFEST shrinks the reservoir to 24 / test 12 so the replacement step runs) and on zips written
here in tmp_path.
"""

import csv
import inspect
import io
import json
import random
import zipfile
from pathlib import Path

import pytest
from lm_eval_enterprise.tasks.climate.reddit_climate import source as S

from lm_eval_enterprise.data import DataError, fixture_dir, get_source, load_records
from lm_eval_enterprise.scoring import metrics as M
from testkit.testing import assert_unit_scores

SRC = get_source("reddit_climate")
FIX = fixture_dir("reddit_climate")


def _row(i, body, sentiment):
    return {
        "type": "comment",
        "id": f"c{i:05d}",
        "subreddit.id": "2qhnt",
        "subreddit.name": "climate",
        "subreddit.nsfw": "false",
        "created_utc": str(1600000000 + i),
        "permalink": f"https://x/{i}",
        "body": body,
        "sentiment": sentiment,
        "score": "1",
    }


def _write_zip(d: Path, rows, columns=S.COLUMNS, member="the-reddit-climate-change-dataset-comments.csv"):
    d.mkdir(parents=True, exist_ok=True)
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(columns), lineterminator="\n", extrasaction="ignore")
    w.writeheader()
    w.writerows(rows)
    with zipfile.ZipFile(d / S.ZIP_NAME, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(member, buf.getvalue())


def _fixture_csv_rows() -> list[dict]:
    with zipfile.ZipFile(FIX / S.ZIP_NAME) as zf:
        text = zf.read(zf.namelist()[0]).decode("utf-8")
    return list(csv.DictReader(io.StringIO(text, newline="")))


# ----------------------------------------------------------------------------------------------- recipe units
TEN = "climate change is real and it is here now friends"  # 10 words


@pytest.mark.parametrize(
    "body,sentiment,expected",
    [
        (TEN, "0.25", "positive"),
        (TEN, "-0.0001", "negative"),
        (TEN, "1e-9", "positive"),
        (TEN, "0", None),
        (TEN, "0.0", None),
        (TEN, "", None),
        (TEN, "nan", None),
        (TEN, "n/a", None),
        ("[deleted]", "0.5", None),
        ("[removed]", "-0.5", None),
        (" ".join(TEN.split()[:9]), "0.5", None),
        (" ".join(["w"] * 200), "0.5", "positive"),
        (" ".join(["w"] * 201), "0.5", None),
    ],
)
def test_eligibility_and_sign_label(body, sentiment, expected):
    rec = S.to_record(_row(1, body, sentiment))
    assert (rec["label"] if rec else None) == expected


def test_text_is_whitespace_collapsed():
    rec = S.to_record(_row(7, "Climate  change\n\nis   here,\tfolks. " + " ".join(["x"] * 8), "-0.3"))
    assert rec == {"id": "c00007", "text": "Climate change is here, folks. " + " ".join(["x"] * 8), "label": "negative"}


def test_reservoir_is_algorithm_r_with_random_0():
    items = list(range(10))
    # Algorithm R, written out for k=3: slots filled by 0,1,2; item i draws randrange(i+1) and replaces if < 3
    rng, expected = random.Random(0), [0, 1, 2]
    for i in range(3, 10):
        j = rng.randrange(i + 1)
        if j < 3:
            expected[j] = i
    assert S.reservoir_sample(iter(items), 3) == expected
    assert S.reservoir_sample(iter(items), 20) == items  # fewer items than k: all, in order
    assert S.reservoir_sample(iter(items), 3) == S.reservoir_sample(items, 3)  # deterministic, one pass


def test_reservoir_is_uniform():
    # each of 20 items is kept with probability k/n = 0.25 (seeds 0..1999; 3-sigma band ≈ ±0.029)
    counts = [0] * 20
    for seed in range(2000):
        for x in S.reservoir_sample(range(20), 5, seed=seed):
            counts[x] += 1
    assert all(abs(c / 2000 - 0.25) < 0.035 for c in counts), counts


def test_split_sorts_by_id_then_cuts():
    sample = [{"id": i} for i in ("b2", "a9", "c1", "a1")]
    assert S.split_sample(sample, 2) == {"test": [{"id": "a1"}, {"id": "a9"}], "train": [{"id": "b2"}, {"id": "c1"}]}


# ----------------------------------------------------------------------------------------------- fixture
def test_convert_fixture_matches_the_recipe_computed_independently():
    rows = _fixture_csv_rows()
    assert list(rows[0]) == list(S.COLUMNS) and len(rows) == 47
    eligible = []
    for r in rows:  # the spec's filter, written out again
        s = r["sentiment"].strip()
        n = len(r["body"].split())
        if s and float(s) != 0 and r["body"] not in ("[deleted]", "[removed]") and 10 <= n <= 200:
            eligible.append(
                {
                    "id": r["id"],
                    "text": " ".join(r["body"].split()),
                    "label": "positive" if float(s) > 0 else "negative",
                }
            )
    assert len(eligible) == 41
    sample = sorted(S.reservoir_sample(eligible, 24), key=lambda r: r["id"])
    splits = SRC.convert(FIX)
    assert splits == {"test": sample[:12], "train": sample[12:]}
    assert SRC.convert(FIX) == splits
    assert [r["id"] for r in splits["test"]] == sorted(r["id"] for r in splits["test"])
    assert max(r["id"] for r in splits["test"]) < min(r["id"] for r in splits["train"])
    # the reservoir replaced early rows: the sample is not just the first 24 eligible rows
    assert {r["id"] for r in sample} != {r["id"] for r in eligible[:24]}


def test_multiline_quoted_body_is_parsed_from_the_stream():
    rows = _fixture_csv_rows()
    quoted = next(r for r in rows if r["body"].startswith("Quote from the article"))
    assert '\n\n> "Emissions fell, for the first time, in a decade"\n\n' in quoted["body"]
    streamed = {r["id"]: r for r in SRC.iter_rows(FIX / S.ZIP_NAME)}
    assert streamed[quoted["id"]]["body"] == quoted["body"]
    assert inspect.isgenerator(SRC.iter_rows(FIX / S.ZIP_NAME))  # streamed, never loaded whole


def test_fixture_loads_with_balanced_shots_and_label_names():
    recs = load_records("reddit_climate", data_root="embedded")
    # every fixture comment is distinct, so no test comment equals a pool comment and [LEAK] removes none of the 12;
    # the sample of 24 is sorted by id, the first 12 are the test split (served in the fair order)
    assert {k: len(v) for k, v in recs.items()} == {"test": 12, "train": 12, "fewshot": 12}
    assert sorted(r["id"] for r in recs["test"]) == [
        "is44we8",
        "is458m6",
        "is45ku4",
        "is45qy3",
        "is45x22",
        "is469a0",
        "is46fdz",
        "is46xpw",
        "is473tv",
        "is47g1t",
        "is47m5s",
        "is47ydq",
    ]
    assert max(r["id"] for r in recs["test"]) < min(r["id"] for r in recs["train"])
    assert recs["test"][0]["label_names"] == ["positive", "negative"]
    assert {r["label"] for r in recs["fewshot"][:2]} == {"positive", "negative"}
    assert {r["id"] for r in recs["fewshot"]} == {r["id"] for r in recs["train"]}


def test_spec_sizes_without_manifest_override(tmp_path):
    rows = [
        _row(i, f"comment number {i} about climate change and the weather this year", "0.1" if i % 3 else "-0.2")
        for i in range(2100)
    ]
    _write_zip(tmp_path / "reddit_climate", rows)
    recs = load_records("reddit_climate", data_root=str(tmp_path))  # 2,000 / 1,000 checked exactly
    assert len(recs["test"]) == len(recs["train"]) == 1000
    ids = sorted(r["id"] for r in recs["test"]) + [r["id"] for r in recs["train"]]  # test: served in the fair order
    assert ids == sorted(ids) and len(set(ids)) == 2000


# ----------------------------------------------------------------------------------------------- errors
def test_bad_zip_and_csv_name_the_file(tmp_path):
    (tmp_path / S.ZIP_NAME).write_text("not a zip")
    with pytest.raises(DataError, match=r"comments\.csv\.zip: not a readable zip file"):
        SRC.convert(tmp_path)
    _write_zip(tmp_path, [{"id": "1", "body": TEN}], columns=("type", "id", "body"))
    with pytest.raises(
        DataError,
        match=r"comments\.csv\.zip:the-reddit-climate-change-dataset-comments\.csv: "
        r"missing columns \['sentiment'\]",
    ):
        SRC.convert(tmp_path)
    with zipfile.ZipFile(tmp_path / S.ZIP_NAME, "w") as zf:
        zf.writestr("a.csv", "id\n")
        zf.writestr("b.csv", "id\n")
    with pytest.raises(DataError, match=r"expected one \.csv member, found \['a\.csv', 'b\.csv'\]"):
        SRC.convert(tmp_path)
    (tmp_path / "MANIFEST.json").write_text(json.dumps({"reservoir": {"sample_size": "x"}}))
    with pytest.raises(DataError, match=r"MANIFEST\.json: bad 'reservoir' entry"):
        SRC.convert(tmp_path)
    with pytest.raises(DataError, match=r"test\.jsonl:1: row lacks 'id' or 'body'"):
        SRC.convert_presplit({"test": [{"body": TEN, "sentiment": "0.2"}]}, tmp_path)


def test_presplit_rows_use_the_same_row_code(tmp_path):
    d = tmp_path / "reddit_climate"
    d.mkdir()
    rows = [_row(1, TEN, "0.3"), _row(2, TEN, "-0.4"), _row(3, "[deleted]", "0.2")]
    (d / "test.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
    (d / "train.jsonl").write_text("\n".join(json.dumps(_row(i + 10, f"pool {TEN}", "0.3")) for i in range(2)))
    recs = load_records("reddit_climate", data_root=str(tmp_path))
    assert sorted((r["id"], r["label"]) for r in recs["test"]) == [("c00001", "positive"), ("c00002", "negative")]


def test_binary_weighted_f1_hand_worked():
    # golds [pos, pos, neg, neg], preds [pos, neg, neg, "[invalid]"]
    #   positive: TP=1 FP=0 FN=1 -> F1 = 2/3, support 2
    #   negative: TP=1 FP=1 FN=1 -> F1 = 1/2, support 2    weighted F1 = (2·2/3 + 2·1/2) / 4 = 7/12
    golds = ["positive", "positive", "negative", "negative"]
    preds = ["positive", "negative", "negative", M.INVALID]
    assert M.weighted_f1(golds, preds, ["positive", "negative"]) == pytest.approx(7 / 12)


# ----------------------------------------------------------------------------------------------- end to end
def test_end_to_end_fixture_tiny_model(tiny_eval):
    tasks = ["ent_reddit_climate__t1", "ent_reddit_climate__t3"]
    res = tiny_eval(tasks)
    assert_unit_scores(res, tasks, ("weighted_f1,answer", "accuracy,answer", "format_failure,answer"))
    for t in tasks:
        assert res["configs"][t]["metadata"]["label_recipe"] == S.RECIPE
    prompt = res["samples"]["ent_reddit_climate__t1"][0]["arguments"][0][0]
    first = load_records("reddit_climate", data_root="embedded")["test"][0]
    assert prompt.startswith(
        "Classify the sentiment of the following Reddit comment about climate change. Answer "
        'only "positive" or "negative".\n\nComment: '
    )
    assert prompt.endswith(f"Comment: {first['text']}\nAnswer:")
    assert prompt.count("\nAnswer: ") == 5  # 5 [BAL] shots
