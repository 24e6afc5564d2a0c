"""Document and memory answers judged against truth: a real corpus and a household folder.

Two parts, each through the service layer REST and MCP call (``Mnemolis``):

* **corpus** — the Python 3 documentation from Debian's ``python3-doc`` package
  (the part listed in bench/eval/docs/python.yaml), indexed by a fresh Mnemolis
  with its default settings (the bundled embedding model converted at start). Each
  question names the page(s) that answer it; every search mode (``keyword``,
  ``semantic``, ``hybrid`` = the default) is scored on recall@5 (a right page among
  the first five files) and MRR@10, beside a bare SQLite FTS5 baseline computed in
  the same run over the same files: one row per file holding its visible text,
  the question's words OR-ed, ranked by FTS5's bm25.
* **household** — a folder of household documents (bench/eval/docs/household/: a
  boiler manual in HTML, a warranty record, plain-text house notes, a Markdown
  appliance note, and a PDF generated here) plus memories, asked through
  ``Mnemolis.search`` (the ``/search`` answer). Each answer is judged on ``result``
  and on ``spoken``: the expected fact is said, and no other fact of the folder
  (a wifi password when the bins were asked about) is read out.
* **household2** — a second household (bench/eval/docs/household2/ and
  household2.yaml) written by a writer who had read only the user docs, never the
  answering code, with contact lists and questions nothing answers; judged the
  same way; issue 28's bar, 0.90 on its held-out half, is printed as the goal.
* **household-de** — a German household (bench/eval/docs/household-de/ and
  household-de.yaml: notes, a Markdown wiki and contact list, two appliance pages in
  HTML, a lease and an insurance summary as PDFs, memories, 110 questions in German)
  by another writer who had read only the user docs; asked with ``language: de`` as
  a German Assist pipeline sends it, and judged the same way.
* **household-de2**, **-nl**, **-fr**, **-es** — a second German household, a Dutch,
  a French and a Spanish one (bench/eval/docs/household-de2/, household-nl/,
  household-fr/, household-es/ and their .yaml files), by further writers who read
  only the user docs; asked in their language, judged the same way.

Prints Markdown tables, the tuned half and the held-out half apart (the split is
fixed in the data files; only the held-out score is printed for it), and exits 1
when the held-out half misses a bar: for the corpus the issue's (recall@5 ≥ 0.90,
MRR@10 ≥ 0.80, +0.08 recall@5 over bare FTS5), for the household answers the
figure reached with a margin (``ANSWER_THRESHOLD``; the goal, 0.95, is printed
beside it). ``--dev`` asks the tune half and the dev questions of
docs/household-dev.yaml (written blind to the documents by two other writers, for
finding failures) and, for household2, of docs/household2-dev.yaml and
docs/household2-dev2.yaml and docs/household2-dev3.yaml (three further outside writers
who read only the user docs and the documents; the second's and third's questions are
their own "dev2" and "dev3" columns), and prints no held-out score.

    .venv/server/bin/python bench/eval/eval_docs.py
        [--part corpus|household|household2|household-de|household-de2|household-nl]
        [--no-model] [--dev] [--failures tune|none] [--keep DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import html.parser
import io
import re
import shutil
import sqlite3
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from mnemolis.core import Mnemolis  # noqa: E402
from mnemolis.requestmodels import SearchRequest  # noqa: E402
from mnemolis.settings import load_settings  # noqa: E402

HERE = Path(__file__).resolve().parent / "docs"
CORPUS = HERE / "python.yaml"
HOUSEHOLD = HERE / "household.yaml"
# Questions written blind to the documents by a second writer, for finding failures
# (``--dev``): never part of the score that judges the household answers.
HOUSEHOLD_DEV = HERE / "household-dev.yaml"
HOUSEHOLD_DIR = HERE / "household"
# A second household (bench/eval/docs/household2/), written by a writer who had read
# only the user docs, never the answering code: judged like the first. Issue 28's bar
# (0.90 held out) is the goal printed beside the figure; it is not reached yet (0.788,
# 82/104, on 2026-12-03), so the exit code guards that figure with a margin of three
# answers.
HOUSEHOLD2 = HERE / "household2.yaml"
HOUSEHOLD2_DIR = HERE / "household2"
# Dev questions on the second household by two further outside writers (user docs and
# the household's documents only; the second wrote its "dev2" half on 2026-12-05, the
# third its "dev3" half, on the manuals, PDFs and Markdown files, the same day):
# ``--dev`` asks them; never part of the judged score.
HOUSEHOLD2_DEV = HERE / "household2-dev.yaml"
HOUSEHOLD2_DEV2 = HERE / "household2-dev2.yaml"
HOUSEHOLD2_DEV3 = HERE / "household2-dev3.yaml"
HOUSEHOLD2_GOAL = 0.90
HOUSEHOLD2_THRESHOLD = 0.76
# A German household (bench/eval/docs/household-de/), written in German by an outside
# writer who had read only the user docs (2026-12-05): documents, memories and questions
# in another language than the answering rules'. Its questions are asked with
# ``language: de``, as a German Assist pipeline sends them. The answering rules read
# English: the held-out half reaches 0.455 (50/110, 2026-12-05); the exit code guards
# that figure with a margin of three answers.
HOUSEHOLD_DE = HERE / "household-de.yaml"
HOUSEHOLD_DE_DIR = HERE / "household-de"
HOUSEHOLD_DE_GOAL = 0.90
HOUSEHOLD_DE_THRESHOLD = 0.40
# Households in other languages written later by further outside writers who read only
# the user docs: a second German one (Familie Schubert, Dresden, 94 questions) and a
# Dutch one (Rotterdam, 92) on 2026-12-06, a French one (Vincennes, 94) and a Spanish
# one (Madrid, 94) on 2026-12-06 later, an Italian one (Bologna, 94) and a Portuguese
# one (Porto, 94) on 2026-12-06 after Mnemolis first replied in those languages. Each is
# asked with the language its file names. The exit code guards the held-out figure each
# reached when it came (0.348, 0.545, 0.413, 0.435, 0.402, 0.413), less three answers.
OTHER_HOUSEHOLDS: dict[str, float] = {
    "household-de2": 0.28,
    "household-nl": 0.47,
    "household-fr": 0.34,
    "household-es": 0.36,
    "household-it": 0.36,
    "household-pt": 0.38,
}
MODES = ("keyword", "semantic", "hybrid")
# The bars, on the held-out half.
RECALL_BAR = 0.90
MRR_BAR = 0.80
OVER_BASELINE = 0.08
ANSWER_BAR = 0.95  # the goal for household answers, printed beside the figure
# What the held-out household half honestly reaches (0.913 of 52 on 2026-12-02), with a
# margin of three answers: the exit code guards against regressions; docs/benchmarks.md
# says where it falls short of the goal.
ANSWER_THRESHOLD = 0.88
THREADS = 1
_WORD = re.compile(r"\w+", re.UNICODE)


# --- the corpus ------------------------------------------------------------------------


def html_root() -> Path:
    """The python3-doc HTML folder (its version in the path differs per release)."""
    for candidate in sorted(Path("/usr/share/doc").glob("python3*/html"), reverse=True):
        if (candidate / "library" / "csv.html").is_file() and not candidate.is_symlink():
            return candidate.resolve()
    raise SystemExit(
        "the Python documentation is missing: install Debian's python3-doc "
        "(bash .ci/system-deps does)"
    )


_TOC_LINK = re.compile(r'<a class="reference internal" href="([a-z_0-9.\-]+\.html)">')


def corpus_files(root: Path, spec: dict[str, Any]) -> list[str]:
    """Relative paths of the indexed part of the documentation.

    ``pages`` are globs; ``library_chapters`` name chapters of the library
    reference (``text`` is library/text.html), whose module pages are read from
    the chapter's own table of contents, so the set follows the installed release.
    """
    found: set[str] = set()
    for pattern in spec.get("pages", []):
        found.update(p.relative_to(root).as_posix() for p in root.glob(pattern) if p.is_file())
    for chapter in spec.get("library_chapters", []):
        page = root / "library" / f"{chapter}.html"
        raw = page.read_text(encoding="utf-8", errors="replace")
        body = raw.split('role="main"', 1)[-1].split('class="sphinxsidebar"', 1)[0]
        found.add(f"library/{chapter}.html")
        found.update(
            f"library/{m}" for m in _TOC_LINK.findall(body) if (root / "library" / m).is_file()
        )
    return sorted(found)


class _Visible(html.parser.HTMLParser):
    """All visible text of a page (scripts and styles dropped): what a bare index holds."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style", "head"):
            self.skip += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style", "head"):
            self.skip = max(0, self.skip - 1)

    def handle_data(self, data: str) -> None:
        if not self.skip:
            self.parts.append(data)


