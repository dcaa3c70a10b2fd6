"""lm-eval's ``TaskManager`` with domain scores averaged over datasets.

lm-eval 0.4.13 computes a group's row as the mean over its *leaf tasks* (``lm_eval/api/group.py``,
``Group.aggregate`` over ``get_all_tasks()``), however deeply they are nested. For a dataset group that is the
mean over its template variants, as intended; for a domain it would weigh each dataset by its number of variants
(gold_news has 45 — nine subtasks × five templates — every other dataset 5). Domain groups and ``enterprise`` are
therefore marked in their YAML metadata (``enterprise_aggregate: mean_over_datasets``, written by
:mod:`lm_eval_enterprise.templating`), and :class:`EnterpriseTaskManager` — what ``lm-eval-enterprise run`` and
the demo pass to ``simple_evaluate`` — gives exactly those groups :class:`DatasetMeanGroup`'s ``aggregate``: the
unweighted mean of ``score,answer`` over the dataset groups below, each already aggregated by lm-eval (groups are
aggregated children first), i.e. the Sharpe tool's equal weighting of datasets. Everything else (indexing, task
building, evaluation, the results file and tables) is lm-eval's own; nothing of lm-eval is patched.
"""

from __future__ import annotations

import logging
from typing import Any

from lm_eval.api.group import Group
from lm_eval.api.metrics import unweighted_mean_stderr
from lm_eval.config.group import AggMetricConfig
from lm_eval.tasks import TaskManager

from .configkeys import AGGREGATE_KEY, MEAN_OVER_DATASETS, PRIMARY_FILTER, SCORE_METRIC

log = logging.getLogger(__name__)


def is_mean_over_datasets(group: Group) -> bool:
    return (group.metadata or {}).get(AGGREGATE_KEY) == MEAN_OVER_DATASETS


class DatasetMeanGroup(Group):
    """A domain (or the top) group: ``score`` = unweighted mean over the dataset groups below it."""

    def datasets(self) -> list[Group]:
        """The dataset groups below: direct children, except that a child which is itself a mean over datasets
        (a domain under ``enterprise``) contributes its own datasets."""
        out: list[Group] = []
        for child in self:
            if isinstance(child, Group) and is_mean_over_datasets(child):
                out.extend(DatasetMeanGroup.datasets(child))
            else:
                out.append(child)
        return out

    def aggregate(self, task_metrics: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {"alias": self.alias or self.name, "name": self.name}
        units = self.datasets()
        names = [u.name if isinstance(u, Group) else u.task_name for u in units]
        rows = {n: task_metrics.get(n) or {} for n in names}
        out["sample_len"] = sum(int(r.get("sample_len", 0) or 0) for r in rows.values())
        counts = {}
        for agg in self.aggregate_metric_list or []:
            for filt in agg.filter_list or [PRIMARY_FILTER]:
                key, se_key = f"{agg.metric},{filt}", f"{agg.metric}_stderr,{filt}"
                have = [n for n in names if isinstance(rows[n].get(key), (int, float))]
                missing = [n for n in names if n not in have]
                if missing:
                    log.warning(
                        "Group '%s': %s is missing for %d of %d datasets (%s); the mean is over the others",
                        self.name,
                        key,
                        len(missing),
                        len(names),
                        ", ".join(missing),
                    )
                if not have:
                    continue
                out[key] = sum(rows[n][key] for n in have) / len(have)
                ses = [rows[n].get(se_key) for n in have]
                out[se_key] = (
                    float(unweighted_mean_stderr(ses))  # lm-eval's rule for weight_by_size=False
                    if all(isinstance(s, (int, float)) for s in ses)
                    else "N/A"
                )
                counts[key] = sum(int(rows[n].get("sample_len", 0) or 0) for n in have)
        if counts:
            out["sample_count"] = counts
        return out


SCORE_AGGREGATION = AggMetricConfig(
    metric=SCORE_METRIC, filter_list=[PRIMARY_FILTER], aggregation="mean", weight_by_size=False
)


class EnterpriseTaskManager(TaskManager):
    """``TaskManager`` whose loaded mean-over-datasets groups aggregate ``score`` over datasets
    (:class:`DatasetMeanGroup`). Use it wherever lm-eval takes a ``task_manager``."""

    def load(self, task_list):
        loaded = super().load(task_list)
        for group in loaded["groups"].values():
            if is_mean_over_datasets(group) and type(group) is Group:
                group.__class__ = DatasetMeanGroup  # same fields; only ``aggregate`` differs
                group.aggregate_metric_list = [SCORE_AGGREGATION]
        return loaded
