"""Generated task YAMLs (lm_eval_enterprise/prompting/templating.py): lm-eval YAML round trip with !function tags,
checked-in files current, and shallow-``include`` safety of every variant."""

import subprocess
import sys
from pathlib import Path

import pytest
from lm_eval.tasks._yaml_loader import load_yaml

from lm_eval_enterprise import TASK_DIR, families
from lm_eval_enterprise import data as D
from lm_eval_enterprise.prompting.templating import (
    HEADER,
    PRIMARY_FILTER,
    VERSION,
    DatasetTasks,
    Template,
    all_specs,
    base_config,
    output_field,
    render,
)
from lm_eval_enterprise.scoring import filters, hooks

FAMILY_METRICS = {name: dict(f.metrics) for name, f in families.FAMILIES.items()}

REPO = Path(__file__).resolve().parents[1]
TASKS = Path(TASK_DIR)
REQUIRED_METADATA = (
    "version",
    "dataset",
    "domain",
    "variant_group",
    "template_id",
    "primary_metric",
    "primary_filter",
    "task_family",
)

# strings that are easy to get wrong in YAML: quotes, "#", ":", "$", Jinja blocks, tabs, unicode, trailing
# spaces, a leading space, double newlines, backslashes
TRICKY_DESCRIPTION = "Say \"Yes\" or 'No' — about {{frag}} $5: #1 {% raw %}x{% endraw %}\n\n  trailing  \n\n"
TRICKY_TEXT = " Text:\t{{text}}\n# not a comment: 100% café ✓\n\\d+ \\n literal\nAnswer:"
TRICKY_REGEX = r""" ?(["']?[Yy]es|#1: [0-9]+|\\n|a\{2\}|café ✓)"""  # decoder-friendly, YAML-unfriendly


def _tricky_spec(**over):
    kw = dict(
        dataset="synthetic",
        domain="legal",
        family="classification_weighted",
        primary_metric="weighted_f1",
        templates=[
            Template("t1", doc_to_text=TRICKY_TEXT, regex=TRICKY_REGEX, description=TRICKY_DESCRIPTION, axes=("helm",)),
            Template("t2", doc_to_text="Q: {{text}}\nA:", axes=("field_labels",)),
        ],
        num_fewshot=3,
        until=("\n\n", "###"),
        max_gen_toks=7,
        aliases={"y": "Yes", "ja": "Yes"},
        questions=("s1", "s2"),
        extra_metadata={"note": "a: b"},
    )
    kw.update(over)
    return DatasetTasks(**kw)


def _write(tmp_path: Path, spec: DatasetTasks) -> dict[str, Path]:
    out = {}
    for name, text in render(spec).items():
        p = tmp_path / name
        p.write_text(text)
        out[name] = p
    return out


