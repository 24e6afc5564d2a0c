"""Text every JSON request may carry: valid Unicode, no NUL, checked in one place.

JSON can spell a lone UTF-16 surrogate (``"\\ud800"``) that Python decodes into a
string no database, file name or UTF-8 encoder accepts, and a NUL that SQLite's
full-text index and file names mishandle. REST bodies and MCP tool arguments
are both checked here, so the caller hears which field is wrong instead of a 500.
"""

from __future__ import annotations

from typing import Any

from .errors import InvalidArgument

_MAX_DEPTH = 64


def check_json_text(value: Any, where: str = "") -> None:
    """Raise InvalidArgument naming the first string (or key) with a lone surrogate or NUL."""
    _walk(value, where, 0)


def _walk(value: Any, where: str, depth: int) -> None:
    if isinstance(value, str):
        _check(value, where)
    elif depth >= _MAX_DEPTH:
        return
    elif isinstance(value, dict):
        for key, item in value.items():
            name = f"{where}.{key}" if where else str(key)
            if isinstance(key, str):
                _check(key, f"a key in {where or 'the body'}")
            _walk(item, name, depth + 1)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _walk(item, f"{where}[{index}]" if where else f"[{index}]", depth + 1)


def _check(text: str, where: str) -> None:
    if "\x00" in text:
        raise InvalidArgument(f"{where or 'body'} contains a NUL character")
    if text.isascii():
        return
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as err:
        code = ord(text[err.start])
        raise InvalidArgument(
            f"{where or 'body'} contains a lone surrogate (\\u{code:04x}) at character "
            f"{err.start}; send valid Unicode text"
        ) from None
