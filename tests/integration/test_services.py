"""The search, remember and reindex actions and the data they return."""

from __future__ import annotations

import pytest
from homeassistant.config_entries import ConfigEntryState
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import HomeAssistantError, ServiceValidationError
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.mnemolis.const import CONF_DEFAULT_SOURCE, CONF_FUSION_SOURCES, DOMAIN

from .fake_server import FakeMnemolis


async def _call(hass: HomeAssistant, service: str, data: dict) -> dict:
    response = await hass.services.async_call(
        DOMAIN, service, data, blocking=True, return_response=True
    )
    assert response is not None
    return dict(response)


async def test_search(
    hass: HomeAssistant, server: FakeMnemolis, init_integration: MockConfigEntry
) -> None:
    """Result, spoken form, who answered, fallback and citations come back."""
    response = await _call(
        hass,
        "search",
        {"config_entry_id": init_integration.entry_id, "query": "Is the garage door open?"},
    )
    assert response == {
        "result": "The garage door (cover.garage_door) is open. It opened at 07:42.",
        "spoken": "The garage door is open. It opened at 07:42.",
        "source_used": "ha",
        "fallback": False,
        "citations": [{"source": "ha", "title": "Garage door", "ref": "cover.garage_door"}],
        "elapsed_ms": 42.0,
    }


async def test_search_explicit_source_and_fusion(
    hass: HomeAssistant, server: FakeMnemolis, init_integration: MockConfigEntry
) -> None:
    """source and fusion_sources reach the server as given."""
    await _call(
        hass,
        "search",
        {
            "config_entry_id": init_integration.entry_id,
            "query": "Is the garage door open?",
            "source": "fusion",
            "fusion_sources": ["ha", "changes"],
        },
    )
    assert server.requests[-1][2] == {
        "query": "Is the garage door open?",
        "source": "fusion",
        "fusion_sources": ["ha", "changes"],
    }


async def test_search_uses_options(
    hass: HomeAssistant, server: FakeMnemolis, init_integration: MockConfigEntry
) -> None:
    """Without a source, the entry's default source and fusion sources apply."""
    hass.config_entries.async_update_entry(
        init_integration,
        options={CONF_DEFAULT_SOURCE: "fusion", CONF_FUSION_SOURCES: ["rag", "memory"]},
    )
    await _call(
        hass, "search", {"config_entry_id": init_integration.entry_id, "query": "warranty?"}
    )
    body = server.requests[-1][2]
    assert (body["source"], body["fusion_sources"]) == ("fusion", ["rag", "memory"])


async def test_search_validation_errors(
    hass: HomeAssistant, server: FakeMnemolis, init_integration: MockConfigEntry
) -> None:
    """Translated validation errors: fusion sources without fusion, unknown entry."""
    with pytest.raises(ServiceValidationError) as err:
        await _call(
            hass,
            "search",
            {
                "config_entry_id": init_integration.entry_id,
                "query": "anything",
                "source": "ha",
                "fusion_sources": ["web"],
            },
        )
    assert err.value.translation_key == "fusion_sources_need_fusion"

    with pytest.raises(ServiceValidationError) as err:
        await _call(hass, "search", {"config_entry_id": "nope", "query": "anything"})
    assert err.value.translation_key == "entry_not_found"


async def test_search_entry_not_loaded(
    hass: HomeAssistant, server: FakeMnemolis, init_integration: MockConfigEntry
) -> None:
    """An unloaded server cannot be asked."""
    await hass.config_entries.async_unload(init_integration.entry_id)
    assert init_integration.state is ConfigEntryState.NOT_LOADED
    with pytest.raises(ServiceValidationError) as err:
        await _call(
            hass, "search", {"config_entry_id": init_integration.entry_id, "query": "anything"}
        )
    assert err.value.translation_key == "entry_not_loaded"