# ============================================================================================ YAML round trip
def test_round_trip_through_lm_eval_loader(tmp_path):
    spec = _tricky_spec()
    files = _write(tmp_path, spec)
    assert set(files) == {  # a dataset made of questions: one task per template, like any other
        "_synthetic_template_yaml",
        "ent_synthetic__t1.yaml",
        "ent_synthetic__t2.yaml",
        "_ent_synthetic.yaml",
    }
    assert all(p.read_text().startswith(HEADER) for p in files.values())

    cfg = load_yaml(files["ent_synthetic__t1.yaml"])  # resolves !function and include like lm-eval
    # !function tags → the real objects
    assert cfg["custom_dataset"] is D.load_task_dataset
    # t1 is marked "helm": HELM's reading rule as an extra metric, with the family's *_helm process_results
    assert cfg["process_results"] is hooks.classification_weighted_helm
    aggs = {m["metric"]: m["aggregation"] for m in cfg["metric_list"]}
    budget = {"shots_used": "mean", "prompt_cut": "mean"}  # the context budget's per-document reports
    family_aggs = {
        "weighted_f1": hooks.agg_weighted_f1,
        "accuracy": "mean",
        "format_failure": "mean",
        "format_adherence": "mean",
        "weighted_precision": hooks.agg_weighted_precision,
        "weighted_recall": hooks.agg_weighted_recall,
    }
    # "score": the primary metric under the name every group aggregates (same aggregation)
    family_aggs["score"] = hooks.agg_weighted_f1
    # each question's own score (the primary metric's aggregation over that question's documents)
    family_aggs |= {"weighted_f1_s1": hooks.agg_weighted_f1, "weighted_f1_s2": hooks.agg_weighted_f1}
    assert aggs == {**family_aggs, **budget, "weighted_f1_helm": hooks.agg_weighted_f1}
    assert cfg["metadata"]["helm_metrics"] == ["weighted_f1_helm"]
    t2 = load_yaml(files["ent_synthetic__t2.yaml"])  # not HELM's prompt: the base's family metrics only
    assert t2["process_results"] is hooks.classification_weighted and "helm_metrics" not in t2["metadata"]
    assert {m["metric"]: m["aggregation"] for m in t2["metric_list"]} == {**family_aggs, **budget}
    from lm_eval_enterprise.harness.task import EnterpriseTask

    assert cfg["class"] is EnterpriseTask  # the task class (budget, data facts); lm-eval builds it with cfg
    assert cfg["metadata"]["context_truncate_field"] == "text"  # the field TRICKY_TEXT renders
    filt, take = cfg["filter_list"][0]["filter"]
    assert cfg["filter_list"][0]["name"] == PRIMARY_FILTER
    assert filt["function"] is filters.AnswerFilter and take == {"function": "take_first"}
    # strings survive exactly (Jinja, "$" and backslashes untouched; {{frag}} is a document field)
    assert cfg["description"] == TRICKY_DESCRIPTION
    assert cfg["doc_to_text"] == TRICKY_TEXT
    assert filt["format_regex"] == TRICKY_REGEX and cfg["metadata"]["answer_regex"] == TRICKY_REGEX
    assert filt["reader"] == "label" and cfg["metadata"]["answer_reader"] == "label"
    assert filt["lead_ins"] == ["A", "Answer"]  # the output fields of both templates: one rule per dataset
    assert filt["stop"] == "\n\n" and filt["aliases"] == {"y": "Yes", "ja": "Yes"}
    assert (
        filters.AnswerFilter(**{k: v for k, v in filt.items() if k != "function"}).read(
            " Answer: ja", {"label_names": ["Yes", "No"]}
        )
        == "Yes"
    )
    assert cfg["generation_kwargs"] == {
        "until": ["\n\n", "###"],
        "max_gen_toks": 7,
        "do_sample": False,
        "temperature": 0.0,
    }
    assert cfg["fewshot_delimiter"] == "\n\n" and cfg["target_delimiter"] == " "
    assert cfg["dataset_kwargs"] == {"dataset_id": "synthetic"}
    assert cfg["num_fewshot"] == 3 and cfg["fewshot_config"] == {"sampler": "first_n"}
    assert cfg["task"] == "ent_synthetic__t1" and "include" not in cfg
    assert cfg["metadata"]["note"] == "a: b" and "subtask" not in cfg["metadata"]
    # without resolving functions the tags are kept as (path-joined) strings, as `lm-eval validate` sees them
    raw = load_yaml(files["_synthetic_template_yaml"], resolve_func=False)
    assert str(raw["process_results"]).endswith("lm_eval_enterprise.scoring.hooks.classification_weighted")
    # the YAML text itself: generation stop written as a real newline in double quotes (never '\n')
    base_text = files["_synthetic_template_yaml"].read_text()
    assert '- "\\n\\n"' in base_text and "'\\n" not in base_text


def test_round_trip_group_files(tmp_path):
    files = _write(tmp_path, _tricky_spec())
    g = load_yaml(files["_ent_synthetic.yaml"])
    assert g["group"] == "ent_synthetic" and g["task"] == ["ent_synthetic__t1", "ent_synthetic__t2"]
    assert g["aggregate_metric_list"] == [
        {"metric": m, "filter_list": PRIMARY_FILTER, "aggregation": "mean", "weight_by_size": False}
        for m in ("weighted_f1", "score")
    ]
    assert g["metadata"] == {"version": VERSION}


def test_round_trip_multiple_choice(tmp_path):
    spec = _tricky_spec(
        family="ranking",
        primary_metric="rr_at_10",
        output_type="multiple_choice",
        doc_to_target="{{ 1 if label == 'Yes' else 0 }}",
        aliases={},
        questions=(),
        templates=[Template("t1", doc_to_text="P: {{passage}}\nAnswer:", choices=("No", "Yes"))],
    )
    files = _write(tmp_path, spec)
    cfg = load_yaml(files["ent_synthetic__t1.yaml"])
    assert cfg["doc_to_choice"] == ["No", "Yes"]  # 'No' must stay a string (YAML 1.1 would read bare No as False)
    # lm-eval's default pipeline (take_first) under the name of the generate tasks' reading: one key score,answer
    assert cfg["filter_list"] == [{"name": PRIMARY_FILTER, "filter": [{"function": "take_first"}]}]
    assert "generation_kwargs" not in cfg
    assert cfg["process_results"] is hooks.ranking
    assert cfg["doc_to_target"] == "{{ 1 if label == 'Yes' else 0 }}"
    assert cfg["metadata"]["primary_filter"] == PRIMARY_FILTER and "answer_regex" not in cfg["metadata"]
    assert cfg["dataset_kwargs"] == {"dataset_id": "synthetic"}  # from the base (no subtask override)


