"""The same routed question mix against Mnemolis and against the naive design, in one run.

Starts the test suite's Home Assistant 2025.4 core (tests/server/hass_fixture.py),
the SearXNG and Uptime Kuma wire-format stubs, a documents folder and a
memories list; then a real `mnemolis serve` process (the folder registered as
a database, the memories written through the API) and bench/naive_baseline.py
(every backend in turn, no router, no cache) over the same backends. Both get
the same questions (`source` auto) from 1, 10 and 50 concurrent clients:

* "local": HA states, the documents database and memories;
* "mixed": the local questions plus web (SearXNG) and uptime (Uptime Kuma).

Each mix runs "repeat" (the same few questions over and over, as voice
assistants ask them; Mnemolis's answer cache is in play) and "distinct" (a
number inside each question, so no cached answer can be reused). "server CPU
ms/req" is the server process's own CPU time per answered request (the figure
least disturbed by other load on the machine); "HA CPU ms/req" is what Home
Assistant spent per request on the system's behalf.

Two kinds of load. "saturated": every client asks again the moment it has its
answer, so the server is never idle and latency is mostly queueing (p50 ≈
clients ÷ req/s, whatever the server). "paced": the local mix again from
``--paced-clients`` clients that each pause ``--think`` seconds on average
(random, exponential) between questions: the latency a household's callers
see when they are many but not hammering.

    .venv/server/bin/python bench/compare_search.py [--seconds 4] [--levels 1,10,50]
        [--paced-clients 50] [--think 1]
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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from loadgen import (  # noqa: E402
    Run,
    closed_loop,
    free_port,
    mnemolis_env,
    rss_mb,
    serve_cmd,
    start,
    stop,
)

from tests.server.faultproxy import BackgroundLoop  # noqa: E402
from tests.server.hass_fixture import launch  # noqa: E402
from tests.server.stubs.searxng import searxng_app  # noqa: E402
from tests.server.stubs.uptime_kuma import uptime_kuma_app  # noqa: E402

LOCAL = [
    "Is the garage door open?",
    "What is the kitchen humidity?",
    "How do I reset the boiler?",
    "When should I prune the roses?",
    "Where is the spare house key?",
]
MIXED = [*LOCAL, "What is MQTT?", "Is the NAS up?"]
MEMORIES = [
    "The spare house key is under the blue flower pot by the back door.",
    "The water meter is read on the first day of every month.",
    "Grandma's birthday is on 14 March.",
]
DOCS = {
    "boiler.md": "# Boiler\n\nReset the boiler by holding the red button for five seconds.\n\n"
    "Keep the pressure gauge between 1 and 1.5 bar.\n",
    "garden.md": "# Garden\n\nPrune the roses in March, just above an outward bud.\n\n"
    "Water the tomatoes every morning in July.\n",
    "wifi.txt": "The guest wifi network is called Meadowlark.\n\n"
    "The router sits in the hallway cupboard.\n",
}


@dataclass
class SystemRun(Run):
    """Latencies for one system and mix at one concurrency level, with CPU spent per request."""

    system: str = ""
    mix: str = ""
    cpu_s: float = 0.0
    ha_cpu_s: float = 0.0
    think: float = 0.0

    def row(self) -> str:
        """One Markdown table row."""
        n = len(self.latencies)
        load = f"paced {self.think:g} s" if self.think else "saturated"
        return (
            f"| {self.system} | {self.mix} | {load} | {self.clients} | {n / self.seconds:.0f} | "
            f"{self.pct(50):.1f} | {self.pct(95):.1f} | {self.pct(99):.1f} | "
            f"{self.cpu_s * 1000 / max(n, 1):.2f} | {self.ha_cpu_s * 1000 / max(n, 1):.2f} | "
            f"{self.errors} |"
        )


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def measure(
    url: str,
    system: str,
    mix: str,
    questions: list[str],
    clients: int,
    seconds: float,
    pids: tuple[int, int],
    think: float = 0.0,
) -> SystemRun:
    """``clients`` callers asking the mix for ``seconds`` (pausing ``think`` s on average)."""
    distinct = mix.endswith("distinct")

    def body(n: int) -> dict[str, Any]:
        query = questions[n % len(questions)]
        if distinct:
            # Inside the sentence: text after the "?" would be routed as a second part.
            query = f"{query.rstrip('?')} ({n})?"
        return {"query": query}

    run = SystemRun(f"{system} {mix}", clients, system=system, mix=mix, think=think)
    pid, ha_pid = pids
    cpu_before, ha_before = cpu_seconds(pid), cpu_seconds(ha_pid)
    await closed_loop(
        f"{url}/search",
        run,
        seconds,
        body,
        think=think,
        label=lambda n: questions[n % len(questions)],
    )
    run.cpu_s = cpu_seconds(pid) - cpu_before
    run.ha_cpu_s = cpu_seconds(ha_pid) - ha_before
    return run


async def prepare_mnemolis(url: str, docs: Path) -> None:
    """Register the documents, wait until indexed, write the memories."""
    async with aiohttp.ClientSession() as http:
        async with http.post(f"{url}/api/rag", json={"name": "house", "path": str(docs)}) as r:
            assert r.status == 201, await r.text()
        for _ in range(300):
            async with http.get(f"{url}/api/rag/house") as r:
                status = await r.json()
            if status["files_indexed"] == len(DOCS) and not status["indexing"]:
                break
            await asyncio.sleep(0.1)
        for memory in MEMORIES:
            async with http.post(f"{url}/api/memories", json={"content": memory}) as r:
                assert r.status == 201, await r.text()


async def who_answers(m_url: str, n_url: str) -> dict[str, tuple[str, str]]:
    """Which source each system answered each question from (printed with the tables)."""
    out: dict[str, tuple[str, str]] = {}
    async with aiohttp.ClientSession() as http:
        for question in MIXED:
            used = []
            for url in (m_url, n_url):
                async with http.post(f"{url}/search", json={"query": question}) as resp:
                    used.append(str((await resp.json())["source_used"]))
            out[question] = (used[0], used[1])
    return out


async def main(args: argparse.Namespace) -> None:
    levels = [int(x) for x in args.levels.split(",")]
    tmp = Path(tempfile.mkdtemp(prefix="mnemolis-compare-"))
    (tmp / "hass").mkdir()
    docs = tmp / "docs"
    docs.mkdir()
    for name, text in DOCS.items():
        (docs / name).write_text(text, encoding="utf-8")
    (tmp / "memories.json").write_text(json.dumps(MEMORIES), encoding="utf-8")
    loop = BackgroundLoop()
    searxng = loop.serve_app(searxng_app())
    uptime = loop.serve_app(uptime_kuma_app())
    hass = launch(tmp / "hass")
    mnemolis: subprocess.Popen[bytes] | None = None
    naive: subprocess.Popen[bytes] | None = None
    try:
        env = mnemolis_env(
            {
                "MNEMOLIS_HA__URL": hass.url,
                "MNEMOLIS_HA__TOKEN": hass.token,
                "MNEMOLIS_WEB__SEARXNG_URL": searxng,
                "MNEMOLIS_UPTIME__URL": uptime,
                "MNEMOLIS_UPTIME__SLUG": "home",
                "MNEMOLIS_RAG__ROOTS": json.dumps([str(tmp)]),
            }
        )
        m_port, n_port = free_port(), free_port()
        m_url, n_url = f"http://127.0.0.1:{m_port}", f"http://127.0.0.1:{n_port}"
        mnemolis = start(serve_cmd(m_port, tmp / "data"), env, f"{m_url}/api/health")
        await prepare_mnemolis(m_url, docs)
        naive = start(
            [
                sys.executable,
                str(REPO / "bench" / "naive_baseline.py"),
                *("--port", str(n_port), "--ha-url", hass.url, "--ha-token", hass.token),
                *("--searxng", searxng, "--uptime", uptime, "--docs", str(docs)),
                *("--memories", str(tmp / "memories.json")),
            ],
            env,
            f"{n_url}/api/health",
        )
        answered = await who_answers(m_url, n_url)
        assert hass.proc is not None
        ha_pid = hass.proc.pid
        runs: list[SystemRun] = []
        for mix, questions in (("local", LOCAL), ("mixed", MIXED)):
            for variant in ("repeat", "distinct"):
                name = f"{mix} {variant}"
                for system, url, pid in (
                    ("mnemolis", m_url, mnemolis.pid),
                    ("naive", n_url, naive.pid),
                ):
                    pids = (pid, ha_pid)
                    await measure(url, system, name, questions, 1, 0.5, pids)  # warm-up
                    for clients in levels:
                        runs.append(
                            await measure(url, system, name, questions, clients, args.seconds, pids)
                        )
                    if mix == "local" and args.paced_clients:
                        runs.append(
                            await measure(
                                url,
                                system,
                                name,
                                questions,
                                args.paced_clients,
                                max(args.seconds * 2, 3 * args.think),
                                pids,
                                think=args.think,
                            )
                        )
        m_rss, m_peak = rss_mb(mnemolis.pid)
        n_rss, n_peak = rss_mb(naive.pid)
        print(
            f"Same questions (`source` auto) against `mnemolis serve` and the naive baseline "
            f"(bench/naive_baseline.py: every backend in turn, no cache), both over the same "
            f"Home Assistant 2025.4.4 core, documents, memories and stubs; {args.seconds:g} s "
            f"per row; {os.cpu_count()} CPUs (shared)\n"
        )
        print(
            "| system | mix | load | clients | req/s | p50 ms | p95 ms | p99 ms "
            "| server CPU ms/req | HA CPU ms/req | errors |"
        )
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for run in sorted(runs, key=lambda r: (r.mix, r.think > 0, r.clients, r.system)):
            print(run.row())
        print("\nPer question, local distinct, 50 saturating clients (where the queueing lands):\n")
        print("| question | mnemolis p50 ms | mnemolis p95 ms | naive p50 ms | naive p95 ms |")
        print("|---|---|---|---|---|")
        worst = {
            r.system: r
            for r in runs
            if r.mix == "local distinct" and r.clients == max(levels) and not r.think
        }
        for question in LOCAL:
            cells = []
            for system in ("mnemolis", "naive"):
                got = worst.get(system)
                lat = sorted(got.by_label.get(question, [])) if got else []
                for p in (50, 95):
                    cells.append(
                        f"{lat[min(len(lat) - 1, round(p / 100 * len(lat)) - 1)] * 1000:.1f}"
                        if lat
                        else "n/a"
                    )
            print(f"| {question} | {' | '.join(cells)} |")
        print("\n| question | mnemolis answered from | naive answered from |")
        print("|---|---|---|")
        for question, (m_source, n_source) in answered.items():
            print(f"| {question} | {m_source} | {n_source} |")
        print("\n| system | RSS after the run MiB | peak RSS MiB |")
        print("|---|---|---|")
        print(f"| mnemolis | {m_rss:.0f} | {m_peak:.0f} |")
        print(f"| naive | {n_rss:.0f} | {n_peak:.0f} |")
    finally:
        stop(mnemolis)
        stop(naive)
        hass.stop()
        loop.close()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--levels", default="1,10,50")
    parser.add_argument("--paced-clients", type=int, default=50)
    parser.add_argument("--think", type=float, default=1.0)
    asyncio.run(main(parser.parse_args()))
