"""Async client for the Mnemolis server's REST API (the integration's only link to it)."""

from __future__ import annotations

import asyncio
import socket
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import aiohttp
from yarl import URL

REQUEST_TIMEOUT = 15.0
# The server answers every /search within its routing deadline (20 s by default)
# and says so; a few seconds more cover the network. Longer is a hung server.
SEARCH_TIMEOUT = 25.0
SEARCH_MARGIN = 5.0
# Slow by nature: a local model writing, or a database being rebuilt.
REPHRASE_TIMEOUT = 60.0
REINDEX_TIMEOUT = 300.0
# The server's query limit when it does not report one (SPEC §4).
DEFAULT_MAX_QUERY_CHARS = 4000


class MnemolisError(Exception):
    """Base of every error the client raises."""


class MnemolisConnectionError(MnemolisError):
    """The server could not be reached, or did not answer in time."""


class MnemolisAuthenticationError(MnemolisError):
    """The server refused the API key (401) or its access level (403)."""

    def __init__(self, message: str, status: int = 401) -> None:
        super().__init__(message)
        self.status = status


class MnemolisHostRefusedError(MnemolisError):
    """The server refused the request's Host or Origin (403): no API key can fix that."""


class MnemolisResponseError(MnemolisError):
    """The server answered with an error or with something that is not its API."""

    def __init__(self, message: str, status: int | None = None, code: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code


@dataclass(slots=True, frozen=True)
class SourceState:
    """One source's health as the server reports it."""

    configured: bool
    healthy: bool
    last_error: str | None = None


@dataclass(slots=True, frozen=True)
class MnemolisStats:
    """What ``GET /api/stats`` returns; the coordinator's data."""

    instance_id: str
    version: str
    uptime_s: float
    queries_total: int
    queries_failed: int
    queries_by_source: dict[str, int]
    latency_ms_avg: float | None
    last_source: str | None
    last_query_at: float | None
    documents_indexed: int
    sources: dict[str, SourceState] = field(default_factory=dict)
    max_query_chars: int = DEFAULT_MAX_QUERY_CHARS
    search_deadline_s: float | None = None
    # Languages the server reads home questions in (HA's grammar); empty from an older one.
    languages: list[str] = field(default_factory=list)
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def from_dict(cls, data: Any) -> MnemolisStats:
        """Parse the stats body; a wrong shape is a response error, not a crash."""
        try:
            queries = data.get("queries") or {}
            sources = {
                str(name): SourceState(
                    configured=bool(info.get("configured")),
                    healthy=bool(info.get("healthy")),
                    last_error=info.get("last_error") or None,
                )
                for name, info in (data.get("sources") or {}).items()
            }
            latency = data.get("latency_ms_avg")
            last_at = data.get("last_query_at")
            limits = data.get("limits") or {}
            if not isinstance(limits, dict):
                limits = {}
            max_query = limits.get("max_query_chars")
            deadline = limits.get("search_deadline_s")
            instance_id = data["instance_id"]
            if not isinstance(instance_id, str) or not instance_id:
                raise TypeError("instance_id must be a non-empty string")
            return cls(
                instance_id=instance_id,
                version=str(data["version"]),
                uptime_s=float(data.get("uptime_s") or 0.0),
                queries_total=int(queries.get("total") or 0),
                queries_failed=int(queries.get("failed") or 0),
                queries_by_source={
                    str(k): int(v) for k, v in (queries.get("by_source") or {}).items()
                },
                latency_ms_avg=float(latency) if latency is not None else None,
                last_source=data.get("last_source") or None,
                last_query_at=float(last_at) if last_at is not None else None,
                documents_indexed=int(data.get("documents_indexed") or 0),
                sources=sources,
                max_query_chars=int(max_query) if max_query else DEFAULT_MAX_QUERY_CHARS,
                search_deadline_s=float(deadline) if deadline else None,
                languages=[str(x) for x in data.get("languages") or [] if isinstance(x, str)],
                raw=dict(data),
            )
        except (AttributeError, KeyError, TypeError, ValueError) as err:
            raise MnemolisResponseError(f"unexpected /api/stats body: {err}") from err


class MnemolisClient:
    """Talks to one Mnemolis server; every call is a REST request with a timeout."""

    def __init__(
        self,
        session: aiohttp.ClientSession,
        url: str,
        api_key: str | None = None,
        *,
        timeout: float = REQUEST_TIMEOUT,
    ) -> None:
        self._session = session
        self.url = URL(normalize_url(url))
        self._api_key = api_key or None
        self._timeout = timeout
        self.search_timeout = SEARCH_TIMEOUT

    async def _request(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        timeout: float | None = None,
    ) -> Any:
        headers = {"Accept": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        target = URL(f"{self.url}{path}")
        try:
            async with asyncio.timeout(timeout or self._timeout):
                async with self._session.request(
                    method, target, json=json, headers=headers, allow_redirects=False
                ) as resp:
                    body = await _read_body(resp)
        except TimeoutError as err:
            raise MnemolisConnectionError(f"timeout talking to {self.url.host}") from err
        except (aiohttp.ClientError, socket.gaierror, OSError) as err:
            raise MnemolisConnectionError(
                f"cannot reach {self.url.host}: {err or type(err).__name__}"
            ) from err
        if resp.status == 403 and _refused_host(body):
            raise MnemolisHostRefusedError(_error_message(body, resp.reason))
        if resp.status in (401, 403):
            raise MnemolisAuthenticationError(_error_message(body, resp.reason), resp.status)
        if resp.status >= 400:
            code = None
            if isinstance(body, dict) and isinstance(body.get("error"), dict):
                code = body["error"].get("code")
            raise MnemolisResponseError(
                f"{method} {path} failed ({resp.status}): {_error_message(body, resp.reason)}",
                resp.status,
                code,
            )
        if body is None:
            raise MnemolisResponseError(f"{method} {path} did not return JSON", resp.status)
        return body

    async def stats(self) -> MnemolisStats:
        """Counters and per-source health for the entities (and the server's deadline)."""
        stats = MnemolisStats.from_dict(await self._request("GET", "/api/stats"))
        if stats.search_deadline_s:
            self.search_timeout = stats.search_deadline_s + SEARCH_MARGIN
        return stats

    async def search(
        self,
        query: str,
        *,
        source: str = "auto",
        fusion_sources: list[str] | None = None,
        conversation_id: str | None = None,
        language: str | None = None,
        area: str | None = None,
    ) -> dict[str, Any]:
        """One routed question (``POST /search``), in a language, heard in an area."""
        payload: dict[str, Any] = {"query": query, "source": source}
        if fusion_sources and source == "fusion":
            payload["fusion_sources"] = list(fusion_sources)
        if conversation_id:
            payload["conversation_id"] = conversation_id[:200]
        if language and language != "*":
            payload["language"] = language
        if area:
            payload["area"] = area
        body = await self._request("POST", "/search", json=payload, timeout=self.search_timeout)
        return _as_dict(body, "/search")

    async def remember(self, content: str, tags: list[str] | None = None) -> dict[str, Any]:
        """Store a memory (needs the full API key)."""
        payload: dict[str, Any] = {"content": content}
        if tags:
            payload["tags"] = list(tags)
        return _as_dict(await self._request("POST", "/api/memories", json=payload), "memory")

    async def recall(
        self, query: str, *, tags: list[str] | None = None, limit: int = 5
    ) -> dict[str, Any]:
        """Search memories; the JSON format of SPEC §7."""
        payload: dict[str, Any] = {"query": query, "limit": limit, "format": "json"}
        if tags:
            payload["tags"] = ",".join(tags)
        body = await self._request("POST", "/api/memories/search", json=payload)
        if isinstance(body, list):
            return {"results": body}
        return _as_dict(body, "/api/memories/search")

    async def databases(self) -> list[str]:
        """Names of the registered document databases (``GET /api/list``)."""
        body = _as_dict(await self._request("GET", "/api/list"), "/api/list")
        names = [
            str(item["db"])
            for item in body.get("registered") or []
            if isinstance(item, dict) and item.get("db")
        ]
        return names or [str(n) for n in body.get("loaded") or []]

    async def reindex(self, database: str) -> dict[str, Any]:
        """Rebuild one database's index (needs the full API key)."""
        path = f"/api/rag/{quote(database, safe='')}/reindex"
        body = await self._request("POST", path, timeout=REINDEX_TIMEOUT)
        return _as_dict(body, "reindex")

    async def rephrase(self, question: str, answer: str, max_sentences: int) -> str:
        """Have the server's local model word an answer for speech."""
        prompt = (
            "Rewrite the answer below for a voice assistant: plain spoken language, "
            f"at most {max_sentences} sentences, no lists, no URLs, keep every fact. "
            f"Question: {question}\nAnswer: {answer}"
        )
        body = await self._request(
            "POST",
            "/v1/chat/completions",
            json={"messages": [{"role": "user", "content": prompt}], "max_tokens": 200},
            timeout=REPHRASE_TIMEOUT,
        )
        try:
            text = body["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError) as err:
            raise MnemolisResponseError("chat completion without a message") from err
        if not isinstance(text, str) or not text.strip():
            raise MnemolisResponseError("chat completion was empty")
        return text.strip()


def normalize_url(url: str) -> str:
    """``host:port`` or a URL with a trailing slash → ``http://host:port``."""
    url = url.strip()
    if "://" not in url:
        url = f"http://{url}"
    return url.rstrip("/")


async def _read_body(resp: aiohttp.ClientResponse) -> Any:
    if resp.content_type != "application/json":
        await resp.read()
        return None
    try:
        return await resp.json()
    except ValueError:
        return None


def _error_message(body: Any, reason: str | None) -> str:
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        message = body["error"].get("message")
        if message:
            return str(message)
    return reason or "no reason given"


def _refused_host(body: Any) -> bool:
    """A 403 about the Host or Origin header rather than the key's access level."""
    message = _error_message(body, None).lower()
    return "api key" not in message and ("host" in message or "origin" in message)


def _as_dict(body: Any, what: str) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise MnemolisResponseError(f"{what} did not return a JSON object")
    return body
