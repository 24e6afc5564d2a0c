"""One connectivity sensor per source: can Mnemolis reach that backend right now?"""

from __future__ import annotations

from typing import Any

from homeassistant.components.binary_sensor import (
    BinarySensorDeviceClass,
    BinarySensorEntity,
    BinarySensorEntityDescription,
)
from homeassistant.const import EntityCategory
from homeassistant.core import HomeAssistant, callback
from homeassistant.helpers.entity_platform import AddConfigEntryEntitiesCallback

from .api import SourceState
from .const import SOURCE_NAMES
from .coordinator import MnemolisConfigEntry, MnemolisCoordinator
from .entity import MnemolisEntity

PARALLEL_UPDATES = 0


async def async_setup_entry(
    hass: HomeAssistant,
    entry: MnemolisConfigEntry,
    async_add_entities: AddConfigEntryEntitiesCallback,
) -> None:
    """Add a sensor per source now, and for sources a server upgrade adds later."""
    coordinator = entry.runtime_data.coordinator
    known: set[str] = set()

    @callback
    def _add_new_sources() -> None:
        if not coordinator.last_update_success:
            return
        new = [name for name in coordinator.data.sources if name not in known]
        if not new:
            return
        known.update(new)
        async_add_entities(MnemolisSourceSensor(coordinator, name) for name in new)

    _add_new_sources()
    entry.async_on_unload(coordinator.async_add_listener(_add_new_sources))


class MnemolisSourceSensor(MnemolisEntity, BinarySensorEntity):
    """On while the source is configured and healthy."""

    def __init__(self, coordinator: MnemolisCoordinator, source: str) -> None:
        state = coordinator.data.sources[source]
        description = BinarySensorEntityDescription(
            key=f"source_{source}",
            translation_key=f"source_{source}" if source in SOURCE_NAMES else "source",
            translation_placeholders={"source": source},
            device_class=BinarySensorDeviceClass.CONNECTIVITY,
            entity_category=EntityCategory.DIAGNOSTIC,
            # Sources that are not set up on the server are noise until they are.
            entity_registry_enabled_default=state.configured,
        )
        super().__init__(coordinator, description)
        self.source = source

    @property
    def _state(self) -> SourceState | None:
        return self.coordinator.data.sources.get(self.source)

    @property
    def available(self) -> bool:
        """Unavailable when the server is, or stops reporting this source."""
        return super().available and self._state is not None

    @property
    def is_on(self) -> bool | None:
        """Connected: configured and healthy."""
        state = self._state
        return state is not None and state.configured and state.healthy

    @property
    def extra_state_attributes(self) -> dict[str, Any]:
        """Whether the source is set up, and why it last failed."""
        state = self._state
        if state is None:
            return {}
        return {"configured": state.configured, "last_error": state.last_error}
