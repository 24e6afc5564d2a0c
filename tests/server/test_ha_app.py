"""``source: "ha"`` through the real app: SPEC §4 shapes, errors in ``sources[]``, health."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
from collections.abc import AsyncIterator, Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from mnemolis.settings import Settings
from mnemolis.sources.base import QueryContext, SourceDeps, run_source
from mnemolis.sources.ha import HASource

from .conftest import SERVER_BIN, free_port, server_env
from .hass_fixture import HassCore
from .search_helpers import search


def ha_settings(hass_core: HassCore, **extra: Any) -> dict[str, Any]:
    return {"ha": {"url": hass_core.url, "token": hass_core.token}, **extra}


async def sources_by_name(client: Any) -> dict[str, dict[str, Any]]:
    resp = await client.get("/api/sources")
    assert resp.status == 200
    body = await resp.json()
    items = body["sources"] if isinstance(body, dict) else body
    return {s["name"]: s for s in items}


async def test_search_with_source_ha(make_client: Callable[..., Any], hass_core: HassCore) -> None:
    started = datetime.now(UTC) - timedelta(seconds=1)
    hass_core.turn_on("input_boolean.garage_door_contact")
    client = await make_client(**ha_settings(hass_core))
    body = await search(client, "Is the garage door open?", "ha")
    assert set(body) >= {
        "result",
        "source_used",
        "fallback",
        "parts",
        "condition",
        "sources",
        "citations",
        "elapsed_ms",
    }
    assert body["source_used"] == "ha"
    assert body["fallback"] is False
    assert body["result"].startswith("Yes, Garage Door is open")
    assert body["sources"][0]["name"] == "ha"
    assert body["sources"][0]["status"] == "ok"
    assert isinstance(body["sources"][0]["ms"], int | float)
    assert body["citations"][0] == {
        "source": "ha",
        "title": "Garage Door",
        "ref": "binary_sensor.garage_door",
    }
    hass_core.turn_off("input_boolean.garage_door_contact")

    forecast = await search(client, "what's the weather tomorrow", "forecast")
    assert forecast["source_used"] == "forecast"
    assert forecast["result"].startswith("Tomorrow (")
    assert forecast["citations"][0]["ref"] == "weather.home_forecast"

    # The logbook reads HA's database: wait until the recorder has written both changes.
    async with asyncio.timeout(15):
        while hass_core.history("binary_sensor.garage_door", started)[-2:] != ["on", "off"]:
            await asyncio.sleep(0.1)
    changes = await search(client, "what changed in the last hour?", "changes")
    assert changes["source_used"] == "changes"
    assert " in the last hour (" in changes["result"]
    assert any(c["ref"] == "binary_sensor.garage_door" for c in changes["citations"])

    listed = await sources_by_name(client)
    for name in ("ha", "forecast", "changes"):
        assert listed[name]["configured"] is True, name
        assert listed[name]["healthy"] is True, name
        assert listed[name]["last_error"] is None, name
    assert listed["ha"]["detail"]["connected"] is True
    assert listed["ha"]["detail"]["entities"] > 10


async def test_wrong_token_is_auth_failed(
    make_client: Callable[..., Any], hass_core: HassCore
) -> None:
    client = await make_client(ha={"url": hass_core.url, "token": "not-a-valid-token"})
    body = await search(client, "is the garage door open", "ha")
    assert body["source_used"] == "none"
    run = body["sources"][0]
    assert (run["name"], run["status"]) == ("ha", "error")
    assert run["error"].startswith("auth_failed: Home Assistant rejected the access token")
    assert "not-a-valid-token" not in str(body)
    listed = await sources_by_name(client)
    assert listed["ha"]["configured"] is True
    assert listed["ha"]["healthy"] is False
    assert listed["ha"]["last_error"].startswith("auth_failed:")


async def test_unreachable_url(make_client: Callable[..., Any]) -> None:
    port = free_port()
    client = await make_client(ha={"url": f"http://127.0.0.1:{port}", "token": "t"})
    body = await search(client, "is the garage door open", "ha")
    run = body["sources"][0]
    assert (run["status"], body["source_used"]) == ("error", "none")
    assert run["error"].startswith("unreachable: cannot reach Home Assistant")
    assert "could not answer" in body["result"] or "No source" in body["result"]
    listed = await sources_by_name(client)
    assert listed["ha"]["healthy"] is False
    assert listed["ha"]["last_error"].startswith("unreachable:")


@pytest.fixture
def black_hole() -> Iterator[int]:
    """A TCP port that accepts connections and never answers (a hung HA)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    try:
        yield int(sock.getsockname()[1])
    finally:
        sock.close()


async def test_hung_home_assistant_is_a_timeout(
    make_client: Callable[..., Any], black_hole: int
) -> None:
    client = await make_client(
        ha={"url": f"http://127.0.0.1:{black_hole}", "token": "t"},
        routing={"source_timeout": 1.0},
    )
    body = await search(client, "is the garage door open", "ha")
    run = body["sources"][0]
    assert run["status"] == "timeout"
    assert "did not" in run["error"]
    assert body["source_used"] == "none"


async def test_not_configured_is_skipped(make_client: Callable[..., Any]) -> None:
    client = await make_client()
    body = await search(client, "is the garage door open", "ha")
    assert body["sources"][0]["status"] == "skipped"
    listed = await sources_by_name(client)
    assert listed["ha"]["configured"] is False
    assert listed["ha"]["last_error"] is None


