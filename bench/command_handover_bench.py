"""What handing commands to Home Assistant costs the conversation agent, per utterance.

With the option *Let Home Assistant carry out commands* on (the default), the agent
asks Home Assistant's own intent sentences strictly before an utterance goes to the
server (``conversation.async_handle_intents``). Every question pays that recognition
once; a command is carried out by Home Assistant and never reaches the server.

Runs an in-process Home Assistant 2025.4 (the test harness's core, the real
``conversation`` and ``intent`` integrations and HA's own English sentences) with a
home of N exposed lights, switches and covers, and times that call for a command, a
state question (recognised, then left to Mnemolis), and a document question (no
match). The first call loads the language's sentences: its time and the process's
memory growth are printed apart.

    .venv/ha/bin/python bench/command_handover_bench.py [--sizes 100,1000] [--rounds 200]
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import statistics
import sys
import time
from pathlib import Path

from homeassistant.components import conversation
from homeassistant.core import Context, HomeAssistant, ServiceCall
from homeassistant.setup import async_setup_component
from pytest_homeassistant_custom_component.common import async_test_home_assistant

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from custom_components.mnemolis.conversation import _answered_by_mnemolis

ROOMS = [
    "Kitchen", "Living Room", "Bedroom", "Bathroom", "Garage", "Hallway",
    "Office", "Attic", "Basement", "Garden", "Nursery", "Guest Room",
]  # fmt: skip
KINDS = [("light", "Light"), ("switch", "Plug"), ("cover", "Blind")]
# Each round names another entity or thing: Home Assistant caches the recognition of a
# sentence it has seen, and a home hears many different ones.
UTTERANCES = {
    "command (carried out by HA)": "turn off the {room} light {n}",
    "state question (left to Mnemolis)": "is the {room} light {n} on?",
    "document question (no match)": "what is the wifi password for the {room} {i}?",
}


def rss_mb() -> float:
    """Peak resident memory of this process (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def populate(hass: HomeAssistant, size: int) -> None:
    """``size`` entities, spread over rooms and kinds, named as people name them."""
    for i in range(size):
        domain, kind = KINDS[i % len(KINDS)]
        room = ROOMS[(i // len(KINDS)) % len(ROOMS)]
        n = i // (len(KINDS) * len(ROOMS))
        state = "open" if domain == "cover" else "on"
        hass.states.async_set(
            f"{domain}.{room.lower().replace(' ', '_')}_{kind.lower()}_{n}",
            state,
            {"friendly_name": f"{room} {kind} {n}"},
        )


async def ask(hass: HomeAssistant, text: str) -> bool:
    """One hand-over attempt, as the agent makes it; True when HA handled it."""
    user_input = conversation.ConversationInput(
        text=text,
        context=Context(),
        conversation_id=None,
        device_id=None,
        language="en",
        agent_id="conversation.mnemolis",
    )
    handled = await conversation.async_handle_intents(
        hass, user_input, intent_filter=_answered_by_mnemolis
    )
    return handled is not None


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def run(size: int, rounds: int) -> list[str]:
    rows: list[str] = []
    async with async_test_home_assistant() as hass:
        for component in ("homeassistant", "conversation", "intent"):
            assert await async_setup_component(hass, component, {})
        for domain in ("light", "switch", "cover"):
            for service in ("turn_on", "turn_off", "open_cover", "close_cover"):

                async def done(call: ServiceCall) -> None:
                    return None

                hass.services.async_register(domain, service, done)
        populate(hass, size)
        await hass.async_block_till_done()
        before = rss_mb()
        start = time.perf_counter()
        await ask(hass, "what is the guest wifi password?")
        first = (time.perf_counter() - start) * 1000
        rows.append(
            f"| {size} | first call (loads HA's English sentences) | {first:.0f} | - | - |"
            f" - | {rss_mb() - before:+.0f} MB |"
        )
        lights = (size + len(KINDS) - 1) // len(KINDS)
        for label, template in UTTERANCES.items():
            expected = label.startswith("command")
            times = []
            # A light named once per round (so at most one round per light).
            for i in range(rounds if "{i}" in template else min(rounds, lights)):
                room, n = ROOMS[i % len(ROOMS)].lower(), i // len(ROOMS)
                text = template.format(room=room, n=n, i=i)
                start = time.perf_counter()
                handled = await ask(hass, text)
                times.append((time.perf_counter() - start) * 1000)
                assert handled is expected, (label, handled)
            rows.append(
                f"| {size} | {label} | {statistics.median(times):.1f} | {pct(times, 0.95):.1f}"
                f" | {pct(times, 0.99):.1f} | {1000 / statistics.mean(times):.0f}/s | - |"
            )
        await hass.async_stop(force=True)
    return rows


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="100,1000")
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()
    print("| entities | utterance | p50 ms | p95 ms | p99 ms | throughput | memory |")
    print("|---:|---|---:|---:|---:|---:|---:|")
    for size in (int(s) for s in args.sizes.split(",")):
        for row in await run(size, args.rounds):
            print(row, flush=True)


if __name__ == "__main__":
    asyncio.run(main())
