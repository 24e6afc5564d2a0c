"""One dedicated thread per model: jobs run one at a time, so a context is never shared."""

from __future__ import annotations

import abc
import asyncio
import concurrent.futures
import itertools
import logging
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import RateLimited, Unavailable

if TYPE_CHECKING:
    from .catalog import ModelFile

_LOGGER = logging.getLogger(__name__)


@dataclass(slots=True)
class Job:
    """One unit of model work; ``cancel`` is checked between tokens."""

    fn: Callable[[Job], Any]
    future: concurrent.futures.Future[Any] = field(default_factory=concurrent.futures.Future)
    cancel: threading.Event = field(default_factory=threading.Event)
    bounded: bool = True


URGENT, NORMAL, LAST = 0, 1, 2  # job priorities: a question before bulk work; then stop


class ModelWorker:
    """Jobs served by one thread, urgent ones first, otherwise in order; admission fails fast.

    An urgent job (a question being answered) overtakes the queued normal ones (e.g.
    document chunks being indexed) but never interrupts the one running.
    """

    def __init__(self, name: str, max_waiting: int) -> None:
        self.name = name
        self.max_waiting = max_waiting
        self._jobs: queue.PriorityQueue[tuple[int, int, Job | None]] = queue.PriorityQueue()
        self._seq = itertools.count()
        self._lock = threading.Lock()
        self._waiting = 0
        self._running: Job | None = None
        self._closed = False
        self._thread = threading.Thread(target=self._run, name=f"mnemolis-{name}", daemon=True)
        self._thread.start()

    @property
    def waiting(self) -> int:
        """Bounded jobs admitted but not yet started."""
        return self._waiting

    @property
    def busy(self) -> bool:
        """True while a job runs."""
        return self._running is not None

    @property
    def closing(self) -> bool:
        """True once close() began: a long job checks it between steps and stops."""
        return self._closed

    @property
    def stopped(self) -> bool:
        """True when the thread has ended (nothing can still be using the model)."""
        return not self._thread.is_alive()

    def submit(
        self, fn: Callable[[Job], Any], *, bounded: bool = True, urgent: bool = False
    ) -> Job:
        """Queue ``fn``; raise RateLimited when ``max_waiting`` bounded jobs already wait."""
        job = Job(fn=fn, bounded=bounded)
        with self._lock:
            if self._closed:
                raise Unavailable(f"the {self.name} model is shutting down")
            if bounded:
                # An idle worker starts the first job at once: it does not wait.
                if self._waiting >= self.max_waiting + (0 if self._running else 1):
                    raise RateLimited(
                        f"the {self.name} model is busy: {self._waiting} requests are "
                        f"already waiting (limit llm.queue={self.max_waiting}); retry shortly"
                    )
                self._waiting += 1
            self._jobs.put((URGENT if urgent else NORMAL, next(self._seq), job))
        return job

    def _run(self) -> None:
        while True:
            _, _, job = self._jobs.get()
            if job is None:
                return
            with self._lock:
                if job.bounded:
                    self._waiting -= 1
                self._running = job
            try:
                if not job.future.set_running_or_notify_cancel():
                    continue
                if job.cancel.is_set():
                    job.future.cancel()
                    continue
                try:
                    job.future.set_result(job.fn(job))
                except BaseException as err:
                    job.future.set_exception(err)
            finally:
                with self._lock:
                    self._running = None

    def close(self, timeout: float = 30.0) -> bool:
        """Cancel what runs and waits, stop the thread, wait for it (bounded); True if it ended."""
        with self._lock:
            self._closed = True
            if self._running is not None:
                self._running.cancel.set()
        # Drain: jobs still queued are cancelled rather than run.
        pending: list[Job] = []
        while True:
            try:
                _, _, item = self._jobs.get_nowait()
            except queue.Empty:
                break
            if item is not None:
                pending.append(item)
        for job in pending:
            job.cancel.set()
            job.future.cancel()
        self._jobs.put((LAST, next(self._seq), None))
        if threading.current_thread() is not self._thread:
            self._thread.join(timeout)
            if self._thread.is_alive():
                _LOGGER.warning("model thread %s did not stop within %ss", self.name, timeout)
                return False
        return True


class ThreadedModel(abc.ABC):
    """A llama.cpp model loaded once on its own worker thread; chat engine and embedder share it.

    ``state`` goes loading -> ready | failed, then closed; ``error`` says why
    a failed model cannot serve.
    """

    #: How logs name the model ("chat model", "embedding model").
    label = "model"

    def __init__(self, info: ModelFile, worker: ModelWorker) -> None:
        self.info = info
        self.worker = worker
        self.state = "loading"
        self.error = ""
        self._llama: Any = None
        self._loaded: asyncio.Future[None] | None = None

    @property
    def ready(self) -> bool:
        """True once the model is loaded."""
        return self.state == "ready"

    def start_loading(self) -> asyncio.Future[None]:
        """Begin loading on the model thread; the returned future resolves when done."""
        if self._loaded is None:
            job = self.worker.submit(self._load, bounded=False)
            self._loaded = asyncio.wrap_future(job.future)
        return self._loaded

    async def wait_loaded(self) -> None:
        """Wait for the load (never raises; see ``state``/``error``)."""
        try:
            await asyncio.shield(self.start_loading())
        except Exception:
            return

    @abc.abstractmethod
    def _load(self, job: Job) -> None:
        """Runs on the model thread: create ``_llama`` and set ``state``/``error``."""

    def close(self) -> None:
        """Stop the thread and free the model (blocking; call off the loop)."""
        if not self.worker.close():
            # Freeing weights a running decode still reads would crash the process;
            # the process's exit frees them instead.
            _LOGGER.warning(
                "the %s is still busy; it is left loaded until the process ends", self.label
            )
            self.state = "closed"
            return
        if self._llama is not None:
            try:
                self._llama.close()
            except Exception:
                _LOGGER.debug("closing the %s failed", self.label, exc_info=True)
            self._llama = None
        self.state = "closed"

    def _unavailable(self, loading: str, failed: str) -> None:
        """Raise Unavailable unless ready: ``loading`` while it loads, else the load error."""
        if self.state == "loading":
            raise Unavailable(loading)
        if self.state != "ready":
            raise Unavailable(self.error or failed)
