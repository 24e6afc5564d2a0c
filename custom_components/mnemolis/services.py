"""Actions that return data: search, remember, reindex (registered once in async_setup)."""

from __future__ import annotations

from typing import Any

import voluptuous as vol
from homeassistant.config_entries import ConfigEntryState
from homeassistant.core import (
    HomeAssistant,
    ServiceCall,
    ServiceResponse,
    SupportsResponse,
    callback,
)
from homeassistant.exceptions import HomeAssistantError, ServiceValidationError
from homeassistant.helpers import config_validation as cv
from homeassistant.helpers import device_registry as dr

from .api import (
    DEFAULT_MAX_QUERY_CHARS,
    MnemolisAuthenticationError,
    MnemolisConnectionError,
    MnemolisError,
    MnemolisHostRefusedError,
    MnemolisResponseError,
)
from .const import (
    ATTR_AREA,
    ATTR_CONFIG_ENTRY_ID,
    ATTR_CONTENT,
    ATTR_DATABASE,
    ATTR_FUSION_SOURCES,
    ATTR_LANGUAGE,
    ATTR_QUERY,
    ATTR_SOURCE,
    ATTR_TAGS,
    CONF_DEFAULT_SOURCE,
    CONF_FUSION_SOURCES,
    DEFAULT_SOURCE,
    DOMAIN,
    SEARCH_MODES,
    SERVICE_REINDEX,
    SERVICE_REMEMBER,
    SERVICE_SEARCH,
    SOURCE_NAMES,
)
from .coordinator import MnemolisConfigEntry

SEARCH_SCHEMA = vol.Schema(
    {
        vol.Required(ATTR_CONFIG_ENTRY_ID): cv.string,
        # The length cap is the server's own (read from its stats), checked per call.
        vol.Required(ATTR_QUERY): vol.All(cv.string, vol.Length(min=1)),
        vol.Optional(ATTR_SOURCE): vol.In([*SEARCH_MODES, *SOURCE_NAMES]),
        vol.Optional(ATTR_FUSION_SOURCES): vol.All(cv.ensure_list, [vol.In(SOURCE_NAMES)]),
        vol.Optional(ATTR_LANGUAGE): cv.string,
        vol.Optional(ATTR_AREA): cv.string,
    }
)
REMEMBER_SCHEMA = vol.Schema(
    {
        vol.Required(ATTR_CONFIG_ENTRY_ID): cv.string,
        vol.Required(ATTR_CONTENT): vol.All(cv.string, vol.Length(min=1)),
        vol.Optional(ATTR_TAGS): vol.All(cv.ensure_list, [cv.string]),
    }
)
REINDEX_SCHEMA = vol.Schema(
    {
        vol.Required(ATTR_CONFIG_ENTRY_ID): cv.string,
        vol.Optional(ATTR_DATABASE): cv.string,
    }
)


def async_get_entry(hass: HomeAssistant, entry_id: str) -> MnemolisConfigEntry:
    """The loaded Mnemolis entry an action names, or a translated validation error."""
    entry: MnemolisConfigEntry | None = hass.config_entries.async_get_entry(entry_id)
    if entry is None or entry.domain != DOMAIN:
        raise ServiceValidationError(
            translation_domain=DOMAIN,
            translation_key="entry_not_found",
            translation_placeholders={"entry_id": entry_id},
        )
    if entry.state is not ConfigEntryState.LOADED:
        raise ServiceValidationError(
            translation_domain=DOMAIN,
            translation_key="entry_not_loaded",
            translation_placeholders={"title": entry.title},
        )
    return entry


def translate_error(entry: MnemolisConfigEntry, err: MnemolisError) -> HomeAssistantError:
    """A client error as the translated error an action or button raises."""
    if isinstance(err, MnemolisHostRefusedError):
        return HomeAssistantError(
            translation_domain=DOMAIN,
            translation_key="host_refused",
            translation_placeholders={"error": str(err)},
        )
    if isinstance(err, MnemolisAuthenticationError):
        if err.status == 403:
            return HomeAssistantError(translation_domain=DOMAIN, translation_key="write_forbidden")
        entry.async_start_reauth(entry.runtime_data.coordinator.hass)
        return HomeAssistantError(translation_domain=DOMAIN, translation_key="authentication_error")
    if isinstance(err, MnemolisConnectionError):
        return HomeAssistantError(
            translation_domain=DOMAIN,
            translation_key="communication_error",
            translation_placeholders={"error": str(err)},
        )
    if isinstance(err, MnemolisResponseError) and err.status in (400, 404, 413):
        return ServiceValidationError(
            translation_domain=DOMAIN,
            translation_key="invalid_request",
            translation_placeholders={"error": str(err)},
        )
    return HomeAssistantError(
        translation_domain=DOMAIN,
        translation_key="unknown_error",
        translation_placeholders={"error": str(err)},
    )


