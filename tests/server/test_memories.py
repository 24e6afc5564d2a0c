"""Memories (MemorySmith contract): CRUD, filters, plain-text search, modes and formats."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from mnemolis.tools import call_tool

from .knowledge_helpers import StandInModel, core_of

Client = Callable[..., Any]


async def remember(client: Any, content: str, tags: Any = None, status: str | None = None) -> Any:
    body: dict[str, Any] = {"content": content}
    if tags is not None:
        body["tags"] = tags
    if status is not None:
        body["status"] = status
    resp = await client.post("/api/memories", json=body)
    assert resp.status == 201, await resp.text()
    return await resp.json()


async def search(client: Any, **body: Any) -> Any:
    resp = await client.post("/api/memories/search", json={"format": "envelope", **body})
    assert resp.status == 200, await resp.text()
    return await resp.json()


async def test_crud_and_status_lifecycle(make_client: Client) -> None:
    client = await make_client()
    created = await remember(client, "  The bins go out on Tuesday evening. ", ["chores", "Bins"])
    assert created["content"] == "The bins go out on Tuesday evening."
    assert created["tags"] == ["chores", "Bins"]
    assert created["status"] == "Unconsolidated"
    assert created["created_at"] == created["updated_at"]
    mid = created["id"]
    got = await (await client.get(f"/api/memories/{mid}")).json()
    assert got == created
    for status in ("working", "CORE", "Deprecated"):
        resp = await client.patch(f"/api/memories/{mid}", json={"status": status})
        assert resp.status == 200
        assert (await resp.json())["status"] == status.capitalize()
    resp = await client.patch(f"/api/memories/{mid}", json={"content": "Bins: Wednesday now."})
    patched = await resp.json()
    assert patched["content"] == "Bins: Wednesday now." and patched["tags"] == ["chores", "Bins"]
    assert patched["created_at"] == created["created_at"]
    resp = await client.patch(f"/api/memories/{mid}", json={"status": "Archived"})
    assert resp.status == 400 and "Unconsolidated" in (await resp.json())["error"]["message"]
    resp = await client.patch(f"/api/memories/{mid}", json={})
    assert resp.status == 400
    assert (await client.delete(f"/api/memories/{mid}")).status == 200
    assert (await client.get(f"/api/memories/{mid}")).status == 404
    assert (await client.delete(f"/api/memories/{mid}")).status == 404
    assert (await client.patch("/api/memories/nope", json={"status": "Core"})).status == 404


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"content": ""},
        {"content": "   "},
        {"content": 5},
        {"content": "x", "status": "Sleeping"},
        {"content": "x", "tags": [1, 2]},
        {"content": "x", "extra": True},
        {"content": "x" * 20001},
    ],
)
async def test_bad_memories_are_400(make_client: Client, body: dict[str, Any]) -> None:
    client = await make_client()
    resp = await client.post("/api/memories", json=body)
    assert resp.status == 400
    assert (await resp.json())["error"]["code"] == "invalid_argument"


async def test_empty_query_lists_newest_first_with_filters(make_client: Client) -> None:
    client = await make_client()
    first = await remember(client, "Alpha note", ["kind:rule"], "Core")
    second = await remember(client, "Beta note", ["garden"])
    third = await remember(client, "Gamma note", ["KIND:RULE", "garden"], "Working")
    env = await search(client, query="")
    assert [r["id"] for r in env["results"]] == [third["id"], second["id"], first["id"]]
    assert env["truncated"] is False
    # tags: comma-separated, case-insensitive, exact, any-match; kind:rule is a literal tag.
    env = await search(client, query="", tags="Kind:Rule")
    assert [r["id"] for r in env["results"]] == [third["id"], first["id"]]
    env = await search(client, query="", tags="kind")
    assert env["results"] == []
    env = await search(client, query="", tags="kind:rule, garden")
    assert len(env["results"]) == 3
    env = await search(client, query="", tags=["garden"], status="working")
    assert [r["id"] for r in env["results"]] == [third["id"]]
    env = await search(client, query="", limit=2)
    assert len(env["results"]) == 2 and env["truncated"] is True
    listing = await (await client.get("/api/memories?tags=garden&limit=1")).json()
    assert listing["total"] == 2 and len(listing["memories"]) == 1
    assert (await client.get("/api/memories?limit=abc")).status == 400


@pytest.mark.parametrize(
    "query",
    [
        "title:x",
        "a AND b",
        "auth*",
        '"unbalanced',
        "NOT (",
        "NEAR(a b)",
        "col:val OR -x",
        "^start",
        "'single' \"double\"",
        "***",
        "   ",
    ],
)
@pytest.mark.parametrize("mode", ["lexical", "semantic", "hybrid"])
async def test_query_language_is_plain_text(make_client: Client, query: str, mode: str) -> None:
    client = await make_client()
    await remember(client, "title: x marks the auth spot, a and b")
    resp = await client.post(
        "/api/memories/search", json={"query": query, "mode": mode, "format": "envelope"}
    )
    assert resp.status == 200, await resp.text()
    env = await resp.json()
    assert env["schema"] == "mnemolis.retrieval-results.v1"
    assert env["query"] == query.strip()


async def test_literal_words_match(make_client: Client) -> None:
    client = await make_client()
    hit = await remember(client, "Use title:Kitchen for the kitchen lights scene")
    await remember(client, "Unrelated note about the car")
    env = await search(client, query="title:Kitchen", mode="lexical")
    assert [r["id"] for r in env["results"]] == [hit["id"]]
    env = await search(client, query="auth*", mode="lexical")
    assert env["results"] == []


@pytest.mark.parametrize("mode", ["lexical", "semantic", "hybrid"])
async def test_modes_rank_the_relevant_memory_first(make_client: Client, mode: str) -> None:
    client = await make_client()
    await remember(client, "The dog is fed at 7 am and 6 pm")
    target = await remember(client, "The garage door code is 4711", ["security"])
    await remember(client, "Grandma's birthday is on 3 May")
    env = await search(client, query="what is the garage door code?", mode=mode)
    assert env["mode"] == mode
    assert env["results"][0]["id"] == target["id"]
    assert isinstance(env["results"][0]["score"], float)


async def test_formats(make_client: Client) -> None:
    client = await make_client()
    mem = await remember(client, "Water the ferns on Sundays", ["plants"], "Working")
    resp = await client.post("/api/memories/search", json={"query": "ferns"})
    assert resp.status == 200
    assert resp.content_type == "text/markdown"
    text = await resp.text()
    assert mem["id"] in text and "Water the ferns on Sundays" in text and "plants" in text
    resp = await client.post("/api/memories/search", json={"query": "ferns", "format": "JSON"})
    body = await resp.json()
    assert body["results"][0]["id"] == mem["id"] and body["truncated"] is False
    env = await search(client, query="ferns", tags="Plants", status="working")
    assert set(env) >= {"schema", "query", "filters", "results", "truncated"}
    assert env["schema"] == "mnemolis.retrieval-results.v1"
    assert env["filters"] == {"tags": ["Plants"], "status": ["Working"]}
    resp = await client.post("/api/memories/search", json={"query": "x", "format": "xml"})
    assert resp.status == 400
    resp = await client.post("/api/memories/search", json={"query": "x", "mode": "fuzzy"})
    assert resp.status == 400


async def test_remember_and_recall_tools(make_client: Client) -> None:
    client = await make_client()
    core = core_of(client)
    res = await call_tool(core, "remember", {"content": "Filter change: every 3 months"}, "read")
    assert res.is_error and "full API key" in res.text
    res = await call_tool(
        core, "remember", {"content": "Filter change: every 3 months", "tags": "hvac"}, "write"
    )
    assert not res.is_error
    mid = res.structured["id"]
    res = await call_tool(core, "recall", {"query": "filter change"}, "read")
    assert not res.is_error and mid in res.text and res.text.startswith("# Memories")
    assert res.structured["schema"] == "mnemolis.retrieval-results.v1"
    res = await call_tool(core, "recall", {"query": "filter", "format": "json"}, "read")
    assert json.loads(res.text)[0]["id"] == mid
    res = await call_tool(core, "recall", {"query": "filter", "format": "envelope"}, "read")
    assert json.loads(res.text)["results"][0]["id"] == mid
    from mnemolis.tools import find_tool

    remember_tool = find_tool(core, "remember")
    recall_tool = find_tool(core, "recall")
    assert remember_tool is not None and recall_tool is not None
    assert remember_tool.access == "write" and not remember_tool.annotations.read_only
    assert recall_tool.access == "read" and recall_tool.annotations.read_only


async def test_read_key_cannot_write_memories(make_client: Client) -> None:
    client = await make_client(api_key="full-key", read_api_key="read-key")
    read = {"Authorization": "Bearer read-key"}
    full = {"Authorization": "Bearer full-key"}
    resp = await client.post("/api/memories", json={"content": "x"}, headers=read)
    assert resp.status == 403
    resp = await client.post("/api/memories", json={"content": "x"}, headers=full)
    mid = (await resp.json())["id"]
    assert (await client.get(f"/api/memories/{mid}", headers=read)).status == 200
    resp = await client.post("/api/memories/search", json={"query": "x"}, headers=read)
    assert resp.status == 200
    resp = await client.patch(f"/api/memories/{mid}", json={"status": "Core"}, headers=read)
    assert resp.status == 403
    assert (await client.delete(f"/api/memories/{mid}", headers=read)).status == 403
    resp = await client.post("/api/context-pack", json={"query": "x"}, headers=read)
    assert resp.status == 200


async def test_memory_source_answers_through_the_router(make_client: Client) -> None:
    client = await make_client()
    await remember(client, "The spare house key is under the blue flower pot", ["house"])
    await remember(client, "Old key location: mailbox", status="Deprecated")
    resp = await client.post(
        "/search", json={"query": "where is the spare house key?", "source": "memory"}
    )
    body = await resp.json()
    assert body["source_used"] == "memory"
    assert "blue flower pot" in body["result"] and "mailbox" not in body["result"]
    assert body["citations"][0]["ref"].startswith("memory:")
    resp = await client.post(
        "/search", json={"query": "quantum chromodynamics", "source": "memory"}
    )
    body = await resp.json()
    assert body["source_used"] == "none"
    assert body["sources"][0]["status"] == "empty"


async def test_broken_stores_never_stop_the_server(make_client: Client, tmp_path: Any) -> None:
    data = tmp_path / "data"
    (data / "rag").mkdir(parents=True)
    (data / "rag" / "registry.json").write_text("{ this is not json")
    (data / "memories.db").write_bytes(b"definitely not sqlite " * 200)
    client = await make_client()
    listing = await (await client.get("/api/list")).json()
    assert listing["loaded"] == ["mnemolis-docs"]
    assert list((data / "rag").glob("registry.corrupt-*.json"))
    resp = await client.post("/api/memories", json={"content": "x"})
    assert resp.status == 503
    assert "memories.db" in (await resp.json())["error"]["message"]
    ready = await (await client.get("/api/health/readiness")).json()
    assert ready["components"]["knowledge"]["status"] == "degraded"
    resp = await client.post("/search", json={"query": "how do I connect Claude Desktop?"})
    assert (await resp.json())["source_used"] == "rag"


async def test_a_memory_is_recalled_at_once_despite_the_cache(make_client: Client) -> None:
    """'Nothing found' is cached, but a write moves the store on: no stale recall."""
    client = await make_client()
    ask = {"query": "where did I park the bike?", "source": "memory"}
    first = await (await client.post("/search", json=ask)).json()
    again = await (await client.post("/search", json=ask)).json()
    assert first["sources"][0]["status"] == "empty" and not first["sources"][0]["cached"]
    assert again["sources"][0]["status"] == "empty" and again["sources"][0]["cached"]
    memory = await remember(client, "I parked the bike behind the garden shed")
    fresh = await (await client.post("/search", json=ask)).json()
    assert fresh["source_used"] == "memory" and not fresh["sources"][0]["cached"]
    assert "garden shed" in fresh["result"]
    resp = await client.patch(
        f"/api/memories/{memory['id']}", json={"content": "The bike is at work"}
    )
    assert resp.status == 200, await resp.text()
    moved = await (await client.post("/search", json=ask)).json()
    assert "garden shed" not in moved["result"]
    resp = await client.delete(f"/api/memories/{memory['id']}")
    assert resp.status == 200
    gone = await (await client.post("/search", json=ask)).json()
    assert gone["source_used"] == "none" and not gone["sources"][0]["cached"]


async def test_small_recalls_stay_on_the_loop_unless_a_write_is_under_way(
    make_client: Client,
) -> None:
    """Few memories are searched on the event loop; never while a write holds the store."""
    client = await make_client()
    memories = core_of(client).services.knowledge.memories
    created = await remember(client, "The bike pump hangs in the garage")
    assert memories.small_enough(500)
    assert not memories.small_enough(0)  # more memories than the limit: a worker thread
    with memories._lock:  # a write (and its fsync) under way
        assert not memories.small_enough(500)
    resp = await client.delete(f"/api/memories/{created['id']}")
    assert resp.status == 200
    assert memories.small_enough(0)  # the count follows writes and deletes
    found = await search(client, query="bike pump")
    assert found["results"] == []


@pytest.mark.parametrize(("setting", "kept"), [("auto", "test-model"), ("off", "hashing-fallback")])
async def test_the_fallback_never_replaces_a_model_vector(
    make_client: Client, setting: str, kept: str
) -> None:
    """At start-up the memories open before the model has loaded: while a model is
    configured the hashing fallback must not replace a memory's model vector (the model
    would then embed every memory again, and until it had, none would be found by
    meaning). With the model turned off, the fallback's vectors are the ones searched."""
    client = await make_client(llm={"embedding_model": setting})
    core = core_of(client)
    store = core.services.knowledge
    core.services.embedder = StandInModel()
    await remember(client, "The spare key is in the lockbox by the side gate.")
    await store.wait_idle()  # a model's job still running would embed the next one too
    core.services.embedder = None  # a restart: the model is not loaded yet
    await remember(client, "The bins go out on Tuesday evening.")
    store.memory.submit_vectors()
    await store.wait_idle()
    rows = store.memory.memories._db().execute(
        "SELECT m.content, v.embedder FROM memories m JOIN memory_vectors v ON v.memory_id = m.id"
    )
    assert dict(rows.fetchall()) == {
        "The spare key is in the lockbox by the side gate.": kept,
        "The bins go out on Tuesday evening.": "hashing-fallback",
    }


