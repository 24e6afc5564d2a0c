"""The `/search` call the source and router tests share: one place asserts the 200."""

from __future__ import annotations

from typing import Any


async def search(
    client: Any, query: str, source: str | None = None, *, conversation_id: str | None = None
) -> dict[str, Any]:
    """POST /search on an in-process test client (``source`` None = routed); must be a 200."""
    payload: dict[str, str] = {"query": query}
    if source is not None:
        payload["source"] = source
    if conversation_id is not None:
        payload["conversation_id"] = conversation_id
    resp = await client.post("/search", json=payload)
    assert resp.status == 200, await resp.text()
    body: dict[str, Any] = await resp.json()
    return body
