"""Answers from FAQs nobody here wrote, asked their own questions (issue 28).

Five upstream FAQs, vendored under bench/eval/docs/upstream/<name>/ (see each
``SOURCE``): nano's HTML FAQ (``<h3>`` questions), fetchmail's HTML FAQ (``<h2>``
"G1." questions), Celery's reStructuredText FAQ (section titles), procmail's
plain-text FAQ (numbered question lines) and Midnight Commander's plain-text FAQ
("2.1 Question?" lines at the margin over answers set in, a contents list on top).
docs/upstream/extract.py reads their questions and answers (the truth) into
upstream.yaml and writes each file a second time with the question headings removed
(``noq``): every corpus is asked in both shapes, the file as shipped and the answers
without their questions.

Each shape is indexed alone by one Mnemolis with its default settings (the bundled
embedding model), beside the bundled docs as a user has them, and judged on:

* **answer** — ``Mnemolis.search(SearchRequest(query=q))``: ``result`` and ``spoken``
  each carry the truth's content (``judge_answer``): of the answer's words that are
  not the question's own, enough come from the truth passage and most of them do.
  A quote of the question, a restatement of it or a cross-reference to it carries
  none of the truth's words and counts as wrong;
* **refused** — questions of another project's FAQ asked of this folder (a checked
  list in extract.py): the right reply says no source answers (``source_used`` none,
  as eval_docs judges its ``nothing`` questions, or an answer that says so);
* **recall@5** — the default search mode (``search_rag``, as eval_docs measures
  recall) finds the truth passage among its first five passages (a passage is on the
  truth when it holds eight consecutive words of it, or a shorter passage is itself a
  run of four or more of them), beside a bare SQLite FTS5 over
  100-word windows of the same file, in the same run.

The split into a tune and a held-out half is fixed in upstream.yaml (a hash of the
question). Prints Markdown tables, the halves apart, and each held-out figure (all
corpora and shapes pooled) beside issue 28's bar: answer ≥ 0.90, refused ≥ 0.90,
recall@5 ≥ bare FTS5 + 0.10. Until the answer bar is met the exit code guards what is
reached (``GUARDS``: 0.729 / 0.938 / +0.047 on 2026-12-05, once Midnight Commander's
FAQ joined the four, less a few answers) and exits 1 below it. Failures (a wrong
answer, an answered no-answer question, a truth passage outside the first five) are
printed for the tune half only.

    .venv/server/bin/python bench/eval/eval_upstream.py [--corpus NAME]... [--no-model]
        [--failures tune|none] [--keep DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import math
import re
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from eval_docs import BareFTS, start_core, visible_text, wait_indexed  # noqa: E402

from mnemolis.requestmodels import SearchRequest  # noqa: E402

UPSTREAM = HERE / "docs" / "upstream"
DATA = UPSTREAM / "upstream.yaml"
SHAPES = ("shipped", "noq")
HALVES = ("tune", "held")
# The bars, on the held-out half.
ANSWER_BAR = 0.90
REFUSED_BAR = 0.90
OVER_BASELINE = 0.10
# What the exit code guards meanwhile: the held-out figures reached (0.729, 0.938,
# +0.047 with the fifth FAQ, Midnight Commander's; 0.750, 0.921, +0.095 with the four
# before it) less three answers, one refusal and two recalled passages.
GUARDS = {"answer": 0.71, "refused": 0.91, "margin": 0.03}
# An answer is right when it shares this many of the truth's words (fewer when the
# truth is short: this share of them) and most of its own words come from the truth.
SHARED_WORDS = 5
SHARED_SHARE = 0.4
PRECISION = 0.5
# A passage is on the truth when it holds this many consecutive words of it, or is
# itself (shorter) a run of at least SHORT_RUN of them: "Fetchmail is fully
# Y2K-compliant." is the truth's first sentence whole.
SHINGLE = 8
SHORT_RUN = 4
WINDOW, STRIDE = 100, 50  # bare FTS5 passages: 100-word windows, overlapping by half
_WORD = re.compile(r"\w+", re.UNICODE)
# English function words only: what carries no content in any text.
_FUNCTION_WORDS = """
a about above after again against all also am an and any are as at be because been
before being below between both but by can cannot could did do does doing don done down
during each either else even ever every few for from further get gets got had has have
having he her here hers him his how however i if in into is it its itself just let like
may me might more most much must my no nor not now of off on once one only or other our
out over own per same she should so some such than that the their them then there these
they this those though through to too under until up upon us use used using very was we
well were what when where whether which while who whom whose why will with within
without would yes yet you your yours
"""
_STOP = frozenset(_FUNCTION_WORDS.split())
# The answer's citation marks ("[1, nano-shipped: faq.html]"): provenance, not content.
_CITATION = re.compile(r"\[\d+(?:,[^\]]*)?\]")
# reStructuredText read out raw (":meth:", ".. _faq-x:", "<target>"): markup, not content.
_MARKUP = re.compile(r"\.\. _[\w-]+:|(?<!\w):[a-z]+:(?=[`\w])|<[\w.]+>")
# FAQ labels before an answer ("Answer:", "A:"): layout, not content.
_LABEL = re.compile(r"\b(?:answer|a|q)\s*:", re.I)
# Where a clause ends: the truth's first clauses are its direct answer.
_CLAUSE = re.compile(r"(?<=[.!?:;])\s+")
_REFUSAL = re.compile(
    r"no source could answer|nothing (?:here |in [^.]{0,80})?(?:answers|says)|"
    r"(?:i|mnemolis) (?:don't|do not) know|found no answer|no answer (?:was )?found",
    re.I,
)


def words(text: str) -> list[str]:
    """Lower-case words of a text."""
    return [w.lower() for w in _WORD.findall(text.replace("\u2019", "'"))]


def content(text: str) -> set[str]:
    """The words that carry content: not function words, not one- or two-letter tokens."""
    return {w for w in words(text) if len(w) > 2 and w not in _STOP}


def lead_sentences(truth: str, count: int = 2) -> list[list[str]]:
    """The words of the truth's first clauses: where an FAQ answer says its answer."""
    parts = [words(p) for p in _CLAUSE.split(truth)]
    return [p for p in parts if p][:count]


