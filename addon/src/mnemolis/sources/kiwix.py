"""Offline encyclopedias (ZIM books) through kiwix-serve: full-text search and article text."""

from __future__ import annotations

import asyncio
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import Any
from urllib.parse import unquote, urljoin

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import fromstring as defused_fromstring

from ..errors import SourceBadResponse, SourceError, SourceNotConfigured
from ..models import Evidence, SourceAnswer
from .base import QueryContext
from .remote import HttpSource, Response, check_status, join_url, short_url
from .textutil import (
    extract,
    html_paragraphs,
    html_to_text,
    keywords,
    overlap,
    shorten,
    wordset,
)

CATALOG_TTL_S = 300.0
HITS_PER_BOOK = 5
_ATOM = "{http://www.w3.org/2005/Atom}"
_KIWIX_NOISE = wordset(
    "wikipedia wiki kiwix article encyclopedia define definition meaning offline"
)


@dataclass(slots=True, frozen=True)
class Book:
    """One ZIM book kiwix-serve offers."""

    name: str  # the book's Name metadata (catalog <name>, `books.name=`)
    path: str  # the URL id in content links and `content=` (usually the file name stem)
    title: str
    language: str = ""
    articles: int = 0
    uid: str = ""  # the catalog entry's id: a replaced ZIM file gets a new one

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "name": self.name,
            "path": self.path,
            "title": self.title,
            "language": self.language,
            "articles": self.articles,
        }


@dataclass(slots=True)
class Hit:
    """One full-text search result."""

    book: Book
    title: str
    link: str
    snippet: str
    rank: int
    score: float = 0.0


def _xml(resp: Response, what: str) -> ET.Element:
    try:
        return defused_fromstring(resp.body)
    except (ET.ParseError, DefusedXmlException) as err:
        raise SourceBadResponse(
            f"{what} at {short_url(resp.url)} is not valid XML ({err})"
        ) from None


def parse_catalog(root: ET.Element) -> list[Book]:
    """Books of an OPDS v2 catalog (``/catalog/v2/entries``)."""
    if root.tag != f"{_ATOM}feed":
        raise SourceBadResponse("kiwix catalog is not an OPDS (Atom) feed")
    books: list[Book] = []
    for entry in root.iter(f"{_ATOM}entry"):
        name = (entry.findtext(f"{_ATOM}name") or "").strip()
        title = (entry.findtext(f"{_ATOM}title") or name).strip()
        href = ""
        for link in entry.iter(f"{_ATOM}link"):
            if link.get("type") == "text/html" and link.get("href"):
                href = str(link.get("href"))
                break
        path = unquote(href.rstrip("/").rsplit("/", 1)[-1]) if href else name
        if not path:
            continue
        try:
            count = int(entry.findtext(f"{_ATOM}articleCount") or 0)
        except ValueError:
            count = 0
        books.append(
            Book(
                name=name or path,
                path=path,
                title=title or path,
                language=(entry.findtext(f"{_ATOM}language") or "").strip(),
                articles=count,
                uid=(entry.findtext(f"{_ATOM}id") or "").strip(),
            )
        )
    return books


def parse_search_xml(root: ET.Element, book: Book) -> list[Hit]:
    """Hits of kiwix-serve's OpenSearch RSS (``format=xml``)."""
    channel = root.find("channel")
    if root.tag != "rss" or channel is None:
        raise SourceBadResponse("kiwix search did not return an OpenSearch RSS document")
    hits: list[Hit] = []
    for rank, item in enumerate(channel.iter("item")):
        link = (item.findtext("link") or "").strip()
        if not link:
            continue
        title = html_to_text(item.findtext("title") or "") or link.rsplit("/", 1)[-1]
        snippet = html_to_text(item.findtext("description") or "")
        hits.append(Hit(book, title, link, snippet, rank))
    return hits