async def test_a_memory_the_model_missed_is_embedded_once_it_is_back(
    make_client: Client,
) -> None:
    """While the model is away, a memory saved or edited keeps no vector (never its old
    text's): once the model is back, under the same name, the next search embeds it,
    and it is found by the meaning of what it now says."""
    client = await make_client(llm={"embedding_model": "auto"})
    core = core_of(client)
    memory = core.services.knowledge.memory
    model = StandInModel()
    core.services.embedder = model
    moved = await remember(client, "The spare key is in the lockbox by the side gate.")
    await search(client, query="spare key", mode="semantic")

    model.gone = True
    await remember(client, "The bins go out on Tuesday evening.")
    resp = await client.patch(
        f"/api/memories/{moved['id']}", json={"content": "The hose reel hangs by the shed."}
    )
    assert resp.status == 200, await resp.text()

    def vectors() -> dict[str, str]:
        rows = memory.memories._db().execute(
            "SELECT m.content, v.embedder FROM memories m "
            "JOIN memory_vectors v ON v.memory_id = m.id"
        )
        return dict(rows.fetchall())

    assert vectors() == {}  # the key's vector said where the key is: gone with the text

    model.gone = False
    await search(client, query="garden hose", mode="semantic")
    await core.services.knowledge.wait_idle()
    assert vectors() == {
        "The hose reel hangs by the shed.": "test-model",
        "The bins go out on Tuesday evening.": "test-model",
    }
    found = await search(client, query="hose reel shed", mode="semantic")
    assert [m["content"] for m in found["results"]][:1] == ["The hose reel hangs by the shed."]
