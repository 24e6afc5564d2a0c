"""News from RSS/Atom feeds and an optional FreshRSS (Google Reader API) account."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import feedparser
from rapidfuzz import fuzz

from ..errors import (
    SourceAuthFailed,
    SourceBadResponse,
    SourceError,
    SourceNotConfigured,
    SourceTimeout,
)
from ..models import Evidence, SourceAnswer
from .base import QueryContext
from .remote import HttpSource, check_status, fetch, join_url, short_url
from .textutil import html_to_text, keywords, overlap, shorten, words, wordset

_LOGGER = logging.getLogger(__name__)

MAX_ENTRIES_PER_FEED = 100
ANSWER_ITEMS = 5
FRESHRSS_KEY = "freshrss"
RETRY_FAILED_S = 60.0
_ACCEPT = (
    "application/rss+xml, application/atom+xml, application/xml;q=0.9, text/xml;q=0.8, */*;q=0.5"
)
# Words that ask for news in general rather than about a topic.
_NEWS_NOISE = wordset(
    """news latest newest recent headlines headline today todays tonight new top stories story
    current currently happening happened feed feeds rss articles article update updates world
    breaking morning evening week"""
)


@dataclass(slots=True)
class NewsItem:
    """One feed entry, normalised."""

    title: str
    text: str
    url: str | None
    published: datetime | None
    feed: str
    feed_key: str

    def evidence(self, source: str, score: float) -> Evidence:
        """This entry as ranked evidence."""
        return Evidence(
            source=source,
            title=self.title,
            text=self.text,
            url=self.url,
            ref=self.feed,
            score=round(score, 4),
            timestamp=self.published.isoformat() if self.published else None,
        )


@dataclass(slots=True)
class FeedState:
    """What we know about one feed between fetches (the conditional-GET cache)."""

    key: str
    title: str = ""
    etag: str | None = None
    last_modified: str | None = None
    items: list[NewsItem] = field(default_factory=list)
    fetched_at: float | None = None
    error: SourceError | None = None
    failed_at: float | None = None
    fetches: int = 0
    not_modified: int = 0
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    def to_dict(self) -> dict[str, Any]:
        """Health/answer detail without secrets (query strings dropped)."""
        return {
            "feed": short_url(self.key),
            "title": self.title,
            "entries": len(self.items),
            "error": self.error.brief if self.error else None,
            "fetches": self.fetches,
            "not_modified": self.not_modified,
        }


def _when(struct: Any) -> datetime | None:
    if not struct:
        return None
    try:
        year, month, day, hour, minute, second = struct[:6]
        return datetime(year, month, day, hour, minute, second, tzinfo=UTC)
    except (TypeError, ValueError):
        return None


def _item(
    title: str, text: str, *, url: str | None, published: datetime | None, feed: str, feed_key: str
) -> NewsItem | None:
    """A feed or FreshRSS entry as a NewsItem (text as title if it has none); None if empty."""
    if not title and not text:
        return None
    return NewsItem(
        title=title or shorten(text, 80),
        text=shorten(text, 600),
        url=url,
        published=published,
        feed=feed,
        feed_key=feed_key,
    )


def parse_feed(body: bytes, url: str, content_type: str) -> tuple[str, list[NewsItem]]:
    """Parse RSS/Atom bytes with feedparser (blocking; run it in a thread)."""
    parsed = feedparser.parse(
        body,
        response_headers={"content-type": content_type, "content-location": url},
    )
    entries = parsed.get("entries") or []
    if not parsed.get("version") and not entries:
        reason = parsed.get("bozo_exception")
        detail = f" ({reason})" if reason else ""
        raise SourceBadResponse(f"feed {short_url(url)} is not a valid RSS/Atom document{detail}")
    feed_title = html_to_text(str(parsed.get("feed", {}).get("title") or "")) or short_url(url)
    items: list[NewsItem] = []
    for entry in entries:
        title = html_to_text(str(entry.get("title") or ""))
        body_html = ""
        content = entry.get("content")
        if content and isinstance(content, list):
            body_html = str(content[0].get("value") or "")
        summary = str(entry.get("summary") or "")
        text = html_to_text(summary or body_html)
        item = _item(
            title,
            text,
            url=str(entry.get("link")) if entry.get("link") else None,
            published=_when(entry.get("published_parsed") or entry.get("updated_parsed")),
            feed=feed_title,
            feed_key=url,
        )
        if item is not None:
            items.append(item)
    items.sort(key=lambda i: i.published or datetime.min.replace(tzinfo=UTC), reverse=True)
    return feed_title, items[:MAX_ENTRIES_PER_FEED]


def _greader_items(data: Any) -> list[NewsItem]:
    """Items of a GReader ``stream/contents`` response."""
    if not isinstance(data, dict) or not isinstance(data.get("items"), list):
        raise SourceBadResponse("FreshRSS stream/contents returned no items list")
    items: list[NewsItem] = []
    for raw in data["items"]:
        if not isinstance(raw, dict):
            continue
        url = None
        for key in ("canonical", "alternate"):
            links = raw.get(key)
            if isinstance(links, list) and links and isinstance(links[0], dict):
                url = links[0].get("href")
                if url:
                    break
        body = raw.get("summary") or raw.get("content") or {}
        text = html_to_text(str(body.get("content") or "")) if isinstance(body, dict) else ""
        origin = raw.get("origin")
        if not isinstance(origin, dict):
            origin = {}
        published: datetime | None = None
        stamp = raw.get("published") or raw.get("updated")
        if isinstance(stamp, int | float) and not isinstance(stamp, bool):
            published = datetime.fromtimestamp(stamp, UTC)
        item = _item(
            html_to_text(str(raw.get("title") or "")),
            text,
            url=str(url) if url else None,
            published=published,
            feed=str(origin.get("title") or "FreshRSS"),
            feed_key=FRESHRSS_KEY,
        )
        if item is not None:
            items.append(item)
    return items


class NewsSource(HttpSource):
    """Headlines and topic news from the configured feeds, newest and best first."""

    name = "news"
    description = "RSS/Atom feeds and FreshRSS: headlines and news on a topic."
    what = "feed"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._feeds: dict[str, FeedState] = {}
        self._greader_token: str | None = None
        self._warmup: asyncio.Task[None] | None = None

    # --- configuration -------------------------------------------------------

    @property
    def _freshrss(self) -> bool:
        news = self.settings.news
        return bool(news.freshrss_url and news.freshrss_user and news.freshrss_password)

    @property
    def configured(self) -> bool:
        """At least one feed URL, or a complete FreshRSS account."""
        return bool(self.settings.news.feeds) or self._freshrss

    def _states(self) -> list[FeedState]:
        keys = list(dict.fromkeys(self.settings.news.feeds))
        if self._freshrss:
            keys.append(FRESHRSS_KEY)
        for key in keys:
            self._feeds.setdefault(key, FeedState(key=key))
        return [self._feeds[k] for k in keys]

    # --- lifecycle -----------------------------------------------------------

    async def start(self) -> None:
        """Fetch every feed once in the background so feed titles are known early."""
        self._warmup = asyncio.create_task(self._warm(), name="news-warmup")

    async def _warm(self) -> None:
        try:
            await self.refresh()
        except SourceError as err:
            _LOGGER.info("news: first fetch failed: %s", err.message)

    async def stop(self) -> None:
        """Cancel the warm-up fetch if it is still running."""
        if self._warmup is not None:
            self._warmup.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._warmup
            self._warmup = None

    # --- fetching ------------------------------------------------------------

    @property
    def _feed_timeout(self) -> float:
        # Leave the source's own deadline room to answer from the feeds that did reply.
        return max(0.2, self.timeout * 0.8)

    async def _fetch_feed(self, state: FeedState) -> None:
        headers = {"Accept": _ACCEPT}
        if state.etag:
            headers["If-None-Match"] = state.etag
        if state.last_modified:
            headers["If-Modified-Since"] = state.last_modified
        resp = await self.get(state.key, headers=headers, timeout=self._feed_timeout)
        state.fetches += 1
        if resp.status == 304:
            state.not_modified += 1
            return
        check_status(resp, "feed")
        title, items = await asyncio.to_thread(
            parse_feed, resp.body, state.key, resp.headers.get("Content-Type", "")
        )
        state.title = title
        state.items = items
        state.etag = resp.headers.get("ETag")
        state.last_modified = resp.headers.get("Last-Modified")

    def _greader_base(self) -> str:
        url = self.settings.news.freshrss_url or ""
        if "greader.php" in url:
            return url.rstrip("/")
        return join_url(url, "/api/greader.php")

    async def _greader_login(self) -> str:
        news = self.settings.news
        if not (news.freshrss_user and news.freshrss_password):
            raise SourceNotConfigured("news.freshrss_user and news.freshrss_password are needed")
        resp = await fetch(
            self.deps.session,
            "POST",
            join_url(self._greader_base(), "/accounts/ClientLogin"),
            timeout=self._feed_timeout,
            data={"Email": news.freshrss_user, "Passwd": news.freshrss_password.get_secret_value()},
            what="FreshRSS",
        )
        if resp.status in (401, 403):
            raise SourceAuthFailed(
                "FreshRSS rejected the login (check news.freshrss_user and the API password "
                "set in FreshRSS profile settings)"
            )
        check_status(resp, "FreshRSS")
        for line in resp.text().splitlines():
            key, _, value = line.partition("=")
            if key.strip() == "Auth" and value.strip():
                return value.strip()
        raise SourceBadResponse("FreshRSS ClientLogin answered without an Auth token")

    async def _fetch_freshrss(self, state: FeedState) -> None:
        url = join_url(self._greader_base(), "/reader/api/0/stream/contents/reading-list")
        for attempt in (1, 2):
            if self._greader_token is None:
                self._greader_token = await self._greader_login()
            resp = await self.get(
                url,
                params={"n": str(MAX_ENTRIES_PER_FEED), "output": "json"},
                headers={"Authorization": f"GoogleLogin auth={self._greader_token}"},
                timeout=self._feed_timeout,
            )
            state.fetches += 1
            if resp.status in (401, 403) and attempt == 1:
                self._greader_token = None  # expired token: log in again once
                continue
            check_status(resp, "FreshRSS")
            state.items = sorted(
                _greader_items(resp.json("FreshRSS stream/contents")),
                key=lambda i: i.published or datetime.min.replace(tzinfo=UTC),
                reverse=True,
            )[: MAX_ENTRIES_PER_FEED * 2]
            state.title = "FreshRSS"
            return

    def _due(self, state: FeedState) -> bool:
        """Whether a feed should be fetched now."""
        now = time.monotonic()
        refresh = self.settings.news.refresh_seconds
        if state.error is not None and state.failed_at is not None:
            # A dead feed is retried at most once a minute, not on every question.
            return now - state.failed_at >= min(refresh, RETRY_FAILED_S)
        return state.fetched_at is None or now - state.fetched_at >= refresh

    async def _refresh_one(self, state: FeedState, force: bool) -> None:
        async with state.lock:
            if not force and not self._due(state):
                return
            try:
                async with asyncio.timeout(self._feed_timeout):
                    if state.key == FRESHRSS_KEY:
                        await self._fetch_freshrss(state)
                    else:
                        await self._fetch_feed(state)
            except TimeoutError:
                state.error = SourceTimeout(
                    f"feed {short_url(state.key)} did not answer within {self._feed_timeout:g} s"
                )
                state.failed_at = time.monotonic()
            except SourceError as err:
                state.error = err
                state.failed_at = time.monotonic()
            else:
                state.error = None
                state.fetched_at = time.monotonic()

    async def refresh(self, force: bool = False) -> dict[str, str]:
        """Fetch feeds whose copy is older than ``news.refresh_seconds``; errors by feed."""
        states = self._states()
        await asyncio.gather(*(self._refresh_one(s, force) for s in states))
        errors = {short_url(s.key): s.error.brief for s in states if s.error}
        failed = [s.error for s in states if s.error is not None and not s.items]
        if states and len(failed) == len(states):
            if len(failed) == 1:
                raise failed[0]
            detail = "; ".join(e.brief for e in failed)
            raise type(failed[0])(f"no feed could be read: {detail}")
        return errors

    # --- structured API ------------------------------------------------------

    def _items(self, states: list[FeedState] | None = None) -> list[NewsItem]:
        seen: set[str] = set()
        out: list[NewsItem] = []
        for state in states if states is not None else self._states():
            for item in state.items:
                key = item.url or f"{item.feed}|{item.title}"
                if key in seen:
                    continue
                seen.add(key)
                out.append(item)
        return out

    async def headlines(self, limit: int = 20) -> list[Evidence]:
        """The newest entries across every feed, newest first."""
        await self.refresh()
        items = sorted(
            self._items(),
            key=lambda i: i.published or datetime.min.replace(tzinfo=UTC),
            reverse=True,
        )
        total = max(len(items), 1)
        return [item.evidence(self.name, 1 - n / total) for n, item in enumerate(items[:limit])]

    def feed_titles(self) -> list[str]:
        """Titles of the feeds read so far (FreshRSS contributes its subscriptions)."""
        titles: dict[str, None] = {}
        for state in self._states():
            if state.key == FRESHRSS_KEY:
                for item in state.items:
                    titles.setdefault(item.feed, None)
            elif state.title:
                titles.setdefault(state.title, None)
        return list(titles)

    # --- answering -----------------------------------------------------------

    async def probe(self) -> None:
        """At least one feed can be read (uses the conditional-GET cache)."""
        await self.refresh()

    def health_detail(self) -> dict[str, Any]:
        """Per-feed state: title, entries, last error, 304 count."""
        return {"feeds": [s.to_dict() for s in self._states()]}

    def _pick_feeds(self, terms: list[str]) -> tuple[list[str], list[str]]:
        """Feed titles named in the question, and the question terms left over."""
        named: list[str] = []
        used: set[str] = set()
        for title in self.feed_titles():
            title_words = [w for w in words(title) if len(w) >= 3 and w not in _NEWS_NOISE]
            for term in terms:
                if len(term) >= 3 and any(fuzz.ratio(term, w) >= 90 for w in title_words):
                    if title not in named:
                        named.append(title)
                    used.add(term)
        return named, [t for t in terms if t not in used]

    async def query(self, question: str, ctx: QueryContext) -> SourceAnswer:
        """Newest headlines, or the entries that best match the question's topic."""
        errors = await self.refresh()
        terms = keywords(question, _NEWS_NOISE)
        named, terms = self._pick_feeds(terms)
        items = self._items()
        if named:
            items = [i for i in items if i.feed in named]
        now = ctx.now if ctx.now.tzinfo else ctx.now.replace(tzinfo=UTC)
        scored: list[tuple[float, NewsItem]] = []
        for item in items:
            age_h = (now - item.published).total_seconds() / 3600 if item.published else None
            recency = math.exp(-max(age_h, 0) / 72) if age_h is not None else 0.0
            if terms:
                relevance = max(
                    overlap(terms, item.title), 0.7 * overlap(terms, f"{item.title} {item.text}")
                )
                if relevance <= 0:
                    continue
                score = 0.75 * relevance + 0.25 * recency
            else:
                score = recency if item.published else 0.0
            scored.append((score, item))
        if not terms:
            scored.sort(
                key=lambda x: x[1].published or datetime.min.replace(tzinfo=UTC), reverse=True
            )
        else:
            scored.sort(key=lambda x: x[0], reverse=True)
        data: dict[str, Any] = {
            "feeds": [s.to_dict() for s in self._states()],
            "feed_errors": errors,
            "partial": bool(errors),  # stale items while a feed failed: not cached
            "terms": terms,
            "feeds_named": named,
            "mode": "topic" if terms else "latest",
        }
        if not scored:
            return SourceAnswer(source=self.name, answer="", data=data)
        top = scored[:ANSWER_ITEMS]
        if terms:
            head = f"News about {' '.join(terms)}:"
        elif named:
            head = f"Latest from {', '.join(named)}:"
        else:
            head = "Latest headlines:"
        lines = [head]
        for _score, item in top:
            when = item.published.strftime("%Y-%m-%d %H:%M UTC") if item.published else "undated"
            summary = f" — {shorten(item.text, 160)}" if item.text else ""
            lines.append(f"- {item.title} ({item.feed}, {when}){summary}")
        if errors:
            lines.append("(could not read: " + "; ".join(errors.values()) + ")")
        evidence = [item.evidence(self.name, score) for score, item in scored[:10]]
        return SourceAnswer(source=self.name, answer="\n".join(lines), evidence=evidence, data=data)


__all__ = ["FeedState", "NewsItem", "NewsSource", "parse_feed"]
