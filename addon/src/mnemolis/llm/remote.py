"""A remote OpenAI-compatible server (llama-server, Ollama, vLLM, Lemonade) as a backend."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import aiohttp

from ..errors import InvalidArgument, RateLimited, Unavailable
from ..settings import LLMSettings
from .types import ChatParams, Finished, Generation

_LOGGER = logging.getLogger(__name__)
_MODELS_TTL_S = 30.0


def normalise_base_url(url: str) -> str:
    """OpenAI base URLs end in the API root (``…/v1``); a bare host gets ``/v1``."""
    url = url.rstrip("/")
    if urlsplit(url).path in ("", "/"):
        url += "/v1"
    return url


class RemoteBackend:
    """Chat through another server's ``/chat/completions`` (streaming, usage)."""

    kind = "remote"

    def __init__(
        self, settings: LLMSettings, session: Callable[[], aiohttp.ClientSession | None]
    ) -> None:
        if not settings.base_url:
            raise ValueError("remote backend needs llm.base_url")
        self.base_url = normalise_base_url(settings.base_url)
        self._key = settings.api_key.get_secret_value() if settings.api_key else ""
        self._configured_model = settings.model if settings.model not in (None, "auto") else None
        self._session = session
        self.timeout = settings.timeout
        self._models: list[dict[str, Any]] = []
        self._models_at = 0.0
        self.last_error = ""

    @property
    def model_id(self) -> str:
        """The configured model, else the first one the server lists."""
        if self._configured_model:
            return self._configured_model
        if self._models:
            return str(self._models[0].get("id", "default"))
        return "default"

    @property
    def ready(self) -> bool:
        """A remote server is tried on every request; errors say why it failed."""
        return True

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        return headers

    def _client(self) -> aiohttp.ClientSession:
        session = self._session()
        if session is None or session.closed:
            raise Unavailable("the HTTP client is not running")
        return session

    async def models(self) -> list[dict[str, Any]]:
        """The remote server's ``/models`` list (cached for a short while)."""
        if self._models and time.monotonic() - self._models_at < _MODELS_TTL_S:
            return self._models
        url = f"{self.base_url}/models"
        try:
            async with self._client().get(
                url, headers=self._headers(), timeout=aiohttp.ClientTimeout(total=10)
            ) as resp:
                if resp.status >= 400:
                    raise Unavailable(
                        f"remote model server {self.base_url} answered {resp.status} to /models"
                    )
                body = await resp.json(content_type=None)
        except (aiohttp.ClientError, TimeoutError, ValueError) as err:
            self.last_error = f"remote model server {self.base_url} unreachable: {err!s:.200}"
            raise Unavailable(self.last_error) from None
        data = body.get("data") if isinstance(body, dict) else None
        if not isinstance(data, list):
            raise Unavailable(f"remote model server {self.base_url}: /models is not a model list")
        self._models = [m for m in data if isinstance(m, dict) and "id" in m]
        self._models_at = time.monotonic()
        self.last_error = ""
        return self._models

    def _body(self, params: ChatParams) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model_id,
            "messages": params.messages,
            "temperature": params.temperature,
            "top_p": params.top_p,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if params.max_tokens is not None:
            body["max_tokens"] = params.max_tokens
        if params.seed is not None:
            body["seed"] = params.seed
        if params.stop:
            body["stop"] = params.stop
        if params.presence_penalty:
            body["presence_penalty"] = params.presence_penalty
        if params.frequency_penalty:
            body["frequency_penalty"] = params.frequency_penalty
        if params.logit_bias:
            body["logit_bias"] = {str(k): v for k, v in params.logit_bias.items()}
        if params.json_schema is not None:
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "answer", "schema": params.json_schema, "strict": True},
            }
        elif params.json_object:
            body["response_format"] = {"type": "json_object"}
        return body

    async def start(self, params: ChatParams) -> Generation:
        """Send the request; HTTP errors surface before any text is streamed."""
        if not self._configured_model and not self._models:
            with contextlib.suppress(Unavailable):
                await self.models()
        url = f"{self.base_url}/chat/completions"
        try:
            resp = await self._client().post(
                url,
                json=self._body(params),
                headers=self._headers(),
                timeout=aiohttp.ClientTimeout(total=None, sock_connect=10, sock_read=self.timeout),
            )
        except (aiohttp.ClientError, TimeoutError) as err:
            self.last_error = f"remote model server {self.base_url} unreachable: {err!s:.200}"
            raise Unavailable(self.last_error) from None
        if resp.status >= 400:
            message = await _error_message(resp)
            resp.release()
            if resp.status == 429:
                raise RateLimited(f"remote model server is busy: {message}")
            if 400 <= resp.status < 500 and resp.status not in (401, 403, 404):
                raise InvalidArgument(f"remote model server rejected the request: {message}")
            raise Unavailable(f"remote model server answered {resp.status}: {message}")
        self.last_error = ""
        events: asyncio.Queue[str | Finished | BaseException] = asyncio.Queue()
        if resp.content_type == "application/json":
            # A server that ignores ``stream``: one whole completion.
            _whole(await _json_body(resp), events)
            return Generation(self.model_id, 0, events, lambda: None)
        task = asyncio.create_task(_pump(resp, events))

        def cancel() -> None:
            task.cancel()

        return Generation(self.model_id, 0, events, cancel)


