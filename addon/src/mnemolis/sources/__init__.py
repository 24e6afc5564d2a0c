"""Source registry: every name of SPEC §5 maps to one connector class."""

from __future__ import annotations

from ..models import SourceAnswer
from ..settings import SOURCE_NAMES
from .base import QueryContext, Source, SourceDeps, SourceHealth, run_source


def _unbuilt(source_name: str) -> type[Source]:
    """A named placeholder for a connector this build does not ship yet."""

    class Unbuilt(Source):
        name = source_name
        description = f"{source_name} (not available in this build)"

        @property
        def configured(self) -> bool:
            return False

        async def query(self, question: str, ctx: QueryContext) -> SourceAnswer:
            return SourceAnswer(source=self.name, answer="")

    Unbuilt.__name__ = f"Unbuilt_{source_name}"
    return Unbuilt


def _built() -> list[type[Source]]:
    """Connector classes this build ships; one import per source module."""
    from .changes import ChangesSource
    from .forecast import ForecastSource
    from .ha import HASource
    from .kiwix import KiwixSource
    from .memory import MemorySource
    from .news import NewsSource
    from .rag import RagSource
    from .uptime import UptimeSource
    from .web import WebSource

    built: list[type[Source]] = [
        HASource,
        ForecastSource,
        ChangesSource,
        NewsSource,
        WebSource,
        KiwixSource,
        UptimeSource,
        RagSource,
        MemorySource,
    ]
    return built


def source_classes() -> dict[str, type[Source]]:
    """The connector class for each source name, in API order."""
    built = {cls.name: cls for cls in _built()}
    return {name: built.get(name) or _unbuilt(name) for name in SOURCE_NAMES}


def build_sources(deps: SourceDeps) -> dict[str, Source]:
    """Instantiate every source once, in API order."""
    return {name: cls(deps) for name, cls in source_classes().items()}


__all__ = [
    "QueryContext",
    "Source",
    "SourceDeps",
    "SourceHealth",
    "build_sources",
    "run_source",
    "source_classes",
]
