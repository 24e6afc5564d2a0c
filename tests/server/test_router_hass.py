"""Conditional questions judged against a real Home Assistant core (hass_fixture.py)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from mnemolis.rest import keys

from .hass_fixture import HassCore
from .search_helpers import search

pytestmark = pytest.mark.slow


async def wait_state(core: Any, entity_id: str, state: str, timeout: float = 15.0) -> None:
    """Wait until the live state cache shows the state HA was told to take."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while loop.time() < end:
        ha = core.services.ha
        current = getattr(ha, "states", {}).get(entity_id, {}).get("state") if ha else None
        if current == state:
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"{entity_id} never became {state!r}")


@pytest.fixture
async def client(hass_core: HassCore, make_client: Callable[..., Any]) -> AsyncIterator[Any]:
    cl = await make_client(ha={"url": hass_core.url, "token": hass_core.token})
    core = cl.app[keys.CORE]
    await asyncio.to_thread(hass_core.turn_off, "input_boolean.garage_door_contact")
    await asyncio.to_thread(hass_core.set_number, "input_number.living_room_temp", 21.5)
    await wait_state(core, "binary_sensor.garage_door", "off")
    await wait_state(core, "sensor.living_room_temperature", "21.5")
    yield cl
    await asyncio.to_thread(hass_core.turn_off, "input_boolean.garage_door_contact")
    await asyncio.to_thread(hass_core.set_number, "input_number.living_room_temp", 21.5)


@pytest.mark.parametrize(
    ("question", "verdict", "evidence"),
    [
        ("If it rains tomorrow, is the garage door open?", True, "rainy"),
        ("If it snows tomorrow, is the garage door open?", False, "rainy"),
        ("If it snows in 5 days, is the garage door open?", True, "snowy"),
        ("If it gets windy in 6 days, is the garage door open?", True, "windy"),
        ("If it is above 20 degrees in 3 days, is the garage door open?", True, "high 22"),
        ("If it rains tomorrow evening, is the garage door open?", True, "evening"),
        ("If it rains tomorrow morning, is the garage door open?", False, "morning"),
    ],
)
async def test_forecast_conditions_on_real_ha(
    client: Any, question: str, verdict: bool, evidence: str
) -> None:
    body = await search(client, question)
    cond = body["condition"]
    assert cond["verdict"] is verdict, cond
    assert evidence in cond["evidence"], cond
    first = body["sources"][0]
    assert first["name"] == "forecast" and first["reason"].startswith("condition")
    assert body["parts"][0]["source_used"] == "ha"
    assert "Garage Door" in body["parts"][0]["result"]


async def test_state_conditions_follow_real_ha(client: Any, hass_core: HassCore) -> None:
    core = client.app[keys.CORE]
    closed = await search(client, "If the garage door is open, is the reading lamp on?")
    assert closed["condition"]["verdict"] is False
    assert "binary_sensor.garage_door" in closed["condition"]["evidence"]
    assert "does not apply" in closed["result"]
    await asyncio.to_thread(hass_core.turn_on, "input_boolean.garage_door_contact")
    await wait_state(core, "binary_sensor.garage_door", "on")
    opened = await search(client, "If the garage door is open, is the reading lamp on?")
    assert opened["condition"]["verdict"] is True
    assert opened["parts"][0]["source_used"] == "ha"


async def test_numeric_and_people_conditions(client: Any, hass_core: HassCore) -> None:
    core = client.app[keys.CORE]
    body = await search(
        client, "If the lounge thermometer is above 25 degrees, is the kitchen ceiling on?"
    )
    assert body["condition"]["verdict"] is False
    assert "21.5" in body["condition"]["evidence"]
    await asyncio.to_thread(hass_core.set_number, "input_number.living_room_temp", 27)
    await wait_state(core, "sensor.living_room_temperature", "27.0")
    body = await search(
        client, "If the lounge thermometer is above 25 degrees, is the kitchen ceiling on?"
    )
    assert body["condition"]["verdict"] is True
    await asyncio.to_thread(
        hass_core.set_state, "device_tracker.alice_phone", "home", {"source_type": "gps"}
    )
    await asyncio.to_thread(
        hass_core.set_state, "device_tracker.bob_phone", "not_home", {"source_type": "gps"}
    )
    await wait_state(core, "person.alice", "home")
    await wait_state(core, "person.bob", "not_home")
    body = await search(client, "If nobody is home, is the kitchen ceiling on?")
    assert body["condition"]["verdict"] is False
    assert "Alice" in body["condition"]["evidence"]


async def test_unknown_entity_is_not_guessed(client: Any) -> None:
    body = await search(client, "If the sauna heater is on, is the garage door open?")
    assert body["condition"]["verdict"] is None
    assert body["condition"]["evidence"]


async def test_routed_question_reaches_real_sources(client: Any) -> None:
    resp = await client.get(
        "/api/route", params={"query": "Will it rain tomorrow and is the garage door open?"}
    )
    decision = await resp.json()
    assert [p["sources"] for p in decision["parts"]] == [["forecast"], ["ha"]]
    body = await search(client, "Will it rain tomorrow and is the garage door open?")
    assert [p["source_used"] for p in body["parts"]] == ["forecast", "ha"]
    assert body["source_used"] == "forecast+ha"


@pytest.mark.parametrize(
    "question",
    ["Is the entrance open?", "What's the lounge temperature?", "Is the reading lamp on?"],
)
async def test_real_names_and_aliases_route_to_ha(client: Any, question: str) -> None:
    resp = await client.get("/api/route", params={"query": question})
    decision = await resp.json()
    assert decision["parts"][0]["sources"] == ["ha"], decision
    # Read by HA's grammar (the name from its slot list), or matched on the live names.
    reason = decision["parts"][0]["reason"]
    assert "name “" in reason or reason.startswith("Home Assistant's grammar"), reason


async def test_follow_up_on_real_ha(client: Any) -> None:
    first = await (
        await client.post(
            "/search", json={"query": "Is the reading lamp on?", "conversation_id": "h1"}
        )
    ).json()
    assert first["source_used"] == "ha"
    second = await (
        await client.post(
            "/search", json={"query": "what about the counter lights?", "conversation_id": "h1"}
        )
    ).json()
    assert second["parts"][0]["query"] == "Is the counter lights on"
    assert second["source_used"] == "ha"
    assert "Counter Lights" in second["result"]


async def test_a_helper_named_for_the_condition_answers_it(
    client: Any, hass_core: HassCore
) -> None:
    """ "If the dishwasher is running, …" with only an input_boolean "Dishwasher running"
    (no dishwasher entity): the helper named for the condition decides it."""
    core = client.app[keys.CORE]
    attrs = {"friendly_name": "Dishwasher running"}
    await asyncio.to_thread(hass_core.set_state, "input_boolean.dishwasher_running", "on", attrs)
    try:
        await wait_state(core, "input_boolean.dishwasher_running", "on")
        body = await search(client, "If the dishwasher is running, is the reading lamp on?")
        assert body["condition"]["verdict"] is True, body["condition"]
        assert "input_boolean.dishwasher_running" in body["condition"]["evidence"]
        assert "found no" not in body["result"]
        await asyncio.to_thread(
            hass_core.set_state, "input_boolean.dishwasher_running", "off", attrs
        )
        await wait_state(core, "input_boolean.dishwasher_running", "off")
        body = await search(client, "If the dishwasher is running, is the reading lamp on?")
        assert body["condition"]["verdict"] is False, body["condition"]
    finally:
        await asyncio.to_thread(hass_core.remove_state, "input_boolean.dishwasher_running")
