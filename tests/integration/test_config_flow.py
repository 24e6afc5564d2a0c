"""Every path of the config flow and the options flow, against a real loopback server."""

from __future__ import annotations

from unittest.mock import patch

from homeassistant.config_entries import SOURCE_HASSIO, SOURCE_USER, ConfigEntryState
from homeassistant.const import CONF_API_KEY, CONF_URL
from homeassistant.core import HomeAssistant
from homeassistant.data_entry_flow import FlowResultType
from homeassistant.helpers.service_info.hassio import HassioServiceInfo
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.mnemolis.const import (
    CONF_DEFAULT_SOURCE,
    CONF_FUSION_SOURCES,
    CONF_HAND_COMMANDS,
    CONF_RESPONSE_LENGTH,
    CONF_USE_LOCAL_MODEL,
    DOMAIN,
)

from .fake_server import FakeMnemolis


def _discovery(server: FakeMnemolis, **config: object) -> HassioServiceInfo:
    return HassioServiceInfo(
        config={"host": "127.0.0.1", "port": server.port, **config},
        name="Mnemolis",
        slug="a0d7b954_mnemolis",
        uuid="1234567890abcdef",
    )


async def test_user_flow(hass: HomeAssistant, server: FakeMnemolis) -> None:
    """URL checked against the server; unique id is its instance id; slash trimmed."""
    result = await hass.config_entries.flow.async_init(DOMAIN, context={"source": SOURCE_USER})
    assert result["type"] is FlowResultType.FORM
    assert result["step_id"] == "user"
    assert result["errors"] == {}

    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {CONF_URL: f"{server.url}/"}
    )
    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert result["title"] == "Mnemolis"
    assert result["data"] == {CONF_URL: server.url}
    assert result["result"].unique_id == server.instance_id
    assert ("GET", "/api/stats", None) in server.requests


async def test_user_flow_with_api_key(hass: HomeAssistant, server: FakeMnemolis) -> None:
    """A keyed server: the wrong key is invalid_auth, the right one is saved."""
    server.api_key = "full-secret-key"
    result = await hass.config_entries.flow.async_init(DOMAIN, context={"source": SOURCE_USER})
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {CONF_URL: server.url}
    )
    assert result["type"] is FlowResultType.FORM
    assert result["errors"] == {CONF_API_KEY: "invalid_auth"}

    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {CONF_URL: server.url, CONF_API_KEY: "wrong"}
    )
    assert result["errors"] == {CONF_API_KEY: "invalid_auth"}

    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {CONF_URL: server.url, CONF_API_KEY: "full-secret-key"}
    )
    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert result["data"] == {CONF_URL: server.url, CONF_API_KEY: "full-secret-key"}


async def test_user_flow_cannot_connect_then_recovers(
    hass: HomeAssistant, server: FakeMnemolis
) -> None:
    """Nothing listening → cannot_connect on the URL field; fixing the URL works."""
    await server.stop()
    result = await hass.config_entries.flow.async_init(DOMAIN, context={"source": SOURCE_USER})
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {CONF_URL: server.url}
    )
    assert result["type"] is FlowResultType.FORM
    assert result["errors"] == {CONF_URL: "cannot_connect"}

    await server.start()
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {CONF_URL: server.url}
    )
    assert result["type"] is FlowResultType.CREATE_ENTRY


async def test_user_flow_host_not_allowed(hass: HomeAssistant, server: FakeMnemolis) -> None:
    """The server refuses the Host header (403): say so on the URL, not as a bad key."""
    server.allowed_hosts = {"mnemolis.lan"}
    result = await hass.config_entries.flow.async_init(DOMAIN, context={"source": SOURCE_USER})
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {CONF_URL: server.url}
    )
    assert result["type"] is FlowResultType.FORM
    assert result["errors"] == {CONF_URL: "forbidden"}


