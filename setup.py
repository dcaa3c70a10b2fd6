"""Package discovery only (metadata lives in pyproject.toml).

The YAML task tree stays at the top level as ``tasks/`` so that a checkout can be used with
``lm_eval --include_path tasks``; it is installed as the subpackage ``lm_eval_enterprise.tasks`` so that
an installed copy finds it too (``lm-eval-enterprise tasks-dir``).
"""
from setuptools import find_packages, setup

packages = find_packages(include=["lm_eval_enterprise", "lm_eval_enterprise.*"])
packages += ["lm_eval_enterprise.tasks"] + [
    "lm_eval_enterprise.tasks." + p for p in find_packages(where="tasks")
]

setup(
    packages=packages,
    package_dir={"lm_eval_enterprise": "lm_eval_enterprise", "lm_eval_enterprise.tasks": "tasks"},
)
