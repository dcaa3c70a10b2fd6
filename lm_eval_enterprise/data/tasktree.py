"""The dataset registry: every folder ``tasks/<domain>/<id>/`` with a ``source.py`` is dataset ``<id>``.

A dataset folder holds everything about one dataset: ``source.py`` (its :class:`~lm_eval_enterprise.data.Source`,
exported as ``SOURCE``), ``templates.py`` and the generated task YAMLs, ``README.md``, the embedded fixture data
(``fixture/``, :mod:`lm_eval_enterprise.data.fixtures`) with its generator ``make_fixture.py``, and its tests
``test_<id>.py``. Nothing else needs registering: adding the folder adds the dataset.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

from ..errors import DataError
from .source import Source

TASK_PACKAGE = "lm_eval_enterprise.tasks"


def task_root() -> Path:
    """The task tree (``tasks/`` of a checkout, ``lm_eval_enterprise/tasks`` of an installed wheel)."""
    return Path(importlib.import_module(TASK_PACKAGE).__file__).parent


@lru_cache(maxsize=1)
def registry() -> dict[str, str]:
    """dataset id → module path of its ``source.py`` (found by walking the task tree)."""
    out = {}
    for src in sorted(task_root().glob("*/*/source.py")):
        domain, ds = src.parent.parent.name, src.parent.name
        out[ds] = f"{TASK_PACKAGE}.{domain}.{ds}.source"
    return out


def domains(root: Path | None = None) -> tuple[str, ...]:
    """The domains of the task tree ``root`` (default :func:`task_root`): its folders holding dataset folders (one
    with ``source.py`` or ``templates.py``), in the order of the tree's ``DOMAIN_ORDER``, others after it by name."""
    root = Path(root) if root is not None else task_root()
    found = {
        d.name for d in root.iterdir() if d.is_dir() and (any(d.glob("*/source.py")) or any(d.glob("*/templates.py")))
    }
    order = [d for d in getattr(importlib.import_module(TASK_PACKAGE), "DOMAIN_ORDER", ()) if d in found]
    return tuple(order + sorted(found - set(order)))


def get_source(dataset: str) -> Source:
    mods = registry()
    if dataset not in mods:
        raise DataError(dataset, None, f"unknown dataset id; known: {', '.join(sorted(mods))}")
    return importlib.import_module(mods[dataset]).SOURCE


def iter_sources(domain: str | None = None) -> Iterable[Source]:
    for ds in registry():
        src = get_source(ds)
        if domain is None or src.domain == domain:
            yield src


def dataset_dir(dataset: str) -> Path:
    """The folder ``tasks/<domain>/<id>/`` of a registered dataset."""
    mods = registry()
    if dataset not in mods:
        raise DataError(dataset, None, f"unknown dataset id; known: {', '.join(sorted(mods))}")
    _, domain, ds, _ = mods[dataset].rsplit(".", 3)
    return task_root() / domain / ds
