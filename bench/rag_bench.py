"""Knowledge-store benchmark: indexing throughput, index size, query latency vs bare FTS5.

Generates a corpus of Markdown files (one chunk per section), indexes it with
the real store (parse, chunk, FTS5, hashing-fallback embeddings), then runs the
same keyword queries against the store and against a bare SQLite FTS5 table
holding the same chunks (the floor), plus hybrid queries through the store.

    .venv/server/bin/python bench/rag_bench.py [--sizes 10000,100000] [--queries 300]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from mnemolis.knowledge.store import KnowledgeStore
from mnemolis.knowledge.text import fts_query
from mnemolis.settings import load_settings

CHUNKS_PER_FILE = 100
VOCAB = 6000


def vocabulary(rng: random.Random) -> list[str]:
    """Pronounceable pseudo-words, so every query word is a real token."""
    consonants, vowels = "bcdfghklmnprstvz", "aeiou"
    words: set[str] = set()
    while len(words) < VOCAB:
        n = rng.randint(2, 4)
        words.add("".join(rng.choice(consonants) + rng.choice(vowels) for _ in range(n)))
    return sorted(words)


def make_corpus(folder: Path, chunks: int, words: list[str], rng: random.Random) -> None:
    """Files of CHUNKS_PER_FILE sections, Zipf-distributed words, ~90 words per section."""
    weights = [1.0 / (i + 1) for i in range(len(words))]
    folder.mkdir(parents=True)
    for f in range(chunks // CHUNKS_PER_FILE):
        parts = [f"# File {f}"]
        for s in range(CHUNKS_PER_FILE):
            body = " ".join(rng.choices(words, weights, k=90))
            parts.append(f"## Section {s}\n\n{body}.")
        (folder / f"doc{f:05d}.md").write_text("\n\n".join(parts), encoding="utf-8")


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def folder_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def bare_fts(src: Path, dst: Path) -> tuple[sqlite3.Connection, float]:
    """The floor: a plain FTS5 table with the same chunk texts, nothing else."""
    conn = sqlite3.connect(dst, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(content, tokenize='unicode61')")
    started = time.perf_counter()
    conn.execute("ATTACH DATABASE ? AS src", (str(src),))
    conn.execute("BEGIN")
    conn.execute("INSERT INTO t(rowid, content) SELECT id, content FROM src.chunks")
    conn.execute("COMMIT")
    conn.execute("DETACH DATABASE src")
    return conn, time.perf_counter() - started


def timed(fn: object, queries: list[str]) -> list[float]:
    out = []
    for q in queries:
        started = time.perf_counter()
        fn(q)  # type: ignore[operator]
        out.append((time.perf_counter() - started) * 1000)
    return out


async def atimed(fn: object, queries: list[str]) -> list[float]:
    out = []
    for q in queries:
        started = time.perf_counter()
        await fn(q)  # type: ignore[operator]
        out.append((time.perf_counter() - started) * 1000)
    return out


async def run_size(chunks: int, n_queries: int, words: list[str], base: Path) -> dict[str, object]:
    rng = random.Random(chunks)
    root = base / f"corpus-{chunks}"
    corpus = root / "docs"
    make_corpus(corpus, chunks, words, rng)
    settings = load_settings(
        environ={},
        overrides={"data_dir": str(base / f"data-{chunks}"), "rag": {"roots": [str(root)]}},
    )
    store = await KnowledgeStore.open(settings, watch=False, index=False)
    try:
        started = time.perf_counter()
        cpu = time.process_time()
        status = await store.register("bench", str(corpus), wait=True)
        took = time.perf_counter() - started
        cpu_took = time.process_time() - cpu
        indexed = int(status["chunks"])
        db = store.databases["bench"]
        size = folder_size(base / f"data-{chunks}" / "rag" / "bench")
        # Queries: 2-3 mid-frequency words (rank 50..2000), the same for every engine.
        mid = words[50:2000]
        queries = [" ".join(rng.sample(mid, rng.choice((2, 3)))) for _ in range(n_queries)]
        floor, floor_build = bare_fts(db.db_path, base / f"bare-{chunks}.db")
        floor_size = (base / f"bare-{chunks}.db").stat().st_size

        def bare(q: str) -> None:
            expr = fts_query(q)
            floor.execute(
                "SELECT rowid, content FROM t WHERE t MATCH ? ORDER BY rank LIMIT 10", (expr,)
            ).fetchall()

        def ours(q: str) -> None:
            db.search_keyword(q, 10)

        async def kura_keyword(q: str) -> None:
            await store.search_rag("bench", q, 10, "keyword")

        async def kura_hybrid(q: str) -> None:
            await store.search_rag("bench", q, 10, "hybrid")

        # Warm caches (page cache, vector matrix) before measuring.
        timed(bare, queries[:20])
        timed(ours, queries[:20])
        await atimed(kura_hybrid, queries[:5])
        lat = {
            "bare FTS5 (floor)": timed(bare, queries),
            "store keyword (db.search_keyword)": timed(ours, queries),
            "search_rag keyword (async API)": await atimed(kura_keyword, queries),
            "search_rag hybrid (async API)": await atimed(kura_hybrid, queries),
        }
        floor.close()
    finally:
        await store.close()
    return {
        "chunks": indexed,
        "files": chunks // CHUNKS_PER_FILE,
        "index_s": took,
        "index_cpu_s": cpu_took,
        "throughput": indexed / took,
        "size": size,
        "floor_size": floor_size,
        "floor_build": floor_build,
        "lat": lat,
    }


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--queries", type=int, default=300)
    args = parser.parse_args()
    words = vocabulary(random.Random(7))
    results = []
    with tempfile.TemporaryDirectory(prefix="rag-bench-") as tmp:
        for size in (int(s) for s in args.sizes.split(",")):
            results.append(await run_size(size, args.queries, words, Path(tmp)))
    print("### Indexing (parse + chunk + FTS5 + hashing-fallback embeddings, one worker thread)")
    print()
    print(
        "| chunks | files | index time (wall) | CPU time | throughput (wall) | "
        "data.db size | bare FTS5 size |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for r in results:
        print(
            f"| {r['chunks']:,} | {r['files']:,} | {r['index_s']:.1f} s | "
            f"{r['index_cpu_s']:.1f} s | "
            f"{r['throughput']:,.0f} chunks/s | {int(r['size']) / 1e6:.1f} MB | "  # type: ignore[call-overload]
            f"{int(r['floor_size']) / 1e6:.1f} MB |"  # type: ignore[call-overload]
        )
    print()
    print(f"### Query latency, {args.queries} queries of 2-3 words, top 10 (ms)")
    print()
    print("| chunks | engine | p50 | p95 | p99 | p50 vs floor |")
    print("|---:|---|---:|---:|---:|---:|")
    for r in results:
        lat: dict[str, list[float]] = r["lat"]  # type: ignore[assignment]
        base = statistics.median(lat["bare FTS5 (floor)"])
        for name, values in lat.items():
            ratio = statistics.median(values) / base if base else float("nan")
            print(
                f"| {r['chunks']:,} | {name} | {pct(values, 50):.2f} | {pct(values, 95):.2f} | "
                f"{pct(values, 99):.2f} | {ratio:.2f}x |"
            )


if __name__ == "__main__":
    asyncio.run(main())
