"""MCP logging: ``logging/setLevel`` per session, and log notifications about the
caller's own requests.

A client that set a level hears, while a tool of its runs, what the server logged
doing it (a source that timed out, the model routing that failed…) and, for a
search, which sources answered: ``notifications/message`` tied to that request.
Nothing is sent before a client asks for it, nor anything about other callers'
requests; messages go through the same secret redaction as the server's log, and
are as detailed as the server's ``log_level`` lets them be.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import weakref
from collections.abc import Iterator
from typing import Any

import mcp.types as types

from ..log import RedactingFilter

#: MCP's levels, least severe first (RFC 5424 as the protocol lists them).
LEVELS: tuple[str, ...] = (
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
)
MAX_RECORDS = 50  # log records kept per request
_CAPTURED: contextvars.ContextVar[list[logging.LogRecord] | None] = contextvars.ContextVar(
    "mcp_captured_logs", default=None
)


def mcp_level(record: logging.LogRecord) -> str:
    """A Python record's MCP level."""
    if record.levelno >= logging.CRITICAL:
        return "critical"
    if record.levelno >= logging.ERROR:
        return "error"
    if record.levelno >= logging.WARNING:
        return "warning"
    return "info" if record.levelno >= logging.INFO else "debug"


def at_least(level: str, floor: str) -> bool:
    """Whether ``level`` is as severe as ``floor``."""
    return LEVELS.index(level) >= LEVELS.index(floor)


class _Capture(logging.Handler):
    """Keeps the records logged while a request that asked for them runs."""

    def emit(self, record: logging.LogRecord) -> None:
        captured = _CAPTURED.get()
        if captured is not None and len(captured) < MAX_RECORDS:
            captured.append(record)


_HANDLER = _Capture()


class SessionLogs:
    """The level each session asked for (forgotten with the session)."""

    def __init__(self, secrets: list[str]) -> None:
        self._levels: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()
        self._redact = RedactingFilter(secrets).redact
        logger = logging.getLogger("mnemolis")
        if _HANDLER not in logger.handlers:
            logger.addHandler(_HANDLER)

    def set_level(self, session: Any, level: str) -> None:
        """``logging/setLevel``: messages at this level and above, from now on."""
        self._levels[session] = level

    def level(self, session: Any) -> str | None:
        """The level a session asked for, or None (it hears nothing)."""
        return self._levels.get(session)

    @contextlib.contextmanager
    def capturing(self, session: Any) -> Iterator[list[logging.LogRecord]]:
        """Collect what is logged while a request of ``session`` runs (if it listens)."""
        records: list[logging.LogRecord] = []
        if self.level(session) is None:
            yield records
            return
        token = _CAPTURED.set(records)
        try:
            yield records
        finally:
            _CAPTURED.reset(token)

    async def send(
        self,
        session: Any,
        request_id: types.RequestId | None,
        records: list[logging.LogRecord],
        summary: tuple[str, str, str] | None = None,
    ) -> None:
        """Send what a listening session asked for: the records, then the summary
        (level, logger, text), each tied to the request."""
        floor = self.level(session)
        if floor is None:
            return
        lines = [(mcp_level(r), r.name, r.getMessage()) for r in records]
        if summary is not None:
            lines.append(summary)
        for level, logger, text in lines:
            if at_least(level, floor):
                await session.send_log_message(
                    level=level,
                    data=self._redact(text),
                    logger=logger,
                    related_request_id=request_id,
                )


def search_summary(structured: dict[str, Any] | None) -> tuple[str, str, str] | None:
    """What a search's provenance says in one log line: who answered, how each source did."""
    if not structured or "sources" not in structured:
        return None
    runs = []
    for run in structured.get("sources") or []:
        took = f" in {float(run.get('ms') or 0):.0f} ms"
        why = f" ({run['error']})" if run.get("error") else ""
        runs.append(f"{run.get('name')} {run.get('status')}{took}{why}")
    used = structured.get("source_used") or "none"
    fell = " after a fallback" if structured.get("fallback") else ""
    text = f"answered by {used}{fell}; sources: {'; '.join(runs) or 'none'}"
    level = "info" if used != "none" else "warning"
    return level, "mnemolis.search", text
