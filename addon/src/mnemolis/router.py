"""The router: decides which sources answer a question and runs them."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from .models import Citation, PartResult, SearchResult, SourceAnswer, SourceRun
from .sources.base import QueryContext, run_source

if TYPE_CHECKING:
    from .core import Mnemolis
    from .requests import SearchRequest


class Router:
    """Explicit source, or the configured default order with fallback."""

    def __init__(self, core: Mnemolis) -> None:
        self.core = core

    def route(self, query: str) -> dict[str, Any]:
        """The decision for a question, without running any source."""
        sources = [
            name
            for name in self.core.settings.routing.default_sources
            if name in self.core.sources and self.core.sources[name].configured
        ]
        return {
            "query": query,
            "condition": None,
            "parts": [{"query": query, "sources": sources[:1], "reason": "default order"}],
        }

    async def search(self, req: SearchRequest) -> SearchResult:
        """Answer one question."""
        started = time.perf_counter()
        ctx = QueryContext(now=datetime.now(UTC), conversation_id=req.conversation_id)
        timeout = self.core.settings.routing.source_timeout
        if req.source in ("auto", "fusion"):
            chain = list(req.fusion_sources or self.core.settings.routing.default_sources)
            reason = "default order"
        else:
            chain = [req.source]
            reason = "requested"
        runs: list[SourceRun] = []
        answer: SourceAnswer | None = None
        for name in chain:
            run, got = await run_source(
                self.core.sources[name], req.query, ctx, timeout=timeout, reason=reason
            )
            runs.append(run)
            if got is not None and not got.empty:
                answer = got
                break
        elapsed = (time.perf_counter() - started) * 1000
        if answer is None:
            text = "No source could answer this question."
            failed = [f"{r.name} ({r.error or r.status})" for r in runs if r.status != "ok"]
            if failed:
                text += " Tried: " + ", ".join(failed) + "."
            return SearchResult(
                query=req.query, result=text, source_used="none", sources=runs, elapsed_ms=elapsed
            )
        citations: list[Citation] = [e.citation() for e in answer.evidence]
        return SearchResult(
            query=req.query,
            result=answer.answer,
            source_used=answer.source,
            fallback=len(runs) > 1 and req.source not in ("auto", "fusion"),
            parts=[PartResult(req.query, answer.source, answer.answer)],
            sources=runs,
            citations=citations,
            elapsed_ms=elapsed,
            spoken=answer.answer,
            conversation_id=req.conversation_id,
        )
