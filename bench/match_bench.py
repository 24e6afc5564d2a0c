"""Entity-name matching time per question as the home grows: full scan against the word index.

Synthetic homes of 100 to 3 000 entities (rooms by device kinds, each entity in
its room) and four typical questions; each question is matched 20 times with
``mnemolis.hass.matching.match`` over the plain candidate list (score every
entity) and over a ``CandidateIndex`` (score only entities sharing a fuzzy
word with the question; homes under ``INDEX_FROM`` entities scan either way).
Both must return the same matches, which the script checks.

    .venv/server/bin/python bench/match_bench.py
"""

from __future__ import annotations

import statistics
import time

from mnemolis.hass.matching import INDEX_FROM, Candidate, CandidateIndex, match

ROOMS = [
    "Kitchen", "Living Room", "Bedroom", "Bathroom", "Garage", "Hallway",
    "Office", "Attic", "Basement", "Garden", "Nursery", "Guest Room",
]  # fmt: skip
KINDS = [
    "Ceiling Light", "Lamp", "Temperature", "Humidity", "Motion", "Door", "Window", "Plug",
    "Thermostat", "Blind", "Speaker", "Smoke Detector", "Power", "Energy", "Battery",
]  # fmt: skip
QUESTIONS = [
    "Is the garage door open?",
    "What is the kitchen humidity?",
    "Which lights are on in the living room?",
    "what's the temperature in the attic",
]
SIZES = (100, 300, 1000, 3000)
ROUNDS = 20


def home(size: int) -> list[Candidate]:
    """``size`` entities spread over the rooms, named "<Room> <Kind> <n>"."""
    out = []
    for i in range(size):
        room, kind = ROOMS[i % len(ROOMS)], KINDS[(i // len(ROOMS)) % len(KINDS)]
        slug = f"{room}_{kind}".lower().replace(" ", "_")
        out.append(Candidate(f"sensor.{slug}_{i}", f"{room} {kind} {i // 180}", [], room, [room]))
    return out


def per_question_ms(candidates: list[Candidate] | CandidateIndex) -> list[float]:
    """Milliseconds per question, one figure per round."""
    times = []
    for _ in range(ROUNDS):
        started = time.perf_counter()
        for question in QUESTIONS:
            match(candidates, question)
        times.append((time.perf_counter() - started) * 1000 / len(QUESTIONS))
    return times


def main() -> None:
    print(
        f"Entity matching, ms per question (median and p95 of {ROUNDS} rounds of "
        f"{len(QUESTIONS)} questions); the index is used from {INDEX_FROM} entities on\n"
    )
    print("| entities | full scan p50 | full scan p95 | word index p50 | word index p95 | ratio |")
    print("|---|---|---|---|---|---|")
    for size in SIZES:
        candidates = home(size)
        index = CandidateIndex.build(candidates)
        for question in QUESTIONS:
            assert match(index, question) == match(candidates, question), question
        scan, indexed = per_question_ms(candidates), per_question_ms(index)
        p95 = sorted(scan)[int(0.95 * (ROUNDS - 1))], sorted(indexed)[int(0.95 * (ROUNDS - 1))]
        s50, i50 = statistics.median(scan), statistics.median(indexed)
        print(f"| {size} | {s50:.2f} | {p95[0]:.2f} | {i50:.2f} | {p95[1]:.2f} | {s50 / i50:.1f} |")


if __name__ == "__main__":
    main()
