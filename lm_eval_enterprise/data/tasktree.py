"""The dataset registry: every folder ``<domain>/<id>/`` with a ``source.py`` under a task root is dataset ``<id>``.

A dataset folder holds everything about one dataset: ``source.py`` (its :class:`~lm_eval_enterprise.data.Source`,
exported as ``SOURCE``), ``templates.py`` and the generated task YAMLs, ``README.md``, the embedded fixture data
(``fixture/``, :mod:`lm_eval_enterprise.data.fixtures`) with its generator ``make_fixture.py``, and its tests
``test_<id>.py``. Nothing else needs registering: adding the folder adds the dataset.

Task roots (:func:`task_roots`): the package's own tree (``tasks/`` of a checkout, ``lm_eval_enterprise/tasks``
of an installed wheel), then every folder listed in ``$LM_EVAL_ENTERPRISE_TASK_PATH`` (separated by
``os.pathsep``), laid out the same way — a user's own datasets, kept outside the repository (docs/adding.md).
A folder of the package's tree is imported as ``lm_eval_enterprise.tasks.<domain>.<id>``; a folder under another
root by its file path, as the package ``lm_eval_enterprise_user_tasks.<id>_<hash of the folder's path>``
(:func:`folder_package`), so the modules of a dataset folder import each other relatively
(``from .source import LABELS``) wherever the folder lives. Dataset ids are unique across all roots.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

from ..errors import DataError
from .source import Source

TASK_PACKAGE = "lm_eval_enterprise.tasks"
ENV_TASK_PATH = "LM_EVAL_ENTERPRISE_TASK_PATH"  # extra task roots (os.pathsep-separated folders)
USER_PACKAGE = "lm_eval_enterprise_user_tasks"  # the package name prefix of dataset folders outside the package


def task_root() -> Path:
    """The package's own task tree (``tasks/`` of a checkout, ``lm_eval_enterprise/tasks`` of an installed wheel)."""
    return Path(importlib.import_module(TASK_PACKAGE).__file__).parent


def task_roots() -> tuple[Path, ...]:
    """The package's task tree, then the folders of ``$LM_EVAL_ENTERPRISE_TASK_PATH`` in their order (resolved,
    repeats dropped). A listed path that is not a folder is a :class:`DataError`."""
    roots = [task_root().resolve()]
    for part in os.environ.get(ENV_TASK_PATH, "").split(os.pathsep):
        if not part.strip():
            continue
        root = Path(part).expanduser().resolve()
        if not root.is_dir():
            raise DataError("?", root, f"${ENV_TASK_PATH} lists this path, which is not a folder")
        if root not in roots:
            roots.append(root)
    return tuple(roots)


def folder_package(folder: str | os.PathLike) -> str:
    """The package name under which the modules of dataset folder ``folder`` (``<root>/<domain>/<id>``) import:
    ``lm_eval_enterprise.tasks.<domain>.<id>`` in the package's tree; elsewhere a package created here for that
    folder (found by file path: ``<package>.source`` is ``<folder>/source.py``)."""
    folder = Path(folder).resolve()
    if folder.parent.parent == task_root().resolve():
        return f"{TASK_PACKAGE}.{folder.parent.name}.{folder.name}"
    name = f"{USER_PACKAGE}.{folder.name}_{hashlib.sha256(str(folder).encode()).hexdigest()[:12]}"
    if name not in sys.modules:
        spec = importlib.machinery.ModuleSpec(name, None, is_package=True)
        spec.submodule_search_locations = [str(folder)]
        sys.modules[name] = importlib.util.module_from_spec(spec)
    return name


@lru_cache(maxsize=16)
def _walk(roots: tuple[Path, ...]) -> dict[str, Path]:
    """dataset id → folder, for every ``<domain>/<id>/source.py`` under ``roots``."""
    out: dict[str, Path] = {}
    for root in roots:
        for src in sorted(root.glob("*/*/source.py")):
            ds = src.parent.name
            if ds in out:
                raise DataError(
                    ds, src.parent, f"dataset id already defined by {out[ds]} (ids are unique across roots)"
                )
            out[ds] = src.parent
    return out


def dataset_folders() -> dict[str, Path]:
    """dataset id → its folder, over every task root."""
    return _walk(task_roots())


def registry() -> dict[str, str]:
    """dataset id → module path of its ``source.py`` (found by walking the task roots)."""
    return dict(_modules(task_roots()))


@lru_cache(maxsize=16)
def _modules(roots: tuple[Path, ...]) -> dict[str, str]:
    return {ds: f"{folder_package(d)}.source" for ds, d in _walk(roots).items()}


def _unknown(dataset: str, known: Iterable[str]) -> DataError:
    return DataError(
        dataset,
        None,
        f"unknown dataset id; known: {', '.join(sorted(known))} "
        f"(a dataset folder outside the package is found through ${ENV_TASK_PATH})",
    )


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
        raise _unknown(dataset, mods)
    return importlib.import_module(mods[dataset]).SOURCE


def iter_sources(domain: str | None = None) -> Iterable[Source]:
    for ds in registry():
        src = get_source(ds)
        if domain is None or src.domain == domain:
            yield src


def dataset_dir(dataset: str) -> Path:
    """The folder ``<root>/<domain>/<id>/`` of a registered dataset."""
    folders = dataset_folders()
    if dataset not in folders:
        raise _unknown(dataset, folders)
    return folders[dataset]
