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
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp
from aiohttp import web

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

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


@dataclass
class Run:
    """Latencies of one source at one concurrency level."""

    source: str
    clients: int
    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    not_ok: int = 0
    seconds: float = 0.0

    def pct(self, p: float) -> float:
        """Percentile in milliseconds."""
        if not self.latencies:
            return float("nan")
        ordered = sorted(self.latencies)
        index = min(len(ordered) - 1, max(0, round(p / 100 * len(ordered)) - 1))
        return ordered[index] * 1000

    def row(self) -> str:
        """One Markdown table row."""
        n = len(self.latencies)
        mean = statistics.fmean(self.latencies) * 1000 if n else float("nan")
        return (
            f"| {self.source} | {self.clients} | {n} | {n / self.seconds:.0f} | "
            f"{self.pct(50):.1f} | {self.pct(95):.1f} | {self.pct(99):.1f} | {mean:.1f} | "
            f"{self.errors} | {self.not_ok} |"
        )


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_http(url: str, proc: subprocess.Popen[bytes], timeout: float = 60) -> None:
    import urllib.error
    import urllib.request

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"{url}: process exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except urllib.error.HTTPError:
            return
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"{url} did not answer within {timeout}s")


def _rss_mb(pid: int) -> tuple[float, float]:
    values = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, rest = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            values[key] = int(rest.split()[0]) / 1024
    return values.get("VmRSS", 0.0), values.get("VmHWM", 0.0)


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
    run = Run(source, clients)
    body = {"query": QUESTIONS[source], "source": source}
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector) as http:
        deadline = time.perf_counter() + seconds

        async def worker() -> None:
            while time.perf_counter() < deadline:
                started = time.perf_counter()
                try:
                    async with http.post(f"{url}/search", json=body) as resp:
                        data = await resp.json()
                        if resp.status != 200:
                            run.errors += 1
                            continue
                except (aiohttp.ClientError, ValueError):
                    run.errors += 1
                    continue
                run.latencies.append(time.perf_counter() - started)
                if data["sources"][0]["status"] != "ok":
                    run.not_ok += 1

        began = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(clients)))
        run.seconds = time.perf_counter() - began
    return run


async def main(args: argparse.Namespace) -> None:
    levels = [int(x) for x in args.levels.split(",")]
    sources = args.sources.split(",")
    tmp = Path(tempfile.mkdtemp(prefix="mnemolis-sources-bench-"))
    procs: list[subprocess.Popen[bytes]] = []
    ports = {"web": _free_port(), "uptime": _free_port(), "news": _free_port()}
    try:
        # The stubs get their own process so they do not share this client's GIL.
        stubs = subprocess.Popen(
            [sys.executable, __file__, "--serve-stubs", json.dumps(ports)],
            stdout=subprocess.DEVNULL,
        )
        procs.append(stubs)
        _wait_http(f"http://127.0.0.1:{ports['web']}/healthz", stubs)
        wiki = write_zim(tmp / "testwiki.zim", "testwiki_en", "Test Wiki", WIKI_ARTICLES)
        cook = write_zim(tmp / "cookbook.zim", "cookbook_en", "Test Cookbook", COOKING_ARTICLES)
        kiwix_port = _free_port()
        kiwix_bin = shutil.which("kiwix-serve") or "/usr/bin/kiwix-serve"
        kiwix = subprocess.Popen(
            [kiwix_bin, "--address=127.0.0.1", f"--port={kiwix_port}", str(wiki), str(cook)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        procs.append(kiwix)
        kiwix_url = f"http://127.0.0.1:{kiwix_port}"
        _wait_http(f"{kiwix_url}/catalog/v2/entries", kiwix)

        port = _free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith("MNEMOLIS_")}
        env.update(
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
                "MNEMOLIS_LIMITS__RATE_PER_MINUTE": "0",
                "MNEMOLIS_LIMITS__CONCURRENCY_PER_CLIENT": "0",
                "MNEMOLIS_LOG_LEVEL": "warning",
            }
        )
        server_bin = Path(sys.executable).parent / "mnemolis"
        server = subprocess.Popen(
            [str(server_bin), "serve", "--port", str(port), "--data-dir", str(tmp / "data")],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        procs.append(server)
        url = f"http://127.0.0.1:{port}"
        _wait_http(f"{url}/api/health", server)

        runs: list[Run] = []
        for source in sources:
            await measure(url, source, 1, 0.5)  # warm up: catalog, feeds, connections
            for clients in levels:
                runs.append(await measure(url, source, clients, args.seconds))
        rss, peak = _rss_mb(server.pid)

        print(
            f"mnemolis serve, answer cache off for {', '.join(sources)}; "
            f"{args.seconds:g} s per row; {os.cpu_count()} CPUs (shared)\n"
        )
        print(
            "| source | clients | requests | req/s | p50 ms | p95 ms | p99 ms | mean ms "
            "| errors | not ok |"
        )
        print("|---|---|---|---|---|---|---|---|---|---|")
        for run in runs:
            print(run.row())
        print(f"\nserver RSS after the run: {rss:.0f} MiB (peak {peak:.0f} MiB)")
    finally:
        for proc in reversed(procs):
            proc.terminate()
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
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
