"""The conversation agent: Assist and voice pipelines ask Mnemolis' router."""

from __future__ import annotations

import inspect
import re
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Literal

from homeassistant.components import conversation
from homeassistant.core import HomeAssistant, callback
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import intent, translation
from homeassistant.helpers.entity_platform import AddConfigEntryEntitiesCallback

from .api import MnemolisError
from .const import (
    CONF_HAND_COMMANDS,
    CONF_RESPONSE_LENGTH,
    CONF_USE_LOCAL_MODEL,
    DEFAULT_HAND_COMMANDS,
    DEFAULT_RESPONSE_LENGTH,
    DOMAIN,
    LOGGER,
)
from .coordinator import MnemolisConfigEntry
from .entity import device_identifier, device_info, server_version
from .services import async_search, device_area, max_query_chars

if TYPE_CHECKING:
    from hassil.recognize import RecognizeResult

PARALLEL_UPDATES = 0

# What a server that does not list its languages (an older one) answers in.
SUPPORTED_LANGUAGES = ["en"]

# Sentences and characters a spoken answer may use, per response-length option.
LENGTH_LIMITS: dict[str, tuple[int, int]] = {"short": (1, 200), "medium": (3, 500)}

# Home Assistant's question intents: the server reads these sentences itself and answers
# them with its sources. Any other intent Home Assistant recognises is a command for it.
ANSWERED_BY_MNEMOLIS = frozenset(
    {
        intent.INTENT_GET_STATE,
        intent.INTENT_GET_TEMPERATURE,
        intent.INTENT_GET_CURRENT_DATE,
        intent.INTENT_GET_CURRENT_TIME,
        "HassGetWeather",
    }
)

# The integration's own replies, in English; translations/<language>.json says them in
# the asker's language (the ``exceptions`` keys named beside them).
APOLOGY = "Sorry, I could not get an answer from Mnemolis right now."
APOLOGY_KEY = "no_answer_now"
TOO_LONG = "Sorry, that question is too long for Mnemolis ({length} characters, at most {limit})."
TOO_LONG_KEY = "question_too_long"
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+")
# Sentences that only lead into an answer: a verdict on a condition, a bare yes/no.
# They never count against the sentence limit, and an answer never ends on one.
_LEAD_IN = re.compile(
    r"^(?:condition (?:not )?met:|i could not check whether|i couldn't check whether"
    r"|so this does not apply|(?:yes|no)[.!]$|.*, so that doesn't apply for now\.$)",
    re.IGNORECASE,
)
# A code block's closing fence, and the citation an older server put on its line
# ("``` [1, mnemolis-docs: …]"): the fence still closes the block.
_FENCE_END = r"^[ \t]*\1[ \t]*(?:\[\d{1,3}(?:,[^\]\n]*)?\][ \t]*)?$\n?"
_CODE_FENCE = re.compile(r"^[ \t]*(```|~~~).*?" + _FENCE_END, re.MULTILINE | re.DOTALL)
# Words leading into a fence ("Claude Code:"), and the block's first line.
_LED_CODE = re.compile(
    r":[ \t]*\n\s*(```|~~~)[^\n]*\n[ \t]*([^\n]*)\n.*?" + _FENCE_END,
    re.MULTILINE | re.DOTALL,
)
# The server's citation markers: "[1]", "[2, mnemolis-docs: connect-claude-desktop.md]".
_CITATION = re.compile(r"\s*\[\d{1,3}(?:,[^\]\n]*)?\]")
# A shell command: a program's name and its arguments; not YAML ("mnemolis:") or JSON.
_COMMAND = re.compile(r"[a-z.][\w.+/-]*(?:\s+[^\s#][^#]*)?(?:\s#.*)?")
_MD_LINK = re.compile(r"!?\[([^\]]*)\]\([^)\s]*\)")
# A placeholder host as the docs write it ("http://<host>:8888/") is part of the URL.
_URL_BODY = r"https?://(?:<[\w-]+>)?[^\s<>\"'()\[\]]*[^\s<>\"'()\[\].,;:!?]"
# A URL alone in brackets goes with its brackets; otherwise only the URL itself,
# so the quotes and commas around it stay.
_URL = re.compile(rf"\(\s*<?{_URL_BODY}>?\s*\)|<{_URL_BODY}>|{_URL_BODY}", re.IGNORECASE)


