"""Local inference (llama.cpp) and remote OpenAI-compatible backends, behind one service."""

from __future__ import annotations

from .service import LLMService
from .types import ChatParams, ChatResult, Generation, Usage

__all__ = ["ChatParams", "ChatResult", "Generation", "LLMService", "Usage"]