def max_query_chars(entry: MnemolisConfigEntry) -> int:
    """The server's query limit from its last stats (SPEC's 4000 until it has answered)."""
    data = entry.runtime_data.coordinator.data
    return data.max_query_chars if data is not None else DEFAULT_MAX_QUERY_CHARS


def search_target(
    entry: MnemolisConfigEntry, source: str | None, fusion_sources: list[str] | None
) -> tuple[str, list[str] | None]:
    """The source to ask: the caller's choice, else the entry's options."""
    if source is None:
        source = entry.options.get(CONF_DEFAULT_SOURCE, DEFAULT_SOURCE)
        if fusion_sources is None and source == "fusion":
            fusion_sources = entry.options.get(CONF_FUSION_SOURCES) or None
    if fusion_sources and source != "fusion":
        raise ServiceValidationError(
            translation_domain=DOMAIN,
            translation_key="fusion_sources_need_fusion",
            translation_placeholders={"source": source},
        )
    return source, fusion_sources or None


@callback
def device_area(hass: HomeAssistant, device_id: str | None) -> str | None:
    """The area of the device that heard a question (a voice satellite): "in here"."""
    if not device_id:
        return None
    device = dr.async_get(hass).async_get(device_id)
    return device.area_id if device is not None else None


async def async_search(
    entry: MnemolisConfigEntry,
    query: str,
    *,
    source: str | None = None,
    fusion_sources: list[str] | None = None,
    conversation_id: str | None = None,
    language: str | None = None,
    area: str | None = None,
) -> dict[str, Any]:
    """Ask the router; the full ``POST /search`` body."""
    limit = max_query_chars(entry)
    if len(query) > limit:
        raise ServiceValidationError(
            translation_domain=DOMAIN,
            translation_key="query_too_long",
            translation_placeholders={"length": str(len(query)), "limit": str(limit)},
        )
    source, fusion_sources = search_target(entry, source, fusion_sources)
    try:
        return await entry.runtime_data.client.search(
            query,
            source=source,
            fusion_sources=fusion_sources,
            conversation_id=conversation_id,
            language=language,
            area=area,
        )
    except MnemolisError as err:
        raise translate_error(entry, err) from err


async def async_reindex(entry: MnemolisConfigEntry, database: str | None) -> dict[str, Any]:
    """Reindex one database, or every registered one."""
    client = entry.runtime_data.client
    try:
        names = [database] if database else await client.databases()
        for name in names:
            await client.reindex(name)
    except MnemolisError as err:
        raise translate_error(entry, err) from err
    return {"reindexed": names}


async def _search_service(call: ServiceCall) -> ServiceResponse:
    entry = async_get_entry(call.hass, call.data[ATTR_CONFIG_ENTRY_ID])
    body = await async_search(
        entry,
        call.data[ATTR_QUERY],
        source=call.data.get(ATTR_SOURCE),
        fusion_sources=call.data.get(ATTR_FUSION_SOURCES),
        language=call.data.get(ATTR_LANGUAGE),
        area=call.data.get(ATTR_AREA),
    )
    return {
        "result": body.get("result", ""),
        "spoken": body.get("spoken") or body.get("result", ""),
        "source_used": body.get("source_used"),
        "fallback": bool(body.get("fallback")),
        "citations": list(body.get("citations") or []),
        "elapsed_ms": body.get("elapsed_ms"),
    }


async def _remember_service(call: ServiceCall) -> ServiceResponse:
    entry = async_get_entry(call.hass, call.data[ATTR_CONFIG_ENTRY_ID])
    try:
        memory = await entry.runtime_data.client.remember(
            call.data[ATTR_CONTENT], call.data.get(ATTR_TAGS)
        )
    except MnemolisError as err:
        raise translate_error(entry, err) from err
    return {"memory": memory}


async def _reindex_service(call: ServiceCall) -> ServiceResponse:
    entry = async_get_entry(call.hass, call.data[ATTR_CONFIG_ENTRY_ID])
    result = await async_reindex(entry, call.data.get(ATTR_DATABASE))
    await entry.runtime_data.coordinator.async_request_refresh()
    return result


@callback
def async_setup_services(hass: HomeAssistant) -> None:
    """Register the three actions (quality rule action-setup: in async_setup)."""
    hass.services.async_register(
        DOMAIN,
        SERVICE_SEARCH,
        _search_service,
        schema=SEARCH_SCHEMA,
        supports_response=SupportsResponse.ONLY,
    )
    hass.services.async_register(
        DOMAIN,
        SERVICE_REMEMBER,
        _remember_service,
        schema=REMEMBER_SCHEMA,
        supports_response=SupportsResponse.OPTIONAL,
    )
    hass.services.async_register(
        DOMAIN,
        SERVICE_REINDEX,
        _reindex_service,
        schema=REINDEX_SCHEMA,
        supports_response=SupportsResponse.OPTIONAL,
    )
