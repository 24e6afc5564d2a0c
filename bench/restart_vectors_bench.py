"""What a restart costs the memories: do they keep their model's vectors?

Remembers N one-line memories with the embedding model loaded, stops the core and
starts it again (the memories open before the model has loaded, as in the add-on),
then prints which embedder's vectors the memories hold once the model is ready, how
many memories the model had to embed again, and when every vector was the model's.

    .venv/server/bin/python bench/memory_restart_bench.py [N] [--keep DIR]
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

from eval_docs import start_core

import mnemolis.knowledge.memory_service as memory_service
from mnemolis.knowledge.vectors import HashingEmbedder

EMBEDDED = {"texts": 0}  # memories the model embedded after the fact
_EMBED = memory_service.embed_blocking


def counting(embedder: Any, texts: list[str], loop: Any) -> Any:
    """``embed_blocking`` that counts the texts a real model embeds for memories."""
    if not isinstance(embedder, HashingEmbedder):
        EMBEDDED["texts"] += len(texts)
    return _EMBED(embedder, texts, loop)


def vectors_by_embedder(data: Path) -> dict[str, int]:
    """How many memory vectors each embedder holds."""
    with sqlite3.connect(data / "memories.db") as conn:
        rows = conn.execute("SELECT embedder, count(*) FROM memory_vectors GROUP BY embedder")
        return dict(rows.fetchall())


async def run(count: int, data: Path) -> None:
    """Remember, restart, and watch the vectors."""
    core = await start_core(data, True)
    store = core.services.knowledge
    model = core.services.embedder.name
    for i in range(count):
        await store.remember(f"Note {i}: spare key {i} is in drawer {i % 7} of the hall cabinet.")
    await store.wait_idle()
    print(f"after remembering {count}: {vectors_by_embedder(data)}")
    await core.stop()

    memory_service.embed_blocking = counting  # type: ignore[assignment]
    started = time.perf_counter()
    core = await start_core(data, True)
    store = core.services.knowledge
    ready = time.perf_counter() - started
    print(f"restarted, model ready in {ready:.1f} s: {vectors_by_embedder(data)}")
    await store.memory_matches("where is spare key 5?")  # the first search asks for vectors
    await store.wait_idle()
    while set(vectors_by_embedder(data)) != {model} and time.perf_counter() - started < 120:
        await asyncio.sleep(0.2)
    print(
        f"every vector the model's after {time.perf_counter() - started:.1f} s; "
        f"memories the model embedded again: {EMBEDDED['texts']}"
    )
    await core.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("count", nargs="?", type=int, default=300)
    parser.add_argument("--keep", help="scratch folder to use (kept after the run)")
    args = parser.parse_args()
    scratch = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="memrestart-"))
    try:
        asyncio.run(run(args.count, scratch / "data"))
    finally:
        if not args.keep:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