def judge_answer(answer: str, question: str, truth: str) -> str:
    """Empty when the answer carries the truth's content; else why it does not.

    Right when, once its citation marks, markup (Markdown, raw RST roles), FAQ labels
    ("Answer:") and any quote of the question are set aside, the answer either quotes
    one of the truth's first two clauses whole (the short direct answer: "No.", "Yes,
    use send_task.") or shares enough of the truth's content words; and in both cases
    most of its own content words come from the truth. A quote of the question or a
    cross-reference to it ("see Section 6.1, ...?") has no words of the truth: wrong.
    """
    cleaned = _MARKUP.sub(" ", _CITATION.sub(" ", answer))
    cleaned = _LABEL.sub(" ", cleaned.replace("*", " ").replace("`", " "))
    said = " ".join(words(cleaned))
    for asked in (question, question.rstrip("?")):
        said = said.replace(" ".join(words(asked)), " ")
    said_words = said.split()
    if not said_words:
        return "says nothing beyond the question itself"
    own = content(said) - content(question)
    truth_words = content(truth) - content(question)
    shared = own & truth_words
    if own and len(shared) / len(own) < PRECISION:
        return f"only {len(shared)} of its {len(own)} words come from the truth"
    padded = f" {said} "
    for lead in lead_sentences(truth):
        run = " ".join(lead)
        if (len(lead) >= 3 and f" {run} " in padded) or said.strip().startswith(run):
            return ""
    if not own:
        return "says nothing beyond the question's own words"
    need = min(SHARED_WORDS, max(1, math.ceil(SHARED_SHARE * len(truth_words))))
    if len(shared) < need:
        return f"shares {len(shared)} of the {need} truth words needed"
    return ""


def refused(result: Any) -> bool:
    """The reply says nothing answers (judged as eval_docs judges ``nothing`` questions)."""
    if result.source_used in ("none", "web", "kiwix"):
        return True
    return bool(_REFUSAL.search(result.result))


def shingles(text: str) -> set[tuple[str, ...]]:
    """Every run of ``SHINGLE`` consecutive words (the whole text when it is shorter)."""
    w = words(text)
    if len(w) <= SHINGLE:
        return {tuple(w)}
    return {tuple(w[i : i + SHINGLE]) for i in range(len(w) - SHINGLE + 1)}


def truth_marks(truth: str) -> set[tuple[str, ...]]:
    """What a passage on the truth holds: one of its ``SHINGLE``-word runs, or (a passage
    shorter than that) the whole passage as one of its shorter runs."""
    w = words(truth)
    short = {tuple(w[i : i + n]) for n in range(SHORT_RUN, SHINGLE) for i in range(len(w) - n + 1)}
    return shingles(truth) | short


