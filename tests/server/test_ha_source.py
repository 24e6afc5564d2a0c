"""The ``ha`` source and its websocket client against a real Home Assistant core."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import aiohttp
import pytest

from mnemolis.errors import Forbidden
from mnemolis.settings import Settings
from mnemolis.sources.base import QueryContext, SourceDeps, run_source
from mnemolis.sources.ha import HASource

from .hass_fixture import HassCore


async def wait_for(check: Callable[[], bool], timeout: float = 10.0) -> None:
    """Poll until check() is true (bounded)."""
    async with asyncio.timeout(timeout):
        while not check():
            await asyncio.sleep(0.05)


def ctx() -> QueryContext:
    return QueryContext(now=datetime.now(UTC))


@pytest.fixture
async def ha(
    hass_core: HassCore, make_settings: Callable[..., Settings]
) -> AsyncIterator[HASource]:
    """A started HASource connected to the session's real HA."""
    settings = make_settings(ha={"url": hass_core.url, "token": hass_core.token})
    async with aiohttp.ClientSession() as session:
        source = HASource(SourceDeps(settings=settings, session=session))
        await source.start()
        await source.client.wait_ready(20)
        yield source
        await source.stop()


def state_is(source: HASource, entity_id: str, value: str) -> Callable[[], bool]:
    return lambda: source.client.states.get(entity_id, {}).get("state") == value


async def test_is_the_garage_door_open(ha: HASource, hass_core: HassCore) -> None:
    hass_core.turn_on("input_boolean.garage_door_contact")
    await wait_for(state_is(ha, "binary_sensor.garage_door", "on"))
    answer = await ha.query("Is the garage door open?", ctx())
    assert answer.answer.startswith("Yes, Garage Door is open (since today at")
    top = answer.evidence[0]
    assert (top.title, top.ref) == ("Garage Door", "binary_sensor.garage_door")
    assert top.timestamp == ha.client.states["binary_sensor.garage_door"]["last_changed"]

    hass_core.turn_off("input_boolean.garage_door_contact")
    await wait_for(state_is(ha, "binary_sensor.garage_door", "off"))
    answer = await ha.query("is the garage door open", ctx())
    assert answer.answer.startswith("No, Garage Door is closed")


async def test_temperature_with_unit_by_name_alias_and_area_alias(
    ha: HASource, hass_core: HassCore
) -> None:
    hass_core.set_number("input_number.living_room_temp", 22.4)
    await wait_for(state_is(ha, "sensor.living_room_temperature", "22.4"))
    for question in (
        "What is the living room temperature?",
        "what does the lounge thermometer say",
        "how warm is it in the lounge",
        "temperature in the living room?",
    ):
        answer = await ha.query(question, ctx())
        assert answer.evidence, question
        assert answer.evidence[0].ref == "sensor.living_room_temperature", question
        assert "Living Room Temperature" in answer.answer, question
        assert "22.4 °C" in answer.answer, question


async def test_fuzzy_names_and_word_boundaries(ha: HASource) -> None:
    client = ha.client
    typo = client.match_entities("is the garadge dor open")
    assert typo[0].entity_id == "binary_sensor.garage_door"
    assert typo[0].matched_on == "name"
    alias = client.match_entities("is the entrance open")
    assert (alias[0].entity_id, alias[0].matched_on) == ("binary_sensor.front_door", "alias")
    assert alias[0].area == "Hallway"
    # "hall" inside "shall" must not pull in Hallway entities.
    assert client.match_entities("shall we dance") == []
    kitchen_lights = client.match_entities("kitchen", domains={"light"})
    found = {m.entity_id for m in kitchen_lights}
    assert found == {"light.kitchen_ceiling", "light.counter_lights"}
    assert {m.matched_on for m in kitchen_lights} <= {"area", "name"}
    vocab = client.vocabulary()
    assert {"garage door", "entrance", "lounge", "living room", "kitchen ceiling"} <= vocab
    # Hidden helpers are neither matched nor part of the vocabulary.
    assert "garage door contact" not in vocab


