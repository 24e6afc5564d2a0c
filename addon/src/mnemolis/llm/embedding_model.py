"""Sentence embeddings from a GGUF encoder model (BERT, nomic-bert, …) via llama.cpp."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import os
import threading
import time
from collections.abc import Iterator
from typing import Any

from ..errors import InvalidArgument, Unavailable
from ..settings import LLMSettings
from .catalog import ModelFile
from .worker import Job, ModelWorker, ThreadedModel

_LOGGER = logging.getLogger(__name__)
# llama.cpp pooling types (LLAMA_POOLING_TYPE_*).
_POOL_NONE, _POOL_MEAN = 0, 1
_POOL_UNSPECIFIED = -1
# A few short texts (a question, the parts of one) are a query: they overtake queued bulk
# work (document chunks) and run on one thread, which embeds a short text fastest (a
# thread pool's hand-offs cost more than they save on a dozen tokens, the more so on a
# busy machine). Bulk work keeps the configured threads and goes one text per job, so a
# query waits for at most one chunk (a job costs microseconds, a chunk milliseconds).
QUERY_TEXTS = 8
QUERY_CHARS = 400
QUERY_THREADS = 1
BULK_JOB = 1  # texts per job of a blocking bulk call
# Indexing runs beside the event loop and the chat model on a small box: at most two
# threads, whatever ``llm.threads`` gives the chat model (issue 30).
BULK_THREADS = 2
# Sized for what it does: one text of at most the model's own context per decode, no
# room for a chat model's conversation (MiniLM: 512 tokens).
MAX_CONTEXT = 512 * 16


class LocalEmbedder(ThreadedModel):
    """The knowledge store's Embedder: ``name``, ``dim``, ``embed`` (unit vectors)."""

    label = "embedding model"

    def __init__(self, info: ModelFile, settings: LLMSettings) -> None:
        super().__init__(info, ModelWorker("embedding", max(settings.queue, 1)))
        self.name = info.id
        self.dim = int(info.embedding_length or 0)
        self.threads = bulk_threads(settings.threads)
        self.n_ctx = int(min(info.context_length or 512, MAX_CONTEXT))
        self.calls = 0  # decodes run (one per text): benchmarks and tests count them
        self.cpu_ns = 0  # CPU time spent embedding, on the model's thread (for benchmarks)
        self._bulk_threads: tuple[int, int] = (0, 0)  # the context's configured threads
        self._threads_now: tuple[int, int] = (0, 0)

    def _load(self, job: Job) -> None:
        from llama_cpp import Llama

        # One vector per text: keep the model's pooling, or mean-pool if it has none.
        pooling = self.info.pooling_type
        pooling_type = _POOL_MEAN if pooling in (None, _POOL_NONE) else _POOL_UNSPECIFIED
        try:
            with _one_sequence_at_a_time():
                self._llama = Llama(
                    model_path=str(self.info.path),
                    embedding=True,
                    pooling_type=pooling_type,
                    n_ctx=self.n_ctx,
                    n_batch=self.n_ctx,
                    n_ubatch=self.n_ctx,
                    n_threads=self.threads,
                    n_threads_batch=self.threads,
                    verbose=False,
                )
            dim = int(self._llama.n_embd())
            self._bulk_threads = (int(self._llama.n_threads), int(self._llama.n_threads_batch))
            self._threads_now = self._bulk_threads
        except Exception as err:
            self.state = "failed"
            self.error = f"cannot load embedding model {self.info.path.name}: {err}"
            _LOGGER.error("%s", self.error)
            raise
        self.dim = dim
        self.state = "ready"
        _LOGGER.info("embedding model %s loaded (%d dimensions)", self.name, dim)

    def _require_ready(self) -> None:
        self._unavailable(
            f"the embedding model {self.name} is still loading",
            f"the embedding model {self.name} is not available",
        )

    def _embed_now(
        self, texts: list[str], query: bool = False, count: bool = True
    ) -> tuple[list[list[float]], int]:
        """Runs on the embedding thread: vectors plus the tokens they took (when counted)."""
        started = time.thread_time_ns()
        llama = self._llama
        want = (QUERY_THREADS, QUERY_THREADS) if query else self._bulk_threads
        if want != self._threads_now and want[0] > 0:
            llama._ctx.set_n_threads(*want)
            self._threads_now = want
        vectors: list[list[float]] = []
        n_tokens = 0
        # One text per decode: a text's vector never depends on what it was
        # batched with, so a query and an indexed chunk with the same words match.
        for text in texts:
            if self.worker.closing:
                raise Unavailable(f"the embedding model {self.name} is shutting down")
            if count:  # only /v1/embeddings reports usage; indexing skips the extra pass
                n_tokens += min(len(llama.tokenize(text.encode("utf-8"))), self.n_ctx)
            vectors.append(llama.embed(text, normalize=True, truncate=True))
            self.calls += 1
        self.cpu_ns += time.thread_time_ns() - started
        return vectors, n_tokens

    def _submit(
        self, texts: list[str], bounded: bool, query: bool | None = None, count: bool = True
    ) -> Job:
        self._require_ready()
        if any(not isinstance(t, str) for t in texts):
            raise InvalidArgument("every input must be a string")
        if query is None:
            query = _is_query(texts)
        return self.worker.submit(
            lambda job: self._embed_now(texts, query, count), bounded=bounded, urgent=query
        )

    async def embed_counted(self, texts: list[str]) -> tuple[list[list[float]], int]:
        """Vectors and the prompt tokens used (for ``/v1/embeddings`` usage)."""
        if not texts:
            return [], 0
        if self.state == "loading":
            await self.wait_loaded()
        job = self._submit(texts, bounded=True)
        result: tuple[list[list[float]], int] = await asyncio.wrap_future(job.future)
        return result

    async def embed(self, texts: list[str]) -> list[list[float]]:
        """One unit vector per text, in order."""
        vectors, _ = await self.embed_counted(texts)
        return vectors

    def embed_sync(self, texts: list[str]) -> list[list[float]]:
        """Blocking form for the knowledge store's indexing thread (same queue)."""
        if not texts:
            return []
        if self.state == "loading" and self._loaded is not None:
            self._load_done_blocking()
        texts = list(texts)
        query = _is_query(texts)
        step = len(texts) if query else BULK_JOB
        jobs = [
            self._submit(texts[i : i + step], bounded=False, query=query, count=False)
            for i in range(0, len(texts), step)
        ]
        out: list[list[float]] = []
        for job in jobs:
            try:
                vectors, _ = job.future.result(timeout=600)
            except concurrent.futures.CancelledError:
                # close() cancels what still waits: say why instead of a bare cancel.
                raise Unavailable(f"the embedding model {self.name} is shutting down") from None
            out.extend(vectors)
        return out

    def _load_done_blocking(self) -> None:
        # The load job was queued first; a no-op job behind it finishes after it.
        self.worker.submit(lambda job: None, bounded=False).future.result(timeout=600)

    def describe(self) -> dict[str, Any]:
        """OpenAI model entry plus what a user needs to know about it."""
        return {
            "id": self.name,
            "object": "model",
            "created": int(self.info.path.stat().st_mtime) if self.info.path.exists() else 0,
            "owned_by": "mnemolis",
            "meta": {
                "kind": "embedding",
                "backend": "llama.cpp",
                "arch": self.info.arch,
                "name": self.info.name,
                "file": self.info.path.name,
                "size_bytes": self.info.size,
                "dimensions": self.dim,
                "state": self.state,
            },
        }


