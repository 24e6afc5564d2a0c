"""The CLI and ``mnemolis mcp`` share the data folder with a running server (issue 15 item 6).

Real processes on one data folder: a ``mnemolis serve``, the ``mnemolis rag``
commands and a ``mnemolis mcp`` stdio process. The server must keep answering,
see what the others wrote at once, and never cache a failed search.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiohttp
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from .conftest import SERVER_BIN, ServerProcess
from .knowledge_helpers import write_docs


def _env(roots: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MNEMOLIS_")}
    env["MNEMOLIS_RAG__ROOTS"] = json.dumps([str(roots)])
    return env


async def rag(data: Path, roots: Path, *args: str) -> str:
    """One ``mnemolis rag`` command as its own process; its stdout, or fail."""

    def run() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(SERVER_BIN), "rag", *args, "--data-dir", str(data)],
            env=_env(roots),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )

    done = await asyncio.to_thread(run)
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done.stdout


async def ask(http: aiohttp.ClientSession, server: ServerProcess, query: str, source: str) -> Any:
    resp = await http.post(f"{server.url}/search", json={"query": query, "source": source})
    assert resp.status == 200, await resp.text()
    return await resp.json()


async def search_rag(http: aiohttp.ClientSession, server: ServerProcess, db: str, q: str) -> Any:
    resp = await http.post(f"{server.url}/api/rag/{db}/search", json={"q": q, "mode": "keyword"})
    body = await resp.json()
    assert resp.status == 200, body
    return body


async def until(check: Callable[[], Any], what: str, timeout: float = 20.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while asyncio.get_running_loop().time() < deadline:
        if await check():
            return
        await asyncio.sleep(0.2)
    raise AssertionError(f"{what} not reached within {timeout} s")


def files_of(result: dict[str, Any]) -> list[str]:
    return [Path(g["source"]).name for groups in result.values() for g in groups]


def assert_answered(body: dict[str, Any], word: str) -> None:
    """The routed answer holds the word, from a source that ran (not a cached failure)."""
    assert word in body["result"], body
    assert all(s["status"] in ("ok", "empty") for s in body["sources"]), body["sources"]


async def test_cli_and_stdio_mcp_beside_a_running_server(
    start_server: Callable[..., ServerProcess], tmp_path: Path
) -> None:
    roots = tmp_path / "roots"
    data = tmp_path / "data"
    docs = write_docs(roots / "house")
    server = start_server("--data-dir", str(data), env=_env(roots))
    timeout = aiohttp.ClientTimeout(total=60)
    async with aiohttp.ClientSession(timeout=timeout) as http:
        # `rag add` in its own process: the server loads the database by itself.
        await rag(data, roots, "add", "house", str(docs))

        async def loaded() -> bool:
            listing = await (await http.get(f"{server.url}/api/list")).json()
            return "house" in listing["loaded"]

        await until(loaded, "CLI-registered database loaded by the server")
        assert files_of(await search_rag(http, server, "house", "Meadowlark")) == ["wifi.txt"]
        question = "what is the guest wifi network called Meadowlark"
        assert_answered(await ask(http, server, question, "rag"), "Meadowlark")

        # `rag reindex` re-opens every database in another process: the server's
        # next searches (one database, and all of them through the router) answer.
        await rag(data, roots, "reindex", "house")
        assert files_of(await search_rag(http, server, "house", "Meadowlark")) == ["wifi.txt"]
        assert files_of(await search_rag(http, server, "mnemolis-docs", "Claude")) != []
        await rag(data, roots, "reindex", "house")
        other = "where does the router sit Meadowlark hallway cupboard"
        for _ in range(2):  # the second one would be a cached failure
            assert_answered(await ask(http, server, other, "rag"), "hallway")

        # `mnemolis mcp` on the same folder, while the server keeps serving.
        memory_q = "where is the spare key kept"
        before = await ask(http, server, memory_q, "memory")
        assert "flowerpot" not in before["result"]
        params = StdioServerParameters(
            command=str(SERVER_BIN), args=["mcp", "--data-dir", str(data)], env=_env(roots)
        )
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            found = await session.call_tool(
                "search_rag", {"db": "house", "q": "Meadowlark", "mode": "keyword"}
            )
            assert not found.isError, found
            stored = await session.call_tool(
                "remember",
                {"content": "The spare key is under the blue flowerpot", "tags": ["key"]},
            )
            assert not stored.isError, stored
            # The server sees the memory the other process wrote at once (no stale cache).
            assert_answered(await ask(http, server, memory_q, "memory"), "flowerpot")
            assert files_of(await search_rag(http, server, "house", "Meadowlark")) == ["wifi.txt"]
            assert_answered(await ask(http, server, question, "rag"), "Meadowlark")

        # Removed and registered again (another folder) from the CLI: the server
        # follows the new registration instead of keeping the old index open.
        cellar = roots / "cellar"
        cellar.mkdir()
        (cellar / "freezer.txt").write_text("The chest freezer in the cellar holds the bread.\n")
        await rag(data, roots, "remove", "house")
        await rag(data, roots, "add", "house", str(cellar))

        async def followed() -> bool:
            resp = await http.post(
                f"{server.url}/api/rag/house/search", json={"q": "freezer", "mode": "keyword"}
            )
            return resp.status == 200 and files_of(await resp.json()) == ["freezer.txt"]

        await until(followed, "re-registered database served from its new folder")
        status = await (await http.get(f"{server.url}/api/rag/house")).json()
        assert status["path"] == str(cellar.resolve()) and status["error"] is None, status
    logs = server.logs()
    assert "SQL logic error" not in logs and "Traceback" not in logs, logs[-4000:]


async def test_server_without_watcher_sees_cli_reindex(
    start_server: Callable[..., ServerProcess], tmp_path: Path
) -> None:
    """The index another process rewrote is what the server answers from, at once."""
    roots = tmp_path / "roots"
    data = tmp_path / "data"
    docs = write_docs(roots / "house")
    await rag(data, roots, "add", "house", str(docs))
    env = {**_env(roots), "MNEMOLIS_RAG__WATCH": "false"}
    server = start_server("--data-dir", str(data), env=env)
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=60)) as http:
        question = "when should the beds be mulched"
        first = await ask(http, server, question, "rag")
        assert "November" not in first["result"]
        (docs / "garden.md").write_text("# Garden\n\nMulch the beds in November.\n")
        await rag(data, roots, "reindex", "house")
        assert_answered(await ask(http, server, question, "rag"), "November")
        hits = await search_rag(http, server, "house", "mulch")
        assert files_of(hits) == ["garden.md"]
    assert "SQL logic error" not in server.logs()


async def test_a_failed_database_search_is_never_cached(
    make_client: Callable[..., Any], tmp_path: Path, monkeypatch: Any
) -> None:
    """One database failing once: that answer is not kept, the next question searches again."""
    import sqlite3

    from mnemolis.knowledge.database import DocumentDatabase

    from .knowledge_helpers import store_of

    docs = write_docs(tmp_path / "roots" / "house")
    client = await make_client(rag={"roots": [str(tmp_path / "roots")], "watch": False})
    assert (await client.post("/api/rag", json={"name": "house", "path": str(docs)})).status == 201
    await store_of(client).wait_idle()
    real = DocumentDatabase.search_keyword
    failures = {"left": 1}

    def flaky(self: DocumentDatabase, query: str, limit: int) -> Any:
        if self.name == "house" and failures["left"]:
            failures["left"] -= 1
            raise sqlite3.OperationalError("disk I/O error")
        return real(self, query, limit)

    monkeypatch.setattr(DocumentDatabase, "search_keyword", flaky)
    question = {"query": "what is the guest wifi network called Meadowlark", "source": "rag"}
    first = await (await client.post("/search", json=question)).json()
    assert "Meadowlark" not in first["result"]
    assert first["sources"][0]["status"] == "error", first["sources"]
    assert "house" in first["sources"][0]["error"]
    second = await (await client.post("/search", json=question)).json()
    assert "Meadowlark" in second["result"], second
    assert second["sources"][0]["cached"] is False
    # One database alone failing is a clear 503, never a 500.
    failures["left"] = 1
    resp = await client.post("/api/rag/house/search", json={"q": "Meadowlark", "mode": "keyword"})
    assert resp.status == 503
    assert "house" in (await resp.json())["error"]["message"]
