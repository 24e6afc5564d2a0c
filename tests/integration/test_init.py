"""Set-up, unload, reload, not-ready and auth failures of a config entry."""

from __future__ import annotations

from homeassistant.config_entries import SOURCE_REAUTH, ConfigEntryState
from homeassistant.core import HomeAssistant
from homeassistant.helpers import device_registry as dr
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.mnemolis.const import DOMAIN

from .fake_server import FakeMnemolis


async def test_setup_and_unload(
    hass: HomeAssistant, init_integration: MockConfigEntry, server: FakeMnemolis
) -> None:
    """A reachable server loads; unloading releases it."""
    assert init_integration.state is ConfigEntryState.LOADED
    assert init_integration.runtime_data.coordinator.data.instance_id == server.instance_id
    assert await hass.config_entries.async_unload(init_integration.entry_id)
    await hass.async_block_till_done()
    assert init_integration.state is ConfigEntryState.NOT_LOADED


async def test_reload(hass: HomeAssistant, init_integration: MockConfigEntry) -> None:
    """Reload brings the same entities back."""
    before = hass.states.get("sensor.mnemolis_queries")
    assert before is not None
    assert await hass.config_entries.async_reload(init_integration.entry_id)
    await hass.async_block_till_done()
    assert init_integration.state is ConfigEntryState.LOADED
    assert hass.states.get("sensor.mnemolis_queries") is not None


async def test_server_down_at_start_still_loads(
    hass: HomeAssistant, mock_config_entry: MockConfigEntry, server: FakeMnemolis
) -> None:
    """Not ConfigEntryNotReady: the agent must exist (test_hardening has the whole story)."""
    await server.stop()
    mock_config_entry.add_to_hass(hass)
    await hass.config_entries.async_setup(mock_config_entry.entry_id)
    await hass.async_block_till_done()
    assert mock_config_entry.state is ConfigEntryState.LOADED


async def test_wrong_key_at_start_starts_reauth(
    hass: HomeAssistant, mock_config_entry: MockConfigEntry, server: FakeMnemolis
) -> None:
    """A 401 at start is an auth failure and opens the reauth flow."""
    server.api_key = "a-key-the-entry-does-not-have"
    mock_config_entry.add_to_hass(hass)
    await hass.config_entries.async_setup(mock_config_entry.entry_id)
    await hass.async_block_till_done()
    assert mock_config_entry.state is ConfigEntryState.SETUP_ERROR
    flows = hass.config_entries.flow.async_progress_by_handler(DOMAIN)
    assert [f["context"]["source"] for f in flows] == [SOURCE_REAUTH]


async def test_bad_stats_body_is_not_ready(
    hass: HomeAssistant, mock_config_entry: MockConfigEntry, server: FakeMnemolis
) -> None:
    """Something that is not a Mnemolis server (no instance id) does not load."""
    server.instance_id = ""
    mock_config_entry.add_to_hass(hass)
    await hass.config_entries.async_setup(mock_config_entry.entry_id)
    await hass.async_block_till_done()
    assert mock_config_entry.state is ConfigEntryState.SETUP_RETRY


async def test_device(
    hass: HomeAssistant,
    init_integration: MockConfigEntry,
    device_registry: dr.DeviceRegistry,
    server: FakeMnemolis,
) -> None:
    """One service device per server, with the server's version and URL."""
    device = device_registry.async_get_device(identifiers={(DOMAIN, server.instance_id)})
    assert device is not None
    assert device.entry_type is dr.DeviceEntryType.SERVICE
    assert device.sw_version == "0.1.0"
    assert device.configuration_url == server.url
    assert device.manufacturer == "Mnemolis"
