"""The web UI: one page and its assets, served directly and behind HA ingress.

Home Assistant's ingress proxy strips ``/api/hassio_ingress/<token>`` before
forwarding and names it in ``X-Ingress-Path``; the page gets a ``<base href>``
from that header, and every URL in it is relative, so the same files work on
``http://host:8888/`` and inside HA's sidebar.
"""

from __future__ import annotations

import hashlib
import html
import ipaddress
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiohttp import web

from ..errors import Forbidden, InvalidArgument, NotFound
from . import keys
from .registry import Access, RouteTable

routes = RouteTable("ui")

STATIC_DIR = Path(__file__).resolve().parent.parent / "static"
INGRESS_HEADER = "X-Ingress-Path"
# The only peer that may send ingress traffic to an add-on (HA developer docs).
SUPERVISOR_ADDRESS = "172.30.32.2"
_INGRESS_PATH = re.compile(r"/[A-Za-z0-9._~/-]{0,300}")
_BASE_MARKER = "<!--mnemolis:base-->"
_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".json": "application/json",
}
# Nothing is loaded from anywhere but this server; no inline script or style.
_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'self'; form-action 'self'; object-src 'none'"
)


@dataclass(frozen=True, slots=True)
class Asset:
    """One static file, read once, with its ETag."""

    body: bytes
    content_type: str
    etag: str


def _load_assets() -> dict[str, Asset]:
    out: dict[str, Asset] = {}
    if not STATIC_DIR.is_dir():
        return out
    for path in sorted(STATIC_DIR.iterdir()):
        if path.is_file() and path.suffix in _TYPES:
            body = path.read_bytes()
            name = path.name
            etag = '"' + hashlib.sha256(body).hexdigest()[:20] + '"'
            out[name] = Asset(body, _TYPES[path.suffix], etag)
    return out


_ASSETS = _load_assets()


def _is_supervisor(remote: str | None) -> bool:
    if not remote:
        return False
    try:
        addr = ipaddress.ip_address(remote)
    except ValueError:
        return False
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        addr = addr.ipv4_mapped
    return str(addr) == SUPERVISOR_ADDRESS


@web.middleware
async def ingress_middleware(request: web.Request, handler: Any) -> web.StreamResponse:
    """Check ingress traffic and remember its path prefix for the page.

    In the add-on only the Supervisor may send ``X-Ingress-Path``; HA has
    already authenticated that user, so such requests are trusted (no API key,
    and the browser's Host/Origin are HA's, not ours).
    """
    prefix = request.headers.get(INGRESS_HEADER)
    if prefix is not None:
        if request.app[keys.SETTINGS].addon:
            if not _is_supervisor(request.remote):
                raise Forbidden(
                    "ingress requests are accepted only from the Home Assistant Supervisor"
                )
            request["ingress_trusted"] = True
        if not _INGRESS_PATH.fullmatch(prefix):
            raise InvalidArgument(f"{INGRESS_HEADER} must be a plain URL path")
        request["ingress_path"] = prefix.rstrip("/")
    resp: web.StreamResponse = await handler(request)
    return resp


def _headers(asset: Asset) -> dict[str, str]:
    return {
        "Content-Type": asset.content_type,
        "Cache-Control": "no-cache",
        "ETag": asset.etag,
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "same-origin",
    }


@routes.route("GET", "/", access=Access.PUBLIC, summary="The web UI", openapi=False)
async def index(request: web.Request) -> web.Response:
    """The single page; asks for the API key itself when the server needs one."""
    asset = _ASSETS.get("index.html")
    if asset is None:
        raise NotFound("the web UI is not part of this installation")
    prefix = request.get("ingress_path")
    page = asset.body.decode("utf-8")
    if prefix is not None:
        page = page.replace(_BASE_MARKER, f'<base href="{html.escape(prefix)}/">', 1)
    core = request.app[keys.CORE]
    page = page.replace("{{version}}", html.escape(core.version))
    page = page.replace("{{ingress}}", "true" if prefix is not None else "false")
    headers = _headers(asset)
    headers.pop("ETag")
    headers["Content-Security-Policy"] = _CSP
    headers["Cache-Control"] = "no-store"
    return web.Response(body=page.encode("utf-8"), headers=headers)


@routes.route("GET", "/ui/{name}", access=Access.PUBLIC, summary="Web UI assets", openapi=False)
async def asset(request: web.Request) -> web.Response:
    """A file of the UI (only files shipped in the package exist)."""
    name = request.match_info["name"]
    found = _ASSETS.get(name)
    if found is None or name == "index.html":
        raise NotFound(f"no UI file named {name!r}")
    if request.headers.get("If-None-Match") == found.etag:
        return web.Response(status=304, headers={"ETag": found.etag})
    return web.Response(body=found.body, headers=_headers(found))
