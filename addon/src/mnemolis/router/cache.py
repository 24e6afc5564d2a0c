"""Per-source answer cache with single-flight: one backend call per question at a time.

A source that knows when its data changes (documents re-indexed, a memory
written) puts a version into the key, so an answer is never served after the
data behind it changed, however long its lifetime.
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

from ..models import SourceAnswer, SourceRun, SourceStatusName
from ..sources.base import QueryContext, Source, run_source
from .text import cache_key_text

# Sources whose answers depend on the clock: the key carries the hour asked in.
TIME_SENSITIVE = frozenset({"forecast", "changes", "ha"})
MAX_ENTRIES = 2048

CacheKey = tuple[str, str, str, str, object]
Outcome = tuple[SourceRun, SourceAnswer | None]


@dataclass(slots=True)
class _Entry:
    expires: float
    answer: SourceAnswer


class AnswerCache:
    """Answers per (source, normalised question); failures and empties are never kept."""

    def __init__(
        self,
        ttls: Mapping[str, float],
        *,
        max_entries: int = MAX_ENTRIES,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.ttls = ttls
        self.max_entries = max_entries
        self.clock = clock
        self._entries: OrderedDict[CacheKey, _Entry] = OrderedDict()
        self._inflight: dict[CacheKey, asyncio.Task[Outcome]] = {}
        self.hits = 0
        self.misses = 0

    def key(
        self, source: str, question: str, ctx: QueryContext, version: object = None
    ) -> CacheKey:
        """Normalised question plus what else the answer depends on."""
        hour = ctx.now.strftime("%Y-%m-%dT%H") if source in TIME_SENSITIVE else ""
        hints = repr(sorted(ctx.hints.items())) if ctx.hints else ""
        return (source, cache_key_text(question), hour, hints, version)

    def ttl(self, source: str) -> float:
        """Seconds an answer of this source stays fresh (0: never cached)."""
        return float(self.ttls.get(source, 0.0))

    def clear(self) -> None:
        """Forget every cached answer."""
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)

    async def run(
        self,
        source: Source,
        question: str,
        ctx: QueryContext,
        *,
        timeout: float,
        reason: str = "",
        part: int = 0,
    ) -> Outcome:
        """Answer from the cache, join an identical in-flight call, or run the source."""
        ttl = self.ttl(source.name)
        if not source.configured:
            return await run_source(
                source, question, ctx, timeout=timeout, reason=reason, part=part
            )
        key = self.key(source.name, question, ctx, source.cache_version())
        started = time.perf_counter()
        if ttl > 0:
            entry = self._entries.get(key)
            if entry is not None:
                if entry.expires > self.clock():
                    self._entries.move_to_end(key)
                    self.hits += 1
                    ms = (time.perf_counter() - started) * 1000
                    status: SourceStatusName = "empty" if entry.answer.empty else "ok"
                    run = SourceRun(source.name, status, ms, reason, None, part, cached=True)
                    return run, entry.answer
                del self._entries[key]
        task = self._inflight.get(key)
        if task is not None:
            self.hits += 1
            try:
                async with asyncio.timeout(timeout):
                    run, answer = await asyncio.shield(task)
            except TimeoutError:
                ms = (time.perf_counter() - started) * 1000
                msg = f"{source.name} did not answer within {timeout:g} s"
                return SourceRun(source.name, "timeout", ms, reason, msg, part), None
            ms = (time.perf_counter() - started) * 1000
            settled = run.status in ("ok", "empty")
            shared = replace(run, ms=ms, reason=reason, part=part, cached=settled)
            return shared, answer
        self.misses += 1
        task = asyncio.create_task(
            run_source(source, question, ctx, timeout=timeout, reason=reason, part=part)
        )
        self._inflight[key] = task
        task.add_done_callback(functools.partial(self._settle, key, ttl, source.cache_empty))
        return await asyncio.shield(task)

    def _settle(
        self, key: CacheKey, ttl: float, keep_empty: bool, task: asyncio.Task[Outcome]
    ) -> None:
        if self._inflight.get(key) is task:
            del self._inflight[key]
        if task.cancelled() or task.exception() is not None or ttl <= 0:
            return
        run, answer = task.result()
        if answer is None or run.status not in ("ok", "empty"):
            return  # failures and timeouts are never cached
        if answer.empty and not keep_empty:
            return  # nor "nothing found" from a backend that may simply be having a moment
        if answer.data.get("partial"):
            return  # nor answers a source gave while part of its backend failed
        self._entries[key] = _Entry(self.clock() + ttl, answer)
        self._entries.move_to_end(key)
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)
