"""Package discovery only (metadata, package data and the license live in pyproject.toml).

The task tree stays at the top level as ``tasks/`` so that a checkout is used with ``lm_eval --include_path tasks``;
it is installed as the subpackage ``lm_eval_enterprise.tasks`` so that an installed copy finds it too
(``lm-eval-enterprise tasks-dir``). pyproject.toml cannot say "every folder under ``tasks/``, as subpackages of
``lm_eval_enterprise.tasks``" (its ``packages.find`` names packages after their folder), hence this file.

``find_namespace_packages`` lists data-only folders (a dataset's ``fixture/`` and its subfolders) as packages too,
so their files ship as package data without setuptools' "Package would be ignored" warnings. A dataset's own tests
(``tasks/<domain>/<id>/test_<id>.py``) stay in the checkout: they are not built into the wheel.
"""

import fnmatch

from setuptools import find_namespace_packages, setup
from setuptools.command.build_py import build_py

packages = find_namespace_packages(include=["lm_eval_enterprise", "lm_eval_enterprise.*"])
packages += ["lm_eval_enterprise.tasks"] + [
    "lm_eval_enterprise.tasks." + p for p in find_namespace_packages(where="tasks", exclude=["*__pycache__*"])
]


class BuildPyWithoutTests(build_py):
    """Leave the per-dataset test modules (``test_*.py``) out of the wheel."""

    def find_package_modules(self, package, package_dir):
        return [m for m in super().find_package_modules(package, package_dir) if not fnmatch.fnmatch(m[1], "test_*")]


setup(
    packages=packages,
    package_dir={"lm_eval_enterprise": "lm_eval_enterprise", "lm_eval_enterprise.tasks": "tasks"},
    cmdclass={"build_py": BuildPyWithoutTests},
)
