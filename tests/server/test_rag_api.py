"""Document databases over REST, MCP tools and the router: the Kura contract."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mnemolis.tools import call_tool

from .knowledge_helpers import StandInModel, core_of, sources_of, store_of, write_docs

Client = Callable[..., Any]


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    return write_docs(tmp_path / "roots" / "house")


async def rag_client(make_client: Client, tmp_path: Path, **extra: Any) -> Any:
    return await make_client(rag={"roots": [str(tmp_path / "roots")], "watch": False}, **extra)


async def register(client: Any, name: str, path: Path | str, **headers: str) -> Any:
    return await client.post("/api/rag", json={"name": name, "path": str(path)}, headers=headers)


async def registered(client: Any, docs: Path, name: str = "house") -> None:
    resp = await register(client, name, docs)
    assert resp.status == 201, await resp.text()
    await store_of(client).wait_idle()


async def test_fresh_server_lists_bundled_docs_in_kura_shape(make_client: Client) -> None:
    client = await make_client()
    resp = await client.get("/api/list")
    assert resp.status == 200
    body = await resp.json()
    assert set(body) == {"loaded", "registered"}
    assert body["loaded"] == ["mnemolis-docs"]
    assert [set(r) for r in body["registered"]] == [{"db", "createAt"}]
    assert body["registered"][0]["db"] == "mnemolis-docs"
    status = await (await client.get("/api/rag/mnemolis-docs")).json()
    assert status["readonly"] is True
    assert status["files_indexed"] >= 3
    assert status["embedder"]["name"] == "hashing-fallback"


async def test_fresh_server_answers_connect_claude_desktop(make_client: Client) -> None:
    client = await make_client()
    resp = await client.post("/search", json={"query": "how do I connect Claude Desktop?"})
    body = await resp.json()
    assert resp.status == 200, body
    assert body["source_used"] == "rag"
    assert "claude_desktop_config.json" in body["result"]
    refs = [c.get("ref", "") for c in body["citations"]]
    # Without the embedding model (tests run without it) the words alone tie between the
    # README's client list and the connect page; the quoted passage names the config file.
    assert refs and "bundled_docs" in refs[0], refs
    stats = await (await client.get("/api/stats")).json()
    assert stats["documents_indexed"] >= 3


async def test_bundled_docs_removal_survives_restart(make_client: Client) -> None:
    client = await make_client()
    resp = await client.delete("/api/rag/mnemolis-docs")
    assert resp.status == 200
    assert (await (await client.get("/api/list")).json())["loaded"] == []
    again = await make_client()  # same data dir, new process-equivalent
    assert (await (await again.get("/api/list")).json()) == {"loaded": [], "registered": []}


async def test_register_index_search_and_status(
    make_client: Client, tmp_path: Path, docs: Path
) -> None:
    client = await rag_client(make_client, tmp_path)
    (docs / "broken.pdf").write_bytes(b"%PDF-1.4 truncated nonsense")
    await registered(client, docs)
    body = await (await client.get("/api/list")).json()
    assert body["loaded"] == ["house", "mnemolis-docs"]
    status = await (await client.get("/api/rag/house")).json()
    assert status["files_indexed"] == 3
    assert status["files_failed"] == 1
    assert status["failures"][0]["path"] == "broken.pdf"
    assert "PDF" in status["failures"][0]["error"]
    assert status["last_update"] is not None
    assert status["path"] == str(docs.resolve())
    listing = await (await client.get("/api/rag")).json()
    assert {d["db"] for d in listing["databases"]} == {"house", "mnemolis-docs"}

    resp = await client.post("/api/rag/house/search", json={"q": "red button", "mode": "keyword"})
    result = await resp.json()
    assert list(result) == ["keyword"]
    group = result["keyword"][0]
    assert group["source"] == str(docs.resolve() / "boiler.html")
    assert group["matches"][0]["chunk"] >= 0
    assert "red button" in group["matches"][0]["content"]
    # Script text never reaches the index.
    resp = await client.post("/api/rag/house/search", json={"q": "scriptword", "mode": "keyword"})
    assert await resp.json() == {}


@pytest.mark.parametrize("mode", ["keyword", "semantic", "hybrid"])
async def test_every_mode_finds_the_passage(
    make_client: Client, tmp_path: Path, docs: Path, mode: str
) -> None:
    client = await rag_client(make_client, tmp_path)
    await registered(client, docs)
    result = await store_of(client).search_rag("house", "guest wifi network name", 5, mode)
    assert list(result) == [mode]
    assert sources_of(result)[0] == "wifi.txt"


async def test_search_rag_argument_rules(make_client: Client, tmp_path: Path, docs: Path) -> None:
    client = await rag_client(make_client, tmp_path)
    for i in range(15):
        (docs / f"tomato-{i}.md").write_text(f"# Tomato {i}\n\nTomato note number {i}.\n")
    await registered(client, docs)
    core = core_of(client)

    async def tool(args: dict[str, Any]) -> Any:
        return await call_tool(core, "search_rag", args, "read")

    def count(res: Any) -> int:
        assert not res.is_error, res.text
        return sum(len(g["matches"]) for groups in res.structured.values() for g in groups)

    # limit: default 10; 1..100 honoured; anything else becomes 10.
    assert count(await tool({"db": "house", "q": "tomato", "mode": "keyword"})) == 10
    assert count(await tool({"db": "house", "q": "tomato", "mode": "keyword", "limit": 3})) == 3
    for bad in (0, -1, 101, 1000, "abc", None, 2.5, True):
        res = await tool({"db": "house", "q": "tomato", "mode": "keyword", "limit": bad})
        assert count(res) == 10, bad
    assert count(await tool({"db": "house", "q": "tomato", "limit": "4", "mode": "keyword"})) == 4
    # mode is case-insensitive and names the result key.
    res = await tool({"db": "house", "q": "tomato", "mode": "KeyWord"})
    assert list(res.structured) == ["keyword"]
    res = await tool({"db": "house", "q": "tomato"})
    assert list(res.structured) == ["hybrid"]
    res = await tool({"db": "house", "q": "tomato", "mode": "fuzzy"})
    assert res.is_error and "mode" in res.text
    # db and q are trimmed and required.
    res = await tool({"db": "  house ", "q": "   red button  ", "mode": "keyword"})
    assert sources_of(res.structured) == ["boiler.html"]
    for args in ({"q": "x"}, {"db": "house"}, {"db": "house", "q": "   "}, {"db": " ", "q": "x"}):
        res = await tool(args)
        assert res.is_error and res.text.startswith("invalid argument"), (args, res.text)
    # unknown db and no match.
    res = await tool({"db": "nope", "q": "x"})
    assert res.is_error and res.text == 'invalid argument: "nope" not exist'
    res = await tool({"db": "house", "q": "zzzqqq", "mode": "keyword"})
    assert not res.is_error and res.structured == {} and res.text.strip() == "{}"
    # REST twin: same rules, error in the envelope.
    resp = await client.post("/api/rag/nope/search", json={"q": "x"})
    assert resp.status == 400
    assert (await resp.json())["error"]["message"] == 'invalid argument: "nope" not exist'
    resp = await client.post("/api/rag/house/search", json={"q": "tomato", "limit": 500})
    assert sum(len(g["matches"]) for g in (await resp.json())["hybrid"]) == 10


async def test_list_rag_tool_matches_rest(make_client: Client, tmp_path: Path, docs: Path) -> None:
    client = await rag_client(make_client, tmp_path)
    await registered(client, docs)
    res = await call_tool(core_of(client), "list_rag", {}, "read")
    assert not res.is_error
    assert res.structured == await (await client.get("/api/list")).json()


@pytest.mark.parametrize(
    ("name", "path_of", "fragment"),
    [
        ("Bad Name", lambda t: t / "roots" / "house", "invalid database name"),
        ("x" * 65, lambda t: t / "roots" / "house", "invalid database name"),
        ("ok", lambda t: str(t / "roots" / "house") + "/.." * 40 + "/etc", "outside"),
        ("ok", lambda t: t / "roots" / "link-to-etc", "outside"),
        ("ok", lambda t: t / "roots" / "fifo", "not a folder"),
        ("ok", lambda t: t / "roots" / "missing", "does not exist"),
        ("ok", lambda t: t / "roots" / "house" / "garden.md", "not a folder"),
        ("ok", lambda t: Path("/etc"), "outside"),
        ("ok", lambda t: "relative" + "/.." * 40 + "/etc", "must be absolute"),
    ],
)
async def test_register_rejects_bad_names_and_escapes(
    make_client: Client, tmp_path: Path, docs: Path, name: str, path_of: Any, fragment: str
) -> None:
    (tmp_path / "roots" / "link-to-etc").symlink_to("/etc")
    os.mkfifo(tmp_path / "roots" / "fifo")
    client = await rag_client(make_client, tmp_path)
    resp = await register(client, name, path_of(tmp_path))
    body = await resp.json()
    assert resp.status == 400, body
    assert body["error"]["code"] == "invalid_argument"
    assert fragment in body["error"]["message"]
    assert "Traceback" not in body["error"]["message"]
    assert (await (await client.get("/api/list")).json())["loaded"] == ["mnemolis-docs"]


async def test_register_twice_and_malformed_body(
    make_client: Client, tmp_path: Path, docs: Path
) -> None:
    client = await rag_client(make_client, tmp_path)
    await registered(client, docs)
    resp = await register(client, "house", docs)
    assert resp.status == 400 and "already exists" in (await resp.json())["error"]["message"]
    resp = await client.post("/api/rag", json={"name": "x"})
    assert resp.status == 400 and "path is required" in (await resp.json())["error"]["message"]
    resp = await client.post("/api/rag", data=b"{not json", headers={"Content-Type": "text/json"})
    assert resp.status == 400
    resp = await client.delete("/api/rag/never-registered")
    assert resp.status == 404
    resp = await client.get("/api/rag/never-registered")
    assert resp.status == 404


async def test_indexing_skips_escaping_symlinks_and_special_files(
    make_client: Client, tmp_path: Path, docs: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("the secret word is pineapple\n")
    (docs / "leak.txt").symlink_to(outside / "secret.txt")
    (docs / "leakdir").symlink_to(outside, target_is_directory=True)
    (docs / "inside-link.txt").symlink_to(docs / "notes" / "wifi.txt")
    os.mkfifo(docs / "pipe.txt")
    (docs / ".hidden.md").write_text("pineapple hidden\n")
    client = await rag_client(make_client, tmp_path)
    await registered(client, docs)
    store = store_of(client)
    assert await store.search_rag("house", "pineapple", 10, "keyword") == {}
    found = await store.search_rag("house", "Meadowlark", 10, "keyword")
    assert sorted(sources_of(found)) == ["inside-link.txt", "wifi.txt"]
    status = await store.status("house")
    assert status["files_failed"] == 0


async def test_reindex_incremental_and_remove(
    make_client: Client, tmp_path: Path, docs: Path
) -> None:
    client = await rag_client(make_client, tmp_path)
    await registered(client, docs)
    store = store_of(client)
    db = store.databases["house"]
    # Unchanged files are not re-read: a second scan indexes nothing.
    import threading

    report = await __import__("asyncio").to_thread(db.scan, threading.Event())
    assert (report.indexed, report.unchanged) == (0, 3)
    # Same content, new mtime: hashed, not re-chunked.
    os.utime(docs / "garden.md", ns=(1, 1))
    report = await __import__("asyncio").to_thread(db.scan, threading.Event())
    assert (report.indexed, report.unchanged) == (0, 3)
    resp = await client.post("/api/rag/house/reindex")
    assert resp.status == 202
    await store.wait_idle()
    status = await (await client.get("/api/rag/house")).json()
    assert status["files_indexed"] == 3 and status["indexing"] is False
    data_dir = tmp_path / "data" / "rag" / "house"
    assert (data_dir / "data.db").exists()
    resp = await client.delete("/api/rag/house")
    assert resp.status == 200
    assert not data_dir.exists()
    assert (docs / "garden.md").exists()  # the folder itself is never touched
    assert (await (await client.get("/api/list")).json())["loaded"] == ["mnemolis-docs"]


async def test_model_change_reembeds(make_client: Client, tmp_path: Path, docs: Path) -> None:
    from mnemolis.knowledge.vectors import HashingEmbedder

    client = await rag_client(make_client, tmp_path)
    await registered(client, docs)
    store = store_of(client)

    class Wider(HashingEmbedder):
        name = "test-wider"

    core_of(client).services.embedder = Wider(dim=64)
    store.publish(core_of(client).services)
    first = await store.search_rag("house", "guest wifi network", 5, "semantic")
    await store.wait_idle()
    status = await store.status("house")
    assert status["embedder"] == {"name": "test-wider", "dim": 64, "vectors": status["chunks"]}
    again = await store.search_rag("house", "guest wifi network", 5, "semantic")
    assert sources_of(again)[0] == "wifi.txt"
    assert first in ({}, again)


async def test_chunks_indexed_while_the_model_loads_get_its_vectors(
    make_client: Client, tmp_path: Path, docs: Path
) -> None:
    """A file edited while the server was down is indexed at start, before the model has
    loaded: its chunks wait for the model (the fallback never replaces a model's
    vectors), and the model embeds them once it is back, though every other vector
    already carries its name. Until then the edited file is found by its words alone."""
    client = await rag_client(make_client, tmp_path, llm={"embedding_model": "auto"})
    core, store = core_of(client), store_of(client)
    model = StandInModel()
    core.services.embedder = model
    await registered(client, docs)
    await store.search_rag("house", "guest wifi network", 5, "semantic")
    await store.wait_idle()
    status = await store.status("house")
    assert status["embedder"] == {"name": "test-model", "dim": 64, "vectors": status["chunks"]}

    core.services.embedder = None  # a restart: the model is not loaded yet
    (docs / "garden.md").write_text("# Garden\n\nThe hose reel hangs by the shed.\n")
    store.documents.catch_up_jobs()  # the start-up scan: changed files only
    await store.wait_idle()
    status = await store.status("house")
    waiting = status["chunks"] - status["embedder"]["vectors"]
    assert status["embedder"]["name"] == "test-model" and waiting == 1  # the new garden note

    core.services.embedder = model  # the model has loaded
    found = await store.search_rag("house", "hose reel shed", 5, "semantic")
    await store.wait_idle()
    status = await store.status("house")
    assert status["embedder"] == {"name": "test-model", "dim": 64, "vectors": status["chunks"]}
    found = await store.search_rag("house", "hose reel shed", 5, "semantic")
    assert sources_of(found)[0] == "garden.md"


async def test_read_key_cannot_write(make_client: Client, tmp_path: Path, docs: Path) -> None:
    client = await rag_client(make_client, tmp_path, api_key="full-key", read_api_key="read-key")
    read = {"X-API-Key": "read-key"}
    full = {"X-API-Key": "full-key"}
    assert (await register(client, "house", docs, **read)).status == 403
    assert (await register(client, "house", docs, **full)).status == 201
    await store_of(client).wait_idle()
    assert (await client.get("/api/list", headers=read)).status == 200
    resp = await client.post("/api/rag/house/search", json={"q": "boiler"}, headers=read)
    assert resp.status == 200
    assert (await client.post("/api/rag/house/reindex", headers=read)).status == 403
    assert (await client.delete("/api/rag/house", headers=read)).status == 403
    bundle = {"sources": [str(docs / "boiler.html")]}
    assert (await client.post("/api/source-bundle", json=bundle, headers=read)).status == 403
    resp = await client.post("/api/source-bundle", json=bundle, headers=full)
    assert resp.status == 200
    assert "red button" in (await resp.json())["files"][0]["text"]
    assert (await client.get("/api/list")).status == 401
    core = core_of(client)
    res = await call_tool(core, "source_bundle", bundle, "read")
    assert res.is_error and "full API key" in res.text
    res = await call_tool(core, "source_bundle", bundle, "write")
    assert not res.is_error and "red button" in res.text


async def test_source_bundle_refuses_files_outside_databases(
    make_client: Client, tmp_path: Path, docs: Path
) -> None:
    client = await rag_client(make_client, tmp_path)
    await registered(client, docs)
    outside = tmp_path / "roots" / "other.txt"
    outside.write_text("not in a database")
    (docs / "escape.txt").symlink_to(outside)
    cases = {
        "/etc/passwd": 403,
        str(docs / ".." / "other.txt"): 403,
        str(docs / "escape.txt"): 403,
        str(docs / "missing.txt"): 404,
        "relative/path.txt": 400,
    }
    for ref, status in cases.items():
        resp = await client.post("/api/source-bundle", json={"sources": [ref]})
        body = await resp.json()
        assert resp.status == status, (ref, body)
        assert "Traceback" not in body["error"]["message"]
    # A citation ref from a search result works, with or without a fragment.
    ref = str(docs.resolve() / "garden.md")
    resp = await client.post("/api/source-bundle", json={"sources": [ref + "#chunk=1", ref]})
    files = (await resp.json())["files"]
    assert len(files) == 1 and files[0]["db"] == "house" and "tomatoes" in files[0]["text"]
    assert files[0]["truncated"] is False
    # Memory citations from a context pack resolve too.
    mem = await (await client.post("/api/memories", json={"content": "Spare fuse: kitchen"})).json()
    resp = await client.post("/api/source-bundle", json={"sources": [f"memory:{mem['id']}"]})
    assert (await resp.json())["files"][0]["text"] == "Spare fuse: kitchen"
    resp = await client.post("/api/source-bundle", json={"sources": ["memory:nope"]})
    assert resp.status == 404


async def test_openapi_documents_knowledge_routes(make_client: Client) -> None:
    client = await make_client()
    spec = await (await client.get("/openapi.json")).json()
    for path in (
        "/api/list",
        "/api/rag",
        "/api/rag/{db}",
        "/api/rag/{db}/search",
        "/api/rag/{db}/reindex",
        "/api/memories",
        "/api/memories/{id}",
        "/api/memories/search",
        "/api/context-pack",
        "/api/source-bundle",
    ):
        assert path in spec["paths"], path
    assert "requestBody" in spec["paths"]["/api/rag"]["post"]


async def test_removing_a_database_interrupts_its_reembedding(
    make_client: Client, tmp_path: Path
) -> None:
    import asyncio

    from mnemolis.knowledge.vectors import HashingEmbedder

    folder = tmp_path / "roots" / "big"
    folder.mkdir(parents=True)
    for f in range(30):
        sections = [f"## Part {s}\n\nNote {f}-{s} about the heating schedule." for s in range(20)]
        (folder / f"n{f}.md").write_text("# Notes\n\n" + "\n\n".join(sections))
    client = await rag_client(make_client, tmp_path)
    await registered(client, folder, "big")
    store = store_of(client)

    class SlowModel:
        """An async-only embedder that takes its time, like a model on a small CPU."""

        name = "slow-model"
        dim = 16

        def __init__(self) -> None:
            self.inner = HashingEmbedder(dim=16)
            self.calls = 0

        async def embed(self, texts: list[str]) -> list[list[float]]:
            self.calls += 1
            await asyncio.sleep(0.2)
            return await self.inner.embed(texts)

    model = SlowModel()
    core_of(client).services.embedder = model
    await store.search_rag("big", "heating", 5, "semantic")  # starts re-embedding

    async def under_way() -> bool:
        emb = (await store.status("big"))["embedder"]
        return bool(emb["name"] == "slow-model" and emb["vectors"] > 0)

    from .knowledge_helpers import wait_for

    await wait_for(under_way, 30, "re-embedding under way")
    assert (await store.status("big"))["embedder"]["vectors"] < 600
    before = model.calls
    resp = await asyncio.wait_for(client.delete("/api/rag/big"), 30)
    assert resp.status == 200
    # Stopped after the batch in flight (600 chunks would take 19 batches of 32).
    assert model.calls - before <= 2, (before, model.calls)
    await store.wait_idle()
    assert model.calls - before <= 2
    assert "big" not in (await (await client.get("/api/list")).json())["loaded"]
    # The worker is free again: a new database indexes and answers.
    docs = write_docs(tmp_path / "roots" / "house")
    await registered(client, docs)
    found = await store.search_rag("house", "Meadowlark", 5, "keyword")
    assert sources_of(found) == ["wifi.txt"]


async def test_sources_list_reports_the_rag_databases(
    make_client: Client, tmp_path: Path, docs: Path
) -> None:
    client = await rag_client(make_client, tmp_path)
    await registered(client, docs)
    body = await (await client.get("/api/sources")).json()
    rag = next(s for s in body["sources"] if s["name"] == "rag")
    assert rag["configured"] is True and rag["healthy"] is True
    assert rag["last_error"] is None
    assert sorted(rag["detail"]["databases"]) == ["house", "mnemolis-docs"]
    assert rag["detail"]["failed"] == []


async def test_a_new_document_answers_at_once_despite_the_cache(
    make_client: Client, tmp_path: Path, docs: Path
) -> None:
    """'Nothing found' is cached until the index changes, not for the whole lifetime."""
    client = await rag_client(make_client, tmp_path)
    await registered(client, docs)
    ask = {"query": "how do I descale the kettle?", "source": "rag"}
    first = await (await client.post("/search", json=ask)).json()
    again = await (await client.post("/search", json=ask)).json()
    assert first["sources"][0]["status"] == "empty" and not first["sources"][0]["cached"]
    assert again["sources"][0]["status"] == "empty" and again["sources"][0]["cached"]
    (docs / "kettle.md").write_text(
        "# Kettle\n\nDescale the kettle with vinegar once a month.\n", encoding="utf-8"
    )
    resp = await client.post("/api/rag/house/reindex")
    assert resp.status == 202
    await store_of(client).wait_idle()
    fresh = await (await client.post("/search", json=ask)).json()
    assert fresh["source_used"] == "rag" and not fresh["sources"][0]["cached"]
    assert "vinegar" in fresh["result"]


async def test_small_databases_are_searched_on_the_loop_once_loaded(
    make_client: Client, tmp_path: Path, docs: Path
) -> None:
    """Vectors current in memory and few: no thread hop; stale or large: a worker thread."""
    client = await rag_client(make_client, tmp_path)
    await registered(client, docs)
    store = store_of(client)
    db = store.databases["house"]
    ask = {"query": "prune roses", "source": "rag"}
    assert (await (await client.post("/search", json=ask)).json())["source_used"] == "rag"
    assert db.small_enough(4000, vectors=False)  # words only (no model): few chunks will do
    assert await store.search_rag("house", "prune roses", 5, "semantic")
    assert db.small_enough(4000)
    assert not db.small_enough(1)
    (docs / "kettle.md").write_text("# Kettle\n\nDescale it monthly.\n", encoding="utf-8")
    assert (await client.post("/api/rag/house/reindex")).status == 202
    await store_of(client).wait_idle()
    assert not db.small_enough(4000)  # the index moved on: vectors reload on a thread
    ask = {"query": "descale the kettle", "source": "rag"}
    body = await (await client.post("/search", json=ask)).json()
    assert "monthly" in body["result"]
    assert await store.search_rag("house", "descale the kettle", 5, "semantic")
    assert db.small_enough(4000)


async def test_a_database_waiting_for_its_first_scan_says_indexing(
    make_client: Client, tmp_path: Path, docs: Path
) -> None:
    """The web UI showed "ready" with no files while the worker was busy elsewhere."""
    import asyncio
    import threading

    client = await rag_client(make_client, tmp_path)
    store = store_of(client)
    await store.wait_idle()
    busy = threading.Event()
    store.worker.submit(lambda: busy.wait(30))  # the one indexing worker is busy elsewhere
    try:
        resp = await register(client, "house", docs)
        assert resp.status == 201, await resp.text()
        status = await (await client.get("/api/rag/house")).json()
        assert status["indexing"] is True, status
        assert status["files_indexed"] == 0
    finally:
        busy.set()
    await store.wait_idle()
    for _ in range(100):
        status = await (await client.get("/api/rag/house")).json()
        if not status["indexing"]:
            break
        await asyncio.sleep(0.05)
    assert status["indexing"] is False and status["files_indexed"] > 0, status
