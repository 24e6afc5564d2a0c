"""An Uptime Kuma stand-in: the public status-page endpoints, 1.x and 2.x shapes."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from aiohttp import web

UP, DOWN, PENDING, MAINTENANCE = 1, 0, 2, 3


@dataclass
class KumaMonitor:
    """One monitor and the status of its recent heartbeats (oldest first)."""

    id: int
    name: str
    beats: list[int]
    uptime: float
    msg: str = ""
    ping: int | None = 12
    group: str = "Services"


def default_monitors() -> list[KumaMonitor]:
    """A small home lab."""
    return [
        KumaMonitor(1, "NAS", [UP, UP, UP], 0.9993, ping=3, group="Storage"),
        KumaMonitor(2, "Router", [UP, UP, UP], 1.0, ping=1, group="Network"),
        KumaMonitor(3, "Pi-hole DNS", [UP, UP, UP], 0.9987, ping=2, group="Network"),
        KumaMonitor(
            4,
            "Home Assistant",
            [UP, UP, DOWN],
            0.9612,
            msg="connect ECONNREFUSED 192.168.1.20:8123",
            ping=None,
        ),
        KumaMonitor(5, "Backup Server", [UP, MAINTENANCE], 0.99, msg="Maintenance", ping=None),
        KumaMonitor(6, "Nextcloud", [], 0.0, ping=None),
    ]


@dataclass
class KumaState:
    """Knobs a test turns."""

    slug: str = "home"
    version: int = 1  # 1: "{id}_24" keys and SQL times; 2: id keys, ISO times, 0 padding
    monitors: list[KumaMonitor] = field(default_factory=default_monitors)
    requests: list[str] = field(default_factory=list)


STATE = web.AppKey("kuma_state", KumaState)


def _not_found() -> web.Response:
    # What util-server's sendHttpError sends for "... Not Found".
    return web.json_response({"status": "fail", "msg": "Status Page Not Found"}, status=404)


async def status_page(request: web.Request) -> web.Response:
    """``GET /api/status-page/{slug}``: config, incident, public groups with monitors."""
    state = request.app[STATE]
    state.requests.append(request.path)
    slug = request.match_info["slug"].lower()
    if slug != state.slug:
        return _not_found()
    groups: dict[str, list[dict[str, Any]]] = {}
    for mon in state.monitors:
        groups.setdefault(mon.group, []).append(
            {"id": mon.id, "name": mon.name, "sendUrl": False, "type": "http"}
        )
    return web.json_response(
        {
            "config": {
                "slug": state.slug,
                "title": "Home lab",
                "description": None,
                "icon": "/icon.svg",
                "theme": "auto",
                "published": True,
                "showTags": False,
            },
            "incident": None,
            "publicGroupList": [
                {"id": i + 1, "name": name, "weight": i + 1, "monitorList": mons}
                for i, (name, mons) in enumerate(groups.items())
            ],
            "maintenanceList": [],
        }
    )


async def heartbeats(request: web.Request) -> web.Response:
    """``GET /api/status-page/heartbeat/{slug}``: heartbeatList and uptimeList."""
    state = request.app[STATE]
    state.requests.append(request.path)
    if request.match_info["slug"].lower() != state.slug:
        return web.json_response(
            {"status": "fail", "msg": "Cannot read properties of null"}, status=403
        )
    now = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
    beat_list: dict[str, list[Any]] = {}
    uptime_list: dict[str, float] = {}
    for mon in state.monitors:
        beats: list[Any] = []
        if state.version == 2:
            beats.extend([0] * 3)  # empty buckets before the monitor existed
        for n, status in enumerate(mon.beats):
            at = now - timedelta(minutes=len(mon.beats) - 1 - n)
            beats.append(
                {
                    "status": status,
                    "time": at.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]
                    if state.version == 1
                    else at.isoformat().replace("+00:00", "Z"),
                    "msg": mon.msg if n == len(mon.beats) - 1 else "",
                    "ping": mon.ping if status == UP else None,
                }
            )
        beat_list[str(mon.id)] = beats
        key = f"{mon.id}_24" if state.version == 1 else str(mon.id)
        uptime_list[key] = mon.uptime
    return web.json_response({"heartbeatList": beat_list, "uptimeList": uptime_list})


def uptime_kuma_app(state: KumaState | None = None) -> web.Application:
    """The stub application."""
    app = web.Application()
    app[STATE] = state or KumaState()
    app.router.add_get("/api/status-page/heartbeat/{slug}", heartbeats)
    app.router.add_get("/api/status-page/{slug}", status_page)
    return app
