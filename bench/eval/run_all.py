"""Run every answer-quality eval (bench/eval/eval_*.py) and fail if any misses its bar.

Each eval is a standalone script: it builds what it judges against (a real HA,
a document corpus, ...), asks its questions through the same service layer REST
and MCP use, prints Markdown tables (score per class, held-out half apart) and
exits 1 when its threshold is not met. This runner runs them side by side, one
per core (each is one busy Python thread; the longest starts first), prints each
one's output whole as it ends, and exits non-zero if any failed. `make eval`
calls it; CI runs `make eval` too. ``--jobs 1`` runs them one after another.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
# Seconds each took in the last full run (docs/benchmarks.md), to start the longest first;
# an eval not listed starts after these.
_LAST_SECONDS = {"eval_docs": 525, "eval_intents": 331, "eval_upstream": 138, "eval_home": 44}


@dataclass
class Run:
    """One eval's run: its exit code, wall seconds and everything it printed."""

    script: Path
    code: int = -1
    seconds: float = 0.0
    output: str = ""


_PRINT = threading.Lock()


def _run(run: Run) -> None:
    """Run one eval with its output kept apart, so side-by-side runs never interleave."""
    start = time.monotonic()
    with tempfile.TemporaryFile(mode="w+") as out:
        run.code = subprocess.call(
            [sys.executable, str(run.script)],
            cwd=HERE.parent.parent,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
        out.seek(0)
        run.output = out.read()
    run.seconds = time.monotonic() - start
    with _PRINT:
        print(f"\n## {run.script.stem}  (python bench/eval/{run.script.name})\n", flush=True)
        print(run.output, end="", flush=True)
        print(f"\n{run.script.stem}: exit {run.code} in {run.seconds:.0f} s", flush=True)


def _lanes(runs: list[Run], jobs: int) -> list[list[Run]]:
    """Split the runs into ``jobs`` lanes, longest first onto the lane that ends soonest."""
    lanes: list[list[Run]] = [[] for _ in range(jobs)]
    ends = [0.0] * jobs
    for run in sorted(runs, key=lambda r: -_LAST_SECONDS.get(r.script.stem, 1)):
        lane = ends.index(min(ends))
        lanes[lane].append(run)
        ends[lane] += _LAST_SECONDS.get(run.script.stem, 1)
    return lanes


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("evals", nargs="*", help="names to run (docs or eval_docs); all if none")
    parser.add_argument(
        "--jobs",
        type=int,
        default=min(2, os.cpu_count() or 1),
        help="evals run side by side (default: 2, or 1 on a one-core machine)",
    )
    args = parser.parse_args(argv)
    wanted = set(args.evals)
    scripts = sorted(HERE.glob("eval_*.py"))
    if wanted:
        scripts = [s for s in scripts if s.stem in wanted or s.stem.removeprefix("eval_") in wanted]
    if not scripts:
        print("no evals found", file=sys.stderr)
        return 1
    runs = [Run(s) for s in scripts]
    started = time.monotonic()
    threads = [
        threading.Thread(target=lambda lane=lane: [_run(r) for r in lane])
        for lane in _lanes(runs, max(1, args.jobs))
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    failed = [r.script.stem for r in runs if r.code != 0]
    which = f" {failed}" if failed else ""
    print(
        f"\nevals: {len(runs) - len(failed)} passed, {len(failed)} failed{which} "
        f"in {time.monotonic() - started:.0f} s ({max(1, args.jobs)} side by side)"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
