"""The Sharpe tool's layout: at most 14 modules, one job each, and no module reaching into another's private names
(a name starting with one underscore belongs to its own module): neither ``from .x import _name`` nor
``module._name`` through an imported module."""

import ast
from pathlib import Path

SHARPE = Path(__file__).resolve().parents[2] / "lm_eval_enterprise" / "sharpe"


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_uses(source: str) -> list[str]:
    """Private names of other modules a source file uses."""
    tree = ast.parse(source)
    modules = set()  # names bound to imported modules
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            found += [f"{node.module}.{a.name}" for a in node.names if _private(a.name)]
            if node.level and node.module is None:  # from . import stats as ST
                modules |= {a.asname or a.name for a in node.names}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in modules:
            if _private(node.attr):
                found.append(f"{node.value.id}.{node.attr}")
    return found


def test_the_checker_finds_private_uses():
    assert private_uses("from .cells import _keys\nfrom . import stats as ST\nST._x()\nimport numpy as np\n") == [
        "cells._keys",
        "ST._x",
    ]
    assert private_uses("from . import stats as ST\nST.draw()\nclass A:\n    def f(self):\n        self._y()\n") == []


def test_at_most_fourteen_modules_and_no_private_names_of_another():
    modules = sorted(SHARPE.glob("*.py"))
    assert len(modules) <= 14, [p.name for p in modules]
    assert {p.name: private_uses(p.read_text(encoding="utf-8")) for p in modules} == {p.name: [] for p in modules}


def test_at_most_5000_lines():
    """Issue 24's budget: the Sharpe tool's package stays within 5,000 lines, counted as
    ``find lm_eval_enterprise/sharpe -name '*.py' | xargs wc -l`` does (newline characters of every module)."""
    lines = {p.name: p.read_bytes().count(b"\n") for p in sorted(SHARPE.rglob("*.py"))}
    assert sum(lines.values()) <= 5000, lines
