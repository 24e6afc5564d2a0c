"""Memory search output: markdown (default), json, or the retrieval-results envelope."""

from __future__ import annotations

import json
from typing import Any, Literal

from .memories import Memory

ENVELOPE_SCHEMA = "mnemolis.retrieval-results.v1"
Format = Literal["markdown", "json", "envelope"]
FORMATS = ("markdown", "json", "envelope")


def envelope(
    query: str, filters: dict[str, Any], results: list[Memory], truncated: bool, mode: str
) -> dict[str, Any]:
    """The versioned envelope agents can parse without guessing."""
    return {
        "schema": ENVELOPE_SCHEMA,
        "query": query,
        "filters": filters,
        "mode": mode,
        "results": [m.to_dict() for m in results],
        "truncated": truncated,
    }


def markdown(query: str, results: list[Memory], truncated: bool) -> str:
    """A readable list: one heading per memory with its tags, status and times."""
    if not results:
        return f"No memories found for {query!r}." if query else "No memories yet."
    lines = [f"# Memories for {query!r}" if query else "# Recent memories", ""]
    for m in results:
        tags = ", ".join(m.tags) if m.tags else "no tags"
        d = m.to_dict()
        lines.append(f"## {m.id} · {m.status} · {tags}")
        lines.append(f"_created {d['created_at']}, updated {d['updated_at']}_")
        lines.append("")
        lines.append(m.content)
        lines.append("")
    if truncated:
        lines.append("_More memories matched; raise `limit` to see them._")
    return "\n".join(lines).rstrip() + "\n"


def render(
    fmt: str, query: str, filters: dict[str, Any], results: list[Memory], truncated: bool, mode: str
) -> tuple[str, dict[str, Any]]:
    """Text in the requested format, plus the envelope as structured data."""
    env = envelope(query, filters, results, truncated, mode)
    if fmt == "envelope":
        return json.dumps(env, ensure_ascii=False, indent=2), env
    if fmt == "json":
        return json.dumps(env["results"], ensure_ascii=False, indent=2), env
    return markdown(query, results, truncated), env
