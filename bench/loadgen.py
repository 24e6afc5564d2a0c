"""Shared pieces of the HTTP load benchmarks: a closed-loop load generator and process helpers.

Used by bench/ha_search.py, bench/sources_bench.py and bench/compare_search.py
so that every table is measured and summarised the same way (nearest-rank
percentiles over the latencies of answered requests).
"""

from __future__ import annotations

import asyncio
import os
import random
import socket
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import count
from pathlib import Path
from typing import Any

import aiohttp

#: What a benchmark sends per request: the request number -> the JSON body.
RequestBody = Callable[[int], dict[str, Any]]
#: Whether a 200 answer's parsed JSON is a usable answer (else counted as "not ok").
AnswerCheck = Callable[[Any], bool]


@dataclass
class Run:
    """Latencies of one labelled load at one concurrency level."""

    label: str
    clients: int
    latencies: list[float] = field(default_factory=list)
    #: Latencies per label of the request (see ``closed_loop``'s ``label``).
    by_label: dict[str, list[float]] = field(default_factory=dict)
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

    @staticmethod
    def header(label: str) -> str:
        """The Markdown table head for `row()`, first column named ``label``."""
        return (
            f"| {label} | clients | requests | req/s | p50 ms | p95 ms | p99 ms | mean ms "
            "| errors | not ok |\n|---|---|---|---|---|---|---|---|---|---|"
        )

    def row(self) -> str:
        """One Markdown table row."""
        n = len(self.latencies)
        mean = statistics.fmean(self.latencies) * 1000 if n else float("nan")
        return (
            f"| {self.label} | {self.clients} | {n} | {n / self.seconds:.0f} | "
            f"{self.pct(50):.1f} | {self.pct(95):.1f} | {self.pct(99):.1f} | {mean:.1f} | "
            f"{self.errors} | {self.not_ok} |"
        )


def first_source_ok(data: Any) -> bool:
    """A `/search` answer whose first source run reports status ok."""
    return bool(data["sources"][0]["status"] == "ok")


async def closed_loop(
    url: str,
    run: Run,
    seconds: float,
    body: RequestBody,
    check: AnswerCheck | None = None,
    think: float = 0.0,
    label: Callable[[int], str] | None = None,
) -> Run:
    """``run.clients`` callers POSTing to ``url`` for ``seconds``.

    With ``think`` 0 each caller asks again the moment it has its answer (a
    saturation test: latency then grows with the queue, p50 ≈ clients ÷
    throughput). With ``think`` > 0 each caller pauses a random time averaging
    ``think`` seconds between questions, as people and automations do, and
    the callers start spread over one such pause. ``label`` names request
    number n (e.g. which question it asked) to keep its latency apart too.

    Non-200 answers and transport failures count as errors; with ``check`` the
    answer is parsed as JSON and a failed check counts as "not ok" (its
    latency still counts), without it the body is only read.
    """
    numbers = count()
    pace = random.Random(7)
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as http:
        deadline = time.perf_counter() + seconds

        async def worker() -> None:
            if think > 0:
                await asyncio.sleep(pace.uniform(0, think))
            asked = False
            while time.perf_counter() < deadline:
                if think > 0 and asked:
                    await asyncio.sleep(pace.expovariate(1 / think))
                    if time.perf_counter() >= deadline:
                        break
                asked = True
                number = next(numbers)
                payload = body(number)
                started = time.perf_counter()
                try:
                    async with http.post(url, json=payload) as resp:
                        data = await resp.json() if check is not None else await resp.read()
                        if resp.status != 200:
                            run.errors += 1
                            continue
                except (aiohttp.ClientError, ValueError):
                    run.errors += 1
                    continue
                run.latencies.append(time.perf_counter() - started)
                if label is not None:
                    run.by_label.setdefault(label(number), []).append(run.latencies[-1])
                if check is not None and not check(data):
                    run.not_ok += 1

        began = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(run.clients)))
        run.seconds = time.perf_counter() - began
    return run


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_http(url: str, proc: subprocess.Popen[bytes], timeout: float = 60) -> None:
    """Block until ``url`` answers at all (any HTTP status), or exit if ``proc`` dies."""
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


def rss_mb(pid: int) -> tuple[float, float]:
    """Resident and peak resident memory of a process, in MiB."""
    values = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, rest = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            values[key] = int(rest.split()[0]) / 1024
    return values.get("VmRSS", 0.0), values.get("VmHWM", 0.0)


def rss_parts(pid: int) -> dict[str, float]:
    """Resident MiB of a process by what is mapped: model files, shared libraries (by
    package), and anonymous memory (the Python heap, numpy, llama.cpp's buffers)."""
    parts: dict[str, float] = {}
    where = "anonymous"
    for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
        head = line.split()
        if head and "-" in head[0] and len(head) >= 5 and not head[0].endswith(":"):
            path = head[5] if len(head) > 5 else ""
            if path.endswith(".gguf"):
                where = "model files (.gguf)"
            elif ".so" in path:
                package = (
                    path.split("site-packages/")[-1].split("/")[0]
                    if "site-packages" in path
                    else "system"
                )
                where = f"shared libraries: {package}"
            elif path.startswith("/"):
                where = "other files"
            else:
                where = "anonymous"
        elif line.startswith("Rss:"):
            parts[where] = parts.get(where, 0.0) + int(head[1]) / 1024
    return parts


def mnemolis_env(settings: dict[str, str]) -> dict[str, str]:
    """This environment without MNEMOLIS_* settings, plus ``settings`` and no rate limits."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MNEMOLIS_")}
    env.update(
        {
            **settings,
            "MNEMOLIS_LIMITS__RATE_PER_MINUTE": "0",
            "MNEMOLIS_LIMITS__CONCURRENCY_PER_CLIENT": "0",
            "MNEMOLIS_LOG_LEVEL": "warning",
        }
    )
    return env


def serve_cmd(port: int, data_dir: Path) -> list[str]:
    """The `mnemolis serve` command line of this venv."""
    server_bin = Path(sys.executable).parent / "mnemolis"
    return [str(server_bin), "serve", "--port", str(port), "--data-dir", str(data_dir)]


def start(cmd: list[str], env: dict[str, str] | None, health: str) -> subprocess.Popen[bytes]:
    """Start a server (output discarded) and wait for its health URL; stop it if that fails."""
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_http(health, proc)
    except BaseException:
        stop(proc)
        raise
    return proc


def stop(proc: subprocess.Popen[bytes] | None) -> None:
    """SIGTERM, then SIGKILL if it hangs."""
    if proc is None or proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)