@pytest.fixture
async def ha_source(
    hass_core: HassCore, make_settings: Callable[..., Settings]
) -> AsyncIterator[HASource]:
    settings = make_settings(ha={"url": hass_core.url, "token": hass_core.token})
    async with aiohttp.ClientSession() as session:
        source = HASource(SourceDeps(settings=settings, session=session))
        source.client.backoff_initial = 0.2
        source.client.backoff_max = 1.0
        await source.start()
        await source.client.wait_ready(20)
        yield source
        await source.stop()


async def test_reconnect_after_home_assistant_restart(
    ha_source: HASource, hass_core: HassCore
) -> None:
    client = ha_source.client
    subscriptions = client.subscription_count
    assert subscriptions == 5  # entities + floor/area/device/entity registry updates
    seen: list[str] = []

    def on_change(changed: set[str]) -> None:
        entity = client.states.get("light.reading_lamp")
        if "light.reading_lamp" in changed and entity is not None:
            seen.append(entity["state"])

    client.add_listener(on_change)
    await asyncio.to_thread(hass_core.restart)
    async with asyncio.timeout(30):
        while not (client.connected and client.connect_count >= 2):
            await asyncio.sleep(0.1)
    assert client.subscription_count == subscriptions
    health = await ha_source.health()
    assert health.healthy and health.detail["reconnects"] >= 1
    before = client.states["light.reading_lamp"]["state"]
    target = "off" if before == "on" else "on"
    seen.clear()
    if target == "on":
        hass_core.turn_on("input_boolean.reading_lamp_power")
    else:
        hass_core.turn_off("input_boolean.reading_lamp_power")
    async with asyncio.timeout(10):
        while client.states["light.reading_lamp"]["state"] != target:
            await asyncio.sleep(0.05)
    await asyncio.sleep(0.5)
    # One change, delivered once: no duplicate subscription survived the restart.
    assert seen == [target]
    run, answer = await run_source(
        ha_source, "is the reading lamp on", QueryContext(now=datetime.now(UTC)), timeout=5
    )
    assert run.status == "ok"
    assert answer is not None
    word = "Yes," if target == "on" else "No,"
    assert answer.answer.startswith(f"{word} Reading Lamp is {target}")


async def test_query_while_home_assistant_is_down_is_unreachable(
    ha_source: HASource, hass_core: HassCore
) -> None:
    client = ha_source.client
    await asyncio.to_thread(hass_core.stop)
    try:
        async with asyncio.timeout(15):
            while client.connected:
                await asyncio.sleep(0.05)
        run, _ = await run_source(
            ha_source, "is the garage door open", QueryContext(now=datetime.now(UTC)), timeout=5
        )
        assert run.status == "error"
        assert run.error is not None and run.error.startswith("unreachable:")
        assert not (await ha_source.health()).healthy
    finally:
        with contextlib.suppress(Exception):
            await asyncio.to_thread(hass_core.start)
        await asyncio.to_thread(hass_core.wait_running)
    async with asyncio.timeout(30):
        while not client.connected:
            await asyncio.sleep(0.1)
    assert (await ha_source.health()).healthy


async def test_cli_ask_with_source_ha(hass_core: HassCore, tmp_path: Path) -> None:
    hass_core.set_state("device_tracker.alice_phone", "home", {"source_type": "gps"})
    env = server_env()
    env |= {"MNEMOLIS_HA__URL": hass_core.url, "MNEMOLIS_HA__TOKEN": hass_core.token}
    cmd = [str(SERVER_BIN), "ask", "who is home?", "--source", "ha"]
    cmd += ["--data-dir", str(tmp_path / "data")]
    done = await asyncio.to_thread(
        subprocess.run, cmd, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    # HA's own "who is home" answer: the people at home, by name.
    assert done.stdout.startswith("Alice\n"), done.stdout
    assert "source: ha" in done.stdout
    assert "[ha] Alice" in done.stdout
    assert hass_core.token not in done.stdout + done.stderr


async def test_hung_home_assistant_mid_session(ha_source: HASource, hass_core: HassCore) -> None:
    """HA stops answering (SIGSTOP): history needs HA and times out; states come from the cache."""
    assert hass_core.proc is not None
    pid = hass_core.proc.pid
    ctx = QueryContext(now=datetime.now(UTC))
    os.kill(pid, signal.SIGSTOP)
    try:
        run, _ = await run_source(ha_source, "when did the front door last open", ctx, timeout=1.5)
        assert run.status == "timeout"
        assert run.error == "ha did not answer within 1.5 s"
        cached, answer = await run_source(ha_source, "is the garage door open", ctx, timeout=1.5)
        assert cached.status == "ok"
        assert answer is not None and "Garage Door is" in answer.answer
    finally:
        os.kill(pid, signal.SIGCONT)
    run, answer = await run_source(ha_source, "when did the front door last open", ctx, timeout=10)
    assert run.status == "ok", run.error
    assert answer is not None and answer.answer.startswith("Front Door ")


async def test_bad_ha_url_says_what_is_wrong(make_client: Callable[..., Any]) -> None:
    client = await make_client(ha={"url": "ftp://homeassistant.local", "token": "t"})
    body = await search(client, "is the garage door open", "ha")
    run = body["sources"][0]
    assert run["status"] == "error"
    assert run["error"].startswith("not_configured: invalid setting ha.url='ftp://homeassistant")
    listed = await sources_by_name(client)
    assert listed["ha"]["configured"] is True
    assert listed["ha"]["healthy"] is False
    for name in ("forecast", "changes"):
        assert listed[name]["healthy"] is False, name
        assert listed[name]["last_error"].startswith("not_configured: invalid setting ha.url")