def test_round_trip_through_task_manager(tmp_path):
    # lm-eval indexes only parsable YAMLs and skips broken ones silently: every generated name must be indexed
    from lm_eval.tasks import TaskManager

    spec = _tricky_spec()
    _write(tmp_path, spec)
    tm = TaskManager(include_path=str(tmp_path), include_defaults=False)
    names = set(tm.all_tasks)
    assert set(spec.task_names()) <= names
    assert "ent_synthetic" in set(tm.all_groups)


def test_base_config_rejects_unknown_primary_metric():
    with pytest.raises(ValueError, match="primary metric"):
        base_config(_tricky_spec(primary_metric="rouge_l"))


def test_generator_rejects_regexes_decoders_cannot_use_and_items_without_an_output_field():
    bad = _tricky_spec(templates=[Template("t1", doc_to_text="Q: {{text}}\nA:", regex=r"(?i)^(yes|no)\b")])
    with pytest.raises(ValueError, match="constrained decoders"):
        render(bad)
    no_field = _tricky_spec(templates=[Template("t1", doc_to_text="Q: {{text}}")])
    with pytest.raises(ValueError, match="output field"):
        render(no_field)
    assert (
        output_field(Template("t1", doc_to_text="{% for c in x %}{{c}}\n{% endfor %}Correct holding:"))
        == "Correct holding"
    )


