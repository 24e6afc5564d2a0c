"""The naive design Mnemolis is measured against: every backend, in turn, on every question.

A tiny aiohttp server with the same ``POST /search {"query"}`` shape. For each
question it asks Home Assistant's REST API for all states, SearXNG, the
Uptime Kuma status page, then reads the documents folder and the memories
file from disk, one after another, with no router and no cache, and answers
with the best-overlapping line. Used by bench/compare_search.py.

    python bench/naive_baseline.py --port P --ha-url U --ha-token T --searxng U \\
        --uptime U --docs DIR --memories FILE
"""

from __future__ import annotations

import argparse
import json
import re
import time
from pathlib import Path
from typing import Any

import aiohttp
from aiohttp import web

WORD = re.compile(r"\w+")
ARGS = web.AppKey("args", argparse.Namespace)
SESSION = web.AppKey("session", aiohttp.ClientSession)


def words(text: str) -> set[str]:
    """Lower-cased words of three letters or more."""
    return {w for w in WORD.findall(text.lower()) if len(w) >= 3}


def best(question: str, lines: list[tuple[str, str]]) -> tuple[int, str, str]:
    """The (overlap, source, line) with most words in common with the question."""
    q = words(question)
    top = (0, "none", "")
    for source, line in lines:
        score = len(q & words(line))
        if score > top[0]:
            top = (score, source, line)
    return top


async def search(request: web.Request) -> web.Response:
    """Call every backend in turn, then pick the best line."""
    started = time.perf_counter()
    args = request.app[ARGS]
    http = request.app[SESSION]
    question = str((await request.json())["query"])
    lines: list[tuple[str, str]] = []
    headers = {"Authorization": f"Bearer {args.ha_token}"}
    async with http.get(f"{args.ha_url}/api/states", headers=headers) as resp:
        for st in await resp.json():
            name = st["attributes"].get("friendly_name", st["entity_id"])
            unit = st["attributes"].get("unit_of_measurement", "")
            lines.append(("ha", f"{name} is {st['state']} {unit}".strip()))
    params = {"q": question, "format": "json"}
    async with http.get(f"{args.searxng}/search", params=params) as resp:
        for hit in (await resp.json()).get("results", []):
            lines.append(("web", f"{hit['title']}: {hit.get('content', '')}"))
    async with http.get(f"{args.uptime}/api/status-page/home") as resp:
        page = await resp.json()
    async with http.get(f"{args.uptime}/api/status-page/heartbeat/home") as resp:
        beats = await resp.json()
    for group in page.get("publicGroupList", []):
        for mon in group.get("monitorList", []):
            last = (beats.get("heartbeatList", {}).get(str(mon["id"])) or [{}])[-1]
            up = "up" if last.get("status") == 1 else "down"
            lines.append(("uptime", f"{mon['name']} is {up}"))
    for path in sorted(Path(args.docs).rglob("*")):
        if path.is_file():
            for para in path.read_text(encoding="utf-8", errors="replace").split("\n\n"):
                if para.strip():
                    lines.append(("rag", para.strip()))
    for memory in json.loads(Path(args.memories).read_text(encoding="utf-8")):
        lines.append(("memory", memory))
    score, source, line = best(question, lines)
    body: dict[str, Any] = {
        "result": line or "I could not find an answer.",
        "source_used": source,
        "elapsed_ms": round((time.perf_counter() - started) * 1000, 2),
    }
    return web.json_response(body)


async def health(request: web.Request) -> web.Response:
    """Liveness for the benchmark's start-up wait."""
    return web.json_response({"status": "ok"})


def make_app(args: argparse.Namespace) -> web.Application:
    """The baseline app; one client session for all backend calls."""
    app = web.Application()
    app[ARGS] = args

    async def session_ctx(app: web.Application) -> Any:
        app[SESSION] = aiohttp.ClientSession()
        yield
        await app[SESSION].close()

    app.cleanup_ctx.append(session_ctx)
    app.router.add_post("/search", search)
    app.router.add_get("/api/health", health)
    return app


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name in ("--ha-url", "--ha-token", "--searxng", "--uptime", "--docs", "--memories"):
        parser.add_argument(name, required=True)
    parser.add_argument("--port", type=int, required=True)
    ns = parser.parse_args()
    web.run_app(make_app(ns), host="127.0.0.1", port=ns.port, print=None, access_log=None)
