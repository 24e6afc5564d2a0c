"""A FreshRSS stand-in: its Google Reader API (ClientLogin + reading-list stream)."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from aiohttp import web


@dataclass
class FreshState:
    """Account, issued tokens and what the stub saw."""

    user: str = "alice"
    password: str = "api-pass"
    tokens: set[str] = field(default_factory=set)
    logins: int = 0
    streams: int = 0


STATE = web.AppKey("fresh_state", FreshState)


async def client_login(request: web.Request) -> web.Response:
    """``POST /api/greader.php/accounts/ClientLogin`` (form Email, Passwd)."""
    state = request.app[STATE]
    form = await request.post()
    state.logins += 1
    if form.get("Email") != state.user or form.get("Passwd") != state.password:
        return web.Response(status=403, text="Error=BadAuthentication\n")
    token = f"{state.user}/{secrets.token_hex(20)}"
    state.tokens.add(token)
    return web.Response(text=f"SID={token}\nLSID=null\nAuth={token}\n")


def _items(now: datetime) -> list[dict[str, Any]]:
    def ts(hours: float) -> int:
        return int((now - timedelta(hours=hours)).timestamp())

    return [
        {
            "id": "tag:google.com,2005:reader/item/0000000000000101",
            "crawlTimeMsec": str(ts(1) * 1000),
            "timestampUsec": str(ts(1) * 1_000_000),
            "published": ts(1),
            "title": "Heat pump grants extended into next year",
            "summary": {"content": "<p>The <b>heat pump</b> grant scheme runs on.</p>"},
            "canonical": [{"href": "https://energy.example/heat-pump-grants"}],
            "alternate": [{"href": "https://energy.example/heat-pump-grants"}],
            "categories": ["user/-/state/com.google/reading-list"],
            "origin": {
                "streamId": "feed/12",
                "htmlUrl": "https://energy.example/",
                "title": "Energy Saver News",
            },
            "author": "Energy desk",
        },
        {
            "id": "tag:google.com,2005:reader/item/0000000000000102",
            "published": ts(20),
            "title": "Solar output record for November",
            "summary": {"content": "Panels in the region produced more than ever."},
            "alternate": [{"href": "https://energy.example/solar-record"}],
            "origin": {"streamId": "feed/12", "title": "Energy Saver News"},
        },
    ]


async def reading_list(request: web.Request) -> web.Response:
    """``GET .../reader/api/0/stream/contents/reading-list`` with ``GoogleLogin auth=``."""
    state = request.app[STATE]
    auth = request.headers.get("Authorization", "")
    token = auth.removeprefix("GoogleLogin auth=")
    if not auth.startswith("GoogleLogin auth=") or token not in state.tokens:
        return web.Response(status=401, text="Unauthorized!")
    state.streams += 1
    return web.json_response(
        {
            "id": "user/-/state/com.google/reading-list",
            "updated": int(datetime.now(UTC).timestamp()),
            "items": _items(datetime.now(UTC)),
        }
    )


def freshrss_app(state: FreshState | None = None) -> web.Application:
    """The stub application."""
    app = web.Application()
    app[STATE] = state or FreshState()
    app.router.add_post("/api/greader.php/accounts/ClientLogin", client_login)
    app.router.add_get("/api/greader.php/reader/api/0/stream/contents/reading-list", reading_list)
    return app