async def test_user_flow_not_a_mnemolis_server(hass: HomeAssistant, server: FakeMnemolis) -> None:
    """Something answers at the URL, but not the stats contract: not_mnemolis."""
    result = await hass.config_entries.flow.async_init(DOMAIN, context={"source": SOURCE_USER})
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {CONF_URL: f"{server.url}/not-mnemolis"}
    )
    assert result["type"] is FlowResultType.FORM
    assert result["errors"] == {CONF_URL: "not_mnemolis"}


async def test_user_flow_unexpected_error(hass: HomeAssistant, server: FakeMnemolis) -> None:
    """An unexpected exception is logged and shown as unknown, never a crash."""
    result = await hass.config_entries.flow.async_init(DOMAIN, context={"source": SOURCE_USER})
    with patch(
        "custom_components.mnemolis.config_flow.MnemolisClient.stats",
        side_effect=RuntimeError("boom"),
    ):
        result = await hass.config_entries.flow.async_configure(
            result["flow_id"], {CONF_URL: server.url}
        )
    assert result["errors"] == {"base": "unknown"}


async def test_user_flow_already_configured(
    hass: HomeAssistant, mock_config_entry: MockConfigEntry, server: FakeMnemolis
) -> None:
    """The same server (same instance id) under another URL is refused."""
    mock_config_entry.add_to_hass(hass)
    result = await hass.config_entries.flow.async_init(DOMAIN, context={"source": SOURCE_USER})
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {CONF_URL: f"127.0.0.1:{server.port}"}
    )
    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == "already_configured"


async def test_hassio_discovery(hass: HomeAssistant, server: FakeMnemolis) -> None:
    """The add-on's Supervisor discovery leads to a confirm step, then an entry."""
    server.api_key = "addon-key"
    result = await hass.config_entries.flow.async_init(
        DOMAIN,
        context={"source": SOURCE_HASSIO},
        data=_discovery(server, api_key="addon-key"),
    )
    assert result["type"] is FlowResultType.FORM
    assert result["step_id"] == "hassio_confirm"
    assert result["description_placeholders"] == {"addon": "Mnemolis"}

    result = await hass.config_entries.flow.async_configure(result["flow_id"], {})
    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert result["data"] == {CONF_URL: server.url, CONF_API_KEY: "addon-key"}
    assert result["result"].unique_id == server.instance_id


async def test_hassio_discovery_updates_existing_entry(
    hass: HomeAssistant, server: FakeMnemolis
) -> None:
    """A known server rediscovered at a new address: the entry follows it."""
    entry = MockConfigEntry(
        domain=DOMAIN,
        unique_id=server.instance_id,
        data={CONF_URL: "http://old-host:8888"},
    )
    entry.add_to_hass(hass)
    result = await hass.config_entries.flow.async_init(
        DOMAIN, context={"source": SOURCE_HASSIO}, data=_discovery(server)
    )
    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == "already_configured"
    assert entry.data[CONF_URL] == server.url


async def test_hassio_discovery_unreachable(hass: HomeAssistant, server: FakeMnemolis) -> None:
    """Discovery of an add-on that does not answer aborts with cannot_connect."""
    await server.stop()
    result = await hass.config_entries.flow.async_init(
        DOMAIN, context={"source": SOURCE_HASSIO}, data=_discovery(server)
    )
    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == "cannot_connect"


async def test_hassio_discovery_wrong_key(hass: HomeAssistant, server: FakeMnemolis) -> None:
    """The add-on announced a key the server does not accept."""
    server.api_key = "real-key"
    result = await hass.config_entries.flow.async_init(
        DOMAIN, context={"source": SOURCE_HASSIO}, data=_discovery(server, api_key="stale")
    )
    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == "invalid_auth"


