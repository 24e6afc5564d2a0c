"""The uptime source against an Uptime Kuma stub serving the status-page API."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from mnemolis.settings import Settings
from mnemolis.sources.uptime import Monitor, UptimeSource

from .search_helpers import search
from .stubs import open_source, serve
from .stubs.uptime_kuma import UP, KumaMonitor, KumaState, uptime_kuma_app

Client = Callable[..., Any]


@pytest.fixture
async def kuma() -> AsyncIterator[tuple[str, KumaState]]:
    state = KumaState()
    async with serve(uptime_kuma_app(state)) as url:
        yield url, state


async def ask(client: Any, query: str) -> dict[str, Any]:
    return await search(client, query, "uptime")


def settings_for(url: str, slug: str = "home") -> dict[str, Any]:
    return {"uptime": {"url": url, "slug": slug}}


async def test_is_the_nas_up(make_client: Client, kuma: tuple[str, KumaState]) -> None:
    url, _state = kuma
    client = await make_client(**settings_for(url))
    body = await ask(client, "Is the NAS up?")
    assert body["sources"][0]["status"] == "ok"
    assert body["result"].startswith("NAS is up (last check 2026-11-29T12:00:00Z, 3 ms, 99.93%")
    assert body["citations"][0] == {
        "source": "uptime",
        "title": "NAS: up",
        "url": f"{url}/status/home",
        "ref": "monitor:1",
    }


async def test_down_monitor_with_its_message(
    make_client: Client, kuma: tuple[str, KumaState]
) -> None:
    url, _state = kuma
    client = await make_client(**settings_for(url))
    body = await ask(client, "is home assistant down")
    assert body["result"].startswith("Home Assistant is down")
    assert "ECONNREFUSED 192.168.1.20:8123" in body["result"]
    assert "96.12% uptime in 24 h" in body["result"]


async def test_what_is_down(make_client: Client, kuma: tuple[str, KumaState]) -> None:
    url, _state = kuma
    client = await make_client(**settings_for(url))
    body = await ask(client, "What is down?")
    text = body["result"]
    assert text.startswith("3 of 6 monitors are up.")
    assert "Down: Home Assistant is down" in text
    assert "Backup Server (maintenance)" in text
    assert "Nextcloud (unknown)" in text
    assert "NAS" not in text
    assert {c["title"] for c in body["citations"]} == {
        "Home Assistant: down",
        "Backup Server: maintenance",
        "Nextcloud: unknown",
    }


async def test_uptime_ratio_question(make_client: Client, kuma: tuple[str, KumaState]) -> None:
    url, _state = kuma
    client = await make_client(**settings_for(url))
    body = await ask(client, "what is the uptime of the router?")
    assert body["result"] == "Router: 100.00% uptime in the last 24 h, now up."


async def test_fuzzy_names_and_short_names(
    make_client: Client, kuma: tuple[str, KumaState]
) -> None:
    url, _state = kuma
    client = await make_client(**settings_for(url))
    body = await ask(client, "is pihole dns working?")
    assert body["result"].startswith("Pi-hole DNS is up")
    # "NAS" must not be mistaken for a monitor in a question about something else.
    body = await ask(client, "is the backup server running")
    assert body["result"].startswith("Backup Server is in maintenance")
    assert "NAS" not in body["result"]


async def test_everything_up(make_client: Client, kuma: tuple[str, KumaState]) -> None:
    url, state = kuma
    state.monitors = [
        KumaMonitor(1, "NAS", [UP], 1.0),
        KumaMonitor(2, "Router", [UP, UP], 0.998),
    ]
    client = await make_client(**settings_for(url))
    body = await ask(client, "is anything down?")
    assert body["result"] == "All 2 monitors are up."


@pytest.mark.parametrize("version", [1, 2])
async def test_monitors_structured_api_both_kuma_versions(
    make_settings: Callable[..., Settings], kuma: tuple[str, KumaState], version: int
) -> None:
    url, state = kuma
    state.version = version
    async with open_source(UptimeSource, make_settings(**settings_for(url))) as source:
        monitors = await source.monitors()
    by_name = {m.name: m for m in monitors}
    assert by_name["NAS"] == Monitor(
        name="NAS",
        status="up",
        uptime_24h=0.9993,
        last_check="2026-11-29T12:00:00Z",
        msg="",
        id=1,
        group="Storage",
        ping=3.0,
    )
    assert by_name["Home Assistant"].status == "down"
    assert by_name["Backup Server"].status == "maintenance"
    assert by_name["Nextcloud"].status == "unknown"
    assert by_name["Nextcloud"].last_check is None
    assert [m.name for m in monitors][:2] == ["NAS", "Router"]


async def test_unknown_slug_is_a_clear_error(
    make_client: Client, kuma: tuple[str, KumaState]
) -> None:
    url, _state = kuma
    client = await make_client(**settings_for(url, slug="office"))
    body = await ask(client, "is the NAS up?")
    run = body["sources"][0]
    assert run["status"] == "error"
    assert "no status page 'office'" in run["error"]
    listed = {s["name"]: s for s in (await (await client.get("/api/sources")).json())["sources"]}
    assert listed["uptime"]["healthy"] is False
    assert "office" in listed["uptime"]["last_error"]


async def test_empty_status_page_is_empty(make_client: Client, kuma: tuple[str, KumaState]) -> None:
    url, state = kuma
    state.monitors = []
    client = await make_client(**settings_for(url))
    body = await ask(client, "what is down?")
    assert body["sources"][0]["status"] == "empty"
    assert body["source_used"] == "none"


async def test_sources_health_and_not_configured(
    make_client: Client, kuma: tuple[str, KumaState]
) -> None:
    url, _state = kuma
    client = await make_client(**settings_for(url))
    await ask(client, "what is down")
    listed = {s["name"]: s for s in (await (await client.get("/api/sources")).json())["sources"]}
    assert listed["uptime"]["healthy"] is True
    assert listed["uptime"]["detail"] == {"monitors": 6, "down": ["Home Assistant"]}
    # A URL without a slug is not configured, and that is not an error.
    client = await make_client(uptime={"url": url})
    listed = {s["name"]: s for s in (await (await client.get("/api/sources")).json())["sources"]}
    assert listed["uptime"]["configured"] is False
    assert listed["uptime"]["last_error"] is None
    assert (await ask(client, "is the NAS up"))["sources"][0]["status"] == "skipped"


async def test_unknown_monitor_name_is_said_then_overview(
    make_client: Client, kuma: tuple[str, KumaState]
) -> None:
    url, _state = kuma
    client = await make_client(**settings_for(url))
    body = await ask(client, "is the printer up?")
    assert body["result"].startswith('No monitor is called like "printer". 3 of 6 monitors are up.')
