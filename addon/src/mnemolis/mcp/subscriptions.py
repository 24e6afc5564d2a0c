"""``resources/subscribe``: a client hears when a resource it reads changes.

What changes while the server runs is the document databases' status
(``mnemolis://databases``: files indexed, indexing, watching, failures); the
bundled docs pages never do, so subscribing to one is accepted and stays quiet.
While anyone is subscribed, the status is read every POLL_S seconds (the same
status ``GET /api/rag`` gives), and each subscribed session gets
``notifications/resources/updated`` when it differs from the last reading.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import weakref
from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import AnyUrl

_LOGGER = logging.getLogger(__name__)

POLL_S = 2.0

#: Reads a resource's current text (None when it does not exist).
Reader = Callable[[str], Awaitable[str | None]]


class Subscriptions:
    """Who is subscribed to which URI, and the poller telling them of changes."""

    def __init__(self, read: Reader) -> None:
        self._read = read
        self._by_session: weakref.WeakKeyDictionary[Any, set[str]] = weakref.WeakKeyDictionary()
        self._last: dict[str, str | None] = {}
        self._task: asyncio.Task[None] | None = None

    async def subscribe(self, session: Any, uri: str) -> None:
        """Start telling ``session`` when ``uri`` changes (from its state now on)."""
        if uri not in self._last:
            self._last[uri] = await self._read(uri)
        self._by_session.setdefault(session, set()).add(uri)
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._poll(), name="mcp-resource-subscriptions")

    def unsubscribe(self, session: Any, uri: str) -> None:
        """Stop telling ``session`` about ``uri``."""
        self._by_session.get(session, set()).discard(uri)

    def _watched(self) -> set[str]:
        return {uri for uris in list(self._by_session.values()) for uri in uris}

    async def _poll(self) -> None:
        while watched := self._watched():
            await asyncio.sleep(POLL_S)
            for uri in watched:
                try:
                    now = await self._read(uri)
                except Exception as err:  # a status that cannot be read now is no change
                    _LOGGER.debug("resource %s unreadable for subscribers: %s", uri, err)
                    continue
                if now != self._last.get(uri):
                    self._last[uri] = now
                    await self._tell(uri)
        self._last.clear()

    async def _tell(self, uri: str) -> None:
        for session, uris in list(self._by_session.items()):
            if uri not in uris:
                continue
            try:
                await session.send_resource_updated(AnyUrl(uri))
            except Exception:  # the session ended: it hears nothing more
                self._by_session.pop(session, None)

    async def close(self) -> None:
        """Stop polling (server shutdown)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task


def status_text(statuses: list[dict[str, Any]]) -> str:
    """The ``mnemolis://databases`` resource: every database's status, as JSON."""
    return json.dumps({"databases": statuses}, ensure_ascii=False, indent=2, default=str)
