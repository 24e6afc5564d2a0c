"""Prompts for Mnemolis's own uses of the model, and the checks on what comes back.

Prompt layout keeps the llama.cpp prompt cache warm: the long fixed
instructions come first and never change, the per-question evidence and the
question follow, and volatile data (the current time, live states) goes last.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from datetime import datetime

from ..models import Evidence
from ..spoken import SENTENCE, plain_text

COMPOSE_SYSTEM = (
    "You answer questions for a smart home assistant. Use only the numbered evidence "
    "below; never add facts that are not in it. Answer in one or two sentences with "
    "the exact names and figures from the evidence, and cite the evidence you used "
    "with its number in brackets, like [1]. If the evidence does not answer the "
    "question, answer only: I do not know."
)
CLASSIFY_SYSTEM = (
    "You route questions for a smart home assistant. Pick the sources that can answer "
    "the question, best first, from this list, and reply with JSON only, like "
    '{"sources": ["web"]}.'
)
SPOKEN_SYSTEM = (
    "Rewrite the answer so it can be read aloud by a voice assistant: one or two short "
    "sentences, plain words, no lists, no links, no formatting, keep every figure."
)
SOURCE_HINTS: dict[str, str] = {
    "ha": "devices, sensors and states in this home",
    "forecast": "the weather forecast",
    "news": "recent news headlines",
    "web": "a web search",
    "kiwix": "an offline encyclopedia (Wikipedia)",
    "uptime": "whether monitored services are up",
    "changes": "what changed recently in the home",
    "rag": "the user's own documents",
    "memory": "facts the user asked to remember",
}
# Sources whose evidence changes minute to minute go last (after stable ones).
VOLATILE_SOURCES = frozenset({"ha", "uptime", "changes", "forecast"})
_EVIDENCE_CHARS = 700

_CITE = re.compile(r"\s*\[(\d{1,3})\]")
# A token a model can only copy, never make up: a figure, a code, a name
# ("tulip-harbour-42", "SMS4HVI33G", "Meadowlark" inside a sentence).
_TOKEN = re.compile(r"[^\W_](?:[\w'\u2019-]*[^\W_])?", re.UNICODE)
_SENTENCE_START = re.compile(r"(?:^|[.!?]\s+|\n)\W*$")
# "I do not know", "the evidence does not say": the model declines to answer.
_REFUSAL = re.compile(
    r"\b(?:i\s+)?(?:do\s+not|don['\u2019]t|cannot|can['\u2019]t)\s+(?:know|tell|find|say)\b"
    r"|\b(?:evidence|passages?|documents?)\s+(?:does|do)\s+not\s+(?:say|answer|mention)\b"
    r"|\bno\s+(?:information|evidence)\b",
    re.IGNORECASE,
)
# Words that carry no fact: an answer made of them and the question's words gives nothing.
_FUNCTION = frozenset(
    {
        "the",
        "and",
        "for",
        "are",
        "was",
        "were",
        "has",
        "have",
        "had",
        "this",
        "that",
        "these",
        "those",
        "with",
        "from",
        "into",
        "onto",
        "you",
        "your",
        "our",
        "their",
        "they",
        "them",
        "its",
        "his",
        "her",
        "she",
        "him",
        "not",
        "but",
        "can",
        "will",
        "would",
        "should",
        "could",
        "may",
        "might",
        "must",
        "shall",
        "what",
        "when",
        "where",
        "which",
        "who",
        "whom",
        "whose",
        "why",
        "how",
        "does",
        "did",
        "done",
        "doing",
        "any",
        "all",
        "some",
        "each",
        "every",
        "than",
        "then",
        "there",
        "here",
        "about",
        "also",
        "just",
        "only",
        "very",
        "been",
        "being",
        "out",
        "off",
        "over",
        "under",
        "again",
        "more",
        "most",
        "other",
        "such",
        "own",
        "same",
        "too",
    }
)
GROUNDED_SHARE = 0.6  # of an answer's content words, what must come from the passages
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_WORD = re.compile(r"[^\W_]{3,}", re.UNICODE)


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


# Small models keep going after the answer (inventing more evidence lines).
# At most four: the OpenAI API allows four stop sequences and our own /v1 rejects a fifth. Only
# the first line is kept (first_paragraph), so a stop is a saving, never the cut itself.
COMPOSE_STOPS = ["\n\n", "\n[", "\nQuestion:", "\nEvidence:"]


def first_paragraph(text: str) -> str:
    """The answer proper: the first non-empty line, whitespace collapsed."""
    for line in text.strip().splitlines():
        if line.strip():
            return " ".join(line.split())
    return ""


def overlap(candidate: str, source: str) -> float:
    """Share of the candidate's words that also occur in the source."""
    words = {w.lower() for w in _WORD.findall(candidate)}
    if not words:
        return 0.0
    have = {w.lower() for w in _WORD.findall(source)}
    return len(words & have) / len(words)


