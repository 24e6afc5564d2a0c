"""Monitor status from an Uptime Kuma status page."""

from __future__ import annotations

import asyncio
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from rapidfuzz import fuzz

from ..errors import SourceBadResponse, SourceNotConfigured
from ..models import Evidence, SourceAnswer
from .base import QueryContext
from .remote import HttpSource, Response, join_url, short_url
from .textutil import keywords, words

MonitorStatus = Literal["up", "down", "pending", "maintenance", "unknown"]
_STATUS: dict[int, MonitorStatus] = {0: "down", 1: "up", 2: "pending", 3: "maintenance"}
_MATCH_THRESHOLD = 85.0
_DOWN_WORDS = frozenset({"down", "offline", "broken", "failing", "failed", "outage", "dead"})
_UPTIME_WORDS = frozenset({"uptime", "availability", "ratio", "percent", "percentage", "reliable"})
_QUESTION_NOISE = frozenset(
    {
        "up",
        "down",
        "online",
        "offline",
        "running",
        "working",
        "reachable",
        "status",
        "uptime",
        "monitor",
        "monitors",
        "kuma",
        "server",
        "service",
        "currently",
        "right",
        "now",
        "still",
        "anything",
        "something",
        "everything",
        "services",
        "systems",
        "servers",
        "my",
        "home",
        "lab",
        "homelab",
        "network",
        "page",
        "overview",
        "all",
        "any",
        "every",
        "broken",
        "failing",
        "failed",
        "outage",
        "pending",
        "maintenance",
        "ratio",
        "availability",
        "percent",
        "percentage",
        "last",
        "24",
        "hours",
        "today",
    }
)


@dataclass(slots=True)
class Monitor:
    """One monitor of the status page, as its latest heartbeat reports it."""

    name: str
    status: MonitorStatus
    uptime_24h: float | None
    last_check: str | None
    msg: str
    id: int | str = 0
    group: str = ""
    ping: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return asdict(self)

    def describe(self) -> str:
        """One line a person can read aloud."""
        state = {"maintenance": "in maintenance", "unknown": "not reporting yet"}
        parts = [f"{self.name} is {state.get(self.status, self.status)}"]
        facts: list[str] = []
        if self.last_check:
            facts.append(f"last check {self.last_check}")
        if self.ping is not None and self.status == "up":
            facts.append(f"{self.ping:g} ms")
        if self.uptime_24h is not None:
            facts.append(f"{self.uptime_24h * 100:.2f}% uptime in 24 h")
        if facts:
            parts.append(f" ({', '.join(facts)})")
        if self.msg and self.status != "up":
            parts.append(f": {self.msg}")
        return "".join(parts)


def _iso_time(raw: Any) -> str | None:
    """Uptime Kuma 1.x sends "YYYY-MM-DD HH:MM:SS(.mmm)" in UTC, 2.x ISO 8601."""
    if not isinstance(raw, str) or not raw.strip():
        return None
    text = raw.strip().replace(" ", "T", 1)
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return raw.strip()
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _uptime(uptime_list: dict[str, Any], monitor_id: Any) -> float | None:
    """``uptimeList`` is keyed "{id}_24" (1.x) or by id (2.x); values are 0..1."""
    for key in (f"{monitor_id}_24", str(monitor_id)):
        value = uptime_list.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
    return None


def _latest_beat(beats: Any) -> dict[str, Any] | None:
    """The newest real heartbeat; lists are oldest first and 2.x pads with 0."""
    if not isinstance(beats, list):
        return None
    real = [b for b in beats if isinstance(b, dict) and "status" in b]
    if not real:
        return None
    return max(real, key=lambda b: str(b.get("time") or ""))


def parse_monitors(page: dict[str, Any], beats: dict[str, Any]) -> list[Monitor]:
    """Monitors of a status page joined with their heartbeats."""
    groups = page.get("publicGroupList")
    if not isinstance(groups, list):
        raise SourceBadResponse("Uptime Kuma status page has no publicGroupList")
    heartbeat_list = beats.get("heartbeatList")
    uptime_list = beats.get("uptimeList")
    if not isinstance(heartbeat_list, dict) or not isinstance(uptime_list, dict):
        raise SourceBadResponse("Uptime Kuma heartbeat response has no heartbeatList/uptimeList")
    monitors: list[Monitor] = []
    seen: set[str] = set()
    for group in groups:
        if not isinstance(group, dict):
            continue
        for item in group.get("monitorList") or []:
            if not isinstance(item, dict) or "id" not in item:
                continue
            mid = item["id"]
            if str(mid) in seen:
                continue
            seen.add(str(mid))
            beat = _latest_beat(heartbeat_list.get(str(mid)))
            status: MonitorStatus = "unknown"
            msg = "no heartbeat yet"
            ping: float | None = None
            last: str | None = None
            if beat is not None:
                raw_status = beat.get("status")
                status = (
                    _STATUS.get(raw_status, "unknown")
                    if isinstance(raw_status, int)
                    else ("unknown")
                )
                msg = str(beat.get("msg") or "")
                raw_ping = beat.get("ping")
                ping = float(raw_ping) if isinstance(raw_ping, int | float) else None
                last = _iso_time(beat.get("time"))
            monitors.append(
                Monitor(
                    name=str(item.get("name") or f"monitor {mid}"),
                    status=status,
                    uptime_24h=_uptime(uptime_list, mid),
                    last_check=last,
                    msg=msg,
                    id=mid,
                    group=str(group.get("name") or ""),
                    ping=ping,
                )
            )
    return monitors


