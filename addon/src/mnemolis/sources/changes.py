"""The ``changes`` source: what changed at home and in the other sources, and when."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import sqlite3
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, tzinfo
from pathlib import Path
from typing import Any

from ..errors import SourceError
from ..hass import ClientHold, HAClient, ha_configured
from ..hass.client import HACommandError
from ..hass.describe import parse_time, state_word, when
from ..hass.timeexpr import Window, past_window
from ..models import Evidence, SourceAnswer
from ..services import SnapshotProvider
from .base import QueryContext, Source, SourceDeps, SourceHealth

_LOGGER = logging.getLogger(__name__)

DEFAULT_HOURS = 24
MAX_LINES = 20
AWAY_LOOKBACK_DAYS = 3
FIRST_SNAPSHOT_SECONDS = 60.0
_NOT_THERE = frozenset({"unknown", "unavailable"})
_AWAY = re.compile(
    r"\bwhile\s+(?:i|we|(?P<who>[\w-]+))\s+(?:was|were)\s+"
    r"(?P<where>at work|away|out|gone|not (?:at )?home|on holiday|at school|asleep)\b",
    re.IGNORECASE,
)
_SCHEMA = """
CREATE TABLE IF NOT EXISTS snapshots (
    source TEXT NOT NULL,
    taken REAL NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS snapshots_source_taken ON snapshots (source, taken);
"""


@dataclass(slots=True)
class Change:
    """One net change, ready to be said."""

    title: str
    text: str
    at: datetime
    ref: str | None = None
    detail: dict[str, Any] = field(default_factory=dict)


class SnapshotStore:
    """Snapshots of other sources' structured state in SQLite (one row per change)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._db: sqlite3.Connection | None = None

    def open(self) -> None:
        """Create the file and schema."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(_SCHEMA)

    def close(self) -> None:
        """Close the database."""
        if self._db is not None:
            self._db.close()
            self._db = None

    @property
    def db(self) -> sqlite3.Connection:
        """The open connection."""
        if self._db is None:
            raise SourceError("snapshot store is closed")
        return self._db

    def latest(
        self, source: str, before: float | None = None
    ) -> tuple[float, dict[str, Any]] | None:
        """The newest snapshot of a source (at or before a time)."""
        sql = "SELECT taken, data FROM snapshots WHERE source = ?"
        args: list[Any] = [source]
        if before is not None:
            sql += " AND taken <= ?"
            args.append(before)
        row = self.db.execute(sql + " ORDER BY taken DESC LIMIT 1", args).fetchone()
        return (float(row[0]), json.loads(row[1])) if row else None

    def between(self, source: str, start: float, end: float) -> list[tuple[float, dict[str, Any]]]:
        """Snapshots of a source taken in (start, end], oldest first."""
        rows = self.db.execute(
            "SELECT taken, data FROM snapshots WHERE source = ? AND taken > ? AND taken <= ? "
            "ORDER BY taken",
            (source, start, end),
        ).fetchall()
        return [(float(t), json.loads(d)) for t, d in rows]

    def sources(self) -> list[str]:
        """Every source with snapshots."""
        return [r[0] for r in self.db.execute("SELECT DISTINCT source FROM snapshots ORDER BY 1")]

    def record(self, source: str, data: dict[str, Any], taken: float) -> bool:
        """Store a snapshot if it differs from the newest one; True when stored."""
        last = self.latest(source)
        if last is not None and last[1] == data:
            return False
        self.db.execute(
            "INSERT INTO snapshots (source, taken, data) VALUES (?, ?, ?)",
            (source, taken, json.dumps(data, sort_keys=True, default=str)),
        )
        return True

    def purge(self, cutoff: float) -> int:
        """Drop snapshots older than cutoff, keeping each source's last one before it."""
        cur = self.db.execute(
            "DELETE FROM snapshots WHERE taken < ? AND rowid NOT IN ("
            " SELECT (SELECT s.rowid FROM snapshots s WHERE s.source = o.source AND s.taken < ?"
            "  ORDER BY s.taken DESC LIMIT 1) FROM (SELECT DISTINCT source FROM snapshots) o)",
            (cutoff, cutoff),
        )
        return int(cur.rowcount or 0)


class ChangesSource(Source):
    """Net changes in a time window: HA's logbook and history plus source snapshots."""

    name = "changes"
    description = "What changed at home (HA logbook/history) and in monitors, forecast and news"

    def __init__(self, deps: SourceDeps) -> None:
        super().__init__(deps)
        self._hold = ClientHold(deps)
        self.store = SnapshotStore(Path(self.settings.data_dir) / "changes.sqlite3")
        self._task: asyncio.Task[None] | None = None
        self.last_snapshot: float | None = None

    @property
    def has_ha(self) -> bool:
        """Whether Home Assistant is configured."""
        return ha_configured(self.settings)

    @property
    def configured(self) -> bool:
        """HA, or any source whose state can be snapshotted (uptime, news, Open-Meteo)."""
        s = self.settings
        return (
            self.has_ha
            or bool(s.uptime.url and s.uptime.slug)
            or bool(s.news.feeds or s.news.freshrss_url)
            or bool(s.forecast.open_meteo_url)
        )

    def _ha(self) -> HAClient | None:
        return self._hold.take() if self.has_ha else self._hold.client

    async def start(self) -> None:
        """Open the snapshot store and start the periodic snapshot task."""
        await asyncio.to_thread(self.store.open)
        self._task = asyncio.create_task(self._snapshot_loop(), name="mnemolis-changes-snapshots")
        try:
            client = self._ha()
        except SourceError as err:  # snapshots still work; questions report why
            self.last_error = err.brief
            return
        if client is not None:
            await client.start(wait=2.0)

    async def stop(self) -> None:
        """Stop snapshotting, close the store, let go of HA."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        self.store.close()
        await self._hold.release()

    async def health(self) -> SourceHealth:
        """Healthy when the store is open and HA (if configured) is connected."""
        if not self.configured:
            return SourceHealth(self.name, self.enabled, False, False, None)
        client = self._hold.client
        ha_ok = client.connected if client is not None else not self.has_ha
        error = self.last_error
        if client is not None and not client.connected and client.last_error is not None:
            error = client.last_error.brief
        return SourceHealth(
            self.name,
            self.enabled,
            True,
            ha_ok and self.store._db is not None,
            error,
            {
                "snapshot_sources": sorted(self.providers()),
                "last_snapshot": self.last_snapshot,
                "retention_days": self.settings.changes.retention_days,
            },
        )

    # --- snapshots -----------------------------------------------------------

    def providers(self) -> dict[str, SnapshotProvider]:
        """Structured-state readers of other sources, by source name.

        Sources publish ``services.snapshots[name] = async () -> dict``, or
        expose ``snapshot()``; uptime's ``monitors()`` and news's
        ``headlines()`` are read directly.
        """
        found: dict[str, SnapshotProvider] = {}
        for name, source in self.deps.services.sources.items():
            if name in (self.name, "ha") or not getattr(source, "configured", False):
                continue
            provider = _adapter(name, source)
            if provider is not None:
                found[name] = provider
        found.update(self.deps.services.snapshots)
        return found

    async def snapshot_now(self) -> dict[str, str]:
        """Take one snapshot of every provider; returns what happened per source."""
        outcome: dict[str, str] = {}
        taken = time.time()
        for name, provider in self.providers().items():
            try:
                async with asyncio.timeout(self.settings.routing.source_timeout):
                    data: object = await provider()
            except (SourceError, TimeoutError) as err:
                outcome[name] = f"failed: {err}"
                continue
            except Exception as err:
                _LOGGER.warning("snapshot of %s failed: %s", name, err)
                outcome[name] = f"failed: {type(err).__name__}"
                continue
            if not isinstance(data, dict):
                outcome[name] = f"failed: snapshot is a {type(data).__name__}, not an object"
                continue
            stored = await asyncio.to_thread(self.store.record, name, data, taken)
            outcome[name] = "stored" if stored else "unchanged"
        cutoff = taken - self.settings.changes.retention_days * 86400
        await asyncio.to_thread(self.store.purge, cutoff)
        self.last_snapshot = taken
        return outcome

    async def _snapshot_loop(self) -> None:
        # Let the other sources start and warm up before the first baseline.
        await asyncio.sleep(min(FIRST_SNAPSHOT_SECONDS, self.settings.changes.snapshot_seconds))
        while True:
            try:
                await self.snapshot_now()
            except asyncio.CancelledError:
                raise
            except Exception:
                _LOGGER.exception("snapshot round failed")
            await asyncio.sleep(self.settings.changes.snapshot_seconds)

    # --- answering -----------------------------------------------------------

    async def query(self, question: str, ctx: QueryContext) -> SourceAnswer:
        """Net changes in the window the question names (default: the last 24 hours)."""
        now = ctx.now if ctx.now.tzinfo else ctx.now.replace(tzinfo=UTC)
        client = self._ha()
        if client is not None:
            await client.wait_ready(self.settings.routing.source_timeout)
        # HA's zone; without HA the server's own local zone.
        tz: tzinfo = (client.time_zone if client else None) or now.astimezone().tzinfo or UTC
        local_now = now.astimezone(tz)
        window: Window | None = None
        if client is not None and (away := _AWAY.search(question)):
            window = await self._away_window(client, away, local_now, tz)
        window = window or past_window(question, local_now)
        if window is None:
            window = Window(
                local_now - timedelta(hours=DEFAULT_HOURS), local_now, "the last 24 hours"
            )
        changes: list[Change] = []
        events: list[Change] = []
        if client is not None:
            ha_changes, events = await self._ha_changes(client, window, tz, local_now)
            changes.extend(ha_changes)
        changes.extend(await asyncio.to_thread(self._snapshot_changes, window, tz, local_now))
        changes.sort(key=lambda c: c.at, reverse=True)
        span = f"{when(window.start, tz, local_now)} to now"
        if window.end < local_now - timedelta(minutes=1):
            span = f"{when(window.start, tz, local_now)} to {when(window.end, tz, local_now)}"
        label = f"in {window.label}" if window.label.startswith("the ") else window.label
        if not changes and not events:
            return SourceAnswer(
                source=self.name,
                answer=f"Nothing changed {label} ({span}).",
                data={"window": _window_dict(window), "changes": []},
            )
        shown = changes[:MAX_LINES]
        lines = [c.text for c in shown]
        if len(changes) > MAX_LINES:
            lines.append(f"and {len(changes) - MAX_LINES} more changes")
        lines.extend(e.text for e in events[:5])
        count = len(changes)
        head = f"{count} change{'' if count == 1 else 's'} {label} ({span})"
        answer = f"{head}: " + "; ".join(lines) + "."
        evidence = [
            Evidence(
                source=self.name,
                title=c.title,
                text=c.text,
                ref=c.ref,
                score=round(1.0 - i / (len(shown) + 1), 3),
                timestamp=c.at.isoformat(),
            )
            for i, c in enumerate(shown)
        ]
        return SourceAnswer(
            source=self.name,
            answer=answer,
            evidence=evidence,
            data={
                "window": _window_dict(window),
                "changes": [
                    {
                        "title": c.title,
                        "text": c.text,
                        "at": c.at.isoformat(),
                        "ref": c.ref,
                        **c.detail,
                    }
                    for c in changes
                ],
            },
        )

    async def _away_window(
        self, client: HAClient, found: re.Match[str], now: datetime, tz: tzinfo
    ) -> Window | None:
        people = [e for e in client.states if e.startswith("person.")]
        who = found.group("who")
        if who:
            named = client.match_entities(who, domains={"person"}, limit=1)
            if named:
                people = [named[0].entity_id]
        if not people:
            return None
        start = now - timedelta(days=AWAY_LOOKBACK_DAYS)
        history = await client.history(people, start, now, no_attributes=True)
        best: tuple[datetime, datetime, str, str] | None = None
        for entity_id, rows in history.items():
            away_since: datetime | None = None
            away_state = ""
            for row in rows:
                moment = parse_time(row.get("last_changed")) or start
                if row["state"] not in ("home", "unknown", "unavailable"):
                    if away_since is None:
                        away_since, away_state = moment, row["state"]
                elif away_since is not None:
                    if best is None or moment > best[1]:
                        best = (away_since, moment, entity_id, away_state)
                    away_since = None
            if away_since is not None and (best is None or now > best[1]):
                best = (away_since, now, entity_id, away_state)
        if best is None:
            return None
        begin, end, entity_id, state = best
        where = "away" if state == "not_home" else f"at {state}"
        name = client.friendly_name(entity_id)
        return Window(begin.astimezone(tz), end.astimezone(tz), f"while {name} was {where}")

    async def _ha_changes(
        self, client: HAClient, window: Window, tz: tzinfo, now: datetime
    ) -> tuple[list[Change], list[Change]]:
        try:
            entries = await client.logbook(window.start, window.end)
        except HACommandError as err:
            if err.ha_code != "unknown_command":
                raise
            entries = await self._history_as_logbook(client, window)
        per_entity: dict[str, list[tuple[datetime, str]]] = {}
        events: list[Change] = []
        # A person's trackers repeat what the person entity already says.
        tracked = {
            str(tracker)
            for eid, state in client.states.items()
            if eid.startswith("person.")
            for tracker in (state.get("attributes") or {}).get("device_trackers") or []
        }
        for entry in entries:
            moment = parse_time(entry.get("when"))
            if moment is None:
                continue
            entity_id = entry.get("entity_id")
            if entity_id and "state" in entry:
                if _hidden(client, str(entity_id)) or entity_id in tracked:
                    continue
                per_entity.setdefault(str(entity_id), []).append((moment, str(entry["state"])))
            elif entry.get("message"):
                name = str(entry.get("name") or entry.get("domain") or "Home Assistant")
                text = f"{name} {entry['message']} {when(moment, tz, now)}"
                events.append(Change(name, text, moment, entity_id))
        self._add_live_changes(client, per_entity, tracked, window)
        if not per_entity:
            return [], events
        before = await self._states_at(client, list(per_entity), window)
        changes: list[Change] = []
        for entity_id, moves in per_entity.items():
            moves.sort()
            attrs = (client.states.get(entity_id) or {}).get("attributes") or {}

            def word(value: str, eid: str = entity_id, a: dict[str, Any] = attrs) -> str:
                return state_word({"entity_id": eid, "state": value, "attributes": a})

            name = client.friendly_name(entity_id)
            first = before.get(entity_id)
            if first in _NOT_THERE:
                # Coming up (unknown/unavailable → a state) is not a change.
                while moves and first in _NOT_THERE:
                    first = moves.pop(0)[1]
                if not moves:
                    continue
            steps: list[tuple[datetime, str]] = []
            previous = first
            for at, value in moves:
                if value != previous:
                    steps.append((at, value))
                    previous = value
            moves = steps
            if not moves:
                continue
            last_at, last = moves[-1]
            count = len(moves)
            times = f"{count} change{'' if count == 1 else 's'}"
            if first is None:
                text = f"{name} appeared as {word(last)} {when(last_at, tz, now)}"
            elif first == last:
                middle = word(moves[0][1]) if moves[0][1] != first else word(last)
                text = (
                    f"{name} was {middle} and back to {word(last)} "
                    f"({times}, last {when(last_at, tz, now)})"
                )
            else:
                text = f"{name}: {word(first)} → {word(last)} {when(last_at, tz, now)}"
                if count > 1:
                    text += f" ({times})"
            changes.append(
                Change(
                    name,
                    text,
                    last_at,
                    entity_id,
                    {"entity_id": entity_id, "from": first, "to": last, "count": count},
                )
            )
        return changes, events

    def _add_live_changes(
        self,
        client: HAClient,
        per_entity: dict[str, list[tuple[datetime, str]]],
        tracked: set[str],
        window: Window,
    ) -> None:
        """Changes the live state cache has seen but the recorder has not written yet.

        HA's recorder commits every few seconds (commit_interval), so the logbook
        lags the websocket; like the logbook, measurements are left out.
        """
        for entity_id, state in client.states.items():
            attrs = state.get("attributes") or {}
            if "unit_of_measurement" in attrs or "state_class" in attrs:
                continue
            if entity_id in tracked or _hidden(client, entity_id):
                continue
            changed = parse_time(state.get("last_changed"))
            if changed is None or not window.start < changed <= window.end:
                continue
            moves = per_entity.get(entity_id, [])
            if moves and max(at for at, _ in moves) >= changed - timedelta(seconds=1):
                continue
            if not moves and entity_id.split(".", 1)[0] in ("sensor", "weather", "sun"):
                continue
            per_entity.setdefault(entity_id, []).append((changed, str(state["state"])))

    async def _states_at(
        self, client: HAClient, entity_ids: list[str], window: Window
    ) -> dict[str, str]:
        """Each entity's state when the window began, or when it appeared inside it."""
        history = await client.history(entity_ids, window.start, window.end, no_attributes=True)
        # The first row is the state at window start (include_start_time_state), or
        # the entity's first state if it appeared later; the logbook never lists that one.
        return {eid: str(rows[0]["state"]) for eid, rows in history.items() if rows}

    async def _history_as_logbook(self, client: HAClient, window: Window) -> list[dict[str, Any]]:
        """Logbook-like rows from history, for an HA without the logbook integration."""
        ids = [e for e in client.states if not e.startswith(("sensor.", "weather."))]
        history = await client.history(ids, window.start, window.end, no_attributes=True)
        out: list[dict[str, Any]] = []
        for entity_id, rows in history.items():
            for row in rows:
                moment = parse_time(row.get("last_changed"))
                if moment is not None and moment > window.start:
                    out.append(
                        {"when": moment.timestamp(), "entity_id": entity_id, "state": row["state"]}
                    )
        return out

    def _snapshot_changes(self, window: Window, tz: tzinfo, now: datetime) -> list[Change]:
        if self.store._db is None:
            return []
        start, end = window.start.timestamp(), window.end.timestamp()
        changes: list[Change] = []
        for source in self.store.sources():
            base = self.store.latest(source, before=start)
            rows = self.store.between(source, start, end)
            if not rows:
                continue
            if base is None:
                base, rows = rows[0], rows[1:]
            before = base[1]
            after = rows[-1][1] if rows else before
            for key in sorted(set(before) | set(after)):
                old, new = before.get(key), after.get(key)
                if old == new:
                    continue
                changed_at = next(
                    (t for t, data in rows if data.get(key) == new),
                    rows[-1][0] if rows else base[0],
                )
                moment = datetime.fromtimestamp(changed_at, UTC).astimezone(tz)
                at = when(moment, tz, now)
                if old is None:
                    text = (
                        f"{source}: new {key}: {new} ({at})"
                        if new not in ("", None)
                        else (f"{source}: new {key} ({at})")
                    )
                elif new is None:
                    text = f"{source}: {key} is gone ({at})"
                else:
                    text = f"{source}: {key}: {old} → {new} {at}"
                changes.append(
                    Change(
                        f"{source}: {key}",
                        text,
                        moment,
                        f"{source}:{key}",
                        {"source": source, "key": key, "from": old, "to": new},
                    )
                )
        return changes


def _hidden(client: HAClient, entity_id: str) -> bool:
    entry = client.registries.entities.get(entity_id) or {}
    return bool(entry.get("hidden_by") or entry.get("disabled_by"))


def _window_dict(window: Window) -> dict[str, str]:
    return {"start": window.start.isoformat(), "end": window.end.isoformat(), "label": window.label}


def _adapter(name: str, source: Any) -> SnapshotProvider | None:
    """A snapshot reader for a source's structured methods, if it has any."""
    snapshot = getattr(source, "snapshot", None)
    if callable(snapshot):
        return snapshot  # type: ignore[no-any-return]
    monitors = getattr(source, "monitors", None)
    if callable(monitors):

        async def read_monitors() -> dict[str, Any]:
            return {str(m.name): str(m.status) for m in await monitors()}

        return read_monitors
    headlines = getattr(source, "headlines", None)
    if callable(headlines):

        async def read_headlines() -> dict[str, Any]:
            return {str(e.title): "" for e in await headlines(30)}

        return read_headlines
    return None