async def test_which_lights_are_on_in_the_kitchen(ha: HASource, hass_core: HassCore) -> None:
    hass_core.turn_on("input_boolean.kitchen_ceiling_power")
    hass_core.turn_off("input_boolean.counter_lights_power")
    hass_core.turn_on("input_boolean.reading_lamp_power")
    await wait_for(state_is(ha, "light.kitchen_ceiling", "on"))
    await wait_for(state_is(ha, "light.counter_lights", "off"))
    await wait_for(state_is(ha, "light.reading_lamp", "on"))
    answer = await ha.query("Which lights are on in the kitchen?", ctx())
    assert "1 of 2 lights in the Kitchen is on: Kitchen Ceiling." in answer.answer
    assert answer.data["selected"] == ["light.kitchen_ceiling"]
    assert "Reading Lamp" not in answer.answer
    hass_core.turn_off("input_boolean.kitchen_ceiling_power")
    await wait_for(state_is(ha, "light.kitchen_ceiling", "off"))
    answer = await ha.query("are any lights on in the kitchen", ctx())
    assert answer.answer.startswith("No, none of the 2 lights in the Kitchen are on.")


async def test_who_is_home(ha: HASource, hass_core: HassCore) -> None:
    hass_core.set_state("device_tracker.alice_phone", "home", {"source_type": "gps"})
    hass_core.set_state("device_tracker.bob_phone", "not_home", {"source_type": "gps"})
    await wait_for(state_is(ha, "person.bob", "not_home"))
    await wait_for(state_is(ha, "person.alice", "home"))
    answer = await ha.query("Who is home?", ctx())
    assert answer.answer.startswith("Alice is home.")
    assert "Away: Bob." in answer.answer
    assert {e.ref for e in answer.evidence} >= {"person.alice", "person.bob"}


async def test_when_did_the_front_door_last_open(ha: HASource, hass_core: HassCore) -> None:
    hass_core.turn_on("input_boolean.front_door_contact")
    await wait_for(state_is(ha, "binary_sensor.front_door", "on"))
    opened_at = ha.client.states["binary_sensor.front_door"]["last_changed"]
    await asyncio.sleep(0.2)
    hass_core.turn_off("input_boolean.front_door_contact")
    await wait_for(state_is(ha, "binary_sensor.front_door", "off"))
    # The recorder writes from its own thread: wait until history has the "on" row.
    start = datetime.fromisoformat(opened_at) - timedelta(seconds=1)
    await wait_for(
        lambda: hass_core.history("binary_sensor.front_door", start)[-2:] == ["on", "off"]
    )
    local = datetime.fromisoformat(opened_at).astimezone(hass_core.time_zone)
    for question in ("When did the front door last open?", "when was the entrance last opened"):
        answer = await ha.query(question, ctx())
        assert f"Front Door last opened today at {local:%H:%M}" in answer.answer, question
        assert "it is closed now" in answer.answer
        assert answer.data["last"]["last_changed"] == opened_at
        assert answer.evidence[0].ref == "binary_sensor.front_door"


async def test_unknown_things_are_an_empty_answer(ha: HASource) -> None:
    run, answer = await run_source(ha, "what is the capital of peru", ctx(), timeout=5)
    assert run.status == "empty"


async def test_registries_config_and_read_only_service_calls(ha: HASource) -> None:
    client = ha.client
    assert client.connected
    assert client.config["time_zone"] == "Europe/Amsterdam"
    assert client.config["unit_system"]["temperature"] == "°C"
    assert str(client.time_zone) == "Europe/Amsterdam"
    assert client.area_of("light.reading_lamp") == "Living Room"
    assert client.registries.areas["living_room"]["aliases"] == ["Lounge"]
    with pytest.raises(Forbidden, match="only reads"):
        await client.service_response("input_boolean", "turn_on", target={"entity_id": "x.y"})
    response = await client.service_response(
        "weather", "get_forecasts", {"type": "daily"}, target={"entity_id": "weather.home_forecast"}
    )
    assert len(response["weather.home_forecast"]["forecast"]) == 8


async def test_an_old_allow_writes_setting_loads_and_changes_nothing(
    hass_core: HassCore, make_settings: Callable[..., Settings]
) -> None:
    """``ha.allow_writes`` is retired: a config that still sets it loads, and HA stays read-only."""
    settings = make_settings(
        ha={"url": hass_core.url, "token": hass_core.token, "allow_writes": True}
    )
    assert settings.notices == [
        "setting ha.allow_writes is no longer used and is ignored: "
        "Mnemolis only reads Home Assistant"
    ]
    target = {"entity_id": "input_boolean.hallway_light_power"}
    before = hass_core.get_state("input_boolean.hallway_light_power")
    assert before is not None
    async with aiohttp.ClientSession() as session:
        source = HASource(SourceDeps(settings=settings, session=session))
        await source.start()
        client = source.client
        try:
            await client.wait_ready(20)
            with pytest.raises(Forbidden, match="only reads"):
                await client.service_response("input_boolean", "toggle", target=target)
            raw = {"type": "call_service", "domain": "input_boolean", "service": "toggle"}
            with pytest.raises(Forbidden, match="service_response"):
                await client.command({**raw, "target": target})
        finally:
            await source.stop()
    after = hass_core.get_state("input_boolean.hallway_light_power")
    assert after is not None and after["state"] == before["state"]


