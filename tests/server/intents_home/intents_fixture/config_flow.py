"""The fixture home's config entry, created by import at start."""

from __future__ import annotations

from typing import Any

from homeassistant.config_entries import ConfigFlow, ConfigFlowResult

from . import DOMAIN


class FixtureFlow(ConfigFlow, domain=DOMAIN):
    """Created once, by the integration itself."""

    VERSION = 1

    async def async_step_import(self, import_data: dict[str, Any]) -> ConfigFlowResult:
        """The one entry that carries the satellites."""
        await self.async_set_unique_id(DOMAIN)
        self._abort_if_unique_id_configured()
        return self.async_create_entry(title="Intents fixture home", data={})