def visible_text(raw: str) -> str:
    """The page's visible text, as a plain tag-stripper sees it."""
    parser = _Visible()
    parser.feed(raw)
    parser.close()
    return " ".join(" ".join(parser.parts).split())


class BareFTS:
    """The baseline: one FTS5 row per file, the question's words OR-ed, bm25 order."""

    def __init__(
        self, root: Path, files: list[str], rows: list[tuple[str, str]] | None = None
    ) -> None:
        """Index each file's visible text, or the given (key, text) rows (passages)."""
        self.conn = sqlite3.connect(":memory:")
        self.conn.execute("CREATE VIRTUAL TABLE pages USING fts5(path UNINDEXED, body)")
        if rows is None:
            rows = []
            for rel in files:
                raw = (root / rel).read_text(encoding="utf-8", errors="replace")
                rows.append((rel, visible_text(raw)))
        self.conn.executemany("INSERT INTO pages(path, body) VALUES (?, ?)", rows)

    def search(self, question: str, limit: int = 10) -> list[str]:
        """Pages best first."""
        words = list(dict.fromkeys(w.lower() for w in _WORD.findall(question)))
        if not words:
            return []
        expr = " OR ".join('"' + w.replace('"', '""') + '"' for w in words)
        rows = self.conn.execute(
            "SELECT path FROM pages WHERE pages MATCH ? ORDER BY bm25(pages) LIMIT ?",
            (expr, limit),
        ).fetchall()
        return [r[0] for r in rows]