_HOST_PORT = re.compile(r"https?://((?:<[\w-]+>|[\w.-]+):\d{2,5}(?:/\S*)?)", re.IGNORECASE)


def _said_url(match: re.Match[str]) -> str:
    """No URL is read out, except an address with a port (a server on the home's own
    network, "HOST:8888/mcp"), said without its scheme, as the server's spoken form does."""
    local = _HOST_PORT.search(match.group(0).strip("()<> \t"))
    if local is None:
        return ""
    said = re.sub(r"[<>`]", "", local.group(1)).rstrip("/")
    return f"({said})" if match.group(0).startswith("(") else said


_INTENTS_TAKE_CHAT_LOG = (
    "chat_log" in inspect.signature(conversation.async_handle_intents).parameters
)


@callback
def _answered_by_mnemolis(result: RecognizeResult) -> bool:
    """Leaves the question intents to Mnemolis (``True`` filters the match out)."""
    return result.intent.name in ANSWERED_BY_MNEMOLIS


async def async_setup_entry(
    hass: HomeAssistant,
    entry: MnemolisConfigEntry,
    async_add_entities: AddConfigEntryEntitiesCallback,
) -> None:
    """One agent per server."""
    async_add_entities([MnemolisConversationEntity(entry)])


def _command_said(match: re.Match[str]) -> str:
    """A command the words lead into is said after them, as the server's spoken form does
    ("Claude Code: claude mcp add …"); its continuation lines and comment are not."""
    line = match.group(2).strip()
    if not _COMMAND.fullmatch(line) or re.match(r"[\w.-]+:(?:\s|$)", line):
        return ": "
    return ": " + line.split(" #", 1)[0].rstrip(" \\") + ". "


def speakable(text: str) -> str:
    """The full answer as something to read aloud: no code blocks (but a command the words
    lead into), citation markers, links or URLs (but an address with a port, said without
    its scheme)."""
    text = _LED_CODE.sub(_command_said, text)
    text = _CODE_FENCE.sub(" ", text)
    text = _CITATION.sub("", text)
    text = _MD_LINK.sub(lambda m: m.group(1), text)
    text = _URL.sub(_said_url, text)
    text = text.replace("`", "")
    text = re.sub(r"[ \t]+([,.;:!?])(?![\w/])", r"\1", text)
    # Words that led into code the voice leaves out end the answer as a sentence.
    return re.sub(r":$", ".", " ".join(text.split()))


def shorten(text: str, length: str) -> str:
    """Cut an answer to the option's sentences/characters, at a sentence or word end.

    Lead-in sentences (a condition's verdict, a bare "Yes.") do not count and
    never end the cut answer, so "short" keeps a conditional's answer and no
    length leaves a "Yes." without what it is about.
    """
    text = " ".join(text.split())
    if length not in LENGTH_LIMITS:
        return text
    max_sentences, max_chars = LENGTH_LIMITS[length]
    sentences = [s for s in _SENTENCE_END.split(text) if s]
    kept: list[str] = []
    counted = lead_chars = 0
    for sentence in sentences:
        lead = bool(_LEAD_IN.match(sentence))
        if not lead and counted >= max_sentences:
            break
        if len(" ".join([*kept, sentence])) > max_chars + lead_chars + (
            len(sentence) if lead else 0
        ):
            break
        kept.append(sentence)
        if lead:
            lead_chars += len(sentence) + 1
        else:
            counted += 1
    if len(kept) < len(sentences):
        while kept and _LEAD_IN.match(kept[-1]) and any(not _LEAD_IN.match(k) for k in kept):
            kept.pop()
    if (kept and any(not _LEAD_IN.match(k) for k in kept)) or kept == sentences:
        return " ".join(kept)
    cut = text[:max_chars].rsplit(" ", 1)[0].rstrip(",;:")
    return cut + ("…" if len(cut) < len(text) else "")


