"""What a real Home Assistant showed (issue 17): agent while the server is down, 403s, limits."""

from __future__ import annotations

import logging
from datetime import timedelta
from http import HTTPStatus

import pytest
from homeassistant.config_entries import SOURCE_USER, ConfigEntryState
from homeassistant.const import CONF_URL, STATE_UNAVAILABLE
from homeassistant.core import Context, HomeAssistant
from homeassistant.data_entry_flow import FlowResultType
from homeassistant.exceptions import HomeAssistantError, ServiceValidationError
from homeassistant.helpers import issue_registry as ir
from homeassistant.helpers import llm
from homeassistant.setup import async_setup_component
from homeassistant.util import dt as dt_util
from pytest_homeassistant_custom_component.common import MockConfigEntry, async_fire_time_changed
from pytest_homeassistant_custom_component.typing import ClientSessionGenerator

from custom_components.mnemolis.api import SEARCH_TIMEOUT
from custom_components.mnemolis.const import CONF_RESPONSE_LENGTH, DOMAIN
from custom_components.mnemolis.conversation import APOLOGY, shorten, speakable
from custom_components.mnemolis.coordinator import version_issue_id
from custom_components.mnemolis.llm_api import api_id

from .fake_server import Answer, FakeMnemolis

AGENT = "conversation.mnemolis"


async def test_server_down_at_start_agent_exists_and_apologises(
    hass: HomeAssistant,
    hass_client: ClientSessionGenerator,
    mock_config_entry: MockConfigEntry,
    server: FakeMnemolis,
) -> None:
    """HA boots before the add-on: the agent answers over HTTP, entities wait, then recover."""
    await server.stop()
    mock_config_entry.add_to_hass(hass)
    await hass.config_entries.async_setup(mock_config_entry.entry_id)
    await hass.async_block_till_done()
    assert mock_config_entry.state is ConfigEntryState.LOADED
    assert hass.states.get(AGENT) is not None
    assert hass.states.get("sensor.mnemolis_queries").state == STATE_UNAVAILABLE

    assert await async_setup_component(hass, "conversation", {})
    client = await hass_client()
    resp = await client.post(
        "/api/conversation/process",
        json={"text": "Is the garage door open?", "agent_id": AGENT, "language": "en"},
    )
    assert resp.status == HTTPStatus.OK, await resp.text()
    body = await resp.json()
    assert body["response"]["speech"]["plain"]["speech"] == APOLOGY
    assert body["response"]["response_type"] == "error"

    await server.start()  # the add-on is up: the next poll brings everything back
    async_fire_time_changed(hass, dt_util.utcnow() + timedelta(seconds=31))
    await hass.async_block_till_done(wait_background_tasks=True)
    assert hass.states.get("sensor.mnemolis_queries").state == "0"
    assert hass.states.get("binary_sensor.mnemolis_home_assistant_source").state == "on"
    resp = await client.post(
        "/api/conversation/process",
        json={"text": "Is the garage door open?", "agent_id": AGENT, "language": "en"},
    )
    speech = (await resp.json())["response"]["speech"]["plain"]["speech"]
    assert speech == "The garage door is open. It opened at 07:42."


async def test_refused_host_is_an_error_not_a_reauth(
    hass: HomeAssistant, mock_config_entry: MockConfigEntry, server: FakeMnemolis
) -> None:
    """A new key cannot fix a refused Host header: no reauth flow, a message naming the fix."""
    server.allowed_hosts = {"mnemolis.local"}
    mock_config_entry.add_to_hass(hass)
    await hass.config_entries.async_setup(mock_config_entry.entry_id)
    await hass.async_block_till_done()
    assert mock_config_entry.state is ConfigEntryState.SETUP_ERROR
    assert "allowed_hosts" in (mock_config_entry.reason or "")
    assert not hass.config_entries.flow.async_progress_by_handler(DOMAIN)


async def test_refused_host_while_running_is_not_a_reauth(
    hass: HomeAssistant, server: FakeMnemolis, init_integration: MockConfigEntry
) -> None:
    server.allowed_hosts = {"mnemolis.local"}
    with pytest.raises(HomeAssistantError, match="allowed_hosts"):
        await hass.services.async_call(
            DOMAIN,
            "search",
            {"config_entry_id": init_integration.entry_id, "query": "Is the garage door open?"},
            blocking=True,
            return_response=True,
        )
    async_fire_time_changed(hass, dt_util.utcnow() + timedelta(seconds=31))
    await hass.async_block_till_done(wait_background_tasks=True)
    assert not hass.config_entries.flow.async_progress_by_handler(DOMAIN)


