"""The package's import graph has no cycles (issue 18).

Parsed statically: every ``import`` / ``from ... import`` at any depth (lazy imports inside functions count too),
relative imports resolved, a name imported from a package resolved to its submodule when it is one. Edges from a
package to its own subpackages/submodules (its ``__init__`` importing them) are not cycles of design and are ignored.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parents[1] / "lm_eval_enterprise"


def modules(root: Path = PACKAGE_DIR) -> dict[str, Path]:
    out = {}
    for f in root.rglob("*.py"):
        parts = list(f.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = f
    return out


def _targets(mods: dict[str, Path], cur: str, node: ast.Import | ast.ImportFrom) -> set[str]:
    if isinstance(node, ast.ImportFrom):
        base = cur.split(".")
        if node.level:
            is_pkg = mods[cur].name == "__init__.py"
            base = base[: len(base) - node.level + (1 if is_pkg else 0)]
            name = ".".join(base + ([node.module] if node.module else []))
        else:
            name = node.module or ""
        names = [name] + [f"{name}.{a.name}" for a in node.names]
    else:
        names = [a.name for a in node.names]
    found = set()
    for n in names:
        while n and n not in mods:
            n = n.rpartition(".")[0]
        if n and n != cur:
            found.add(n)
    return found


def import_graph(root: Path = PACKAGE_DIR) -> dict[str, set[str]]:
    """module → the package modules it imports (parent → child edges dropped)."""
    mods = modules(root)
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for m, f in mods.items():
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                graph[m] |= _targets(mods, m, node)
    return {m: {d for d in deps if not d.startswith(m + ".")} for m, deps in graph.items()}


def cycles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[frozenset[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = set()
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.add(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(frozenset(comp))
    return out


def test_the_cycle_finder_finds_a_cycle_and_ignores_a_chain():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert cycles(graph) == [frozenset({"a", "b", "c"})]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_imports_are_resolved_at_any_depth_and_relative(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from . import sub\n")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "x.py").write_text("def f():\n    from ..y import g\n    return g\n")
    (pkg / "y.py").write_text("from pkg.sub import x\n")
    graph = import_graph(pkg)
    assert graph["pkg"] == set()  # package -> own subpackage: ignored
    assert graph["pkg.sub.x"] == {"pkg.y"}  # lazy, relative
    assert graph["pkg.y"] == {"pkg.sub", "pkg.sub.x"}  # the package and the submodule named in its import
    assert cycles(graph) == [frozenset({"pkg.sub.x", "pkg.y"})]


def test_the_package_has_no_import_cycle():
    found = cycles(import_graph())
    assert not found, "import cycles: " + "; ".join(" <-> ".join(sorted(c)) for c in found)


def reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    """Every module ``start`` imports, directly or through other package modules."""
    seen: set[str] = set()
    todo = [start]
    while todo:
        for dep in graph.get(todo.pop(), ()):
            if dep not in seen:
                seen.add(dep)
                todo.append(dep)
    return seen


def test_layers_estimator_below_the_sharpe_tool():
    """The estimator is a lower layer than the Sharpe tool: the tool imports it, and no estimator module reaches
    ``lm_eval_enterprise.sharpe`` (directly or transitively); both use the Sharpe score and the bootstrap draws of
    ``scoring/``, which import no other package module."""
    graph = import_graph()
    estimator = [
        m for m in graph if m == "lm_eval_enterprise.estimator" or m.startswith("lm_eval_enterprise.estimator.")
    ]
    assert estimator
    upward = {m: sorted(d for d in reachable(graph, m) if d.startswith("lm_eval_enterprise.sharpe")) for m in estimator}
    assert upward == {m: [] for m in estimator}
    assert "lm_eval_enterprise.estimator" in reachable(graph, "lm_eval_enterprise.sharpe.estimates")
    for shared in ("lm_eval_enterprise.scoring.sharpe_score", "lm_eval_enterprise.scoring.bootstrap"):
        assert graph[shared] == set(), (shared, graph[shared])


def test_layers_scoring_below_the_sharpe_tool():
    """``scoring/`` (the metrics, their statistics and what they score by chance, ``scoring/chance.py``) is a lower
    layer than the Sharpe tool: no scoring module reaches ``lm_eval_enterprise.sharpe``, directly or transitively."""
    graph = import_graph()
    scoring = [m for m in graph if m == "lm_eval_enterprise.scoring" or m.startswith("lm_eval_enterprise.scoring.")]
    assert "lm_eval_enterprise.scoring.chance" in scoring
    upward = {m: sorted(d for d in reachable(graph, m) if d.startswith("lm_eval_enterprise.sharpe")) for m in scoring}
    assert upward == {m: [] for m in scoring}
    assert "lm_eval_enterprise.scoring.chance" in graph["lm_eval_enterprise.sharpe.baselines"]
