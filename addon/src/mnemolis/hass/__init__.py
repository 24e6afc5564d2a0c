"""Home Assistant access shared by the ha, forecast and changes sources."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import ConfigError, SourceNotConfigured
from .client import SUPERVISOR_WS_URL, HAClient, websocket_url
from .matching import AreaMatch, EntityMatch

if TYPE_CHECKING:
    from ..settings import Settings
    from ..sources.base import SourceDeps


@dataclass(slots=True, frozen=True)
class Connection:
    """Where to connect and with which token (never logged)."""

    ws_url: str
    token: str
    via_supervisor: bool


def resolve_connection(
    settings: Settings, environ: Mapping[str, str] | None = None
) -> Connection | None:
    """URL + token from settings, else the Supervisor's token in the add-on, else None."""
    env = os.environ if environ is None else environ
    url = settings.ha.url
    token = settings.ha.token.get_secret_value() if settings.ha.token else ""
    if url and token:
        try:
            return Connection(websocket_url(url), token, via_supervisor=False)
        except ValueError as err:
            raise ConfigError(f"invalid setting ha.url={url!r}: {err}") from None
    supervisor_token = env.get("SUPERVISOR_TOKEN", "")
    if supervisor_token and (settings.addon or not url):
        return Connection(SUPERVISOR_WS_URL, supervisor_token, via_supervisor=True)
    return None


def ha_configured(settings: Settings, environ: Mapping[str, str] | None = None) -> bool:
    """Whether HA access is set up (a wrong ha.url still counts: the source says why).

    Asked on every question, so it only looks at what ``resolve_connection``
    would use and never parses the URL.
    """
    env = os.environ if environ is None else environ
    url = settings.ha.url
    if url and settings.ha.token and settings.ha.token.get_secret_value():
        return True
    return bool(env.get("SUPERVISOR_TOKEN", "")) and (settings.addon or not url)


def shared_client(deps: SourceDeps) -> HAClient | None:
    """The one HAClient of this process (created on first use), or None if not configured."""
    existing = deps.services.ha
    if isinstance(existing, HAClient):
        return existing
    try:
        conn = resolve_connection(deps.settings)
    except ConfigError as err:
        raise SourceNotConfigured(err.message) from None
    if conn is None:
        return None
    client = HAClient(deps.session, conn.ws_url, conn.token)
    deps.services.ha = client
    return client


class ClientHold:
    """One source's hold on the shared HAClient: taken on first use, released once on stop."""

    def __init__(self, deps: SourceDeps) -> None:
        self._deps = deps
        self.client: HAClient | None = None

    def take(self) -> HAClient | None:
        """The shared client (counted as one more user the first time), or None if no HA."""
        if self.client is None:
            client = shared_client(self._deps)
            if client is not None:
                self.client = client.acquire()
        return self.client

    async def release(self) -> None:
        """Let go of the client (the last user stops it); a second call does nothing."""
        if self.client is not None:
            client, self.client = self.client, None
            await client.release()


__all__ = [
    "AreaMatch",
    "ClientHold",
    "Connection",
    "EntityMatch",
    "HAClient",
    "ha_configured",
    "resolve_connection",
    "shared_client",
    "websocket_url",
]