class _ResultsPage(HTMLParser):
    """Links and snippets of kiwix-serve's HTML search page (servers without format=xml)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.in_results = 0
        self.depth = 0
        self.hits: list[tuple[str, str, str]] = []
        self._href: str | None = None
        self._text: list[str] = []
        self._cite: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attr = dict(attrs)
        if tag == "div" and "results" in (attr.get("class") or "").split():
            self.in_results = 1
            self.depth = 0
            return
        if not self.in_results:
            return
        if tag == "div":
            self.depth += 1
        elif tag == "a" and attr.get("href"):
            self._href, self._text = attr["href"], []
        elif tag == "cite":
            self._cite = []

    def handle_endtag(self, tag: str) -> None:
        if not self.in_results:
            return
        if tag == "div":
            if self.depth == 0:
                self.in_results = 0
            else:
                self.depth -= 1
        elif tag == "a" and self._href is not None:
            self.hits.append((self._href, " ".join("".join(self._text).split()), ""))
            self._href = None
        elif tag == "cite" and self._cite is not None and self.hits:
            href, title, _ = self.hits[-1]
            self.hits[-1] = (href, title, " ".join("".join(self._cite).split()))
            self._cite = None

    def handle_data(self, data: str) -> None:
        if self._href is not None:
            self._text.append(data)
        if self._cite is not None:
            self._cite.append(data)


def parse_search_html(html: str, book: Book) -> list[Hit]:
    """Hits of the HTML search page."""
    page = _ResultsPage()
    page.feed(html)
    page.close()
    return [
        Hit(book, title or href.rsplit("/", 1)[-1], href, snippet, rank)
        for rank, (href, title, snippet) in enumerate(page.hits)
    ]


def raw_link(link: str, book: Book) -> str | None:
    """The ``/raw/BOOK/content/PATH`` form of an article link (no kiwix toolbar)."""
    parts = link.split("?", 1)[0].split("/")
    for i, part in enumerate(parts):
        if unquote(part) == book.path and i + 1 < len(parts):
            prefix = parts[:i]
            if prefix and prefix[-1] == "content":
                prefix = prefix[:-1]
            rest = "/".join(parts[i + 1 :])
            return "/".join([*prefix, "raw", parts[i], "content", rest])
    return None


class KiwixSource(HttpSource):
    """Answers from offline encyclopedias: the best article's lead, with its URL."""

    name = "kiwix"
    description = "Offline Wikipedia and other ZIM books through kiwix-serve."
    what = "kiwix-serve"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._catalog: list[Book] = []
        self._catalog_at = 0.0
        self._catalog_lock = asyncio.Lock()
        self._search_param: str | None = None
        # What each book's search has shown: it has a full-text index (True) or the
        # reason it has none. kiwix-serve 3.3 crashes (SIGSEGV) when a book without an
        # index is searched alongside others, so such a book is searched once, alone,
        # and then left out; books not yet searched go one at a time.
        self._index: dict[Book, bool | str] = {}
        self._first_search_lock = asyncio.Lock()

    @property
    def configured(self) -> bool:
        """A kiwix-serve URL is set."""
        return bool(self.settings.kiwix.url)

    def _base(self) -> str:
        url = self.settings.kiwix.url
        if not url:
            raise SourceNotConfigured("kiwix.url is not set")
        return url

    # --- catalog ---------------------------------------------------------------

    async def catalog(self, refresh: bool = False) -> list[Book]:
        """Every book kiwix-serve offers (cached for five minutes)."""
        async with self._catalog_lock:
            if refresh or not self._catalog or time.monotonic() - self._catalog_at > CATALOG_TTL_S:
                resp = await self.get(
                    join_url(self._base(), "/catalog/v2/entries"), params={"count": "1000"}
                )
                check_status(resp, "kiwix-serve catalog")
                self._catalog = parse_catalog(_xml(resp, "kiwix-serve catalog"))
                self._catalog_at = time.monotonic()
            return list(self._catalog)

    async def books(self) -> tuple[list[Book], list[str]]:
        """The books to search (``kiwix.books`` or all), and configured names not served."""
        catalog = await self.catalog()
        wanted = self.settings.kiwix.books
        if not wanted:
            return catalog, []
        chosen: list[Book] = []
        missing: list[str] = []
        for want in wanted:
            key = want.strip().lower()
            found = [b for b in catalog if key in (b.name.lower(), b.path.lower(), b.title.lower())]
            if not found:
                missing.append(want)
            chosen.extend(b for b in found if b not in chosen)
        if not chosen:
            served = ", ".join(b.path for b in catalog) or "none"
            raise SourceBadResponse(
                f"kiwix-serve does not serve the configured books ({', '.join(missing)}); "
                f"it serves: {served}"
            )
        return chosen, missing

    async def probe(self) -> None:
        """The catalog answers."""
        await self.catalog(refresh=True)

    def health_detail(self) -> dict[str, Any]:
        """Books seen in the catalog."""
        return {"books": [b.path for b in self._catalog]}

    # --- search ----------------------------------------------------------------

    async def _search_book(self, book: Book, pattern: str) -> list[Hit]:
        base = self._base()
        modes = [self._search_param] if self._search_param else ["content", "books.name"]
        for mode in modes:
            value = book.path if mode == "content" else book.name
            resp = await self.get(
                join_url(base, "/search"),
                params=[
                    (mode, value),
                    ("pattern", pattern),
                    ("format", "xml"),
                    ("pageLength", str(HITS_PER_BOOK)),
                ],
            )
            if resp.status == 404 and b"fulltext search unavailable" in resp.body.lower():
                reason = (
                    f"book {book.path!r} has no full-text index (kiwix-serve: fulltext search "
                    "unavailable)"
                )
                self._index[book] = reason
                raise SourceBadResponse(reason)
            if resp.status in (400, 404) and mode != modes[-1]:
                continue  # this kiwix-serve wants the other book parameter
            if resp.status == 404:
                return []  # older servers answer 404 when nothing matched
            check_status(resp, "kiwix-serve search")
            self._search_param = mode
            self._index[book] = True
            ctype = resp.headers.get("Content-Type", "")
            if "html" in ctype:
                return parse_search_html(resp.text(), book)
            return parse_search_xml(_xml(resp, "kiwix-serve search"), book)
        raise SourceBadResponse(f"kiwix-serve refused the search for book {book.path!r}")

    async def _search_books(
        self, books: list[Book], pattern: str, errors: dict[str, str]
    ) -> list[Hit]:
        """One pattern over every book; a book that fails (no index) does not sink the rest."""
        outcomes: dict[Book, list[Hit] | BaseException] = {}
        if any(book not in self._index for book in books):
            async with self._first_search_lock:
                for book in books:
                    if book not in self._index:
                        try:
                            outcomes[book] = await self._search_book(book, pattern)
                        except SourceError as err:
                            outcomes[book] = err
        rest: list[Book] = []
        for book in books:
            known = self._index.get(book)
            if book in outcomes or known is None:
                continue
            if isinstance(known, str):  # no index: reported, never searched again
                outcomes[book] = SourceBadResponse(known)
            else:
                rest.append(book)
        results = await asyncio.gather(
            *(self._search_book(b, pattern) for b in rest), return_exceptions=True
        )
        outcomes.update(zip(rest, results, strict=True))
        hits: list[Hit] = []
        failures: list[SourceError] = []
        for book in books:
            result = outcomes[book]
            if isinstance(result, SourceError):
                failures.append(result)
                errors[book.path] = result.brief
            elif isinstance(result, BaseException):
                raise result
            else:
                hits.extend(result)
        if failures and len(failures) == len(books):
            raise failures[0]
        return hits

    async def search(
        self, question: str, books: list[Book], errors: dict[str, str] | None = None
    ) -> tuple[str, list[Hit]]:
        """Full-text search over the books: all terms first, then any term."""
        errors = {} if errors is None else errors
        terms = keywords(question, _KIWIX_NOISE) or keywords(question)
        patterns = [" ".join(terms) if terms else question.strip()]
        if len(terms) > 1:
            patterns.append(" OR ".join(terms))
        hits: list[Hit] = []
        pattern = patterns[0]
        for pattern in patterns:
            hits = await self._search_books(books, pattern, errors)
            if hits:
                break
        for hit in hits:
            hit.score = (
                0.4 / (1 + hit.rank)
                + 0.8 * overlap(terms, hit.title)
                + 0.4 * overlap(terms, hit.snippet)
            )
        hits.sort(key=lambda h: h.score, reverse=True)
        return pattern, hits

    async def article(self, hit: Hit) -> tuple[str, list[str]]:
        """The article's URL and readable paragraphs."""
        base = self._base().rstrip("/") + "/"
        url = urljoin(base, hit.link)
        raw = raw_link(hit.link, hit.book)
        resp: Response | None = None
        if raw:
            resp = await self.get(urljoin(base, raw))
            if resp.status >= 400:
                resp = None
        if resp is None:
            resp = await self.get(url)
            check_status(resp, "kiwix-serve article")
        paragraphs = html_paragraphs(resp.text())
        # The heading repeats the title; it is not part of the extract.
        if paragraphs and paragraphs[0].strip().lower() == hit.title.strip().lower():
            paragraphs = paragraphs[1:]
        return url, paragraphs

    async def query(self, question: str, ctx: QueryContext) -> SourceAnswer:
        """Search, fetch the best article and answer with a short extract."""
        books, missing = await self.books()
        book_errors: dict[str, str] = {}
        pattern, hits = await self.search(question, books, book_errors)
        data: dict[str, Any] = {
            "books": [b.path for b in books],
            "pattern": pattern,
            "hits": [
                {"title": h.title, "book": h.book.path, "link": h.link, "score": round(h.score, 3)}
                for h in hits[:10]
            ],
        }
        if missing:
            data["missing_books"] = missing
        if book_errors:
            data["book_errors"] = book_errors
        if not hits:
            return SourceAnswer(source=self.name, answer="", data=data)
        best = hits[0]
        base = self._base().rstrip("/") + "/"
        try:
            url, paragraphs = await self.article(best)
            text = extract(paragraphs, question)
        except SourceError as err:
            data["article_error"] = err.brief
            url, text = urljoin(base, best.link), ""
        if not text:
            text = shorten(best.snippet, 500)
        evidence = [
            Evidence(
                source=self.name,
                title=best.title,
                text=text,
                url=url,
                ref=f"{best.book.path}:{best.link.rsplit('/', 1)[-1]}",
                score=round(best.score, 4),
            )
        ]
        for hit in hits[1:4]:
            evidence.append(
                Evidence(
                    source=self.name,
                    title=hit.title,
                    text=shorten(hit.snippet, 300),
                    url=urljoin(base, hit.link),
                    ref=f"{hit.book.path}:{hit.link.rsplit('/', 1)[-1]}",
                    score=round(hit.score, 4),
                )
            )
        data["article"] = {"title": best.title, "book": best.book.title, "url": url}
        return SourceAnswer(source=self.name, answer=text, evidence=evidence, data=data)
