"""A button that rebuilds every document database's index on the server."""

from __future__ import annotations

from homeassistant.components.button import ButtonEntity, ButtonEntityDescription
from homeassistant.const import EntityCategory
from homeassistant.core import HomeAssistant
from homeassistant.helpers.entity_platform import AddConfigEntryEntitiesCallback

from .coordinator import MnemolisConfigEntry
from .entity import MnemolisEntity
from .services import async_reindex

PARALLEL_UPDATES = 1

REINDEX = ButtonEntityDescription(
    key="reindex",
    translation_key="reindex",
    entity_category=EntityCategory.CONFIG,
)


async def async_setup_entry(
    hass: HomeAssistant,
    entry: MnemolisConfigEntry,
    async_add_entities: AddConfigEntryEntitiesCallback,
) -> None:
    """The reindex button."""
    async_add_entities([MnemolisReindexButton(entry.runtime_data.coordinator, REINDEX)])


class MnemolisReindexButton(MnemolisEntity, ButtonEntity):
    """Reindex all databases, e.g. after copying many files into a watched folder."""

    async def async_press(self) -> None:
        """Reindex; errors surface as translated HomeAssistantErrors."""
        await async_reindex(self.coordinator.config_entry, None)
        await self.coordinator.async_request_refresh()
