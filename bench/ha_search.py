"""`POST /search` with `source=ha` against a real server and a real Home Assistant core.

Starts the test suite's Home Assistant 2025.4 core (tests/server/hass_fixture.py:
template entities, areas, aliases, recorder) from $MNEMOLIS_HA_VENV (default
.venv/ha), then a real `mnemolis serve` process connected to it over the
websocket API with the answer cache off for `ha`, and drives it with 1, 10 and
50 concurrent clients. Three kinds of question: a state question (answered
from the live state cache), an area listing, and a history question (a
`history/history_during_period` round trip to HA's recorder per request).
Each is measured with every client asking the same text ("same": the router
joins identical questions in flight) and with a unique text per request
("distinct": every request runs the source).

    .venv/server/bin/python bench/ha_search.py [--seconds 5] [--levels 1,10,50]
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

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.server.hass_fixture import launch  # noqa: E402

QUESTIONS = {
    "state": "Is the garage door open?",
    "area listing": "Which lights are on in the kitchen?",
    "history": "When did the front door last open?",
}


@dataclass
class Run:
    """Latencies of one kind of question at one concurrency level."""

    kind: str
    clients: int
    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    not_ok: int = 0
    seconds: float = 0.0

    def pct(self, p: float) -> float:
        """Percentile in milliseconds (nearest rank)."""
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
            f"| {self.kind} | {self.clients} | {n} | {n / self.seconds:.0f} | "
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


async def measure(url: str, kind: str, clients: int, seconds: float, distinct: bool) -> Run:
    """`clients` callers asking back to back for `seconds`.

    The router joins identical questions already in flight; ``distinct`` makes
    every request's text unique so each one runs the source.
    """
    run = Run(f"{kind} ({'distinct' if distinct else 'same'})", clients)
    counter = iter(range(10**9))
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector) as http:
        deadline = time.perf_counter() + seconds

        async def worker() -> None:
            while time.perf_counter() < deadline:
                query = QUESTIONS[kind]
                if distinct:
                    query = f"{query} (request {next(counter)})"
                body = {"query": query, "source": "ha"}
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
    tmp = Path(tempfile.mkdtemp(prefix="mnemolis-ha-bench-"))
    (tmp / "hass").mkdir()
    server: subprocess.Popen[bytes] | None = None
    hass = launch(tmp / "hass")
    try:
        hass.turn_on("input_boolean.kitchen_ceiling_power")
        hass.turn_on("input_boolean.front_door_contact")
        hass.turn_off("input_boolean.front_door_contact")
        port = _free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith("MNEMOLIS_")}
        env.update(
            {
                "MNEMOLIS_HA__URL": hass.url,
                "MNEMOLIS_HA__TOKEN": hass.token,
                "MNEMOLIS_CACHE__TTL": json.dumps({"ha": 0}),
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
        url = f"http://127.0.0.1:{port}"
        _wait_http(f"{url}/api/health", server)
        runs: list[Run] = []
        for kind in QUESTIONS:
            await measure(url, kind, 1, 0.5, True)  # warm up the connection and caches
            for distinct in (False, True):
                for clients in levels:
                    runs.append(await measure(url, kind, clients, args.seconds, distinct))
        rss, peak = _rss_mb(server.pid)
        print(
            f"mnemolis serve + Home Assistant 2025.4.4 core (same machine), answer cache off "
            f"for ha; {args.seconds:g} s per row; {os.cpu_count()} CPUs (shared)\n"
        )
        print(
            "| question | clients | requests | req/s | p50 ms | p95 ms | p99 ms | mean ms "
            "| errors | not ok |"
        )
        print("|---|---|---|---|---|---|---|---|---|---|")
        for run in runs:
            print(run.row())
        print(f"\nserver RSS after the run: {rss:.0f} MiB (peak {peak:.0f} MiB)")
    finally:
        if server is not None:
            server.terminate()
            try:
                server.wait(15)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait(5)
        hass.stop()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--levels", default="1,10,50")
    asyncio.run(main(parser.parse_args()))
