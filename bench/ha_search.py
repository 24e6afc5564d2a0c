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
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

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
)

from tests.server.hass_fixture import launch  # noqa: E402

QUESTIONS = {
    "state": "Is the garage door open?",
    "area listing": "Which lights are on in the kitchen?",
    "history": "When did the front door last open?",
}


async def measure(url: str, kind: str, clients: int, seconds: float, distinct: bool) -> Run:
    """`clients` callers asking back to back for `seconds`.

    The router joins identical questions already in flight; ``distinct`` makes
    every request's text unique so each one runs the source.
    """

    def body(n: int) -> dict[str, Any]:
        query = f"{QUESTIONS[kind]} (request {n})" if distinct else QUESTIONS[kind]
        return {"query": query, "source": "ha"}

    run = Run(f"{kind} ({'distinct' if distinct else 'same'})", clients)
    return await closed_loop(f"{url}/search", run, seconds, body, first_source_ok)


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
        port = free_port()
        env = mnemolis_env(
            {
                "MNEMOLIS_HA__URL": hass.url,
                "MNEMOLIS_HA__TOKEN": hass.token,
                "MNEMOLIS_CACHE__TTL": json.dumps({"ha": 0}),
            }
        )
        url = f"http://127.0.0.1:{port}"
        server = start(serve_cmd(port, tmp / "data"), env, f"{url}/api/health")
        runs: list[Run] = []
        for kind in QUESTIONS:
            await measure(url, kind, 1, 0.5, True)  # warm up the connection and caches
            for distinct in (False, True):
                for clients in levels:
                    runs.append(await measure(url, kind, clients, args.seconds, distinct))
        rss, peak = rss_mb(server.pid)
        print(
            f"mnemolis serve + Home Assistant 2025.4.4 core (same machine), answer cache off "
            f"for ha; {args.seconds:g} s per row; {os.cpu_count()} CPUs (shared)\n"
        )
        print(Run.header("question"))
        for run in runs:
            print(run.row())
        print(f"\nserver RSS after the run: {rss:.0f} MiB (peak {peak:.0f} MiB)")
    finally:
        stop(server)
        hass.stop()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--levels", default="1,10,50")
    asyncio.run(main(parser.parse_args()))
