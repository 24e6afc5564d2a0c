"""The local chat engine: one llama.cpp model, one context, one generation at a time."""

from __future__ import annotations

import asyncio
import codecs
import collections
import contextlib
import json
import logging
import random
import threading
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import InvalidArgument, Unavailable
from ..settings import LLMSettings
from .catalog import ModelFile
from .templates import build_formatter
from .types import ChatParams, Finished, Generation
from .worker import Job, ModelWorker, ThreadedModel

_LOGGER = logging.getLogger(__name__)
# Shortest gap between two streamed pieces (the first is sent at once).
EMIT_INTERVAL_S = 0.03


@dataclass(slots=True)
class GenerationRecord:
    """What one finished generation did (kept for stats and tests)."""

    prompt_tokens: int
    completion_tokens: int
    finish_reason: str
    started: float  # time.monotonic()
    seconds: float


def _stop_hold(text: str, stops: list[str]) -> int:
    """How many trailing characters could still start a stop string."""
    hold = 0
    for stop in stops:
        for n in range(min(len(stop) - 1, len(text)), 0, -1):
            if text.endswith(stop[:n]):
                hold = max(hold, n)
                break
    return hold


class LocalEngine(ThreadedModel):
    """Loads a chat GGUF on its own thread and serves queued generations from it."""

    kind = "local"
    label = "chat model"

    def __init__(self, info: ModelFile, settings: LLMSettings) -> None:
        super().__init__(info, ModelWorker("chat", settings.queue))
        self.threads = settings.threads or None
        self.n_ctx = min(settings.context, info.context_length or settings.context)
        self.template_origin = ""
        self.history: collections.deque[GenerationRecord] = collections.deque(maxlen=64)
        self.tokens_generated = 0
        self._formatter: Any = None
        self._extra_stops: list[str] = []

    # --- lifecycle -----------------------------------------------------------

    @property
    def model_id(self) -> str:
        """The id API callers see."""
        return self.info.id

    def _load(self, job: Job) -> None:
        from llama_cpp import Llama

        try:
            self._llama = Llama(
                model_path=str(self.info.path),
                n_ctx=self.n_ctx,
                n_threads=self.threads,
                n_threads_batch=self.threads,
                n_batch=min(512, self.n_ctx),
                verbose=False,
            )
            self._formatter, self.template_origin, self._extra_stops = build_formatter(
                self.info, self._llama
            )
        except Exception as err:
            self.state = "failed"
            self.error = f"cannot load {self.info.path.name}: {err}"
            _LOGGER.error("chat model %s", self.error)
            raise
        self.state = "ready"
        _LOGGER.info(
            "chat model %s loaded (context %d, template %s)",
            self.info.id,
            self.n_ctx,
            self.template_origin,
        )

    # --- requests ------------------------------------------------------------

    def _require_ready(self) -> None:
        self._unavailable(
            f"the model {self.model_id} is still loading; retry in a moment",
            f"the model {self.model_id} is not available",
        )

    def _prepare(self, params: ChatParams) -> tuple[list[int], list[str]]:
        result = self._formatter(messages=params.messages)
        tokens: list[int] = self._llama.tokenize(
            result.prompt.encode("utf-8"), add_bos=not result.added_special, special=True
        )
        stops = list(params.stop) + list(self._extra_stops)
        if result.stop:
            extra = [result.stop] if isinstance(result.stop, str) else list(result.stop)
            stops += [s for s in extra if s]
        return tokens, list(dict.fromkeys(s for s in stops if s))

    async def start(self, params: ChatParams) -> Generation:
        """Check the context budget, take a queue slot and start generating."""
        self._require_ready()
        try:
            tokens, stops = await asyncio.to_thread(self._prepare, params)
        except (ValueError, TypeError) as err:
            # Jinja templates raise on messages they cannot render (e.g. roles).
            raise InvalidArgument(f"messages cannot be formatted for this model: {err}") from None
        n_prompt = len(tokens)
        max_tokens = params.max_tokens
        if max_tokens is None:
            max_tokens = self.n_ctx - n_prompt
        if n_prompt + max_tokens > self.n_ctx:
            raise InvalidArgument(
                f"the prompt is {n_prompt} tokens and max_tokens is {max_tokens}: "
                f"{n_prompt + max_tokens} exceeds the model's context of {self.n_ctx} tokens "
                "(llm.context); shorten the messages or lower max_tokens"
            )
        if max_tokens <= 0:
            raise InvalidArgument(
                f"the prompt is {n_prompt} tokens and fills the model's context of "
                f"{self.n_ctx} tokens (llm.context); shorten the messages"
            )
        loop = asyncio.get_running_loop()
        events: asyncio.Queue[str | Finished | BaseException] = asyncio.Queue()

        outbox: list[str | Finished | BaseException] = []
        lock = threading.Lock()
        wake_pending = False

        def flush() -> None:  # on the event loop
            nonlocal wake_pending
            with lock:
                items = outbox[:]
                outbox.clear()
                wake_pending = False
            for item in items:
                events.put_nowait(item)

        def emit(item: str | Finished | BaseException) -> None:  # on the model thread
            # One loop wake-up per batch of pieces, not per token: the model
            # thread touches the event loop (and the GIL) as little as possible.
            nonlocal wake_pending
            with lock:
                outbox.append(item)
                if wake_pending:
                    return
                wake_pending = True
            # RuntimeError: the loop is gone (shutdown); nobody is listening.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(flush)

        def run(job: Job) -> None:
            try:
                self._generate(job, tokens, stops, max_tokens, params, emit)
            except Exception as err:
                _LOGGER.exception("generation failed")
                emit(Unavailable(f"generation failed: {type(err).__name__}: {err}"))

        job = self.worker.submit(run)

        def cancel() -> None:
            job.cancel.set()
            job.future.cancel()

        def on_done(fut: Any) -> None:
            if fut.cancelled():
                emit(Finished("cancelled", 0))

        job.future.add_done_callback(on_done)
        return Generation(self.model_id, n_prompt, events, cancel)

    # --- the model thread ----------------------------------------------------

    def _grammar(self, params: ChatParams) -> Any:
        from llama_cpp.llama_grammar import JSON_GBNF, LlamaGrammar

        if params.json_schema is not None:
            return LlamaGrammar.from_json_schema(json.dumps(params.json_schema), verbose=False)
        if params.json_object:
            return LlamaGrammar.from_string(JSON_GBNF, verbose=False)
        return None

    def _logits_processor(self, params: ChatParams, n_prompt: int) -> Any:
        from llama_cpp import LogitsProcessorList

        processors: list[Any] = []
        if params.logit_bias:
            ids = np.array(list(params.logit_bias), dtype=np.intp)
            bias = np.array(list(params.logit_bias.values()), dtype=np.float32)

            def apply_bias(
                _input_ids: npt.NDArray[np.intc], scores: npt.NDArray[np.single]
            ) -> npt.NDArray[np.single]:
                scores[ids] += bias
                return scores

            processors.append(apply_bias)
        if params.choices:
            processors.append(self._choice_mask(params.choices, n_prompt))
        return LogitsProcessorList(processors) if processors else None

    def _choice_mask(self, choices: list[str], n_prompt: int) -> Any:
        """Allow only tokens that continue one of ``choices``; end-of-text after a full one."""
        llama = self._llama
        seqs = [
            tuple(llama.tokenize(c.encode("utf-8"), add_bos=False, special=False)) for c in choices
        ]
        eos = int(llama.token_eos())

        def apply(
            input_ids: npt.NDArray[np.intc], scores: npt.NDArray[np.single]
        ) -> npt.NDArray[np.single]:
            done = tuple(int(t) for t in input_ids[n_prompt:])
            k = len(done)
            allowed = {s[k] for s in seqs if len(s) > k and s[:k] == done}
            if done in seqs:
                allowed.add(eos)
            if not allowed:
                return scores
            keep = np.fromiter(allowed, dtype=np.intp)
            masked = np.full_like(scores, -np.inf)
            masked[keep] = scores[keep]
            return masked

        return apply

    def _generate(
        self,
        job: Job,
        tokens: list[int],
        stops: list[str],
        max_tokens: int,
        params: ChatParams,
        emit: Any,
    ) -> None:
        import llama_cpp

        llama = self._llama
        started = time.monotonic()
        if params.seed is not None:
            llama.set_seed(params.seed)
        else:
            llama.set_seed(random.randint(0, 2**31 - 1))
        vocab = llama._model.vocab
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        pending = ""
        produced = 0
        leading = True
        last_emit = 0.0
        reason = "length"
        for token in llama.generate(
            tokens,
            temp=params.temperature,
            top_p=params.top_p,
            top_k=40,
            min_p=0.05,
            repeat_penalty=1.0,
            presence_penalty=params.presence_penalty,
            frequency_penalty=params.frequency_penalty,
            grammar=None if params.choices else self._grammar(params),
            logits_processor=self._logits_processor(params, len(tokens)),
        ):
            if llama_cpp.llama_vocab_is_eog(vocab, token):
                reason = "stop"
                break
            produced += 1
            pending += decoder.decode(llama._model.detokenize([token]))
            if leading:
                pending = pending.lstrip()
                leading = not pending
            hit = min((pending.find(s) for s in stops if s in pending), default=-1)
            if hit >= 0:
                pending = pending[:hit]
                reason = "stop"
                break
            hold = _stop_hold(pending, stops) if stops else 0
            now = time.monotonic()
            # The first piece goes out at once (time to first token); later ones
            # at most every EMIT_INTERVAL_S, so fast models wake the loop less.
            if len(pending) > hold and (last_emit == 0.0 or now - last_emit >= EMIT_INTERVAL_S):
                emit(pending[: len(pending) - hold])
                pending = pending[len(pending) - hold :]
                last_emit = now
            if job.cancel.is_set():
                reason = "cancelled"
                break
            if produced >= max_tokens:
                reason = "length"
                break
        else:
            reason = "stop"
        if reason != "cancelled":
            pending += decoder.decode(b"", final=True)
            if pending:
                emit(pending.rstrip() if reason == "stop" else pending)
        self.tokens_generated += produced
        self.history.append(
            GenerationRecord(len(tokens), produced, reason, started, time.monotonic() - started)
        )
        emit(Finished(reason, produced))

    async def models(self) -> list[dict[str, Any]]:
        """The one loaded model, in ``/v1/models`` form."""
        return [self.describe()]

    def describe(self) -> dict[str, Any]:
        """OpenAI model entry plus what a user needs to know about it."""
        return {
            "id": self.model_id,
            "object": "model",
            "created": int(self.info.path.stat().st_mtime) if self.info.path.exists() else 0,
            "owned_by": "mnemolis",
            "meta": {
                "kind": "chat",
                "backend": "llama.cpp",
                "arch": self.info.arch,
                "name": self.info.name,
                "file": self.info.path.name,
                "size_bytes": self.info.size,
                "context": self.n_ctx,
                "template": self.template_origin,
                "state": self.state,
            },
        }
