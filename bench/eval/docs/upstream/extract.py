"""Read each vendored upstream FAQ's own questions and answers; write the eval's data.

For every corpus under bench/eval/docs/upstream/<name>/shipped/ this finds the
questions the way the upstream wrote them (an HTML heading before its answer, a
reStructuredText section title, a numbered plain-text line), keeps those that are
questions (hold a "?"), and writes:

* ``<name>/noq/<file>``: the same file with the question headings removed (and the
  table-of-contents links that repeat them), the answers left in place: the
  "FAQ-shaped and not" second shape;
* ``upstream.yaml``: per corpus its file and questions, each with its truth (the
  upstream answer, as plain text) and its half (``tune`` or ``held``, fixed by a
  hash of the question), plus the checked "no answer" list (questions of one
  project asked of another's folder; see ``NOTHING``).

Run it again only when a vendored file changes:

    .venv/server/bin/python bench/eval/docs/upstream/extract.py
"""

from __future__ import annotations

import hashlib
import html
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from eval_docs import visible_text  # noqa: E402

# The most questions asked of one corpus (a hash picks which, so the choice is fixed).
MAX_QUESTIONS = 40
# Answers shorter than this are pointers elsewhere or notes that the answer was dropped.
MIN_WORDS = 15


@dataclass(slots=True)
class Entry:
    """One upstream question, its answer as plain text, and what to cut for the noq shape."""

    question: str
    answer: str
    cut: list[str]


def _clean(text: str) -> str:
    return " ".join(text.split())


# --- HTML: a heading (<h2>/<h3>, "1.1." or "G1." numbered) and the blocks under it -------

_HTML_Q = re.compile(
    r"<h([23])>\s*<a (?:id=\"(?P<id>[^\"]+)\" )?name=\"(?P<name>[^\"]+)\"\s*>(?P<inner>.*?)</h\1>",
    re.S,
)
_NUMBER = re.compile(r"^\s*(?:[A-Z]?\d+(?:\.\d+)*\.?|Q:)\s*")


def html_entries(raw: str) -> list[Entry]:
    """Questions of an HTML FAQ: numbered headings; the answer runs to the next heading."""
    out: list[Entry] = []
    matches = list(_HTML_Q.finditer(raw))
    for m in matches:
        anchor = m.group("name")
        question = _NUMBER.sub("", visible_text(m.group("inner")))
        rest = raw[m.end() :]
        stop = re.search(r"<h[123][ >]|<hr", rest)
        body = rest[: stop.start()] if stop else rest
        # The table of contents' link (a line of its own, or the question spelt out) goes;
        # a link to the entry from another answer's prose ("all popular <a href="#T1">mail
        # transport programs</a>") is part of that answer and stays.
        toc = re.compile(
            r"<a href=\"#" + re.escape(anchor) + r"\">(?P<text>.*?)</a>(?P<br><br/?>)?", re.S
        )
        links = [
            t.group(0)
            for t in toc.finditer(raw)
            if t.group("br") or _NUMBER.sub("", visible_text(t.group("text"))) == question
        ]
        cut = [m.group(0), *links]
        out.append(Entry(question, visible_text(body), cut))
    return out


# --- reStructuredText: a section title underlined with ----, its text to the next title ---

_RST_TITLE = re.compile(r"^(?P<title>\S[^\n]*)\n(?P<rule>-{3,})\n", re.M)
_ROLE = re.compile(r":[a-z:]+:`([^`<]*?)(?:\s*<[^>]*>)?`")


def rst_plain(text: str) -> str:
    """RST markup read as the words a reader sees."""
    text = re.sub(r"^\.\. _[^\n]*:\s*$", "", text, flags=re.M)
    text = re.sub(r"^\.\. _`[^`]*`:\s*\n\s+\S+\s*$", "", text, flags=re.M)
    text = _ROLE.sub(r"\1", text)
    text = re.sub(r"`([^`<]+?)(?:\s*<[^>]*>)?`_", r"\1", text)
    text = text.replace("``", "").replace("**", "").replace("\\*", "*")
    text = re.sub(r"^\s*[~=\-]{3,}\s*$", "", text, flags=re.M)
    return _clean(text)


