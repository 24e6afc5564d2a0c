"""The base entity: every Mnemolis entity lives on the server's one device."""

from __future__ import annotations

from homeassistant.const import CONF_URL
from homeassistant.helpers.device_registry import DeviceEntryType, DeviceInfo
from homeassistant.helpers.entity import EntityDescription
from homeassistant.helpers.update_coordinator import CoordinatorEntity

from .const import DEFAULT_NAME, DOMAIN
from .coordinator import MnemolisConfigEntry, MnemolisCoordinator


def device_identifier(entry: MnemolisConfigEntry) -> str:
    """The device of an entry is keyed by the server's instance id."""
    return entry.unique_id or entry.entry_id


def server_version(coordinator: MnemolisCoordinator) -> str | None:
    """The server's version once it has answered (None while it never has)."""
    return coordinator.data.version if coordinator.data is not None else None


def device_info(entry: MnemolisConfigEntry, version: str | None) -> DeviceInfo:
    """One service device per server."""
    return DeviceInfo(
        identifiers={(DOMAIN, device_identifier(entry))},
        name=entry.title or DEFAULT_NAME,
        manufacturer="Mnemolis",
        model="Knowledge router",
        sw_version=version,
        configuration_url=entry.data[CONF_URL],
        entry_type=DeviceEntryType.SERVICE,
    )


class MnemolisEntity(CoordinatorEntity[MnemolisCoordinator]):
    """Named after its description's translation key, available while stats arrive."""

    _attr_has_entity_name = True

    def __init__(
        self,
        coordinator: MnemolisCoordinator,
        description: EntityDescription,
    ) -> None:
        super().__init__(coordinator)
        entry = coordinator.config_entry
        self.entity_description = description
        self._attr_unique_id = f"{device_identifier(entry)}_{description.key}"
        self._attr_device_info = device_info(entry, server_version(coordinator))
