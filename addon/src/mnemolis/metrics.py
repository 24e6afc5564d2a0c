"""Prometheus metrics: HTTP routes, questions, sources, MCP tools, indexes, model, memory.

Every label value comes from a bounded set (route templates, source and tool
names, status words), so a scraper's series count stays small however many
different URLs or questions arrive.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    PlatformCollector,
    ProcessCollector,
    disable_created_metrics,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily, InfoMetricFamily
from prometheus_client.registry import Collector

from .querylog import SURFACE
from .settings import SOURCE_NAMES

if TYPE_CHECKING:
    from .core import Mnemolis
    from .models import SearchResult

_LOGGER = logging.getLogger(__name__)

# ``*_created`` series double every counter for no use on a dashboard.
disable_created_metrics()  # type: ignore[no-untyped-call]

# Text format 0.0.4: what every Prometheus, VictoriaMetrics and Grafana Agent reads.
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
# Seconds: local lookups answer in milliseconds, remote backends and models in seconds.
_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 20.0, 60.0)


def _number(value: Any) -> float | None:
    """A service attribute read defensively: a number, a callable giving one, or None."""
    if callable(value):
        try:
            value = value()
        except Exception:
            return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _llm_figures(llm: Any) -> tuple[bool, float | None, float | None]:
    """Ready?, tokens/s of the last generation, tokens generated — read defensively."""
    if llm is None:
        return False, None, None
    try:
        ready = getattr(llm, "available", True)
        ready = bool(ready() if callable(ready) else ready)
        backend = getattr(llm, "backend", None)
        tps = _number(getattr(llm, "tokens_per_second", None))
        if tps is None and backend is not None:
            tps = _number(getattr(backend, "tokens_per_second", None))
            history = getattr(backend, "history", None)
            if tps is None and history:
                last = history[-1]
                seconds = _number(getattr(last, "seconds", None))
                produced = _number(getattr(last, "completion_tokens", None))
                if seconds and produced is not None:
                    tps = produced / seconds
        generated = _number(getattr(backend, "tokens_generated", None)) if backend else None
    except Exception:
        return False, None, None
    return ready, tps, generated


class _LiveCollector(Collector):
    """Values read at scrape time from the core's published services."""

    def __init__(self, core: Mnemolis) -> None:
        self.core = core

    def collect(self) -> Iterator[Any]:
        core = self.core
        info = InfoMetricFamily("mnemolis", "Version and instance of this server")
        info.add_metric([], {"version": core.version, "instance_id": core.instance_id})
        yield info
        docs = GaugeMetricFamily(
            "mnemolis_documents_indexed", "Documents indexed across all document databases"
        )
        docs.add_metric([], _number(core.services.documents_indexed) or 0.0)
        yield docs
        loaded_now, tps, generated = _llm_figures(core.services.llm)
        tokens = GaugeMetricFamily(
            "mnemolis_llm_tokens_per_second",
            "Generation speed of the local model's last completion (0 before the first)",
        )
        tokens.add_metric([], tps or 0.0)
        yield tokens
        total = GaugeMetricFamily(
            "mnemolis_llm_tokens_generated", "Tokens the local model generated since start"
        )
        total.add_metric([], generated or 0.0)
        yield total
        loaded = GaugeMetricFamily("mnemolis_llm_loaded", "1 when a language model is ready")
        loaded.add_metric([], 1.0 if loaded_now else 0.0)
        yield loaded
        qlog = core.querylog
        written = GaugeMetricFamily(
            "mnemolis_querylog_written", "Questions written to the query log since start"
        )
        written.add_metric([], float(qlog.written))
        yield written
        dropped = GaugeMetricFamily(
            "mnemolis_querylog_dropped",
            "Questions the query log could not keep since start (queue full or write failed)",
        )
        dropped.add_metric([], float(qlog.dropped))
        yield dropped