def on_truth(passage: str, truth: set[tuple[str, ...]]) -> bool:
    """The passage holds a run of the truth's words (``truth_marks``)."""
    return not truth.isdisjoint(shingles(passage))


def windows(text: str) -> list[tuple[str, str]]:
    """The bare baseline's passages: overlapping windows of the file's visible words."""
    w = text.split()
    return [
        (str(i), " ".join(w[i : i + WINDOW])) for i in range(0, max(1, len(w) - STRIDE), STRIDE)
    ]


@dataclass(slots=True)
class Score:
    """Right/total per (corpus, shape, half, metric)."""

    right: dict[tuple[str, str, str, str], int] = field(default_factory=dict)
    total: dict[tuple[str, str, str, str], int] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)

    def add(self, key: tuple[str, str, str, str], ok: bool) -> None:
        self.total[key] = self.total.get(key, 0) + 1
        self.right[key] = self.right.get(key, 0) + int(ok)

    def get(self, corpus: str | None, shape: str | None, half: str, metric: str) -> tuple[int, int]:
        keys = [
            k
            for k in self.total
            if (corpus is None or k[0] == corpus)
            and (shape is None or k[1] == shape)
            and k[2] == half
            and k[3] == metric
        ]
        return sum(self.right[k] for k in keys), sum(self.total[k] for k in keys)

    def cell(self, corpus: str | None, shape: str | None, half: str, metric: str) -> str:
        r, t = self.get(corpus, shape, half, metric)
        return f"{r / t:.2f} ({r}/{t})" if t else "-"

    def share(self, half: str, metric: str) -> float:
        r, t = self.get(None, None, half, metric)
        return r / t if t else 0.0


def passages(result: dict[str, Any]) -> list[str]:
    """Passages of a ``search_rag`` result, best first (one file per database here)."""
    return [m["content"] for groups in result.values() for g in groups for m in g["matches"]]


async def run_shape(
    core: Any,
    name: str,
    shape: str,
    spec: dict[str, Any],
    nothing: list[dict[str, Any]],
    scratch: Path,
    score: Score,
    args: argparse.Namespace,
    latency: list[float],
) -> None:
    """Index one corpus in one shape alone and ask its questions; drop it after."""
    file = spec["file"]
    source = UPSTREAM / name / shape / file
    folder = scratch / f"{name}-{shape}"
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, folder / file)
    raw = source.read_text(encoding="utf-8", errors="replace")
    bare = BareFTS(folder, [], rows=windows(visible_text(raw) if file.endswith(".html") else raw))
    text_of = dict(bare.conn.execute("SELECT path, body FROM pages").fetchall())
    store = core.services.knowledge
    db = f"{name}-{shape}"
    started = time.perf_counter()
    await store.register(db, str(folder), wait=True)
    status = await wait_indexed(core, db, not args.no_model, timeout=900)
    index_s = time.perf_counter() - started
    started = time.perf_counter()
    try:
        for case in spec["questions"]:
            q, truth, half = case["q"], case["truth"], case["half"]
            marks = truth_marks(truth)
            found = passages(await store.search_rag(db, q, limit=10, mode=None))
            recalled = any(on_truth(p, marks) for p in found[:5])
            score.add((name, shape, half, "recall"), recalled)
            bare_hits = [text_of[k] for k in bare.search(q, limit=5)]
            bare_recalled = any(on_truth(p, marks) for p in bare_hits)
            score.add((name, shape, half, "bare"), bare_recalled)
            if not recalled and half == "tune":
                first = f"first of five: {found[0][:160]!r}" if found else "no passage"
                score.failures.append(
                    f"[{name}/{shape} recall] {q}\n      {first}"
                    f"\n      bare FTS5 found it: {bare_recalled}"
                )
            t0 = time.perf_counter()
            result = await core.search(SearchRequest(query=q))
            latency.append(time.perf_counter() - t0)
            whys = [
                f"{what}: {why}: {text[:240]!r}"
                for what, text in (("result", result.result), ("spoken", result.spoken))
                if (why := judge_answer(text, q, truth))
            ]
            score.add((name, shape, half, "answer"), not whys)
            if whys and half == "tune":
                score.failures.append(
                    f"[{name}/{shape} answer] {q}\n      "
                    + "\n      ".join(whys)
                    + f" (source {result.source_used})\n      truth: {truth[:160]!r}"
                )
        for case in nothing:
            q, half = case["q"], case["half"]
            t0 = time.perf_counter()
            result = await core.search(SearchRequest(query=q))
            latency.append(time.perf_counter() - t0)
            ok = refused(result)
            score.add((name, shape, half, "refused"), ok)
            if not ok and half == "tune":
                score.failures.append(
                    f"[{name}/{shape} refused] {q}\n      answered from {result.source_used}: "
                    f"{result.result[:240]!r}"
                )
    finally:
        await store.remove(db)
    print(
        f"{db}: {status['chunks']} chunks, indexed in {index_s:.1f} s, "
        f"{len(spec['questions'])} + {len(nothing)} questions in "
        f"{time.perf_counter() - started:.1f} s",
        flush=True,
    )


