"""A Home Assistant home built from an intents test fixture (home-assistant/intents).

Floors, areas and entities with the fixture's names, aliases, areas, states and
attributes, in HA's real registries and state machine; every entity exposed to
Assist; one device per area, so a question can be "heard" in an area; and the
service ``intents_fixture.ask`` that asks HA's own Assist agent a sentence (as
heard by that area's device), the reference answer the eval prints beside ours.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import voluptuous as vol
import yaml
from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.config_entries import SOURCE_IMPORT, ConfigEntry
from homeassistant.const import ATTR_FRIENDLY_NAME
from homeassistant.core import HomeAssistant, ServiceCall, ServiceResponse, SupportsResponse
from homeassistant.helpers import (
    area_registry as ar,
)
from homeassistant.helpers import (
    config_validation as cv,
)
from homeassistant.helpers import (
    device_registry as dr,
)
from homeassistant.helpers import (
    entity_registry as er,
)
from homeassistant.helpers import (
    floor_registry as fr,
)

DOMAIN = "intents_fixture"
CONFIG_SCHEMA = vol.Schema(
    {DOMAIN: vol.Schema({vol.Required("path"): cv.string})}, extra=vol.ALLOW_EXTRA
)


def _read(path: str) -> dict[str, Any]:
    return yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}


async def async_setup(hass: HomeAssistant, config: dict[str, Any]) -> bool:
    """Build the home, then create the config entry that carries its devices."""
    fixture = await hass.async_add_executor_job(_read, config[DOMAIN]["path"])
    floors = fr.async_get(hass)
    areas = ar.async_get(hass)
    entities = er.async_get(hass)
    floor_ids: dict[str, str] = {}
    for floor in fixture.get("floors") or []:
        made = floors.async_create(str(floor["name"]), aliases=set(floor.get("aliases") or []))
        floor_ids[str(floor["id"])] = made.floor_id
    area_ids: dict[str, str] = {}
    for area in fixture.get("areas") or []:
        made = areas.async_create(
            str(area["name"]),
            floor_id=floor_ids.get(str(area.get("floor"))),
            aliases=set(area.get("aliases") or []),
        )
        area_ids[str(area["id"])] = made.id
    hass.data[DOMAIN] = {
        "areas": area_ids,
        "names": {a["name"]: area_ids[str(a["id"])] for a in fixture.get("areas") or []},
    }
    seen: set[str] = set()
    for item in fixture.get("entities") or []:
        entity_id = str(item["id"])
        # Entity ids are unique in HA; a fixture may repeat one for a second device.
        n = 2
        while entity_id in seen:
            entity_id, n = f"{item['id']}_{n}", n + 1
        seen.add(entity_id)
        domain, object_id = entity_id.split(".", 1)
        entry = entities.async_get_or_create(
            domain,
            DOMAIN,
            entity_id,
            suggested_object_id=object_id,
            original_name=str(item["name"]),
            original_device_class=(item.get("attributes") or {}).get("device_class"),
        )
        entities.async_update_entity(
            entry.entity_id,
            area_id=area_ids.get(str(item.get("area"))) if item.get("area") else None,
            aliases=set(item.get("aliases") or []),
        )
        state = item.get("state")
        raw = state.get("out") if isinstance(state, dict) else state
        attributes = {**(item.get("attributes") or {}), ATTR_FRIENDLY_NAME: str(item["name"])}
        hass.states.async_set(entry.entity_id, "unknown" if raw is None else str(raw), attributes)
        async_expose_entity(hass, conversation.DOMAIN, entry.entity_id, True)
    hass.async_create_task(
        hass.config_entries.flow.async_init(DOMAIN, context={"source": SOURCE_IMPORT}, data={})
    )

    async def ask(call: ServiceCall) -> ServiceResponse:
        area = call.data.get("area")
        device_id = None
        if area:
            area_id = hass.data[DOMAIN]["names"].get(area) or hass.data[DOMAIN]["areas"].get(area)
            devices = dr.async_get(hass)
            device_id = next((d.id for d in devices.devices.values() if d.area_id == area_id), None)
        result = await conversation.async_converse(
            hass,
            call.data["text"],
            None,
            call.context,
            language=call.data.get("language"),
            agent_id=conversation.HOME_ASSISTANT_AGENT,
            device_id=device_id,
        )
        speech = result.response.speech.get("plain", {}).get("speech", "")
        return {"speech": speech, "type": result.response.response_type.value}

    hass.services.async_register(
        DOMAIN,
        "ask",
        ask,
        schema=vol.Schema(
            {
                vol.Required("text"): cv.string,
                vol.Optional("language"): cv.string,
                vol.Optional("area"): cv.string,
            }
        ),
        supports_response=SupportsResponse.ONLY,
    )
    return True


async def async_setup_entry(hass: HomeAssistant, entry: ConfigEntry) -> bool:
    """One device in each area: where a question may be heard ("in here")."""
    devices = dr.async_get(hass)
    for fixture_id, area_id in hass.data[DOMAIN]["areas"].items():
        device = devices.async_get_or_create(
            config_entry_id=entry.entry_id,
            identifiers={(DOMAIN, f"satellite-{fixture_id}")},
            name=f"Satellite {fixture_id}",
        )
        devices.async_update_device(device.id, area_id=area_id)
    return True


async def async_unload_entry(hass: HomeAssistant, entry: ConfigEntry) -> bool:
    """Nothing to unload."""
    return True
