"""Ask FAQ files their own questions: a quick look for shapes the reader gets wrong.

    .venv/server/bin/python bench/faq_sweep.py [--dump|--asked FILE.json] FILE [FILE ...]

Each file is indexed alone (beside the bundled docs, as a user has them) by one
Mnemolis with its default settings. Every heading that asks a question (a part of a
chunk's heading path ending in "?") is asked as the user would ask it, its number or
"Q:" label left out, and the answer is right when it comes from the passages under
that heading: at least RIGHT_SHARE of its words are theirs, and it says more than
the question's own words. Wrong answers are printed with what was said.

To ask an older version the same questions (its chunker finds others), write them
with ``--dump FILE.json`` and ask them with ``--asked FILE.json`` under the older code
(``PYTHONPATH=<its checkout>/addon/src``).

This is a dev tool, not an eval: the questions are the ones the chunker found, so a
question it misses is never asked (compare "question headings" with the file's lines
ending in "?"), and the judge is rough (a short right answer drawn from another
entry counts as wrong). It found the shapes fixed on 2026-12-05 (docs/benchmarks.md,
"FAQs from other packages, asked their own questions"); the files came from Debian
packages (``apt-get download``, ``dpkg-deb -x``) and PyPI sdists.
"""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "eval"))

from eval_docs import start_core, wait_indexed

from mnemolis.knowledge.chunking import chunk_sections
from mnemolis.knowledge.parsing import parse_document
from mnemolis.requestmodels import SearchRequest

RIGHT_SHARE = 0.7  # of the answer's words, this many come from the question's passages
_WORD = re.compile(r"[a-z0-9]+")
_LABEL = re.compile(r"^\s*(?:Q:|Q\.|\(?\d+(?:\.\d+)*[.):]?)\s*")
_CITATION = re.compile(r"\[\d+,[^\]]*\]")


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def questions_of(path: Path) -> dict[str, list[str]]:
    """Each heading that asks, with the passages under it."""
    chunks = chunk_sections(parse_document(path.name, path.read_bytes()), name=path.name)
    out: dict[str, list[str]] = {}
    for chunk in chunks:
        for part in (p.strip() for p in chunk.heading.split(" > ")):
            if part.endswith("?"):
                out.setdefault(part, []).append(chunk.content)
    return out


async def sweep(files: list[Path], given: dict[str, dict[str, list[str]]] | None = None) -> int:
    """Ask every file its questions (or the ``given`` ones); print a line per file and
    each wrong answer."""
    scratch = Path(tempfile.mkdtemp(prefix="faq-sweep-"))
    core = await start_core(scratch / "data", True)
    store = core.services.knowledge
    right_all = asked_all = 0
    try:
        for n, path in enumerate(files):
            asked = questions_of(path) if given is None else given[str(path)]
            folder = scratch / f"f{n}"
            folder.mkdir()
            shutil.copyfile(path, folder / path.name)
            name = f"faq-{n}"
            await store.register(name, str(folder), wait=True)
            await wait_indexed(core, name, True, 1800)
            lines = path.read_text(errors="replace").splitlines()
            marked = sum(1 for line in lines if line.strip().endswith("?"))
            wrong: list[str] = []
            for heading, passages in asked.items():
                question = _LABEL.sub("", heading)
                reply = await core.search(SearchRequest(query=question))
                said = _words(_CITATION.sub("", reply.result or ""))
                theirs = _words(" ".join(passages))
                share = len(said & theirs) / max(1, len(said))
                if reply.source_used == "rag" and share >= RIGHT_SHARE and said - _words(question):
                    continue
                wrong.append(f"   x {question[:80]} | {reply.source_used} | {reply.result[:150]!r}")
            right = len(asked) - len(wrong)
            right_all += right
            asked_all += len(asked)
            print(
                f"{path.name}: {len(asked)} question headings ({marked} lines end in '?'), "
                f"right {right}/{len(asked)}",
                flush=True,
            )
            for line in wrong:
                print(line, flush=True)
            await store.remove(name)
    finally:
        await core.stop()
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"all: right {right_all}/{asked_all}")
    return 0


def main(argv: list[str]) -> int:
    option = argv[0] if argv and argv[0] in ("--dump", "--asked") else None
    if option:
        if len(argv) < 3:
            print(__doc__)
            return 2
        store, argv = Path(argv[1]), argv[2:]
    if not argv:
        print(__doc__)
        return 2
    files = [Path(a) for a in argv]
    if option == "--dump":
        store.write_text(json.dumps({str(f): questions_of(f) for f in files}), encoding="utf-8")
        return 0
    given = json.loads(store.read_text(encoding="utf-8")) if option == "--asked" else None
    return asyncio.run(sweep(files, given))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
