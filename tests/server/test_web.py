"""The web source against a SearXNG stub speaking its JSON API, and the CLI path."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from mnemolis.errors import SourceBadResponse
from mnemolis.settings import Settings
from mnemolis.sources.web import WebSource

from .conftest import SERVER_BIN, server_env
from .search_helpers import search
from .stubs import ctx, open_source, serve
from .stubs.searxng import SearxState, searxng_app

Client = Callable[..., Any]


@pytest.fixture
async def searx() -> AsyncIterator[tuple[str, SearxState]]:
    state = SearxState()
    async with serve(searxng_app(state)) as url:
        yield url, state


async def ask(client: Any, query: str) -> dict[str, Any]:
    return await search(client, query, "web")


async def test_best_snippets_with_urls(make_client: Client, searx: tuple[str, SearxState]) -> None:
    url, state = searx
    client = await make_client(web={"searxng_url": url})
    body = await ask(client, "what is MQTT")
    assert body["sources"][0]["status"] == "ok"
    assert body["source_used"] == "web"
    lines = body["result"].splitlines()
    # Highest SearXNG score first; snippet text with entities decoded; the URL given.
    assert lines[0].startswith("- MQTT - Home Assistant: MQTT (aka MQ Telemetry Transport)")
    assert '"Internet of Things"' in lines[0]
    assert lines[0].endswith("(https://www.home-assistant.io/integrations/mqtt/)")
    assert len(lines) == 3
    urls = [c["url"] for c in body["citations"]]
    assert urls[:2] == [
        "https://www.home-assistant.io/integrations/mqtt/",
        "https://en.wikipedia.org/wiki/MQTT",
    ]
    titles = [c["title"] for c in body["citations"]]
    assert "Eclipse Mosquitto" in titles  # <b> markup stripped from titles
    assert state.requests[-1]["format"] == "json"
    assert state.requests[-1]["q"] == "what is MQTT"


async def test_structured_result_carries_engines_and_scores(
    make_settings: Callable[..., Settings], searx: tuple[str, SearxState]
) -> None:
    url, _state = searx
    async with open_source(WebSource, make_settings(web={"searxng_url": url})) as web:
        answer = await web.query("mqtt protocol", ctx())
    assert answer.evidence[0].title == "MQTT - Home Assistant"
    assert answer.evidence[0].ref == "duckduckgo, brave"
    assert answer.evidence[0].score == 4.0
    assert answer.data["unresponsive_engines"] == []
    assert answer.data["suggestions"] == ["mqtt broker", "mqtt explorer"]


async def test_unresponsive_engines_surfaced(
    make_settings: Callable[..., Settings], searx: tuple[str, SearxState]
) -> None:
    url, state = searx
    state.unresponsive = [["google", "timeout"], ["qwant", "CAPTCHA"]]
    async with open_source(WebSource, make_settings(web={"searxng_url": url})) as web:
        answer = await web.query("zigbee", ctx())
    assert answer.data["unresponsive_engines"] == [
        {"engine": "google", "reason": "timeout"},
        {"engine": "qwant", "reason": "CAPTCHA"},
    ]
    assert answer.evidence[0].url == "https://www.zigbee2mqtt.io/"
    assert "engines that did not answer: google (timeout), qwant (CAPTCHA)" in answer.answer


async def test_every_engine_failed_is_an_error_naming_them(
    make_client: Client, searx: tuple[str, SearxState]
) -> None:
    url, state = searx
    state.fail_all_engines = True
    state.unresponsive = [["duckduckgo", "Suspended: access denied"], ["brave", "timeout"]]
    client = await make_client(web={"searxng_url": url})
    body = await ask(client, "what is MQTT")
    run = body["sources"][0]
    assert run["status"] == "error"
    assert "every SearXNG engine failed" in run["error"]
    assert "duckduckgo (Suspended: access denied)" in run["error"]
    assert "brave (timeout)" in body["result"]
    assert body["source_used"] == "none"


async def test_no_results_is_empty(make_client: Client, searx: tuple[str, SearxState]) -> None:
    url, _state = searx
    client = await make_client(web={"searxng_url": url})
    body = await ask(client, "qwertzuiop asdfghjkl")
    assert body["sources"][0]["status"] == "empty"
    assert "error" not in body["sources"][0]
    assert body["citations"] == []


async def test_json_format_disabled_says_how_to_fix(
    make_client: Client, searx: tuple[str, SearxState]
) -> None:
    url, state = searx
    state.json_enabled = False
    client = await make_client(web={"searxng_url": url})
    body = await ask(client, "what is MQTT")
    run = body["sources"][0]
    assert run["status"] == "error"
    assert "enable the json format in searxng settings.yml" in run["error"]
    assert run["error"].startswith("bad_response")


async def test_direct_answers_and_infobox_lead(
    make_settings: Callable[..., Settings], searx: tuple[str, SearxState]
) -> None:
    url, state = searx
    state.answers = [{"answer": "MQTT uses port <b>1883</b>", "url": "https://mqtt.org/faq"}]
    state.infoboxes = [
        {
            "infobox": "MQTT",
            "id": "https://en.wikipedia.org/wiki/MQTT",
            "content": "<p>Lightweight publish-subscribe protocol.</p>",
            "engine": "wikipedia",
            "urls": [{"title": "Official site", "url": "https://mqtt.org"}],
        }
    ]
    async with open_source(WebSource, make_settings(web={"searxng_url": url})) as web:
        answer = await web.query("mqtt port", ctx())
    lines = answer.answer.splitlines()
    assert lines[0] == "MQTT uses port 1883 (https://mqtt.org/faq)"
    assert lines[1] == "MQTT: Lightweight publish-subscribe protocol."
    assert answer.evidence[0].title == "MQTT"
    # Older SearXNG sends answers as plain strings.
    state.answers = ["42"]
    state.infoboxes = []
    async with open_source(WebSource, make_settings(web={"searxng_url": url})) as web:
        answer = await web.query("mqtt", ctx())
    assert answer.answer.splitlines()[0] == "42"


async def test_results_list_missing_is_bad_response(
    make_settings: Callable[..., Settings],
) -> None:
    from aiohttp import web as aioweb

    async def wrong(request: aioweb.Request) -> aioweb.Response:
        return aioweb.json_response({"results": "nope"})

    app = aioweb.Application()
    app.router.add_get("/search", wrong)
    async with (
        serve(app) as url,
        open_source(WebSource, make_settings(web={"searxng_url": url})) as web,
    ):
        with pytest.raises(SourceBadResponse, match="without a results list"):
            await web.query("x", ctx())


async def test_sources_lists_web_health(make_client: Client, searx: tuple[str, SearxState]) -> None:
    url, _state = searx
    client = await make_client(web={"searxng_url": url})
    listed = {s["name"]: s for s in (await (await client.get("/api/sources")).json())["sources"]}
    assert listed["web"]["configured"] is True
    assert listed["web"]["healthy"] is True
    client = await make_client()
    listed = {s["name"]: s for s in (await (await client.get("/api/sources")).json())["sources"]}
    assert listed["web"]["configured"] is False
    assert listed["web"]["last_error"] is None


async def test_cli_ask_prints_the_rest_answer(
    make_client: Client, searx: tuple[str, SearxState], tmp_path: Path
) -> None:
    url, _state = searx
    client = await make_client(web={"searxng_url": url})
    rest = await ask(client, "mosquitto broker")
    env = server_env()
    env["MNEMOLIS_WEB__SEARXNG_URL"] = url

    async def run(*extra: str) -> str:
        proc = await asyncio.create_subprocess_exec(
            str(SERVER_BIN),
            "ask",
            "mosquitto broker",
            "--source",
            "web",
            "--data-dir",
            str(tmp_path / "cli-data"),
            *extra,
            env=env,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        try:
            out, err = await asyncio.wait_for(proc.communicate(), 90)
        except TimeoutError:
            proc.kill()
            await proc.wait()
            raise
        assert proc.returncode == 0, err.decode()
        return out.decode()

    text = await run()
    assert text.split("\n\nsource: ", 1)[0] == rest["result"]
    assert "source: web" in text
    assert "[web] Eclipse Mosquitto <https://mosquitto.org/>" in text
    as_json = json.loads(await run("--json"))
    assert as_json["result"] == rest["result"]
    assert as_json["citations"] == rest["citations"]
