"""Query log and metrics costs: what logging adds to a question, and what reading costs.

Prints Markdown tables:
1. the cost on the event loop of recording one answered question
   (``QueryLog.record``, the off-loop queue) against the naive way (one SQLite
   INSERT + commit per question on the loop), and the writer's throughput;
2. ``GET /api/queries`` latency on a full log (10 000 rows), with and without
   filters, and ``GET /metrics`` scrape latency, over real HTTP in-process.

Usage: .venv/server/bin/python bench/querylog_bench.py [--rows 10000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from aiohttp.test_utils import TestClient, TestServer

from mnemolis.app import create_app
from mnemolis.models import Citation, PartResult, SearchResult, SourceRun
from mnemolis.querylog import QueryLog
from mnemolis.rest import keys
from mnemolis.settings import QueryLogSettings, load_settings


def sample(i: int) -> SearchResult:
    """A realistic routed answer: two parts, three source runs, four citations."""
    query = f"is the garage door open and what's the weather tomorrow #{i}?"
    return SearchResult(
        query=query,
        result="The garage door is closed. Tomorrow: light rain, 12 °C.",
        source_used="ha",
        fallback=i % 7 == 0,
        parts=[
            PartResult("is the garage door open", "ha", "The garage door is closed."),
            PartResult("what's the weather tomorrow", "forecast", "Light rain, 12 °C."),
        ],
        sources=[
            SourceRun("ha", "ok", 3.2, "entity match: garage door"),
            SourceRun("forecast", "ok", 41.0, "keyword: weather", part=1, cached=i % 2 == 0),
            SourceRun("web", "skipped", 0.01, "fallback", "web is not configured", part=1),
        ],
        citations=[
            Citation("ha", f"cover.garage_door {n}", ref="cover.garage_door") for n in range(4)
        ],
        elapsed_ms=44.5,
    )


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def row(name: str, values_us: list[float], extra: str = "") -> str:
    return (
        f"| {name} | {len(values_us)} | {pct(values_us, 50):.1f} | {pct(values_us, 95):.1f} "
        f"| {pct(values_us, 99):.1f} | {statistics.fmean(values_us):.1f} | {extra} |"
    )


async def bench_record(rows: int, folder: Path) -> list[str]:
    out = [
        "| recording one question | n | p50 µs | p95 µs | p99 µs | mean µs | writer |",
        "|---|---|---|---|---|---|---|",
    ]
    for store_text in (True, False):
        log = QueryLog(folder / f"q-{store_text}.db", QueryLogSettings(store_text=store_text))
        log.open()
        results = [sample(i) for i in range(rows)]
        costs: list[float] = []
        started = time.perf_counter()
        for res in results:
            t0 = time.perf_counter()
            log.record(res, surface="rest")
            costs.append((time.perf_counter() - t0) * 1e6)
        await log.flush(timeout=120)
        took = time.perf_counter() - started
        label = "QueryLog.record (queue, writer thread)"
        label += "" if store_text else ", store_text=false"
        extra = f"{log.written / took:,.0f} rows/s written, {log.dropped} dropped"
        out.append(row(label, costs, extra))
        await log.close()
    # The naive way: a committed INSERT per question, on the event loop.
    conn = sqlite3.connect(folder / "naive.db")
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("CREATE TABLE q (id INTEGER PRIMARY KEY, ts REAL, query TEXT, trace TEXT)")
    costs = []
    for i in range(min(rows, 3000)):
        res = sample(i)
        t0 = time.perf_counter()
        with conn:
            conn.execute(
                "INSERT INTO q (ts, query, trace) VALUES (?, ?, ?)",
                (time.time(), res.query, json.dumps(res.to_dict())),
            )
        costs.append((time.perf_counter() - t0) * 1e6)
    conn.close()
    out.append(row("naive: INSERT + commit on the loop", costs, "for comparison"))
    return out


async def bench_http(rows: int, folder: Path) -> list[str]:
    settings = load_settings(environ={}, overrides={"data_dir": str(folder / "srv")})
    app = create_app(settings)
    client: TestClient[Any, Any] = TestClient(TestServer(app))
    await client.start_server()
    try:
        core = app[keys.CORE]
        now = time.time()
        for i in range(rows):
            core.querylog.record(sample(i), surface="rest", at=now - (rows - i))
        await core.querylog.flush(timeout=120)
        first = await (await client.get("/api/queries?limit=50")).json()
        cursor = first["next_cursor"]
        cases = [
            ("GET /api/queries?limit=50 (newest page)", "/api/queries?limit=50"),
            ("… &cursor=<page 2>", f"/api/queries?limit=50&cursor={cursor}"),
            (
                "… ?q=weather%20tomorrow%20%2399",
                "/api/queries?limit=50&q=weather%20tomorrow%20%2399",
            ),
            ("… ?fallback=true&source=ha", "/api/queries?limit=50&fallback=true&source=ha"),
            ("GET /api/queries/{id}", f"/api/queries/{first['queries'][0]['id']}"),
            ("GET /metrics", "/metrics"),
        ]
        out = [
            f"| request ({rows} rows logged) | n | p50 µs | p95 µs | p99 µs | mean µs | body |",
            "|---|---|---|---|---|---|---|",
        ]
        for name, path in cases:
            costs: list[float] = []
            size = 0
            for _ in range(60):
                t0 = time.perf_counter()
                resp = await client.get(path)
                body = await resp.read()
                costs.append((time.perf_counter() - t0) * 1e6)
                assert resp.status == 200, body[:200]
                size = len(body)
            out.append(row(name, costs, f"{size / 1024:.1f} KiB"))
        return out
    finally:
        await client.close()


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=10_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        print(f"Query log, {args.rows} questions, Python {sys.version.split()[0]}")
        print()
        print("\n".join(await bench_record(args.rows, folder)))
        print()
        print("\n".join(await bench_http(args.rows, folder)))
        size = sum(p.stat().st_size for p in (folder / "srv").glob("querylog.db*"))
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print()
        mib = size / 1024 / 1024
        print(f"querylog.db with {args.rows} rows: {mib:.1f} MiB; peak RSS {peak:.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
