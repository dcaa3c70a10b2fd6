"""securenlp: token-file parsing (fixture), SubTask 1 labels, the real sample, listing download, errors, [BF1], e2e."""

import io
import json
import shutil

import pytest
from lm_eval_enterprise.tasks.cyber.securenlp import source as S
from lm_eval_enterprise.tasks.cyber.securenlp.templates import TASKS

from conftest import file_ordered, sample_records, sample_rows, shared_sample
from lm_eval_enterprise.data import DataError, fixture_dir, get_source, load_records
from lm_eval_enterprise.prompting.templating import answer_filter
from lm_eval_enterprise.scoring import metrics as M
from testkit.testing import GARBAGE, assert_unit_scores, run_hf_model

SRC = get_source("securenlp")
FIX = fixture_dir("securenlp")


def test_source_is_the_pinned_repo_folders():
    assert S.COMMIT == "6438597d50f1110e4c1c00d53158ce7a4bf339e6"
    assert [f.name for f in SRC.files] == ["train/tokenized/", "dev/tokenized/", "test_1/tokenized/"]
    assert SRC.files[2].url == (
        "https://api.github.com/repos/basel-a/secureNLP/contents/data/MalwareTextDB-2.0/data/"
        "test_1/tokenized?ref=6438597d50f1110e4c1c00d53158ce7a4bf339e6"
    )
    assert (SRC.positive_label, SRC.labels) == ("relevant", ("relevant", "irrelevant"))


def test_convert_fixture_token_files():
    splits = SRC.convert(FIX)
    assert {k: len(v) for k, v in splits.items()} == {"train": 11, "valid": 3, "test": 10}
    # files in name order, sentences numbered from 0 per file
    assert [r["id"] for r in splits["test"][:6]] == [f"Invented_Tidewater_Campaign.tokens:{i}" for i in range(5)] + [
        "Synthetic_Mossback_RAT_Whitepaper.tokens:0"
    ]
    assert splits["test"][0] == {
        "id": "Invented_Tidewater_Campaign.tokens:0",
        "label": "relevant",
        "text": "The attackers sent spear-phishing emails with malicious attachments .",
    }
    assert splits["test"][1]["label"] == "irrelevant"
    assert sum(r["label"] == "relevant" for r in splits["test"]) == 4
    assert SRC.convert(FIX) == splits  # deterministic


def test_token_file_parsing_and_label_rule(tmp_path):
    p = tmp_path / "r.tokens"
    p.write_text("Bob O\nruns O\n.\tO\n\n\n\nIt B-Entity\nsteals B-Action\nkeys B-Entity\n\nNothing O\n")
    assert S.read_tokens_file(p) == [
        (["Bob", "runs", "."], ["O", "O", "O"]),
        (["It", "steals", "keys"], ["B-Entity", "B-Action", "B-Entity"]),
        (["Nothing"], ["O"]),
    ]  # several blank lines = one break; no final blank needed
    assert S.sentence_label(["O", "O"]) == "irrelevant"
    assert S.sentence_label(["O", "I-Modifier"]) == "relevant"  # any non-O tag, also I- and Modifier
    p.write_text("Bob O\nbroken\n")
    with pytest.raises(DataError, match=r"^\[securenlp\] .*r.tokens:2: expected 'token TAG', got 'broken'$"):
        S.read_tokens_file(p)


def test_empty_tag_line_of_the_genuine_release_reads_as_O_with_one_warning(tmp_path, caplog):
    """The genuine train/tokenized/apt28.tokens line 6,668 is ``NN `` (token, space, no tag) inside an entity span."""
    p = tmp_path / "apt.tokens"
    p.write_text("The O\nfile B-Entity\nNN \nname I-Entity\n \nNN \nonly O\n")  # " " line = sentence break
    with caplog.at_level("WARNING", logger="lm_eval_enterprise.data"):
        sents = S.read_tokens_file(p)
    assert sents == [(["The", "file", "NN", "name"], ["O", "B-Entity", "O", "I-Entity"]), (["NN", "only"], ["O", "O"])]
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert warnings == [
        f"[securenlp] {p}:3: token 'NN' has an empty tag; read as tag O",
        f"[securenlp] {p}:6: token 'NN' has an empty tag; read as tag O",
    ]  # one per such line
    # label rule on the read tags: the span keeps its other tags (relevant); an empty tag alone is O (irrelevant)
    assert [S.sentence_label(tags) for _, tags in sents] == ["relevant", "irrelevant"]