@dataclass(slots=True)
class Ranked:
    """Recall@5 and reciprocal rank@10 of each question, per engine and half."""

    hits: dict[tuple[str, str], list[float]] = field(default_factory=dict)
    rr: dict[tuple[str, str], list[float]] = field(default_factory=dict)
    misses: list[tuple[str, str, str, list[str], list[str]]] = field(default_factory=list)

    def add(self, engine: str, half: str, q: str, want: list[str], got: list[str]) -> None:
        """Score one ranking (file paths relative to the corpus root, best first)."""
        ranks = [i for i, page in enumerate(got[:10], start=1) if page in want]
        self.hits.setdefault((engine, half), []).append(1.0 if ranks and ranks[0] <= 5 else 0.0)
        self.rr.setdefault((engine, half), []).append(1.0 / ranks[0] if ranks else 0.0)
        if not ranks or ranks[0] > 5:
            self.misses.append((engine, half, q, want, got[:5]))

    def recall(self, engine: str, half: str) -> float:
        values = self.hits.get((engine, half), [])
        return sum(values) / len(values) if values else 0.0

    def mrr(self, engine: str, half: str) -> float:
        values = self.rr.get((engine, half), [])
        return sum(values) / len(values) if values else 0.0


def pages_of(result: dict[str, Any], prefix: str) -> list[str]:
    """Files of a ``search_rag`` result in rank order, relative to the corpus folder."""
    out: list[str] = []
    for groups in result.values():
        for group in groups:
            rel = str(group["source"]).removeprefix(prefix)
            if rel not in out:
                out.append(rel)
    return out


