"""Logging set-up: one line per record, text or JSON, secrets always redacted."""

from __future__ import annotations

import json
import logging
import os
import stat
import sys
from collections.abc import Iterable

REDACTED = "***"


class RedactingFilter(logging.Filter):
    """Replace every known secret in a record's rendered message."""

    def __init__(self, secrets: Iterable[str]) -> None:
        super().__init__()
        self._secrets = sorted({s for s in secrets if len(s) >= 4}, key=len, reverse=True)

    def redact(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, REDACTED)
        return text

    def filter(self, record: logging.LogRecord) -> bool:
        if self._secrets:
            record.msg = self.redact(record.getMessage())
            record.args = None
            # Formatters render a traceback after filters run; render it here,
            # redacted, so the text a formatter reuses never holds a secret.
            if record.exc_info and not record.exc_text:
                record.exc_text = _PLAIN.formatException(record.exc_info)
            if record.exc_text:
                record.exc_text = self.redact(record.exc_text)
            if record.stack_info:
                record.stack_info = self.redact(record.stack_info)
        return True


_PLAIN = logging.Formatter()


class JsonFormatter(logging.Formatter):
    """Structured records for log collectors."""

    def format(self, record: logging.LogRecord) -> str:
        payload = {
            "ts": self.formatTime(record, "%Y-%m-%dT%H:%M:%S"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        if record.exc_info or record.exc_text:
            # The filter has already rendered (and redacted) it into exc_text.
            payload["exc"] = record.exc_text or self.formatException(record.exc_info)  # type: ignore[arg-type]
        return json.dumps(payload, ensure_ascii=False)


def setup_logging(level: str, fmt: str, secrets: Iterable[str]) -> None:
    """Send logs to stderr (stdout belongs to the stdio MCP transport)."""
    handler = logging.StreamHandler(sys.stderr)
    if fmt == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(
            logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s", "%H:%M:%S")
        )
    handler.addFilter(RedactingFilter(secrets))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())
    logging.getLogger("aiohttp.access").setLevel(logging.WARNING)


def log_files() -> frozenset[str]:
    """The regular files this process logs to (stdout or stderr sent to a file, file
    handlers), resolved: never indexed, whatever their name (issue 29: a server whose
    log sat in a watched folder indexed its own "watcher applied" lines forever)."""
    found: set[str] = set()
    for fd in (1, 2):
        try:
            if stat.S_ISREG(os.fstat(fd).st_mode):
                found.add(os.path.realpath(f"/proc/self/fd/{fd}"))
        except OSError:
            continue
    for handler in logging.getLogger().handlers:
        name = getattr(handler, "baseFilename", None)
        if isinstance(name, str):
            found.add(os.path.realpath(name))
    return frozenset(p for p in found if p.startswith("/"))
