"""The conversation agent, through conversation.async_converse and an Assist pipeline."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from homeassistant.components import conversation
from homeassistant.core import Context, HomeAssistant
from homeassistant.helpers import intent
from homeassistant.setup import async_setup_component
from pytest_homeassistant_custom_component.common import MockConfigEntry, async_mock_service
from pytest_homeassistant_custom_component.typing import WebSocketGenerator

from custom_components.mnemolis.const import (
    CONF_HAND_COMMANDS,
    CONF_RESPONSE_LENGTH,
    CONF_USE_LOCAL_MODEL,
)
from custom_components.mnemolis.conversation import APOLOGY, shorten

from .fake_server import Answer, FakeMnemolis

AGENT = "conversation.mnemolis"


async def _ask(
    hass: HomeAssistant, text: str, conversation_id: str | None = None
) -> conversation.ConversationResult:
    return await conversation.async_converse(
        hass, text, conversation_id, Context(), language="en", agent_id=AGENT
    )


def _speech(result: conversation.ConversationResult) -> str:
    return str(result.response.speech["plain"]["speech"])


async def test_answer_with_spoken_form(
    hass: HomeAssistant, server: FakeMnemolis, init_integration: MockConfigEntry
) -> None:
    """The router's spoken form is what the agent says."""
    result = await _ask(hass, "Is the garage door open?")
    assert result.response.response_type is intent.IntentResponseType.ACTION_DONE
    assert _speech(result) == "The garage door is open. It opened at 07:42."
    method, path, body = server.requests[-1]
    assert (method, path) == ("POST", "/search")
    assert body["query"] == "Is the garage door open?"
    assert body["source"] == "auto"
    assert body["conversation_id"] == result.conversation_id


async def test_follow_up_keeps_conversation_id(
    hass: HomeAssistant, server: FakeMnemolis, init_integration: MockConfigEntry
) -> None:
    """A follow-up sends the same conversation id so the server keeps the subject."""
    first = await _ask(hass, "Is the garage door open?")
    second = await _ask(hass, "When did the garage door open?", first.conversation_id)
    assert second.conversation_id == first.conversation_id
    searches = [b for m, p, b in server.requests if p == "/search"]
    assert [b["conversation_id"] for b in searches] == [first.conversation_id] * 2


async def test_no_answer_says_so(
    hass: HomeAssistant, server: FakeMnemolis, init_integration: MockConfigEntry
) -> None:
    """Nobody could answer: the agent says what the router said, not an error."""
    result = await _ask(hass, "What is the meaning of life?")
    assert _speech(result) == "No source could answer this question."


async def test_a_command_is_carried_out_by_home_assistant(
    hass: HomeAssistant, server: FakeMnemolis, init_integration: MockConfigEntry
) -> None:
    """ "Turn off the kitchen light" switches the light through Home Assistant's own
    intents; a question about it still goes to Mnemolis; with the option off, so does
    the command."""
    assert await async_setup_component(hass, "intent", {})
    hass.states.async_set("light.kitchen", "on", {"friendly_name": "Kitchen light"})
    turned_off = async_mock_service(hass, "light", "turn_off")
    searches = len(server.requests)

    result = await _ask(hass, "turn off the kitchen light")
    assert result.response.response_type is intent.IntentResponseType.ACTION_DONE
    assert [call.data["entity_id"] for call in turned_off] == [["light.kitchen"]]
    assert _speech(result) == "Turned off the light"
    assert len(server.requests) == searches

    # A state question is one of Home Assistant's sentences too, but Mnemolis answers it.
    await _ask(hass, "is the kitchen light on?")
    assert server.requests[-1][2]["query"] == "is the kitchen light on?"

    hass.config_entries.async_update_entry(init_integration, options={CONF_HAND_COMMANDS: False})
    await _ask(hass, "turn off the kitchen light")
    assert server.requests[-1][2]["query"] == "turn off the kitchen light"
    assert len(turned_off) == 1


