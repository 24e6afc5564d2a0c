"""Access control: API keys, the Origin allow-list and Host (DNS-rebinding) checks."""

from __future__ import annotations

import functools
import hmac
import ipaddress
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING

from .errors import Forbidden, Unauthorized

if TYPE_CHECKING:
    from collections.abc import Mapping

    from .settings import Settings

# Names a browser on the LAN or the Supervisor uses to reach the server; IP
# literals are always accepted (DNS rebinding needs a hostname).
DEFAULT_HOSTS = (
    "localhost",
    "*.localhost",
    "homeassistant",
    "homeassistant.local",
    "*-mnemolis",
    "*_mnemolis",
    "mnemolis",
    "mnemolis.local",
)


def presented_key(headers: Mapping[str, str]) -> str | None:
    """The API key a request carries, as Bearer token or X-API-Key."""
    auth = headers.get("Authorization", "")
    if auth[:7].lower() == "bearer ":
        return auth[7:].strip() or None
    key = headers.get("X-API-Key", "").strip()
    return key or None


def _matches(secret: str | None, key: str) -> bool:
    return secret is not None and hmac.compare_digest(secret.encode(), key.encode())


class AccessPolicy:
    """Decides whether a request may read, write, or is refused."""

    def __init__(self, settings: Settings) -> None:
        self.full_key = settings.api_key.get_secret_value() if settings.api_key else None
        self.read_key = settings.read_api_key.get_secret_value() if settings.read_api_key else None
        self.origins = {o.rstrip("/").lower() for o in settings.allowed_origins}
        self.hosts = (*DEFAULT_HOSTS, *(h.lower() for h in settings.allowed_hosts))
        if settings.host not in ("0.0.0.0", "::", ""):
            self.hosts = (*self.hosts, settings.host.lower())

    @property
    def auth_enabled(self) -> bool:
        """Whether any key is configured."""
        return bool(self.full_key or self.read_key)

    def level(self, headers: Mapping[str, str]) -> str:
        """``write``, ``read`` or raise Unauthorized."""
        if not self.auth_enabled:
            return "write"
        key = presented_key(headers)
        if key is None:
            raise Unauthorized("missing API key: send Authorization: Bearer KEY or X-API-Key")
        if _matches(self.full_key, key):
            return "write"
        if _matches(self.read_key, key):
            return "read"
        raise Unauthorized("wrong API key")

    def require(self, headers: Mapping[str, str], access: str) -> str:
        """Check a request against a route's access level; return the caller's level."""
        if access == "public":
            return "write" if not self.auth_enabled else "public"
        level = self.level(headers)
        if access == "write" and level != "write":
            raise Forbidden("this action needs the full API key; the read key only reads")
        return level

    def check_host(self, host_header: str | None) -> None:
        """Refuse Host names not on the allow-list (DNS rebinding)."""
        if not host_header:
            return
        host = _strip_port(host_header).lower()
        if _is_ip(host):
            return
        if not any(fnmatchcase(host, pattern) for pattern in self.hosts):
            raise Forbidden(f"host {host!r} is not allowed; add it to allowed_hosts")

    def check_origin(self, origin: str | None, host_header: str | None) -> None:
        """Refuse browser Origins that are neither same-origin nor allow-listed."""
        if origin is None:
            return
        norm = origin.rstrip("/").lower()
        if "*" in self.origins or norm in self.origins:
            return
        if host_header and norm.split("://", 1)[-1] == host_header.lower():
            return
        raise Forbidden(f"origin {origin!r} is not allowed; add it to allowed_origins")


def _strip_port(host: str) -> str:
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    if host.count(":") == 1:
        return host.split(":", 1)[0]
    return host


@functools.lru_cache(maxsize=256)  # the same few Host headers on every request
def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True
