"""Reading lm-eval outputs: samples parsing, filters, keys, error messages (lm_eval_enterprise.sharpe.inputs)."""

import json

import pytest

from lm_eval_enterprise.sharpe.inputs import (
    SharpeInputError,
    display_name,
    find_results_files,
    load_name_map,
    model_args_dict,
    read_results_file,
    read_samples,
)


def _write(path, lines):
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def _line(i, filt="answer", **kw):
    d = {
        "doc_id": i,
        "doc": {"id": f"d{i}", "label": "Yes", "label_names": ["Yes", "No"], "qid": "q", "cand_index": i},
        "filter": filt,
        "doc_hash": f"h{i}",
        "accuracy": 1.0,
        "format_failure": 0.0,
    }
    d.update(kw)
    return d


def test_filter_selection_and_keys(tmp_path):
    p = _write(tmp_path / "samples_t_x.jsonl", [_line(0), _line(0, "none"), _line(1), _line(1, "none")])
    tab = read_samples(p, "answer", ["accuracy"])
    assert len(tab) == 2 and tab.ids == ["d0", "d1"] and tab.hashes == ["h0", "h1"]
    assert tab.gold == ["Yes", "Yes"] and tab.label_names == ["Yes", "No"] and tab.failure == [0.0, 0.0]
    slim = read_samples(p, "answer", ["accuracy"], keep_docs=False)
    assert slim.ids == ["d0", "d1"] and slim.qid == ["q", "q"] and slim.cand == [0, 1]
    with pytest.raises(RuntimeError, match="not kept"):
        _ = slim.gold
    with pytest.raises(SharpeInputError, match="several filters"):
        read_samples(p, None, ["accuracy"])
    with pytest.raises(SharpeInputError, match="no sample line with filter 'other'"):
        read_samples(p, "other", ["accuracy"])


def test_sample_errors_name_file_and_line(tmp_path):
    p = _write(tmp_path / "s.jsonl", [_line(0), {k: v for k, v in _line(1).items() if k != "accuracy"}])
    with pytest.raises(SharpeInputError, match=r"s.jsonl:2: sample line has no value for metric 'accuracy'"):
        read_samples(p, "answer", ["accuracy"])
    q = _write(tmp_path / "q.jsonl", [_line(0), {k: v for k, v in _line(1).items() if k != "format_failure"}])
    with pytest.raises(SharpeInputError, match="format_failure present on some sample lines only"):
        read_samples(q, "answer", ["accuracy"])
    r = tmp_path / "r.jsonl"
    r.write_text(json.dumps(_line(0)) + "\n\n[1, 2]\n")
    with pytest.raises(SharpeInputError, match=r"r.jsonl:3: a sample line must be a JSON object"):
        read_samples(r, "answer", ["accuracy"])
    empty = tmp_path / "e.jsonl"
    empty.write_text("")
    assert len(read_samples(empty, "answer", ["accuracy"])) == 0


def test_results_files(tmp_path):
    with pytest.raises(SharpeInputError, match="no such file"):
        find_results_files([tmp_path / "nope"])
    with pytest.raises(SharpeInputError, match="no results_"):
        find_results_files([tmp_path])
    bad = tmp_path / "results_x.json"
    bad.write_text(json.dumps({"results": {}}))
    with pytest.raises(SharpeInputError, match="no 'configs'"):
        read_results_file(bad)
    bad.write_text("[]")
    with pytest.raises(SharpeInputError, match="not an lm-eval results file"):
        read_results_file(bad)
    bad.write_text('{"results": ')
    with pytest.raises(SharpeInputError, match=r"malformed JSON \(line 1"):
        read_results_file(bad)
    other = tmp_path / "x.json"
    other.write_text("{}")
    with pytest.raises(SharpeInputError, match="not an lm-eval results file"):
        find_results_files([other])


def test_names(tmp_path):
    assert model_args_dict("pretrained=/a/b,dtype=float32") == {"pretrained": "/a/b", "dtype": "float32"}
    assert display_name("/tmp/models/tiny0") == "tiny0"
    assert display_name("HuggingFaceTB/SmolLM2-135M-Instruct") == "HuggingFaceTB/SmolLM2-135M-Instruct"
    m = tmp_path / "names.csv"
    m.write_text("model,display\nHuggingFaceTB/SmolLM2-135M-Instruct,SmolLM2\n")
    names = load_name_map(str(m))
    assert display_name("HuggingFaceTB/SmolLM2-135M-Instruct", names) == "SmolLM2"
    y = tmp_path / "names.yaml"
    y.write_text("a/b: B\n")
    assert load_name_map(str(y)) == {"a/b": "B"}


def test_listed_templates_from_group_subtasks(tmp_path):
    from lm_eval_enterprise.sharpe.inputs import DEFAULT_VARIANT_PATTERN, listed_templates, task_runs

    meta = {"variant_group": "ent_kpi", "template_id": "t1", "primary_metric": "f1"}
    data = {
        "results": {"ent_kpi__t1": {"f1,answer": 0.5}, "arc_like": {"acc,none": 0.3}},
        "configs": {
            "ent_kpi__t1": {"metadata": meta},
            "arc_like": {},
            "ent_kpi__t5": {"metadata": dict(meta, template_id="t5")},
        },  # config, no results row
        "group_subtasks": {
            "ent_kpi": ["ent_kpi__t1", "ent_kpi__t2", "ent_kpi__t5"],  # t2: name only
            "ent_news": ["ent_news_up"],
            "ent_news_up": ["ent_news_up__t03"],  # nested group
            "arc_like": [],
            "lost_task": [],
        },
    }  # standalone leaves
    p = tmp_path / "results_2026.json"
    p.write_text(json.dumps(data))
    rf = read_results_file(p)
    msgs = []
    runs = task_runs(rf, DEFAULT_VARIANT_PATTERN, msgs)
    listed, unresolved = listed_templates(rf, runs, DEFAULT_VARIANT_PATTERN)
    assert listed == {"ent_kpi": {"t1", "t2", "t5"}, "ent_news_up": {"t3"}}
    assert unresolved == ["lost_task"]  # arc_like has a result (not a variant): not reported here
    rf.data["group_subtasks"] = None
    assert listed_templates(rf, runs, DEFAULT_VARIANT_PATTERN) == ({}, [])


def test_toy_data_roots():
    from lm_eval_enterprise.sharpe.inputs import is_toy_data_root

    assert is_toy_data_root("embedded")
    paths = ("/data/enterprise", "", None, 3, "fixtures", "/venv/site-packages/lm_eval_enterprise/fixtures")
    assert not any(is_toy_data_root(x) for x in paths)
