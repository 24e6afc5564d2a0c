"""Small searches on the event loop, never waiting there for a lock another thread holds.

A search of a small database is cheaper on the loop than a thread hop, but only while
nothing else holds the connection's lock: a long question searched on a worker thread,
or the indexer storing vectors, would otherwise stall every request (issue 29). Inside
``inline_or_thread`` a busy lock raises ``Busy`` and the work moves to a thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor

_STATE = threading.local()
# One thread for the CPU work of long questions (searching, judging, respelling): every
# Python thread that computes competes with the event loop for the interpreter, so a
# pool as wide as the default one would starve it (issue 29). They queue here instead.
_QUERY_THREADS = 1


@functools.cache
def _query_pool() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(_QUERY_THREADS, thread_name_prefix="mnemolis-query")


async def off_loop[T](work: Callable[[], T]) -> T:
    """``work()`` on the query thread, with the caller's context."""
    context = contextvars.copy_context()
    return await asyncio.get_running_loop().run_in_executor(_query_pool(), context.run, work)


class Busy(Exception):
    """A lock the event loop would have waited for."""


@contextlib.contextmanager
def guarded(lock: threading.Lock) -> Iterator[None]:
    """Hold ``lock``: waiting for it on a thread, raising Busy inline on the loop."""
    if getattr(_STATE, "inline", False):
        if not lock.acquire(blocking=False):
            raise Busy
    else:
        lock.acquire()
    try:
        yield
    finally:
        lock.release()


async def inline_or_thread[T](work: Callable[[], T], *, inline: bool) -> T:
    """``work()`` on the loop when ``inline`` and no lock it takes is held; else on the
    query thread (from the start when not ``inline``, or again when a lock was busy)."""
    if inline:
        _STATE.inline = True
        try:
            return work()
        except Busy:
            pass
        finally:
            _STATE.inline = False
    return await off_loop(work)