def rst_entries(raw: str) -> list[Entry]:
    """Questions of a Sphinx FAQ: each ``----``-underlined title up to the next title."""
    out: list[Entry] = []
    titles = list(_RST_TITLE.finditer(raw))
    for i, m in enumerate(titles):
        end = titles[i + 1].start() if i + 1 < len(titles) else len(raw)
        body = raw[m.end() : end]
        # A higher-level title (====) closes the answer too.
        top = re.search(r"^\S[^\n]*\n={3,}\n", body, re.M)
        if top:
            body = body[: top.start()]
        answer = re.sub(r"^Answer:\s*", "", rst_plain(body))
        # The Sphinx label over the title (".. _faq-use-celery-with-stomp:") spells the
        # question out: it goes with the title, or the noq shape still asks it.
        before = raw[: m.start()]
        label = re.search(r"^\.\. _[^\n]*:[ \t]*\n(?:[ \t]*\n)*\Z", before, re.M)
        cut = [label.group(0) + m.group(0)] if label else [m.group(0)]
        out.append(Entry(rst_plain(m.group("title")), answer, cut))
    return out


# --- plain text: "12. How do I ...?" at the left margin, wrapped lines indented ---------

_TXT_Q = re.compile(r"^(?P<q>\d+\.\s+\S[^\n]*(?:\n {2,}\S[^\n]*)*)\n", re.M)


def text_entries(raw: str) -> list[Entry]:
    """Questions of a numbered plain-text FAQ: the answer is the block up to the next number."""
    out: list[Entry] = []
    found = list(_TXT_Q.finditer(raw))
    for i, m in enumerate(found):
        end = found[i + 1].start() if i + 1 < len(found) else len(raw)
        body = raw[m.end() : end]
        out.append(Entry(_NUMBER.sub("", _clean(m.group("q"))), _clean(body), [m.group(0)]))
    return out


# --- plain text: "2.1 How do I ...?" at the margin, answers indented, a contents list ---

_DOTTED_Q = re.compile(r"^\d+\.\d+\s+\S[^\n]*\n", re.M)
_NEXT_MARGIN = re.compile(r"^\S", re.M)


def dotted_entries(raw: str) -> list[Entry]:
    """Questions of a "1.1 What is …?" plain-text FAQ: the answer is the indented block
    under it, up to the next line at the margin. A question runs on over the lines after
    it until one ends a sentence. The noq shape also loses the question's line in the
    contents ("+ 1.1 What is …?", wrapped lines indented deeper)."""
    out: list[Entry] = []
    for m in _DOTTED_Q.finditer(raw):
        end = m.end()
        question = m.group(0)
        while (
            not question.rstrip().endswith(("?", "!", ".")) and raw[end:].split("\n", 1)[0].strip()
        ):
            line = raw[end:].split("\n", 1)[0] + "\n"
            question += line
            end += len(line)
        rest = raw[end:]
        stop = _NEXT_MARGIN.search(rest)
        body = rest[: stop.start()] if stop else rest
        number = question.split()[0]
        toc = re.search(
            rf"^ +\+ {re.escape(number)} [^\n]*\n(?: {{6,}}(?!\+)\S[^\n]*\n)*", raw, re.M
        )
        cut = ([toc.group(0)] if toc else []) + [question]  # the contents line first
        out.append(Entry(_NUMBER.sub("", _clean(question)), _clean(body), cut))
    return out


# --- the corpora ---------------------------------------------------------------------

CORPORA: dict[str, tuple[str, str]] = {
    # name: (file under shipped/, reader)
    "nano": ("faq.html", "html"),
    "fetchmail": ("fetchmail-FAQ.html", "html"),
    "celery": ("faq.rst", "rst"),
    "procmail": ("FAQ.txt", "text"),
    "mc": ("FAQ.txt", "dotted"),
}
READERS = {"html": html_entries, "rst": rst_entries, "text": text_entries, "dotted": dotted_entries}

