"""The kiwix source against a real kiwix-serve serving two ZIM books written by the tests."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from defusedxml import ElementTree

from mnemolis.errors import SourceError

from .search_helpers import search
from .zim_fixture import KiwixServer

Client = Callable[..., Any]

# Things that exist in the article HTML but must never reach an answer.
_CHROME = (
    "<",
    "do-not-show-this-script",
    "footer-script-marker",
    "font-family",
    "Main page | Random",
    "kiwixsearchbox",
)


async def ask(client: Any, query: str) -> dict[str, Any]:
    body = await search(client, query, "kiwix")
    # kiwix runs first; when it has nothing the router may fall back (to web).
    assert body["sources"][0]["name"] == "kiwix"
    return body


async def test_finds_the_article_and_cites_its_url(
    make_client: Client, kiwix_server: KiwixServer
) -> None:
    client = await make_client(kiwix={"url": kiwix_server.url})
    body = await ask(client, "What is photosynthesis?")
    assert body["sources"][0]["status"] == "ok"
    assert body["source_used"] == "kiwix"
    assert body["result"].startswith("Photosynthesis is the process")
    assert "light energy into chemical energy" in body["result"]
    top = body["citations"][0]
    assert top == {
        "source": "kiwix",
        "title": "Photosynthesis",
        "url": f"{kiwix_server.url}/testwiki/Photosynthesis",
        "ref": "testwiki:Photosynthesis",
    }


async def test_extract_has_no_markup_scripts_or_toolbar(
    make_client: Client, kiwix_server: KiwixServer
) -> None:
    client = await make_client(kiwix={"url": kiwix_server.url})
    body = await ask(client, "Who was the first computer programmer?")
    assert body["citations"][0]["title"] == "Ada Lovelace"
    text = body["result"]
    assert "Analytical Engine" in text
    assert "first computer programmer" in text
    for chrome in _CHROME:
        assert chrome not in text, chrome
    # The cited article URL serves the same article through kiwix-serve.
    page = await client.session.get(body["citations"][0]["url"])
    assert page.status == 200
    assert "Analytical Engine" in await page.text()


async def test_extract_prefers_sentences_about_the_question(
    make_client: Client, kiwix_server: KiwixServer
) -> None:
    client = await make_client(kiwix={"url": kiwix_server.url})
    body = await ask(client, "When was the first ascent of Mount Everest?")
    assert body["citations"][0]["title"] == "Mount Everest"
    assert "highest mountain" in body["result"]
    assert "1953" in body["result"]


async def test_term_only_in_the_second_book(make_client: Client, kiwix_server: KiwixServer) -> None:
    client = await make_client(kiwix={"url": kiwix_server.url})
    body = await ask(client, "How do you keep a sourdough starter alive?")
    top = body["citations"][0]
    assert top["url"] == f"{kiwix_server.url}/cookbook/Sourdough_bread"
    assert top["title"] == "Sourdough bread"
    assert "wild yeast" in body["result"] or "flour and water" in body["result"]


async def test_book_selection_by_name_path_or_title(
    make_client: Client, kiwix_server: KiwixServer
) -> None:
    for selector in ("cookbook_en", "cookbook", "Test Cookbook"):
        client = await make_client(kiwix={"url": kiwix_server.url, "books": [selector]})
        body = await ask(client, "photosynthesis chlorophyll")
        assert body["sources"][0]["status"] == "empty", selector
        assert body["source_used"] == "none"
        body = await ask(client, "What rice is used for risotto?")
        assert body["citations"][0]["title"] == "Risotto", selector


async def test_unknown_book_is_a_clear_error(
    make_client: Client, kiwix_server: KiwixServer
) -> None:
    client = await make_client(kiwix={"url": kiwix_server.url, "books": ["wikipedia_de_all"]})
    body = await ask(client, "photosynthesis")
    run = body["sources"][0]
    assert run["status"] == "error"
    assert "wikipedia_de_all" in run["error"]
    assert "testwiki" in run["error"] and "cookbook" in run["error"]


async def test_no_result_is_empty_not_an_error(
    make_client: Client, kiwix_server: KiwixServer
) -> None:
    client = await make_client(kiwix={"url": kiwix_server.url})
    body = await ask(client, "xylophone quasar zeppelin")
    assert body["sources"][0]["status"] == "empty"
    assert "error" not in body["sources"][0]
    assert body["citations"] == []
    assert body["source_used"] == "none"


async def test_sources_reports_catalog_health(
    make_client: Client, kiwix_server: KiwixServer
) -> None:
    client = await make_client(kiwix={"url": kiwix_server.url})
    listed = {s["name"]: s for s in (await (await client.get("/api/sources")).json())["sources"]}
    kiwix = listed["kiwix"]
    assert kiwix["configured"] is True
    assert kiwix["healthy"] is True
    assert kiwix["last_error"] is None
    assert sorted(kiwix["detail"]["books"]) == ["cookbook", "noindex", "testwiki"]


async def test_not_configured_is_reported_as_such(make_client: Client) -> None:
    client = await make_client()
    listed = {s["name"]: s for s in (await (await client.get("/api/sources")).json())["sources"]}
    assert listed["kiwix"]["configured"] is False
    assert listed["kiwix"]["last_error"] is None
    body = await ask(client, "photosynthesis")
    assert body["sources"][0]["status"] == "skipped"


async def test_html_results_page_parses_like_the_xml(kiwix_server: KiwixServer) -> None:
    """Servers that ignore format=xml send the HTML page; both give the same hits."""
    import aiohttp

    from mnemolis.sources.kiwix import Book, parse_search_html, parse_search_xml

    book = Book(name="testwiki_en", path="testwiki", title="Test Wiki")
    params = {"content": "testwiki", "pattern": "mountain OR computer"}
    async with aiohttp.ClientSession() as http:
        async with http.get(f"{kiwix_server.url}/search", params=params) as resp:
            html = await resp.text()
        async with http.get(
            f"{kiwix_server.url}/search", params={**params, "format": "xml"}
        ) as resp:
            xml = await resp.read()
    from_html = parse_search_html(html, book)
    from_xml = parse_search_xml(ElementTree.fromstring(xml), book)
    assert [(h.title, h.link) for h in from_html] == [(h.title, h.link) for h in from_xml]
    assert {h.title for h in from_html} == {"Mount Everest", "Ada Lovelace"}
    assert all(h.snippet for h in from_html)


async def test_servers_that_want_books_name_are_detected(
    make_client: Client, kiwix_server: KiwixServer
) -> None:
    """A kiwix-serve that rejects ``content=`` (400) is asked with ``books.name=``."""
    import aiohttp
    from aiohttp import web

    from .stubs import serve

    names = {"testwiki_en": "testwiki", "cookbook_en": "cookbook", "noindex_en": "noindex"}
    seen: list[str] = []

    async def proxy(request: web.Request) -> web.Response:
        query = dict(request.query)
        if request.path == "/search":
            if "content" in query:
                seen.append("content")
                return web.Response(status=400, text="Invalid request")
            seen.append("books.name")
            query["content"] = names[query.pop("books.name")]
        async with (
            aiohttp.ClientSession() as http,
            http.get(f"{kiwix_server.url}{request.path}", params=query) as resp,
        ):
            return web.Response(
                body=await resp.read(), status=resp.status, content_type=resp.content_type
            )

    app = web.Application()
    app.router.add_get("/{tail:.*}", proxy)
    async with serve(app) as url:
        client = await make_client(kiwix={"url": url})
        body = await ask(client, "What is photosynthesis?")
        assert body["citations"][0]["url"] == f"{url}/testwiki/Photosynthesis"
        assert "light energy" in body["result"]
        first = len(seen)
        body = await ask(client, "risotto rice")
        assert body["citations"][0]["title"] == "Risotto"
    # Detected on the first question, then remembered for every book.
    assert 1 <= seen[:first].count("content") <= len(kiwix_server.books)
    assert "content" not in seen[first:]
    assert seen.count("books.name") >= 3


async def test_book_without_full_text_index(
    make_client: Client, make_settings: Callable[..., Any], kiwix_server: KiwixServer
) -> None:
    from mnemolis.sources.kiwix import KiwixSource

    from .stubs import ctx, open_source

    # Alone, the book cannot be searched, and the error says why.
    client = await make_client(kiwix={"url": kiwix_server.url, "books": ["noindex"]})
    run = (await ask(client, "lighthouse"))["sources"][0]
    assert run["status"] == "error"
    assert "book 'noindex' has no full-text index" in run["error"]
    # Among other books it is reported in the answer's data, and the others answer.
    settings = make_settings(kiwix={"url": kiwix_server.url})
    async with open_source(KiwixSource, settings) as source:
        answer = await source.query("What is photosynthesis?", ctx())
    assert answer.evidence, answer.data
    assert answer.evidence[0].title == "Photosynthesis"
    assert "no full-text index" in answer.data["book_errors"]["noindex"]


async def test_a_book_without_index_is_never_searched_alongside_others(
    make_settings: Callable[..., Any], kiwix_server: KiwixServer
) -> None:
    """kiwix-serve 3.3 crashes when a book without an index is searched with others at once.

    So a book is searched alone until it has answered once, and a book without an
    index is then left out (still reported), under any number of parallel questions.
    """
    from mnemolis.sources.kiwix import KiwixSource

    from .stubs import ctx, open_source

    settings = make_settings(kiwix={"url": kiwix_server.url})
    async with open_source(KiwixSource, settings) as source:
        questions = [f"photosynthesis chlorophyll {n}" for n in range(12)]
        for _ in range(3):
            answers = await asyncio.gather(*(source.query(q, ctx()) for q in questions))
            assert kiwix_server.proc.poll() is None, "kiwix-serve crashed"
            for answer in answers:
                assert answer.evidence[0].title == "Photosynthesis", answer.data
                assert "no full-text index" in answer.data["book_errors"]["noindex"]


async def test_a_replaced_book_is_searched_again(
    make_settings: Callable[..., Any], kiwix_server: KiwixServer
) -> None:
    """A book left out for having no index is tried again once its catalog id changes."""
    import re

    import aiohttp
    from aiohttp import web

    from mnemolis.sources.kiwix import KiwixSource

    from .stubs import ctx, open_source, serve

    replaced = False

    async def proxy(request: web.Request) -> web.Response:
        query = dict(request.query)
        if replaced and request.path == "/search" and query.get("content") == "noindex":
            query["content"] = "testwiki"  # the new file has an index
        async with (
            aiohttp.ClientSession() as http,
            http.get(f"{kiwix_server.url}{request.path}", params=query) as resp,
        ):
            body = await resp.read()
        if replaced and request.path.startswith("/catalog"):
            # kiwix-serve gives every entry its own id: a new file, a new id.
            body = re.sub(rb"<id>urn:uuid:[0-9a-f-]+</id>", b"<id>urn:uuid:replaced</id>", body)
        return web.Response(body=body, status=resp.status, content_type=resp.content_type)

    app = web.Application()
    app.router.add_get("/{tail:.*}", proxy)
    async with serve(app) as url:
        settings = make_settings(kiwix={"url": url, "books": ["noindex"]})
        async with open_source(KiwixSource, settings) as source:
            with pytest.raises(SourceError, match="has no full-text index"):
                await source.query("photosynthesis", ctx())
            replaced = True
            await source.catalog(refresh=True)
            answer = await source.query("photosynthesis", ctx())
    assert answer.evidence[0].title == "Photosynthesis"