class MnemolisConversationEntity(conversation.ConversationEntity):
    """Answers with the router's spoken form; never raises into the pipeline."""

    _attr_has_entity_name = True
    _attr_name = None
    _attr_supported_features = conversation.ConversationEntityFeature(0)

    def __init__(self, entry: MnemolisConfigEntry) -> None:
        self.entry = entry
        self._attr_unique_id = f"{device_identifier(entry)}_conversation"
        self._attr_device_info = device_info(entry, server_version(entry.runtime_data.coordinator))

    @property
    def supported_languages(self) -> list[str] | Literal["*"]:
        """The languages the server reads home questions in (Home Assistant's own grammar,
        as its stats list them); English from a server that does not list them."""
        stats = self.entry.runtime_data.coordinator.data
        return (
            list(stats.languages) if stats is not None and stats.languages else SUPPORTED_LANGUAGES
        )

    async def _async_handle_message(
        self,
        user_input: conversation.ConversationInput,
        chat_log: conversation.ChatLog,
    ) -> conversation.ConversationResult:
        """Send the utterance (with the conversation id) to ``POST /search``; a command
        Home Assistant's own sentences recognise is carried out by Home Assistant."""
        if self.entry.options.get(CONF_HAND_COMMANDS, DEFAULT_HAND_COMMANDS) and (
            handled := await self._carried_out(user_input, chat_log)
        ):
            speech = str(handled.speech.get("plain", {}).get("speech", ""))
            return self._reply(handled, speech, user_input, chat_log)
        response = intent.IntentResponse(language=user_input.language)
        try:
            speech = await self._answer(
                user_input.text,
                chat_log.conversation_id,
                user_input.language,
                device_area(self.hass, user_input.device_id),
            )
        except HomeAssistantError as err:
            # What a person said stays out of the log at warning level (privacy).
            LOGGER.warning("Mnemolis could not answer: %s", err)
            LOGGER.debug("unanswered utterance: %r", user_input.text)
            speech = await self._said(user_input.language, APOLOGY_KEY, APOLOGY)
            response.async_set_error(intent.IntentResponseErrorCode.FAILED_TO_HANDLE, speech)
        else:
            response.async_set_speech(speech)
        return self._reply(response, speech, user_input, chat_log)

    async def _said(
        self, language: str | None, key: str, english: str, **placeholders: object
    ) -> str:
        """One of the integration's own replies in the asker's language (``de-CH`` reads
        ``de.json``); English where it has no translation."""
        base = (language or "en").replace("_", "-").split("-")[0].lower()
        strings = await translation.async_get_translations(self.hass, base, "exceptions", {DOMAIN})
        template = strings.get(f"component.{DOMAIN}.exceptions.{key}.message") or english
        try:
            return template.format(**placeholders)
        except (KeyError, IndexError, ValueError):  # a translation that lost a placeholder
            return english.format(**placeholders)

    async def _carried_out(
        self, user_input: conversation.ConversationInput, chat_log: conversation.ChatLog
    ) -> intent.IntentResponse | None:
        """Home Assistant's reply when its own sentences recognise a command, strictly."""
        handle: Callable[..., Awaitable[intent.IntentResponse | None]]
        handle = conversation.async_handle_intents
        log = (chat_log,) if _INTENTS_TAKE_CHAT_LOG else ()
        return await handle(self.hass, user_input, *log, intent_filter=_answered_by_mnemolis)

    def _reply(
        self,
        response: intent.IntentResponse,
        speech: str,
        user_input: conversation.ConversationInput,
        chat_log: conversation.ChatLog,
    ) -> conversation.ConversationResult:
        """The answer, kept in the chat log so a follow-up sees it (once: a Home Assistant
        that handled a command may have logged its reply already)."""
        last = chat_log.content[-1] if chat_log.content else None
        if not (isinstance(last, conversation.AssistantContent) and last.content == speech):
            chat_log.async_add_assistant_content_without_tools(
                conversation.AssistantContent(agent_id=user_input.agent_id, content=speech)
            )
        return conversation.ConversationResult(
            response=response,
            conversation_id=chat_log.conversation_id,
            continue_conversation=chat_log.continue_conversation,
        )

    async def _answer(
        self, text: str, conversation_id: str, language: str | None, area: str | None
    ) -> str:
        options = self.entry.options
        limit = max_query_chars(self.entry)
        if len(text) > limit:
            return await self._said(language, TOO_LONG_KEY, TOO_LONG, length=len(text), limit=limit)
        body = await async_search(
            self.entry, text, conversation_id=conversation_id, language=language, area=area
        )
        length = options.get(CONF_RESPONSE_LENGTH, DEFAULT_RESPONSE_LENGTH)
        # The server's spoken form is already voice-friendly; "full" speaks the whole result.
        if length == "full":
            spoken = speakable(str(body.get("result") or ""))
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
