"""Exception hierarchy: every error a caller can see maps to one API error code."""

from __future__ import annotations

from typing import ClassVar


class MnemolisError(Exception):
    """Base of every error Mnemolis reports to a caller."""

    code: ClassVar[str] = "internal"
    status: ClassVar[int] = 500

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidArgument(MnemolisError):
    """The request is malformed or names something that does not exist."""

    code = "invalid_argument"
    status = 400


class Unauthorized(MnemolisError):
    """No valid API key was presented."""

    code = "unauthorized"
    status = 401


class Forbidden(MnemolisError):
    """The caller is known but not allowed to do this."""

    code = "forbidden"
    status = 403


class NotFound(MnemolisError):
    """The addressed resource does not exist."""

    code = "not_found"
    status = 404


class PayloadTooLarge(MnemolisError):
    """The request body is larger than the configured limit."""

    code = "payload_too_large"
    status = 413


class RequestTimeout(MnemolisError):
    """The client did not send the body it announced in time."""

    code = "request_timeout"
    status = 408


class RateLimited(MnemolisError):
    """The caller sent too many requests; retry later."""

    code = "rate_limited"
    status = 429

    def __init__(self, message: str, retry_after: int = 1) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class Unavailable(MnemolisError):
    """A component needed for the request is not ready or not configured."""

    code = "unavailable"
    status = 503


class ConfigError(MnemolisError):
    """A setting has a value that is not allowed; raised at start-up."""


# --- source errors: never reach the caller as HTTP errors, only in sources[] ---


class SourceError(MnemolisError):
    """A source could not answer; reported in the response's ``sources[]``."""

    kind: ClassVar[str] = "error"

    @property
    def brief(self) -> str:
        """``kind: message``: how health, ``last_error`` and detail fields show the failure."""
        return f"{self.kind}: {self.message}"


class SourceNotConfigured(SourceError):
    """The source needs settings the user has not given."""

    kind = "not_configured"


class SourceUnreachable(SourceError):
    """The backend refused or dropped the connection."""

    kind = "unreachable"


class SourceAuthFailed(SourceError):
    """The backend rejected our credentials."""

    kind = "auth_failed"


class SourceBadResponse(SourceError):
    """The backend answered with something we cannot read."""

    kind = "bad_response"


class SourceTimeout(SourceError):
    """The backend did not answer within the source's timeout."""

    kind = "timeout"
