"""``mnemolis rag …`` and ``mnemolis mcp`` (stdio) opening the databases themselves."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from .conftest import SERVER_BIN, server_env
from .knowledge_helpers import write_docs


def rag(data: Path, roots: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = server_env()
    env["MNEMOLIS_RAG__ROOTS"] = json.dumps([str(roots)])
    return subprocess.run(
        [str(SERVER_BIN), "rag", *args, "--data-dir", str(data)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_rag_commands(tmp_path: Path) -> None:
    roots = tmp_path / "roots"
    docs = write_docs(roots / "house")
    data = tmp_path / "data"
    out = rag(data, roots, "add", "house", str(docs))
    assert out.returncode == 0, out.stderr
    assert "house: 3 file(s)" in out.stdout
    out = rag(data, roots, "list")
    assert "house: 3 file(s)" in out.stdout and "mnemolis-docs" in out.stdout
    assert "mnemolis-docs: 0 file(s)" not in out.stdout  # the bundled docs get indexed too
    out = rag(data, roots, "list", "--json")
    listing = json.loads(out.stdout)
    assert [r["db"] for r in listing["registered"]] == ["house", "mnemolis-docs"]
    out = rag(data, roots, "search", "house", "  red button ", "--limit", "0", "--mode", "KEYWORD")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert list(result) == ["keyword"]
    assert result["keyword"][0]["source"].endswith("boiler.html")
    out = rag(data, roots, "search", "house", "zzqqxx", "--mode", "keyword")
    assert out.returncode == 1 and json.loads(out.stdout) == {}
    out = rag(data, roots, "search", "nope", "x")
    assert out.returncode == 1
    assert out.stderr.strip().endswith('invalid argument: "nope" not exist')
    assert "Traceback" not in out.stderr
    out = rag(data, roots, "add", "etc", "/etc")
    assert out.returncode == 1 and "outside the allowed folders" in out.stderr
    out = rag(data, roots, "add", "Bad!", str(docs))
    assert out.returncode == 1 and "invalid database name" in out.stderr
    (docs / "garden.md").write_text("# Garden\n\nMulch the beds in November.\n")
    out = rag(data, roots, "reindex", "house")
    assert out.returncode == 0 and "house: 3 file(s)" in out.stdout
    out = rag(data, roots, "search", "house", "mulch", "--mode", "keyword")
    assert json.loads(out.stdout)["keyword"][0]["source"].endswith("garden.md")
    out = rag(data, roots, "remove", "house")
    assert out.returncode == 0
    assert not (data / "rag" / "house").exists() and docs.exists()
    out = rag(data, roots, "list", "--json")
    assert [r["db"] for r in json.loads(out.stdout)["registered"]] == ["mnemolis-docs"]


async def test_stdio_mcp_opens_databases_and_skips_broken_ones(tmp_path: Path) -> None:
    roots = tmp_path / "roots"
    data = tmp_path / "data"
    assert rag(data, roots, "add", "house", str(write_docs(roots / "house"))).returncode == 0
    assert rag(data, roots, "add", "attic", str(write_docs(roots / "attic"))).returncode == 0
    (data / "rag" / "attic" / "data.db").write_bytes(b"this is not a sqlite database" * 100)
    for sidecar in ("data.db-wal", "data.db-shm"):
        (data / "rag" / "attic" / sidecar).unlink(missing_ok=True)
    env = server_env()
    env["MNEMOLIS_RAG__ROOTS"] = json.dumps([str(roots)])
    params = StdioServerParameters(
        command=str(SERVER_BIN), args=["mcp", "--data-dir", str(data)], env=env
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = {t.name: t for t in (await session.list_tools()).tools}
        assert {"list_rag", "search_rag", "remember", "recall", "context_pack"} <= set(tools)
        assert tools["search_rag"].annotations is not None
        assert tools["search_rag"].annotations.readOnlyHint is True
        assert tools["remember"].annotations is not None
        assert tools["remember"].annotations.readOnlyHint is False
        listed = await session.call_tool("list_rag", {})
        assert listed.structuredContent is not None
        assert listed.structuredContent["loaded"] == ["house", "mnemolis-docs"]
        assert {r["db"] for r in listed.structuredContent["registered"]} == {
            "attic",
            "house",
            "mnemolis-docs",
        }
        found = await session.call_tool(
            "search_rag", {"db": "house", "q": "Meadowlark", "mode": "keyword"}
        )
        assert not found.isError
        assert found.structuredContent is not None
        assert found.structuredContent["keyword"][0]["source"].endswith("wifi.txt")
        broken = await session.call_tool("search_rag", {"db": "attic", "q": "Meadowlark"})
        assert broken.isError
        missing = await session.call_tool("search_rag", {"db": "cellar", "q": "x"})
        assert missing.isError
        assert missing.content[0].text == 'invalid argument: "cellar" not exist'  # type: ignore[union-attr]


async def test_stdio_memory_and_context_tools_validate(tmp_path: Path) -> None:
    """The official client checks structuredContent against each tool's outputSchema."""
    roots = tmp_path / "roots"
    data = tmp_path / "data"
    docs = write_docs(roots / "house")
    assert rag(data, roots, "add", "house", str(docs)).returncode == 0
    env = server_env()
    env["MNEMOLIS_RAG__ROOTS"] = json.dumps([str(roots)])
    params = StdioServerParameters(
        command=str(SERVER_BIN), args=["mcp", "--data-dir", str(data)], env=env
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        stored = await session.call_tool(
            "remember", {"content": "The boiler pressure should be 1.2 bar", "tags": ["boiler"]}
        )
        assert not stored.isError and stored.structuredContent is not None
        recalled = await session.call_tool("recall", {"query": "boiler pressure"})
        assert not recalled.isError and recalled.structuredContent is not None
        assert recalled.structuredContent["results"][0]["id"] == stored.structuredContent["id"]
        pack = await session.call_tool("context_pack", {"query": "boiler", "budget_chars": 500})
        assert not pack.isError and pack.structuredContent is not None
        assert {p["kind"] for p in pack.structuredContent["pieces"]} == {"memory", "document"}
        bundle = await session.call_tool(
            "source_bundle", {"sources": [str(docs.resolve() / "boiler.html")]}
        )
        assert not bundle.isError and bundle.structuredContent is not None
        assert "red button" in bundle.structuredContent["files"][0]["text"]
        empty = await session.call_tool("search_rag", {"db": "house", "q": "zzqqxx"})
        assert not empty.isError and empty.structuredContent == {}
