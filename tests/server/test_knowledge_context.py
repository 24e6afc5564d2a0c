"""Context packs: best evidence from memories and databases, cut to a budget, cited."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from mnemolis.tools import call_tool

from .knowledge_helpers import core_of, store_of, write_docs

Client = Callable[..., Any]


async def setup(make_client: Client, tmp_path: Path) -> Any:
    docs = write_docs(tmp_path / "roots" / "house")
    (docs / "boiler-long.md").write_text(
        "# Boiler service\n\n" + "The boiler service is due every October. " * 60 + "\n"
    )
    client = await make_client(rag={"roots": [str(tmp_path / "roots")], "watch": False})
    resp = await client.post("/api/rag", json={"name": "house", "path": str(docs)})
    assert resp.status == 201
    await store_of(client).wait_idle()
    resp = await client.post(
        "/api/memories", json={"content": "Boiler engineer: call Sam on 0123 456", "tags": "boiler"}
    )
    assert resp.status == 201
    return client


async def test_context_pack_mixes_sources_with_citations(
    make_client: Client, tmp_path: Path
) -> None:
    client = await setup(make_client, tmp_path)
    resp = await client.post("/api/context-pack", json={"query": "boiler", "budget_chars": 20000})
    pack = await resp.json()
    assert resp.status == 200, pack
    kinds = {p["kind"] for p in pack["pieces"]}
    assert kinds == {"memory", "document"}
    for piece in pack["pieces"]:
        cite = piece["citation"]
        assert cite["source"] in ("memory", "rag") and cite["title"] and cite["ref"]
        assert piece["truncated"] is False
    refs = [p["citation"]["ref"] for p in pack["pieces"]]
    assert any(r.endswith("boiler.html") for r in refs)
    assert any(r.startswith("memory:") for r in refs)
    assert pack["used_chars"] == sum(len(p["text"]) for p in pack["pieces"])
    assert pack["truncated"] is False


async def test_context_pack_respects_the_budget(make_client: Client, tmp_path: Path) -> None:
    client = await setup(make_client, tmp_path)
    resp = await client.post(
        "/api/context-pack", json={"query": "boiler service", "budget_chars": 300}
    )
    pack = await resp.json()
    assert pack["used_chars"] <= 300
    assert sum(len(p["text"]) for p in pack["pieces"]) <= 300
    assert pack["truncated"] is True
    assert pack["pieces"][-1]["truncated"] is True
    res = await call_tool(
        core_of(client), "context_pack", {"query": "boiler service", "budget_chars": 300}, "read"
    )
    assert not res.is_error
    assert res.structured["used_chars"] <= 300
    assert "[1]" in res.text


async def test_context_pack_rejects_bad_input(make_client: Client) -> None:
    client = await make_client()
    for body in ({}, {"query": ""}, {"query": "x", "budget_chars": 10}, {"query": "x" * 5000}):
        resp = await client.post("/api/context-pack", json=body)
        assert resp.status == 400, body
        assert (await resp.json())["error"]["code"] == "invalid_argument"


async def test_context_pack_puts_the_households_evidence_before_mnemolis_docs(
    make_client: Client, tmp_path: Path
) -> None:
    """Mnemolis's docs mention boilers in their examples: they never come first."""
    client = await setup(make_client, tmp_path)
    resp = await client.post(
        "/api/context-pack", json={"query": "how do I reset the boiler?", "budget_chars": 20000}
    )
    pack = await resp.json()
    assert resp.status == 200, pack
    dbs = [p["citation"].get("db") for p in pack["pieces"] if p["kind"] == "document"]
    assert dbs and dbs[0] == "house", dbs
    if "mnemolis-docs" in dbs:
        first = dbs.index("mnemolis-docs")
        assert all(db == "mnemolis-docs" for db in dbs[first:]), dbs
