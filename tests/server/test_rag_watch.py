"""The server's watcher keeps an index current: add, change, rename and delete."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from .knowledge_helpers import sources_of, store_of, wait_for, write_docs

Client = Callable[..., Any]


async def test_watcher_sees_add_change_rename_and_delete(
    make_client: Client, tmp_path: Path
) -> None:
    docs = write_docs(tmp_path / "roots" / "house")
    client = await make_client(rag={"roots": [str(tmp_path / "roots")], "watch": True})
    resp = await client.post("/api/rag", json={"name": "house", "path": str(docs)})
    assert resp.status == 201
    store = store_of(client)
    await store.wait_idle()
    assert (await store.status("house"))["watching"] is True

    async def found(word: str) -> list[str]:
        return sources_of(await store.search_rag("house", word, 10, "keyword"))

    # Added.
    (docs / "heatpump.md").write_text("# Heat pump\n\nThe heat pump defrosts automatically.\n")

    async def added() -> bool:
        return await found("defrosts") == ["heatpump.md"]

    await wait_for(added, what="new file indexed")
    # Changed.
    (docs / "heatpump.md").write_text("# Heat pump\n\nThe heat pump hums quietly at night.\n")

    async def changed() -> bool:
        return await found("hums") == ["heatpump.md"] and await found("defrosts") == []

    await wait_for(changed, what="changed file re-indexed")
    # Renamed.
    (docs / "heatpump.md").rename(docs / "notes" / "heat-pump.md")

    async def renamed() -> bool:
        hits = await store.search_rag("house", "hums", 10, "keyword")
        paths = [g["source"] for groups in hits.values() for g in groups]
        return paths == [str(docs.resolve() / "notes" / "heat-pump.md")]

    await wait_for(renamed, what="rename followed")
    # Deleted (a file, then a whole folder).
    (docs / "notes" / "heat-pump.md").unlink()

    async def deleted() -> bool:
        return await found("hums") == []

    await wait_for(deleted, what="deleted file forgotten")
    for f in (docs / "notes").iterdir():
        f.unlink()
    (docs / "notes").rmdir()

    async def folder_gone() -> bool:
        return (
            await found("Meadowlark") == [] and (await store.status("house"))["files_indexed"] == 2
        )

    await wait_for(folder_gone, what="deleted folder forgotten")
    # A file that cannot be parsed is reported, the rest keeps working.
    (docs / "scan.pdf").write_bytes(b"%PDF-1.7 garbage")

    async def reported() -> bool:
        status = await store.status("house")
        return [f["path"] for f in status["failures"]] == ["scan.pdf"]

    await wait_for(reported, what="parse failure reported")
    assert await found("tomatoes") == ["garden.md"]


async def test_server_picks_up_databases_added_by_the_cli(
    make_client: Client, tmp_path: Path
) -> None:
    from mnemolis.knowledge.store import KnowledgeStore
    from mnemolis.settings import load_settings

    docs = write_docs(tmp_path / "roots" / "house")
    client = await make_client(rag={"roots": [str(tmp_path / "roots")], "watch": True})
    # What `mnemolis rag add` does: its own store on the same data dir.
    settings = load_settings(
        environ={},
        overrides={"data_dir": str(tmp_path / "data"), "rag": {"roots": [str(tmp_path / "roots")]}},
    )
    cli_store = await KnowledgeStore.open(settings, watch=False, index=False)
    try:
        await cli_store.register("house", str(docs), wait=True)
    finally:
        await cli_store.close()

    async def appeared() -> bool:
        listing = await (await client.get("/api/list")).json()
        return "house" in listing["loaded"]

    await wait_for(appeared, what="CLI-registered database loaded by the server")
    store = store_of(client)
    await store.wait_idle()
    assert sources_of(await store.search_rag("house", "Meadowlark", 5, "keyword")) == ["wifi.txt"]
    cli_store = await KnowledgeStore.open(settings, watch=False, index=False)
    try:
        await cli_store.remove("house")
    finally:
        await cli_store.close()

    async def gone() -> bool:
        listing = await (await client.get("/api/list")).json()
        return "house" not in listing["loaded"]

    await wait_for(gone, what="CLI-removed database dropped by the server")


async def test_deleting_one_database_keeps_the_others_watched(
    make_client: Client, tmp_path: Path
) -> None:
    """Each watcher has its own stop event: removing one stops only that one (issue 15 item 7)."""
    from mnemolis.knowledge.store import KnowledgeStore
    from mnemolis.settings import load_settings

    roots = tmp_path / "roots"
    house = write_docs(roots / "house")
    attic = write_docs(roots / "attic")
    client = await make_client(rag={"roots": [str(roots)], "watch": True})
    for name, folder in (("house", house), ("attic", attic)):
        resp = await client.post("/api/rag", json={"name": name, "path": str(folder)})
        assert resp.status == 201
    store = store_of(client)
    await store.wait_idle()
    assert (await client.delete("/api/rag/attic")).status in (200, 204)
    status = await store.status("house")
    assert status["watching"] is True
    # A change in the other database is still indexed.
    (house / "heatpump.md").write_text("# Heat pump\n\nThe heat pump defrosts automatically.\n")

    async def indexed() -> bool:
        hits = await store.search_rag("house", "defrosts", 10, "keyword")
        return sources_of(hits) == ["heatpump.md"]

    await wait_for(indexed, what="change indexed after another database was deleted")
    # The registry poller still runs: a database registered by another process appears.
    settings = load_settings(
        environ={}, overrides={"data_dir": str(tmp_path / "data"), "rag": {"roots": [str(roots)]}}
    )
    cli_store = await KnowledgeStore.open(settings, watch=False, index=False)
    try:
        await cli_store.register("cellar", str(write_docs(roots / "cellar")), wait=True)
    finally:
        await cli_store.close()

    async def appeared() -> bool:
        return "cellar" in store.names()

    await wait_for(appeared, what="CLI-registered database picked up after a deletion")
    assert (await store.status("cellar"))["watching"] is True
    assert (await store.status("mnemolis-docs"))["watching"] is False  # read-only: not watched


async def test_status_says_when_a_watcher_is_not_running(
    make_client: Client, tmp_path: Path
) -> None:
    """``watching`` is the watcher's real state; a folder that returns, or a watcher that
    ended by itself, is watched again and what changed meanwhile is indexed."""
    roots = tmp_path / "roots"
    docs = write_docs(roots / "house")
    client = await make_client(rag={"roots": [str(roots)], "watch": True})
    assert (await client.post("/api/rag", json={"name": "house", "path": str(docs)})).status == 201
    store = store_of(client)
    await store.wait_idle()
    assert (await store.status("house"))["watching"] is True

    async def watching(value: bool) -> Callable[[], Any]:
        async def check() -> bool:
            return (await store.status("house"))["watching"] is value

        return check

    # The folder goes away (an unmounted share): not watching, and status says so.
    away = roots / "away"
    docs.rename(away)
    await wait_for(await watching(False), what="status reporting the missing folder")
    (away / "heatpump.md").write_text("# Heat pump\n\nThe heat pump defrosts automatically.\n")
    away.rename(docs)
    await wait_for(await watching(True), what="watching again once the folder is back")

    async def found(word: str) -> bool:
        return sources_of(await store.search_rag("house", word, 10, "keyword")) == ["heatpump.md"]

    async def caught_up() -> bool:
        return await found("defrosts")

    await wait_for(caught_up, what="change made while the folder was away indexed")
    # The watcher task ends by itself (as a crash would end it): started again.
    store.documents._tasks["house"].cancel()
    await wait_for(await watching(True), what="watcher started again")
    (docs / "heatpump.md").write_text("# Heat pump\n\nThe heat pump hums quietly at night.\n")

    async def changed() -> bool:
        return await found("hums")

    await wait_for(changed, what="change indexed by the restarted watcher")


@pytest.mark.parametrize("which", ["data folder", "its parent"])
async def test_registering_the_data_folder_does_not_loop_on_its_own_writes(
    make_client: Client, tmp_path: Path, caplog: Any, which: str
) -> None:
    """Mnemolis' own SQLite/WAL writes are not changes to index (issue 17 item 15).

    The data folder itself registered as a database (it is an allowed root):
    while memories are written and questions asked, no watcher pass runs and
    the index is not touched; a real document put there is still indexed.
    """
    import logging

    client = await make_client(rag={"watch": True, "roots": [str(tmp_path)]})
    store = store_of(client)
    data = store.data_dir.resolve() if which == "data folder" else tmp_path.resolve()
    (data / "house-notes.md").write_text("# Notes\n\nThe bins go out on Tuesday.\n")
    resp = await client.post("/api/rag", json={"name": "data", "path": str(data)})
    assert resp.status == 201, await resp.text()
    await store.wait_idle()
    status = await store.status("data")
    assert status["files_indexed"] == 1, status
    assert status["watching"] is True
    await asyncio.sleep(1.5)  # let the registration's own writes settle
    await store.wait_idle()
    before = (await store.status("data"))["last_update"]
    passes = 0
    real_update = store.documents._update_job

    def counting(name: str, paths: list[Path]) -> None:
        nonlocal passes
        passes += 1
        real_update(name, paths)

    store.documents._update_job = counting  # type: ignore[method-assign]
    caplog.set_level(logging.INFO, logger="watchfiles.main")
    caplog.clear()
    for n in range(5):  # WAL traffic in the watched folder: memories, query log, searches
        body = {"content": f"Note {n}: the spare key is in the shed", "tags": "house"}
        assert (await client.post("/api/memories", json=body)).status == 201
        assert (
            await client.post("/search", json={"query": "when do the bins go out"})
        ).status == 200
        await asyncio.sleep(0.3)
    await asyncio.sleep(3.0)
    events = [r for r in caplog.records if "detected" in r.getMessage()]
    assert passes == 0 and not events, (passes, [r.getMessage() for r in events])
    after = await store.status("data")
    assert after["last_update"] == before and after["files_indexed"] == 1, after
    # A real document added there is still seen.
    store.documents._update_job = real_update  # type: ignore[method-assign]
    (data / "boiler.md").write_text("# Boiler\n\nHold the red button to reset the boiler.\n")

    async def indexed() -> bool:
        return sources_of(await store.search_rag("data", "red button", 5, "keyword")) == [
            "boiler.md"
        ]

    await wait_for(indexed, what="a document in the data folder indexed")


def test_the_servers_own_log_in_a_watched_folder_is_never_indexed(tmp_path: Path) -> None:
    """``mnemolis serve > folder/server.log`` with that folder registered: the log is not
    a document, and its own "watcher applied" lines do not feed the watcher (issue 29
    item 4: 221 such lines in 30 s idle)."""
    import json
    import subprocess
    import time

    from .conftest import SERVER_BIN, free_port, server_env, wait_http
    from .test_rag_crash import call, poll

    roots = tmp_path / "roots"
    docs = roots / "house"
    docs.mkdir(parents=True)
    (docs / "bins.md").write_text("# Bins\n\nThe bins go out on Tuesday.\n")
    log = docs / "server.log"
    port = free_port()
    env = {**server_env(), "MNEMOLIS_RAG__ROOTS": json.dumps([str(roots)])}
    cmd = [str(SERVER_BIN), "serve", "--port", str(port), "--data-dir", str(tmp_path / "d")]
    with log.open("a") as out:
        proc = subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_http(f"{url}/api/health")
        assert call(f"{url}/api/rag", "POST", {"name": "house", "path": str(docs)})[0] == 201

        def found(word: str) -> Any:
            return call(f"{url}/api/rag/house/search", "POST", {"q": word, "mode": "keyword"})[1]

        poll(lambda: bool(found("Tuesday")), 60, "the folder indexed")
        # The log says "listening on" (and more each pass): never a document.
        assert "listening" in log.read_text()
        assert found("listening") == {}, found("listening")
        (docs / "bins.md").write_text("# Bins\n\nThe bins go out on Thursday now.\n")
        poll(lambda: bool(found("Thursday")), 60, "the change indexed")
        time.sleep(5)  # idle: a watcher feeding on the log would apply change after change
        applied = log.read_text().count("watcher applied")
        assert applied <= 2, log.read_text()[-3000:]
        assert found("listening") == {}
    finally:
        proc.terminate()
        proc.wait(15)


def test_a_file_that_changes_on_every_pass_waits_longer_each_time() -> None:
    """A log another program writes every half second: indexed three times, then held
    (30 s, 60 s, …), its latest content indexed when a hold ends; quiet again, at once."""
    from mnemolis.knowledge.churn import CHURN_PASSES, HOLD_FIRST_S, Churn

    churn = Churn("house")
    busy, other = Path("/docs/app.log"), Path("/docs/bins.md")
    now = 0.0
    indexed: list[float] = []
    for _ in range(240):  # two minutes of a change every half second
        if busy in churn.admit([busy], now):
            indexed.append(now)
        now += 0.5
    assert indexed[:CHURN_PASSES] == [0.0, 0.5, 1.0]
    assert len(indexed) <= CHURN_PASSES + 2, indexed  # then at 31 s and 91 s
    assert indexed[CHURN_PASSES] >= 1.0 + HOLD_FIRST_S
    assert churn.held(now) == [busy]
    # Another file is not held up by it.
    assert churn.admit([other], now) == [other]
    # The busy one stops; what it last wrote is indexed when its hold ends, with no
    # new change needed (the watcher asks every few seconds).
    end = now + 600
    while now < end and busy not in churn.due(now):
        now += 5
    assert now < end
    # Quiet for a while, it is indexed at once when it changes again.
    now += 3600
    assert churn.admit([busy], now) == [busy]
    assert churn.held(now) == []
