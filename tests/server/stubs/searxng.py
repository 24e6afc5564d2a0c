"""A SearXNG stand-in speaking its documented JSON API (``/search?format=json``)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

# A small index: results are returned when the query shares a word with them.
CORPUS: list[dict[str, Any]] = [
    {
        "url": "https://www.home-assistant.io/integrations/mqtt/",
        "title": "MQTT - Home Assistant",
        "content": "MQTT (aka MQ Telemetry Transport) is a machine-to-machine or "
        "&quot;Internet of Things&quot; connectivity protocol on top of TCP/IP.",
        "engines": ["duckduckgo", "brave"],
        "score": 4.0,
    },
    {
        "url": "https://en.wikipedia.org/wiki/MQTT",
        "title": "MQTT - Wikipedia",
        "content": "MQTT is a lightweight, publish-subscribe, machine to machine network "
        "protocol for message queue/message queuing service.",
        "engines": ["wikipedia", "duckduckgo"],
        "score": 3.5,
    },
    {
        "url": "https://mosquitto.org/",
        "title": "Eclipse <b>Mosquitto</b>",
        "content": "An open source MQTT broker. Eclipse Mosquitto is an open source "
        "message broker that implements the MQTT protocol versions 5.0, 3.1.1 and 3.1.",
        "engines": ["brave"],
        "score": 1.2,
    },
    {
        "url": "https://www.zigbee2mqtt.io/",
        "title": "Zigbee2MQTT",
        "content": "Zigbee to MQTT bridge, get rid of your proprietary Zigbee bridges.",
        "engines": ["duckduckgo"],
        "score": 0.8,
    },
]


@dataclass
class SearxState:
    """Knobs a test turns, and what the stub saw."""

    json_enabled: bool = True
    unresponsive: list[list[str]] = field(default_factory=list)
    fail_all_engines: bool = False
    answers: list[Any] = field(default_factory=list)
    infoboxes: list[dict[str, Any]] = field(default_factory=list)
    requests: list[dict[str, str]] = field(default_factory=list)


STATE = web.AppKey("searx_state", SearxState)


def _matches(query: str) -> list[dict[str, Any]]:
    words = {w for w in re.findall(r"\w+", query.lower()) if len(w) > 2}
    out = []
    for doc in CORPUS:
        text = f"{doc['title']} {doc['content']}".lower()
        if words & set(re.findall(r"\w+", text)):
            out.append(doc)
    return out


async def search(request: web.Request) -> web.Response:
    """``GET /search``: JSON when ``format=json`` is allowed, as SearXNG does."""
    state = request.app[STATE]
    state.requests.append(dict(request.query))
    query = request.query.get("q", "")
    if request.query.get("format") != "json":
        return web.Response(
            text=f"<html><body>results for {query}</body></html>", content_type="text/html"
        )
    if not state.json_enabled:
        # SearXNG answers 403 for output formats not listed in search.formats.
        return web.Response(status=403, text="Forbidden", content_type="text/html")
    results = [] if state.fail_all_engines else _matches(query)
    body = {
        "query": query,
        "number_of_results": 0,
        "results": [
            {
                "url": doc["url"],
                "title": doc["title"],
                "content": doc["content"],
                "engine": doc["engines"][0],
                "parsed_url": ["https", doc["url"].split("/")[2], "/", "", "", ""],
                "template": "default.html",
                "engines": doc["engines"],
                "positions": [i + 1 for i in range(len(doc["engines"]))],
                "publishedDate": None,
                "score": doc["score"],
                "category": "general",
            }
            for doc in results
        ],
        "answers": state.answers,
        "corrections": [],
        "infoboxes": state.infoboxes,
        "suggestions": ["mqtt broker", "mqtt explorer"] if results else [],
        "unresponsive_engines": state.unresponsive,
    }
    return web.json_response(body)


async def healthz(request: web.Request) -> web.Response:
    """SearXNG's liveness endpoint."""
    return web.Response(text="OK")


def searxng_app(state: SearxState | None = None) -> web.Application:
    """The stub application."""
    app = web.Application()
    app[STATE] = state or SearxState()
    app.router.add_get("/search", search)
    app.router.add_get("/healthz", healthz)
    return app
