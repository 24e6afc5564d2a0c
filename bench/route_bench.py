"""Routing decision time alone: `Router.route()` over the routing suite's questions.

No source runs: this is the cost of deciding (condition parsing, decomposition,
vocabulary and pattern scoring, fuzzy matching of live HA names). The home is
the fake one of the tests (tests/server/routing_cases.py: 25 entities, 14
areas, monitors, feeds, databases, memory tags); a second table repeats the
suite with bigger synthetic homes, since fuzzy matching grows with the number
of names.

    .venv/server/bin/python bench/route_bench.py [--repeat 200]
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import threading
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from mnemolis.knowledge.vectors import forget_queries  # noqa: E402
from tests.server.routing_cases import AREAS, ENTITIES, FakeHA, load_cases, make_home  # noqa: E402

DEVICES = ["Light", "Lamp", "Window", "Door", "Plug", "Temperature", "Humidity", "Blinds"]


FRESH = REPO / "bench" / "eval" / "route" / "questions.yaml"


def questions() -> list[str]:
    """Every distinct question of the suite and of the routing eval, in file order."""
    cases = load_cases()
    seen: dict[str, None] = {}
    for section in ("routing", "decomposition", "conditions"):
        for case in cases[section]:
            seen.setdefault(str(case["q"]), None)
    fresh = yaml.safe_load(FRESH.read_text(encoding="utf-8"))
    for halves in fresh.values():
        for rows in halves.values():
            for row in rows:
                seen.setdefault(str(row[0]), None)
    return list(seen)


def tuned_questions() -> set[str]:
    """The routing suite's own questions (the only ones the report names)."""
    cases = load_cases()
    return {
        str(c["q"])
        for section in ("routing", "decomposition", "conditions")
        for c in cases[section]
    }


def pct(values: list[float], p: float) -> float:
    """The p-th percentile (nearest rank) of values."""
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, round(p / 100 * len(ordered) + 0.5) - 1))
    return ordered[k]


