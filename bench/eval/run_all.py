"""Run every answer-quality eval (bench/eval/eval_*.py) and fail if any misses its bar.

Each eval is a standalone script: it builds what it judges against (a real HA,
a document corpus, ...), asks its questions through the same service layer REST
and MCP use, prints Markdown tables (score per class, held-out half apart) and
exits 1 when its threshold is not met. This runner runs them one after another
and exits non-zero if any did. `make eval` calls it; CI runs `make eval` too.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(argv: list[str]) -> int:
    wanted = set(argv)
    scripts = sorted(HERE.glob("eval_*.py"))
    if wanted:
        scripts = [s for s in scripts if s.stem in wanted or s.stem.removeprefix("eval_") in wanted]
    failed: list[str] = []
    for script in scripts:
        print(f"\n## {script.stem}  (python bench/eval/{script.name})\n", flush=True)
        start = time.monotonic()
        rc = subprocess.call([sys.executable, str(script)], cwd=HERE.parent.parent)
        print(f"\n{script.stem}: exit {rc} in {time.monotonic() - start:.0f} s", flush=True)
        if rc != 0:
            failed.append(script.stem)
    if not scripts:
        print("no evals found", file=sys.stderr)
        return 1
    print(f"\nevals: {len(scripts) - len(failed)} passed, {len(failed)} failed {failed or ''}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
