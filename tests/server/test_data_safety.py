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
