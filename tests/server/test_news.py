"""The news source against real-world-shaped RSS 2.0 / Atom feeds and a FreshRSS stub."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from mnemolis.errors import SourceAuthFailed
from mnemolis.settings import Settings
from mnemolis.sources.news import NewsSource

from .search_helpers import search
from .stubs import ctx, open_source, serve
from .stubs.feeds import FeedHost, feed_app
from .stubs.freshrss import FreshState, freshrss_app

Client = Callable[..., Any]


@pytest.fixture
async def feeds() -> AsyncIterator[tuple[str, FeedHost]]:
    host = FeedHost()
    async with serve(feed_app(host)) as url:
        yield url, host


def news(url: str, *names: str, **extra: Any) -> dict[str, Any]:
    return {"news": {"feeds": [f"{url}/feeds/{n}" for n in names], **extra}}


async def ask(client: Any, query: str) -> dict[str, Any]:
    return await search(client, query, "news")


async def test_latest_headlines_newest_first_across_feeds(
    make_client: Client, feeds: tuple[str, FeedHost]
) -> None:
    url, _host = feeds
    client = await make_client(**news(url, "rss.xml", "atom.xml"))
    body = await ask(client, "What are the latest headlines?")
    assert body["sources"][0]["status"] == "ok"
    lines = body["result"].splitlines()
    assert lines[0] == "Latest headlines:"
    titles = [c["title"] for c in body["citations"]]
    assert titles == [
        "Zigbee2MQTT 2.0 released",
        "Council approves new cycle lane on Mill Road",
        "Flood warning lifted for the River Wend",
        "Bakery on High Street wins regional sourdough prize",
        "Matter over Thread: what changed this year",
    ]
    assert lines[1].startswith("- Zigbee2MQTT 2.0 released (Home Automation Weekly, ")
    assert body["citations"][1]["url"] == "https://gazette.example/2026/cycle-lane-mill-road/"
    assert body["citations"][0]["ref"] == "Home Automation Weekly"


async def test_topic_ranking_and_clean_text(
    make_settings: Callable[..., Settings], feeds: tuple[str, FeedHost]
) -> None:
    url, _host = feeds
    settings = make_settings(**news(url, "rss.xml", "atom.xml"))
    async with open_source(NewsSource, settings) as source:
        answer = await source.query("any news about the flood warning?", ctx())
        assert answer.evidence[0].title == "Flood warning lifted for the River Wend"
        # Escaped HTML in <description> is decoded and stripped; &amp;amp; becomes "&".
        assert answer.evidence[0].text == (
            "River levels at the Wend bridge gauge fell below the warning threshold "
            "overnight & roads have reopened."
        )
        assert answer.data["mode"] == "topic"
        assert len(answer.evidence) == 1  # only matching entries are evidence
        answer = await source.query("cycle lane", ctx())
        top = answer.evidence[0]
        assert top.title == "Council approves new cycle lane on Mill Road"  # CDATA title
        assert "<" not in top.text and "trackReader" not in top.text
        assert top.text.startswith("The cycle lane will run from the station to the bridge.")
        assert top.timestamp is not None and top.timestamp.endswith("+00:00")
        answer = await source.query("thread border routers", ctx())
        assert answer.evidence[0].title == "Matter over Thread: what changed this year"
        assert "color: red" not in answer.evidence[0].text


async def test_no_matching_story_is_empty(make_client: Client, feeds: tuple[str, FeedHost]) -> None:
    url, _host = feeds
    client = await make_client(**news(url, "rss.xml", "atom.xml"))
    body = await ask(client, "news about the volcano eruption")
    assert body["sources"][0]["status"] == "empty"


async def test_malformed_feed_reported_others_answer(
    make_client: Client, make_settings: Callable[..., Settings], feeds: tuple[str, FeedHost]
) -> None:
    url, _host = feeds
    overrides = news(url, "rss.xml", "broken.xml", "gone.xml")
    client = await make_client(**overrides)
    body = await ask(client, "latest news")
    assert body["sources"][0]["status"] == "ok"
    assert body["citations"][0]["title"] == "Council approves new cycle lane on Mill Road"
    assert (
        f"(could not read: bad_response: feed {url}/feeds/broken.xml is not a valid RSS/Atom"
        in body["result"]
    )
    listed = {s["name"]: s for s in (await (await client.get("/api/sources")).json())["sources"]}
    per_feed = {f["feed"]: f for f in listed["news"]["detail"]["feeds"]}
    assert per_feed[f"{url}/feeds/rss.xml"]["error"] is None
    assert per_feed[f"{url}/feeds/rss.xml"]["entries"] == 3
    assert "not a valid RSS/Atom" in per_feed[f"{url}/feeds/broken.xml"]["error"]
    assert "HTTP 410" in per_feed[f"{url}/feeds/gone.xml"]["error"]
    assert listed["news"]["healthy"] is True  # one good feed keeps the source useful
    async with open_source(NewsSource, make_settings(**overrides)) as source:
        answer = await source.query("latest news", ctx())
    assert set(answer.data["feed_errors"]) == {f"{url}/feeds/broken.xml", f"{url}/feeds/gone.xml"}


async def test_every_feed_broken_is_an_error(
    make_client: Client, feeds: tuple[str, FeedHost]
) -> None:
    url, _host = feeds
    client = await make_client(**news(url, "broken.xml"))
    body = await ask(client, "latest news")
    run = body["sources"][0]
    assert run["status"] == "error"
    assert run["error"].startswith(f"bad_response: feed {url}/feeds/broken.xml is not a valid")
    client = await make_client(**news(url, "broken.xml", "gone.xml"))
    run = (await ask(client, "latest news"))["sources"][0]
    assert run["error"].startswith("bad_response: no feed could be read: bad_response: feed")
    assert "HTTP 410" in run["error"]


async def test_conditional_get_reuses_cached_entries(
    make_settings: Callable[..., Settings], feeds: tuple[str, FeedHost]
) -> None:
    url, host = feeds
    settings = make_settings(**news(url, "rss.xml", "atom.xml", refresh_seconds=0.001))
    async with open_source(NewsSource, settings) as source:
        first = await source.query("latest news", ctx())
        assert host.served_304 == 0
        await asyncio.sleep(0.01)  # past news.refresh_seconds
        second = await source.query("latest news", ctx())
    assert host.served_304 == 2
    for path in ("/feeds/rss.xml", "/feeds/atom.xml"):
        initial, repeat = host.seen[path]
        assert "If-None-Match" not in initial and "If-Modified-Since" not in initial
        assert repeat["If-None-Match"].startswith('"')
        assert repeat["If-Modified-Since"].endswith("GMT")
    assert second.answer == first.answer
    assert [e.url for e in second.evidence] == [e.url for e in first.evidence]
    assert [f["not_modified"] for f in second.data["feeds"]] == [1, 1]


async def test_refresh_interval_avoids_refetching(
    make_settings: Callable[..., Settings], feeds: tuple[str, FeedHost]
) -> None:
    url, host = feeds
    async with open_source(NewsSource, make_settings(**news(url, "rss.xml"))) as source:
        await source.query("latest news", ctx())
        await source.query("cycle lane", ctx())
    assert len(host.seen["/feeds/rss.xml"]) == 1


async def test_feed_named_in_the_question(make_client: Client, feeds: tuple[str, FeedHost]) -> None:
    url, _host = feeds
    client = await make_client(**news(url, "rss.xml", "atom.xml"))
    body = await ask(client, "what's new on the Valley Gazette?")
    assert body["result"].splitlines()[0] == "Latest from Valley Gazette:"
    assert {c["ref"] for c in body["citations"]} == {"Valley Gazette"}


async def test_structured_api_headlines_and_titles(
    make_settings: Callable[..., Settings], feeds: tuple[str, FeedHost]
) -> None:
    url, _host = feeds
    async with open_source(NewsSource, make_settings(**news(url, "rss.xml", "atom.xml"))) as src:
        assert src.feed_titles() == []
        items = await src.headlines(limit=3)
        assert [i.title for i in items] == [
            "Zigbee2MQTT 2.0 released",
            "Council approves new cycle lane on Mill Road",
            "Flood warning lifted for the River Wend",
        ]
        assert src.feed_titles() == ["Valley Gazette", "Home Automation Weekly"]


async def test_freshrss_reading_list(
    make_settings: Callable[..., Settings], feeds: tuple[str, FeedHost]
) -> None:
    url, _host = feeds
    state = FreshState()
    async with serve(freshrss_app(state)) as fresh:
        settings = make_settings(
            news={
                "feeds": [f"{url}/feeds/rss.xml"],
                "freshrss_url": fresh,
                "freshrss_user": "alice",
                "freshrss_password": "api-pass",
                "refresh_seconds": 0.001,
            }
        )
        async with open_source(NewsSource, settings) as source:
            answer = await source.query("heat pump grants", ctx())
            assert answer.evidence[0].title == "Heat pump grants extended into next year"
            assert answer.evidence[0].ref == "Energy Saver News"
            assert answer.evidence[0].url == "https://energy.example/heat-pump-grants"
            assert answer.evidence[0].text == "The heat pump grant scheme runs on."
            assert "Energy Saver News" in source.feed_titles()
            latest = await source.headlines(limit=2)
            assert latest[0].title == "Heat pump grants extended into next year"
            # An expired token: log in again once, transparently.
            state.tokens.clear()
            await asyncio.sleep(0.01)  # past news.refresh_seconds
            answer = await source.query("solar record", ctx())
            assert answer.evidence[0].title == "Solar output record for November"
        assert state.logins == 2


async def test_freshrss_bad_password_is_auth_failed(
    make_settings: Callable[..., Settings],
) -> None:
    async with serve(freshrss_app(FreshState())) as fresh:
        settings = make_settings(
            news={
                "freshrss_url": f"{fresh}/api/greader.php",
                "freshrss_user": "alice",
                "freshrss_password": "wrong",
            }
        )
        async with open_source(NewsSource, settings) as source:
            assert source.configured
            with pytest.raises(SourceAuthFailed, match="FreshRSS rejected the login"):
                await source.query("latest news", ctx())


async def test_not_configured(make_client: Client) -> None:
    client = await make_client()
    listed = {s["name"]: s for s in (await (await client.get("/api/sources")).json())["sources"]}
    assert listed["news"]["configured"] is False
    assert listed["news"]["last_error"] is None
    # A FreshRSS URL without credentials does not count as configured.
    client = await make_client(news={"freshrss_url": "http://127.0.0.1:9"})
    assert (await ask(client, "latest news"))["sources"][0]["status"] == "skipped"


async def test_dead_feed_is_not_refetched_on_every_question(
    make_settings: Callable[..., Settings], feeds: tuple[str, FeedHost]
) -> None:
    url, host = feeds
    async with open_source(NewsSource, make_settings(**news(url, "rss.xml", "gone.xml"))) as src:
        for _ in range(3):
            answer = await src.query("latest news", ctx())
            assert "HTTP 410" in answer.data["feed_errors"][f"{url}/feeds/gone.xml"]
    assert len(host.seen["/feeds/gone.xml"]) == 1


async def test_large_feed_is_read_whole(make_settings: Callable[..., Settings]) -> None:
    from aiohttp import web

    items = "".join(
        f"<item><title>Story {n}</title><link>https://big.example/{n}</link>"
        f"<pubDate>Sun, 29 Nov 2026 {n % 24:02d}:{n % 60:02d}:00 GMT</pubDate>"
        f"<description>{'word ' * 200}</description></item>"
        for n in range(300)
    )
    body = f'<?xml version="1.0"?><rss version="2.0"><channel><title>Big</title>{items}'
    body += "</channel></rss>"
    assert len(body) > 300_000

    async def big(request: web.Request) -> web.Response:
        return web.Response(text=body, content_type="application/rss+xml")

    app = web.Application()
    app.router.add_get("/big.xml", big)
    async with serve(app) as url:
        settings = make_settings(news={"feeds": [f"{url}/big.xml"]})
        async with open_source(NewsSource, settings) as src:
            await src.query("latest news", ctx())
            detail = src.health_detail()["feeds"][0]
    assert detail["error"] is None
    assert detail["entries"] == 100  # the newest 100 of 300 are kept


async def test_secrets_stay_out_of_errors_and_health(
    make_client: Client, feeds: tuple[str, FeedHost]
) -> None:
    url, _host = feeds
    async with serve(freshrss_app(FreshState())) as fresh:
        client = await make_client(
            news={
                "feeds": [f"{url}/feeds/gone.xml?token=FEEDSECRET", f"{url}/feeds/rss.xml"],
                "freshrss_url": fresh.replace("http://", "http://bob:URLSECRET@"),
                "freshrss_user": "alice",
                "freshrss_password": "PASSWORDSECRET",
            }
        )
        body = await ask(client, "latest news")
        listed = await (await client.get("/api/sources")).text()
    everything = str(body) + listed
    for secret in ("FEEDSECRET", "URLSECRET", "PASSWORDSECRET"):
        assert secret not in everything
    assert "auth_failed: FreshRSS rejected the login" in listed
    assert f"{url}/feeds/gone.xml" in listed
