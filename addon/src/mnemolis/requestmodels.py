"""Request models shared by REST, MCP and the CLI, so their rules never drift."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from .errors import InvalidArgument
from .settings import SOURCE_NAMES, Settings

SEARCH_MODES = ("auto", "fusion")
SOURCE_CHOICES = (*SEARCH_MODES, *SOURCE_NAMES)
MAX_QUERY_CHARS = 4000

Query = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]
# A BCP 47 language tag as HA and browsers send them: "en", "de-DE", "pt-BR", "sr-Latn".
LanguageTag = Annotated[
    str,
    StringConstraints(
        strip_whitespace=True, pattern=r"^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8}){0,3}$"
    ),
]


class SearchRequest(BaseModel):
    """One question for the router (``POST /search`` and the MCP ``search`` tool)."""

    model_config = ConfigDict(extra="forbid")

    query: Query = Field(description="The whole question, unsplit.")
    source: str = Field(
        default="auto",
        description="auto (let the router decide), fusion, or one source name.",
        json_schema_extra={"enum": list(SOURCE_CHOICES)},
    )
    fusion_sources: list[str] | None = Field(
        default=None, description="Only with source=fusion: which sources to fuse."
    )
    conversation_id: str | None = Field(
        default=None, max_length=200, description="Reuse the subject of earlier questions."
    )
    language: LanguageTag | None = Field(
        default=None,
        description="BCP 47 tag of the question's language (e.g. de, nl-BE); detected when absent.",
    )
    area: str | None = Field(
        default=None,
        min_length=1,
        max_length=200,
        description='HA area id or name where the question was heard ("in here").',
    )

    @field_validator("query")
    @classmethod
    def _query_length(cls, value: str, info: ValidationInfo) -> str:
        limit = (info.context or {}).get("max_query_chars", MAX_QUERY_CHARS)
        if len(value) > limit:
            raise ValueError(f"query is {len(value)} characters; the limit is {limit}")
        if "\x00" in value:
            raise ValueError("query contains a NUL character")
        return value

    @field_validator("source")
    @classmethod
    def _source_name(cls, value: str) -> str:
        value = value.strip().lower()
        if value not in SOURCE_CHOICES:
            raise ValueError(f"unknown source {value!r}; allowed: {', '.join(SOURCE_CHOICES)}")
        return value

    @field_validator("fusion_sources")
    @classmethod
    def _fusion_names(cls, value: list[str] | None) -> list[str] | None:
        if value is None:
            return None
        names = [v.strip().lower() for v in value]
        bad = [n for n in names if n not in SOURCE_NAMES]
        if bad:
            raise ValueError(f"unknown source {bad[0]!r}; allowed: {', '.join(SOURCE_NAMES)}")
        if not names:
            raise ValueError("fusion_sources must name at least one source")
        return list(dict.fromkeys(names))

    @model_validator(mode="after")
    def _fusion_only_with_fusion(self) -> SearchRequest:
        if self.fusion_sources and self.source != "fusion":
            raise ValueError('fusion_sources is only allowed with source "fusion"')
        return self


def describe_validation_error(err: ValidationError) -> str:
    """One sentence naming the field and what is wrong with it."""
    first = err.errors()[0]
    loc = ".".join(str(p) for p in first["loc"]) or "body"
    msg = first["msg"].removeprefix("Value error, ")
    if first["type"] == "missing":
        return f"{loc} is required"
    if first["type"] == "extra_forbidden":
        return f"{loc} is not a known field"
    return f"{loc}: {msg}"


def limits_context(settings: Settings) -> dict[str, Any]:
    """Validation context carrying the configured request limits."""
    return {"max_query_chars": settings.limits.max_query_chars}


def parse_request[M: BaseModel](
    model: type[M], data: object, context: dict[str, Any] | None = None
) -> M:
    """Validate a decoded JSON body; raise InvalidArgument with a clear message."""
    if not isinstance(data, dict):
        raise InvalidArgument(f"request body must be a JSON object, not {type(data).__name__}")
    try:
        return model.model_validate(data, context=context)
    except ValidationError as err:
        raise InvalidArgument(describe_validation_error(err)) from None
