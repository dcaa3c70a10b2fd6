"""A faithful re-implementation of how the Hugging Face leaderboard template Space (``demo-leaderboard-backend``)
reads results and request files, written from its public code (``src/leaderboard/read_evals.py``,
``src/populate.py``, ``src/display/utils.py``, ``src/about.py``) for the export tests.

Kept as the template does it: the results walk (a folder with any non-JSON file is skipped; files sorted by the
timestamp minus its last 7 characters), ``Precision.from_str``, the org/model split and ``eval_name``, the ×100 of
every value, a task with a missing or null value left out, files of one ``eval_name`` merged, a model dropped when
a task column is missing (``KeyError`` in ``to_dict``) or NaN (``has_no_nan_values``), the request-file lookup
(``<requests>/<org>/<model>_eval_request_*.json``, status FINISHED, same precision), the average over all task
columns, the sort by average and the rounding to 2 decimals. Left out: the hub lookup of ``is_model_on_hub``
(network; treated as "not on the hub") and the display-only columns.
"""

from __future__ import annotations

import glob
import json
import os
from dataclasses import dataclass
from enum import Enum

import numpy as np
import pandas as pd


@dataclass
class ModelDetails:
    name: str
    display_name: str = ""
    symbol: str = ""


class ModelType(Enum):
    PT = ModelDetails(name="pretrained", symbol="🟢")
    FT = ModelDetails(name="fine-tuned", symbol="🔶")
    IFT = ModelDetails(name="instruction-tuned", symbol="⭕")
    RL = ModelDetails(name="RL-tuned", symbol="🟦")
    Unknown = ModelDetails(name="", symbol="?")

    @staticmethod
    def from_str(type):  # noqa: A002 - the template's signature
        if "fine-tuned" in type or "🔶" in type:
            return ModelType.FT
        if "pretrained" in type or "🟢" in type:
            return ModelType.PT
        if "RL-tuned" in type or "🟦" in type:
            return ModelType.RL
        if "instruction-tuned" in type or "⭕" in type:
            return ModelType.IFT
        return ModelType.Unknown


class WeightType(Enum):
    Adapter = ModelDetails("Adapter")
    Original = ModelDetails("Original")
    Delta = ModelDetails("Delta")


class Precision(Enum):
    float16 = ModelDetails("float16")
    bfloat16 = ModelDetails("bfloat16")
    Unknown = ModelDetails("?")

    @staticmethod
    def from_str(precision):
        if precision in ["torch.float16", "float16"]:
            return Precision.float16
        if precision in ["torch.bfloat16", "bfloat16"]:
            return Precision.bfloat16
        return Precision.Unknown


def load_tasks(about_py: str):
    """The ``Tasks`` enum of an ``about.py`` (here: the export's ``about_tasks.py``)."""
    ns: dict = {}
    exec(compile(open(about_py, encoding="utf-8").read(), about_py, "exec"), ns)  # noqa: S102 - our own file
    return ns["Tasks"]


@dataclass
class EvalResult:
    eval_name: str
    full_model: str
    org: str | None
    model: str
    revision: str
    results: dict
    precision: Precision = Precision.Unknown
    model_type: ModelType = ModelType.Unknown
    weight_type: WeightType = WeightType.Original
    architecture: str = "Unknown"
    license: str = "?"
    likes: int = 0
    num_params: int = 0
    date: str = ""
    still_on_hub: bool = False

    @classmethod
    def init_from_json_file(cls, json_filepath, tasks):
        with open(json_filepath) as fp:
            data = json.load(fp)
        config = data.get("config")
        precision = Precision.from_str(config.get("model_dtype"))
        org_and_model = config.get("model_name", config.get("model_args", None))
        org_and_model = org_and_model.split("/", 1)
        if len(org_and_model) == 1:
            org = None
            model = org_and_model[0]
            result_key = f"{model}_{precision.value.name}"
        else:
            org = org_and_model[0]
            model = org_and_model[1]
            result_key = f"{org}_{model}_{precision.value.name}"
        full_model = "/".join(org_and_model)
        results = {}
        for task in tasks:
            task = task.value
            accs = np.array([v.get(task.metric, None) for k, v in data["results"].items() if task.benchmark == k])
            if accs.size == 0 or any([acc is None for acc in accs]):
                continue
            mean_acc = np.mean(accs) * 100.0
            results[task.benchmark] = mean_acc
        return cls(
            eval_name=result_key,
            full_model=full_model,
            org=org,
            model=model,
            results=results,
            precision=precision,
            revision=config.get("model_sha", ""),
            still_on_hub=False,
            architecture="?",
        )

    def update_with_request_file(self, requests_path):
        request_file = get_request_file_for_model(requests_path, self.full_model, self.precision.value.name)
        try:
            with open(request_file) as f:
                request = json.load(f)
            self.model_type = ModelType.from_str(request.get("model_type", ""))
            self.weight_type = WeightType[request.get("weight_type", "Original")]
            self.license = request.get("license", "?")
            self.likes = request.get("likes", 0)
            self.num_params = request.get("params", 0)
            self.date = request.get("submitted_time", "")
        except Exception:  # noqa: BLE001 - the template prints and goes on
            print(f"Could not find request file for {self.org}/{self.model} with precision {self.precision.value.name}")

    def to_dict(self, tasks):
        average = sum([v for v in self.results.values() if v is not None]) / len(tasks)
        data_dict = {
            "eval_name": self.eval_name,
            "Precision": self.precision.value.name,
            "Type": self.model_type.value.name,
            "Model": self.full_model,
            "Revision": self.revision,
            "Average ⬆️": average,
            "#Params (B)": self.num_params,
            "Submitted": self.date,
        }
        for task in tasks:
            data_dict[task.value.col_name] = self.results[task.value.benchmark]
        return data_dict


