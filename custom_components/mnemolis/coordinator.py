"""Polls the server's stats; the one place that decides whether it is reachable."""

from __future__ import annotations

from dataclasses import dataclass

from awesomeversion import AwesomeVersion, AwesomeVersionException
from homeassistant.config_entries import ConfigEntry
from homeassistant.core import HomeAssistant, callback
from homeassistant.exceptions import ConfigEntryAuthFailed, ConfigEntryError
from homeassistant.helpers import issue_registry as ir
from homeassistant.helpers.update_coordinator import DataUpdateCoordinator, UpdateFailed

from .api import (
    MnemolisAuthenticationError,
    MnemolisClient,
    MnemolisConnectionError,
    MnemolisError,
    MnemolisHostRefusedError,
    MnemolisStats,
)
from .const import DOMAIN, LOGGER, SCAN_INTERVAL


@dataclass(kw_only=True)
class MnemolisRuntimeData:
    """What a loaded entry holds: its client, coordinator and the integration version."""

    client: MnemolisClient
    coordinator: MnemolisCoordinator
    integration_version: str


type MnemolisConfigEntry = ConfigEntry[MnemolisRuntimeData]


class MnemolisCoordinator(DataUpdateCoordinator[MnemolisStats]):
    """Fetches ``/api/stats`` every 30 s for every entity of one server."""

    config_entry: MnemolisConfigEntry

    def __init__(
        self,
        hass: HomeAssistant,
        entry: MnemolisConfigEntry,
        client: MnemolisClient,
        integration_version: str,
    ) -> None:
        super().__init__(
            hass,
            LOGGER,
            config_entry=entry,
            name=entry.title,
            update_interval=SCAN_INTERVAL,
        )
        self.client = client
        self.integration_version = integration_version

    async def _async_update_data(self) -> MnemolisStats:
        """Fetch stats; map client errors to what the coordinator understands."""
        try:
            stats = await self.client.stats()
        except MnemolisHostRefusedError as err:
            # A new key cannot fix a refused host name: say what will, no reauth.
            raise ConfigEntryError(
                translation_domain=DOMAIN,
                translation_key="host_refused",
                translation_placeholders={"error": str(err)},
            ) from err
        except MnemolisAuthenticationError as err:
            raise ConfigEntryAuthFailed(
                translation_domain=DOMAIN, translation_key="authentication_error"
            ) from err
        except MnemolisConnectionError as err:
            raise UpdateFailed(
                translation_domain=DOMAIN,
                translation_key="communication_error",
                translation_placeholders={"error": str(err)},
            ) from err
        except MnemolisError as err:
            raise UpdateFailed(
                translation_domain=DOMAIN,
                translation_key="unknown_error",
                translation_placeholders={"error": str(err)},
            ) from err
        self._check_version(stats.version)
        return stats

    @callback
    def _check_version(self, server_version: str) -> None:
        """Raise a repair issue while the server's major version differs from ours."""
        issue_id = version_issue_id(self.config_entry.entry_id)
        if versions_compatible(server_version, self.integration_version):
            ir.async_delete_issue(self.hass, DOMAIN, issue_id)
            return
        ir.async_create_issue(
            self.hass,
            DOMAIN,
            issue_id,
            is_fixable=False,
            is_persistent=False,
            severity=ir.IssueSeverity.ERROR,
            translation_key="incompatible_version",
            translation_placeholders={
                "title": self.config_entry.title,
                "server_version": server_version,
                "integration_version": self.integration_version,
            },
        )


def version_issue_id(entry_id: str) -> str:
    """The repair issue an entry raises while its server's version is incompatible."""
    return f"incompatible_version_{entry_id}"


def versions_compatible(server: str, integration: str) -> bool:
    """Same major version; an unparsable server version counts as incompatible."""
    try:
        return AwesomeVersion(server).major == AwesomeVersion(integration).major
    except AwesomeVersionException:
        return False
