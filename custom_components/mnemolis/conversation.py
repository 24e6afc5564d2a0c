"""The conversation agent: Assist and voice pipelines ask Mnemolis' router."""

from __future__ import annotations

import re
from typing import Literal

from homeassistant.components import conversation
from homeassistant.const import MATCH_ALL
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import intent
from homeassistant.helpers.entity_platform import AddConfigEntryEntitiesCallback

from .api import MnemolisError
from .const import (
    CONF_RESPONSE_LENGTH,
    CONF_USE_LOCAL_MODEL,
    DEFAULT_RESPONSE_LENGTH,
    LOGGER,
)
from .coordinator import MnemolisConfigEntry
from .entity import device_identifier, device_info
from .services import async_search

PARALLEL_UPDATES = 0

# Sentences and characters a spoken answer may use, per response-length option.
LENGTH_LIMITS: dict[str, tuple[int, int]] = {"short": (1, 200), "medium": (3, 500)}

APOLOGY = "Sorry, I could not get an answer from Mnemolis right now."
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+")
_URL = re.compile(r"\(?<?\bhttps?://\S+>?\)?")


async def async_setup_entry(
    hass: HomeAssistant,
    entry: MnemolisConfigEntry,
    async_add_entities: AddConfigEntryEntitiesCallback,
) -> None:
    """One agent per server."""
    async_add_entities([MnemolisConversationEntity(entry)])


def shorten(text: str, length: str) -> str:
    """Cut an answer to the option's sentences/characters, at a sentence or word end."""
    text = " ".join(text.split())
    if length not in LENGTH_LIMITS:
        return text
    max_sentences, max_chars = LENGTH_LIMITS[length]
    sentences = _SENTENCE_END.split(text)
    out = ""
    for sentence in sentences[:max_sentences]:
        candidate = f"{out} {sentence}".strip()
        if len(candidate) > max_chars:
            break
        out = candidate
    if not out:
        cut = text[:max_chars].rsplit(" ", 1)[0].rstrip(",;:")
        out = cut + ("…" if len(cut) < len(text) else "")
    return out


class MnemolisConversationEntity(conversation.ConversationEntity):
    """Answers with the router's spoken form; never raises into the pipeline."""

    _attr_has_entity_name = True
    _attr_name = None
    _attr_supported_features = conversation.ConversationEntityFeature(0)

    def __init__(self, entry: MnemolisConfigEntry) -> None:
        self.entry = entry
        self._attr_unique_id = f"{device_identifier(entry)}_conversation"
        self._attr_device_info = device_info(entry, entry.runtime_data.coordinator.data.version)

    @property
    def supported_languages(self) -> list[str] | Literal["*"]:
        """The router answers in whatever language its sources speak."""
        return MATCH_ALL

    async def _async_handle_message(
        self,
        user_input: conversation.ConversationInput,
        chat_log: conversation.ChatLog,
    ) -> conversation.ConversationResult:
        """Send the utterance (with the conversation id) to ``POST /search``."""
        response = intent.IntentResponse(language=user_input.language)
        try:
            speech = await self._answer(user_input.text, chat_log.conversation_id)
        except HomeAssistantError as err:
            LOGGER.warning("Mnemolis could not answer %r: %s", user_input.text, err)
            response.async_set_error(intent.IntentResponseErrorCode.FAILED_TO_HANDLE, APOLOGY)
            speech = APOLOGY
        else:
            response.async_set_speech(speech)
        chat_log.async_add_assistant_content_without_tools(
            conversation.AssistantContent(agent_id=user_input.agent_id, content=speech)
        )
        return conversation.ConversationResult(
            response=response,
            conversation_id=chat_log.conversation_id,
            continue_conversation=chat_log.continue_conversation,
        )

    async def _answer(self, text: str, conversation_id: str) -> str:
        options = self.entry.options
        body = await async_search(self.entry, text, conversation_id=conversation_id)
        length = options.get(CONF_RESPONSE_LENGTH, DEFAULT_RESPONSE_LENGTH)
        # The server's spoken form is already voice-friendly; "full" speaks the whole result.
        if length == "full":
            spoken = _URL.sub("", str(body.get("result") or "")).strip()
        else:
            spoken = str(body.get("spoken") or body.get("result") or "").strip()
        if not spoken:
            raise HomeAssistantError("the server returned an empty answer")
        if options.get(CONF_USE_LOCAL_MODEL) and body.get("source_used") != "none":
            max_sentences = LENGTH_LIMITS.get(length, (6, 0))[0]
            try:
                spoken = await self.entry.runtime_data.client.rephrase(text, spoken, max_sentences)
            except MnemolisError as err:
                LOGGER.debug("local model could not phrase the answer, using the router's: %s", err)
        return shorten(spoken, length)
