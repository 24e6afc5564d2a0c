"""Per-client rate and concurrency limits, so one runaway caller cannot starve the box."""

from __future__ import annotations

import hashlib
import ipaddress
import math
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from aiohttp import web

from .errors import RateLimited
from .security import presented_key

if TYPE_CHECKING:
    from .settings import Settings

EXEMPT_PATHS = frozenset({"/api/health"})


@dataclass(slots=True)
class _Bucket:
    tokens: float
    updated: float
    active: int = 0


class RateLimiter:
    """Token bucket (per minute, half a minute of burst) plus an in-flight cap per client."""

    def __init__(self, rate_per_minute: int, concurrency: int, exempt_loopback: bool) -> None:
        self.rate = rate_per_minute
        self.capacity = max(1.0, rate_per_minute / 2)
        self.concurrency = concurrency
        self.exempt_loopback = exempt_loopback
        self._buckets: dict[str, _Bucket] = {}

    @classmethod
    def from_settings(cls, settings: Settings) -> RateLimiter:
        """Limits as configured under ``limits``."""
        lim = settings.limits
        return cls(lim.rate_per_minute, lim.concurrency_per_client, lim.exempt_loopback)

    def client_id(self, request: web.Request) -> str:
        """The caller's verified key (hashed), else its address.

        An unverified key never names a bucket: otherwise every made-up key
        would get a fresh allowance.
        """
        key = presented_key(request.headers) if request.get(KEY_VERIFIED) else None
        if key:
            return "key:" + hashlib.sha256(key.encode()).hexdigest()[:16]
        return "ip:" + (request.remote or "unknown")

    def exempt(self, request: web.Request) -> bool:
        """Health probes and (by default) loopback callers are never limited."""
        if request.path in EXEMPT_PATHS:
            return True
        return self.exempt_loopback and _is_loopback(request.remote)

    def acquire(self, client: str) -> _Bucket:
        """Take one token and one concurrency slot or raise RateLimited."""
        now = time.monotonic()
        bucket = self._buckets.get(client)
        if bucket is None:
            bucket = self._buckets[client] = _Bucket(self.capacity, now)
            if len(self._buckets) > 10_000:
                self._prune(now)
        if self.rate:
            bucket.tokens = min(
                self.capacity, bucket.tokens + (now - bucket.updated) * self.rate / 60
            )
            bucket.updated = now
            if bucket.tokens < 1:
                wait = math.ceil((1 - bucket.tokens) * 60 / self.rate)
                raise RateLimited(f"too many requests; retry in {wait} s", retry_after=wait)
            bucket.tokens -= 1
        if self.concurrency and bucket.active >= self.concurrency:
            raise RateLimited(
                f"too many requests in flight (limit {self.concurrency} per client)",
                retry_after=1,
            )
        bucket.active += 1
        return bucket

    def in_flight(self) -> int:
        """Requests currently being served across all limited clients."""
        return sum(b.active for b in self._buckets.values())

    def _prune(self, now: float) -> None:
        idle = [k for k, b in self._buckets.items() if b.active == 0 and now - b.updated > 120]
        for k in idle:
            del self._buckets[k]


def _is_loopback(remote: str | None) -> bool:
    if not remote:
        return False
    try:
        return ipaddress.ip_address(remote).is_loopback
    except ValueError:
        return False


class AuthGuard:
    """A budget of failed keys per client address, checked before any key is.

    Guessing keys costs one token per wrong or missing key; an address whose
    budget is spent gets 429 without its key being looked at, so guessing
    cannot run at full speed. Right keys never spend the budget.
    """

    def __init__(self, failures_per_minute: float, burst: int, exempt_loopback: bool) -> None:
        self.rate = failures_per_minute
        self.capacity = float(burst)
        self.exempt_loopback = exempt_loopback
        self._buckets: dict[str, _Bucket] = {}

    @classmethod
    def from_settings(cls, settings: Settings) -> AuthGuard:
        """Loopback is exempt exactly when the request limits exempt it."""
        return cls(AUTH_FAILURES_PER_MINUTE, AUTH_FAILURE_BURST, settings.limits.exempt_loopback)

    def _bucket(self, remote: str | None) -> _Bucket | None:
        if self.exempt_loopback and _is_loopback(remote):
            return None
        now = time.monotonic()
        address = remote or "unknown"
        bucket = self._buckets.get(address)
        if bucket is None:
            if len(self._buckets) > 10_000:
                self._buckets = {k: b for k, b in self._buckets.items() if b.tokens < self.capacity}
            bucket = self._buckets[address] = _Bucket(self.capacity, now)
        bucket.tokens = min(self.capacity, bucket.tokens + (now - bucket.updated) * self.rate / 60)
        bucket.updated = now
        return bucket

    def check(self, remote: str | None) -> None:
        """Raise RateLimited while this address has no failures left to spend."""
        bucket = self._bucket(remote)
        if bucket is not None and bucket.tokens < 1:
            wait = math.ceil((1 - bucket.tokens) * 60 / self.rate)
            raise RateLimited(
                f"too many requests with a wrong or missing API key; retry in {wait} s",
                retry_after=wait,
            )

    def failed(self, remote: str | None) -> None:
        """Spend one token for a wrong or missing key."""
        bucket = self._bucket(remote)
        if bucket is not None:
            bucket.tokens = max(0.0, bucket.tokens - 1)


# Wrong keys an address may present: a burst of 20 (a client retrying with a stale
# key, a user typing), then 10 a minute.
AUTH_FAILURES_PER_MINUTE = 10.0
AUTH_FAILURE_BURST = 20
# Set by the security middleware once a presented key has been checked and matched.
KEY_VERIFIED = "key_verified"

LIMITER: web.AppKey[RateLimiter] = web.AppKey("rate_limiter")
AUTH_GUARD: web.AppKey[AuthGuard] = web.AppKey("auth_guard")


@web.middleware
async def rate_limit_middleware(request: web.Request, handler: Any) -> web.StreamResponse:
    """Refuse with 429 and Retry-After when a client exceeds its share."""
    limiter = request.app[LIMITER]
    if limiter.exempt(request):
        resp: web.StreamResponse = await handler(request)
        return resp
    bucket = limiter.acquire(limiter.client_id(request))
    try:
        return await handler(request)  # type: ignore[no-any-return]
    finally:
        bucket.active -= 1
