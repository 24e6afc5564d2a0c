"""A loopback Mnemolis server speaking the REST contract of SPEC §4, with a controllable state.

The integration's tests run against this real HTTP server (not a mocked session), so
headers, status codes, error envelopes and JSON bodies all go over the wire.
The end-to-end test (test_e2e.py) runs the real server process instead.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

SOURCE_NAMES = ("ha", "forecast", "news", "web", "kiwix", "uptime", "changes", "rag", "memory")
SOURCE_CHOICES = ("auto", "fusion", *SOURCE_NAMES)


@dataclass
class Answer:
    """What the fake router says when a question contains ``trigger``."""

    trigger: str
    source: str
    result: str
    spoken: str = ""
    citations: list[dict[str, Any]] = field(default_factory=list)


def _error(code: str, message: str, status: int) -> web.Response:
    return web.json_response({"error": {"code": code, "message": message}}, status=status)


class FakeMnemolis:
    """State plus an aiohttp app; start/stop on a fixed loopback port."""

    def __init__(self) -> None:
        self.instance_id = "4f1c2a9e8b7d4c3aa1b2c3d4e5f60718"
        self.version = "0.1.0"
        self.api_key: str | None = None
        self.read_api_key: str | None = None
        self.model_loaded = False
        self.allowed_hosts: set[str] | None = None  # None: every Host header is fine
        # What the real server reports under "limits" in /api/stats (None: an older server).
        self.limits: dict[str, Any] | None = {"max_query_chars": 4000, "search_deadline_s": 20.0}
        self.search_delay = 0.0  # seconds /search hangs before answering (a stuck server)
        # Languages the server reads home questions in (None: an older server without).
        self.languages: list[str] | None = ["de", "en", "fr", "nl"]
        self.started_at = time.time()
        self.sources: dict[str, dict[str, Any]] = {
            name: {"configured": name in ("ha", "rag", "memory"), "healthy": True}
            for name in SOURCE_NAMES
        }
        for state in self.sources.values():
            state["last_error"] = None
        self.sources["web"] = {
            "configured": True,
            "healthy": False,
            "last_error": "cannot reach http://searxng.lan:8080: connection refused",
        }
        self.answers: list[Answer] = []
        self.databases: dict[str, int] = {"mnemolis-docs": 12, "manuals": 30}
        self.memories: list[dict[str, Any]] = []
        self.reindexed: list[str] = []
        self.requests: list[tuple[str, str, Any]] = []
        # path → (status, code, message): answer that path with an error envelope.
        self.failures: dict[str, tuple[int, str, str]] = {}
        self.total = 0
        self.failed = 0
        self.latency_total = 0.0
        self.by_source: dict[str, int] = {}
        self.last_source: str | None = None
        self.last_query_at: float | None = None
        self.port = 0
        self._runner: web.AppRunner | None = None

    @property
    def url(self) -> str:
        """Base URL of the running server."""
        return f"http://127.0.0.1:{self.port}"

    # --- lifecycle -------------------------------------------------------------

    def app(self) -> web.Application:
        """The routes of SPEC §4 the integration uses."""
        app = web.Application(middlewares=[self._auth])
        app.router.add_get("/api/health", self._health)
        app.router.add_get("/api/stats", self._stats)
        app.router.add_get("/api/sources", self._sources)
        app.router.add_post("/search", self._search)
        app.router.add_post("/api/memories", self._remember)
        app.router.add_post("/api/memories/search", self._recall)
        app.router.add_get("/api/list", self._list)
        app.router.add_post("/api/rag/{db}/reindex", self._reindex)
        app.router.add_post("/v1/chat/completions", self._chat)
        return app

    async def start(self) -> None:
        """Listen on 127.0.0.1 (the same port again after a stop)."""
        self._runner = web.AppRunner(self.app(), access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", self.port, reuse_address=True)
        await site.start()
        if not self.port:
            server = site._server
            assert server is not None
            self.port = server.sockets[0].getsockname()[1]  # type: ignore[union-attr]

    async def stop(self) -> None:
        """Go away: connections are refused until start() again."""
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    # --- behaviour -------------------------------------------------------------

    @web.middleware
    async def _auth(self, request: web.Request, handler: Any) -> web.StreamResponse:
        body: Any = None
        if request.can_read_body:
            raw = await request.read()
            try:
                body = json.loads(raw)
            except ValueError:
                return _error("invalid_argument", "malformed JSON", 400)
        request["body"] = body
        self.requests.append((request.method, request.path, body))
        if self.allowed_hosts is not None and request.host.split(":")[0] not in self.allowed_hosts:
            host = request.host.split(":")[0]
            return _error(
                "forbidden", f"host {host!r} is not allowed; add it to allowed_hosts", 403
            )
        if self.api_key and request.path != "/api/health":
            auth = request.headers.get("Authorization", "")
            key = auth.removeprefix("Bearer ") if auth.startswith("Bearer ") else None
            if key is None or key not in (self.api_key, self.read_api_key):
                return _error("unauthorized", "missing or wrong API key", 401)
            writes = request.path.startswith(("/api/rag", "/api/memories")) and not (
                request.path.endswith("/search")
            )
            if key == self.read_api_key and writes:
                return _error("forbidden", "this action needs the full API key", 403)
        if request.path in self.failures:
            status, code, message = self.failures[request.path]
            return _error(code, message, status)
        resp: web.StreamResponse = await handler(request)
        return resp

    async def _health(self, request: web.Request) -> web.Response:
        return web.json_response({"status": "ok", "version": self.version})

    async def _stats(self, request: web.Request) -> web.Response:
        avg = round(self.latency_total / self.total, 2) if self.total else None
        return web.json_response(
            {
                "instance_id": self.instance_id,
                "version": self.version,
                "uptime_s": 12.5,
                "queries": {
                    "total": self.total,
                    "failed": self.failed,
                    "by_source": dict(self.by_source),
                },
                "latency_ms_avg": avg,
                "last_source": self.last_source,
                "last_query_at": self.last_query_at,
                "documents_indexed": sum(self.databases.values()),
                "sources": {k: dict(v) for k, v in self.sources.items()},
                **({"limits": dict(self.limits)} if self.limits is not None else {}),
                **({"languages": list(self.languages)} if self.languages is not None else {}),
            }
        )

    async def _sources(self, request: web.Request) -> web.Response:
        return web.json_response(
            {
                "sources": [
                    {"name": name, "enabled": True, **state} for name, state in self.sources.items()
                ]
            }
        )

    async def _search(self, request: web.Request) -> web.Response:
        if self.search_delay:
            await asyncio.sleep(self.search_delay)
        body = request["body"]
        if not isinstance(body, dict):
            return _error("invalid_argument", "request body must be a JSON object", 400)
        query = str(body.get("query", "")).strip()
        source = body.get("source", "auto")
        if not query:
            return _error("invalid_argument", "query is required", 400)
        if source not in SOURCE_CHOICES:
            return _error("invalid_argument", f"unknown source {source!r}", 400)
        if body.get("fusion_sources") and source != "fusion":
            return _error(
                "invalid_argument", 'fusion_sources is only allowed with source "fusion"', 400
            )
        answer = next((a for a in self.answers if a.trigger.lower() in query.lower()), None)
        elapsed = 42.0
        if answer is None or (source not in ("auto", "fusion") and source != answer.source):
            result = {
                "result": "No source could answer this question.",
                "source_used": "none",
                "fallback": False,
                "parts": [],
                "condition": None,
                "sources": [{"name": "rag", "status": "empty", "ms": 3.0}],
                "citations": [],
                "elapsed_ms": elapsed,
                "spoken": "",
                "conversation_id": body.get("conversation_id"),
            }
            self.failed += 1
        else:
            result = {
                "result": answer.result,
                "source_used": answer.source,
                "fallback": False,
                "parts": [{"query": query, "source_used": answer.source, "result": answer.result}],
                "condition": None,
                "sources": [{"name": answer.source, "status": "ok", "ms": 12.0}],
                "citations": answer.citations,
                "elapsed_ms": elapsed,
                "spoken": answer.spoken or answer.result,
                "conversation_id": body.get("conversation_id"),
            }
        self.total += 1
        self.latency_total += elapsed
        self.last_source = result["source_used"]
        self.last_query_at = time.time()
        self.by_source[result["source_used"]] = self.by_source.get(result["source_used"], 0) + 1
        return web.json_response(result)

    async def _remember(self, request: web.Request) -> web.Response:
        body = request["body"]
        if not isinstance(body, dict) or not str(body.get("content", "")).strip():
            return _error("invalid_argument", "content is required", 400)
        now = "2026-01-01T08:00:00+00:00"
        memory = {
            "id": f"mem-{len(self.memories) + 1}",
            "content": body["content"],
            "tags": list(body.get("tags") or []),
            "status": "Unconsolidated",
            "created_at": now,
            "updated_at": now,
        }
        self.memories.append(memory)
        return web.json_response(memory, status=201)

    async def _recall(self, request: web.Request) -> web.Response:
        body = request["body"] or {}
        words = str(body.get("query", "")).lower().split()
        tags = {t.strip().lower() for t in str(body.get("tags") or "").split(",") if t.strip()}
        hits = [
            m
            for m in reversed(self.memories)
            if (not words or any(w in m["content"].lower() for w in words))
            and (not tags or tags & {t.lower() for t in m["tags"]})
        ]
        limit = int(body.get("limit") or 10)
        return web.json_response(
            {"results": hits[:limit], "truncated": len(hits) > limit, "query": body.get("query")}
        )

    async def _list(self, request: web.Request) -> web.Response:
        return web.json_response(
            {
                "loaded": list(self.databases),
                "registered": [
                    {"db": name, "createAt": "2026-01-01T00:00:00Z"} for name in self.databases
                ],
            }
        )

    async def _reindex(self, request: web.Request) -> web.Response:
        db = request.match_info["db"]
        if db not in self.databases:
            return _error("invalid_argument", f'"{db}" not exist', 404)
        self.reindexed.append(db)
        return web.json_response({"db": db, "files": 3, "chunks": self.databases[db]})

    async def _chat(self, request: web.Request) -> web.Response:
        if not self.model_loaded:
            return _error("unavailable", "no model is loaded", 503)
        prompt = request["body"]["messages"][-1]["content"]
        answer = prompt.split("Answer: ", 1)[1]
        return web.json_response(
            {
                "object": "chat.completion",
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": f"In short: {answer}"},
                        "finish_reason": "stop",
                    }
                ],
            }
        )