# ============================================================================================ checked-in YAMLs
def test_generated_yamls_are_current():
    proc = subprocess.run(
        [sys.executable, "scripts/generate_tasks.py", "--check"], cwd=REPO, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, f"run `make tasks`:\n{proc.stdout}{proc.stderr}"


def _variant_files():
    return sorted(TASKS.glob("*/*/*__t*.yaml"))


VARIANTS = _variant_files()


def test_there_are_variants():
    assert VARIANTS, f"no generated variant YAMLs under {TASKS}"


@pytest.mark.parametrize("path", VARIANTS, ids=[p.stem for p in VARIANTS])
def test_variant_repeats_full_metadata(path):
    """``include`` merges shallowly: a variant's metadata replaces the base's whole, so it must carry every key."""
    own = load_yaml(path, resolve_func=False, recursive=False)
    meta = own["metadata"]
    missing = [k for k in REQUIRED_METADATA if k not in meta]
    assert not missing, f"{path.name}: metadata lacks {missing}"
    assert meta["version"] == VERSION
    assert own["task"] == f"{meta['variant_group']}__{meta['template_id']}"
    assert meta["domain"] == path.parent.parent.name
    assert meta["task_family"] in FAMILY_METRICS
    assert meta["primary_metric"] in FAMILY_METRICS[meta["task_family"]]

    merged = load_yaml(path, resolve_func=False)
    assert merged["metadata"] == meta  # nothing of the base's metadata survives the merge
    base = load_yaml(path.parent / own["include"], resolve_func=False)
    # the base's metric list and process_results belong to the family named in the metadata (a table may
    # declare extra per-doc report metrics after the family's own)
    family = list(FAMILY_METRICS[meta["task_family"]])
    assert [m["metric"] for m in base["metric_list"]][: len(family)] == family
    assert str(base["process_results"]).endswith(f"lm_eval_enterprise.scoring.hooks.{meta['task_family']}")
    # HELM's own prompt adds HELM's reading rule (*_helm) and nothing else differs
    if "helm_metrics" in meta:
        assert "helm" in meta["template_axes"]
        assert str(own["process_results"]).endswith(f"lm_eval_enterprise.scoring.hooks.{meta['task_family']}_helm")
        names = [m["metric"] for m in own["metric_list"]]
        assert names == [m["metric"] for m in base["metric_list"]] + meta["helm_metrics"]
    else:
        assert "process_results" not in own and "metric_list" not in own
    # nested dicts a variant overrides must be complete
    assert "dataset_id" in merged["dataset_kwargs"]
    if "generation_kwargs" in own:
        assert "until" in own["generation_kwargs"] and "max_gen_toks" in own["generation_kwargs"]
    if "fewshot_config" in own:
        assert "sampler" in own["fewshot_config"]
    # one primary filter name for every task (generate: the [PARSE] reading; log-likelihood: take_first)
    assert meta["primary_filter"] == PRIMARY_FILTER
    assert meta["primary_filter"] in [f["name"] for f in merged["filter_list"]]
    if merged["output_type"] == "generate_until":
        # a stop sequence for generation, or (the NLU suite: no stop, max_gen_toks tokens) one for the reading
        stops = [f.get("stop") for f in merged["filter_list"][0]["filter"] if isinstance(f, dict)]
        assert merged["generation_kwargs"]["until"] or any(stops), "generation needs a stop sequence"
    else:
        assert merged["filter_list"] == [{"name": PRIMARY_FILTER, "filter": [{"function": "take_first"}]}]


def test_metadata_dataset_matches_the_template_tables():
    specs = [s for _, s in all_specs(TASKS)]
    by_task = {t: s for s in specs for t in s.task_names()}
    for path in VARIANTS:
        meta = load_yaml(path, resolve_func=False, recursive=False)["metadata"]
        spec = by_task.get(path.stem)
        assert spec is not None, f"{path} is not produced by any templates.py (stale file?)"
        assert meta["dataset"] == getattr(spec, "table_id", spec.dataset)
        assert meta["template_id"] in [t.id for t in spec.templates]


def test_groups_reference_existing_tasks_and_groups():
    files = sorted(TASKS.rglob("*.yaml"))
    loaded = {p: load_yaml(p, resolve_func=False, recursive=False) for p in files}
    names = {c["task"] for c in loaded.values() if isinstance(c.get("task"), str)}
    groups = {c["group"]: c for c in loaded.values() if "group" in c}
    assert "enterprise" in groups
    for g, cfg in groups.items():
        for member in cfg["task"]:
            assert member in names or member in groups, f"group {g} lists unknown {member}"
        for agg in cfg.get("aggregate_metric_list", []):
            # a wrong metric/filter name makes lm-eval drop the group row silently
            for member in cfg["task"]:
                meta = next((c["metadata"] for c in loaded.values() if c.get("task") == member), None)
                if meta is not None:
                    assert agg["metric"] in (meta["primary_metric"], "score"), (g, member)
                    assert agg["filter_list"] == meta["primary_filter"], (g, member)


def test_task_manager_indexes_every_generated_file():
    from lm_eval.tasks import TaskManager

    tm = TaskManager(include_path=TASK_DIR, include_defaults=False)
    expected = {p.stem for p in VARIANTS}
    missing = expected - set(tm.all_tasks)
    assert not missing, f"lm-eval could not index (broken YAML?): {sorted(missing)}"


def test_no_template_repeats_long_content_in_every_shot():
    from lm_eval_enterprise.prompting.templating import MAX_REPEATED_WORDING_CHARS, check_repeated_wording

    def spec(doc_to_text, description="", num_fewshot=20):
        return DatasetTasks(
            dataset="x",
            domain="cyber",
            family="classification_macro",
            primary_metric="macro_f1",
            templates=[Template("t1", doc_to_text, description=description)],
            num_fewshot=num_fewshot,
        )

    # a label list inside the per-shot text is rejected; in the instruction it is fine
    with pytest.raises(ValueError, match=r"x t1: doc_to_text repeats \['label_list'\] in every shot"):
        check_repeated_wording(spec("{{text}}\nOptions: {{label_list}}.\nAnswer:"))
    with pytest.raises(ValueError, match=r"repeats \['type_list'\]"):
        check_repeated_wording(spec("{% for t in type_list %}{{t}} {% endfor %}{{text}}\nA:"))
    check_repeated_wording(spec("{{text}}\nAnswer:", description="Options: {{label_list}}.\n\n"))
    check_repeated_wording(spec("{{text}}\nOptions: {{label_list}}.\nAnswer:", num_fewshot=0))  # no shots
    # literal wording × shots: 75 characters × 20 shots = 1,500 is the limit; 76 × 20 = 1,520 is over
    assert MAX_REPEATED_WORDING_CHARS == 1500
    check_repeated_wording(spec("{{text}}" + "w" * 75))
    with pytest.raises(ValueError, match=r"76 characters of wording repeated in each of 20 shots"):
        check_repeated_wording(spec("{{text}}" + "w" * 76))
    # every checked-in table passes (make tasks runs the check)
    for _, table in all_specs(TASKS):
        check_repeated_wording(table)


@pytest.mark.parametrize("dataset, suite", [("tram", "enterprise"), ("jcola", "nlu")])
def test_generator_refuses_datasets_with_different_template_counts(monkeypatch, dataset, suite):
    """lm-eval averages a group over its leaf tasks: with one dataset of one template fewer than the others of its
    suite (tram: 4 among 5; jcola: 7 among 8), the domain / language means and ``enterprise`` / ``nlu`` would weigh
    datasets unequally, so the generator refuses it. The two suites differ from each other (5 and 8), which is
    allowed: no group holds both."""
    import dataclasses

    from lm_eval_enterprise.prompting import templating

    real = templating.load_specs

    def fewer(task_root, domain, name):
        specs = real(task_root, domain, name)
        return (
            [dataclasses.replace(specs[0], templates=specs[0].templates[:-1])] + specs[1:] if name == dataset else specs
        )

    templating.generate(TASKS, write=False)  # the tree as it is: 5 per enterprise dataset, 8 per NLU dataset
    monkeypatch.setattr(templating, "load_specs", fewer)
    with pytest.raises(ValueError, match=f"every dataset in the {suite} groups needs the same number of templates"):
        templating.generate(TASKS, write=False)