def test_fixture_reproduces_the_empty_tag_quirk(caplog):
    raw = (FIX / "train/tokenized/Imaginary_Quillpig_Stealer_Analysis.tokens").read_text().splitlines()
    assert raw[3] == "browser " and raw[2] == "saved B-Entity" and raw[4] == "passwords I-Entity"
    with caplog.at_level("WARNING", logger="lm_eval_enterprise.data"):
        splits = SRC.convert(FIX)
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert (
        len(warnings) == 1
        and "Imaginary_Quillpig_Stealer_Analysis.tokens:4: token 'browser' has an empty" in (warnings[0])
    )
    rec = next(r for r in splits["train"] if r["id"] == "Imaginary_Quillpig_Stealer_Analysis.tokens:0")
    assert rec == {
        "id": "Imaginary_Quillpig_Stealer_Analysis.tokens:0",
        "label": "relevant",
        "text": "Quillpig steals saved browser passwords .",
    }
    assert len(splits["train"]) == 11  # MANIFEST count unchanged


def test_presplit_row_with_empty_tag_reads_as_O(tmp_path, caplog):
    d = tmp_path / "securenlp"
    d.mkdir()
    rows = {
        "train": [{"file": "a.tokens", "sent_idx": 0, "tokens": ["NN", "x"], "tags": ["", "O"]}],
        "test": [{"file": "b.tokens", "sent_idx": 2, "tokens": ["NN", "y"], "tags": [" ", "B-Entity"]}],
    }
    with caplog.at_level("WARNING", logger="lm_eval_enterprise.data"):
        out = SRC.convert_presplit(rows, d)
    assert [r["label"] for r in out["train"] + out["test"]] == ["irrelevant", "relevant"]
    assert [r.getMessage() for r in caplog.records if r.levelname == "WARNING"] == [
        f"[securenlp] {d}/train.jsonl: a.tokens:0: empty tag read as tag O",
        f"[securenlp] {d}/test.jsonl: b.tokens:2: empty tag read as tag O",
    ]


def test_real_sample_presplit():
    recs = sample_records("securenlp")
    assert (len(recs["test"]), len(recs["train"])) == (300, 100)
    assert sum(r["label"] == "relevant" for r in recs["test"]) == 36  # SOURCE.md: 36 relevant / 264 irrelevant
    first = next(r for r in recs["test"] if r["id"] == "GDATA_TooHash_CaseStudy_102014_EN_v1.tokens:55")  # file row 1
    assert first["label"] == "irrelevant"
    assert first["text"].startswith("The main difference between the two malware variants")
    assert first["label_names"] == ["relevant", "irrelevant"] and first["positive_label"] == "relevant"
    for split in ("train", "test"):
        rows = sample_rows("securenlp", split)
        ids = [f"{r['file']}:{r['sent_idx']}" for r in rows]
        for raw, rec in zip(rows, file_ordered(recs[split], ids)):  # labels derived from the tags, as the sample has
            assert rec["id"] == f"{raw['file']}:{raw['sent_idx']}"
            assert (rec["text"], rec["label"]) == (raw["text"], raw["label"])
    assert recs["train"][0]["id"] == "Korplug_Afghanistan_Tajikistan.tokens:29"


def test_parser_on_real_tokens_written_back_in_source_format(tmp_path):
    """Real sample sentences written as token files (source layout) give the same records as the sample."""
    rows = {s: sample_rows("securenlp", s) for s in ("train", "test")}
    d = tmp_path / "securenlp"
    for split, folder in (("train", "train"), ("test", "test_1")):
        by_file: dict = {}
        for r in rows[split]:
            by_file.setdefault(r["file"], []).append(r)
        for name, rs in by_file.items():
            rs.sort(key=lambda r: r["sent_idx"])
            text = "\n\n".join("\n".join(f"{t} {g}" for t, g in zip(r["tokens"], r["tags"])) for r in rs)
            (d / folder / "tokenized").mkdir(parents=True, exist_ok=True)
            (d / folder / "tokenized" / name).write_text(text + "\n")
    (d / "dev" / "tokenized").mkdir(parents=True)
    (d / "dev" / "tokenized" / "x.tokens").write_text("A O\n")
    splits = SRC.convert(d)
    for split in ("train", "test"):
        got = {r["text"]: r["label"] for r in splits[split]}
        assert got == {r["text"]: r["label"] for r in rows[split]}


def test_balanced_fewshot_alternates_classes():
    recs = sample_records("securenlp")
    shots = [r["label"] for r in recs["fewshot"][:5]]
    assert sorted(set(shots)) == ["irrelevant", "relevant"] and shots.count("relevant") >= 2
    again = sample_records("securenlp")["fewshot"][:5]
    assert [r["id"] for r in again] == [r["id"] for r in recs["fewshot"][:5]]


