"""What every backend speaks: chat parameters, a streaming generation, usage counts."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

# How often a waiting stream checks whether its client went away.
DISCONNECT_POLL_S = 0.25


@dataclass(slots=True)
class ChatParams:
    """One chat request, already validated (OpenAI semantics)."""

    messages: list[dict[str, str]]
    max_tokens: int | None = None
    temperature: float = 0.7
    top_p: float = 0.95
    seed: int | None = None
    stop: list[str] = field(default_factory=list)
    presence_penalty: float = 0.0
    frequency_penalty: float = 0.0
    logit_bias: dict[int, float] = field(default_factory=dict)
    json_schema: dict[str, Any] | None = None
    json_object: bool = False
    # Local engine: the output must be exactly one of these strings (a token
    # trie masks everything else: far cheaper than a grammar on big vocabularies).
    choices: list[str] | None = None


@dataclass(slots=True)
class Usage:
    """Token counts as OpenAI reports them."""

    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion."""
        return self.prompt_tokens + self.completion_tokens

    def to_dict(self) -> dict[str, int]:
        """OpenAI ``usage`` object."""
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.total_tokens,
        }


@dataclass(slots=True)
class Finished:
    """End-of-stream marker: why generation stopped and how many tokens it made."""

    reason: str
    completion_tokens: int
    prompt_tokens: int | None = None


@dataclass(slots=True)
class ChatResult:
    """A whole (non-streamed) completion."""

    model: str
    content: str
    finish_reason: str
    usage: Usage


class Generation:
    """A running completion: iterate text deltas; ``finish_reason``/``usage`` after."""

    def __init__(
        self,
        model: str,
        prompt_tokens: int,
        events: asyncio.Queue[str | Finished | BaseException],
        cancel: Callable[[], None],
    ) -> None:
        self.model = model
        self.usage = Usage(prompt_tokens=prompt_tokens)
        self.finish_reason: str | None = None
        self._events = events
        self._cancel = cancel
        self._done = False
        self._held: Finished | BaseException | None = None

    async def deltas(self, disconnected: Callable[[], bool] | None = None) -> AsyncIterator[str]:
        """Text pieces as they are generated; stops the model if the consumer leaves."""
        try:
            while not self._done:
                item: str | Finished | BaseException
                if self._held is not None:
                    item, self._held = self._held, None
                elif disconnected is None:
                    item = await self._events.get()
                else:
                    try:
                        item = await asyncio.wait_for(self._events.get(), DISCONNECT_POLL_S)
                    except TimeoutError:
                        if disconnected():
                            self.cancel()
                            return
                        continue
                if isinstance(item, Finished):
                    self._done = True
                    self.finish_reason = item.reason
                    self.usage.completion_tokens = item.completion_tokens
                    if item.prompt_tokens is not None:
                        self.usage.prompt_tokens = item.prompt_tokens
                    return
                if isinstance(item, BaseException):
                    self._done = True
                    raise item
                # Pieces that queued up while the consumer was busy go out as one
                # chunk: fewer writes when the machine is loaded, same text.
                parts = [item]
                while not self._events.empty():
                    nxt = self._events.get_nowait()
                    if not isinstance(nxt, str):
                        self._held = nxt
                        break
                    parts.append(nxt)
                text = "".join(parts)
                if text:
                    yield text
        finally:
            if not self._done:
                self.cancel()

    def cancel(self) -> None:
        """Stop generating at the next token (or skip the job if still queued)."""
        if not self._done:
            self._done = True
            self.finish_reason = self.finish_reason or "cancelled"
            self._cancel()

    async def collect(self, disconnected: Callable[[], bool] | None = None) -> ChatResult:
        """Run to the end and return the whole text (stops early if the caller leaves)."""
        parts = [piece async for piece in self.deltas(disconnected)]
        return ChatResult(
            model=self.model,
            content="".join(parts),
            finish_reason=self.finish_reason or "stop",
            usage=self.usage,
        )