async def test_utterance_is_not_logged_at_warning(
    hass: HomeAssistant,
    server: FakeMnemolis,
    init_integration: MockConfigEntry,
    caplog: pytest.LogCaptureFixture,
) -> None:
    await server.stop()
    from homeassistant.components import conversation

    with caplog.at_level(logging.WARNING):
        await conversation.async_converse(
            hass, "Where did I hide the spare key?", None, Context(), "en", agent_id=AGENT
        )
    assert "Mnemolis could not answer" in caplog.text
    assert "spare key" not in caplog.text


async def test_query_cap_and_search_timeout_come_from_the_server(
    hass: HomeAssistant, server: FakeMnemolis, mock_config_entry: MockConfigEntry
) -> None:
    server.limits = {"max_query_chars": 40, "search_deadline_s": 8.0}
    mock_config_entry.add_to_hass(hass)
    await hass.config_entries.async_setup(mock_config_entry.entry_id)
    await hass.async_block_till_done()
    client = mock_config_entry.runtime_data.client
    assert client.search_timeout == 13.0  # the server's deadline plus a margin
    with pytest.raises(ServiceValidationError) as info:
        await hass.services.async_call(
            DOMAIN,
            "search",
            {"config_entry_id": mock_config_entry.entry_id, "query": "x" * 41},
            blocking=True,
            return_response=True,
        )
    assert info.value.translation_key == "query_too_long"
    assert ("POST", "/search") not in [(m, p) for m, p, _ in server.requests]
    from homeassistant.components import conversation

    result = await conversation.async_converse(
        hass, "why " * 20, None, Context(), "en", agent_id=AGENT
    )
    assert "too long" in result.response.speech["plain"]["speech"]


def test_search_timeout_fits_the_server_deadline() -> None:
    """Without the server's figure: its default 20 s deadline plus a margin, not a minute."""
    assert 20.0 < SEARCH_TIMEOUT <= 30.0


async def test_repair_issue_goes_with_the_entry(
    hass: HomeAssistant, server: FakeMnemolis, mock_config_entry: MockConfigEntry
) -> None:
    server.version = "9.0.0"
    mock_config_entry.add_to_hass(hass)
    await hass.config_entries.async_setup(mock_config_entry.entry_id)
    await hass.async_block_till_done()
    registry = ir.async_get(hass)
    issue_id = version_issue_id(mock_config_entry.entry_id)
    assert registry.async_get_issue(DOMAIN, issue_id) is not None
    await hass.config_entries.async_remove(mock_config_entry.entry_id)
    await hass.async_block_till_done()
    assert registry.async_get_issue(DOMAIN, issue_id) is None


async def test_two_servers_can_be_told_apart(
    hass: HomeAssistant, server: FakeMnemolis, socket_enabled: None
) -> None:
    second = FakeMnemolis()
    second.instance_id = "0123456789abcdef0123456789abcdef"
    await second.start()
    try:
        titles = []
        for fake in (server, second):
            flow = await hass.config_entries.flow.async_init(
                DOMAIN, context={"source": SOURCE_USER}
            )
            result = await hass.config_entries.flow.async_configure(
                flow["flow_id"], {CONF_URL: fake.url}
            )
            assert result["type"] is FlowResultType.CREATE_ENTRY
            titles.append(result["title"])
        await hass.async_block_till_done()
        assert titles == ["Mnemolis", f"Mnemolis (127.0.0.1:{second.port})"]
        agents = sorted(
            (s.entity_id, s.name)
            for s in hass.states.async_all("conversation")
            if s.entity_id.startswith("conversation.mnemolis")
        )
        assert [name for _, name in agents] == titles, agents
        entries = hass.config_entries.async_entries(DOMAIN)
        labels = {a.name for a in llm.async_get_apis(hass) if a.id.startswith(DOMAIN)}
        assert labels == set(titles)
        hass.config_entries.async_update_entry(entries[0], title="Upstairs")
        await hass.async_block_till_done()
        api = next(a for a in llm.async_get_apis(hass) if a.id == api_id(entries[0]))
        assert api.name == "Upstairs"
    finally:
        await second.stop()