def measure(
    home_entities: int, qs: list[str], repeat: int, cold: bool = True, embedder: object = None
) -> dict[str, object]:
    """Per-question p50/p99 of route() in microseconds, plus the slowest questions.

    ``cold`` empties the router's memo of decided questions before every call, so
    each sample is a full decision (a repeated question is otherwise a dict lookup).
    """
    home = make_home()
    if embedder is not None:
        home.core.services.embedder = embedder
    if home_entities > len(ENTITIES):
        extra = dict(ENTITIES)
        i = 0
        while len(extra) < home_entities:
            area = AREAS[i % len(AREAS)]
            device = DEVICES[(i // len(AREAS)) % len(DEVICES)]
            oid = f"{area}_{device}_{i}".lower().replace(" ", "_")
            extra[f"sensor.{oid}"] = (f"{area} {device} {i // 140 + 1}", "1", area, {})
            i += 1
        home.core.services.ha = FakeHA(extra)
    router = home.core.router
    route = router.route
    memo = router._plans
    for q in qs:  # warm up: indexes built, regexes compiled
        route(q)
    per_q: dict[str, list[float]] = {q: [] for q in qs}
    cpu: list[float] = []
    both: list[float] = []  # this thread's CPU plus the embedding thread's for the decision
    model_cpu = getattr(embedder, "cpu_ns", None)
    gc.disable()
    try:
        for _ in range(repeat):
            for q in qs:
                if cold:
                    memo.clear()
                    forget_queries()
                e0 = getattr(embedder, "cpu_ns", 0)
                c0 = time.thread_time_ns()
                t0 = time.perf_counter_ns()
                route(q)
                per_q[q].append((time.perf_counter_ns() - t0) / 1000)
                cpu.append((time.thread_time_ns() - c0) / 1000)
                both.append(cpu[-1] + (getattr(embedder, "cpu_ns", 0) - e0) / 1000)
    finally:
        gc.enable()
    p50s = {q: statistics.median(v) for q, v in per_q.items()}
    p99s = {q: pct(v, 99) for q, v in per_q.items()}
    shown = tuned_questions()  # the eval's questions are timed, never printed (held-out half)
    everything = [x for v in per_q.values() for x in v]
    return {
        "entities": home_entities,
        "cold": cold,
        "names": len(home.core.services.ha.vocabulary()),
        "questions": len(qs),
        "samples": len(everything),
        "median_p50": statistics.median(p50s.values()),
        "worst_p50": max(p50s.values()),
        "median_p99": statistics.median(p99s.values()),
        "worst_p99": max(p99s.values()),
        "all_p50": pct(everything, 50),
        "all_p95": pct(everything, 95),
        "all_p99": pct(everything, 99),
        "per_s": len(everything) / (sum(everything) / 1e6),
        "cpu_p50": pct(cpu, 50),
        "cpu_p99": pct(cpu, 99),
        "both_p50": pct(both, 50) if model_cpu is not None else None,
        "both_p99": pct(both, 99) if model_cpu is not None else None,
        "embedded": sum(1 for b, c in zip(both, cpu, strict=True) if b > c) / len(both),
        "slowest": sorted(((q, v) for q, v in p50s.items() if q in shown), key=lambda kv: -kv[1])[
            :5
        ],
        "p99s": p99s,
    }


def load_embedder(threads: int) -> object | None:
    """The embedding model (all-MiniLM-L6-v2 GGUF) for the meaning stage, if it loads here."""
    sys.path.insert(0, str(REPO / "bench" / "eval"))
    from eval_route import load_embedder as load

    return load(threads)


class Indexing:
    """Document chunks embedded without pause on the model's thread, as a re-index does."""

    CHUNK = "The boiler keeps the house warm; bleed the radiators every autumn and check " * 3

    def __init__(self, embedder: object) -> None:
        self.embedder = embedder
        self.stop = threading.Event()
        self.chunks = 0
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        embed = self.embedder.embed_sync  # type: ignore[attr-defined]
        while not self.stop.is_set():
            embed([f"{self.chunks + i}: {self.CHUNK}" for i in range(32)])  # one batch
            self.chunks += 32

    def __enter__(self) -> Indexing:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(600)


def _us(value: object) -> str:
    return "-" if value is None else f"{value:.0f}"


def main() -> int:
    """Print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=200, help="runs per question")
    parser.add_argument("--sizes", default="25,300,1000", help="home sizes (entities)")
    parser.add_argument("--model", action="store_true", help="also time the embedding stage")
    parser.add_argument(
        "--threads", type=int, default=1, help="llm.threads of the model (0: llama.cpp's default)"
    )
    parser.add_argument(
        "--indexing",
        action="store_true",
        help="with --model: also while documents are being embedded on the model's thread",
    )
    args = parser.parse_args()
    qs = questions()
    rows = [measure(int(n), qs, args.repeat) for n in args.sizes.split(",")]
    if args.model:
        emb = load_embedder(args.threads)
        if emb is not None:
            size = int(args.sizes.split(",")[0])
            rows.append(measure(size, qs, args.repeat, embedder=emb))
            rows[-1]["model"] = f"+embedding ({args.threads or 'default'} threads)"
            if args.indexing:
                with Indexing(emb) as work:
                    rows.append(measure(size, qs, args.repeat, embedder=emb))
                rows[-1]["model"] = f"+embedding, documents indexing ({work.chunks} chunks)"
    load = os.getloadavg()[0]
    print(
        f"Routing decision time, {len(qs)} questions x {args.repeat} runs each, in µs "
        f"(wall clock; CPU = this thread's CPU time; load average {load:.1f}). "
        "Every call decides afresh (the memos of decisions and question vectors are "
        "emptied first); `+embedding` = with the embedding model loaded, whose work runs "
        "on its own thread: CPU = the router's thread, CPU+model = plus the embedding "
        "thread's CPU for that decision; wall clock includes both and any wait.\n"
    )
    print(
        "| entities | HA names | decision | per-question p50 (median / worst) "
        "| per-question p99 (median / worst) | all p50 | all p95 | all p99 "
        "| CPU p50 | CPU p99 | CPU+model p50 | CPU+model p99 | embedded | decisions/s |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        kind = f"tables + lexical {r['model']}" if r.get("model") else "tables + lexical"
        print(
            f"| {r['entities']} | {r['names']} | {kind} "
            f"| {r['median_p50']:.0f} / {r['worst_p50']:.0f} "
            f"| {r['median_p99']:.0f} / {r['worst_p99']:.0f} | {r['all_p50']:.0f} "
            f"| {r['all_p95']:.0f} | {r['all_p99']:.0f} | {r['cpu_p50']:.0f} "
            f"| {r['cpu_p99']:.0f} | {_us(r['both_p50'])} | {_us(r['both_p99'])} "
            f"| {r['embedded']:.0%} | {r['per_s']:.0f} |"
        )
    base = rows[0]
    print(f"\nSlowest tuned cases (full decision, p50 / p99 µs, {base['entities']}-entity home):\n")
    print("| question | p50 | p99 |")
    print("|---|---|---|")
    for q, p50 in base["slowest"]:  # type: ignore[attr-defined]
        print(f"| {q} | {p50:.0f} | {base['p99s'][q]:.0f} |")  # type: ignore[index]
    return 0


if __name__ == "__main__":
    sys.exit(main())
