"""Request models for the knowledge surfaces (REST bodies and MCP tool arguments)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, JsonValue

_LIMIT_SCHEMA: dict[str, JsonValue] = {
    "type": "integer",
    "minimum": 1,
    "maximum": 100,
    "default": 10,
}


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RagRegister(_Model):
    """Register a folder as a named document database."""

    name: str = Field(description="1-64 characters of a-z, 0-9, '_' and '-'.")
    path: str = Field(description="Absolute folder path inside an allowed root.")


class RagSearchBody(_Model):
    """``POST /api/rag/{db}/search``: the ``search_rag`` rules without ``db``."""

    q: str = Field(description="What to look for (trimmed; required).")
    limit: Any = Field(
        default=10,
        description="Passages to return, 1-100; anything else means 10.",
        json_schema_extra=_LIMIT_SCHEMA,
    )
    mode: str | None = Field(
        default=None,
        description="keyword (BM25), semantic (embeddings) or hybrid (RRF of both; default). "
        "Case-insensitive.",
        json_schema_extra={"enum": ["keyword", "semantic", "hybrid"]},
    )


class SearchRagArgs(RagSearchBody):
    """MCP ``search_rag``: which database and what to look for."""

    db: str = Field(description="Database name, as list_rag reports it.")


class ListRagArgs(_Model):
    """``list_rag`` takes no arguments."""


class MemoryCreate(_Model):
    """A new memory."""

    content: str = Field(description="What to remember (plain text or Markdown).")
    tags: list[str] | str | None = Field(
        default=None, description="Tags, as a list or comma-separated; e.g. kind:rule."
    )
    status: str | None = Field(
        default=None,
        description="Unconsolidated (default), Working, Core or Deprecated.",
        json_schema_extra={"enum": ["Unconsolidated", "Working", "Core", "Deprecated"]},
    )


class MemoryPatch(_Model):
    """Fields of a memory to change; absent fields stay as they are."""

    content: str | None = None
    tags: list[str] | str | None = None
    status: str | None = Field(
        default=None,
        json_schema_extra={"enum": ["Unconsolidated", "Working", "Core", "Deprecated"]},
    )


class MemorySearch(_Model):
    """Memory search: plain text (no query language) plus filters."""

    query: str = Field(default="", description="Plain text; empty lists the newest first.")
    tags: list[str] | str | None = Field(
        default=None, description="Any-match, case-insensitive, exact tags (comma-separated)."
    )
    status: list[str] | str | None = Field(
        default=None, description="One or more of Unconsolidated, Working, Core, Deprecated."
    )
    mode: str | None = Field(
        default=None,
        description="lexical, semantic or hybrid (default; RRF, its score is a rank signal).",
        json_schema_extra={"enum": ["lexical", "semantic", "hybrid"]},
    )
    format: str | None = Field(
        default=None,
        description="markdown (default), json, or envelope (mnemolis.retrieval-results.v1).",
        json_schema_extra={"enum": ["markdown", "json", "envelope"]},
    )
    limit: int = Field(default=10, ge=1, le=100)


class ContextPackRequest(_Model):
    """A question and how many characters of evidence the caller can take."""

    query: str = Field(min_length=1, max_length=4000, description="The question.")
    budget_chars: int = Field(
        default=4000, ge=100, le=200_000, description="Upper bound on the evidence text."
    )


class SourceBundleRequest(_Model):
    """Local files to return in full: paths or citation refs from a result."""

    sources: list[str] = Field(min_length=1, max_length=50)
