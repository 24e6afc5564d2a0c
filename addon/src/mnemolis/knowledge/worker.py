"""The one indexing thread documents and memories share, and the stop signal its jobs check."""

from __future__ import annotations

import concurrent.futures
import queue
import threading
from collections.abc import Callable
from typing import Any

from .. import heap

RETRY_FIRST_S = 5.0  # a database or memory store that failed to open is tried again
RETRY_MAX_S = 60.0


class IndexWorker:
    """One daemon thread running indexing jobs in order (a one-thread executor).

    Not a ``ThreadPoolExecutor``: Python joins those threads at exit, so a job
    stuck in one huge file kept a SIGTERM'd server alive for minutes. Jobs
    check the stop flag between files and PDF pages; whatever still runs when
    the process ends is rolled back by SQLite (WAL) and redone by the next
    start's catch-up scan.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self._queue: queue.SimpleQueue[
            tuple[concurrent.futures.Future[Any], Callable[[], Any]] | None
        ] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._closed = False

    def submit(self, fn: Callable[[], Any]) -> concurrent.futures.Future[Any]:
        """Queue ``fn``; its future resolves when it has run."""
        future: concurrent.futures.Future[Any] = concurrent.futures.Future()
        with self._lock:
            if self._closed:
                raise RuntimeError("cannot schedule new jobs after shutdown")
            self._queue.put((future, fn))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
                self._thread.start()
        return future

    def _run(self) -> None:
        while (item := self._queue.get()) is not None:
            future, fn = item
            if not future.set_running_or_notify_cancel():
                continue
            try:
                result = fn()
            except BaseException as err:
                future.set_exception(err)
            else:
                future.set_result(result)
            if self._queue.empty():
                heap.give_back()  # the burst is over: its freed memory goes back

    def shutdown(self) -> None:
        """Refuse new jobs, cancel queued ones; the running one finishes (or stops)."""
        with self._lock:
            self._closed = True
            while True:
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
                if item is not None:
                    item[0].cancel()
            self._queue.put(None)

    def join(self, timeout: float) -> bool:
        """Wait (bounded) for the running job; True when the thread has ended."""
        thread = self._thread
        if thread is None:
            return True
        thread.join(timeout)
        return not thread.is_alive()


class Halt:
    """Stop signal for one database's job: the store closing or the database removed."""

    def __init__(self, *events: threading.Event) -> None:
        self.events = events

    def is_set(self) -> bool:
        return any(e.is_set() for e in self.events)
