"""Embedding throughput: the knowledge store's embedding pass vs bare llama-cpp-python.

The texts are the chunks of Mnemolis's own bundled documentation, as the store
embeds them (``chunking.embedding_text``: the document's and the chunk's heading,
then the passage). The model is the default, all-MiniLM-L6-v2 converted to GGUF.

* **bare** — ``llama_cpp.Llama(embedding=True)`` created as Mnemolis creates it
  (same context, batch, threads, pooling), ``embed(text, normalize=True)`` per text.
* **mnemolis** — ``DocumentDatabase.embed_missing`` with the ``LocalEmbedder``: its
  model thread and queue, batches of 32, unit float32 vectors written to SQLite.

Runs alternate (bare, mnemolis, bare, mnemolis, …) so a neighbour's load hits both
alike; the table gives chunks per second of wall time and per second of this
process's CPU time, and the ratio mnemolis / bare (target ≥ 0.9).

    .venv/server/bin/python bench/embed_bench.py [--rounds 2] [--threads 1] [--limit 400]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from mnemolis.knowledge.chunking import chunk_sections, embedding_text  # noqa: E402
from mnemolis.knowledge.database import DocumentDatabase  # noqa: E402
from mnemolis.knowledge.parsing import parse_document  # noqa: E402
from mnemolis.knowledge.registry import BUNDLED_DIR  # noqa: E402
from mnemolis.llm import bundled  # noqa: E402
from mnemolis.llm.catalog import read_metadata  # noqa: E402
from mnemolis.llm.embedding_model import LocalEmbedder  # noqa: E402
from mnemolis.settings import load_settings  # noqa: E402


def texts_of(folder: Path) -> list[str]:
    """What the store embeds for every chunk of the folder's Markdown files."""
    out: list[str] = []
    for path in sorted(folder.glob("*.md")):
        for chunk in chunk_sections(parse_document(path.name, path.read_bytes()), name=path.name):
            out.append(embedding_text(chunk.heading, chunk.content))
    return out


def run_bare(model: Path, texts: list[str], threads: int) -> tuple[float, float]:
    """(wall s, CPU s) of embedding every text with a bare Llama."""
    from llama_cpp import Llama

    llama = Llama(
        model_path=str(model),
        embedding=True,
        n_ctx=512,
        n_batch=512,
        n_ubatch=512,
        n_threads=threads,
        n_threads_batch=threads,
        verbose=False,
    )
    try:
        cpu = time.process_time()
        started = time.perf_counter()
        for text in texts:
            llama.embed(text, normalize=True, truncate=True)
        return time.perf_counter() - started, time.process_time() - cpu
    finally:
        llama.close()


class _Never:
    def is_set(self) -> bool:
        return False


async def run_mnemolis(
    embedder: LocalEmbedder, folder: Path, scratch: Path, n: int
) -> tuple[float, float]:
    """(wall s, CPU s) of the store's embedding pass over a freshly indexed copy."""
    db = DocumentDatabase("bench", folder, scratch / f"db-{time.monotonic_ns()}")
    await asyncio.to_thread(db.open)
    try:
        await asyncio.to_thread(db.scan, _Never())
        loop = asyncio.get_running_loop()
        cpu = time.process_time()
        started = time.perf_counter()
        done = await asyncio.to_thread(db.embed_missing, embedder, loop, _Never())
        took = time.perf_counter() - started, time.process_time() - cpu
    finally:
        db.close()
    if done != n:
        raise SystemExit(f"the store embedded {done} chunks, expected {n}")
    return took


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--limit", type=int, default=400, help="chunks per run (first N)")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="embed-bench-"))
    model = bundled.ensure_converted(scratch / "models")
    # The same chunks on both sides: a folder holding the bundled docs, cut to --limit.
    folder = scratch / "docs"
    folder.mkdir()
    kept = 0
    for path in sorted(BUNDLED_DIR.glob("*.md")):
        chunks = chunk_sections(parse_document(path.name, path.read_bytes()), name=path.name)
        if kept + len(chunks) > args.limit:
            break
        (folder / path.name).write_bytes(path.read_bytes())
        kept += len(chunks)
    texts = texts_of(folder)
    settings = load_settings(environ={}, overrides={"llm": {"threads": args.threads}})
    embedder = LocalEmbedder(read_metadata(model), settings.llm)
    await embedder.wait_loaded()
    if not embedder.ready:
        raise SystemExit(f"the embedding model did not load: {embedder.error}")
    rows: dict[str, list[tuple[float, float]]] = {"bare llama-cpp-python": [], "mnemolis": []}
    try:
        for _ in range(args.rounds):
            rows["bare llama-cpp-python"].append(
                await asyncio.to_thread(run_bare, model, texts, args.threads)
            )
            rows["mnemolis"].append(await run_mnemolis(embedder, folder, scratch, len(texts)))
    finally:
        await asyncio.to_thread(embedder.close)
    tokens = sum(len(t) for t in texts) / 4
    print(
        f"### Embedding {len(texts)} chunks ({tokens / 1000:.0f}k tokens, ~4 characters each) "
        f"with {bundled.NAME}, {args.threads} thread(s), {args.rounds} alternating rounds\n"
    )
    print("| engine | chunks/s (wall, best) | chunks/s (wall, mean) | chunks per CPU-s |")
    print("|---|---:|---:|---:|")
    summary: dict[str, tuple[float, float]] = {}
    for name, runs in rows.items():
        walls = [len(texts) / w for w, _ in runs]
        cpu = len(texts) / (sum(c for _, c in runs) / len(runs))
        summary[name] = (max(walls), cpu)
        print(f"| {name} | {max(walls):.1f} | {sum(walls) / len(walls):.1f} | {cpu:.1f} |")
    wall_ratio = summary["mnemolis"][0] / summary["bare llama-cpp-python"][0]
    cpu_ratio = summary["mnemolis"][1] / summary["bare llama-cpp-python"][1]
    print(
        f"\nmnemolis / bare: {wall_ratio:.2f}x (wall, best run), {cpu_ratio:.2f}x (CPU)"
        " — target ≥ 0.9x"
    )
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
