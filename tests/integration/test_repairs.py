"""A repair issue while the server's major version differs from the integration's."""

from __future__ import annotations

from homeassistant.core import HomeAssistant
from homeassistant.helpers import issue_registry as ir
from homeassistant.util import dt as dt_util
from pytest_homeassistant_custom_component.common import MockConfigEntry, async_fire_time_changed

from custom_components.mnemolis.const import DOMAIN, SCAN_INTERVAL
from custom_components.mnemolis.coordinator import versions_compatible

from .fake_server import FakeMnemolis


async def test_incompatible_version_issue(
    hass: HomeAssistant,
    server: FakeMnemolis,
    mock_config_entry: MockConfigEntry,
    issue_registry: ir.IssueRegistry,
) -> None:
    """Raised at set-up for a 1.x server, cleared once the server matches again."""
    server.version = "1.0.0"
    mock_config_entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(mock_config_entry.entry_id)
    issue_id = f"incompatible_version_{mock_config_entry.entry_id}"
    issue = issue_registry.async_get_issue(DOMAIN, issue_id)
    assert issue is not None
    assert issue.severity is ir.IssueSeverity.ERROR
    assert issue.translation_key == "incompatible_version"
    assert issue.translation_placeholders == {
        "title": "Mnemolis",
        "server_version": "1.0.0",
        "integration_version": "0.1.0",
    }

    server.version = "0.1.3"
    async_fire_time_changed(hass, dt_util.utcnow() + SCAN_INTERVAL)
    await hass.async_block_till_done(wait_background_tasks=True)
    assert issue_registry.async_get_issue(DOMAIN, issue_id) is None


def test_versions_compatible() -> None:
    """Same major is compatible; an unparsable server version is not."""
    assert versions_compatible("0.4.1", "0.1.0")
    assert not versions_compatible("1.0.0", "0.1.0")
    assert not versions_compatible("not-a-version", "0.1.0")