async def test_short_keeps_a_conditional_answer(
    hass: HomeAssistant, server: FakeMnemolis, init_integration: MockConfigEntry
) -> None:
    server.answers.insert(
        0,
        Answer(
            trigger="window",
            source="ha",
            result="Condition “it rains tomorrow” is met: rain is forecast tomorrow (80 %).\n\n"
            "The bedroom window is open.",
            spoken="It will rain tomorrow, and yes, the bedroom window is open.",
        ),
    )
    hass.config_entries.async_update_entry(
        init_integration, options={**init_integration.options, CONF_RESPONSE_LENGTH: "short"}
    )
    from homeassistant.components import conversation

    result = await conversation.async_converse(
        hass,
        "If it rains tomorrow, is the bedroom window open?",
        None,
        Context(),
        "en",
        agent_id=AGENT,
    )
    speech = result.response.speech["plain"]["speech"]
    assert speech == "It will rain tomorrow, and yes, the bedroom window is open."


def test_spoken_forms() -> None:
    # Short: a condition's verdict does not use up the one sentence (as older servers and
    # as the server says it since issue 29).
    assert shorten("Condition not met: it is dry. So this does not apply for now.", "short") == (
        "Condition not met: it is dry. So this does not apply for now."
    )
    said = "It won't rain tomorrow, so that doesn't apply for now. The window is open. Ok."
    assert shorten(said, "short") == (
        "It won't rain tomorrow, so that doesn't apply for now. The window is open."
    )
    said = "I couldn't check whether it will rain tomorrow. The window is open. Ok."
    assert shorten(said, "short") == (
        "I couldn't check whether it will rain tomorrow. The window is open."
    )
    # Full: a citation the server put on the closing fence's line is no reason to read
    # the code out (issue 29 item 5); citation markers are not said either.
    for fence_end in ("``` ", "```\n"):  # on the fence's line (older servers), after it
        full = speakable(
            'Add Mnemolis to `claude_desktop_config.json`:\n```\n{\n  "mcpServers": {\n'
            '    "mnemolis": {"command": "/path/mnemolis"}\n  }\n}\n'
            f"{fence_end}[1, mnemolis-docs: connect-claude-desktop.md]\nRestart it [2]."
        )
        assert full == "Add Mnemolis to claude_desktop_config.json: Restart it.", full
    # Medium: a bare "Yes." never ends the answer without what it is about.
    text = (
        "The garage door is open. It opened at 07:42. The porch light is off. "
        "Yes. The back door is locked."
    )
    medium = shorten(text, "medium")
    assert not medium.endswith("Yes."), medium
    assert shorten("Yes. The garage door is open. It opened at 07:42.", "short") == (
        "Yes. The garage door is open."
    )
    # Full: code blocks are not read out; URL removal leaves quotes and commas alone.
    full = speakable(
        'Add this:\n```yaml\nmnemolis:\n  host: x\n```\nThen see "https://example.org/a", '
        "or [the guide](https://example.org/g), (https://example.org/x) done."
    )
    assert "```" not in full and "host" not in full
    assert full == 'Add this: Then see "", or the guide, done.'
    # A command the words lead into is the answer: said, without its comment or the
    # lines continuing it (as the server's spoken form says it).
    full = speakable(
        "Run this:\n```bash\nmnemolis rag add docs ./docs  # index now \\\n  --wait\n```\nDone."
    )
    assert full == "Run this: mnemolis rag add docs ./docs. Done.", full
    # An address with a port is where to connect: said without its scheme.
    full = speakable("Open http://homeassistant.local:8888/ or (http://HOST:8888/mcp).")
    assert full == "Open homeassistant.local:8888 or (HOST:8888/mcp).", full
    full = speakable("Direct: open `http://<host>:8888/`, not https://<host>/x.")
    assert full == "Direct: open host:8888, not.", full


async def test_hung_server_apologises_after_its_own_deadline(
    hass: HomeAssistant,
    server: FakeMnemolis,
    mock_config_entry: MockConfigEntry,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A server stuck past its routing deadline (+5 s) gets the apology, not a minute's wait."""
    server.limits = {"max_query_chars": 4000, "search_deadline_s": 0.5}
    mock_config_entry.add_to_hass(hass)
    await hass.config_entries.async_setup(mock_config_entry.entry_id)
    await hass.async_block_till_done()
    server.search_delay = 8.0  # longer than the 5.5 s the integration waits
    from homeassistant.components import conversation

    with caplog.at_level(logging.WARNING):
        result = await conversation.async_converse(
            hass, "Is the garage door open?", None, Context(), "en", agent_id=AGENT
        )
    assert result.response.speech["plain"]["speech"] == APOLOGY
    assert "timeout" in caplog.text
