"""The server's watcher keeps an index current: add, change, rename and delete."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

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
