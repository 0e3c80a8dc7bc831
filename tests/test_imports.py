"""No import cycle in tally, tally.adapters or tally.rules (issue 15).

A cycle means two modules can only be read together, and an import order that works today
breaks when someone adds a line. The graph is built from the source of the installed packages:
every import, at module level or inside a function (a lazy import that closes a cycle is still a
tangle), with `from package import module` counted as an edge to that module.
"""

from __future__ import annotations

import ast
from pathlib import Path

import tally
import tally.adapters
import tally.rules


def _modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for package in (tally, tally.adapters, tally.rules):
        for folder in package.__path__:
            for path in Path(folder).rglob("*.py"):
                parts = path.relative_to(folder).with_suffix("").parts
                name = ".".join((package.__name__, *(p for p in parts if p != "__init__")))
                found.setdefault(name, path)
    return found


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            subs = {f"{base}.{alias.name}" for alias in node.names} & known
            out |= subs or {base}
    return {m for m in out if m in known and m != name}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_packages_have_no_import_cycle() -> None:
    modules = _modules()
    graph = {name: _imports(name, path, set(modules)) for name, path in modules.items()}
    assert len(modules) > 40 and graph["tally.engine"]  # the walk found the real tree
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]


def test_the_import_reader_sees_late_relative_and_module_imports(tmp_path: Path) -> None:
    """A late import inside a function, a relative import and `from package import module`
    are all edges: any of them can close a cycle."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "a.py").write_text("def f():\n    from pkg import b\n", encoding="utf-8")
    (package / "b.py").write_text("from . import c\nfrom .c import name\n", encoding="utf-8")
    (package / "c.py").write_text("import pkg.a\nimport json\n", encoding="utf-8")
    known = {"pkg", "pkg.a", "pkg.b", "pkg.c"}
    graph = {name: _imports(name, package / f"{name.split('.')[-1]}.py", known)
             for name in ("pkg.a", "pkg.b", "pkg.c")}
    assert graph == {"pkg.a": {"pkg.b"}, "pkg.b": {"pkg.c"}, "pkg.c": {"pkg.a"}}
    assert _cycles({**graph, "pkg": set()}) == [["pkg.a", "pkg.b", "pkg.c"]]
