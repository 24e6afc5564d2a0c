"""Data models shared by the router, the sources and every API surface."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

_ENDS_IN_CODE = re.compile(r"(?:^|\n)[ \t]*(?:```|~~~)[ \t]*$")


def cited(text: str, mark: str) -> str:
    """A quote with its citation mark after it; after a code block, on a line of its own:
    on the closing fence it ends no block (Markdown) and a voice reads it with the code."""
    return f"{text}{chr(10) if _ENDS_IN_CODE.search(text) else ' '}{mark}"


SourceStatusName = Literal["ok", "empty", "error", "timeout", "skipped"]


@dataclass(slots=True)
class Evidence:
    """One ranked piece of what a source found."""

    source: str
    title: str
    text: str
    url: str | None = None
    ref: str | None = None
    score: float = 0.0
    timestamp: str | None = None
    #: How well it answers the question, 0..1, on one scale for documents and memories
    #: (knowledge/relevance.py); None when the source cannot say.
    relevance: float | None = None

    def citation(self) -> Citation:
        """The provenance a caller sees for this evidence."""
        return Citation(source=self.source, title=self.title, url=self.url, ref=self.ref)


@dataclass(slots=True)
class SourceAnswer:
    """What one source returned for one question."""

    source: str
    answer: str
    evidence: list[Evidence] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        """True when the source found nothing worth saying."""
        return not self.answer.strip() and not self.evidence


@dataclass(slots=True)
class Citation:
    """Where part of an answer came from."""

    source: str
    title: str
    url: str | None = None
    ref: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON form without empty optional keys."""
        out: dict[str, Any] = {"source": self.source, "title": self.title}
        if self.url:
            out["url"] = self.url
        if self.ref:
            out["ref"] = self.ref
        return out


@dataclass(slots=True)
class SourceRun:
    """One attempt at one source: its status, time and why it ran."""

    name: str
    status: SourceStatusName
    ms: float
    reason: str = ""
    error: str | None = None
    part: int = 0
    cached: bool = False

    def to_dict(self) -> dict[str, Any]:
        """JSON form for ``sources[]``."""
        out: dict[str, Any] = {
            "name": self.name,
            "status": self.status,
            "ms": round(self.ms, 2),
            "reason": self.reason,
            "part": self.part,
            "cached": self.cached,
        }
        if self.error:
            out["error"] = self.error
        return out


@dataclass(slots=True)
class PartResult:
    """The answer to one part of a decomposed question."""

    query: str
    source_used: str
    result: str

    def to_dict(self) -> dict[str, Any]:
        """JSON form for ``parts[]``."""
        return asdict(self)


@dataclass(slots=True)
class ConditionResult:
    """A conditional question's condition, its verdict and what decided it."""

    text: str
    verdict: bool | None
    evidence: str

    def to_dict(self) -> dict[str, Any]:
        """JSON form for ``condition``."""
        return asdict(self)


@dataclass(slots=True)
class SearchResult:
    """The answer to one routed question, with its provenance."""

    query: str
    result: str
    source_used: str
    fallback: bool = False
    parts: list[PartResult] = field(default_factory=list)
    condition: ConditionResult | None = None
    sources: list[SourceRun] = field(default_factory=list)
    citations: list[Citation] = field(default_factory=list)
    elapsed_ms: float = 0.0
    spoken: str = ""
    conversation_id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The SPEC §4 ``POST /search`` response body."""
        return {
            "result": self.result,
            "source_used": self.source_used,
            "fallback": self.fallback,
            "parts": [p.to_dict() for p in self.parts],
            "condition": self.condition.to_dict() if self.condition else None,
            "sources": [s.to_dict() for s in self.sources],
            "citations": [c.to_dict() for c in self.citations],
            "elapsed_ms": round(self.elapsed_ms, 2),
            "spoken": self.spoken,
            "conversation_id": self.conversation_id,
        }
