"""Generated docs never drift: docs/mcp.md and the bundled pages match their sources."""

from __future__ import annotations

from pathlib import Path

import pytest

from mnemolis.mcp.docgen import bundle_sources, bundled_pages, render_mcp_page
from mnemolis.tools import load_tools

REPO = Path(__file__).resolve().parents[2]
REGENERATE = "run `make docs` (python -m mnemolis.mcp.docgen --write) from the repo root"


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


# Keywords HA 2025.4's `mcp` integration (voluptuous-openapi 0.0.6) cannot read;
# one of them anywhere makes HA drop the whole server.
_UNPORTABLE = {"anyOf", "allOf", "$ref", "$defs", "minItems", "maxItems", "uniqueItems"}


def _keys(node: object) -> set[str]:
    if isinstance(node, dict):
        found = set(node)
        for key, value in node.items():
            if key not in ("default", "enum", "examples"):
                found |= _keys(value)
        return found
    if isinstance(node, list):
        return set().union(*(_keys(v) for v in node)) if node else set()
    return set()


@pytest.mark.parametrize("name", sorted(load_tools()))
def test_input_schemas_are_portable(name: str) -> None:
    schema = load_tools()[name].input_schema()
    assert schema["type"] == "object"
    assert not (_keys(schema) & _UNPORTABLE), name
    for prop in schema.get("properties", {}).values():
        assert "type" in prop or "oneOf" in prop, (name, prop)


def test_optional_fields_stay_optional_and_documented() -> None:
    search = load_tools()["search"].input_schema()
    assert search["required"] == ["query"]
    assert search["properties"]["fusion_sources"] == {
        "type": "array",
        "items": {"type": "string"},
        "description": "Only with source=fusion: which sources to fuse.",
    }