async def test_search_server_down(
    hass: HomeAssistant, server: FakeMnemolis, init_integration: MockConfigEntry
) -> None:
    """The server went away: a translated HomeAssistantError naming the cause."""
    await server.stop()
    with pytest.raises(HomeAssistantError) as err:
        await _call(
            hass, "search", {"config_entry_id": init_integration.entry_id, "query": "anything"}
        )
    assert err.value.translation_key == "communication_error"
    assert "Cannot reach the Mnemolis server" in str(err.value)


async def test_remember(
    hass: HomeAssistant, server: FakeMnemolis, init_integration: MockConfigEntry
) -> None:
    """The stored memory comes back, with its id."""
    response = await _call(
        hass,
        "remember",
        {
            "config_entry_id": init_integration.entry_id,
            "content": "The spare key is in the blue flower pot.",
            "tags": ["household", "keys"],
        },
    )
    memory = response["memory"]
    assert memory["id"] == "mem-1"
    assert memory["content"] == "The spare key is in the blue flower pot."
    assert memory["tags"] == ["household", "keys"]
    assert server.memories == [memory]


async def test_remember_with_read_key_is_forbidden(
    hass: HomeAssistant, server: FakeMnemolis
) -> None:
    """A read-only key searches fine but cannot write: a clear, translated error."""
    server.api_key = "full"
    server.read_api_key = "read-only"
    entry = MockConfigEntry(
        domain=DOMAIN,
        unique_id=server.instance_id,
        data={"url": server.url, "api_key": "read-only"},
    )
    entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(entry.entry_id)
    with pytest.raises(HomeAssistantError) as err:
        await _call(hass, "remember", {"config_entry_id": entry.entry_id, "content": "x"})
    assert err.value.translation_key == "write_forbidden"
    assert not hass.config_entries.flow.async_progress_by_handler(DOMAIN)


async def test_key_revoked_while_running_starts_reauth(
    hass: HomeAssistant, server: FakeMnemolis, keyed_entry: MockConfigEntry
) -> None:
    """A 401 on an action: translated error, and the reauth flow opens."""
    keyed_entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(keyed_entry.entry_id)
    server.api_key = "rotated"
    with pytest.raises(HomeAssistantError) as err:
        await _call(hass, "search", {"config_entry_id": keyed_entry.entry_id, "query": "x"})
    assert err.value.translation_key == "authentication_error"
    await hass.async_block_till_done()
    flows = hass.config_entries.flow.async_progress_by_handler(DOMAIN)
    assert [f["context"]["source"] for f in flows] == ["reauth"]


async def test_reindex(
    hass: HomeAssistant, server: FakeMnemolis, init_integration: MockConfigEntry
) -> None:
    """One database, or all of them; an unknown one is a validation error."""
    response = await _call(
        hass, "reindex", {"config_entry_id": init_integration.entry_id, "database": "manuals"}
    )
    assert response == {"reindexed": ["manuals"]}
    response = await _call(hass, "reindex", {"config_entry_id": init_integration.entry_id})
    assert response == {"reindexed": ["mnemolis-docs", "manuals"]}
    assert server.reindexed == ["manuals", "mnemolis-docs", "manuals"]

    with pytest.raises(ServiceValidationError) as err:
        await _call(
            hass, "reindex", {"config_entry_id": init_integration.entry_id, "database": "nope"}
        )
    assert err.value.translation_key == "invalid_request"
    assert '"nope" not exist' in str(err.value)


async def test_server_error_is_translated(
    hass: HomeAssistant, server: FakeMnemolis, init_integration: MockConfigEntry
) -> None:
    """A 5xx from the server: unknown_error with the server's message."""
    server.failures["/api/rag/manuals/reindex"] = (500, "internal", "disk full")
    with pytest.raises(HomeAssistantError) as err:
        await _call(hass, "reindex", {"config_entry_id": init_integration.entry_id})
    assert err.value.translation_key == "unknown_error"
    assert "disk full" in str(err.value)