KEPT = 0.4  # of each sentence's words, what a rewrite must keep to still say it


def keeps_every_sentence(candidate: str, source: str) -> bool:
    """Whether the candidate still says each sentence of the source: a rewrite that drops
    "Pour warm water along the pipe" kept the situation and lost what to do."""
    return all(
        overlap(sentence, candidate) >= KEPT
        for sentence in SENTENCE.split(source)
        if _WORD.search(sentence)
    )


def compose_messages(
    question: str, evidence: Sequence[Evidence], now: datetime | None = None
) -> list[dict[str, str]]:
    """Fixed instructions first, evidence (stable sources before live ones), time last."""
    order = sorted(range(len(evidence)), key=lambda i: (evidence[i].source in VOLATILE_SOURCES, i))
    lines = []
    for i in order:
        ev = evidence[i]
        head = f"[{i + 1}] {ev.title} ({ev.source})" if ev.title else f"[{i + 1}] ({ev.source})"
        when = f" [as of {ev.timestamp}]" if ev.timestamp else ""
        lines.append(f"{head}: {_clip(ev.text, _EVIDENCE_CHARS)}{when}")
    stamp = (now or datetime.now().astimezone()).strftime("%Y-%m-%d %H:%M %Z").strip()
    # The time closes the evidence block; the question stays last because small
    # models answer what they read last. Everything after the fixed
    # instructions differs per request, so this order costs no cache hits.
    user = "Evidence:\n" + "\n".join(lines) + f"\nCurrent time: {stamp}\n\nQuestion: {question}"
    return [{"role": "system", "content": COMPOSE_SYSTEM}, {"role": "user", "content": user}]


def classify_messages(question: str, sources: Sequence[str]) -> list[dict[str, str]]:
    """The source list is part of the fixed prefix; the question comes last."""
    listing = "\n".join(f"- {s}: {SOURCE_HINTS.get(s, s)}" for s in sources)
    return [
        {"role": "system", "content": f"{CLASSIFY_SYSTEM}\nSources:\n{listing}"},
        {"role": "user", "content": question},
    ]


def classify_schema(sources: Sequence[str]) -> dict[str, object]:
    """JSON Schema that only admits known source names."""
    return {
        "type": "object",
        "properties": {
            "sources": {
                "type": "array",
                "items": {"type": "string", "enum": list(sources)},
                "minItems": 1,
                "maxItems": max(1, min(2, len(sources))),
            }
        },
        "required": ["sources"],
        "additionalProperties": False,
    }


def classify_choices(sources: Sequence[str]) -> list[str]:
    """Every answer the schema admits with one or two sources, as exact JSON strings."""
    out = [json.dumps({"sources": [s]}) for s in sources]
    out += [json.dumps({"sources": [a, b]}) for a in sources for b in sources if a != b]
    return out


def spoken_messages(text: str) -> list[dict[str, str]]:
    """Ask for the voice form of one answer."""
    return [
        {"role": "system", "content": SPOKEN_SYSTEM},
        {"role": "user", "content": plain_text(text)},
    ]


def numbers_in(text: str) -> set[str]:
    """Figures mentioned in a text, normalised (``8,849`` and ``8849`` match)."""
    return {n.replace(",", "").rstrip(".") for n in _NUMBER.findall(text)}


def grounded(answer: str, *sources: str) -> bool:
    """Every figure in the answer appears in the sources (no invented numbers)."""
    allowed: set[str] = set()
    for src in sources:
        allowed |= numbers_in(src)
    cited = {m.group(1) for m in _CITE.finditer(answer)}
    return numbers_in(_CITE.sub("", answer)) - cited <= allowed