def bulk_threads(configured: int) -> int:
    """Threads for indexing: the configured ones, at most BULK_THREADS, and never more than
    half the cores (the event loop and the router keep the rest)."""
    half = max(1, (os.cpu_count() or 2) // 2)
    return max(1, min(configured or half, half, BULK_THREADS))


def _is_query(texts: list[str]) -> bool:
    """A few short texts: a question being answered, not a batch of documents."""
    return len(texts) <= QUERY_TEXTS and all(len(t) <= QUERY_CHARS for t in texts)


_SEQUENCES_LOCK = threading.Lock()


@contextlib.contextmanager
def _one_sequence_at_a_time() -> Iterator[None]:
    """Build an embedding context for one text per decode, as ``_embed_now`` uses it.

    llama-cpp-python sizes an embedding context for as many sequences per batch as
    llama.cpp allows (256), and llama.cpp then keeps an output row of the whole
    vocabulary for each: 30 MiB for MiniLM, about 9 MiB of it resident for good
    (issue 30). Only the constructor reads the limit, so it is lowered around it.
    """
    from llama_cpp import llama as api

    low = getattr(api, "llama_cpp", None)
    limit = getattr(low, "llama_max_parallel_sequences", None)
    if low is None or limit is None:  # another llama-cpp-python: its own sizing
        yield
        return
    with _SEQUENCES_LOCK:
        low.llama_max_parallel_sequences = lambda: 1
        try:
            yield
        finally:
            low.llama_max_parallel_sequences = limit
