"""The ``changes`` source: HA logbook/history (real HA) and snapshots of other sources."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from mnemolis.services import Services
from mnemolis.settings import Settings
from mnemolis.sources.base import QueryContext, SourceDeps
from mnemolis.sources.changes import ChangesSource, SnapshotStore
from mnemolis.sources.forecast import ForecastSource

from .hass_fixture import HassCore


def ctx() -> QueryContext:
    return QueryContext(now=datetime.now(UTC))


async def wait_for(check: Callable[[], bool], timeout: float = 10.0) -> None:
    async with asyncio.timeout(timeout):
        while not check():
            await asyncio.sleep(0.05)


@pytest.fixture
async def changes(
    hass_core: HassCore, make_settings: Callable[..., Settings]
) -> AsyncIterator[ChangesSource]:
    settings = make_settings(ha={"url": hass_core.url, "token": hass_core.token})
    async with aiohttp.ClientSession() as session:
        source = ChangesSource(SourceDeps(settings=settings, session=session))
        await source.start()
        yield source
        await source.stop()


def recorded(
    hass_core: HassCore, entity_id: str, since: datetime, count: int
) -> Callable[[], bool]:
    return lambda: hass_core.history_states(entity_id, since) >= count


async def test_what_changed_in_the_last_hour(changes: ChangesSource, hass_core: HassCore) -> None:
    # Guest Mode is touched by no other test: off since HA started.
    started = datetime.now(UTC)
    hass_core.turn_on("input_boolean.guest_mode")
    await wait_for(recorded(hass_core, "input_boolean.guest_mode", started, 2))
    new_state = hass_core.get_state("input_boolean.guest_mode")
    assert new_state is not None
    local = datetime.fromisoformat(new_state["last_changed"]).astimezone(hass_core.time_zone)
    answer = await changes.query("What changed in the last hour?", ctx())
    assert f"Guest Mode: off → on today at {local:%H:%M}" in answer.answer
    assert " in the last hour (" in answer.answer
    # Entities coming up at HA start are not changes; HA's own start is an event.
    assert "unknown →" not in answer.answer
    assert "Home Assistant started" in answer.answer
    guest = next(e for e in answer.evidence if e.ref == "input_boolean.guest_mode")
    assert guest.title == "Guest Mode"
    assert guest.timestamp == datetime.fromisoformat(new_state["last_changed"]).isoformat()
    window = answer.data["window"]
    span = datetime.fromisoformat(window["end"]) - datetime.fromisoformat(window["start"])
    assert abs(span - timedelta(hours=1)) < timedelta(seconds=5)


async def test_hidden_helpers_are_not_reported(changes: ChangesSource, hass_core: HassCore) -> None:
    state = hass_core.get_state("binary_sensor.garage_door")
    assert state is not None
    started = datetime.now(UTC)
    flip = hass_core.turn_off if state["state"] == "on" else hass_core.turn_on
    flip("input_boolean.garage_door_contact")
    await wait_for(recorded(hass_core, "binary_sensor.garage_door", started, 2))
    answer = await changes.query("what changed in the last 2 minutes", ctx())
    assert "Garage Door" in answer.answer
    assert "Garage door contact" not in answer.answer


async def test_changed_and_back_again(changes: ChangesSource, hass_core: HassCore) -> None:
    state = hass_core.get_state("light.hallway_light")
    assert state is not None and state["state"] == "off"
    started = datetime.now(UTC)
    hass_core.turn_on("input_boolean.hallway_light_power")
    await asyncio.sleep(0.1)
    hass_core.turn_off("input_boolean.hallway_light_power")
    await wait_for(recorded(hass_core, "light.hallway_light", started, 3))
    answer = await changes.query("anything happen in the last 5 minutes?", ctx())
    # Other tests may flip it too; the net result is the same.
    assert "Hallway Light was on and back to off (" in answer.answer


async def test_while_bob_was_away(changes: ChangesSource, hass_core: HassCore) -> None:
    started = datetime.now(UTC)
    hass_core.set_state("device_tracker.bob_phone", "home", {"source_type": "gps"})
    await asyncio.sleep(0.2)
    hass_core.set_state("device_tracker.bob_phone", "not_home", {"source_type": "gps"})
    await wait_for(recorded(hass_core, "person.bob", started, 3))
    left = hass_core.get_state("person.bob")
    assert left is not None
    hass_core.turn_on("input_boolean.front_door_contact")
    await asyncio.sleep(0.2)
    hass_core.turn_off("input_boolean.front_door_contact")
    await asyncio.sleep(0.2)
    hass_core.set_state("device_tracker.bob_phone", "home", {"source_type": "gps"})
    await wait_for(recorded(hass_core, "person.bob", started, 4))
    back = hass_core.get_state("person.bob")
    assert back is not None
    answer = await changes.query("What changed while Bob was away?", ctx())
    left_at = datetime.fromisoformat(left["last_changed"]).astimezone(hass_core.time_zone)
    assert answer.data["window"]["label"] == "while Bob was away"
    assert datetime.fromisoformat(answer.data["window"]["start"]) == left_at
    assert datetime.fromisoformat(answer.data["window"]["end"]) == datetime.fromisoformat(
        back["last_changed"]
    )
    assert "Front Door was open and back to closed" in answer.answer
    # Bob's phone says the same as Bob: reported once, as the person.
    assert "bob phone" not in answer.answer.lower()


async def test_snapshots_of_forecast_and_monitors(
    hass_core: HassCore, make_settings: Callable[..., Settings]
) -> None:
    monitors = {"NAS": "up", "Router": "up"}

    async def uptime_snapshot() -> dict[str, Any]:
        return dict(monitors)

    settings = make_settings(ha={"url": hass_core.url, "token": hass_core.token})
    services = Services(snapshots={"uptime": uptime_snapshot})
    async with aiohttp.ClientSession() as session:
        deps = SourceDeps(settings=settings, session=session, services=services)
        forecast = ForecastSource(deps)
        source = ChangesSource(deps)
        services.sources = {"forecast": forecast, "changes": source}
        await forecast.start()
        await source.start()
        try:
            assert set(source.providers()) == {"forecast", "uptime"}
            first = await source.snapshot_now()
            assert first == {"forecast": "stored", "uptime": "stored"}
            again = await source.snapshot_now()
            assert again == {"forecast": "unchanged", "uptime": "unchanged"}
            await asyncio.sleep(0.05)
            monitors["NAS"] = "down"
            await source.snapshot_now()
            answer = await source.query("what changed in the last 10 minutes?", ctx())
            today = datetime.now(hass_core.time_zone).date()
            stored = source.store.latest("forecast")
            health = await source.health()
        finally:
            await source.stop()
            await forecast.stop()
    assert "uptime: NAS: up → down today at" in answer.answer
    assert "Router" not in answer.answer
    assert stored is not None
    assert stored[1][(today + timedelta(days=1)).isoformat()].startswith("rain, 8 to 14 °C")
    assert health.healthy
    assert health.detail["snapshot_sources"] == ["forecast", "uptime"]


def test_snapshot_store_retention(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path / "changes.sqlite3")
    store.open()
    day = 86400.0
    now = time.time()
    for i, status in enumerate(["up", "down", "up", "down"]):
        store.record("uptime", {"NAS": status}, now - (10 - i) * day)
    assert not store.record("uptime", {"NAS": "down"}, now)  # unchanged: not stored
    store.record("uptime", {"NAS": "up"}, now - day)
    removed = store.purge(now - 8 * day)
    # Rows older than the cutoff go, except the newest one before it (the baseline).
    assert removed == 1
    assert store.latest("uptime", before=now - 8.5 * day) == (now - 9 * day, {"NAS": "down"})
    assert store.latest("uptime", before=now - 8 * day) == (now - 8 * day, {"NAS": "up"})
    rows = store.between("uptime", now - 8 * day, now)
    assert [d for _, d in rows] == [{"NAS": "down"}, {"NAS": "up"}]
    store.close()


async def test_uptime_monitors_through_the_real_uptime_source(
    aiohttp_server: Any, make_settings: Callable[..., Settings]
) -> None:
    """Snapshots read UptimeSource.monitors() against the Uptime Kuma wire-format stub."""
    from mnemolis.sources.uptime import UptimeSource

    from .stubs.uptime_kuma import DOWN, KumaState, uptime_kuma_app

    kuma = KumaState()
    server = await aiohttp_server(uptime_kuma_app(kuma))
    settings = make_settings(uptime={"url": str(server.make_url("/")), "slug": "home"})
    services = Services()
    async with aiohttp.ClientSession() as session:
        deps = SourceDeps(settings=settings, session=session, services=services)
        uptime = UptimeSource(deps)
        source = ChangesSource(deps)
        services.sources = {"uptime": uptime, "changes": source}
        assert source.configured and not source.has_ha
        await source.start()
        try:
            assert await source.snapshot_now() == {"uptime": "stored"}
            nas = next(m for m in kuma.monitors if m.name == "NAS")
            nas.beats.append(DOWN)
            nas.msg = "timeout of 48000ms exceeded"
            await asyncio.sleep(0.05)
            assert await source.snapshot_now() == {"uptime": "stored"}
            answer = await source.query("what changed in the last hour?", ctx())
        finally:
            await source.stop()
    assert answer.answer.startswith("1 change in the last hour (")
    assert "uptime: NAS: up → down today at" in answer.answer
    assert answer.evidence[0].ref == "uptime:NAS"


async def test_broken_snapshot_providers_do_not_stop_the_others(
    make_settings: Callable[..., Settings],
) -> None:
    async def good() -> dict[str, Any]:
        return {"NAS": "up"}

    async def not_an_object() -> Any:
        return ["NAS", "up"]

    async def failing() -> dict[str, Any]:
        raise RuntimeError("boom")

    settings = make_settings(uptime={"url": "http://127.0.0.1:9", "slug": "home"})
    services = Services(snapshots={"good": good, "list": not_an_object, "failing": failing})
    async with aiohttp.ClientSession() as session:
        source = ChangesSource(SourceDeps(settings=settings, session=session, services=services))
        await source.start()
        try:
            outcome = await source.snapshot_now()
        finally:
            await source.stop()
    assert outcome == {
        "good": "stored",
        "list": "failed: snapshot is a list, not an object",
        "failing": "failed: RuntimeError",
    }
