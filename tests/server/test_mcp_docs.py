"""Generated docs never drift: docs/mcp.md and the bundled pages match their sources."""

from __future__ import annotations

from pathlib import Path

import pytest

from mnemolis.mcp.docgen import bundle_sources, bundled_pages, render_mcp_page
from mnemolis.tools import load_tools

REPO = Path(__file__).resolve().parents[2]
REGENERATE = "run `.venv/server/bin/python -m mnemolis.mcp.docgen --write` from the repo root"


def test_docs_mcp_md_is_the_generator_output() -> None:
    committed = (REPO / "docs" / "mcp.md").read_text(encoding="utf-8")
    assert committed == render_mcp_page(), f"docs/mcp.md is stale; {REGENERATE}"


def test_every_registered_tool_is_documented() -> None:
    page = render_mcp_page()
    for name, spec in load_tools().items():
        assert f"### `{name}` — {spec.title}" in page
        for arg in spec.input_schema().get("properties", {}):
            assert f"| `{arg}` |" in page, (name, arg)


def test_bundle_mirrors_the_repository_docs() -> None:
    sources = bundle_sources(REPO)
    bundled = bundled_pages()
    assert set(bundled) == set(sources), f"bundle pages differ from the docs; {REGENERATE}"
    for name, path in sources.items():
        assert bundled[name].text == path.read_text(encoding="utf-8"), (
            f"bundled_docs/{name}.md differs from {path.relative_to(REPO)}; {REGENERATE}"
        )


@pytest.mark.parametrize("name", ["readme", "mcp", "configuration"])
def test_bundle_has_the_user_pages(name: str) -> None:
    page = bundled_pages()[name]
    assert page.title and page.text.startswith("# ")
