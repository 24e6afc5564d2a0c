"""Long questions against the deadline: ten 4,000-character `/search` at once (issue 29).

A real `mnemolis serve` with the default embedding model on (the bundled
all-MiniLM-L6-v2, converted at first start) gets ten distinct 4,000-character
questions at once, several rounds, the first while the model is still
embedding the bundled docs. Meanwhile a prober asks `GET /api/health` every
25 ms. Printed: the health latencies (the event loop's responsiveness) and,
per round, how long each `/search` took against `routing.deadline` + 1 s.

    .venv/server/bin/python bench/deadline_bench.py [--rounds N] [--deadline S] [--url URL]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from loadgen import free_port, mnemolis_env, serve_cmd, start, stop

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "addon" / "src" / "mnemolis" / "bundled_docs"
LENGTH = 4000
PROBE_EVERY_S = 0.025
MAX_ROUNDS = 10


def questions(round_no: int) -> list[tuple[str, str]]:
    """Ten distinct questions of exactly LENGTH characters, different in every round."""
    rng = random.Random(round_no)
    pages = sorted(DOCS.glob("*.md"))
    prose = [p.read_text(encoding="utf-8").replace("\n", " ") for p in pages]
    asks = [
        "is the garage door open",
        "what's the weather tomorrow",
        "how do I connect Claude Desktop",
        "are my services up",
        "what changed since yesterday",
        "what's in the news",
        "when do the bins go out",
        "how do I reset the boiler",
    ]
    words = " ".join(prose).split()
    out: list[tuple[str, str]] = []
    for n in range(4):  # documentation prose, from a different page each time
        text = prose[(round_no * 4 + n) % len(prose)]
        start_at = rng.randrange(max(1, len(text) - LENGTH))
        out.append(("docs prose", (text[start_at:] + " " + text)[:LENGTH]))
    for _ in range(2):  # many asks in one breath
        chain = ", and ".join(rng.choice(asks) for _ in range(200))
        out.append(("asks joined by and", chain[:LENGTH]))
    out.append(("emoji", "".join(rng.choice("😀🙂🚀🏠🔥🌧️") for _ in range(LENGTH))[:LENGTH]))
    out.append(("random words", " ".join(rng.choice(words) for _ in range(2000))[:LENGTH]))
    out.append(("one word repeated", ("boiler " * LENGTH)[:LENGTH]))
    out.append(("no spaces", "".join(rng.choice("abcdefghij") for _ in range(LENGTH))))
    return out


def pct(values: list[float], p: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered)) - 1))]


async def probe(url: str, stop_at: asyncio.Event, out: list[float]) -> None:
    """GET /api/health every PROBE_EVERY_S until told to stop."""
    async with aiohttp.ClientSession() as http:
        while not stop_at.is_set():
            began = time.perf_counter()
            async with http.get(f"{url}/api/health") as resp:
                await resp.read()
            out.append((time.perf_counter() - began) * 1000)
            await asyncio.sleep(PROBE_EVERY_S)


async def ask(http: aiohttp.ClientSession, url: str, query: str) -> tuple[float, int, str]:
    """One /search: seconds taken, HTTP status, who answered."""
    began = time.perf_counter()
    try:
        async with http.post(f"{url}/search", json={"query": query}) as resp:
            body = await resp.json()
    except TimeoutError:  # the client's own bound (four deadlines): no answer at all
        return time.perf_counter() - began, 0, "no answer"
    used = body.get("source_used", body.get("error", {}).get("code", "?"))
    return time.perf_counter() - began, resp.status, str(used)


async def run(url: str, rounds: int, deadline: float) -> int:
    health: list[float] = []
    done = asyncio.Event()
    prober = asyncio.create_task(probe(url, done, health))
    rows: list[str] = []
    late = 0
    timeout = aiohttp.ClientTimeout(total=deadline * 4)
    async with aiohttp.ClientSession(timeout=timeout) as http:
        for round_no in range(rounds):
            asked = questions(round_no)
            began = time.perf_counter()
            results = await asyncio.gather(*(ask(http, url, q) for _, q in asked))
            wall = time.perf_counter() - began
            for (kind, _), (took, status, used) in zip(asked, results, strict=True):
                ok = took <= deadline + 1
                late += not ok
                rows.append(
                    f"| {round_no + 1} | {kind} | {status} | {used} | {took:.2f} | "
                    f"{'yes' if ok else '**no**'} |"
                )
            rows.append(f"| {round_no + 1} | *(round, wall clock)* | | | {wall:.2f} | |")
    done.set()
    await prober
    print(f"### `/api/health` while ten {LENGTH}-character questions run at once\n")
    print("| probes | p50 ms | p95 ms | p99 ms | max ms |\n|---|---|---|---|---|")
    print(
        f"| {len(health)} | {pct(health, 50):.1f} | {pct(health, 95):.1f} | "
        f"{pct(health, 99):.1f} | {max(health):.1f} |"
    )
    print(f"\n### Each `/search` against the deadline ({deadline:g} s + 1 s)\n")
    print(
        "| round | question | status | source_used | seconds | within |\n|---|---|---|---|---|---|"
    )
    print("\n".join(rows))
    verdict = "met" if late == 0 and pct(health, 99) < 100 else "**not met**"
    print(f"\nhealth p99 < 100 ms and every search by the deadline + 1 s: {verdict}")
    return 0


def ready(url: str, limit_s: float = 300) -> None:
    """Wait until the embedding model is loaded (it converts at first start)."""
    stop_at = time.monotonic() + limit_s
    while time.monotonic() < stop_at:
        with urllib.request.urlopen(f"{url}/api/health/readiness", timeout=5) as resp:
            detail = json.loads(resp.read())["components"]["model"]["detail"]
        if "embeddings:" in detail:
            return
        time.sleep(0.5)
    raise SystemExit(f"the embedding model did not load within {limit_s:g} s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--deadline", type=float, default=20.0)
    parser.add_argument("--url", help="ask a server already running (its deadline as given)")
    args = parser.parse_args()
    rounds = max(1, min(args.rounds, MAX_ROUNDS))
    if args.url:
        ready(args.url)
        return asyncio.run(run(args.url.rstrip("/"), rounds, args.deadline))
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="mnemolis-deadline-") as data:
        env = mnemolis_env({"MNEMOLIS_ROUTING__DEADLINE": str(args.deadline)})
        url = f"http://127.0.0.1:{port}"
        proc = start(serve_cmd(port, Path(data)), env, f"{url}/api/health")
        try:
            ready(url)
            return asyncio.run(run(url, rounds, args.deadline))
        finally:
            stop(proc)


if __name__ == "__main__":
    sys.exit(main())
