"""The ``ha`` source: Home Assistant states, areas, people and history."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo
from typing import Any

from ..errors import SourceError, SourceNotConfigured
from ..ha import ClientHold, HAClient, ha_configured
from ..ha.describe import BINARY_WORDS, ago, parse_time, state_word, when
from ..ha.matching import EntityMatch
from ..models import Evidence, SourceAnswer
from .base import QueryContext, Source, SourceDeps, SourceHealth

# Words in a question that name a kind of entity: (domains, device classes or None).
KINDS: dict[str, tuple[frozenset[str], frozenset[str] | None]] = {
    "light": (frozenset({"light"}), None),
    "lamp": (frozenset({"light"}), None),
    "switch": (frozenset({"switch"}), None),
    "fan": (frozenset({"fan"}), None),
    "lock": (frozenset({"lock"}), None),
    "door": (frozenset({"binary_sensor", "cover"}), frozenset({"door", "garage_door", "garage"})),
    "window": (frozenset({"binary_sensor", "cover"}), frozenset({"window"})),
    "blind": (frozenset({"cover"}), frozenset({"blind", "shade", "shutter", "curtain"})),
    "cover": (frozenset({"cover"}), None),
    "media player": (frozenset({"media_player"}), None),
    "tv": (frozenset({"media_player"}), frozenset({"tv"})),
    "speaker": (frozenset({"media_player"}), frozenset({"speaker"})),
    "sensor": (frozenset({"sensor", "binary_sensor"}), None),
    "thermostat": (frozenset({"climate"}), None),
}
# Words that name a measurement: the sensor device class they mean.
MEASUREMENTS = {
    "temperature": "temperature",
    "warm": "temperature",
    "cold": "temperature",
    "hot": "temperature",
    "humidity": "humidity",
    "humid": "humidity",
    "power": "power",
    "energy": "energy",
    "battery": "battery",
    "illuminance": "illuminance",
    "co2": "carbon_dioxide",
    "pressure": "pressure",
}
# Words a question uses for a state, and the HA states they mean.
STATE_FILTERS: dict[str, frozenset[str]] = {
    "on": frozenset({"on", "open", "unlocked", "playing", "heat", "cool", "home"}),
    "off": frozenset({"off", "closed", "locked", "idle", "paused", "standby"}),
    "open": frozenset({"on", "open", "opening"}),
    "closed": frozenset({"off", "closed", "closing"}),
    "unlocked": frozenset({"unlocked", "on", "open"}),
    "locked": frozenset({"locked", "off"}),
    "playing": frozenset({"playing"}),
}
_PRESENCE = re.compile(
    r"\bwho(?:'s| is| are)?\s+(?:at\s+)?(?:home|here|away|out)\b|"
    r"\b(?:is|are)\s+(?:any|some)(?:one|body)\s+(?:at\s+)?home\b|\banybody home\b|"
    r"\bwho(?:'s| is)\s+not\s+home\b",
    re.IGNORECASE,
)
_HISTORY = re.compile(
    r"\bwhen\s+(?:did|was|were|has|have)\b|\blast\s+time\b|\bhow long ago\b|"
    r"\bsince when\b",
    re.IGNORECASE,
)
_COMMAND = re.compile(
    r"^\s*(?:please\s+)?(?:turn|switch|open|close|lock|unlock|set|start|stop|dim)\b", re.I
)
_HOW_LONG = re.compile(r"\bhow long\b|\bfor how long\b", re.IGNORECASE)
_LISTING = re.compile(
    r"\b(which|what|any|list|how many|are (?:there )?(?:any|all))\b", re.IGNORECASE
)
# Verbs in a history question and the state they ask about (None: any change).
_VERBS: list[tuple[re.Pattern[str], str | None]] = [
    (re.compile(r"\b(re)?open(ed|s)?\b", re.I), "open"),
    (re.compile(r"\bclos(e|ed|es)\b|\bshut\b", re.I), "closed"),
    (re.compile(r"\bunlock(ed|s)?\b", re.I), "unlocked"),
    (re.compile(r"\block(ed|s)?\b", re.I), "locked"),
    (re.compile(r"\b(turn|switch)(ed)?\s+on\b|\bcame on\b|\bon\b", re.I), "on"),
    (re.compile(r"\b(turn|switch)(ed)?\s+off\b|\bwent off\b|\boff\b", re.I), "off"),
    (re.compile(r"\b(leave|left|went out|go out)\b", re.I), "not_home"),
    (re.compile(r"\b(arrive[ds]?|c[ao]me home|get home|got home|back home)\b", re.I), "home"),
    (re.compile(r"\b(detect(ed)?|motion|triggered)\b", re.I), "on"),
]
HISTORY_DAYS = 10


@dataclass(slots=True)
class _Found:
    """One entity to report, with its match score."""

    state: dict[str, Any]
    score: float


class HASource(Source):
    """States, areas, people and history from Home Assistant's websocket API."""

    name = "ha"
    description = "Home Assistant: live entity states, areas, people at home, state history"
    cache_empty = True  # "no such device" is as true as a state, for the same few seconds

    def __init__(self, deps: SourceDeps) -> None:
        super().__init__(deps)
        self._hold = ClientHold(deps)

    @property
    def configured(self) -> bool:
        """A URL + token, or the Supervisor's token in the add-on."""
        return ha_configured(self.settings)

    @property
    def client(self) -> HAClient:
        """The shared websocket client (created on first use)."""
        client = self._hold.take()
        if client is None:
            raise SourceNotConfigured("Home Assistant is not configured")
        return client

    async def start(self) -> None:
        """Connect in the background; wait briefly so the first question finds states."""
        await self.client.start(wait=2.0)

    async def stop(self) -> None:
        """Let go of the shared client (the last user closes it)."""
        await self._hold.release()

    async def health(self) -> SourceHealth:
        """Healthy while the websocket is connected and authenticated."""
        if not self.configured:
            return SourceHealth(self.name, self.enabled, False, False, None)
        try:
            client = self.client
        except SourceError as err:
            return SourceHealth(self.name, self.enabled, True, False, err.brief)
        error = None
        if client.last_error is not None and not client.connected:
            error = client.last_error.brief
        return SourceHealth(
            name=self.name,
            enabled=self.enabled,
            configured=True,
            healthy=client.connected,
            last_error=error or (None if client.connected else self.last_error),
            detail={
                "url": client.ws_url,
                "connected": client.connected,
                "entities": len(client.states),
                "areas": len(client.registries.areas),
                "version": client.config.get("version"),
                "reconnects": max(0, client.connect_count - 1),
            },
        )

    # --- answering -----------------------------------------------------------

    async def query(self, question: str, ctx: QueryContext) -> SourceAnswer:
        """Answer a question about states, presence, areas or history."""
        client = self.client
        await client.wait_ready(self.settings.routing.source_timeout)
        tz = client.time_zone or UTC
        now = ctx.now if ctx.now.tzinfo else ctx.now.replace(tzinfo=UTC)
        if _PRESENCE.search(question):
            return self._presence(client, tz, now)
        if _HISTORY.search(question):
            past = await self._history(client, question, tz, now)
            if past is not None:
                return past
        matches = client.match_entities(question, limit=5)
        # "is the garage door open": a named entity wins over "doors in the Garage".
        named = bool(matches) and matches[0].score >= 90 and matches[0].matched_on != "area"
        answer: SourceAnswer | None = None
        if not named or _LISTING.search(question):
            answer = self._listing(client, question, matches, tz, now)
        if answer is None:
            answer = self._states(client, matches, question, tz, now)
        if _COMMAND.search(question) and not answer.empty:
            answer.answer = f"I only read Home Assistant; I don't control devices. {answer.answer}"
        return answer

    def _evidence(
        self, client: HAClient, state: dict[str, Any], score: float, text: str
    ) -> Evidence:
        return Evidence(
            source=self.name,
            title=client.friendly_name(state["entity_id"]),
            text=text,
            ref=state["entity_id"],
            score=round(score / 100, 3),
            timestamp=state.get("last_changed"),
        )

    def _line(self, client: HAClient, state: dict[str, Any], tz: tzinfo, now: datetime) -> str:
        name = client.friendly_name(state["entity_id"])
        area = client.area_of(state["entity_id"])
        where = f" ({area})" if area and area.lower() not in name.lower() else ""
        since = when(state.get("last_changed"), tz, now)
        return f"{name}{where} is {state_word(state)} (since {since})"

    def _answer(
        self,
        client: HAClient,
        found: list[_Found],
        tz: tzinfo,
        now: datetime,
        *,
        lead: str = "",
    ) -> SourceAnswer:
        lines = [self._line(client, f.state, tz, now) for f in found]
        evidence = [
            self._evidence(client, f.state, f.score, line)
            for f, line in zip(found, lines, strict=True)
        ]
        text = lead + ". ".join(lines) + ("." if lines else "")
        return SourceAnswer(
            source=self.name,
            answer=text.strip(),
            evidence=evidence,
            data={"entities": [f.state for f in found]},
        )

    def _presence(self, client: HAClient, tz: tzinfo, now: datetime) -> SourceAnswer:
        people = [s for eid, s in sorted(client.states.items()) if eid.startswith("person.")]
        if not people:
            people = [
                s for eid, s in sorted(client.states.items()) if eid.startswith("device_tracker.")
            ]
        if not people:
            return SourceAnswer(source=self.name, answer="")
        home = [client.friendly_name(s["entity_id"]) for s in people if s["state"] == "home"]
        away = [s for s in people if s["state"] not in ("home", "unknown", "unavailable")]
        parts = [f"At home: {', '.join(home)}." if home else "Nobody is at home."]
        if away:
            parts.append(
                "Away: "
                + ", ".join(
                    f"{client.friendly_name(s['entity_id'])} ({state_word(s)}"
                    f" since {when(s.get('last_changed'), tz, now)})"
                    for s in away
                )
                + "."
            )
        evidence = [
            self._evidence(client, s, 100.0, self._line(client, s, tz, now)) for s in people
        ]
        return SourceAnswer(
            source=self.name,
            answer=" ".join(parts),
            evidence=evidence,
            data={"home": home, "entities": people},
        )

    def _listing(
        self,
        client: HAClient,
        question: str,
        matches: list[EntityMatch],
        tz: tzinfo,
        now: datetime,
    ) -> SourceAnswer | None:
        lowered = question.lower()
        kind = next(
            (k for k in KINDS if re.search(rf"\b{k}(e?s)?\b", lowered)),
            None,
        )
        measurement = next(
            (dc for word, dc in MEASUREMENTS.items() if re.search(rf"\b{word}\b", lowered)), None
        )
        if kind is None and measurement is None:
            return None
        areas = client.match_areas(question)
        area_ids = [a.area_id for a in areas[:1]]
        where = f" in the {areas[0].name}" if areas else ""
        floors = [] if areas else client.match_floors(question)
        if floors:
            # "which lights are on upstairs": every area on that floor.
            area_ids = client.areas_on_floor(floors[0].area_id)
            name = floors[0].name
            where = f" {name.lower()}" if name.lower().endswith("stairs") else f" on the {name}"
            areas = floors
        named = bool(matches) and matches[0].score >= 90 and matches[0].matched_on != "area"
        if measurement is not None and not areas and named:
            return None  # "outdoor temperature": a name, answered by _states
        if kind is not None and not areas and not _LISTING.search(question):
            return None
        if measurement is not None:
            domains: frozenset[str] = frozenset({"sensor", "climate"})
            classes: frozenset[str] | None = frozenset({measurement})
            label = measurement.replace("_", " ")
        else:
            assert kind is not None
            domains, classes = KINDS[kind]
            label = f"{kind}s" if not kind.endswith("s") else kind
        wanted_state = next(
            (
                states
                for word, states in STATE_FILTERS.items()
                if re.search(
                    rf"\b(are|is|left|still|currently|turned|switched)?\s*{word}\b", lowered
                )
                and re.search(rf"\b{word}\b", lowered)
            ),
            None,
        )
        pool = [
            client.states[eid]
            for eid in sorted(client.states)
            if eid.split(".", 1)[0] in domains
            and (not areas or client.area_id_of(eid) in area_ids)
            and _matches_class(client.states[eid], classes, measurement is not None)
            and not _hidden(client, eid)
        ]
        if not pool:
            return SourceAnswer(
                source=self.name,
                answer=f"I found no {label}{where} in Home Assistant.",
                data={"entities": []},
            )
        if measurement is not None:
            found = [_Found(s, 100.0) for s in pool]
            return self._answer(client, found, tz, now)
        selected = [s for s in pool if wanted_state is None or s["state"] in wanted_state]
        filter_word = next((w for w, st in STATE_FILTERS.items() if st is wanted_state), None)
        if wanted_state is not None:
            if selected:
                names = ", ".join(client.friendly_name(s["entity_id"]) for s in selected)
                lead = (
                    f"{len(selected)} of {len(pool)} {label}{where} "
                    f"{'is' if len(selected) == 1 else 'are'} {filter_word}: {names}. "
                )
            else:
                lead = f"No {label}{where} are {filter_word} ({len(pool)} checked). "
            found = [_Found(s, 100.0) for s in (selected or pool)]
            answer = self._answer(client, found, tz, now, lead=lead)
            answer.data["selected"] = [s["entity_id"] for s in selected]
            return answer
        return self._answer(
            client, [_Found(s, 100.0) for s in pool], tz, now, lead=f"{label.capitalize()}{where}: "
        )

    def _states(
        self,
        client: HAClient,
        matches: list[EntityMatch],
        question: str,
        tz: tzinfo,
        now: datetime,
    ) -> SourceAnswer:
        matches = [m for m in matches if not _hidden(client, m.entity_id)]
        if not matches:
            return SourceAnswer(source=self.name, answer="")
        top = matches[0].score
        chosen = [m for m in matches if m.score >= top - 3][:3]
        found = [_Found(client.states[m.entity_id], m.score) for m in chosen]
        lead = _yes_no(question, found[0].state)
        if _HOW_LONG.search(question):
            # "How long has the garage door been open?": the duration first.
            state = found[0].state
            took = ago(state.get("last_changed"), now).removesuffix(" ago")
            name = client.friendly_name(state["entity_id"])
            lead = (
                f"{name} has been {state_word(state)} for {took}. "
                if took != "just now"
                else (f"{name} has just become {state_word(state)}. ")
            )
        answer = self._answer(client, found, tz, now, lead=lead)
        answer.data["matches"] = [_match_dict(m) for m in chosen]
        return answer

    async def _history(
        self, client: HAClient, question: str, tz: tzinfo, now: datetime
    ) -> SourceAnswer | None:
        matches = [
            m for m in client.match_entities(question, limit=3) if not _hidden(client, m.entity_id)
        ]
        if not matches:
            return None
        match = matches[0]
        entity_id = match.entity_id
        target = _target_state(question, client.states.get(entity_id) or {})
        start = now - timedelta(days=HISTORY_DAYS)
        history = await client.history([entity_id], start, now, no_attributes=True)
        rows = history.get(entity_id, [])
        name = client.friendly_name(entity_id)
        hit: dict[str, Any] | None = None
        previous: str | None = None
        for row in rows:
            changed = parse_time(row.get("last_changed"))
            is_transition = previous is not None and row["state"] != previous
            if changed is not None and changed >= start and previous is None:
                is_transition = True  # the first row began inside the window
            if is_transition and (target is None or row["state"] in target[1]):
                hit = row
            previous = row["state"]
        current = client.states.get(entity_id) or (rows[-1] if rows else {})
        verb = target[0] if target else "changed"
        if hit is None:
            text = (
                f"{name} has not {_past(verb)} in the last {HISTORY_DAYS} days "
                f"(it is {state_word(current) if current else 'unknown'} now)."
            )
            found_state = current
        else:
            moment = hit.get("last_changed")
            text = f"{name} last {_past(verb)} {when(moment, tz, now)} ({ago(moment, now)})"
            if current and current.get("state") == hit["state"]:
                text += f" and is still {state_word(current)}"
            elif current:
                text += f"; it is {state_word(current)} now"
            text += "."
            found_state = hit
        evidence = [
            Evidence(
                source=self.name,
                title=name,
                text=text,
                ref=entity_id,
                score=round(match.score / 100, 3),
                timestamp=(found_state or {}).get("last_changed"),
            )
        ]
        return SourceAnswer(
            source=self.name,
            answer=text,
            evidence=evidence,
            data={
                "entity_id": entity_id,
                "last": hit,
                "history": rows[-20:],
                "match": _match_dict(match),
            },
        )


