"""Test doubles and synthetic runs for the tests and benchmark scripts (not part of the installed package): oracle,
garbage and constant LMs and the shared per-dataset assertions (:mod:`.testing`), synthetic lm-eval runs per task
family (:mod:`.synthetic`). Importable from a checkout: the root ``conftest.py`` and the scripts put the
repository root on ``sys.path``."""