def match_monitors(question: str, monitors: list[Monitor]) -> list[Monitor]:
    """Monitors the question names (fuzzy), best first."""
    q_words = set(words(question))
    terms = " ".join(keywords(question, _QUESTION_NOISE))
    if not terms:
        return []
    scored: list[tuple[float, Monitor]] = []
    for mon in monitors:
        name = mon.name.lower()
        name_words = set(words(name))
        if len(name) <= 4:
            # Short names ("NAS", "DNS") must appear as a word; fuzzy would confuse them.
            score = 100.0 if name_words and name_words <= q_words else 0.0
        else:
            score = max(
                fuzz.partial_ratio(name, terms),
                fuzz.token_set_ratio(name, terms),
                100.0 if name_words and name_words <= q_words else 0.0,
            )
        if score >= _MATCH_THRESHOLD:
            scored.append((score, mon))
    if not scored:
        return []
    best = max(s for s, _ in scored)
    return [m for s, m in sorted(scored, key=lambda x: -x[0]) if s >= best - 5]


class UptimeSource(HttpSource):
    """Answers "is X up?", "what is down?" and uptime ratios from Uptime Kuma."""

    name = "uptime"
    description = "Uptime Kuma status page: which monitors are up or down, uptime ratio."
    what = "Uptime Kuma"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._known: list[Monitor] = []

    @property
    def configured(self) -> bool:
        """Both the Uptime Kuma URL and the status page slug are set."""
        return bool(self.settings.uptime.url and self.settings.uptime.slug)

    def _endpoints(self) -> tuple[str, str]:
        url, slug = self.settings.uptime.url, self.settings.uptime.slug
        if not url or not slug:
            raise SourceNotConfigured("uptime.url and uptime.slug must both be set")
        return (
            join_url(url, f"/api/status-page/{slug}"),
            join_url(url, f"/api/status-page/heartbeat/{slug}"),
        )

    def _json(self, resp: Response, what: str) -> dict[str, Any]:
        if resp.status == 404:
            raise SourceBadResponse(
                f"Uptime Kuma has no status page {self.settings.uptime.slug!r} "
                f"({short_url(resp.url)} answered 404)"
            )
        data = resp.json(what)
        if resp.status >= 400 or (isinstance(data, dict) and data.get("status") == "fail"):
            msg = data.get("msg") if isinstance(data, dict) else None
            raise SourceBadResponse(
                f"{what} at {short_url(resp.url)} answered HTTP {resp.status}"
                + (f": {msg}" if msg else "")
            )
        if not isinstance(data, dict):
            raise SourceBadResponse(f"{what} at {short_url(resp.url)} did not return an object")
        return data

    async def monitors(self) -> list[Monitor]:
        """Every public monitor of the status page with its latest state."""
        page_url, beat_url = self._endpoints()
        page_resp, beat_resp = await asyncio.gather(self.get(page_url), self.get(beat_url))
        page = self._json(page_resp, "Uptime Kuma status page")
        beats = self._json(beat_resp, "Uptime Kuma heartbeats")
        monitors = parse_monitors(page, beats)
        self._known = monitors
        return monitors

    async def probe(self) -> None:
        """The status page answers."""
        page_url, _ = self._endpoints()
        self._json(await self.get(page_url), "Uptime Kuma status page")

    def health_detail(self) -> dict[str, Any]:
        """How many monitors were seen and which were down at the last look."""
        return {
            "monitors": len(self._known),
            "down": [m.name for m in self._known if m.status == "down"],
        }

    async def query(self, question: str, ctx: QueryContext) -> SourceAnswer:
        """Answer about one monitor, about what is down, or give an overview."""
        monitors = await self.monitors()
        data: dict[str, Any] = {"monitors": [m.to_dict() for m in monitors]}
        if not monitors:
            return SourceAnswer(source=self.name, answer="", data=data)
        q_words = set(words(question))
        matched = match_monitors(question, monitors)
        data["matched"] = [m.name for m in matched]
        if matched:
            lines = [m.describe() for m in matched]
            if q_words & _UPTIME_WORDS:
                lines = [
                    f"{m.name}: {m.uptime_24h * 100:.2f}% uptime in the last 24 h, now {m.status}"
                    if m.uptime_24h is not None
                    else f"{m.name}: no uptime figure, now {m.status}"
                    for m in matched
                ]
            chosen = matched
            answer = ". ".join(lines) + "."
        else:
            chosen = [m for m in monitors if m.status != "up"]
            down = [m for m in monitors if m.status == "down"]
            others = [m for m in monitors if m.status in ("pending", "maintenance", "unknown")]
            up = len(monitors) - len(down) - len(others)
            if not chosen:
                answer = f"All {len(monitors)} monitors are up."
            else:
                parts = [f"{up} of {len(monitors)} monitors are up."]
                if down:
                    parts.append("Down: " + "; ".join(m.describe() for m in down) + ".")
                elif q_words & _DOWN_WORDS:
                    parts.append("Nothing is down.")
                if others:
                    parts.append(
                        "Not up: " + ", ".join(f"{m.name} ({m.status})" for m in others) + "."
                    )
                answer = " ".join(parts)
            unmatched = keywords(question, _QUESTION_NOISE)
            if unmatched:
                # The question named something that is not a monitor: say so first.
                data["unmatched"] = unmatched
                answer = f'No monitor is called like "{" ".join(unmatched)}". ' + answer
        base = self.settings.uptime.url or ""
        page = join_url(base, f"/status/{self.settings.uptime.slug}")
        evidence = [
            Evidence(
                source=self.name,
                title=f"{m.name}: {m.status}",
                text=m.describe(),
                url=page,
                ref=f"monitor:{m.id}",
                score=1.0 if m in matched else 0.5,
                timestamp=m.last_check,
            )
            for m in (chosen or monitors)[:10]
        ]
        return SourceAnswer(source=self.name, answer=answer, evidence=evidence, data=data)
