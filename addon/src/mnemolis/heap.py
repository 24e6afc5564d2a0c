"""Freed memory handed back to the system once a burst of indexing is over (issue 30).

glibc keeps what a parse or an embedding pass freed inside the process, so a first
start that indexed the bundled docs sat about 45 MiB above a second start for good.
``malloc_trim`` returns those pages; elsewhere (musl, macOS) there is nothing to do.
"""

from __future__ import annotations

import ctypes
import functools
import logging
from collections.abc import Callable

_LOGGER = logging.getLogger(__name__)


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or None where the C library has none."""
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (AttributeError, OSError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


# glibc's mallopt parameter for the number of heaps ("arenas") threads allocate from.
_M_ARENA_MAX = -8
ARENAS = 2  # the event loop's and one shared by the indexing, model and planning threads


def limit_arenas() -> None:
    """Few heaps for many threads: by default glibc gives threads up to 8 per core, each
    keeping its own freed memory (about 9 MiB less at idle here). Before threads start."""
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (AttributeError, OSError):
        return
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    mallopt(_M_ARENA_MAX, ARENAS)


def give_back() -> None:
    """Return the C heap's free pages to the system (ctypes drops the GIL meanwhile)."""
    trim = _malloc_trim()
    if trim is None:
        return
    try:
        trim(0)
    except OSError as err:  # never let housekeeping break the job that called it
        _LOGGER.debug("malloc_trim failed: %s", err)
