"""No import cycles in the server package (function-level imports count too)."""

from __future__ import annotations

from pathlib import Path

from .importgraph import cycles, import_graph, path_between

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "addon" / "src" / "mnemolis"

# Cycles known and allowed for now. Each entry must still be a cycle (the test
# says when it is gone, so the allowance goes with it).
KNOWN_CYCLES: set[frozenset[str]] = set()


def _explain(graph: dict[str, set[str]], cycle: list[str]) -> str:
    first = cycle[0]
    back = next(m for m in cycle[1:] if path_between(graph, m, first))
    chain = path_between(graph, first, back) + path_between(graph, back, first)[1:]
    return " -> ".join(chain)


def test_the_server_package_has_no_import_cycles() -> None:
    graph = import_graph(PACKAGE, "mnemolis")
    assert graph.get("mnemolis.core"), "the graph found no imports"
    found = cycles(graph)
    unexpected = [c for c in found if frozenset(c) not in KNOWN_CYCLES]
    assert not unexpected, "import cycles:\n" + "\n".join(_explain(graph, c) for c in unexpected)
    stale = KNOWN_CYCLES - {frozenset(c) for c in found}
    assert not stale, f"no longer cycles, remove them from KNOWN_CYCLES: {stale}"


def _package(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / "pkg" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root / "pkg"


def test_the_graph_sees_function_level_imports_and_skips_type_checking(tmp_path: Path) -> None:
    pkg = _package(
        tmp_path,
        {
            "__init__.py": "",
            "a.py": "def f():\n    from .b import g\n",
            "b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .c import x\n",
            "c.py": "import pkg.a\n",
        },
    )
    graph = import_graph(pkg, "pkg")
    assert graph["pkg.a"] == {"pkg.b"}
    assert graph["pkg.b"] == set()
    assert graph["pkg.c"] == {"pkg.a"}
    assert cycles(graph) == []
    (pkg / "b.py").write_text("from . import c\n", encoding="utf-8")
    graph = import_graph(pkg, "pkg")
    assert cycles(graph) == [["pkg.a", "pkg.b", "pkg.c"]]
    assert path_between(graph, "pkg.a", "pkg.c") == ["pkg.a", "pkg.b", "pkg.c"]


def test_a_package_init_counts_for_importers_outside_it(tmp_path: Path) -> None:
    pkg = _package(
        tmp_path,
        {
            "__init__.py": "",
            "core.py": "from .sub import Thing\n",
            "sub/__init__.py": "from .impl import Thing\n",
            "sub/impl.py": "from .helper import h\n",
            "sub/helper.py": "from . import impl\n",
        },
    )
    graph = import_graph(pkg, "pkg")
    # The re-export is no edge of sub/__init__ itself (impl <-> helper is the only cycle) ...
    assert graph["pkg.sub"] == set()
    assert cycles(graph) == [["pkg.sub.helper", "pkg.sub.impl"]]
    # ... but importing the package runs it: core depends on sub.impl.
    assert {"pkg.sub", "pkg.sub.impl"} <= graph["pkg.core"]
    (pkg / "sub" / "helper.py").write_text("def f():\n    from ..core import x\n")
    assert cycles(import_graph(pkg, "pkg")) == [["pkg.core", "pkg.sub.helper", "pkg.sub.impl"]]