async def wait_indexed(core: Mnemolis, name: str, embedded: bool, timeout: float) -> dict[str, Any]:
    """Wait until a database is indexed (and embedded by the model, when one is loaded)."""
    store = core.services.knowledge
    model = core.services.embedder
    deadline = time.monotonic() + timeout
    while True:
        await store.wait_idle()
        status: dict[str, Any] = await store.status(name)
        vectors = status.get("embedder", {}).get("vectors") or 0
        done = not status["indexing"] and not status["embedding"]
        if embedded and model is not None and status["embedder"]["name"] != model.name:
            # Indexed before the model was ready (the bundled docs at start): a search by
            # meaning re-embeds it, as the server's watcher would.
            await store.search_rag(name, "warm up", 1, "semantic")
            done = False
        if done and (not embedded or vectors >= status["chunks"]):
            return status
        if time.monotonic() > deadline:
            raise SystemExit(f"{name} not indexed within {timeout:.0f} s: {status}")
        await asyncio.sleep(0.5)


def settings_for(data: Path, use_model: bool) -> Any:
    """Default settings in a scratch data folder; the models folder beside it."""
    # One thread: on a shared 2-core box llama.cpp's second thread spins more than it helps.
    llm: dict[str, Any] = {"models_dir": str(data.parent / "models"), "threads": THREADS}
    if not use_model:
        llm["embedding_model"] = "off"
    return load_settings(
        environ={},
        overrides={
            "data_dir": str(data),
            "llm": llm,
            "rag": {"watch": False, "roots": [str(data.parent)]},
        },
    )


async def start_core(data: Path, use_model: bool) -> Mnemolis:
    """A started Mnemolis with the embedding model loaded (when asked for)."""
    core = Mnemolis(settings_for(data, use_model))
    await core.start()
    llm = core.services.llm
    await llm.wait_ready()
    if use_model and core.services.embedder is None:
        raise SystemExit(f"the default embedding model did not load: {llm.embedding_problem}")
    return core


