"""Entity states, registry entries and availability while the server comes and goes."""

from __future__ import annotations

import logging
from unittest.mock import patch

import pytest
from homeassistant.const import STATE_OFF, STATE_ON, STATE_UNAVAILABLE, EntityCategory, Platform
from homeassistant.core import HomeAssistant
from homeassistant.helpers import device_registry as dr
from homeassistant.helpers import entity_registry as er
from homeassistant.util import dt as dt_util
from pytest_homeassistant_custom_component.common import (
    MockConfigEntry,
    async_fire_time_changed,
    snapshot_platform,
)
from syrupy.assertion import SnapshotAssertion

from custom_components.mnemolis.const import DOMAIN, SCAN_INTERVAL

from .fake_server import FakeMnemolis


async def _tick(hass: HomeAssistant) -> None:
    """Let one polling interval pass (real sockets, so no frozen clock)."""
    async_fire_time_changed(hass, dt_util.utcnow() + SCAN_INTERVAL)
    # The coordinator refreshes in a background task doing real HTTP.
    await hass.async_block_till_done(wait_background_tasks=True)


@pytest.mark.parametrize(
    "platform", [Platform.BINARY_SENSOR, Platform.BUTTON, Platform.CONVERSATION, Platform.SENSOR]
)
@pytest.mark.usefixtures("entity_registry_enabled_by_default")
async def test_entities_snapshot(
    hass: HomeAssistant,
    platform: Platform,
    server: FakeMnemolis,
    mock_config_entry: MockConfigEntry,
    entity_registry: er.EntityRegistry,
    device_registry: dr.DeviceRegistry,
    snapshot: SnapshotAssertion,
) -> None:
    """Every entity's registry entry and state, all on the one device."""
    mock_config_entry.add_to_hass(hass)
    hass.config_entries.async_update_entry(mock_config_entry, data={"url": server.url})
    with patch("custom_components.mnemolis.PLATFORMS", [platform]):
        assert await hass.config_entries.async_setup(mock_config_entry.entry_id)
        await hass.async_block_till_done()

        await snapshot_platform(hass, entity_registry, snapshot, mock_config_entry.entry_id)
        device = device_registry.async_get_device(identifiers={(DOMAIN, server.instance_id)})
        assert device is not None
        entries = er.async_entries_for_config_entry(entity_registry, mock_config_entry.entry_id)
        assert all(entry.device_id == device.id for entry in entries)
        assert await hass.config_entries.async_unload(mock_config_entry.entry_id)


async def test_states(
    hass: HomeAssistant,
    server: FakeMnemolis,
    init_integration: MockConfigEntry,
) -> None:
    """Counters follow the server's stats after questions are asked."""
    assert hass.states.get("sensor.mnemolis_queries").state == "0"
    assert hass.states.get("sensor.mnemolis_last_source_used").state == "unknown"
    assert hass.states.get("sensor.mnemolis_documents_indexed").state == "42"
    web = hass.states.get("binary_sensor.mnemolis_web_search_source")
    assert web.state == STATE_OFF
    assert "connection refused" in web.attributes["last_error"]
    assert hass.states.get("binary_sensor.mnemolis_home_assistant_source").state == STATE_ON

    await hass.services.async_call(
        DOMAIN,
        "search",
        {"config_entry_id": init_integration.entry_id, "query": "Is the garage door open?"},
        blocking=True,
        return_response=True,
    )
    await _tick(hass)
    assert hass.states.get("sensor.mnemolis_queries").state == "1"
    assert hass.states.get("sensor.mnemolis_last_source_used").state == "ha"
    assert float(hass.states.get("sensor.mnemolis_average_latency").state) == 42.0
    assert hass.states.get("sensor.mnemolis_last_query").state != "unknown"

    server.last_source = "forecast+ha"  # a fused answer
    await _tick(hass)
    assert hass.states.get("sensor.mnemolis_last_source_used").state == "fusion"
    server.last_source = "somethingnew"
    await _tick(hass)
    assert hass.states.get("sensor.mnemolis_last_source_used").state == "unknown"


