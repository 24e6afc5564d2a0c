"""Sensors: how much Mnemolis is asked, how fast it answers, who answered last."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from homeassistant.components.sensor import (
    SensorDeviceClass,
    SensorEntity,
    SensorEntityDescription,
    SensorStateClass,
)
from homeassistant.const import EntityCategory, UnitOfTime
from homeassistant.core import HomeAssistant
from homeassistant.helpers.entity_platform import AddConfigEntryEntitiesCallback
from homeassistant.util import dt as dt_util

from .api import MnemolisStats
from .const import SOURCE_NAMES
from .coordinator import MnemolisConfigEntry
from .entity import MnemolisEntity

PARALLEL_UPDATES = 0

# "fusion" when several sources answered together, "none" when nobody could.
LAST_SOURCE_OPTIONS = [*SOURCE_NAMES, "fusion", "none"]

type SensorValue = int | float | str | datetime | None


@dataclass(frozen=True, kw_only=True)
class MnemolisSensorDescription(SensorEntityDescription):
    """A sensor and how to read its value from the stats."""

    value_fn: Callable[[MnemolisStats], SensorValue]


def _last_source(stats: MnemolisStats) -> str | None:
    value = stats.last_source
    if value is None:
        return None
    if value in LAST_SOURCE_OPTIONS:
        return value
    # A fused answer may name its sources ("forecast+ha"); the enum says fusion.
    return "fusion" if any(sep in value for sep in "+, ") else None


def _last_query(stats: MnemolisStats) -> datetime | None:
    if stats.last_query_at is None:
        return None
    return dt_util.utc_from_timestamp(stats.last_query_at)


SENSORS: tuple[MnemolisSensorDescription, ...] = (
    MnemolisSensorDescription(
        key="queries",
        translation_key="queries",
        state_class=SensorStateClass.TOTAL_INCREASING,
        value_fn=lambda s: s.queries_total,
    ),
    MnemolisSensorDescription(
        key="failed_queries",
        translation_key="failed_queries",
        state_class=SensorStateClass.TOTAL_INCREASING,
        entity_category=EntityCategory.DIAGNOSTIC,
        entity_registry_enabled_default=False,
        value_fn=lambda s: s.queries_failed,
    ),
    MnemolisSensorDescription(
        key="last_source",
        translation_key="last_source",
        device_class=SensorDeviceClass.ENUM,
        options=LAST_SOURCE_OPTIONS,
        value_fn=_last_source,
    ),
    MnemolisSensorDescription(
        key="latency",
        translation_key="latency",
        device_class=SensorDeviceClass.DURATION,
        native_unit_of_measurement=UnitOfTime.MILLISECONDS,
        state_class=SensorStateClass.MEASUREMENT,
        suggested_display_precision=0,
        value_fn=lambda s: s.latency_ms_avg,
    ),
    MnemolisSensorDescription(
        key="documents_indexed",
        translation_key="documents_indexed",
        state_class=SensorStateClass.MEASUREMENT,
        value_fn=lambda s: s.documents_indexed,
    ),
    MnemolisSensorDescription(
        key="last_query",
        translation_key="last_query",
        device_class=SensorDeviceClass.TIMESTAMP,
        entity_category=EntityCategory.DIAGNOSTIC,
        value_fn=_last_query,
    ),
)


async def async_setup_entry(
    hass: HomeAssistant,
    entry: MnemolisConfigEntry,
    async_add_entities: AddConfigEntryEntitiesCallback,
) -> None:
    """One sensor per description."""
    coordinator = entry.runtime_data.coordinator
    async_add_entities(MnemolisSensor(coordinator, description) for description in SENSORS)


class MnemolisSensor(MnemolisEntity, SensorEntity):
    """A number or name from the server's stats."""

    entity_description: MnemolisSensorDescription

    @property
    def native_value(self) -> SensorValue:
        """Read the value from the latest stats."""
        return self.entity_description.value_fn(self.coordinator.data)
