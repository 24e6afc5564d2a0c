"""Source registry: every name of SPEC §5 maps to one connector class."""

from __future__ import annotations

from ..settings import SOURCE_NAMES
from .base import QueryContext, Source, SourceDeps, SourceHealth, run_source


def _built() -> list[type[Source]]:
    """One connector class per source module."""
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
    return {name: built[name] for name in SOURCE_NAMES}


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
