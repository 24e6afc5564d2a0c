"""The Mnemolis integration: Home Assistant's side of the Mnemolis knowledge router."""

from __future__ import annotations

from homeassistant.const import CONF_API_KEY, CONF_URL, Platform
from homeassistant.core import HomeAssistant, callback
from homeassistant.exceptions import ConfigEntryNotReady
from homeassistant.helpers import config_validation as cv
from homeassistant.helpers import device_registry as dr
from homeassistant.helpers import issue_registry as ir
from homeassistant.helpers.aiohttp_client import async_get_clientsession
from homeassistant.helpers.typing import ConfigType
from homeassistant.loader import async_get_integration

from .api import MnemolisClient, MnemolisConnectionError
from .const import DOMAIN, LOGGER, SCAN_INTERVAL
from .coordinator import (
    MnemolisConfigEntry,
    MnemolisCoordinator,
    MnemolisRuntimeData,
    version_issue_id,
)
from .entity import device_identifier
from .llm_api import async_register_llm_api
from .services import async_setup_services

PLATFORMS: list[Platform] = [
    Platform.BINARY_SENSOR,
    Platform.BUTTON,
    Platform.CONVERSATION,
    Platform.SENSOR,
]

CONFIG_SCHEMA = cv.config_entry_only_config_schema(DOMAIN)


async def async_setup(hass: HomeAssistant, config: ConfigType) -> bool:
    """Register the actions once, whether or not an entry is loaded."""
    async_setup_services(hass)
    return True


async def async_setup_entry(hass: HomeAssistant, entry: MnemolisConfigEntry) -> bool:
    """Connect to one server; loads even while the server cannot be reached.

    HA often starts before the add-on (boot, add-on update). Instead of
    ConfigEntryNotReady, which would leave no conversation agent for a voice
    pipeline to call, the entry loads: the agent exists and apologises, the
    entities are unavailable, and the coordinator polls until the server
    answers. A refused key (reauth) or a refused host name still stop set-up.
    """
    client = MnemolisClient(
        async_get_clientsession(hass), entry.data[CONF_URL], entry.data.get(CONF_API_KEY)
    )
    integration = await async_get_integration(hass, DOMAIN)
    coordinator = MnemolisCoordinator(hass, entry, client, str(integration.version))
    try:
        await coordinator.async_config_entry_first_refresh()
    except ConfigEntryNotReady as err:
        # Only an unreachable server loads anyway; one answering garbage is retried.
        cause = getattr(coordinator.last_exception, "__cause__", None)
        if not isinstance(cause, MnemolisConnectionError):
            raise
        LOGGER.warning(
            "Mnemolis server %s is not answering yet (%s); the agent apologises and the "
            "entities stay unavailable until it does (checked every %s s)",
            client.url,
            err.__cause__ or err,
            int(SCAN_INTERVAL.total_seconds()),
        )
    entry.runtime_data = MnemolisRuntimeData(
        client=client,
        coordinator=coordinator,
        integration_version=str(integration.version),
    )
    _async_track_server_version(hass, entry)
    entry.async_on_unload(async_register_llm_api(hass, entry))
    await hass.config_entries.async_forward_entry_setups(entry, PLATFORMS)
    return True


async def async_unload_entry(hass: HomeAssistant, entry: MnemolisConfigEntry) -> bool:
    """Unload platforms; the LLM API is unregistered by its unload callback."""
    return await hass.config_entries.async_unload_platforms(entry, PLATFORMS)


async def async_remove_entry(hass: HomeAssistant, entry: MnemolisConfigEntry) -> None:
    """A removed server leaves no repair issue behind."""
    ir.async_delete_issue(hass, DOMAIN, version_issue_id(entry.entry_id))


@callback
def _async_track_server_version(hass: HomeAssistant, entry: MnemolisConfigEntry) -> None:
    """Keep the device's software version equal to the server's after upgrades."""
    coordinator = entry.runtime_data.coordinator

    @callback
    def _update() -> None:
        if not coordinator.last_update_success or coordinator.data is None:
            return
        registry = dr.async_get(hass)
        device = registry.async_get_device(identifiers={(DOMAIN, device_identifier(entry))})
        if device is not None and device.sw_version != coordinator.data.version:
            registry.async_update_device(device.id, sw_version=coordinator.data.version)

    entry.async_on_unload(coordinator.async_add_listener(_update))
