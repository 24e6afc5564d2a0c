"""HTTP plumbing shared by connectors that talk to a remote backend."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import aiohttp
from multidict import CIMultiDictProxy
from yarl import URL

from ..errors import (
    SourceAuthFailed,
    SourceBadResponse,
    SourceError,
    SourceTimeout,
    SourceUnreachable,
)
from .base import Source, SourceHealth

MAX_BODY_BYTES = 8 * 1024 * 1024
HEALTH_TTL_S = 30.0
HEALTH_TIMEOUT_S = 3.0


@dataclass(slots=True)
class Response:
    """A fully read HTTP response."""

    url: str
    status: int
    headers: CIMultiDictProxy[str]
    body: bytes

    def text(self) -> str:
        """The body decoded as the server said (UTF-8 when it did not)."""
        charset = "utf-8"
        ctype = self.headers.get("Content-Type", "")
        for part in ctype.split(";")[1:]:
            key, _, value = part.strip().partition("=")
            if key.lower() == "charset" and value:
                charset = value.strip('"')
        try:
            return self.body.decode(charset, errors="replace")
        except LookupError:
            return self.body.decode("utf-8", errors="replace")

    def json(self, what: str) -> Any:
        """The body as JSON, or SourceBadResponse naming ``what`` was expected."""
        try:
            return json.loads(self.body)
        except (ValueError, UnicodeDecodeError):
            snippet = " ".join(self.text()[:80].split())
            raise SourceBadResponse(
                f"{what} at {self.url} did not return JSON (got {snippet!r})"
            ) from None


def short_url(url: str) -> str:
    """A URL without credentials, query or fragment, for messages (those may hold secrets)."""
    try:
        return str(URL(url).with_user(None).with_query(None).with_fragment(None))
    except (ValueError, TypeError):
        return url.split("?", 1)[0]


async def fetch(
    session: aiohttp.ClientSession,
    method: str,
    url: str,
    *,
    timeout: float,
    params: Mapping[str, str] | list[tuple[str, str]] | None = None,
    headers: Mapping[str, str] | None = None,
    data: Mapping[str, str] | None = None,
    what: str = "backend",
    max_bytes: int = MAX_BODY_BYTES,
) -> Response:
    """One request, fully read; every transport failure becomes a SourceError."""
    shown = short_url(url)
    try:
        async with session.request(
            method,
            url,
            params=params,
            headers=headers,
            data=data,
            timeout=aiohttp.ClientTimeout(total=timeout),
            allow_redirects=True,
        ) as resp:
            chunks: list[bytes] = []
            size = 0
            async for chunk in resp.content.iter_chunked(65536):
                size += len(chunk)
                if size > max_bytes:
                    raise SourceBadResponse(f"{what} at {shown} sent more than {max_bytes} bytes")
                chunks.append(chunk)
            return Response(str(resp.url), resp.status, resp.headers, b"".join(chunks))
    except SourceError:
        raise
    except TimeoutError:
        raise SourceTimeout(f"{what} at {shown} did not answer within {timeout:g} s") from None
    except aiohttp.InvalidURL:
        raise SourceUnreachable(f"{what} URL {shown!r} is not a valid URL") from None
    except aiohttp.ClientConnectorError as err:
        reason = err.os_error.strerror or str(err.os_error)
        raise SourceUnreachable(f"{what} at {shown} is unreachable ({reason})") from None
    except (aiohttp.ClientPayloadError, aiohttp.ClientResponseError) as err:
        raise SourceBadResponse(f"{what} at {shown} sent a broken response ({err})") from None
    except (aiohttp.ServerDisconnectedError, aiohttp.ClientOSError) as err:
        raise SourceUnreachable(f"{what} at {shown} dropped the connection ({err})") from None
    except aiohttp.ClientError as err:
        raise SourceUnreachable(f"{what} at {shown} failed ({type(err).__name__}: {err})") from None


def check_status(resp: Response, what: str) -> None:
    """Raise the SourceError an HTTP error status means."""
    if resp.status < 400:
        return
    shown = short_url(resp.url)
    if resp.status in (401, 403):
        raise SourceAuthFailed(f"{what} at {shown} refused access (HTTP {resp.status})")
    raise SourceBadResponse(f"{what} at {shown} answered HTTP {resp.status}")


def join_url(base: str, path: str) -> str:
    """``base`` (which may carry a path prefix) joined with an absolute-style path."""
    return base.rstrip("/") + "/" + path.lstrip("/")


class HttpSource(Source):
    """A source behind one HTTP backend: fetch helpers and a cached health probe."""

    what: str = "backend"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._probe_at = 0.0
        self._probe_error: str | None = None
        self._probe_lock = asyncio.Lock()

    @property
    def timeout(self) -> float:
        """Per-request timeout: the router's per-source timeout."""
        return float(self.settings.routing.source_timeout)

    async def get(
        self,
        url: str,
        *,
        params: Mapping[str, str] | list[tuple[str, str]] | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float | None = None,
    ) -> Response:
        """GET through the shared session with this source's timeout."""
        return await fetch(
            self.deps.session,
            "GET",
            url,
            timeout=timeout or self.timeout,
            params=params,
            headers=headers,
            what=self.what,
        )

    async def probe(self) -> None:
        """A cheap request proving the backend answers; raises a SourceError."""

    async def health(self) -> SourceHealth:
        """Configured, and the backend answered a probe in the last 30 s."""
        if not self.configured:
            return SourceHealth(self.name, self.enabled, False, False, None)
        async with self._probe_lock:
            if time.monotonic() - self._probe_at > HEALTH_TTL_S:
                try:
                    async with asyncio.timeout(HEALTH_TIMEOUT_S):
                        await self.probe()
                    self._probe_error = None
                except TimeoutError:
                    self._probe_error = (
                        f"timeout: {self.what} did not answer within {HEALTH_TIMEOUT_S:g} s"
                    )
                except SourceError as err:
                    self._probe_error = err.brief
                self._probe_at = time.monotonic()
        error = self._probe_error or self.last_error
        return SourceHealth(
            name=self.name,
            enabled=self.enabled,
            configured=True,
            healthy=self._probe_error is None,
            last_error=error,
            detail=self.health_detail(),
        )

    def health_detail(self) -> dict[str, Any]:
        """Extra facts for ``/api/sources`` (counts, names); override to add."""
        return {}
