"""Typed application keys, so handlers find the core and settings safely."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from aiohttp import web

if TYPE_CHECKING:
    from ..core import Mnemolis
    from ..security import AccessPolicy
    from ..settings import Settings
    from .registry import Endpoint

CORE: web.AppKey[Mnemolis] = web.AppKey("core")
SETTINGS: web.AppKey[Settings] = web.AppKey("settings")
POLICY: web.AppKey[AccessPolicy] = web.AppKey("policy")
ENDPOINTS: web.AppKey[dict[tuple[str, str], Endpoint]] = web.AppKey("endpoints")
ENDPOINT_LIST: web.AppKey[list[Endpoint]] = web.AppKey("endpoint_list")
OPENAPI: web.AppKey[dict[str, Any]] = web.AppKey("openapi")
