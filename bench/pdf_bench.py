"""Huge-PDF benchmark: time, CPU and peak memory to index one text PDF, with the page cap.

Writes a one-line-per-page text PDF (the shape of the 100,000-page file in
issue 15), then indexes it with the real ``DocumentDatabase`` (pypdf, chunking,
FTS5) in a fresh process per row, so peak RSS is that one file's. Rows with the
default ``rag.max_pdf_pages`` (2000) and, for comparison, with the cap lifted.

    .venv/server/bin/python bench/pdf_bench.py [--pages 10000,100000] [--lifted 10000]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.server.knowledge_helpers import text_pdf  # noqa: E402


def child(folder: str, max_pages: int) -> None:
    """Index the folder once and print one JSON line of figures."""
    from mnemolis.knowledge.database import DocumentDatabase
    from mnemolis.knowledge.parsing import FileLimits

    root = Path(folder)
    db = DocumentDatabase(
        "bench", root / "docs", root / "data" / "rag" / "bench", limits=FileLimits(max_pages)
    )
    db.open()
    started = time.perf_counter()
    cpu = time.process_time()
    report = db.scan(threading.Event())
    wall = time.perf_counter() - started
    status = db.status()
    db.close()
    print(
        json.dumps(
            {
                "wall": wall,
                "cpu": time.process_time() - cpu,
                "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                "chunks": report.chunks,
                "cut": [c["reason"] for c in status["cut"]],
            }
        )
    )


def measure(pages: int, max_pages: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="mnemolis-pdf-") as tmp:
        docs = Path(tmp) / "docs"
        docs.mkdir()
        raw = text_pdf(pages)
        (docs / "huge.pdf").write_bytes(raw)
        done = subprocess.run(
            [sys.executable, __file__, "--child", tmp, str(max_pages)],
            capture_output=True,
            text=True,
            check=True,
        )
        out: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
        out["mb"] = len(raw) / 1e6
        return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pages", default="10000,100000", help="PDF sizes with the default cap")
    parser.add_argument("--lifted", default="10000", help="PDF sizes with the cap lifted")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], int(args.child[1]))
        return 0
    from mnemolis.knowledge.parsing import FileLimits

    default = FileLimits().max_pdf_pages
    rows = [(int(n), default) for n in args.pages.split(",") if n]
    rows += [(int(n), 10_000_000) for n in args.lifted.split(",") if n]
    print("| pages | file | max_pdf_pages | chunks | wall | CPU | peak RSS | reported |")
    print("|---:|---:|---:|---:|---:|---:|---:|---|")
    for pages, cap in rows:
        r = measure(pages, cap)
        cut = "; ".join(str(c) for c in r["cut"]) or "—"  # type: ignore[attr-defined]
        print(
            f"| {pages:,} | {r['mb']:.1f} MB | {cap:,} | {r['chunks']:,} | {r['wall']:.1f} s "
            f"| {r['cpu']:.1f} s | {r['rss_mb']:.0f} MB | {cut} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
