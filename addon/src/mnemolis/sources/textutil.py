"""Text helpers for connectors: HTML to readable text, question keywords, extracts."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from ..sentences import split_sentences

# Elements whose content is never readable prose.
_SKIP_TAGS = frozenset(
    {
        "script",
        "style",
        "noscript",
        "template",
        "head",
        "nav",
        "svg",
        "math",
        "iframe",
        "object",
        "button",
        "form",
        "select",
        "textarea",
    }
)
# Chrome that readers inject around articles (kiwix-serve's toolbar, MediaWiki bits).
_SKIP_CLASSES = frozenset(
    {"kiwix", "mw-editsection", "navbox", "noprint", "mw-jump-link", "reference", "reflist"}
)
_SKIP_IDS = frozenset({"kiwixtoolbar", "kiwix_serve_taskbar", "toc", "siteSub", "jump-to-nav"})
_BLOCK_TAGS = frozenset(
    {
        "p",
        "div",
        "li",
        "ul",
        "ol",
        "dl",
        "dt",
        "dd",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "table",
        "tr",
        "section",
        "article",
        "aside",
        "blockquote",
        "pre",
        "header",
        "footer",
        "figure",
        "figcaption",
        "caption",
        "main",
        "body",
        "html",
    }
)
_CELL_TAGS = frozenset({"td", "th"})
_HEAD_TAGS = frozenset(
    {"title", "meta", "link", "style", "script", "base", "noscript", "template", "head"}
)
_VOID_TAGS = frozenset(
    {
        "area",
        "base",
        "br",
        "col",
        "embed",
        "hr",
        "img",
        "input",
        "link",
        "meta",
        "source",
        "track",
        "wbr",
    }
)


class _Extractor(HTMLParser):
    """Collects visible text as paragraphs, skipping scripts, styles and chrome."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, bool]] = []
        self.skipping = 0
        self.paragraphs: list[str] = []
        self.current: list[str] = []

    def _flush(self) -> None:
        text = " ".join("".join(self.current).split())
        if text:
            self.paragraphs.append(text)
        self.current = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _VOID_TAGS:
            if tag in ("br", "hr") and not self.skipping:
                self._flush()
            return
        if tag == "body" or (tag not in _HEAD_TAGS and any(t == "head" for t, _ in self.stack)):
            # <head> may be left unclosed; the body or any body content ends it.
            self._close("head")
        skip = tag in _SKIP_TAGS
        if not skip:
            for name, value in attrs:
                if value is None and name != "hidden":
                    continue
                value = value or ""
                skip = skip or (
                    (name == "class" and bool(_SKIP_CLASSES.intersection(value.split())))
                    or (name == "id" and value in _SKIP_IDS)
                    or name == "hidden"
                    or (name == "aria-hidden" and value == "true")
                )
        if tag in _BLOCK_TAGS and not self.skipping:
            self._flush()
        if tag in _CELL_TAGS and not self.skipping:
            self.current.append(" ")
        self.stack.append((tag, skip))
        if skip:
            self.skipping += 1

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("br", "hr") and not self.skipping:
            self._flush()

    def _close(self, tag: str) -> bool:
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                self.skipping -= sum(1 for _, skip in self.stack[i:] if skip)
                del self.stack[i:]
                return True
        return False

    def handle_endtag(self, tag: str) -> None:
        if tag in _VOID_TAGS or not self._close(tag):
            return
        if tag in _BLOCK_TAGS and not self.skipping:
            self._flush()
        elif tag in _CELL_TAGS and not self.skipping:
            self.current.append(" ")

    def handle_data(self, data: str) -> None:
        if not self.skipping:
            self.current.append(data)


def html_paragraphs(html: str) -> list[str]:
    """Visible text of an HTML document or fragment, one entry per block."""
    parser = _Extractor()
    try:
        parser.feed(html)
        parser.close()
    except (AssertionError, ValueError):
        # html.parser gives up on a few pathological inputs; keep what it read.
        pass
    parser._flush()
    return parser.paragraphs


def html_to_text(html: str, sep: str = " ") -> str:
    """Markup-free text of an HTML fragment, blocks joined with ``sep``."""
    if "<" not in html and "&" not in html:
        return " ".join(html.split())
    return sep.join(html_paragraphs(html))


_WORD = re.compile(r"\w+", re.UNICODE)


def wordset(text: str) -> frozenset[str]:
    """A set of words written as one whitespace-separated string."""
    return frozenset(text.split())


_STOPWORDS = wordset(
    """
    a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for
    from further had has have having he her here hers herself him himself his how i if in
    into is it its itself just me more most my myself no nor not now of off on once only or
    other our ours ourselves out over own same she should so some such than that the their
    theirs them themselves then there these they this those through to too under until up
    very was we were what when where which while who whom why will with would you your
    yours yourself yourselves tell please explain know show give find search look let us
    whats what's who's thing things much many get got also was were say said does did
    """
)


def words(text: str) -> list[str]:
    """Lower-case word tokens."""
    return [w.lower() for w in _WORD.findall(text)]


def keywords(question: str, extra_stopwords: frozenset[str] = frozenset()) -> list[str]:
    """The content words of a question, in order, without duplicates."""
    seen: dict[str, None] = {}
    for word in words(question):
        if word in _STOPWORDS or word in extra_stopwords:
            continue
        if len(word) < 2 and not word.isdigit():
            continue
        seen.setdefault(word, None)
    return list(seen)


def _stem(word: str) -> str:
    """A crude prefix stem so "mountains" meets "mountain" and "climbed" meets "climb"."""
    return word[:6] if len(word) > 6 else word.rstrip("s") if len(word) > 3 else word


def overlap(terms: list[str], text: str) -> float:
    """Share of ``terms`` (0..1) that occur in ``text``, comparing crude stems."""
    if not terms:
        return 0.0
    present = {_stem(w) for w in words(text)}
    hits = sum(1 for t in terms if _stem(t) in present)
    return hits / len(terms)


def sentences(text: str) -> list[str]:
    """Split prose into sentences (not after "Dr.", "e.g." or an initial)."""
    return split_sentences(text)


def extract(paragraphs: list[str], question: str, max_chars: int = 600) -> str:
    """A short extract: the lead sentence plus the sentences that best match the question."""
    prose = [p for p in paragraphs if len(p.split()) >= 8]
    if not prose:
        prose = paragraphs
    all_sentences = [s for p in prose for s in sentences(p)]
    if not all_sentences:
        return ""
    terms = keywords(question)
    scored = sorted(
        ((overlap(terms, s), -i, i) for i, s in enumerate(all_sentences[1:], start=1)),
        reverse=True,
    )
    chosen = {0}
    used = len(all_sentences[0])
    for score, _neg, i in scored:
        if len(chosen) >= 3:
            break
        if score <= 0 and len(chosen) >= 2:
            break
        if used + len(all_sentences[i]) + 1 > max_chars:
            continue
        chosen.add(i)
        used += len(all_sentences[i]) + 1
    text = " ".join(all_sentences[i] for i in sorted(chosen))
    if len(text) > max_chars:
        text = text[: max_chars - 1].rsplit(" ", 1)[0] + "…"
    return text


def shorten(text: str, limit: int) -> str:
    """Cut text at a word boundary with an ellipsis."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    return text[: limit - 1].rsplit(" ", 1)[0] + "…"