# "No answer" questions: (asked of corpus, the other project's question). Each pair was
# read against the folder it is asked of: the folder says nothing that answers it (a
# mail filter's question asked of a task queue's FAQ, an editor's of a mail fetcher's).
NOTHING: list[tuple[str, str]] = [
    ("nano", "Is procmail Y2K safe/compliant?"),
    ("nano", "How do I use procmail as a general mail filter inside sendmail?"),
    ("nano", "How do I purge all waiting tasks?"),
    ("nano", "Can I cancel the execution of a task?"),
    ("nano", "Does Celery support task priorities?"),
    ("nano", "Is Celery dependent on pickle?"),
    ("nano", "Can I use Celery with ActiveMQ/STOMP?"),
    ("nano", "Can I schedule tasks to execute at a specific time?"),
    ("nano", "Is it safe to run celery worker as root?"),
    ("nano", "MySQL is throwing deadlock errors, what can I do?"),
    ("fetchmail", "How can I make Ctrl+Shift+Left/Right select words on urxvt?"),
    ("fetchmail", "Why the name change from TIP?"),
    ("fetchmail", "Why does my self-compiled nano not read /etc/nanorc?"),
    ("fetchmail", "Can I get the task id of the current task?"),
    ("fetchmail", "Does Celery support task priorities?"),
    ("fetchmail", "Can I cancel the execution of a task?"),
    ("fetchmail", "Is Celery multilingual?"),
    ("fetchmail", "Is Celery for Django only?"),
    ("fetchmail", "Can I use natural task ids?"),
    ("fetchmail", "Why should I use nano instead of Pico?"),
    ("celery", "Why the name change from TIP?"),
    ("celery", "How can I make Ctrl+Shift+Left/Right select words on urxvt?"),
    ("celery", "Why should I use nano instead of Pico?"),
    ("celery", "How do I make nano my default editor (in Pine, mutt, etc.)?"),
    ("celery", "Is procmail Y2K safe/compliant?"),
    (
        "celery",
        "Why do I have to insert my login name after the '#' in the .forward or "
        ".maildelivery file?",
    ),
    ("celery", "Is fetchmail Y2K-compliant?"),
    ("celery", "What is the current version of nano?"),
    ("celery", "How can I use fetchmail with GMail/Google Mail?"),
    ("celery", "What is the history behind nano?"),
    ("procmail", "Why the name change from TIP?"),
    ("procmail", "What is the current version of nano?"),
    ("procmail", "How can I make Ctrl+Shift+Left/Right select words on urxvt?"),
    ("procmail", "Why should I use nano instead of Pico?"),
    ("procmail", "Does Celery support task priorities?"),
    ("procmail", "Can I cancel the execution of a task?"),
    ("procmail", "Is Celery for Django only?"),
    ("procmail", "Can I use Celery with ActiveMQ/STOMP?"),
    ("procmail", "Does Celery support Windows?"),
    ("procmail", "Can I get the task id of the current task?"),
    ("mc", "Does Celery support task priorities?"),
    ("mc", "Can I cancel the execution of a task?"),
    ("mc", "Is Celery dependent on pickle?"),
    ("mc", "Is it safe to run celery worker as root?"),
    ("mc", "Is procmail Y2K safe/compliant?"),
    ("mc", "How do I use procmail as a general mail filter inside sendmail?"),
    ("mc", "Is fetchmail Y2K-compliant?"),
    ("mc", "How can I use fetchmail with GMail/Google Mail?"),
    ("mc", "Why the name change from TIP?"),
    ("mc", "Why should I use nano instead of Pico?"),
]


def half_of(question: str) -> str:
    """The fixed half of a question: tune or held, by a hash of its text."""
    return "held" if hashlib.sha256(question.encode()).digest()[0] % 2 else "tune"


def main() -> int:
    data: dict[str, object] = {"corpora": {}, "nothing": []}
    corpora: dict[str, object] = {}
    every_q: set[str] = set()
    for name, (file, reader) in CORPORA.items():
        shipped = HERE / name / "shipped" / file
        raw = shipped.read_text(encoding="utf-8", errors="replace")
        asked = [e for e in READERS[reader](raw) if "?" in e.question and e.answer]
        every_q.update(e.question for e in asked)
        # A truth must hold an answer: not a bare pointer ("See I5 above.", "Re-read
        # section 7.4") nor a note that the answer was dropped.
        entries = [e for e in asked if len(e.answer.split()) >= MIN_WORDS]
        noq = raw
        for entry in asked:
            for piece in entry.cut:
                if piece not in noq and piece not in raw:
                    raise SystemExit(f"{name}: cannot cut {piece[:60]!r}")
                noq = noq.replace(piece, "\n")
        (HERE / name / "noq").mkdir(exist_ok=True)
        (HERE / name / "noq" / file).write_text(noq, encoding="utf-8")
        chosen = sorted(entries, key=lambda e: hashlib.sha256(e.question.encode()).hexdigest())
        chosen = chosen[:MAX_QUESTIONS]
        order = {id(e): i for i, e in enumerate(entries)}
        chosen.sort(key=lambda e: order[id(e)])
        corpora[name] = {
            "file": file,
            "questions": [
                {"q": html.unescape(e.question), "truth": e.answer, "half": half_of(e.question)}
                for e in chosen
            ],
        }
        print(f"{name}: {len(entries)} questions, {len(chosen)} kept", file=sys.stderr)
    data["corpora"] = corpora
    nothing = []
    for asked_of, q in NOTHING:
        if q not in every_q:
            raise SystemExit(f"no-answer question {q!r} is not an upstream question")
        nothing.append({"q": q, "of": asked_of, "half": half_of(f"{asked_of}: {q}")})
    data["nothing"] = nothing
    header = "# Written by bench/eval/docs/upstream/extract.py: do not edit by hand.\n"
    text = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)
    (HERE / "upstream.yaml").write_text(header + text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
