"""Indexing time per MB as one file grows from 1 MB to 32 MB (the chunker is linear).

Two shapes of text, each one paragraph with no blank line in it:

* ``one word`` — the same letter, no space and no sentence end (issue 15 item 8:
  16 MB of it took 15 s, since the chunker copied the rest of the paragraph for
  every piece it cut);
* ``sentences`` — ordinary sentences run together.

For each size it times ``chunk_sections`` alone and the whole indexing of a
folder holding only that file (read, hash, parse, chunk, FTS5 insert, one
transaction), and prints seconds per MB: flat means linear. The chunker as it
was before the fix (kept below for the comparison) is timed up to 8 MB.

    .venv/server/bin/python bench/chunk_bench.py [--sizes 1,2,4,8,16,32] [--old-up-to 8]
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from mnemolis.knowledge.chunking import chunk_sections  # noqa: E402
from mnemolis.knowledge.database import DocumentDatabase  # noqa: E402
from mnemolis.knowledge.parsing import Section  # noqa: E402

MB = 1024 * 1024
_PARAGRAPH = re.compile(r"\n\s*\n")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def old_pieces(text: str, max_chars: int = 1200) -> list[str]:
    """The chunker's paragraph splitter before issue 15 (quadratic on long paragraphs)."""
    out: list[str] = []
    for para in _PARAGRAPH.split(text):
        para = para.strip()
        if not para:
            continue
        if len(para) <= max_chars:
            out.append(para)
            continue
        buf = ""
        for sentence in _SENTENCE.split(para):
            while len(sentence) > max_chars:
                cut = sentence.rfind(" ", 0, max_chars)
                cut = cut if cut > max_chars // 2 else max_chars
                if buf:
                    out.append(buf)
                    buf = ""
                out.append(sentence[:cut].strip())
                sentence = sentence[cut:].strip()
            if buf and len(buf) + 1 + len(sentence) > max_chars:
                out.append(buf)
                buf = ""
            buf = f"{buf} {sentence}".strip()
        if buf:
            out.append(buf)
    return out


def text_of(shape: str, size: int) -> str:
    """``size`` bytes of one paragraph of the given shape."""
    if shape == "one word":
        return "a" * size
    sentence = "The boiler pressure should stay between one and one and a half bar. "
    return (sentence * (size // len(sentence) + 1))[:size]


class _Never:
    def is_set(self) -> bool:
        return False


def timed(fn: object) -> tuple[float, float]:
    """(wall s, CPU s) of one call."""
    cpu = time.process_time()
    started = time.perf_counter()
    fn()  # type: ignore[operator]
    return time.perf_counter() - started, time.process_time() - cpu


def index_once(folder: Path, scratch: Path) -> int:
    """Index the folder into a fresh database; the number of chunks."""
    db = DocumentDatabase("bench", folder, scratch / f"db-{time.monotonic_ns()}")
    db.open()
    try:
        report = db.scan(_Never())
        return report.chunks
    finally:
        db.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1,2,4,8,16,32", help="file sizes in MB")
    parser.add_argument("--old-up-to", type=int, default=8, help="time the old chunker to here")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    scratch = Path(tempfile.mkdtemp(prefix="chunk-bench-"))
    print("### Chunking and indexing one file, by size (seconds per MB; flat = linear)\n")
    print(
        "| text | MB | chunks | chunk s/MB (wall) | chunk s/MB (CPU) | index s/MB (wall) "
        "| index s/MB (CPU) | before the fix: chunk s/MB |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for shape in ("one word", "sentences"):
        for mb in sizes:
            text = text_of(shape, mb * MB)
            chunks: list[object] = []
            wall, cpu = timed(lambda: chunks.extend(chunk_sections([Section("", text)])))  # noqa: B023
            folder = scratch / f"{shape.replace(' ', '-')}-{mb}"
            folder.mkdir()
            (folder / "big.txt").write_text(text, encoding="utf-8")
            counted: list[int] = []
            iwall, icpu = timed(lambda: counted.append(index_once(folder, scratch)))  # noqa: B023
            (folder / "big.txt").unlink()
            old = "-"
            if mb <= args.old_up_to:
                owall, _ = timed(lambda: old_pieces(text))  # noqa: B023
                old = f"{owall / mb:.3f}"
            print(
                f"| {shape} | {mb} | {len(chunks)} | {wall / mb:.3f} | {cpu / mb:.3f} "
                f"| {iwall / mb:.3f} | {icpu / mb:.3f} | {old} |",
                flush=True,
            )
            if counted[0] != len(chunks):
                raise SystemExit(f"the store indexed {counted[0]} chunks, expected {len(chunks)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
