"""The server package's import graph, read from the source (nothing is imported).

Every ``import`` counts, at module level or inside a function, except those
under ``if TYPE_CHECKING:`` (they never run). A package ``__init__`` that
imports its own submodules to re-export them adds no edge of its own: a module
of the package importing a sibling does not go through it. A module outside
the package that imports the package does: it gets edges to every submodule
the ``__init__`` pulls in, since importing the package runs them.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from pathlib import Path

Graph = dict[str, set[str]]


def module_files(root: Path, package: str) -> dict[str, Path]:
    """Dotted module name → file, for every module under root (the package folder)."""
    found: dict[str, Path] = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join([package, *parts])] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def _imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement that can run, wherever it sits."""
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
            continue
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend(node.orelse)
            continue
        stack.extend(ast.iter_child_nodes(node))


def _base(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The absolute module a ``from … import`` names."""
    if node.level == 0:
        return node.module or ""
    parts = module.split(".")
    if not is_package:
        parts = parts[:-1]
    if node.level > 1:
        parts = parts[: len(parts) - (node.level - 1)]
    return ".".join([*parts, node.module] if node.module else parts)


def _targets(
    module: str, is_package: bool, node: ast.Import | ast.ImportFrom, known: Mapping[str, Path]
) -> set[str]:
    """The modules of the package an import statement loads."""
    out: set[str] = set()
    if isinstance(node, ast.Import):
        for alias in node.names:
            name = alias.name
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name:
                out.add(name)
        return out
    base = _base(module, is_package, node)
    if base in known:
        for alias in node.names:
            sub = f"{base}.{alias.name}"
            out.add(sub if sub in known else base)
    return out


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def import_graph(root: Path, package: str) -> Graph:
    """module → the modules of the same package it imports (see the module docstring)."""
    files = module_files(root, package)
    packages = {name for name, path in files.items() if path.name == "__init__.py"}
    direct: Graph = {}
    for name, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        edges: set[str] = set()
        for node in _imports(tree):
            edges |= _targets(name, name in packages, node, files)
        edges.discard(name)
        if name in packages:
            # Re-exports of its own submodules are not edges of the __init__.
            edges = {e for e in edges if not _within(e, name)}
        direct[name] = edges

    def pulled_in(pkg: str) -> set[str]:
        """The package's own submodules its __init__ imports, transitively."""
        tree = ast.parse(files[pkg].read_text(encoding="utf-8"))
        seen: set[str] = set()
        todo = [
            t
            for node in _imports(tree)
            for t in _targets(pkg, True, node, files)
            if _within(t, pkg) and t != pkg
        ]
        while todo:
            mod = todo.pop()
            if mod in seen:
                continue
            seen.add(mod)
            if mod in packages:
                todo.extend(pulled_in(mod))
        return seen

    graph: Graph = {}
    for name, edges in direct.items():
        full = set(edges)
        for target in edges:
            if target in packages and not _within(name, target):
                full |= {m for m in pulled_in(target) if m != name}
        graph[name] = full
    return graph


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module, each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(start: str) -> None:
        nonlocal counter
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component: list[str] = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))

    for name in sorted(graph):
        if name not in index:
            visit(name)
    return sorted(found)


def path_between(graph: Mapping[str, set[str]], start: str, goal: str) -> list[str]:
    """One shortest import chain from start to goal (empty when there is none)."""
    previous: dict[str, str] = {}
    queue = [start]
    seen = {start}
    while queue:
        node = queue.pop(0)
        for child in sorted(graph.get(node, ())):
            if child in seen:
                continue
            previous[child] = node
            if child == goal:
                chain = [goal]
                while chain[-1] != start:
                    chain.append(previous[chain[-1]])
                return chain[::-1]
            seen.add(child)
            queue.append(child)
    return []
