"""Run every benchmark in bench/ and write one report (bench/out/report.md).

Each benchmark is a standalone script that prints Markdown tables; this runner
runs them one after another (never concurrently: they measure the same two
cores) and collects their output with the command that produced it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
ORDER = [
    "route_bench.py",
    "ha_search.py",
    "compare_search.py",
    "mcp_load.py",
    "rag_bench.py",
    "llm_bench.py",
]
# Not benchmarks: imported (loadgen) or started (naive_baseline) by the ones that are.
HELPERS = {"loadgen.py", "naive_baseline.py", "run_all.py"}


def main() -> int:
    """Run each benchmark; the report lists failures instead of hiding them."""
    out_dir = BENCH / "out"
    out_dir.mkdir(exist_ok=True)
    scripts = [BENCH / name for name in ORDER if (BENCH / name).exists()]
    scripts += sorted(p for p in BENCH.glob("*.py") if p.name not in {*ORDER, *HELPERS})
    lines = [f"# Mnemolis benchmarks — {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}", ""]
    failed = 0
    for script in scripts:
        cmd = [sys.executable, str(script.relative_to(REPO))]
        print(f">> {' '.join(cmd)}", flush=True)
        started = time.monotonic()
        proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, env=os.environ.copy())
        took = time.monotonic() - started
        print(proc.stdout, flush=True)
        lines += [f"## {script.stem}", "", f"`{' '.join(cmd)}` ({took:.0f} s)", ""]
        if proc.returncode != 0:
            failed += 1
            lines += ["**failed**:", "", "```", proc.stderr[-3000:], "```", ""]
            print(proc.stderr[-3000:], file=sys.stderr)
        else:
            lines += [proc.stdout.strip(), ""]
    report = out_dir / "report.md"
    report.write_text("\n".join(lines), encoding="utf-8")
    print(f"report: {report.relative_to(REPO)} ({len(scripts) - failed}/{len(scripts)} ok)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