def test_wrong_row_count_is_one_line_error(tmp_path):
    d = tmp_path / "securenlp"
    shutil.copytree(FIX, d)
    (d / "MANIFEST.json").unlink()  # spec counts: 9,435 / 1,213 / 618
    with pytest.raises(DataError) as e:
        load_records("securenlp", data_root=str(tmp_path))
    msg = str(e.value)
    assert msg.startswith(f"[securenlp] {d}:") and "split 'train' has 11 rows after conversion, expected 9,435" in msg
    assert "\n" not in msg


def test_download_lists_each_folder_and_fetches_files_raw(tmp_path, monkeypatch):
    import urllib.request

    listed = []

    def fake_urlopen(req, timeout=None):
        listed.append(req.full_url)
        split = req.full_url.split("/data/MalwareTextDB-2.0/data/")[1].split("/")[0]
        body = [
            {"name": f"{split}_b.tokens", "type": "file"},
            {"name": f"{split}_a.tokens", "type": "file"},
            {"name": "sub", "type": "dir"},
        ]
        return io.BytesIO(json.dumps(body).encode())

    fetched = []

    def fake_download(url, dest, dataset, sha256=None, progress=True):
        fetched.append((url, dest.relative_to(tmp_path).as_posix()))
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text("Word O\n")
        return dest

    monkeypatch.setattr(urllib.request, "urlopen", fake_urlopen)
    monkeypatch.setattr(S, "download_url", fake_download)
    SRC.download(tmp_path, progress=False)
    assert len(listed) == 3 and all(S.COMMIT in u for u in listed)
    raw = f"https://raw.githubusercontent.com/basel-a/secureNLP/{S.COMMIT}/data/MalwareTextDB-2.0/data"
    assert fetched[:2] == [
        (f"{raw}/train/tokenized/train_a.tokens", "train/tokenized/train_a.tokens"),
        (f"{raw}/train/tokenized/train_b.tokens", "train/tokenized/train_b.tokens"),
    ]
    assert len(fetched) == 6 and SRC.has_source_layout(tmp_path)


def test_templates_never_read_irrelevant_as_relevant():
    assert len(TASKS.templates) >= 5 and TASKS.family == "classification_binary"
    assert TASKS.templates[0].description == (
        "Is the following sentence from a malware report relevant to the "
        'actions or capabilities of malware? Answer only "relevant" or '
        '"irrelevant".\n\n'
    )
    assert TASKS.templates[0].doc_to_text == "Sentence: {{text}}\nAnswer:"
    doc = {"label_names": ["relevant", "irrelevant"]}
    for tpl in TASKS.templates:  # the same [PARSE] reading in every template: longest label, whole words
        flt = answer_filter(TASKS, tpl)
        for gold in doc["label_names"]:
            assert flt.read(f" {gold}\nSentence: x", doc) == gold, tpl.id
        assert flt.read(" Irrelevant.", doc) == "irrelevant", tpl.id
        assert flt.read(" irrelevantly", doc) == M.INVALID, tpl.id
        assert flt.read(GARBAGE, doc) == M.INVALID, tpl.id


def test_binary_f1_relevant_by_hand():
    # gold   [rel, rel, irr, irr, rel];  pred [rel, irr, rel, irr, invalid]
    # TP 1, FP 1, FN 2 (the invalid answer on a relevant item is a FN) -> F1 = 2 / (2 + 1 + 2) = 0.4
    golds = ["relevant", "relevant", "irrelevant", "irrelevant", "relevant"]
    preds = ["relevant", "irrelevant", "relevant", "irrelevant", M.INVALID]
    assert M.binary_f1(golds, preds, "relevant") == pytest.approx(0.4)


def test_end_to_end_tiny_model_on_real_sample(tiny_model_dir):
    d = shared_sample("securenlp")
    tasks = ["ent_securenlp__t1", "ent_securenlp__t4"]
    res = run_hf_model(tiny_model_dir, tasks, d.parent)
    assert_unit_scores(res, tasks, ("binary_f1,answer", "accuracy,answer", "format_failure,answer"))
    prompt = res["samples"]["ent_securenlp__t1"][0]["arguments"][0][0]
    assert prompt.startswith("Is the following sentence from a malware report relevant")
    assert prompt.count("\nAnswer:") == 6  # 5 shots + the eval item
    first = sample_records("securenlp")["test"][0]  # the first document of the fair order
    assert prompt.endswith(f"Sentence: {first['text']}\nAnswer:")
