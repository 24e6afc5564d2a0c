"""Fixtures for the integration tests: a loopback Mnemolis server and a config entry."""

from __future__ import annotations

# Imported before any HA fixture runs: otherwise HA resolves `custom_components`
# to PHCC's own testing package and reports "Integration not found".
import custom_components.mnemolis  # noqa: F401  isort: skip

from collections.abc import AsyncIterator, Iterator
from unittest.mock import PropertyMock, patch

import pytest
from homeassistant.const import CONF_API_KEY, CONF_URL
from homeassistant.core import HomeAssistant
from homeassistant.setup import async_setup_component
from pytest_homeassistant_custom_component.common import MockConfigEntry
from pytest_homeassistant_custom_component.syrupy import HomeAssistantSnapshotExtension
from syrupy.assertion import SnapshotAssertion

from custom_components.mnemolis.const import DOMAIN

from .fake_server import Answer, FakeMnemolis


@pytest.fixture(autouse=True)
def auto_enable_custom_integrations(enable_custom_integrations: None) -> Iterator[None]:
    """Let HA load custom_components/mnemolis in every test."""
    yield


@pytest.fixture
def snapshot(snapshot: SnapshotAssertion) -> SnapshotAssertion:
    """Snapshots through HA's serializer (stable ids, times and registry entries)."""
    return snapshot.use_extension(HomeAssistantSnapshotExtension)


@pytest.fixture
def entity_registry_enabled_by_default() -> Iterator[None]:
    """Create disabled-by-default entities enabled (as HA core's fixture does)."""
    with patch(
        "homeassistant.helpers.entity.Entity.entity_registry_enabled_default",
        return_value=True,
        new_callable=PropertyMock,
    ):
        yield


@pytest.fixture(autouse=True)
async def setup_core(hass: HomeAssistant) -> None:
    """The `homeassistant` integration, which a real HA always has loaded."""
    assert await async_setup_component(hass, "homeassistant", {})


@pytest.fixture
async def server(socket_enabled: None) -> AsyncIterator[FakeMnemolis]:
    """A Mnemolis REST server on 127.0.0.1 (PHCC only allows loopback sockets)."""
    fake = FakeMnemolis()
    fake.answers.append(
        Answer(
            trigger="garage door",
            source="ha",
            result="The garage door (cover.garage_door) is open. It opened at 07:42.",
            spoken="The garage door is open. It opened at 07:42.",
            citations=[{"source": "ha", "title": "Garage door", "ref": "cover.garage_door"}],
        )
    )
    fake.answers.append(
        Answer(
            trigger="warranty",
            source="rag",
            result="The dishwasher warranty runs until March 2027. Keep the receipt.",
            citations=[
                {"source": "rag", "title": "dishwasher.pdf", "ref": "manuals:dishwasher.pdf#3"}
            ],
        )
    )
    await fake.start()
    yield fake
    await fake.stop()


@pytest.fixture
def mock_config_entry(server: FakeMnemolis) -> MockConfigEntry:
    """An entry for the loopback server, keyed by its instance id."""
    return MockConfigEntry(
        domain=DOMAIN,
        title="Mnemolis",
        unique_id=server.instance_id,
        data={CONF_URL: server.url},
        version=1,
    )


@pytest.fixture
async def init_integration(
    hass: HomeAssistant, mock_config_entry: MockConfigEntry
) -> MockConfigEntry:
    """The entry, set up and loaded."""
    mock_config_entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(mock_config_entry.entry_id)
    await hass.async_block_till_done()
    return mock_config_entry


@pytest.fixture
def keyed_entry(server: FakeMnemolis) -> MockConfigEntry:
    """An entry for a server that requires an API key."""
    server.api_key = "full-secret-key"
    return MockConfigEntry(
        domain=DOMAIN,
        title="Mnemolis",
        unique_id=server.instance_id,
        data={CONF_URL: server.url, CONF_API_KEY: "full-secret-key"},
    )
