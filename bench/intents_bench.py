"""What reading home questions with Home Assistant's grammar costs, in a 1,000-entity home.

A synthetic home (1,000 entities over 12 domains and 20 areas on 3 floors, names as
people give them) is read by ``AssistReader``: the slot lists are built once (as on a
registry change), then every question is recognised and answered. Printed: CPU time
per question (p50/p95/p99, thread CPU, not wall clock), for questions the grammar
reads and for questions it does not (documents, the web), the time to rebuild the
slot lists, and the memory of each loaded language's question grammar. Then what
telling a command apart costs, for a question nothing answered ("turn off the …"): the
first parse of the language's command sentences, their memory, and the CPU per part.

    .venv/server/bin/python bench/intents_bench.py [--entities 1000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import time
import tracemalloc
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "addon" / "src"))

from mnemolis.assist import grammar
from mnemolis.assist.reader import AssistReader
from mnemolis.hass.client import Registries

ROOMS = [
    "Kitchen", "Living Room", "Bedroom", "Bathroom", "Office", "Garage", "Hallway", "Attic",
    "Basement", "Laundry", "Nursery", "Guest Room", "Dining Room", "Porch", "Patio", "Study",
    "Playroom", "Pantry", "Workshop", "Gym",
]  # fmt: skip
THINGS: list[tuple[str, str, str | None, list[str]]] = [
    ("light", "Lamp", None, ["on", "off"]),
    ("light", "Ceiling Light", None, ["on", "off"]),
    ("switch", "Plug", None, ["on", "off"]),
    ("fan", "Fan", None, ["on", "off"]),
    ("cover", "Blinds", "blind", ["open", "closed"]),
    ("cover", "Window", "window", ["open", "closed"]),
    ("lock", "Door Lock", None, ["locked", "unlocked"]),
    ("binary_sensor", "Door", "door", ["on", "off"]),
    ("binary_sensor", "Motion", "motion", ["on", "off"]),
    ("binary_sensor", "Leak Sensor", "moisture", ["on", "off"]),
    ("binary_sensor", "Smoke Detector", "smoke", ["on", "off"]),
    ("sensor", "Temperature", "temperature", ["19.5", "21.0", "22.5"]),
    ("sensor", "Humidity", "humidity", ["40", "55", "61"]),
    ("climate", "Thermostat", None, ["heat", "off"]),
]


class Home:
    """States and registries as HA's websocket gives them."""

    def __init__(self, size: int, seed: int = 7) -> None:
        rng = random.Random(seed)
        self.states: dict[str, dict[str, Any]] = {}
        self.registries = Registries()
        self.names_version = 1
        for i, floor in enumerate(("Ground Floor", "First Floor", "Basement Level")):
            self.registries.floors[f"f{i}"] = {"floor_id": f"f{i}", "name": floor, "aliases": []}
        for i, room in enumerate(ROOMS):
            area_id = room.lower().replace(" ", "_")
            self.registries.areas[area_id] = {
                "area_id": area_id,
                "name": room,
                "floor_id": f"f{i % 3}",
                "aliases": [],
                "temperature_entity_id": None,
            }
        n = 0
        while n < size:
            domain, thing, dclass, values = THINGS[n % len(THINGS)]
            room = ROOMS[(n // len(THINGS)) % len(ROOMS)]
            copy = n // (len(THINGS) * len(ROOMS))
            name = f"{room} {thing}" + (f" {copy + 1}" if copy else "")
            entity_id = f"{domain}.{name.lower().replace(' ', '_')}"
            attrs: dict[str, Any] = {"friendly_name": name}
            if dclass:
                attrs["device_class"] = dclass
            if domain == "sensor":
                attrs["unit_of_measurement"] = "°C" if dclass == "temperature" else "%"
            if domain == "climate":
                attrs["current_temperature"] = 20.5
            self.states[entity_id] = {
                "entity_id": entity_id,
                "state": rng.choice(values),
                "attributes": attrs,
            }
            area_id = room.lower().replace(" ", "_")
            self.registries.entities[entity_id] = {
                "entity_id": entity_id,
                "area_id": area_id,
                "aliases": [],
            }
            n += 1

    def area_id_of(self, entity_id: str) -> str | None:
        """The entity's area."""
        return self.registries.entities.get(entity_id, {}).get("area_id")


def questions(home: Home, rng: random.Random) -> tuple[list[str], list[str]]:
    """Questions the grammar reads (about this home) and ones it does not."""
    names = [s["attributes"]["friendly_name"] for s in home.states.values()]
    read = []
    for _ in range(200):
        name = rng.choice(names)
        room = rng.choice(ROOMS)
        read.append(
            rng.choice(
                [
                    f"is the {name} on?",
                    f"what is the {name}?",
                    f"is the {name} open?",
                    f"which lights are on in the {room}?",
                    f"are any windows open in the {room}?",
                    "how many lights are on?",
                    f"what is the temperature in the {room}?",
                    "are any doors open?",
                    "is there any motion?",
                    "what time is it?",
                ]
            )
        )
    other = [
        "who wrote the declaration of independence?",
        "what should the boiler pressure be?",
        "how do I connect Claude Desktop to Mnemolis?",
        "what's the wifi password for guests?",
        "when is the bin collected and what goes in the green one?",
        "tell me about the history of the Roman empire",
        "what did the plumber say about the leak last year?",
        "what's in the news today?",
    ] * 25
    return read, other


def cpu_ms(fn: Any, *args: Any) -> tuple[float, Any]:
    """Thread CPU time of one call, in milliseconds."""
    start = time.thread_time_ns()
    out = fn(*args)
    return (time.thread_time_ns() - start) / 1e6, out


def pct(values: list[float], q: float) -> float:
    """The q-quantile (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entities", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--languages", default="en,de,fr,es,nl")
    args = parser.parse_args()

    print("| language | parse s (CPU) | grammar memory (MiB) |")
    print("|---|---|---|")
    for lang in args.languages.split(","):
        grammar._load.cache_clear()
        gc.collect()
        tracemalloc.start()
        start = time.process_time()
        grammar.load(lang)
        spent = time.process_time() - start
        current, _ = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        print(f"| {lang} | {spent:.3f} | {current / 2**20:.2f} |")

    home = Home(args.entities)
    reader = AssistReader(home, version=lambda: home.names_version)
    builds = []
    for i in range(args.rounds):
        home.names_version = 100 + i  # a registry change
        ms, _ = cpu_ms(reader._slot_lists)
        builds.append(ms)
    now = datetime.now(UTC)
    rng = random.Random(11)
    read, other = questions(home, rng)
    rows = []
    for label, batch in (("read by the grammar", read), ("not home questions", other)):
        recog: list[float] = []
        total: list[float] = []
        hits = 0
        for _ in range(args.rounds):
            for q in batch:
                ms, rec = cpu_ms(reader.recognize, q, ["en"], None, now)
                recog.append(ms)
                extra = 0.0
                if rec is not None:
                    hits += 1
                    extra, _ = cpu_ms(reader.answer, rec, None, now)
                total.append(ms + extra)
        rows.append((label, len(batch), hits / args.rounds, recog, total))
    print(f"\nHome: {len(home.states)} entities, {len(ROOMS)} areas, 3 floors; English.")
    print(f"Slot lists rebuilt on a registry change: {statistics.median(builds):.1f} ms CPU\n")
    print("| questions | n | read | recognise p50 | p95 | p99 | + answer p50 | p99 |")
    print("|---|---|---|---|---|---|---|---|")
    for label, n, hits, recog, total in rows:
        print(
            f"| {label} | {n} | {hits:.0f} | {pct(recog, 0.5):.2f} ms | {pct(recog, 0.95):.2f} ms "
            f"| {pct(recog, 0.99):.2f} ms | {pct(total, 0.5):.2f} ms | {pct(total, 0.99):.2f} ms |"
        )
    print_commands(reader, home, rng, args.rounds)
    return 0


def print_commands(reader: AssistReader, home: Home, rng: random.Random, rounds: int) -> None:
    """What a command nothing answered costs to tell apart (router: ``_command``)."""
    grammar.commands.cache_clear()
    gc.collect()
    tracemalloc.start()
    first, _ = cpu_ms(reader.command, "turn off the kitchen lamp", ["en"], None)
    current, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    names = [s["attributes"]["friendly_name"] for s in home.states.values()]
    commands = [
        rng.choice(
            [
                f"turn off the {rng.choice(names)}",
                f"turn on the lights in the {rng.choice(ROOMS)}",
                f"set the {rng.choice(ROOMS)} thermostat to 20 degrees",
                "add milk to the shopping list",
            ]
        )
        for _ in range(200)
    ]
    _, other = questions(home, rng)
    print(
        f"\nCommand sentences (English): first parse {first:.0f} ms CPU, {current / 2**20:.1f} MiB"
    )
    print("\n| unanswered part | n | read as a command | p50 | p95 | p99 |")
    print("|---|---|---|---|---|---|")
    for label, batch in (("commands", commands), ("questions", other)):
        spent: list[float] = []
        hits = 0
        for _ in range(rounds):
            for q in batch:
                ms, intent = cpu_ms(reader.command, q, ["en"], None)
                spent.append(ms)
                hits += intent is not None
        print(
            f"| {label} | {len(batch)} | {hits / rounds:.0f} | {pct(spent, 0.5):.2f} ms "
            f"| {pct(spent, 0.95):.2f} ms | {pct(spent, 0.99):.2f} ms |"
        )


if __name__ == "__main__":
    sys.exit(main())