def get_request_file_for_model(requests_path, model_name, precision):
    request_files = os.path.join(requests_path, f"{model_name}_eval_request_*.json")
    request_files = glob.glob(request_files)
    request_file = ""
    request_files = sorted(request_files, reverse=True)
    for tmp_request_file in request_files:
        with open(tmp_request_file) as f:
            req_content = json.load(f)
            if req_content["status"] in ["FINISHED"] and req_content["precision"] == precision.split(".")[-1]:
                request_file = tmp_request_file
    return request_file


def get_raw_eval_results(results_path: str, requests_path: str, tasks) -> list[EvalResult]:
    model_result_filepaths = []
    for root, _, files in os.walk(results_path):
        if len(files) == 0 or any([not f.endswith(".json") for f in files]):
            continue
        files.sort(key=lambda x: x.removesuffix(".json").removeprefix("results_")[:-7])
        for file in files:
            model_result_filepaths.append(os.path.join(root, file))
    eval_results = {}
    for model_result_filepath in model_result_filepaths:
        eval_result = EvalResult.init_from_json_file(model_result_filepath, tasks)
        eval_result.update_with_request_file(requests_path)
        eval_name = eval_result.eval_name
        if eval_name in eval_results.keys():
            eval_results[eval_name].results.update({k: v for k, v in eval_result.results.items() if v is not None})
        else:
            eval_results[eval_name] = eval_result
    results = []
    for v in eval_results.values():
        try:
            v.to_dict(tasks)
            results.append(v)
        except KeyError:
            continue
    return results


def get_leaderboard_df(results_path: str, requests_path: str, tasks) -> pd.DataFrame:
    """The table the Space shows (``populate.get_leaderboard_df``)."""
    raw_data = get_raw_eval_results(results_path, requests_path, tasks)
    benchmark_cols = [t.value.col_name for t in tasks]
    cols = ["Model", "Type", "Precision", "Average ⬆️", "#Params (B)", "Submitted"] + benchmark_cols
    df = pd.DataFrame.from_records([v.to_dict(tasks) for v in raw_data], columns=["eval_name"] + cols)
    df = df.sort_values(by=["Average ⬆️"], ascending=False)
    df = df[cols].round(decimals=2)
    return df[df[benchmark_cols].notna().all(axis=1)]


def get_evaluation_queue_df(save_path: str) -> list[dict]:
    """The finished-evaluations list of the Space's queue tab (``populate.get_evaluation_queue_df``)."""
    entries = [entry for entry in os.listdir(save_path) if not entry.startswith(".")]
    all_evals = []
    for entry in entries:
        if ".json" in entry:
            with open(os.path.join(save_path, entry)) as fp:
                all_evals.append(json.load(fp))
        elif ".md" not in entry:
            for sub_entry in [e for e in os.listdir(f"{save_path}/{entry}") if not e.startswith(".")]:
                with open(os.path.join(save_path, entry, sub_entry)) as fp:
                    all_evals.append(json.load(fp))
    return [e for e in all_evals if e["status"].startswith("FINISHED") or e["status"] == "PENDING_NEW_EVAL"]
