"""The service layer: one object that REST, MCP, the CLI and the UI all call."""

from __future__ import annotations

import asyncio
import json
import logging
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

from . import __version__
from .assist import grammar
from .errors import ConfigError
from .metrics import Metrics
from .models import SearchResult
from .querylog import QueryLog
from .readiness import ComponentHealth, HealthCheck
from .requestmodels import SearchRequest
from .router import Router
from .services import Services
from .settings import Settings
from .sources import Source, SourceDeps, build_sources

_LOGGER = logging.getLogger(__name__)


@dataclass(slots=True)
class QueryStats:
    """Counters the integration's entities show."""

    total: int = 0
    failed: int = 0
    latency_ms_total: float = 0.0
    last_source: str | None = None
    last_query_at: float | None = None
    by_source: dict[str, int] = field(default_factory=dict)

    def record(self, result: SearchResult) -> None:
        """Count one answered query."""
        self.total += 1
        if result.source_used == "none":
            self.failed += 1
        self.latency_ms_total += result.elapsed_ms
        self.last_source = result.source_used
        self.last_query_at = time.time()
        self.by_source[result.source_used] = self.by_source.get(result.source_used, 0) + 1


class Mnemolis:
    """Owns settings, sources, router and stores; started and stopped once."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.data_dir = Path(settings.data_dir)
        self.version = __version__
        self.instance_id = ""
        self.started_at = 0.0
        self.session: aiohttp.ClientSession | None = None
        self.sources: dict[str, Source] = {}
        self.services = Services()
        # Only the long-running server watches document folders; `mnemolis mcp`
        # (stdio) and one-shot commands open the databases without a watcher.
        self.watch_files = settings.rag.watch
        self.health_checks: dict[str, HealthCheck] = {}
        self.stats = QueryStats()
        # Built here (metrics read its counters from the start), opened in start().
        self.querylog = QueryLog(self.data_dir / "querylog.db", settings.querylog)
        self.metrics = Metrics(self)
        self.router = Router(self)
        self._on_stop: list[Callable[[], Awaitable[None]]] = []

    # --- lifecycle -----------------------------------------------------------

    async def start(self) -> None:
        """Create the data dir, shared HTTP session and every source."""
        try:
            self.data_dir.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise ConfigError(
                f"invalid setting data_dir={str(self.data_dir)!r}: cannot create ({err.strerror})"
            ) from err
        self.instance_id = self._load_instance_id()
        self.started_at = time.time()
        self.querylog.open()
        self.on_stop(self.querylog.close)
        self.session = aiohttp.ClientSession(
            timeout=aiohttp.ClientTimeout(total=None, sock_connect=10),
            headers={"User-Agent": f"Mnemolis/{self.version}"},
        )
        await self._start_llm()
        await self._start_knowledge()
        deps = SourceDeps(settings=self.settings, session=self.session, services=self.services)
        self.sources = build_sources(deps)
        # Sources that read each other (changes snapshots uptime/news/forecast) look here.
        self.services.sources = self.sources
        self.health_checks.setdefault("store", self._store_health)
        self.health_checks.setdefault("sources", self._sources_health)
        for source in self.sources.values():
            if source.configured:
                try:
                    await source.start()
                except Exception as err:
                    _LOGGER.warning("source %s failed to start: %s", source.name, err)
                    source.last_error = f"start failed: {err}"

    async def _start_llm(self) -> None:
        """Publish the inference service; models load in the background."""
        from .llm import LLMService

        llm = LLMService(self.settings, lambda: self.session, self.services)
        self.services.llm = llm
        self.health_checks.setdefault("model", llm.health)
        self.on_stop(llm.stop)
        await llm.start()

    async def _start_knowledge(self) -> None:
        """Open document databases and memories; publish them as services."""
        from .knowledge import KnowledgeStore

        services = self.services
        store = await KnowledgeStore.open(
            self.settings,
            watch=self.watch_files,
            model=lambda: services.embedder,
            follow_registry=True,
        )
        store.publish(self.services)
        self.on_stop(store.close)

        async def knowledge_health() -> ComponentHealth:
            return ComponentHealth(*store.health_detail())

        self.health_checks["knowledge"] = knowledge_health

    def on_stop(self, callback: Callable[[], Awaitable[None]]) -> None:
        """Run callback at shutdown, last registered first."""
        self._on_stop.append(callback)

    async def stop(self) -> None:
        """Stop sources, then what they use (store, model, query log); safe to call twice.

        Sources go first: a snapshot or watcher task still running must not find
        the knowledge store, the model or the query log already closed.
        """
        for source in self.sources.values():
            try:
                await source.stop()
            except Exception:
                _LOGGER.exception("source %s failed to stop", source.name)
        for callback in reversed(self._on_stop):
            try:
                await callback()
            except Exception:
                _LOGGER.exception("shutdown step failed")
        self._on_stop.clear()
        self.router.close()
        if self.session is not None:
            await self.session.close()
            self.session = None

    def _load_instance_id(self) -> str:
        path = self.data_dir / "instance.json"
        try:
            value = json.loads(path.read_text(encoding="utf-8"))["instance_id"]
            if isinstance(value, str) and value:
                return value
        except (OSError, ValueError, KeyError, TypeError):
            pass
        value = uuid.uuid4().hex
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"instance_id": value}), encoding="utf-8")
        tmp.replace(path)
        return value

    # --- the service layer ---------------------------------------------------

    async def search(self, req: SearchRequest) -> SearchResult:
        """Route and answer one question; every surface comes through here."""
        result = await self.router.search(req)
        self.stats.record(result)
        self.metrics.record_search(result)
        self.querylog.record(result)
        return result

    def route(
        self,
        query: str,
        conversation_id: str | None = None,
        language: str | None = None,
        area: str | None = None,
    ) -> dict[str, Any]:
        """The routing decision for a question, without running sources."""
        return self.router.route(query, conversation_id, language, area)

    async def route_async(
        self,
        query: str,
        conversation_id: str | None = None,
        language: str | None = None,
        area: str | None = None,
    ) -> dict[str, Any]:
        """``route`` from the event loop (``GET /api/route``): never blocks on the model."""
        return await self.router.route_async(query, conversation_id, language, area)

    async def list_sources(self) -> list[dict[str, Any]]:
        """Every source with enabled, configured, healthy and last error."""
        healths = await asyncio.gather(*(s.health() for s in self.sources.values()))
        return [h.to_dict() for h in healths]

    async def get_stats(self) -> dict[str, Any]:
        """What the HA integration's coordinator polls."""
        sources = await self.list_sources()
        avg = self.stats.latency_ms_total / self.stats.total if self.stats.total else None
        documents = 0
        counter = self.services.documents_indexed
        if counter is not None:
            documents = int(counter())
        return {
            "instance_id": self.instance_id,
            "version": self.version,
            "uptime_s": round(time.time() - self.started_at, 1),
            "queries": {
                "total": self.stats.total,
                "failed": self.stats.failed,
                "by_source": dict(self.stats.by_source),
            },
            "latency_ms_avg": round(avg, 2) if avg is not None else None,
            "last_source": self.stats.last_source,
            "last_query_at": self.stats.last_query_at,
            "documents_indexed": documents,
            # Languages home questions are read in (HA's grammar); the integration's
            # agent declares them to Assist.
            "languages": list(grammar.languages()),
            "sources": {
                s["name"]: {
                    "configured": s["configured"],
                    "healthy": s["healthy"],
                    "last_error": s["last_error"],
                }
                for s in sources
            },
        }

    async def readiness(self) -> tuple[bool, dict[str, Any]]:
        """Per-component readiness; not ready when any component is down."""
        names = list(self.health_checks)
        results = await asyncio.gather(
            *(self.health_checks[n]() for n in names), return_exceptions=True
        )
        components: dict[str, Any] = {}
        for name, res in zip(names, results, strict=True):
            if isinstance(res, BaseException):
                res = ComponentHealth("down", f"check failed: {res}")
            components[name] = res.to_dict()
        states = {c["status"] for c in components.values()}
        overall = "down" if "down" in states else "degraded" if "degraded" in states else "ok"
        return overall != "down", {"status": overall, "components": components}

    async def _store_health(self) -> ComponentHealth:
        probe = self.data_dir / ".probe"
        try:
            probe.write_text("ok", encoding="utf-8")
            probe.unlink()
        except OSError as err:
            return ComponentHealth("down", f"data dir not writable: {err.strerror}")
        return ComponentHealth("ok", str(self.data_dir))

    async def _sources_health(self) -> ComponentHealth:
        sources = await self.list_sources()
        configured = [s for s in sources if s["configured"]]
        broken = [s["name"] for s in configured if not s["healthy"]]
        if broken:
            return ComponentHealth("degraded", "unhealthy: " + ", ".join(broken))
        return ComponentHealth("ok", f"{len(configured)} configured")
