"""`POST /search` with an explicit outside source: kiwix, web, uptime and news.

A real `mnemolis serve` process with the answer cache switched off for these
sources, so every request goes through the connector to its backend: a real
kiwix-serve with two ZIM books written by libzim (the test fixture's books),
and the wire-format stubs of the tests for SearXNG, Uptime Kuma and an RSS/Atom
host (served by a child process of this script). News answers come from parsed
feeds kept between conditional fetches (news.refresh_seconds), which is how
the source runs in production.

    .venv/server/bin/python bench/sources_bench.py [--seconds 5] [--levels 1,10,50]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from aiohttp import web

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from loadgen import (  # noqa: E402
    Run,
    closed_loop,
    first_source_ok,
    free_port,
    mnemolis_env,
    rss_mb,
    serve_cmd,
    start,
    stop,
    wait_http,
)

from tests.server.stubs.feeds import feed_app  # noqa: E402
from tests.server.stubs.searxng import searxng_app  # noqa: E402
from tests.server.stubs.uptime_kuma import uptime_kuma_app  # noqa: E402
from tests.server.zim_fixture import COOKING_ARTICLES, WIKI_ARTICLES, write_zim  # noqa: E402

QUESTIONS = {
    "kiwix": "Who was the first computer programmer?",
    "web": "what is mqtt",
    "uptime": "is the NAS up?",
    "news": "any news about the flood warning?",
}


async def serve_stubs(ports: dict[str, int]) -> None:
    """SearXNG, Uptime Kuma and feed stubs until terminated (run in a child process)."""
    apps = {"web": searxng_app(), "uptime": uptime_kuma_app(), "news": feed_app()}
    for name, app in apps.items():
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", ports[name]).start()
    await asyncio.Event().wait()


async def measure(url: str, source: str, clients: int, seconds: float) -> Run:
    """`clients` callers asking one source back to back for `seconds`."""
    body = {"query": QUESTIONS[source], "source": source}
    run = Run(source, clients)
    return await closed_loop(f"{url}/search", run, seconds, lambda _: body, first_source_ok)


async def main(args: argparse.Namespace) -> None:
    levels = [int(x) for x in args.levels.split(",")]
    sources = args.sources.split(",")
    tmp = Path(tempfile.mkdtemp(prefix="mnemolis-sources-bench-"))
    procs: list[subprocess.Popen[bytes]] = []
    ports = {"web": free_port(), "uptime": free_port(), "news": free_port()}
    try:
        # The stubs get their own process so they do not share this client's GIL.
        stubs = subprocess.Popen(
            [sys.executable, __file__, "--serve-stubs", json.dumps(ports)],
            stdout=subprocess.DEVNULL,
        )
        procs.append(stubs)
        wait_http(f"http://127.0.0.1:{ports['web']}/healthz", stubs)
        wiki = write_zim(tmp / "testwiki.zim", "testwiki_en", "Test Wiki", WIKI_ARTICLES)
        cook = write_zim(tmp / "cookbook.zim", "cookbook_en", "Test Cookbook", COOKING_ARTICLES)
        kiwix_port = free_port()
        kiwix_bin = shutil.which("kiwix-serve") or "/usr/bin/kiwix-serve"
        kiwix_url = f"http://127.0.0.1:{kiwix_port}"
        kiwix = start(
            [kiwix_bin, "--address=127.0.0.1", f"--port={kiwix_port}", str(wiki), str(cook)],
            None,
            f"{kiwix_url}/catalog/v2/entries",
        )
        procs.append(kiwix)

        port = free_port()
        env = mnemolis_env(
            {
                "MNEMOLIS_KIWIX__URL": kiwix_url,
                "MNEMOLIS_WEB__SEARXNG_URL": f"http://127.0.0.1:{ports['web']}",
                "MNEMOLIS_UPTIME__URL": f"http://127.0.0.1:{ports['uptime']}",
                "MNEMOLIS_UPTIME__SLUG": "home",
                "MNEMOLIS_NEWS__FEEDS": json.dumps(
                    [
                        f"http://127.0.0.1:{ports['news']}/feeds/rss.xml",
                        f"http://127.0.0.1:{ports['news']}/feeds/atom.xml",
                    ]
                ),
                "MNEMOLIS_CACHE__TTL": json.dumps(dict.fromkeys(QUESTIONS, 0)),
            }
        )
        url = f"http://127.0.0.1:{port}"
        server = start(serve_cmd(port, tmp / "data"), env, f"{url}/api/health")
        procs.append(server)

        runs: list[Run] = []
        for source in sources:
            await measure(url, source, 1, 0.5)  # warm up: catalog, feeds, connections
            for clients in levels:
                runs.append(await measure(url, source, clients, args.seconds))
        rss, peak = rss_mb(server.pid)

        print(
            f"mnemolis serve, answer cache off for {', '.join(sources)}; "
            f"{args.seconds:g} s per row; {os.cpu_count()} CPUs (shared)\n"
        )
        print(Run.header("source"))
        for run in runs:
            print(run.row())
        print(f"\nserver RSS after the run: {rss:.0f} MiB (peak {peak:.0f} MiB)")
    finally:
        for proc in reversed(procs):
            stop(proc)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--levels", default="1,10,50")
    parser.add_argument("--sources", default="kiwix,web,uptime,news")
    parser.add_argument("--serve-stubs", metavar="PORTS", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.serve_stubs:
        asyncio.run(serve_stubs(json.loads(arguments.serve_stubs)))
    else:
        asyncio.run(main(arguments))