async def test_a_command_is_handed_over_with_the_chat_log_where_ha_takes_it(
    hass: HomeAssistant,
    server: FakeMnemolis,
    init_integration: MockConfigEntry,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Home Assistant after 2025.4 takes the chat log in ``async_handle_intents``: the
    agent passes it, and a reply Home Assistant logged itself is not logged twice."""
    from homeassistant.helpers import chat_session

    from custom_components.mnemolis import conversation as agent

    assert await async_setup_component(hass, "intent", {})
    hass.states.async_set("light.kitchen", "on", {"friendly_name": "Kitchen light"})
    turned_off = async_mock_service(hass, "light", "turn_off")
    handled_before = conversation.async_handle_intents
    logs: list[conversation.ChatLog] = []

    async def newer(
        hass: HomeAssistant,
        user_input: conversation.ConversationInput,
        chat_log: conversation.ChatLog,
        *,
        intent_filter: Any = None,
    ) -> intent.IntentResponse | None:
        logs.append(chat_log)
        response = await handled_before(hass, user_input, intent_filter=intent_filter)
        if response is not None:
            speech = response.speech["plain"]["speech"]
            chat_log.async_add_assistant_content_without_tools(
                conversation.AssistantContent(
                    agent_id="conversation.home_assistant", content=speech
                )
            )
        return response

    monkeypatch.setattr(agent, "_INTENTS_TAKE_CHAT_LOG", True)
    monkeypatch.setattr(conversation, "async_handle_intents", newer)
    result = await _ask(hass, "turn off the kitchen light")
    assert _speech(result) == "Turned off the light"
    assert len(turned_off) == 1 and len(logs) == 1
    with (
        chat_session.async_get_chat_session(hass, result.conversation_id) as session,
        conversation.async_get_chat_log(hass, session) as chat_log,
    ):
        replies = [c for c in chat_log.content if isinstance(c, conversation.AssistantContent)]
    assert [c.content for c in replies] == ["Turned off the light"]


async def test_server_down_apologises(
    hass: HomeAssistant,
    server: FakeMnemolis,
    init_integration: MockConfigEntry,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Server gone: a spoken apology and a logged reason; the pipeline never sees a raise."""
    await server.stop()
    with caplog.at_level(logging.WARNING):
        result = await _ask(hass, "Is the garage door open?")
    assert result.response.response_type is intent.IntentResponseType.ERROR
    assert result.response.error_code is intent.IntentResponseErrorCode.FAILED_TO_HANDLE
    assert _speech(result) == APOLOGY
    assert "Mnemolis could not answer" in caplog.text
    assert "Cannot reach the Mnemolis server" in caplog.text


async def test_the_agent_apologises_in_the_askers_language(
    hass: HomeAssistant, server: FakeMnemolis, init_integration: MockConfigEntry
) -> None:
    """A German Assist pipeline heard "Sorry, I could not get an answer" in English;
    the agent's own replies come from the integration's translations."""
    result = await conversation.async_converse(
        hass, "Warum " * 1000, None, Context(), language="de-CH", agent_id=AGENT
    )
    assert _speech(result).startswith("Entschuldige, diese Frage ist zu lang für Mnemolis (")
    await server.stop()
    result = await conversation.async_converse(
        hass, "Ist das Garagentor offen?", None, Context(), language="de", agent_id=AGENT
    )
    assert result.response.error_code is intent.IntentResponseErrorCode.FAILED_TO_HANDLE
    assert _speech(result) == "Entschuldige, ich konnte gerade keine Antwort von Mnemolis bekommen."
    result = await conversation.async_converse(
        hass, "Il garage è aperto?", None, Context(), language="it", agent_id=AGENT
    )
    assert _speech(result).startswith("Spiacente, al momento non è stato possibile")
    result = await conversation.async_converse(
        hass, "A garagem está aberta?", None, Context(), language="pt", agent_id=AGENT
    )
    assert _speech(result).startswith("Lamento, neste momento não foi possível")
    # A Brazilian pipeline hears the Portuguese; a language without a file, English.
    result = await conversation.async_converse(
        hass, "A garagem está aberta?", None, Context(), language="pt-BR", agent_id=AGENT
    )
    assert _speech(result).startswith("Lamento, neste momento não foi possível")
    result = await conversation.async_converse(
        hass, "Czy brama garażowa jest otwarta?", None, Context(), language="pl", agent_id=AGENT
    )
    assert _speech(result) == APOLOGY


async def test_empty_answer_apologises(
    hass: HomeAssistant, server: FakeMnemolis, init_integration: MockConfigEntry
) -> None:
    """An answer with no text at all is treated as a failure, not read out as silence."""
    server.answers.insert(0, Answer(trigger="silence", source="web", result=""))
    result = await _ask(hass, "What is the sound of silence?")
    assert result.response.response_type is intent.IntentResponseType.ERROR
    assert _speech(result) == APOLOGY


async def test_response_length_option(
    hass: HomeAssistant, server: FakeMnemolis, init_integration: MockConfigEntry
) -> None:
    """Short answers for voice: one sentence."""
    hass.config_entries.async_update_entry(
        init_integration, options={CONF_RESPONSE_LENGTH: "short"}
    )
    result = await _ask(hass, "Until when does the dishwasher warranty run?")
    assert _speech(result) == "The dishwasher warranty runs until March 2027."
    hass.config_entries.async_update_entry(init_integration, options={CONF_RESPONSE_LENGTH: "full"})
    result = await _ask(hass, "Until when does the dishwasher warranty run?")
    assert _speech(result) == "The dishwasher warranty runs until March 2027. Keep the receipt."
    # "full" speaks the whole result, not the shorter spoken form.
    result = await _ask(hass, "Is the garage door open?")
    assert _speech(result) == "The garage door (cover.garage_door) is open. It opened at 07:42."


async def test_local_model_phrasing(
    hass: HomeAssistant, server: FakeMnemolis, init_integration: MockConfigEntry
) -> None:
    """With the option on, the server's model words the answer; without a model, the router's."""
    hass.config_entries.async_update_entry(
        init_integration, options={CONF_USE_LOCAL_MODEL: True, CONF_RESPONSE_LENGTH: "medium"}
    )
    result = await _ask(hass, "Is the garage door open?")
    assert _speech(result) == "The garage door is open. It opened at 07:42."
    assert server.requests[-1][1] == "/v1/chat/completions"

    server.model_loaded = True
    result = await _ask(hass, "Is the garage door open?")
    assert _speech(result) == "In short: The garage door is open. It opened at 07:42."


def test_shorten() -> None:
    """Cuts at sentence ends, and at a word end when one sentence is too long."""
    text = "One. Two! Three? Four."
    assert shorten(text, "short") == "One."
    assert shorten(text, "medium") == "One. Two! Three?"
    assert shorten(text, "full") == text
    long_sentence = "word " * 80
    short = shorten(long_sentence, "short")
    assert short.endswith("…") and len(short) <= 201
    assert shorten("  spaced\n\nout  ", "short") == "spaced out"


async def test_assist_pipeline_run(
    hass: HomeAssistant,
    server: FakeMnemolis,
    init_integration: MockConfigEntry,
    hass_ws_client: WebSocketGenerator,
) -> None:
    """A text Assist pipeline whose conversation engine is Mnemolis answers with its speech."""
    assert await async_setup_component(hass, "assist_pipeline", {})
    client = await hass_ws_client(hass)
    await client.send_json_auto_id(
        {
            "type": "assist_pipeline/pipeline/create",
            "conversation_engine": AGENT,
            "conversation_language": "en",
            "language": "en",
            "name": "Mnemolis",
            "stt_engine": None,
            "stt_language": None,
            "tts_engine": None,
            "tts_language": None,
            "tts_voice": None,
            "wake_word_entity": None,
            "wake_word_id": None,
        }
    )
    created = await client.receive_json()
    assert created["success"], created
    pipeline_id = created["result"]["id"]

    await client.send_json_auto_id(
        {
            "type": "assist_pipeline/run",
            "start_stage": "intent",
            "end_stage": "intent",
            "input": {"text": "Is the garage door open?"},
            "pipeline": pipeline_id,
        }
    )
    assert (await client.receive_json())["success"]
    events: dict[str, dict] = {}
    while "run-end" not in events:
        msg = await client.receive_json()
        events[msg["event"]["type"]] = msg["event"]["data"]
    assert "error" not in events
    assert events["intent-start"]["engine"] == AGENT
    speech = events["intent-end"]["intent_output"]["response"]["speech"]["plain"]["speech"]
    assert speech == "The garage door is open. It opened at 07:42."
    assert server.requests[-1][1] == "/search"


async def test_the_agent_declares_the_languages_the_server_reads(
    hass: HomeAssistant, server: FakeMnemolis, init_integration: MockConfigEntry
) -> None:
    """Assist offers the agent for every language the server lists (HA's grammar)."""
    agent = conversation.async_get_agent(hass, AGENT)
    assert agent is not None
    assert agent.supported_languages == ["de", "en", "fr", "nl"]
    server.languages = None  # an older server lists none: English only
    await init_integration.runtime_data.coordinator.async_refresh()
    assert agent.supported_languages == ["en"]


async def test_the_language_and_the_room_that_heard_it_are_sent(
    hass: HomeAssistant, server: FakeMnemolis, init_integration: MockConfigEntry
) -> None:
    """A German pipeline, a satellite in the kitchen: the server reads German, "in here"."""
    from homeassistant.helpers import area_registry as ar
    from homeassistant.helpers import device_registry as dr

    kitchen = ar.async_get(hass).async_create("Kitchen")
    satellite = dr.async_get(hass).async_get_or_create(
        config_entry_id=init_integration.entry_id, identifiers={("test", "satellite-1")}
    )
    dr.async_get(hass).async_update_device(satellite.id, area_id=kitchen.id)
    await conversation.async_converse(
        hass,
        "Ist das Licht hier an?",
        None,
        Context(),
        language="de",
        agent_id=AGENT,
        device_id=satellite.id,
    )
    _, path, body = server.requests[-1]
    assert path == "/search"
    assert body["language"] == "de" and body["area"] == kitchen.id
    await _ask(hass, "Is the light on?")
    body = server.requests[-1][2]
    assert body["language"] == "en" and "area" not in body