def _hidden(client: HAClient, entity_id: str) -> bool:
    entry = client.registries.entities.get(entity_id) or {}
    return bool(entry.get("hidden_by") or entry.get("disabled_by"))


def _matches_class(state: dict[str, Any], classes: frozenset[str] | None, strict: bool) -> bool:
    if classes is None:
        return True
    device_class = (state.get("attributes") or {}).get("device_class")
    if state["entity_id"].startswith("climate."):
        return "temperature" in classes
    if device_class is None:
        return not strict and not state["entity_id"].startswith("binary_sensor.")
    return device_class in classes


def _match_dict(match: EntityMatch) -> dict[str, Any]:
    return {
        "entity_id": match.entity_id,
        "name": match.name,
        "area": match.area,
        "score": match.score,
        "matched_on": match.matched_on,
    }


def _target_state(question: str, state: dict[str, Any]) -> tuple[str, frozenset[str]] | None:
    """The state a history question asks about, as HA stores it for this entity."""
    domain = str(state.get("entity_id", "")).split(".", 1)[0]
    device_class = str((state.get("attributes") or {}).get("device_class") or "")
    for pattern, word in _VERBS:
        if not pattern.search(question):
            continue
        if word is None:
            return None
        if domain == "binary_sensor":
            on, off = BINARY_WORDS.get(device_class, ("on", "off"))
            if word in ("open", "unlocked", "on", "home"):
                return word, frozenset({"on"})
            if word in ("closed", "locked", "off", "not_home"):
                return word, frozenset({"off"})
            return word, frozenset({"on"} if word == on else {"off"} if word == off else {word})
        if domain in ("person", "device_tracker") and word in ("on", "off"):
            continue
        if word == "not_home":
            return "left", frozenset({"not_home"})
        if word == "home":
            return "arrived", frozenset({"home"})
        return word, frozenset({word})
    return None


def _past(verb: str) -> str:
    return {
        "open": "opened",
        "closed": "closed",
        "locked": "locked",
        "unlocked": "unlocked",
        "on": "turned on",
        "off": "turned off",
        "left": "left",
        "arrived": "arrived",
        "changed": "changed",
    }.get(verb, verb)


def _yes_no(question: str, state: dict[str, Any]) -> str:
    """ "Yes. " / "No. " for "is the X open?"-style questions; else nothing."""
    lowered = question.strip().lower()
    if not re.match(r"^(is|are|was|has)\b", lowered):
        return ""
    said = state_word(state).lower()
    for word in ("open", "closed", "on", "off", "locked", "unlocked", "home", "away"):
        if re.search(rf"\b{word}\b", lowered):
            if state.get("state") in ("unavailable", "unknown"):
                return f"I can't tell: it is {said}. "
            yes = said == word or said.startswith(f"{word} ") or state.get("state") == word
            return "Yes. " if yes else "No. "
    return ""