def table(score: Score, names: list[str]) -> None:
    """One Markdown table per half: a row per corpus and shape, then the pooled row."""
    for half in HALVES:
        print(f"\n#### {half} half\n")
        print(
            "| corpus | shape | answer right | no-answer refused | recall@5 | bare FTS5 recall@5 |"
        )
        print("|---|---|---:|---:|---:|---:|")
        rows: list[tuple[str | None, str | None]] = [(n, s) for n in names for s in SHAPES]
        rows += [(None, s) for s in SHAPES] + [(None, None)]
        for corpus, shape in rows:
            cells = [
                score.cell(corpus, shape, half, m) for m in ("answer", "refused", "recall", "bare")
            ]
            label = corpus or "**all**"
            print(f"| {label} | {shape or 'both'} | " + " | ".join(cells) + " |")


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", action="append", help="only this corpus (repeatable)")
    parser.add_argument("--no-model", action="store_true", help="hashing fallback, no model")
    parser.add_argument("--failures", choices=("tune", "none"), default="none")
    parser.add_argument("--keep", help="scratch folder to use (kept after the run)")
    args = parser.parse_args()
    data = yaml.safe_load(DATA.read_text(encoding="utf-8"))
    names = [n for n in data["corpora"] if not args.corpus or n in args.corpus]
    if not names:
        raise SystemExit(f"no corpus named {args.corpus}; there are {list(data['corpora'])}")
    scratch = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="eval-upstream-"))
    scratch.mkdir(parents=True, exist_ok=True)
    score = Score()
    latency: list[float] = []
    started = time.perf_counter()
    try:
        core = await start_core(scratch / "data", not args.no_model)
        print(f"model loaded in {time.perf_counter() - started:.1f} s", flush=True)
        try:
            await wait_indexed(core, "mnemolis-docs", not args.no_model, timeout=900)
            for name in names:
                nothing = [c for c in data["nothing"] if c["of"] == name]
                for shape in SHAPES:
                    await run_shape(
                        core, name, shape, data["corpora"][name], nothing, scratch, score, args,
                        latency,
                    )  # fmt: skip
        finally:
            await core.stop()
    finally:
        if not args.keep:
            shutil.rmtree(scratch, ignore_errors=True)
    n = {h: sum(score.get(None, None, h, m)[1] for m in ("answer", "refused")) for h in HALVES}
    lat = sorted(latency)
    print(
        f"\n### Upstream FAQs ({', '.join(names)}): {n['tune']} tune + {n['held']} held-out "
        f"asks; {time.perf_counter() - started:.0f} s, /search p50 "
        f"{lat[len(lat) // 2] * 1000:.0f} ms, p95 {lat[int(len(lat) * 0.95)] * 1000:.0f} ms"
    )
    table(score, names)
    if args.failures == "tune":
        print("\nfailures (tune half only):")
        for line in score.failures:
            print("  " + line)
    answer = score.share("held", "answer")
    refusals = score.share("held", "refused")
    margin = score.share("held", "recall") - score.share("held", "bare")
    ok = answer >= GUARDS["answer"] and refusals >= GUARDS["refused"] - 1e-9
    if not args.no_model:
        ok = ok and margin >= GUARDS["margin"] - 1e-9
    met = answer >= ANSWER_BAR and refusals >= REFUSED_BAR and margin >= OVER_BASELINE - 1e-9
    print(
        f"\nheld-out: answer right {answer:.3f} (bar {ANSWER_BAR}), no-answer refused "
        f"{refusals:.3f} (bar {REFUSED_BAR}), recall@5 {margin:+.3f} over bare FTS5 "
        f"(bar +{OVER_BASELINE}{'' if not args.no_model else ', not judged without the model'})"
        f" -> issue bars {'met' if met else 'NOT met'}; exit 1 below {GUARDS['answer']} / "
        f"{GUARDS['refused']} / +{GUARDS['margin']} -> {'pass' if ok else 'FAIL'}\n"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