def add_citations(answer: str, evidence: Sequence[Evidence]) -> str:
    """Keep valid [n] markers; cite each uncited sentence's best-matching evidence."""
    n_ev = len(evidence)
    answer = _CITE.sub(lambda m: m.group(0) if 1 <= int(m.group(1)) <= n_ev else "", answer)
    if not evidence:
        return answer.strip()
    ev_words = [
        {w.lower() for w in _WORD.findall(f"{e.title} {e.text}")} | numbers_in(e.text)
        for e in evidence
    ]
    out: list[str] = []
    for sentence in SENTENCE.split(answer.strip()):
        if not sentence.strip():
            continue
        if _CITE.search(sentence):
            out.append(sentence)
            continue
        words = {w.lower() for w in _WORD.findall(sentence)} | numbers_in(sentence)
        scores = [len(words & ev) for ev in ev_words]
        best = max(range(n_ev), key=lambda i: scores[i])
        if scores[best] == 0:
            out.append(sentence)
            continue
        body = sentence.rstrip()
        end = body[-1] if body and body[-1] in ".!?" else ""
        body = body[: len(body) - len(end)] if end else body
        out.append(f"{body} [{best + 1}]{end}")
    return " ".join(out)


def is_refusal(text: str) -> bool:
    """Whether the model declined to answer ("I do not know")."""
    return bool(_REFUSAL.search(text))


def proper_tokens(text: str) -> set[str]:
    """Names, codes and figures a text states (lower-cased): a capital past a sentence's
    start, a digit, or all capitals — what only the passages can supply."""
    out: set[str] = set()
    for m in _TOKEN.finditer(text):
        token = m.group(0)
        if token == "I":  # noqa: S105 (the pronoun, not a password)
            continue
        digit = any(c.isdigit() for c in token)
        capital = any(c.isupper() for c in token[1:]) or (
            token[0].isupper() and not _SENTENCE_START.search(text[: m.start()])
        )
        if digit or capital:
            out.add(token.lower().replace("\u2019", "'"))
    return out


def passage_text(ev: Evidence) -> str:
    """What a passage says: its text and its heading (a file name says nothing)."""
    title = ev.title.rsplit(" — ", 1)[1] if " — " in ev.title else ev.title
    if ev.source == "rag" and " — " not in ev.title:
        title = ""
    return f"{title} {ev.text} {ev.timestamp or ''}"


def grounding_problem(answer: str, question: str, passages: Sequence[str]) -> str:
    """Why a written answer is not grounded in the passages ('' when it is): every figure
    and name must be in them, most of its words too, and it must say something the
    question did not."""
    body = _CITE.sub("", _LABELLED_CITE.sub("", answer))
    source = " ".join(passages)
    if not _WORD.search(body) and not numbers_in(body):
        return "the model wrote nothing"
    figures = numbers_in(body) - numbers_in(source)
    if figures:
        return f"figures not in the passages: {', '.join(sorted(figures))}"
    have_tokens = {t.lower().replace("\u2019", "'") for t in _TOKEN.findall(source)}
    names = proper_tokens(body) - have_tokens
    names = {n for n in names if n.rstrip(".") not in numbers_in(source)}
    if names:
        return f"names not in the passages: {', '.join(sorted(names))}"
    have = {w.lower() for w in _WORD.findall(source)}
    content = {w.lower() for w in _WORD.findall(body)} - _FUNCTION
    asked = {w.lower() for w in _WORD.findall(question)} | numbers_in(question)
    if content:
        # The question's own words name what it is about ("the boiler"): restating
        # them is grounded, though only what the passages add makes it an answer.
        share = len(content & (have | asked)) / len(content)
        if share < GROUNDED_SHARE:
            return f"only {share:.0%} of its words are in the passages"
    if not ((content & have) | numbers_in(body)) - asked:
        return "it says nothing the question did not"
    return ""


_LABELLED_CITE = re.compile(r"\s*\[\d{1,3},[^\]]*\]")


def citation_label(ev: Evidence) -> str:
    """How a citation names a passage: its database and file, or its source and title."""
    if " — " in ev.title:
        return ev.title.split(" — ", 1)[0]
    if ev.title and ev.title != ev.source:
        return ev.title if ev.title.startswith(f"{ev.source}:") else f"{ev.source}: {ev.title}"
    return ev.source


def label_citations(answer: str, evidence: Sequence[Evidence]) -> str:
    """``[1]`` → ``[1, household: boiler.html]``, as extractive answers cite."""

    def label(m: re.Match[str]) -> str:
        n = int(m.group(1))
        return f" [{n}, {citation_label(evidence[n - 1])}]"

    return _CITE.sub(label, answer)
