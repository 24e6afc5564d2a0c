"""The LLM API other conversation agents use: registered per entry, tools that call the server."""

from __future__ import annotations

import pytest
from homeassistant.core import Context, HomeAssistant
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import llm
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.mnemolis.llm_api import api_id

from .fake_server import FakeMnemolis

CONTEXT = llm.LLMContext(
    platform="ollama",
    context=Context(),
    user_prompt="Is the garage door open?",
    language="en",
    assistant="conversation",
    device_id=None,
)


async def test_api_registered_and_unregistered(
    hass: HomeAssistant, init_integration: MockConfigEntry
) -> None:
    """Listed while the entry is loaded, gone after unload."""
    ids = [api.id for api in llm.async_get_apis(hass)]
    assert api_id(init_integration) in ids
    api = next(a for a in llm.async_get_apis(hass) if a.id == api_id(init_integration))
    assert api.name == "Mnemolis"  # the entry's title (see test_hardening for two servers)
    await hass.config_entries.async_unload(init_integration.entry_id)
    assert api_id(init_integration) not in [a.id for a in llm.async_get_apis(hass)]


async def test_search_knowledge_tool(
    hass: HomeAssistant, server: FakeMnemolis, init_integration: MockConfigEntry
) -> None:
    """The tool routes the question and returns answer, provenance and citations."""
    instance = await llm.async_get_api(hass, api_id(init_integration), CONTEXT)
    assert {t.name for t in instance.tools} == {"search_knowledge", "recall"}
    assert "search_knowledge" in instance.api_prompt
    result = await instance.async_call_tool(
        llm.ToolInput(tool_name="search_knowledge", tool_args={"query": "Is the garage door open?"})
    )
    assert result == {
        "answer": "The garage door (cover.garage_door) is open. It opened at 07:42.",
        "source_used": "ha",
        "fallback": False,
        "citations": [{"source": "ha", "title": "Garage door", "ref": "cover.garage_door"}],
    }
    # The assistant's language goes with the question (HA's grammar reads it in that language).
    assert server.requests[-1][2] == {
        "query": "Is the garage door open?",
        "source": "auto",
        "language": "en",
    }


async def test_recall_tool(
    hass: HomeAssistant, server: FakeMnemolis, init_integration: MockConfigEntry
) -> None:
    """Recall finds what remember stored, filtered by tag."""
    await hass.services.async_call(
        "mnemolis",
        "remember",
        {
            "config_entry_id": init_integration.entry_id,
            "content": "The spare key is in the blue flower pot.",
            "tags": ["keys"],
        },
        blocking=True,
    )
    instance = await llm.async_get_api(hass, api_id(init_integration), CONTEXT)
    result = await instance.async_call_tool(
        llm.ToolInput(tool_name="recall", tool_args={"query": "spare key", "tags": ["KEYS"]})
    )
    assert [m["content"] for m in result["results"]] == ["The spare key is in the blue flower pot."]
    assert server.requests[-1][2] == {
        "query": "spare key",
        "limit": 5,
        "format": "json",
        "tags": "KEYS",
    }


async def test_tool_errors_are_home_assistant_errors(
    hass: HomeAssistant, server: FakeMnemolis, init_integration: MockConfigEntry
) -> None:
    """A server that went away surfaces as HomeAssistantError, which agents report back."""
    instance = await llm.async_get_api(hass, api_id(init_integration), CONTEXT)
    await server.stop()
    for name in ("search_knowledge", "recall"):
        with pytest.raises(HomeAssistantError, match="Cannot reach the Mnemolis server"):
            await instance.async_call_tool(
                llm.ToolInput(tool_name=name, tool_args={"query": "anything"})
            )
