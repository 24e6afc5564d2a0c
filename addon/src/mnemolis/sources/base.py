"""The source interface every connector implements, and the guarded runner."""

from __future__ import annotations

import asyncio
import logging
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar

from ..errors import SourceError, SourceNotConfigured, SourceTimeout
from ..models import SourceAnswer, SourceRun, SourceStatusName
from ..services import Services

if TYPE_CHECKING:
    import aiohttp

    from ..settings import Settings

_LOGGER = logging.getLogger(__name__)


# A hint the router sets when the household's documents stand in for a home source
# that is not set up or said nothing (its name: "forecast", "ha").
INSTEAD_OF = "instead_of"


@dataclass(slots=True)
class QueryContext:
    """What a source may know about the question beyond its text."""

    now: datetime
    conversation_id: str | None = None
    hints: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class SourceHealth:
    """A source's state as ``/api/sources`` reports it."""

    name: str
    enabled: bool
    configured: bool
    healthy: bool
    last_error: str | None = None
    detail: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "name": self.name,
            "enabled": self.enabled,
            "configured": self.configured,
            "healthy": self.healthy,
            "last_error": self.last_error,
            "detail": self.detail,
        }


@dataclass(slots=True)
class SourceDeps:
    """Shared things sources borrow instead of creating their own."""

    settings: Settings
    session: aiohttp.ClientSession
    services: Services = field(default_factory=Services)


class Source(ABC):
    """A place answers come from: one per backend, named as the API names it."""

    name: ClassVar[str]
    description: ClassVar[str] = ""
    #: Whether "nothing found" may be cached like an answer. Only sources whose
    #: data is local and versioned (or short-lived) say yes: an outside backend
    #: can come back empty for a moment, and that must not stick.
    cache_empty: ClassVar[bool] = False

    def __init__(self, deps: SourceDeps) -> None:
        self.deps = deps
        self.settings = deps.settings
        self.last_error: str | None = None
        self.enabled = True

    @property
    @abstractmethod
    def configured(self) -> bool:
        """Whether the user gave this source what it needs to run."""

    async def start(self) -> None:
        """Open connections or background tasks; called once at server start."""

    async def stop(self) -> None:
        """Release what ``start`` opened."""

    async def health(self) -> SourceHealth:
        """Cheap health check; defaults to the outcome of the last query."""
        return SourceHealth(
            name=self.name,
            enabled=self.enabled,
            configured=self.configured,
            healthy=self.configured and self.last_error is None,
            last_error=self.last_error,
        )

    def cache_version(self) -> object:
        """What the cache key carries so a change of the data drops cached answers at once."""
        return None

    @abstractmethod
    async def query(self, question: str, ctx: QueryContext) -> SourceAnswer:
        """Answer the question from this source, or raise a SourceError."""


async def run_source(
    source: Source,
    question: str,
    ctx: QueryContext,
    *,
    timeout: float,
    reason: str = "",
    part: int = 0,
) -> tuple[SourceRun, SourceAnswer | None]:
    """Run one source under its timeout; every failure becomes a SourceRun status."""
    started = time.perf_counter()

    def ms() -> float:
        return (time.perf_counter() - started) * 1000

    if not source.configured:
        err = SourceNotConfigured(f"{source.name} is not configured")
        return SourceRun(source.name, "skipped", ms(), reason, err.message, part), None
    try:
        async with asyncio.timeout(timeout):
            answer = await source.query(question, ctx)
    except TimeoutError:
        msg = SourceTimeout(f"{source.name} did not answer within {timeout:g} s").message
        source.last_error = msg
        return SourceRun(source.name, "timeout", ms(), reason, msg, part), None
    except SourceTimeout as err:
        source.last_error = err.message
        return SourceRun(source.name, "timeout", ms(), reason, err.message, part), None
    except SourceError as err:
        source.last_error = err.brief
        return SourceRun(source.name, "error", ms(), reason, source.last_error, part), None
    except asyncio.CancelledError:
        raise
    except Exception as err:
        _LOGGER.exception("source %s failed unexpectedly", source.name)
        source.last_error = f"internal: {type(err).__name__}: {err}"
        return SourceRun(source.name, "error", ms(), reason, source.last_error, part), None
    source.last_error = None
    status: SourceStatusName = "empty" if answer.empty else "ok"
    return SourceRun(source.name, status, ms(), reason, None, part), answer
