"""Time to answer one home question in-process, as the home grows to 3,000 entities.

No Home Assistant process: a synthetic home (rooms x device kinds, each entity
in its room, with the states, units and device classes HA publishes) is loaded
into the ``ha`` source's live state cache and registries, exactly where the
websocket client keeps them, and ``HASource.query`` answers a mix of home
questions (state, yes/no, measurement, listing, count, presence, thermostat).
This is the answering cost alone: matching names, picking the right attribute
and writing the sentence; the websocket round trips are not in it. A second table
times the router's condition check on the same home (``judge_ha`` deciding "if the
garage door is open, …" through the source's own answer).

    .venv/server/bin/python bench/ha_answer_bench.py [--sizes 100,1000,3000] [--rounds 30]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from datetime import UTC, datetime
from typing import Any

import aiohttp

from mnemolis.hass import HAClient
from mnemolis.services import Services
from mnemolis.settings import load_settings
from mnemolis.sources.base import QueryContext, SourceDeps
from mnemolis.sources.ha import HASource

ROOMS = [
    "Kitchen", "Living Room", "Bedroom", "Bathroom", "Garage", "Hallway",
    "Office", "Attic", "Basement", "Garden", "Nursery", "Guest Room",
]  # fmt: skip
# (domain, name suffix, state, attributes)
KINDS: list[tuple[str, str, str, dict[str, Any]]] = [
    ("light", "Ceiling Light", "on", {}),
    ("light", "Lamp", "off", {}),
    ("sensor", "Temperature", "21.5", {"device_class": "temperature", "unit_of_measurement": "°C"}),
    ("sensor", "Humidity", "48", {"device_class": "humidity", "unit_of_measurement": "%"}),
    ("binary_sensor", "Motion", "off", {"device_class": "motion"}),
    ("binary_sensor", "Door", "off", {"device_class": "door"}),
    ("binary_sensor", "Window", "on", {"device_class": "window"}),
    ("switch", "Plug", "on", {}),
    (
        "climate",
        "Thermostat",
        "heat",
        {"temperature": 21, "current_temperature": 19.5, "hvac_action": "heating"},
    ),
    ("cover", "Blind", "open", {"device_class": "blind", "current_position": 70}),
    ("media_player", "Speaker", "playing", {"media_title": "Blue in Green"}),
    ("binary_sensor", "Smoke Detector", "off", {"device_class": "smoke"}),
    ("sensor", "Power", "120", {"device_class": "power", "unit_of_measurement": "W"}),
    ("sensor", "Energy", "3.4", {"device_class": "energy", "unit_of_measurement": "kWh"}),
    ("sensor", "Battery", "87", {"device_class": "battery", "unit_of_measurement": "%"}),
    ("lock", "Lock", "locked", {}),
]
QUESTIONS = [
    "Is the garage door open?",
    "What is the kitchen temperature?",
    "Which lights are on?",
    "Which lights are on in the living room?",
    "How many windows are open?",
    "Is anybody home?",
    "What is the office thermostat set to?",
    "is the bedroom lock locked",
]
CONDITIONS = [
    "the garage door is open",
    "the kitchen temperature is above 25 degrees",
    "nobody is home",
    "the hallway window is open",
    "the office plug is on",
]
SIZES = (100, 300, 1000, 3000)


def home(size: int) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
    """``size`` states spread over the rooms, and their entity registry entries."""
    states: dict[str, dict[str, Any]] = {}
    entries: dict[str, dict[str, Any]] = {}
    stamp = datetime.now(UTC).replace(hour=7, minute=5).isoformat()
    for i in range(size - 4):
        room = ROOMS[i % len(ROOMS)]
        domain, kind, state, attrs = KINDS[(i // len(ROOMS)) % len(KINDS)]
        batch = i // (len(ROOMS) * len(KINDS))
        name = f"{room} {kind}" + (f" {batch + 1}" if batch else "")
        slug = name.lower().replace(" ", "_")
        entity_id = f"{domain}.{slug}"
        states[entity_id] = {
            "entity_id": entity_id,
            "state": state,
            "attributes": {"friendly_name": name, **attrs},
            "last_changed": stamp,
            "last_updated": stamp,
        }
        entries[entity_id] = {"entity_id": entity_id, "area_id": slug_of(room)}
    for who, where in (("Alice", "home"), ("Bob", "not_home")):
        for domain in ("person", "device_tracker"):
            entity_id = f"{domain}.{who.lower()}"
            states[entity_id] = {
                "entity_id": entity_id,
                "state": where,
                "attributes": {"friendly_name": who},
                "last_changed": stamp,
                "last_updated": stamp,
            }
    return states, entries


def slug_of(room: str) -> str:
    """The area id HA makes of a room name."""
    return room.lower().replace(" ", "_")


async def per_question_ms(
    size: int, rounds: int, conditions: bool = False
) -> tuple[list[float], list[float]]:
    """Wall-clock and CPU milliseconds per answered question, every question of every round.

    CPU time (this process) is printed beside wall time because the machines these
    run on are shared: under load the wall clock also counts other processes' turns.
    """
    ha = {"url": "http://ha.invalid:8123", "token": "bench"}  # configured; never connected
    settings = load_settings(environ={}, overrides={"ha": ha})
    async with aiohttp.ClientSession() as session:
        client = HAClient(session, "ws://ha.invalid:8123/api/websocket", "token")
        client.states, client.registries.entities = home(size)
        client.registries.areas = {slug_of(r): {"area_id": slug_of(r), "name": r} for r in ROOMS}
        client.config = {"time_zone": "Europe/Amsterdam"}
        client.connected = True
        source = HASource(
            SourceDeps(settings=settings, session=session, services=Services(ha=client))
        )
        source._hold.client = client  # the shared client, loaded above
        ctx = QueryContext(now=datetime.now(UTC))

        async def ask(text: str) -> str:
            if conditions:
                from mnemolis.router.judge_ha import judge_ha

                verdict, evidence = await judge_ha(client, text, source, ctx.now)
                return evidence if verdict is not None else ""
            return (await source.query(text, ctx)).answer

        asked = CONDITIONS if conditions else QUESTIONS
        for question in asked:  # first use builds the name index
            await ask(question)
        times: list[float] = []
        cpu: list[float] = []
        for _ in range(rounds):
            for question in asked:
                started, cpu_started = time.perf_counter(), time.process_time()
                answer = await ask(question)
                cpu.append((time.process_time() - cpu_started) * 1000)
                times.append((time.perf_counter() - started) * 1000)
                if not answer:
                    raise SystemExit(f"no answer to {question!r} at {size} entities")
    return times, cpu


def quantile(values: list[float], q: float) -> float:
    """The q-quantile (0..1) of the values."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def main(args: argparse.Namespace) -> None:
    sizes = [int(x) for x in args.sizes.split(",")]
    print(
        f"HASource.query in-process, {len(QUESTIONS)} questions x {args.rounds} rounds per size "
        "(state, measurement, listing, count, presence, thermostat, lock)\n"
    )
    print("| entities | p50 ms | p95 ms | p99 ms | mean ms | p50 CPU ms | p95 CPU ms |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for size in sizes:
        times, cpu = await per_question_ms(size, args.rounds)
        row(size, times, cpu)
    if args.no_conditions:
        return
    print(f"\nconditions (judge_ha through the source), {len(CONDITIONS)} x {args.rounds} rounds\n")
    print("| entities | p50 ms | p95 ms | p99 ms | mean ms | p50 CPU ms | p95 CPU ms |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for size in sizes:
        times, cpu = await per_question_ms(size, args.rounds, conditions=True)
        row(size, times, cpu)


def row(size: int, times: list[float], cpu: list[float]) -> None:
    """One table row: wall and CPU quantiles in ms."""
    print(
        f"| {size} | {statistics.median(times):.2f} | {quantile(times, 0.95):.2f} "
        f"| {quantile(times, 0.99):.2f} | {statistics.fmean(times):.2f} "
        f"| {statistics.median(cpu):.2f} | {quantile(cpu, 0.95):.2f} |"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=",".join(str(s) for s in SIZES))
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--no-conditions", action="store_true", help="questions only")
    asyncio.run(main(parser.parse_args()))