async def test_noisy_entities_disabled_by_default(
    hass: HomeAssistant, init_integration: MockConfigEntry, entity_registry: er.EntityRegistry
) -> None:
    """Sources the server has not set up, and failure counts, start disabled."""
    kiwix = entity_registry.async_get("binary_sensor.mnemolis_offline_wiki_kiwix_source")
    assert kiwix.disabled_by is er.RegistryEntryDisabler.INTEGRATION
    assert kiwix.entity_category is EntityCategory.DIAGNOSTIC
    assert (
        entity_registry.async_get("binary_sensor.mnemolis_home_assistant_source").disabled_by
        is None
    )
    failed = entity_registry.async_get("sensor.mnemolis_unanswered_queries")
    assert failed.disabled_by is er.RegistryEntryDisabler.INTEGRATION
    assert entity_registry.async_get("button.mnemolis_reindex_documents").entity_category is (
        EntityCategory.CONFIG
    )


async def test_unavailable_and_back(
    hass: HomeAssistant,
    server: FakeMnemolis,
    init_integration: MockConfigEntry,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Server gone: unavailable, logged once; server back: available, logged once."""
    caplog.set_level(logging.INFO)
    await server.stop()
    await _tick(hass)
    await _tick(hass)
    for entity_id in (
        "sensor.mnemolis_queries",
        "sensor.mnemolis_average_latency",
        "binary_sensor.mnemolis_home_assistant_source",
        "button.mnemolis_reindex_documents",
    ):
        assert hass.states.get(entity_id).state == STATE_UNAVAILABLE, entity_id
    errors = [r for r in caplog.records if "Cannot reach the Mnemolis server" in r.getMessage()]
    assert len(errors) == 1, [r.getMessage() for r in caplog.records]

    await server.start()
    await _tick(hass)
    await _tick(hass)
    assert hass.states.get("sensor.mnemolis_queries").state == "0"
    assert hass.states.get("binary_sensor.mnemolis_home_assistant_source").state == STATE_ON
    recovered = [r for r in caplog.records if "recovered" in r.getMessage()]
    assert len(recovered) == 1


async def test_source_disappears_and_new_source_appears(
    hass: HomeAssistant,
    server: FakeMnemolis,
    init_integration: MockConfigEntry,
) -> None:
    """A source the server stops reporting goes unavailable; a new one gets an entity."""
    del server.sources["ha"]
    server.sources["calendar"] = {"configured": True, "healthy": True, "last_error": None}
    await _tick(hass)
    assert hass.states.get("binary_sensor.mnemolis_home_assistant_source").state == (
        STATE_UNAVAILABLE
    )
    assert hass.states.get("binary_sensor.mnemolis_calendar_source").state == STATE_ON


async def test_software_version_follows_server(
    hass: HomeAssistant,
    server: FakeMnemolis,
    init_integration: MockConfigEntry,
    device_registry: dr.DeviceRegistry,
) -> None:
    """After an add-on update the device shows the new version."""
    server.version = "0.2.0"
    await _tick(hass)
    device = device_registry.async_get_device(identifiers={(DOMAIN, server.instance_id)})
    assert device.sw_version == "0.2.0"


async def test_reindex_button(
    hass: HomeAssistant, server: FakeMnemolis, init_integration: MockConfigEntry
) -> None:
    """Pressing the button reindexes every registered database."""
    await hass.services.async_call(
        "button", "press", {"entity_id": "button.mnemolis_reindex_documents"}, blocking=True
    )
    assert server.reindexed == ["mnemolis-docs", "manuals"]


async def test_key_revoked_while_polling_starts_reauth(
    hass: HomeAssistant, server: FakeMnemolis, keyed_entry: MockConfigEntry
) -> None:
    """A key rotated on the server: the next poll opens re-authentication."""
    keyed_entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(keyed_entry.entry_id)
    await hass.async_block_till_done()
    server.api_key = "rotated"
    await _tick(hass)
    flows = hass.config_entries.flow.async_progress_by_handler(DOMAIN)
    assert [f["context"]["source"] for f in flows] == ["reauth"]
    assert hass.states.get("sensor.mnemolis_queries").state == STATE_UNAVAILABLE
