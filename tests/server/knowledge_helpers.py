"""Helpers shared by the knowledge-store tests: folders, polling and the core behind a client."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from mnemolis.core import Mnemolis
from mnemolis.knowledge.store import KnowledgeStore
from mnemolis.rest import keys


def core_of(client: Any) -> Mnemolis:
    """The service layer behind an in-process test client."""
    core: Mnemolis = client.server.app[keys.CORE]
    return core


def store_of(client: Any) -> KnowledgeStore:
    """The knowledge store the running app opened."""
    store = core_of(client).services["knowledge"]
    assert isinstance(store, KnowledgeStore)
    return store


def write_docs(folder: Path) -> Path:
    """A small household folder: Markdown, HTML and plain text."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "garden.md").write_text(
        "# Garden\n\n## Watering\n\nWater the tomatoes every morning in July.\n\n"
        "## Pruning\n\nPrune the roses in March, just above an outward bud.\n",
        encoding="utf-8",
    )
    (folder / "boiler.html").write_text(
        "<html><head><title>Boiler</title><script>var hidden = 'scriptword';</script></head>"
        "<body><h1>Boiler manual</h1><p>Reset the boiler by holding the red button for five "
        "seconds.</p><h2>Pressure</h2><p>Keep the pressure gauge between 1 and 1.5 bar.</p>"
        "</body></html>",
        encoding="utf-8",
    )
    sub = folder / "notes"
    sub.mkdir(exist_ok=True)
    (sub / "wifi.txt").write_text(
        "The guest wifi network is called Meadowlark.\n\n"
        "The router sits in the hallway cupboard.\n",
        encoding="utf-8",
    )
    return folder


async def wait_for(
    check: Callable[[], Awaitable[bool]], timeout: float = 15.0, what: str = "condition"
) -> None:
    """Poll ``check`` until it is true; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if await check():
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"{what} not reached within {timeout} s")


def sources_of(result: dict[str, Any]) -> list[str]:
    """File names in a search_rag result, in order."""
    return [Path(group["source"]).name for groups in result.values() for group in groups]
