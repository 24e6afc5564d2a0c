"""What a restart costs the stored vectors: do memories and documents keep the model's?

Remembers N one-line memories and indexes a folder of N short notes with the embedding
model loaded, stops the core, edits one note in thirty and starts it again (memories and
document databases open, and the edited notes are indexed, before the model has loaded,
as in the add-on). Prints which embedder's vectors each holds, how many texts the model
embedded after the restart, and when every vector was the model's.

    .venv/server/bin/python bench/restart_vectors_bench.py [N] [--keep DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent / "eval"))

from eval_docs import start_core, wait_indexed

import mnemolis.knowledge.database as database
import mnemolis.knowledge.memory_service as memory_service
from mnemolis.knowledge.vectors import HashingEmbedder

EMBEDDED = {"memories": 0, "chunks": 0}  # texts the model embedded after the restart
_EMBED = {"memories": memory_service.embed_blocking, "chunks": database.embed_blocking}
FOLDER = "notes"
WAIT_S = 60  # how long to wait for every vector to be the model's


def counting(kind: str) -> Any:
    """``embed_blocking`` that counts the texts a real model embeds for ``kind``."""

    def embed(embedder: Any, texts: list[str], loop: Any) -> Any:
        if not isinstance(embedder, HashingEmbedder):
            EMBEDDED[kind] += len(texts)
        return _EMBED[kind](embedder, texts, loop)

    return embed


def held(data: Path) -> dict[str, str]:
    """Which embedders' vectors the memories and the notes' database hold, with counts."""
    with sqlite3.connect(data / "memories.db") as conn:
        rows = conn.execute("SELECT embedder, count(*) FROM memory_vectors GROUP BY embedder")
        memories = ", ".join(f"{n} `{e}`" for e, n in rows.fetchall())
    [db_file] = data.glob(f"**/{FOLDER}/data.db") or [None]
    if db_file is None:
        return {"memories": memories, "chunks": "no database"}
    with sqlite3.connect(db_file) as conn:
        row = conn.execute("SELECT value FROM meta WHERE key = 'embedder'").fetchone()
        count = conn.execute("SELECT count(*) FROM vectors").fetchone()[0]
    return {"memories": memories, "chunks": f"{count} `{row[0] if row else ''}`"}


def all_model(data: Path, model: str, chunks: int, memories: int) -> bool:
    """Every memory and chunk holds the model's vector."""
    now = held(data)
    return now == {"memories": f"{memories} `{model}`", "chunks": f"{chunks} `{model}`"}


async def run(count: int, scratch: Path) -> None:
    """Remember and index, restart, and watch the vectors."""
    data, folder = scratch / "data", scratch / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        (folder / f"note-{i}.md").write_text(
            f"# Note {i}\n\nThe spare fuse {i} is in box {i % 7} on the garage shelf.\n"
        )
    core = await start_core(data, True)
    store = core.services.knowledge
    model = core.services.embedder.name
    for i in range(count):
        await store.remember(f"Note {i}: spare key {i} is in drawer {i % 7} of the hall cabinet.")
    await store.register(FOLDER, str(folder), wait=True)
    await wait_indexed(core, FOLDER, True, timeout=600)
    await store.wait_idle()
    chunks = int(held(data)["chunks"].split()[0])
    print(f"before the restart: {held(data)}")
    await core.stop()
    for i in range(0, count, 30):  # notes edited while the server was down
        (folder / f"note-{i}.md").write_text(f"# Note {i}\n\nThe fuse {i} moved to the hall.\n")

    memory_service.embed_blocking = counting("memories")  # type: ignore[assignment]
    database.embed_blocking = counting("chunks")  # type: ignore[assignment]
    started = time.perf_counter()
    core = await start_core(data, True)
    store = core.services.knowledge
    print(f"restarted in {time.perf_counter() - started:.1f} s: {held(data)}")
    await store.memory_matches("where is spare key 5?")  # the first searches ask for vectors
    await store.search_all("where is spare fuse 5?", databases=[FOLDER])
    await store.wait_idle()
    while not all_model(data, model, chunks, count) and time.perf_counter() - started < WAIT_S:
        await asyncio.sleep(0.2)
    took = time.perf_counter() - started
    print(
        (
            f"every vector the model's after {took:.1f} s"
            if all_model(data, model, chunks, count)
            else f"still not every vector the model's after {took:.0f} s"
        )
        + f": {held(data)}; the model embedded {EMBEDDED['memories']} memories and "
        f"{EMBEDDED['chunks']} chunks"
    )
    await core.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("count", nargs="?", type=int, default=300)
    parser.add_argument("--keep", help="scratch folder to use (kept after the run)")
    args = parser.parse_args()
    scratch = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="restart-"))
    try:
        asyncio.run(run(args.count, scratch))
    finally:
        if not args.keep:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