class Metrics:
    """One registry per server, so several apps in one process never collide."""

    def __init__(self, core: Mnemolis) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self._children: dict[tuple[int, tuple[str, ...]], Any] = {}
        reg = self.registry
        self.http_requests = Counter(
            "mnemolis_http_requests",
            "HTTP requests by method, route template and status code",
            ["method", "route", "status"],
            registry=reg,
        )
        self.http_duration = Histogram(
            "mnemolis_http_request_duration_seconds",
            "HTTP request latency by method and route template",
            ["method", "route"],
            buckets=_BUCKETS,
            registry=reg,
        )
        self.queries = Counter(
            "mnemolis_queries",
            "Routed questions by surface, outcome (answered/failed) and fallback",
            ["surface", "outcome", "fallback"],
            registry=reg,
        )
        self.query_duration = Histogram(
            "mnemolis_query_duration_seconds",
            "Time to answer a routed question",
            ["surface"],
            buckets=_BUCKETS,
            registry=reg,
        )
        self.source_requests = Counter(
            "mnemolis_source_requests",
            "Source runs by source and status (ok, empty, error, timeout, skipped)",
            ["source", "status"],
            registry=reg,
        )
        self.source_duration = Histogram(
            "mnemolis_source_duration_seconds",
            "Time a source took to answer (skipped runs excluded)",
            ["source"],
            buckets=_BUCKETS,
            registry=reg,
        )
        self.cache_hits = Counter(
            "mnemolis_cache_hits",
            "Source answers served from the answer cache",
            ["source"],
            registry=reg,
        )
        self.tool_calls = Counter(
            "mnemolis_mcp_tool_calls",
            "MCP tool calls by tool and outcome (ok/error)",
            ["tool", "outcome"],
            registry=reg,
        )
        self.tool_duration = Histogram(
            "mnemolis_mcp_tool_duration_seconds",
            "MCP tool call latency by tool",
            ["tool"],
            buckets=_BUCKETS,
            registry=reg,
        )
        self.source_configured = Gauge(
            "mnemolis_source_configured",
            "1 when a source has its settings",
            ["source"],
            registry=reg,
        )
        self.source_healthy = Gauge(
            "mnemolis_source_healthy",
            "1 when a source answered its last check",
            ["source"],
            registry=reg,
        )
        self.rag_files = Gauge(
            "mnemolis_rag_files_indexed",
            "Files indexed per document database",
            ["db"],
            registry=reg,
        )
        self.rag_failed = Gauge(
            "mnemolis_rag_files_failed",
            "Files that failed to index, per database",
            ["db"],
            registry=reg,
        )
        self.rag_chunks = Gauge(
            "mnemolis_rag_chunks", "Searchable chunks per document database", ["db"], registry=reg
        )
        self.memories = Gauge("mnemolis_memories", "Memories stored", registry=reg)
        reg.register(_LiveCollector(core))
        ProcessCollector(registry=reg)
        PlatformCollector(registry=reg)
        self.core = core

    # --- hooks ---------------------------------------------------------------

    def _child(self, metric: Any, *labels: str) -> Any:
        """``metric.labels(...)`` remembered: label sets are few and asked for on every request."""
        key = (id(metric), labels)
        child = self._children.get(key)
        if child is None:
            child = self._children[key] = metric.labels(*labels)
        return child

    def record_http(self, method: str, route: str, status: int, seconds: float) -> None:
        """Count one HTTP request under its route template."""
        method = method if method in _METHODS else "OTHER"
        self._child(self.http_requests, method, route, str(status)).inc()
        self._child(self.http_duration, method, route).observe(seconds)

    def record_search(self, result: SearchResult, surface: str | None = None) -> None:
        """Count a routed question and every source run in its trace."""
        where = surface or SURFACE.get()
        outcome = "failed" if result.source_used == "none" else "answered"
        fallback = "true" if result.fallback else "false"
        self._child(self.queries, where, outcome, fallback).inc()
        self._child(self.query_duration, where).observe(result.elapsed_ms / 1000)
        for run in result.sources:
            name = run.name if run.name in SOURCE_NAMES else "other"
            self._child(self.source_requests, name, run.status).inc()
            if run.status != "skipped":
                self._child(self.source_duration, name).observe(run.ms / 1000)
            if run.cached:
                self._child(self.cache_hits, name).inc()

    def record_tool(self, name: str, seconds: float, is_error: bool) -> None:
        """Count one MCP tool call (called by ``tools.call_tool``)."""
        self._child(self.tool_calls, name, "error" if is_error else "ok").inc()
        self._child(self.tool_duration, name).observe(seconds)

    # --- exposition ----------------------------------------------------------

    async def render(self) -> bytes:
        """The text exposition, with source health and the query log's counts current."""
        await self.core.querylog.flush(timeout=1.0)
        for source in await self.core.list_sources():
            name = source["name"]
            self.source_configured.labels(name).set(1 if source["configured"] else 0)
            self.source_healthy.labels(name).set(1 if source["healthy"] else 0)
        await self._refresh_knowledge()
        return generate_latest(self.registry)

    async def _refresh_knowledge(self) -> None:
        """Index sizes per database and the memory count, when the store is there."""
        store = self.core.services.knowledge
        for gauge in (self.rag_files, self.rag_failed, self.rag_chunks):
            gauge.clear()  # removed databases disappear from the scrape
        if store is None:
            return
        try:
            statuses = await store.all_status()
            _, total = await store.list_memories(limit=1)
        except Exception:
            _LOGGER.debug("metrics: knowledge store not readable", exc_info=True)
            return
        for status in statuses:
            db = str(status.get("db", ""))
            for gauge, key in (
                (self.rag_files, "files_indexed"),
                (self.rag_failed, "files_failed"),
                (self.rag_chunks, "chunks"),
            ):
                value = _number(status.get(key))
                if db and value is not None:
                    gauge.labels(db).set(value)
        count = _number(total)
        if count is not None:
            self.memories.set(count)