def _states_equal(ours: dict[str, Any], theirs: dict[str, Any]) -> None:
    assert ours["state"] == theirs["state"]
    assert ours["attributes"] == theirs["attributes"]
    assert datetime.fromisoformat(ours["last_changed"]) == datetime.fromisoformat(
        theirs["last_changed"]
    )
    assert datetime.fromisoformat(ours["last_updated"]) == datetime.fromisoformat(
        theirs["last_updated"]
    )


async def test_cache_matches_rest_states_after_diffs(ha: HASource, hass_core: HassCore) -> None:
    hass_core.set_state("sensor.diff_probe", "1", {"unit_of_measurement": "W", "extra": "x"})
    await wait_for(state_is(ha, "sensor.diff_probe", "1"))
    # Attribute removed, another changed, state unchanged: a pure "c" diff with "-".
    hass_core.set_state("sensor.diff_probe", "1", {"unit_of_measurement": "kW"})
    await wait_for(
        lambda: ha.client.states["sensor.diff_probe"]["attributes"].get("unit_of_measurement")
        == "kW"
    )
    hass_core.set_state("sensor.diff_probe", "2", {"unit_of_measurement": "kW"})
    await wait_for(state_is(ha, "sensor.diff_probe", "2"))
    rest = hass_core.get_state("sensor.diff_probe")
    assert rest is not None
    _states_equal(ha.client.states["sensor.diff_probe"], rest)
    assert "extra" not in ha.client.states["sensor.diff_probe"]["attributes"]
    for entity_id in ("light.reading_lamp", "person.alice", "weather.home_forecast"):
        theirs = hass_core.get_state(entity_id)
        assert theirs is not None
        _states_equal(ha.client.states[entity_id], theirs)


async def test_measurement_everywhere_and_commands_are_not_obeyed(
    ha: HASource, hass_core: HassCore
) -> None:
    answer = await ha.query("What's the temperature?", ctx())
    refs = {e.ref for e in answer.evidence}
    assert refs == {"sensor.living_room_temperature", "sensor.outdoor_temperature"}
    assert "Outdoor Temperature is 12.3 °C" in answer.answer
    hass_core.turn_off("input_boolean.kitchen_ceiling_power")
    await wait_for(state_is(ha, "light.kitchen_ceiling", "off"))
    answer = await ha.query("turn on the kitchen ceiling", ctx())
    assert answer.answer.startswith("I only read Home Assistant; I don't control devices.")
    assert "Kitchen Ceiling is off" in answer.answer
    assert hass_core.get_state("light.kitchen_ceiling")["state"] == "off"  # type: ignore[index]


async def test_lights_by_floor(ha: HASource, hass_core: HassCore) -> None:
    hass_core.turn_on("input_boolean.bedside_lamp_power")
    hass_core.turn_on("input_boolean.reading_lamp_power")
    await wait_for(state_is(ha, "light.bedside_lamp", "on"))
    await wait_for(state_is(ha, "light.reading_lamp", "on"))
    upstairs = await ha.query("Which lights are on upstairs?", ctx())
    assert upstairs.answer.startswith("The one light upstairs is on: Bedside Lamp.")
    downstairs = await ha.query("are any lights on downstairs", ctx())
    assert "lights on the Ground Floor" in downstairs.answer
    assert "Reading Lamp" in downstairs.answer
    assert "Bedside Lamp" not in downstairs.answer
    assert {"upstairs", "first floor", "ground floor", "downstairs"} <= ha.client.vocabulary()
    hass_core.turn_off("input_boolean.bedside_lamp_power")


async def test_how_long_has_it_been_open(ha: HASource, hass_core: HassCore) -> None:
    hass_core.turn_off("input_boolean.garage_door_contact")
    await wait_for(state_is(ha, "binary_sensor.garage_door", "off"))
    hass_core.turn_on("input_boolean.garage_door_contact")
    await wait_for(state_is(ha, "binary_sensor.garage_door", "on"))
    answer = await ha.query("How long has the garage door been open?", ctx())
    assert answer.answer == "Garage Door has just become open."
    later = QueryContext(now=datetime.now(UTC) + timedelta(minutes=75))
    answer = await ha.query("How long has the garage door been open?", later)
    assert answer.answer.startswith("Garage Door has been open for 1 hour.")
    hass_core.turn_off("input_boolean.garage_door_contact")
