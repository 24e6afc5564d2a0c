"""Diagnostics: the entry, its options and the latest stats, with secrets redacted."""

from __future__ import annotations

import re
from typing import Any

from homeassistant.components.diagnostics import REDACTED, async_redact_data
from homeassistant.const import CONF_API_KEY, CONF_URL
from homeassistant.core import HomeAssistant

from .coordinator import MnemolisConfigEntry

TO_REDACT = {CONF_API_KEY, CONF_URL, "host", "configuration_url"}
_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+", re.IGNORECASE)


def _redact_urls(value: Any) -> Any:
    """Source errors often quote a backend's URL; keep the message, drop the URL."""
    if isinstance(value, str):
        return _URL.sub(REDACTED, value)
    if isinstance(value, dict):
        return {k: _redact_urls(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_redact_urls(v) for v in value]
    return value


async def async_get_config_entry_diagnostics(
    hass: HomeAssistant, entry: MnemolisConfigEntry
) -> dict[str, Any]:
    """What a bug report needs, without the key or where the server and backends live."""
    coordinator = entry.runtime_data.coordinator
    return {
        "entry": {
            "title": entry.title,
            "data": async_redact_data(dict(entry.data), TO_REDACT),
            "options": dict(entry.options),
        },
        "integration_version": entry.runtime_data.integration_version,
        "last_update_success": coordinator.last_update_success,
        "stats": (
            _redact_urls(async_redact_data(coordinator.data.raw, TO_REDACT))
            if coordinator.data is not None
            else None
        ),
    }
