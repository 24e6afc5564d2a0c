"""Repeated kill -9 during indexing and memory writes: nothing acknowledged is lost.

Round after round a real server is started on the same data directory, a
document database is indexing and several clients write memories; the
process is then SIGKILLed at a random moment. Between rounds files are
deleted and new ones arrive (so every start indexes again). After every
restart no chunk of a deleted file may be served; at the end every SQLite
database passes ``integrity_check`` and every memory a client got a 2xx for
is there, word for word.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from .conftest import ServerProcess
from .test_rag_crash import call, make_corpus

pytestmark = pytest.mark.slow

ROUNDS = int(os.environ.get("MNEMOLIS_CRASH_ROUNDS", "20"))
FILES = 400
NEW_PER_ROUND = 300
FILLER = " ".join(f"word{i % 97}" for i in range(400))
WRITERS = 4


async def write_memories(
    url: str, acked: dict[str, str], round_no: int, writer: int, stop: asyncio.Event
) -> None:
    """POST memories until the server dies; remember those acknowledged with a 2xx."""
    n = 0
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10)) as http:
        while not stop.is_set():
            content = f"round {round_no} writer {writer} note {n} mem{round_no}x{writer}x{n}"
            n += 1
            try:
                async with http.post(f"{url}/api/memories", json={"content": content}) as resp:
                    if 200 <= resp.status < 300:
                        acked[(await resp.json())["id"]] = content
            except (aiohttp.ClientError, TimeoutError, json.JSONDecodeError):
                return  # the server was killed mid-request: not acknowledged


def deleted_chunks_served(url: str, deleted: list[int]) -> list[int]:
    """Deleted files whose unique marker word still finds a chunk."""
    served = []
    for n in deleted:
        status, found = call(
            f"{url}/api/rag/big/search", "POST", {"q": f"marker{n:04d}", "mode": "keyword"}
        )
        assert status == 200, found
        if found:
            served.append(n)
    return served


async def test_repeated_kill_during_indexing_and_memory_writes(
    start_server: Callable[..., ServerProcess], tmp_path: Path
) -> None:
    rng = random.Random(20)
    roots = tmp_path / "roots"
    corpus = roots / "big"
    make_corpus(corpus, FILES)
    data_dir = tmp_path / "data"
    env = {"MNEMOLIS_RAG__ROOTS": json.dumps([str(roots)])}
    acked: dict[str, str] = {}
    deleted: list[int] = []
    alive = list(range(FILES))
    mid_indexing = 0  # rounds whose kill hit a running indexing pass

    for round_no in range(ROUNDS):
        server = start_server("--data-dir", str(data_dir), env=env)
        if round_no == 0:
            status, body = call(
                f"{server.url}/api/rag", "POST", {"name": "big", "path": str(corpus)}
            )
            assert status == 201, body
        else:
            status, listing = call(f"{server.url}/api/list")
            assert status == 200 and "big" in listing["loaded"], (round_no, listing, server.logs())
            assert deleted_chunks_served(server.url, deleted) == [], (round_no, server.logs())
        stop = asyncio.Event()
        writers = [
            asyncio.create_task(write_memories(server.url, acked, round_no, w, stop))
            for w in range(WRITERS)
        ]
        await asyncio.sleep(rng.uniform(0.3, 1.5))
        progress = await asyncio.to_thread(call, f"{server.url}/api/rag/big")
        if progress[0] == 200 and progress[1]["indexing"]:
            mid_indexing += 1
        server.proc.kill()  # SIGKILL while indexing and writing
        await asyncio.to_thread(server.proc.wait, 10)
        stop.set()
        await asyncio.gather(*writers)
        # While it is down, files go away (indexed ones and not-yet-indexed ones alike)
        # and new ones arrive, so the next start has indexing to do again.
        for n in rng.sample(alive, 3):
            alive.remove(n)
            deleted.append(n)
            (corpus / f"doc{n:04d}.md").unlink()
        for k in range(NEW_PER_ROUND):
            (corpus / f"new{round_no:02d}-{k:03d}.md").write_text(
                f"# New {round_no} {k}\n\nfresh{round_no}x{k} arrived.\n\n{FILLER}\n\n{FILLER}\n"
            )

    assert len(acked) >= ROUNDS, "too few memories were acknowledged to prove anything"
    print(f"kills during indexing: {mid_indexing}/{ROUNDS}; memories acknowledged: {len(acked)}")
    assert mid_indexing >= ROUNDS // 2, f"only {mid_indexing} kills hit indexing; grow the corpus"
    final = start_server("--data-dir", str(data_dir), env=env)
    assert deleted_chunks_served(final.url, deleted) == []
    async with aiohttp.ClientSession() as http:
        for memory_id, content in acked.items():
            async with http.get(f"{final.url}/api/memories/{memory_id}") as resp:
                assert resp.status == 200, (memory_id, content)
                assert (await resp.json())["content"] == content
    assert final.stop() == 0, final.logs()[-3000:]
    databases = sorted(data_dir.rglob("*.db"))
    assert databases, list(data_dir.rglob("*"))
    for db in databases:
        conn = sqlite3.connect(db)
        try:
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok", db
        finally:
            conn.close()
    conn = sqlite3.connect(data_dir / "rag" / "big" / "data.db")
    try:
        conn.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('integrity-check')")
        paths = {p for (p,) in conn.execute("SELECT path FROM files")}
        assert not paths & {f"doc{n:04d}.md" for n in deleted}
        orphans = conn.execute(
            "SELECT count(*) FROM chunks WHERE file_id NOT IN (SELECT id FROM files)"
        ).fetchone()[0]
        assert orphans == 0
    finally:
        conn.close()


# --- damaged files: found at start or by the first query, answered clearly, never a 500 ---


def damage(db_file: Path, table: str) -> int:
    """Overwrite the pages of ``table`` but their headers (its root too when it is the only one).

    The b-tree headers stay, as after bad sectors, so SQLite opens the file; the
    FTS index's own data is garbage. Returns how many pages were hit.
    """
    conn = sqlite3.connect(db_file)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        size = conn.execute("PRAGMA page_size").fetchone()[0]
        pages = [p for (p,) in conn.execute("SELECT pageno FROM dbstat WHERE name = ?", (table,))]
    finally:
        conn.close()
    targets = pages[1:] or pages
    with db_file.open("r+b") as fh:
        for page in targets:
            # Past the page's b-tree header: its cells (and where they point) are garbage.
            fh.seek((page - 1) * size + 12)
            fh.write(b"\xa5" * (size - 12))
    return len(targets)


async def test_a_damaged_memory_index_is_found_at_start_and_answered_clearly(
    start_server: Callable[..., ServerProcess], tmp_path: Path
) -> None:
    data = tmp_path / "data"
    server = start_server("--data-dir", str(data))
    ids = []
    for n in range(80):
        body = {"content": f"Note {n}: the spare key number {n} is under the flowerpot {n}"}
        status, made = call(f"{server.url}/api/memories", "POST", body)
        assert status == 201, made
        ids.append(made["id"])
    assert server.stop() == 0
    assert damage(data / "memories.db", "memories_fts_data") > 0
    server = start_server("--data-dir", str(data))
    statuses: list[int] = []

    def ask(path: str, method: str = "GET", body: Any = None) -> tuple[int, Any]:
        status, answer = call(f"{server.url}{path}", method, body)
        statuses.append(status)
        return status, answer

    # Readiness says so at once, naming the file.
    status, ready = ask("/api/health/readiness")
    assert status == 200 and ready["status"] == "degraded", ready
    knowledge = ready["components"]["knowledge"]
    assert knowledge["status"] == "degraded" and "memories.db" in knowledge["detail"], knowledge
    assert "damaged" in knowledge["detail"]
    # Searching the damaged index, and writing, are a clear 503.
    status, found = ask("/api/memories/search", "POST", {"query": "spare key", "format": "json"})
    assert status == 503 and found["error"]["code"] == "unavailable", found
    assert "memories.db" in found["error"]["message"] and "damaged" in found["error"]["message"]
    status, stored = ask("/api/memories", "POST", {"content": "Bins: Tuesday"})
    assert status == 503 and "nothing was saved" in stored["error"]["message"], stored
    # What does not need the index keeps working.
    status, listed = ask("/api/memories?limit=100")
    assert status == 200 and listed["total"] == 80, listed
    status, one = ask(f"/api/memories/{ids[7]}")
    assert status == 200 and "number 7 " in one["content"]
    # The router names the failed source and answers from the rest.
    status, answer = ask("/search", "POST", {"query": "where is the spare key", "source": "memory"})
    assert status == 200, answer
    assert answer["sources"][0]["status"] == "error" and "damaged" in answer["sources"][0]["error"]
    status, answer = ask("/search", "POST", {"query": "where is the spare key"})
    assert status == 200, answer
    assert set(statuses) <= {200, 503}, statuses  # never a 500
    assert "Traceback" not in server.logs()


async def test_damaged_memory_rows_are_not_said_to_be_listable(
    start_server: Callable[..., ServerProcess], tmp_path: Path
) -> None:
    """With the memories' own rows damaged, listing fails too: the 503 says so (issue 29
    item 6), instead of the FTS-only message that listing and reading still work."""
    data = tmp_path / "data"
    server = start_server("--data-dir", str(data))
    for n in range(80):
        body = {"content": f"Note {n}: the spare key number {n} is under the flowerpot {n}"}
        assert call(f"{server.url}/api/memories", "POST", body)[0] == 201
    assert server.stop() == 0
    assert damage(data / "memories.db", "memories") > 0
    server = start_server("--data-dir", str(data))
    status, listed = call(f"{server.url}/api/memories?limit=100")
    assert status == 503, listed
    message = listed["error"]["message"]
    assert "memories.db" in message and "damaged" in message, message
    assert "cannot be listed, read" in message and "still work" in message, message
    assert "listing and reading memories" not in message, message
    assert "restore memories.db from a backup" in message
    assert len(message) < 600, message  # SQLite's page-by-page account is cut short
    # Searching says the same; the rest of the server answers.
    status, found = call(f"{server.url}/api/memories/search", "POST", {"query": "spare key"})
    assert status == 503 and "cannot be listed" in found["error"]["message"], found
    status, ready = call(f"{server.url}/api/health/readiness")
    assert status == 200 and "memories.db" in ready["components"]["knowledge"]["detail"]
    status, answer = call(f"{server.url}/search", "POST", {"query": "where is the spare key"})
    assert status == 200, answer
    assert "Traceback" not in server.logs()


async def test_a_broken_registry_is_reported_and_restored(
    start_server: Callable[..., ServerProcess], tmp_path: Path
) -> None:
    roots = tmp_path / "roots"
    data = tmp_path / "data"
    docs = roots / "house"
    docs.mkdir(parents=True)
    (docs / "bins.md").write_text("# Bins\n\nThe bins go out on Tuesday.\n")
    env = {"MNEMOLIS_RAG__ROOTS": json.dumps([str(roots)])}
    server = start_server("--data-dir", str(data), env=env)
    assert call(f"{server.url}/api/rag", "POST", {"name": "house", "path": str(docs)})[0] == 201
    # Another process writes garbage over the registry while the server runs:
    # the server keeps its databases and writes the file again.
    registry = data / "rag" / "registry.json"
    registry.write_bytes(b"\x00{not json")

    def restored() -> bool:
        try:
            listed = json.loads(registry.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return False
        return "house" in [d["name"] for d in listed["databases"]]

    deadline = asyncio.get_running_loop().time() + 15
    while not restored():
        assert asyncio.get_running_loop().time() < deadline, "registry not written again"
        await asyncio.sleep(0.2)
    status, listing = call(f"{server.url}/api/list")
    assert status == 200 and "house" in listing["loaded"], listing
    status, ready = call(f"{server.url}/api/health/readiness")
    detail = ready["components"]["knowledge"]["detail"]
    assert ready["status"] == "degraded" and "written again" in detail, ready
    assert server.stop() == 0
    # Broken while the server is down: the next start moves it aside and says so.
    registry.write_text('{"databases": [', encoding="utf-8")
    server = start_server("--data-dir", str(data), env=env)
    aside = sorted((data / "rag").glob("registry.corrupt-*.json"))
    assert len(aside) == 2, aside
    status, ready = call(f"{server.url}/api/health/readiness")
    assert status == 200 and ready["status"] == "degraded", ready
    detail = ready["components"]["knowledge"]["detail"]
    assert str(aside[-1]) in detail and "registered again" in detail, detail
    status, listing = call(f"{server.url}/api/list")
    assert status == 200 and listing["loaded"] == ["mnemolis-docs"], listing
    assert "Traceback" not in server.logs()


async def test_a_damaged_document_index_is_rebuilt_from_its_folder(
    start_server: Callable[..., ServerProcess], tmp_path: Path
) -> None:
    roots = tmp_path / "roots"
    data = tmp_path / "data"
    docs = roots / "house"
    docs.mkdir(parents=True)
    for n in range(150):
        (docs / f"note{n:03d}.md").write_text(f"# Note {n}\n\nmarker{n:03d} {FILLER}\n")
    env = {"MNEMOLIS_RAG__ROOTS": json.dumps([str(roots)])}
    server = start_server("--data-dir", str(data), env=env)
    assert call(f"{server.url}/api/rag", "POST", {"name": "house", "path": str(docs)})[0] == 201

    def indexed() -> bool:
        status, st = call(f"{server.url}/api/rag/house")
        return status == 200 and st["files_indexed"] == 150 and not st["indexing"]

    deadline = asyncio.get_running_loop().time() + 60
    while not indexed():
        assert asyncio.get_running_loop().time() < deadline, "not indexed"
        await asyncio.sleep(0.2)
    assert server.stop() == 0
    assert damage(data / "rag" / "house" / "data.db", "chunks_fts_data") > 0
    server = start_server("--data-dir", str(data), env=env)
    status, found = call(
        f"{server.url}/api/rag/house/search", "POST", {"q": "marker042", "mode": "keyword"}
    )
    assert status == 503, found
    assert "house" in found["error"]["message"] and "rebuilt" in found["error"]["message"]
    status, answer = call(f"{server.url}/search", "POST", {"query": "marker042", "source": "rag"})
    assert status == 200 and answer["sources"][0]["status"] in ("error", "ok"), answer

    def answers() -> bool:
        status, found = call(
            f"{server.url}/api/rag/house/search", "POST", {"q": "marker042", "mode": "keyword"}
        )
        assert status in (200, 503), found
        # While the fresh index fills, it may find nothing yet ({}).
        if status != 200 or not found:
            return False
        return bool(found["keyword"][0]["source"].endswith("note042.md"))

    deadline = asyncio.get_running_loop().time() + 60
    while not answers():
        assert asyncio.get_running_loop().time() < deadline, server.logs()[-3000:]
        await asyncio.sleep(0.3)
    status, ready = call(f"{server.url}/api/health/readiness")
    assert ready["components"]["knowledge"]["status"] == "ok", ready
    assert "Traceback" not in server.logs()
    conn = sqlite3.connect(data / "rag" / "house" / "data.db")
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()
