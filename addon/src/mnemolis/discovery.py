"""Supervisor discovery: the add-on announces itself so HA offers to set up the integration."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import aiohttp

if TYPE_CHECKING:
    from .core import Mnemolis
    from .settings import Settings

_LOGGER = logging.getLogger(__name__)

SERVICE = "mnemolis"
DEFAULT_SUPERVISOR_URL = "http://supervisor"
# Not MNEMOLIS_-prefixed: those are settings. Tests point this at a stub Supervisor.
SUPERVISOR_URL_ENV = "SUPERVISOR_URL"
RETRY_DELAYS: tuple[float, ...] = (1, 2, 4, 8, 16, 30, 60, 60)
REQUEST_TIMEOUT = 10.0


class DiscoveryError(Exception):
    """The Supervisor refused or did not answer; retried with backoff."""


class SupervisorDiscovery:
    """Posts ``{"service": "mnemolis", "config": {host, port, api_key?}}`` to the Supervisor."""

    def __init__(
        self,
        settings: Settings,
        session: aiohttp.ClientSession,
        token: str,
        *,
        supervisor_url: str = DEFAULT_SUPERVISOR_URL,
        retry_delays: Sequence[float] = RETRY_DELAYS,
    ) -> None:
        self.settings = settings
        self.session = session
        self.base = supervisor_url.rstrip("/")
        self.retry_delays = tuple(retry_delays)
        self.uuid: str | None = None
        self._headers = {"Authorization": f"Bearer {token}"}

    async def _call(self, method: str, path: str, body: Any = None) -> Any:
        """One Supervisor API call; its ``data`` on success."""
        try:
            async with self.session.request(
                method,
                f"{self.base}{path}",
                json=body,
                headers=self._headers,
                timeout=aiohttp.ClientTimeout(total=REQUEST_TIMEOUT),
            ) as resp:
                try:
                    payload = await resp.json(content_type=None)
                except ValueError:
                    payload = None
                if resp.status >= 400 or not isinstance(payload, dict):
                    message = payload.get("message") if isinstance(payload, dict) else None
                    raise DiscoveryError(f"{method} {path}: HTTP {resp.status} {message or ''}")
                if payload.get("result") != "ok":
                    raise DiscoveryError(f"{method} {path}: {payload.get('message') or payload}")
                return payload.get("data")
        except (aiohttp.ClientError, TimeoutError) as err:
            raise DiscoveryError(f"{method} {path}: {err or type(err).__name__}") from err

    async def hostname(self) -> str:
        """The add-on's DNS name on the Supervisor network (HA core connects to it)."""
        try:
            data = await self._call("GET", "/addons/self/info")
        except DiscoveryError as err:
            _LOGGER.debug("add-on info unavailable, using the container hostname: %s", err)
            return socket.gethostname()
        name = data.get("hostname") if isinstance(data, dict) else None
        return str(name) if name else socket.gethostname()

    async def config(self) -> dict[str, Any]:
        """What HA's config flow receives (the Supervisor shows it to HA core only)."""
        config: dict[str, Any] = {"host": await self.hostname(), "port": self.settings.port}
        if self.settings.api_key is not None and self.settings.api_key.get_secret_value():
            config["api_key"] = self.settings.api_key.get_secret_value()
        return config

    async def announce(self) -> str:
        """Post the discovery message once; returns the Supervisor's discovery uuid."""
        data = await self._call(
            "POST", "/discovery", {"service": SERVICE, "config": await self.config()}
        )
        uuid = data.get("uuid") if isinstance(data, dict) else None
        self.uuid = str(uuid) if uuid else ""
        return self.uuid

    async def wait_until_serving(self, timeout: float = 30.0) -> bool:
        """Announce only once our own port answers, or HA's flow would find nothing."""
        host = self.settings.host if self.settings.host not in ("0.0.0.0", "::", "") else None
        url = f"http://{host or '127.0.0.1'}:{self.settings.port}/api/health"
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while loop.time() < deadline:
            try:
                async with self.session.get(url, timeout=aiohttp.ClientTimeout(total=2)) as resp:
                    if resp.status == 200:
                        return True
            except (aiohttp.ClientError, TimeoutError):
                pass
            await asyncio.sleep(0.2)
        return False

    async def run(self) -> bool:
        """Wait for our own API, then announce; never raises (a failure is only logged)."""
        if not await self.wait_until_serving():
            _LOGGER.warning("own API did not answer within 30s; announcing anyway")
        return await self.announce_with_retries()

    async def announce_with_retries(self) -> bool:
        """Announce, retrying with backoff; a final failure is logged, not raised."""
        delays = iter(self.retry_delays)
        while True:
            try:
                uuid = await self.announce()
            except DiscoveryError as err:
                delay = next(delays, None)
                if delay is None:
                    _LOGGER.error(
                        "Supervisor discovery failed after %d attempts: %s; "
                        "add the Mnemolis integration by hand",
                        len(self.retry_delays) + 1,
                        err,
                    )
                    return False
                _LOGGER.warning("Supervisor discovery failed (%s); retrying in %gs", err, delay)
                await asyncio.sleep(delay)
            else:
                _LOGGER.info("announced to Home Assistant through Supervisor discovery (%s)", uuid)
                return True

    async def withdraw(self) -> None:
        """Remove the announcement at shutdown (best effort)."""
        if not self.uuid:
            return
        try:
            await self._call("DELETE", f"/discovery/{self.uuid}")
        except DiscoveryError as err:
            _LOGGER.debug("could not withdraw discovery %s: %s", self.uuid, err)
        self.uuid = None


def start_discovery(core: Mnemolis, environ: Mapping[str, str] | None = None) -> bool:
    """In the add-on (``SUPERVISOR_TOKEN`` set), announce in the background; else do nothing."""
    env = os.environ if environ is None else environ
    token = env.get("SUPERVISOR_TOKEN", "")
    if not token or core.session is None:
        return False
    discovery = SupervisorDiscovery(
        core.settings,
        core.session,
        token,
        supervisor_url=env.get(SUPERVISOR_URL_ENV) or DEFAULT_SUPERVISOR_URL,
    )
    task = asyncio.create_task(discovery.run(), name="mnemolis-supervisor-discovery")
    core.services.discovery = discovery

    async def stop() -> None:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        await discovery.withdraw()

    core.on_stop(stop)
    return True
