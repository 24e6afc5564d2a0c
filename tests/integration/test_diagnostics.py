"""Diagnostics carry what a bug report needs, and never the key or URLs."""

from __future__ import annotations

from homeassistant.core import HomeAssistant
from pytest_homeassistant_custom_component.common import MockConfigEntry
from pytest_homeassistant_custom_component.components.diagnostics import (
    get_diagnostics_for_config_entry,
)
from pytest_homeassistant_custom_component.typing import ClientSessionGenerator
from syrupy.assertion import SnapshotAssertion

from .fake_server import FakeMnemolis


async def test_diagnostics(
    hass: HomeAssistant,
    hass_client: ClientSessionGenerator,
    server: FakeMnemolis,
    keyed_entry: MockConfigEntry,
    snapshot: SnapshotAssertion,
) -> None:
    """API key, server URL and backend URLs in source errors are redacted."""
    keyed_entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(keyed_entry.entry_id)
    await hass.async_block_till_done()
    diagnostics = await get_diagnostics_for_config_entry(hass, hass_client, keyed_entry)
    text = str(diagnostics)
    assert "full-secret-key" not in text
    assert server.url not in text
    assert "searxng.lan" not in text
    assert diagnostics["stats"]["sources"]["web"]["last_error"] == (
        "cannot reach **REDACTED** connection refused"
    )
    assert diagnostics == snapshot