async def test_reauth(
    hass: HomeAssistant, keyed_entry: MockConfigEntry, server: FakeMnemolis
) -> None:
    """A rotated key: wrong key → invalid_auth, new key → entry updated and reloaded."""
    keyed_entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(keyed_entry.entry_id)
    server.api_key = "rotated-key"
    result = await keyed_entry.start_reauth_flow(hass)
    assert result["step_id"] == "reauth_confirm"

    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {CONF_API_KEY: "still-wrong"}
    )
    assert result["errors"] == {CONF_API_KEY: "invalid_auth"}

    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {CONF_API_KEY: "rotated-key"}
    )
    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == "reauth_successful"
    assert keyed_entry.data[CONF_API_KEY] == "rotated-key"
    await hass.async_block_till_done()
    assert keyed_entry.runtime_data.coordinator.last_update_success


async def test_reauth_other_server(
    hass: HomeAssistant, keyed_entry: MockConfigEntry, server: FakeMnemolis
) -> None:
    """The URL now answers as a different server: refuse to re-key the entry."""
    keyed_entry.add_to_hass(hass)
    result = await keyed_entry.start_reauth_flow(hass)
    server.instance_id = "another-server"
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {CONF_API_KEY: "full-secret-key"}
    )
    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == "wrong_server"


async def test_reconfigure(
    hass: HomeAssistant, mock_config_entry: MockConfigEntry, server: FakeMnemolis
) -> None:
    """New URL for the same server: errors shown, then updated and reloaded."""
    mock_config_entry.add_to_hass(hass)
    result = await mock_config_entry.start_reconfigure_flow(hass)
    assert result["step_id"] == "reconfigure"

    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {CONF_URL: "http://127.0.0.1:1"}
    )
    assert result["errors"] == {CONF_URL: "cannot_connect"}

    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {CONF_URL: f"127.0.0.1:{server.port}"}
    )
    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == "reconfigure_successful"
    assert mock_config_entry.data == {CONF_URL: server.url}
    await hass.async_block_till_done()
    assert mock_config_entry.state is ConfigEntryState.LOADED


async def test_reconfigure_other_server(
    hass: HomeAssistant, mock_config_entry: MockConfigEntry, server: FakeMnemolis
) -> None:
    """Pointing an entry at a different server is refused."""
    mock_config_entry.add_to_hass(hass)
    result = await mock_config_entry.start_reconfigure_flow(hass)
    server.instance_id = "another-server"
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {CONF_URL: server.url}
    )
    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == "wrong_server"


async def test_options_flow(hass: HomeAssistant, init_integration: MockConfigEntry) -> None:
    """Defaults shown; fusion sources without fusion refused; valid options saved."""
    result = await hass.config_entries.options.async_init(init_integration.entry_id)
    assert result["type"] is FlowResultType.FORM
    assert result["step_id"] == "init"
    shown = {str(key): key.description["suggested_value"] for key in result["data_schema"].schema}
    assert shown == {
        CONF_DEFAULT_SOURCE: "auto",
        CONF_FUSION_SOURCES: [],
        CONF_USE_LOCAL_MODEL: False,
        CONF_RESPONSE_LENGTH: "medium",
        CONF_HAND_COMMANDS: True,
    }

    bad = {
        CONF_DEFAULT_SOURCE: "auto",
        CONF_FUSION_SOURCES: ["ha", "forecast"],
        CONF_USE_LOCAL_MODEL: False,
        CONF_RESPONSE_LENGTH: "short",
        CONF_HAND_COMMANDS: True,
    }
    result = await hass.config_entries.options.async_configure(result["flow_id"], bad)
    assert result["type"] is FlowResultType.FORM
    assert result["errors"] == {CONF_FUSION_SOURCES: "fusion_sources_need_fusion"}

    good = {
        **bad,
        CONF_DEFAULT_SOURCE: "fusion",
        CONF_USE_LOCAL_MODEL: True,
        CONF_HAND_COMMANDS: False,
    }
    result = await hass.config_entries.options.async_configure(result["flow_id"], good)
    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert init_integration.options == good
