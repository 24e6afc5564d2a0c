"""Sentence embeddings from a GGUF encoder model (BERT, nomic-bert, …) via llama.cpp."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from ..errors import InvalidArgument
from ..settings import LLMSettings
from .catalog import ModelFile
from .worker import Job, ModelWorker, ThreadedModel

_LOGGER = logging.getLogger(__name__)
# llama.cpp pooling types (LLAMA_POOLING_TYPE_*).
_POOL_NONE, _POOL_MEAN = 0, 1
_POOL_UNSPECIFIED = -1


class LocalEmbedder(ThreadedModel):
    """The knowledge store's Embedder: ``name``, ``dim``, ``embed`` (unit vectors)."""

    label = "embedding model"

    def __init__(self, info: ModelFile, settings: LLMSettings) -> None:
        super().__init__(info, ModelWorker("embedding", max(settings.queue, 1)))
        self.name = info.id
        self.dim = int(info.embedding_length or 0)
        self.threads = settings.threads or None
        self.n_ctx = int(min(info.context_length or 512, 8192))

    def _load(self, job: Job) -> None:
        from llama_cpp import Llama

        # One vector per text: keep the model's pooling, or mean-pool if it has none.
        pooling = self.info.pooling_type
        pooling_type = _POOL_MEAN if pooling in (None, _POOL_NONE) else _POOL_UNSPECIFIED
        try:
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

    def _embed_now(self, texts: list[str], count: bool = True) -> tuple[list[list[float]], int]:
        """Runs on the embedding thread: vectors plus the tokens they took (when counted)."""
        llama = self._llama
        vectors: list[list[float]] = []
        n_tokens = 0
        # One text per decode: a text's vector never depends on what it was
        # batched with, so a query and an indexed chunk with the same words match.
        for text in texts:
            if count:  # only /v1/embeddings reports usage; indexing skips the extra pass
                n_tokens += min(len(llama.tokenize(text.encode("utf-8"))), self.n_ctx)
            vectors.append(llama.embed(text, normalize=True, truncate=True))
        return vectors, n_tokens

    def _submit(self, texts: list[str], bounded: bool, count: bool = True) -> Job:
        self._require_ready()
        if any(not isinstance(t, str) for t in texts):
            raise InvalidArgument("every input must be a string")
        return self.worker.submit(lambda job: self._embed_now(texts, count), bounded=bounded)

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
        job = self._submit(list(texts), bounded=False, count=False)
        vectors, _ = job.future.result(timeout=600)
        return list(vectors)

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