async def run_corpus(args: argparse.Namespace, scratch: Path) -> bool:
    """Index the documentation, score every mode beside bare FTS5; True when the bars hold."""
    spec = yaml.safe_load(CORPUS.read_text(encoding="utf-8"))
    root = html_root()
    files = corpus_files(root, spec["corpus"])
    folder = scratch / "python-docs"
    if not folder.exists():
        for rel in files:
            (folder / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(root / rel, folder / rel)
    size_mb = sum((root / rel).stat().st_size for rel in files) / 1e6
    started = time.perf_counter()
    bare = BareFTS(root, files)
    bare_s = time.perf_counter() - started
    use_model = not args.no_model
    core = await start_core(scratch / "data-corpus", use_model)
    try:
        store = core.services.knowledge
        started = time.perf_counter()
        if "python" not in store.registrations:
            await store.register("python", str(folder), wait=True)
        status = await store.status("python")
        index_s = time.perf_counter() - started
        started = time.perf_counter()
        status = await wait_indexed(core, "python", use_model, timeout=3600)
        embed_s = time.perf_counter() - started
        embedder = status["embedder"]["name"]
        print(
            f"corpus: {root} ({len(files)} pages, {size_mb:.1f} MB of HTML) -> "
            f"{status['chunks']} chunks; index {index_s:.1f} s, embedding pass "
            f"({embedder}) {embed_s:.1f} s; bare FTS5 built in {bare_s:.1f} s\n"
        )
        prefix = str(folder.resolve()) + "/"
        ranked = Ranked()
        timings: dict[str, list[float]] = {}
        indexed = set(files)
        halves = [h for h in args.halves if h in spec]  # the corpus has no dev questions
        for half in halves:
            for q, want in spec[half]:
                if not indexed.intersection(want):
                    raise SystemExit(f"{q!r}: none of its pages {want} is in the corpus")
                t0 = time.perf_counter()
                ranked.add("bare FTS5", half, q, want, bare.search(q))
                timings.setdefault("bare FTS5", []).append(time.perf_counter() - t0)
                for mode in (*MODES, "default"):
                    t0 = time.perf_counter()
                    # Pages in the order their first passage comes (50 passages: ten pages).
                    result = await store.search_rag(
                        "python", q, limit=50, mode=None if mode == "default" else mode
                    )
                    timings.setdefault(mode, []).append(time.perf_counter() - t0)
                    ranked.add(mode, half, q, want, pages_of(result, prefix))
    finally:
        await core.stop()
    n_tune, n_held = len(spec["tune"]), len(spec["held"])
    print(f"### Python documentation: {n_tune} tune + {n_held} held-out questions\n")
    cols = [f"{h} {m}" for h in halves for m in ("recall@5", "MRR@10")]
    print("| engine | " + " | ".join(cols) + " | p50 ms |")
    print("|---|" + "---:|" * (len(cols) + 1))
    for engine in ("bare FTS5", *MODES, "default"):
        lat = sorted(timings[engine])
        cells = [f"{f(engine, h):.3f}" for h in halves for f in (ranked.recall, ranked.mrr)]
        print(f"| {engine} | " + " | ".join(cells) + f" | {lat[len(lat) // 2] * 1000:.1f} |")
    if args.failures == "tune":
        print("\nmisses (tune half, first five files):")
        for engine, half, q, want, got in ranked.misses:
            if half == "tune" and engine in ("default", "bare FTS5", "keyword", "semantic"):
                print(f"  [{engine}] {q}  want {want}  got {got}")
    if "held" not in args.halves:
        return True
    held_recall = ranked.recall("default", "held")
    held_mrr = ranked.mrr("default", "held")
    margin = held_recall - ranked.recall("bare FTS5", "held")
    ok = held_recall >= RECALL_BAR and held_mrr >= MRR_BAR and margin >= OVER_BASELINE
    if not use_model:
        # Without a model the bar is only: never below keyword, nonsense finds nothing.
        ok = held_recall >= ranked.recall("keyword", "held") - 1e-9
    print(
        f"\nheld-out default: recall@5 {held_recall:.3f} (bar {RECALL_BAR}), MRR@10 "
        f"{held_mrr:.3f} (bar {MRR_BAR}), {margin:+.3f} over bare FTS5 (bar +{OVER_BASELINE})"
        f" -> {'pass' if ok else 'FAIL'}\n"
    )
    return ok


# --- the household ---------------------------------------------------------------------


def make_pdf(pages: list[list[str]]) -> bytes:
    """A real PDF (Helvetica text), one list of lines per page."""
    from pypdf import PdfWriter
    from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

    writer = PdfWriter()
    for lines in pages:
        page = writer.add_blank_page(width=595, height=842)
        font = DictionaryObject(
            {
                NameObject("/Type"): NameObject("/Font"),
                NameObject("/Subtype"): NameObject("/Type1"),
                NameObject("/BaseFont"): NameObject("/Helvetica"),
                # Windows-1252: "ä", "ß" and "€" as a German PDF writes them.
                NameObject("/Encoding"): NameObject("/WinAnsiEncoding"),
            }
        )
        page[NameObject("/Resources")] = DictionaryObject(
            {NameObject("/Font"): DictionaryObject({NameObject("/F1"): font})}
        )
        ops = ["BT /F1 11 Tf 14 TL 60 780 Td"]
        for line in lines:
            safe = line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
            ops.append(f"({safe}) Tj T*")
        ops.append("ET")
        stream = DecodedStreamObject()
        stream.set_data("\n".join(ops).encode("cp1252"))
        page[NameObject("/Contents")] = writer._add_object(stream)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


@dataclass(slots=True)
class Judged:
    """Right/total per (class, half, field)."""

    right: dict[tuple[str, str, str], int] = field(default_factory=dict)
    total: dict[tuple[str, str, str], int] = field(default_factory=dict)
    failures: list[tuple[str, str, str, str, str]] = field(default_factory=list)

    def add(self, cls: str, half: str, what: str, ok: bool, q: str, why: str) -> None:
        key = (cls, half, what)
        self.total[key] = self.total.get(key, 0) + 1
        self.right[key] = self.right.get(key, 0) + int(ok)
        if not ok:
            self.failures.append((cls, half, what, q, why))

    def score(self, half: str, what: str | None = None, cls: str | None = None) -> tuple[int, int]:
        keys = [
            k
            for k in self.total
            if k[1] == half and (what is None or k[2] == what) and (cls is None or k[0] == cls)
        ]
        return sum(self.right[k] for k in keys), sum(self.total[k] for k in keys)


def _norm(text: str) -> str:
    return " ".join(text.lower().replace("\u2019", "'").split())


def judge_answer(text: str, wants: list[Any], facts: dict[str, str], allow: set[str]) -> str:
    """Empty when right; else why. ``wants``: phrases (or lists of alternatives) to say."""
    said = _norm(text)
    for want in wants:
        options = want if isinstance(want, list) else [want]
        if not any(_norm(str(o)) in said for o in options):
            return f"does not say {options[0]!r}"
    for fact_id, phrase in facts.items():
        if fact_id not in allow and _norm(phrase) in said:
            return f"reads out an unrelated fact ({fact_id}: {phrase!r})"
    return ""


async def run_household(
    args: argparse.Namespace,
    scratch: Path,
    spec_file: Path = HOUSEHOLD,
    source: Path = HOUSEHOLD_DIR,
    threshold: float = ANSWER_THRESHOLD,
    goal: float = ANSWER_BAR,
) -> bool:
    """Ask every household question through Mnemolis.search; True when the bar holds."""
    spec = yaml.safe_load(spec_file.read_text(encoding="utf-8"))
    folder = scratch / source.name
    if folder.exists():
        shutil.rmtree(folder)
    shutil.copytree(source, folder)
    for name, pages in spec["pdf"].items():
        (folder / name).write_bytes(make_pdf(pages))
    facts: dict[str, str] = {k: str(v) for k, v in spec["facts"].items()}
    texts = {p.name: p.read_bytes().decode("utf-8", "replace") for p in folder.iterdir()}
    for fact_id, phrase in facts.items():
        # Truth comes from the documents: every fact must be written in one of them
        # (or in a memory), else the question would judge against nothing.
        in_memory = any(_norm(phrase) in _norm(m["content"]) for m in spec["memories"])
        in_pdf = any(phrase in line for pages in spec["pdf"].values() for p in pages for line in p)
        if not (in_memory or in_pdf or any(_norm(phrase) in _norm(t) for t in texts.values())):
            raise SystemExit(f"fact {fact_id} ({phrase!r}) is in no document or memory")
    use_model = not args.no_model
    core = await start_core(scratch / f"data-{source.name}", use_model)
    judged = Judged()
    try:
        store = core.services.knowledge
        await store.register("household", str(folder), wait=True)
        for memory in spec["memories"]:
            await store.remember(memory["content"], tags=memory.get("tags"))
        await wait_indexed(core, "household", use_model, timeout=600)
        await wait_indexed(core, "mnemolis-docs", use_model, timeout=600)
        cases = list(spec["questions"])
        dev_files = {
            HOUSEHOLD: [HOUSEHOLD_DEV],
            HOUSEHOLD2: [HOUSEHOLD2_DEV, HOUSEHOLD2_DEV2, HOUSEHOLD2_DEV3],
        }
        if "dev" in args.halves:
            for dev_file in dev_files.get(spec_file, []):
                cases += yaml.safe_load(dev_file.read_text(encoding="utf-8"))["questions"]
        for case in cases:
            if case["half"] not in args.halves:
                continue
            q = case["q"]
            wants = case.get("says", [])
            allow = set(case.get("facts", [])) | set(case.get("allow", []))
            result = await core.search(SearchRequest(query=q, language=spec.get("language")))
            for what, text in (("result", result.result), ("spoken", result.spoken)):
                why = judge_answer(text, wants, facts, allow)
                if not why and case.get("nothing"):
                    # Nothing in the house answers this: no source may claim to.
                    why = (
                        ""
                        if result.source_used in ("none", "web", "kiwix")
                        else (f"answered from {result.source_used}")
                    )
                if not why and what == "spoken" and re.search(r"[#*`\[\]]|https?://", text):
                    why = "markdown or a link in the spoken form"
                judged.add(
                    case["class"],
                    case["half"],
                    what,
                    not why,
                    q,
                    f"{why}\n      {what}: {text[:300]!r} (source {result.source_used})",
                )
    finally:
        await core.stop()
    classes = sorted({c["class"] for c in cases})
    n = {h: sum(1 for c in cases if c["half"] == h) for h in args.halves}
    print(
        f"### Household folder {source.name}/: "
        + " + ".join(f"{n[h]} {h}" for h in args.halves)
        + " questions\n"
    )
    print("| class | " + " | ".join(f"{h} result | {h} spoken" for h in args.halves) + " |")
    print("|---|" + "---:|---:|" * len(args.halves))
    for cls in [*classes, None]:
        cells = []
        for half in args.halves:
            for what in ("result", "spoken"):
                r, t = judged.score(half, what, cls)
                cells.append(f"{r}/{t}" if t else "-")
        print(f"| {cls or '**all**'} | " + " | ".join(cells) + " |")
    if args.failures == "tune":
        print("\nfailures (tune and dev halves):")
        for cls, half, what, q, why in judged.failures:
            if half != "held":
                print(f"  [{cls}/{what}] {q}: {why}")
    if "held" not in args.halves:
        return True
    r, t = judged.score("held")
    share = r / t if t else 0.0
    ok = share >= threshold
    print(
        f"\n{source.name} held-out answers right: {r}/{t} = {share:.3f} (goal {goal}, "
        f"exit 1 below {threshold}) -> {'pass' if ok else 'FAIL'}\n"
    )
    return ok


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--part",
        choices=("corpus", "household", "household2", "household-de", *OTHER_HOUSEHOLDS, "all"),
        default="all",
    )
    parser.add_argument("--no-model", action="store_true", help="hashing fallback, no model")
    parser.add_argument("--failures", choices=("tune", "none"), default="none")
    parser.add_argument("--keep", help="reuse this scratch folder (the index survives runs)")
    parser.add_argument(
        "--dev",
        action="store_true",
        help="while tuning: the tune half and the blind dev questions, no held-out scores",
    )
    args = parser.parse_args()
    args.halves = ("tune", "dev", "dev2", "dev3") if args.dev else ("tune", "held")
    scratch = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="eval-docs-"))
    scratch.mkdir(parents=True, exist_ok=True)
    ok = True
    try:
        if args.part in ("corpus", "all"):
            ok = await run_corpus(args, scratch) and ok
        if args.part in ("household", "all"):
            ok = await run_household(args, scratch) and ok
        if args.part in ("household2", "all") and HOUSEHOLD2.is_file():
            ok = (
                await run_household(
                    args, scratch, HOUSEHOLD2, HOUSEHOLD2_DIR, HOUSEHOLD2_THRESHOLD, HOUSEHOLD2_GOAL
                )
                and ok
            )
        if args.part in ("household-de", "all") and HOUSEHOLD_DE.is_file():
            ok = (
                await run_household(
                    args,
                    scratch,
                    HOUSEHOLD_DE,
                    HOUSEHOLD_DE_DIR,
                    HOUSEHOLD_DE_THRESHOLD,
                    HOUSEHOLD_DE_GOAL,
                )
                and ok
            )
        for name, threshold in OTHER_HOUSEHOLDS.items():
            spec_file = HERE / f"{name}.yaml"
            if args.part in (name, "all") and spec_file.is_file():
                ok = (
                    await run_household(
                        args, scratch, spec_file, HERE / name, threshold, HOUSEHOLD_DE_GOAL
                    )
                    and ok
                )
    finally:
        if not args.keep:
            shutil.rmtree(scratch, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