async def _json_body(resp: aiohttp.ClientResponse) -> dict[str, Any]:
    try:
        body = await resp.json()
    except (aiohttp.ClientError, ValueError) as err:
        raise Unavailable(f"remote model server sent unreadable JSON: {err!s:.200}") from None
    finally:
        resp.release()
    if not isinstance(body, dict):
        raise Unavailable("remote model server sent a JSON value that is not a completion")
    return body


def _whole(body: dict[str, Any], events: asyncio.Queue[str | Finished | BaseException]) -> None:
    choices = body.get("choices") or [{}]
    message = choices[0].get("message") or {}
    content = message.get("content") or ""
    usage = body.get("usage") or {}
    if content:
        events.put_nowait(str(content))
    events.put_nowait(
        Finished(
            str(choices[0].get("finish_reason") or "stop"),
            int(usage.get("completion_tokens") or 0),
            int(usage["prompt_tokens"]) if "prompt_tokens" in usage else None,
        )
    )


async def _error_message(resp: aiohttp.ClientResponse) -> str:
    try:
        text = await resp.text()
    except (aiohttp.ClientError, UnicodeDecodeError):
        return resp.reason or str(resp.status)
    try:
        body = json.loads(text)
        err = body.get("error") if isinstance(body, dict) else None
        if isinstance(err, dict) and err.get("message"):
            return str(err["message"])[:500]
        if isinstance(err, str):
            return err[:500]
    except ValueError:
        pass
    return text.strip()[:500] or (resp.reason or str(resp.status))


async def _pump(
    resp: aiohttp.ClientResponse, events: asyncio.Queue[str | Finished | BaseException]
) -> None:
    """Read SSE ``data:`` lines into text deltas and one Finished."""
    reason = "stop"
    completion = 0
    prompt: int | None = None
    usage_seen = False
    try:
        async for raw in resp.content:
            line = raw.decode("utf-8", errors="replace").strip()
            if not line.startswith("data:"):
                continue
            data = line[5:].strip()
            if data == "[DONE]":
                break
            try:
                chunk = json.loads(data)
            except ValueError:
                continue
            if isinstance(chunk.get("error"), dict):
                message = chunk["error"].get("message", "remote error")
                events.put_nowait(Unavailable(f"remote model server failed: {message}"))
                return
            usage = chunk.get("usage")
            if isinstance(usage, dict):
                usage_seen = True
                completion = int(usage.get("completion_tokens") or 0)
                prompt = int(usage.get("prompt_tokens") or 0)
            for choice in chunk.get("choices") or []:
                delta = (choice.get("delta") or {}).get("content")
                if delta:
                    if not usage_seen:
                        completion += 1
                    events.put_nowait(str(delta))
                if choice.get("finish_reason"):
                    reason = str(choice["finish_reason"])
        events.put_nowait(Finished(reason, completion, prompt))
    except asyncio.CancelledError:
        events.put_nowait(Finished("cancelled", completion, prompt))
        raise
    except (aiohttp.ClientError, TimeoutError) as err:
        events.put_nowait(Unavailable(f"remote model server stream broke: {err!s:.200}"))
    finally:
        resp.release()
