"""An LLM API so other conversation agents (OpenAI, Ollama, …) can use Mnemolis as a tool."""

from __future__ import annotations

from collections.abc import Callable

import voluptuous as vol
from homeassistant.core import HomeAssistant, callback
from homeassistant.helpers import llm
from homeassistant.util.json import JsonObjectType

from .api import MnemolisError
from .const import DEFAULT_NAME, DOMAIN, SEARCH_MODES, SOURCE_NAMES
from .coordinator import MnemolisConfigEntry
from .services import async_search, device_area, translate_error

API_PROMPT = (
    "You can look things up with Mnemolis, the home's knowledge router. Call "
    "`search_knowledge` with the user's whole question, unsplit: it routes to Home "
    "Assistant states, the weather forecast, news, web search, offline encyclopedias, "
    "service monitors, recent changes and the household's own documents, and answers "
    "with citations. Call `recall` to look up things the household asked to remember. "
    "Answer from what the tools return and say when they found nothing."
)


def api_id(entry: MnemolisConfigEntry) -> str:
    """One API per server, stable across restarts."""
    return f"{DOMAIN}-{entry.entry_id}"


class SearchKnowledgeTool(llm.Tool):
    """Ask Mnemolis' router one question."""

    name = "search_knowledge"
    description = (
        "Answer a question from the home's knowledge sources (Home Assistant states, "
        "forecast, news, web, offline wiki, monitors, documents, memories). "
        "Pass the whole question; returns the answer, who answered and citations."
    )
    parameters = vol.Schema(
        {
            vol.Required("query", description="The user's whole question"): str,
            vol.Optional("source", description="auto (default) lets the router choose"): vol.In(
                [*SEARCH_MODES, *SOURCE_NAMES]
            ),
        }
    )

    def __init__(self, entry: MnemolisConfigEntry) -> None:
        self.entry = entry

    async def async_call(
        self, hass: HomeAssistant, tool_input: llm.ToolInput, llm_context: llm.LLMContext
    ) -> JsonObjectType:
        """Route the question; answer, provenance and citations."""
        args = tool_input.tool_args
        body = await async_search(
            self.entry,
            args["query"],
            source=args.get("source"),
            language=llm_context.language,
            area=device_area(hass, llm_context.device_id),
        )
        return {
            "answer": body.get("result", ""),
            "source_used": body.get("source_used"),
            "fallback": bool(body.get("fallback")),
            "citations": list(body.get("citations") or []),
        }


class RecallTool(llm.Tool):
    """Search what the household asked Mnemolis to remember."""

    name = "recall"
    description = "Search the household's saved memories (notes, preferences, rules)."
    parameters = vol.Schema(
        {
            vol.Required("query", description="What to look for"): str,
            vol.Optional("tags", description="Only memories with one of these tags"): [str],
            vol.Optional("limit", description="How many results (1-20)"): vol.All(
                vol.Coerce(int), vol.Range(min=1, max=20)
            ),
        }
    )

    def __init__(self, entry: MnemolisConfigEntry) -> None:
        self.entry = entry

    async def async_call(
        self, hass: HomeAssistant, tool_input: llm.ToolInput, llm_context: llm.LLMContext
    ) -> JsonObjectType:
        """Search memories."""
        args = tool_input.tool_args
        try:
            return await self.entry.runtime_data.client.recall(
                args["query"], tags=args.get("tags"), limit=args.get("limit", 5)
            )
        except MnemolisError as err:
            raise translate_error(self.entry, err) from err


class MnemolisLLMApi(llm.API):
    """Mnemolis as a tool set for LLM conversation agents."""

    def __init__(self, hass: HomeAssistant, entry: MnemolisConfigEntry) -> None:
        super().__init__(hass=hass, id=api_id(entry), name=api_label(entry))
        self.entry = entry

    async def async_get_api_instance(self, llm_context: llm.LLMContext) -> llm.APIInstance:
        """The prompt and the two tools."""
        return llm.APIInstance(
            api=self,
            api_prompt=API_PROMPT,
            llm_context=llm_context,
            tools=[SearchKnowledgeTool(self.entry), RecallTool(self.entry)],
        )


def api_label(entry: MnemolisConfigEntry) -> str:
    """What an agent's settings list: the entry's title, which tells two servers apart."""
    return entry.title or DEFAULT_NAME


@callback
def async_register_llm_api(hass: HomeAssistant, entry: MnemolisConfigEntry) -> Callable[[], None]:
    """Register the entry's API; the returned callback unregisters it.

    The label follows the entry's title when the user renames the entry.
    """
    api = MnemolisLLMApi(hass, entry)
    unregister = llm.async_register_api(hass, api)

    async def _renamed(_hass: HomeAssistant, changed: MnemolisConfigEntry) -> None:
        api.name = api_label(changed)

    remove_listener = entry.add_update_listener(_renamed)

    @callback
    def _unregister() -> None:
        remove_listener()
        unregister()

    return _unregister
