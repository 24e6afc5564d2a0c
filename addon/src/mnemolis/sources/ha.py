"""The ``ha`` source: Home Assistant states, areas, people and history."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo
from typing import Any

from ..errors import SourceError, SourceNotConfigured
from ..hass import ClientHold, HAClient, ha_configured
from ..hass.describe import BINARY_WORDS, ago, parse_time, state_word, when
from ..hass.facts import applies, device_class, domain_of, holds, said, state_phrase
from ..hass.matching import EntityMatch, words
from ..hass.question import OUTSIDE, Kind, Question, parse
from ..models import Evidence, SourceAnswer
from .base import QueryContext, Source, SourceDeps, SourceHealth

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
        view = _View(client, self.settings.ha.exposure, tz, now)
        if _PRESENCE.search(question):
            return self._presence(view, question)
        if _HISTORY.search(question):
            past = await self._history(view, question, tz, now)
            if past is not None:
                return past
        q = parse(question)
        if _SUN.search(q.lowered) and "sun.sun" in view.states:
            return self._sun(view, q)
        matches = view.matches(q.without_predicate(), limit=8)
        named = _named(view, q, matches)
        answer: SourceAnswer | None = None
        # "which humidity is the dehumidifier set to" names one thing; "which lights" many.
        listing = q.shape in ("count", "any", "all") or (q.shape == "list" and q.plural)
        if named is None or listing:
            answer = self._group(view, q, matches, named)
        if answer is None:
            answer = self._single(view, q, matches, named)
        if _COMMAND.search(question) and not answer.empty:
            answer.answer = f"I only read Home Assistant; I don't control devices. {answer.answer}"
        return answer

    async def judge(
        self,
        question: str,
        now: datetime | None = None,
        test: Callable[[float], bool] | None = None,
    ) -> tuple[bool | None, str]:
        """The verdict of a question about the home, and its evidence (the router's conditions).

        Decided by the very answer to the question, so "if the garage door is open"
        and "is the garage door open?" agree on the entity, its exposure and its
        polarity. With ``test``, the question asks for a reading ("what is the living
        room temperature") and the verdict is the test of that number.
        """
        answer = await self.query(question, QueryContext(now=now or datetime.now(UTC)))
        states = list(answer.data.get("entities") or [])
        if answer.empty or not states:
            said = answer.answer.strip().rstrip(".") or "nothing in Home Assistant answers it"
            return None, f"{said} (asked: “{question}”)"
        chosen = answer.data.get("selected") or [s["entity_id"] for s in states]
        evidence = _evidence_line(answer.answer, chosen)
        if test is None:
            verdict = answer.data.get("verdict")
            if verdict is None:
                return None, f"{evidence}, which does not answer “{question}”"
            return bool(verdict), evidence
        q = parse(question)
        values = [_reading(s, q) for s in states]
        known = [v for v in values if v is not None]
        if not known:
            return None, f"{evidence}, not a number"
        verdicts = {test(v) for v in known}
        if len(verdicts) > 1:
            return None, f"{evidence}: the readings disagree; name one"
        return verdicts.pop(), evidence

    def _evidence(self, view: _View, state: dict[str, Any], score: float) -> Evidence:
        return Evidence(
            source=self.name,
            title=view.name(state),
            text=view.line(state),
            ref=state["entity_id"],
            score=round(score / 100, 3),
            timestamp=state.get("last_changed"),
        )

    def _reply(
        self,
        view: _View,
        text: str,
        states: list[dict[str, Any]],
        score: float = 100.0,
        **data: Any,
    ) -> SourceAnswer:
        text = text.strip()
        return SourceAnswer(
            source=self.name,
            answer=text[:1].upper() + text[1:],
            evidence=[self._evidence(view, s, score) for s in states[:MAX_EVIDENCE]],
            data={"entities": states, **data},
        )

    def _presence(self, view: _View, question: str) -> SourceAnswer:
        people = view.people()
        if not people:
            return SourceAnswer(source=self.name, answer="")
        client = view.client
        home = [s for s in people if s["state"] == "home"]
        away = [s for s in people if s["state"] not in ("home", "unknown", "unavailable")]
        home_names = [client.friendly_name(s["entity_id"]) for s in home]
        lowered = question.lower()
        asks_any = bool(re.search(r"\b(?:any|some)(?:one|body)\b", lowered))
        asks_away = bool(re.search(r"\b(?:away|out|not home)\b", lowered))
        if asks_away:
            names = [_away(view, s) for s in away]
            text = (
                f"Away: {and_list(names)}."
                if away
                else "Nobody is away: " + f"{and_list(home_names)} {_be(home_names)} home."
                if home
                else "Nobody is away."
            )
        elif home:
            text = ("Yes, " if asks_any else "") + f"{and_list(home_names)} {_be(home_names)} home."
            if away:
                text += f" Away: {and_list([_away(view, s) for s in away])}."
        else:
            text = ("No, nobody" if asks_any else "Nobody") + " is home."
            if away:
                text += f" Away: {and_list([_away(view, s) for s in away])}."
        verdict = (bool(away) if asks_away else bool(home)) if asks_any else None
        return self._reply(view, text, people, home=home_names, verdict=verdict)

    def _sun(self, view: _View, q: Question) -> SourceAnswer:
        state = view.states["sun.sun"]
        attrs = state.get("attributes") or {}
        up = state.get("state") == "above_horizon"
        rising = when(attrs.get("next_rising"), view.tz, view.now)
        setting = when(attrs.get("next_setting"), view.tz, view.now)
        if re.search(r"\b(?:sunrise|rise|rises|come up|comes up)\b", q.lowered):
            text = f"The sun rises {rising}."
        elif q.shape != "yesno" and re.search(
            r"\b(?:sunset|sundown|go down|goes down|set|sets)\b", q.lowered
        ):
            text = f"The sun sets {setting}."
        else:
            fact = "up" if up else "down"
            text = f"The sun is {fact}; it {'sets' if up else 'rises'} {setting if up else rising}."
            if q.shape == "yesno" and q.predicate in ("up", "down"):
                yes = up == (q.predicate == "up")
                text = f"{'Yes' if yes else 'No'}, t" + text[1:]
                return self._reply(view, text, [state], verdict=yes)
        return self._reply(view, text, [state])

    def _group(
        self, view: _View, q: Question, matches: list[EntityMatch], named: EntityMatch | None
    ) -> SourceAnswer | None:
        """Lists, counts, any/all and measurements over a kind of entity, maybe in one area."""
        scope = view.scope(q)
        pool_spec = _pool_spec(q)
        if pool_spec is None:
            return None
        label, accept = pool_spec
        if named is not None and scope.label == "" and q.shape in ("value", "yesno"):
            return None
        if q.kind is None and q.measure is None and scope.label == "" and q.shape == "yesno":
            return None
        pool = [s for s in view.visible() if accept(s) and scope.contains(view, s)]
        if q.measure is not None and scope.outside:
            pool = _outside(view, pool, q)
        elif q.measure is not None and _INSIDE.search(q.lowered):
            pool = [s for s in pool if not _is_outside(view, s)] or pool
        if not pool and q.measure is not None and q.kind is None:
            # No sensor for it here: the thermostat's (or humidifier's) own reading.
            pool = [
                s
                for s in view.visible()
                if _reads(s, q.measure) is not None and scope.contains(view, s)
            ]
        if q.shape in ("value", "yesno"):
            # "are the entrance lights on": the lights whose own name says "entrance".
            pool = _narrow(view, pool, q, scope)
        weather = self.settings.forecast.entity_id
        if len(pool) > 1 and weather and any(s["entity_id"] == weather for s in pool):
            pool = [s for s in pool if s["entity_id"] == weather]  # "the weather": the one chosen
        if not pool:
            if q.measure is not None and named is not None:
                return None
            if named is not None and q.shape not in ("count", "list", "any", "all"):
                return None
            return self._reply(view, f"I found no {label}{scope.where} in Home Assistant.", [])
        if q.measure is not None and q.predicate is None:
            facts = [view.fact(s, q) for s in pool]
            return self._reply(view, _join_facts(facts) + ".", pool)
        domains = {domain_of(s) for s in pool}
        if label == "devices" and len(domains) == 1:
            label = _DOMAIN_LABELS.get(next(iter(domains)), label)
        pred = q.predicate
        if pred is not None and not any(applies(s, pred) for s in pool):
            pred = None  # "the air quality in the home": "home" is not a state of theirs
        if pred is None and q.shape in ("yesno", "any", "all"):
            pred = _default_predicate(pool)
        if pred is not None:
            pool = [s for s in pool if holds(s, pred) is not None or _unclear(s)]
        if pred is None:
            if q.shape == "count":
                text = f"There {_are(len(pool))} {len(pool)} {_noun(label, len(pool))}{scope.where}"
                return self._reply(view, text + f": {view.grouped(pool)}.", pool)
            if len(pool) == 1:
                return self._reply(view, view.fact(pool[0], q) + ".", pool)
            return self._reply(view, _join_facts([view.fact(s, q) for s in pool]) + ".", pool)
        word = _pred_word(pred)
        selected = [s for s in pool if holds(s, pred)]
        n, total = len(selected), len(pool)
        media = bool(selected) and all(domain_of(s) == "media_player" for s in selected)
        names = view.grouped(selected, q if media else None)  # what each one plays
        if q.shape == "all":
            if n == total:
                every = f"both {label}" if total == 2 else f"all {total} {label}"
                text = f"Yes, {every}{scope.where} are {word}."
            else:
                rest = [s for s in pool if not holds(s, pred)]
                text = (
                    f"No, {len(rest)} of {total} {label}{scope.where} "
                    f"{_be(rest)} not {word}: {view.grouped(rest, q)}."
                )
            return self._reply(
                view, text, pool, selected=[s["entity_id"] for s in selected], verdict=n == total
            )
        if q.shape in ("any", "yesno") and total == 1 and n <= 1:
            return self._single_fact(view, q, pool[0], 100.0, pred)
        if q.shape in ("any", "yesno"):
            be = "is" if total == 1 else "are"
            if n:
                some = _count_phrase(n, total, label)
                text = f"Yes, {some}{scope.where} {_be(selected)} {word}: {names}."
            else:
                text = f"No, {_none_phrase(total, label)}{scope.where} {be} {word}."
            return self._reply(
                view,
                text,
                selected or pool,
                selected=[s["entity_id"] for s in selected],
                verdict=bool(n),
            )
        if n:
            text = f"{_count_phrase(n, total, label)}{scope.where} {_be(selected)} {word}: {names}."
        elif total == 1:
            text = f"No {label}{scope.where} are {word}: {view.fact(pool[0], q)}."
        else:
            text = f"None of the {total} {label}{scope.where} are {word}."
        return self._reply(
            view, text, selected or pool, selected=[s["entity_id"] for s in selected]
        )

    def _single(
        self, view: _View, q: Question, matches: list[EntityMatch], named: EntityMatch | None
    ) -> SourceAnswer:
        match_ = named or (matches[0] if matches else None)
        if match_ is None:
            return SourceAnswer(source=self.name, answer="")
        state = view.states[match_.entity_id]
        answer = self._single_fact(view, q, state, match_.score)
        answer.data["matches"] = [_match_dict(m) for m in matches[:3]]
        return answer

    def _single_fact(
        self,
        view: _View,
        q: Question,
        state: dict[str, Any],
        score: float,
        pred: str | None = None,
    ) -> SourceAnswer:
        client = view.client
        name = client.friendly_name(state["entity_id"])
        if _HOW_LONG.search(q.text):
            took = ago(state.get("last_changed"), view.now).removesuffix(" ago")
            text = (
                f"{name} has been {view.phrase(state, q)} for {took}."
                if took != "just now"
                else f"{name} has just become {view.phrase(state, q)}."
            )
            return self._reply(view, text, [state], score)
        fact = view.fact(state, q)
        since = when(state.get("last_changed"), view.tz, view.now)
        pred = pred or q.predicate
        if pred is not None and not applies(state, pred):
            pred = None
        if pred is None and q.shape in ("yesno", "any"):
            pred = _default_predicate([state])
        verdict = holds(state, pred) if pred is not None and q.shape != "value" else None
        if pred is not None and q.shape != "value" and verdict is None and _unclear(state):
            text = f"I can't tell: {fact}."
        elif verdict is not None:
            text = f"{'Yes' if verdict else 'No'}, {fact} (since {since})."
        else:
            text = f"{fact} (since {since})."
        return self._reply(view, text, [state], score, verdict=verdict)

    async def _history(
        self, view: _View, question: str, tz: tzinfo, now: datetime
    ) -> SourceAnswer | None:
        client = view.client
        matches = view.matches(question, limit=3)
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


_SUN = re.compile(
    r"\bsun\b|\bsunset\b|\bsunrise\b|\bsundown\b|\bdark outside\b|\bdaylight\b", re.IGNORECASE
)
MAX_EVIDENCE = 12
_INSIDE = re.compile(r"\b(?:inside|indoors?|the house|at home|in here)\b")
_OUTSIDE_WORDS = frozenset(
    {"outdoor", "outdoors", "outside", "exterior", "garden", "backyard", "yard", "patio",
     "balcony", "terrace", "porch", "street", "roof"}
)  # fmt: skip
# The domain that carries a predicate first, when several entities share a name.
_PRIMARY = {
    "open": ("binary_sensor", "cover", "valve"),
    "closed": ("binary_sensor", "cover", "valve"),
    "locked": ("lock",),
    "unlocked": ("lock",),
    "jammed": ("lock",),
    "home": ("person",),
    "away": ("person",),
    "playing": ("media_player",),
    "armed": ("alarm_control_panel",),
    "disarmed": ("alarm_control_panel",),
    "heating": ("climate", "water_heater"),
}
_PRED_WORDS = {
    "detected": "detecting something",
    "available": "available",
    "unavailable": "unavailable",
    "away": "away",
    "up": "up",
    "down": "down",
    "low": "low",
    "wet": "wet",
    "dry": "dry",
}
_DOMAIN_LABELS = {
    "media_player": "media players",
    "light": "lights",
    "switch": "switches",
    "lock": "locks",
    "cover": "covers",
    "fan": "fans",
    "valve": "valves",
    "vacuum": "vacuums",
    "climate": "thermostats",
    "binary_sensor": "sensors",
}
_IRREGULAR = {"switches": "switch", "batteries": "battery", "people": "person"}


@dataclass(slots=True)
class _Scope:
    """Where a question looks: an area or a floor (with the words of their names), or outside."""

    label: str = ""
    where: str = ""
    area_ids: frozenset[str] = frozenset()
    name_words: tuple[tuple[str, ...], ...] = ()
    outside: bool = False

    def contains(self, view: _View, state: dict[str, Any]) -> bool:
        """In the area; or with no area, its name says the area ("Living room temperature")."""
        if not self.area_ids:
            return True
        entity_id = state["entity_id"]
        area_id = view.client.area_id_of(entity_id)
        if area_id is not None:
            return area_id in self.area_ids
        name = set(words(view.client.friendly_name(entity_id)))
        return any(ws and set(ws) <= name for ws in self.name_words)


class _View:
    """The states a question may use (visible, exposed) and how to say them."""

    def __init__(self, client: HAClient, exposure: str, tz: tzinfo, now: datetime) -> None:
        self.client = client
        self.states = client.states
        self.tz = tz
        self.now = now
        self.exposed = client.exposed_to_assist() if exposure == "assist" else None
        units = client.config.get("unit_system") or {}
        self.temp = str(units.get("temperature") or "°C")
        self._visible: list[dict[str, Any]] | None = None

    def ok(self, entity_id: str) -> bool:
        """Visible in HA (not hidden or disabled) and, when chosen, exposed to Assist."""
        entry = self.client.registries.entities.get(entity_id) or {}
        if entry.get("hidden_by") or entry.get("disabled_by"):
            return False
        return self.exposed is None or self.exposed.get(entity_id, False)

    def visible(self) -> list[dict[str, Any]]:
        """Every usable state, by entity id (worked out once per question)."""
        if self._visible is None:
            self._visible = [self.states[e] for e in sorted(self.states) if self.ok(e)]
        return self._visible

    def matches(self, text: str, limit: int = 5) -> list[EntityMatch]:
        """Entities the text names, usable ones only."""
        found = self.client.match_entities(text, limit=limit * 3)
        return [m for m in found if self.ok(m.entity_id) and m.entity_id in self.states][:limit]

    def scope(self, q: Question) -> _Scope:
        """The area or floor the question names, if any."""
        client = self.client
        outside = bool(OUTSIDE.search(q.lowered))
        areas = client.match_areas(q.text)
        if areas:
            area = client.registries.areas.get(areas[0].area_id) or {}
            names = [str(area.get("name") or areas[0].name)] + [
                str(a) for a in area.get("aliases") or []
            ]
            return _Scope(
                areas[0].name,
                f" in the {areas[0].name}",
                frozenset({areas[0].area_id}),
                tuple(tuple(words(n)) for n in names),
                outside,
            )
        floors = client.match_floors(q.text)
        if floors:
            ids = client.areas_on_floor(floors[0].area_id)
            name = floors[0].name
            where = f" {name.lower()}" if name.lower().endswith("stairs") else f" on the {name}"
            names = [str((client.registries.areas.get(a) or {}).get("name") or "") for a in ids]
            return _Scope(
                name, where, frozenset(ids), tuple(tuple(words(n)) for n in names if n), outside
            )
        return _Scope(outside=outside, where=" outside" if outside else "")

    def phrase(self, state: dict[str, Any], q: Question | None = None) -> str:
        """The state in words ("open at 70 %")."""
        return state_phrase(state, focus=q.focus if q else "", temp=self.temp)

    def name(self, state: dict[str, Any]) -> str:
        """The entity's name as HA shows it."""
        own = (state.get("attributes") or {}).get("friendly_name")
        return str(own) if own else self.client.friendly_name(state["entity_id"])

    def fact(self, state: dict[str, Any], q: Question | None = None) -> str:
        """ "Kitchen Window is open at 70 %"."""
        name = self.name(state)
        if q is not None and q.measure is not None and q.focus != "target":
            attr = _reads(state, q.measure)
            if attr == "battery_level" or (attr and domain_of(state) != "climate"):
                value = (state.get("attributes") or {})[attr]
                what = "battery" if attr == "battery_level" else "humidity"
                return f"{name} {what} is {value} %"
        return f"{name} is {self.phrase(state, q)}"

    def line(self, state: dict[str, Any]) -> str:
        """The evidence line: name, area, state and since when."""
        name = self.name(state)
        area = self.client.area_of(state["entity_id"])
        where = f" ({area})" if area and area.lower() not in name.lower() else ""
        since = when(state.get("last_changed"), self.tz, self.now)
        return f"{name}{where} is {self.phrase(state)} (since {since})"

    def grouped(self, states: list[dict[str, Any]], q: Question | None = None) -> str:
        """Names grouped by area: "A and B in the Kitchen; C in the Hallway"."""
        by_area: dict[str | None, list[str]] = {}
        for s in states:
            name = self.name(s)
            phrase = self.phrase(s, q) if q is not None else ""
            if phrase and phrase != said(str(s.get("state", ""))):
                name = f"{name} ({phrase})"  # only when it says more than the state
            by_area.setdefault(self.client.area_of(s["entity_id"]), []).append(name)
        if len(by_area) <= 1:
            return and_list([n for names in by_area.values() for n in names])
        parts = [f"{and_list(names)} in the {area}" for area, names in by_area.items() if area]
        if None in by_area:
            parts.append(and_list(by_area[None]))
        return "; ".join(parts)

    def people(self) -> list[dict[str, Any]]:
        """Persons with a known state, and trackers no person uses."""
        persons = [s for s in self.visible() if s["entity_id"].startswith("person.")]
        used: set[str] = set()
        for p in persons:
            used.update(str(t) for t in (p.get("attributes") or {}).get("device_trackers") or [])
        known = [p for p in persons if p["state"] not in ("unknown", "unavailable")]
        trackers = [
            s
            for s in self.visible()
            if s["entity_id"].startswith("device_tracker.")
            and s["entity_id"] not in used
            and s["state"] not in ("unknown", "unavailable")
        ]
        seen = {self.name(p) for p in known}
        return known + [t for t in trackers if self.name(t) not in seen]


def _away(view: _View, state: dict[str, Any]) -> str:
    """ "Bob", or "Bob (at Work)" when a zone says where."""
    name = view.name(state)
    phrase = view.phrase(state)
    return name if phrase == "away" else f"{name} ({phrase})"


def and_list(items: list[str]) -> str:
    """ "A", "A and B", "A, B and C"."""
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _be(items: list[Any]) -> str:
    return "is" if len(items) == 1 else "are"


def _are(n: int) -> str:
    return "is" if n == 1 else "are"


def _singular(label: str) -> str:
    if label in _IRREGULAR:
        return _IRREGULAR[label]
    if label.endswith("es") and label[:-2].endswith(("sh", "ch", "x", "ss")):
        return label[:-2]
    return label[:-1] if label.endswith("s") else label


def _noun(label: str, n: int) -> str:
    return label if n != 1 else _singular(label)


def _count_phrase(n: int, total: int, label: str) -> str:
    if total == 1:
        return f"the one {_singular(label)}"
    if n == total:
        return f"both {label}" if total == 2 else f"all {total} {label}"
    return f"{n} of {total} {label}"


def _none_phrase(total: int, label: str) -> str:
    if total == 1:
        return f"the one {_singular(label)}"
    return f"none of the {total} {label}"


def _pred_word(pred: str) -> str:
    return _PRED_WORDS.get(pred) or said(pred)


def _join_facts(facts: list[str]) -> str:
    return "; ".join(facts)


def _default_predicate(pool: list[dict[str, Any]]) -> str | None:
    """What "is there motion", "is the fan" ask when no state is named: on / detecting."""
    domains = {domain_of(s) for s in pool}
    if domains == {"binary_sensor"}:
        return "detected" if all(applies(s, "detected") for s in pool) else "on"
    if domains and domains <= {"light", "switch", "fan", "input_boolean", "siren", "humidifier"}:
        return "on"
    return None


def _reads(state: dict[str, Any], measure: frozenset[str]) -> str | None:
    """The attribute of a non-sensor that carries this measurement, if it has one."""
    attrs = state.get("attributes") or {}
    domain = domain_of(state)
    if "temperature" in measure and domain in ("climate", "water_heater"):
        return "current_temperature" if attrs.get("current_temperature") is not None else None
    if "humidity" in measure and domain in ("climate", "humidifier"):
        return "current_humidity" if attrs.get("current_humidity") is not None else None
    if "battery" in measure and attrs.get("battery_level") is not None:
        return "battery_level"
    return None


def _unclear(state: dict[str, Any]) -> bool:
    return state.get("state") in ("unavailable", "unknown")


def _fits_kind(state: dict[str, Any], q: Question) -> bool:
    """The entity is of the kind the question names (or its name holds the kind word)."""
    if q.kind is None:
        return True
    name_words = set(words(str((state.get("attributes") or {}).get("friendly_name") or "")))
    if set(words(q.kind_word or "")) & name_words or {_singular(q.kind.label)} & name_words:
        return True
    return domain_of(state) in q.kind.domains


def _fits_measure(state: dict[str, Any], q: Question) -> bool:
    """The entity reads the measurement the question names (or its name says it does)."""
    if q.measure is None:
        return True
    name_words = set(words(str((state.get("attributes") or {}).get("friendly_name") or "")))
    if set(words(q.measure_word or "")) & name_words:
        return True
    domain = domain_of(state)
    if domain in ("sensor", "number", "input_number") and device_class(state) in q.measure:
        return True
    if domain == "air_quality" and q.measure & {"aqi", "pm25", "pm10", "air_quality"}:
        return True
    if "temperature" in q.measure and domain in ("climate", "water_heater", "weather"):
        return True
    return _reads(state, q.measure) is not None


def _fit(state: dict[str, Any], q: Question) -> int:
    """How well an entity's kind fits what the question asks (beyond its name)."""
    fit = 0
    domain = domain_of(state)
    if q.predicate is not None:
        if applies(state, q.predicate):
            fit += 2 + (domain in _PRIMARY.get(q.predicate, ()))
        else:
            fit -= 3
    if q.kind is not None and domain in q.kind.domains:
        fit += 1
    if domain == "person":
        fit += 1  # a person over the tracker of the same name
    return fit


def _named(view: _View, q: Question, matches: list[EntityMatch]) -> EntityMatch | None:
    """The entity the question names, when a name (not only an area) matches well.

    A name that does not fit the kind or measurement the question asks about
    ("the lights in the kitchen" vs. a media player called "Kitchen") is not it.
    """
    good = [
        m
        for m in matches
        if m.score >= 85
        and m.matched_on != "area"
        and _fits_kind(view.states[m.entity_id], q)
        and _fits_measure(view.states[m.entity_id], q)
    ]
    if not good:
        return None
    top = good[0].score
    close = [m for m in good if m.score >= top - 8]
    ranked = sorted(
        close,
        key=lambda m: (-_fit(view.states[m.entity_id], q), -m.score, -len(words(m.name))),
    )
    return ranked[0]


def _narrow(
    view: _View, pool: list[dict[str, Any]], q: Question, scope: _Scope
) -> list[dict[str, Any]]:
    """Of several entities of a kind, those the question singles out by a word of their name.

    "the air quality in the office": of "Air Quality Home" and "Air Quality
    Office", the one whose own words (not shared by all) the question uses.
    """
    if len(pool) < 2:
        return pool
    names = [set(words(view.name(s))) for s in pool]
    common = set.intersection(*names)
    # The area, the kind and the measurement the question names single out nothing.
    said_for_scope = {w for ws in scope.name_words for w in ws}
    said_for_kind = set(words(f"{q.kind_word or ''} {q.measure_word or ''}"))
    asked = set(words(q.text)) - said_for_scope - said_for_kind
    hits = [len((n - common) & asked) for n in names]
    best = max(hits)
    if best == 0:
        return pool
    return [s for s, h in zip(pool, hits, strict=True) if h == best]


def _kind_accept(kind: Kind, state: dict[str, Any], name: str) -> bool:
    domain = domain_of(state)
    if domain not in kind.domains:
        return False
    if kind.classes is None:
        return True
    dclass = device_class(state)
    if dclass:
        return dclass in kind.classes
    if domain == "binary_sensor":
        return False
    # No device class: the name says what it is ("Kitchen Window").
    base = _singular(kind.label).lower()
    return base in words(name) or f"{base}s" in words(name)


def _pool_spec(q: Question) -> tuple[str, Any] | None:
    """What the question counts or lists: a label and a test on states."""
    kind = q.kind
    pred = q.predicate
    if kind is not None and pred in ("locked", "unlocked", "jammed") and "lock" not in kind.domains:
        kind = Kind("locks", frozenset({"lock"}))
    if kind is not None and not (q.measure and kind.domains <= {"sensor", "binary_sensor"}):
        chosen = kind

        def accept_kind(s: dict[str, Any]) -> bool:
            if s["entity_id"].split(".", 1)[0] not in chosen.domains:
                return False
            name = str((s.get("attributes") or {}).get("friendly_name") or "")
            return _kind_accept(chosen, s, name)

        return chosen.label, accept_kind
    if q.measure is not None:
        measure = q.measure

        def accept_measure(s: dict[str, Any]) -> bool:
            domain = domain_of(s)
            if domain == "air_quality":
                return bool(measure & {"aqi", "pm25", "pm10", "air_quality"})
            return domain == "sensor" and device_class(s) in measure

        label = sorted(measure)[0].replace("_", " ")
        return f"{label} sensors", accept_measure
    if pred is not None and q.shape in ("list", "count", "any", "all"):
        predicate = pred

        def accept_any(s: dict[str, Any]) -> bool:
            return domain_of(s) in _LISTABLE and applies(s, predicate)

        return "devices", accept_any
    return None


_LISTABLE = frozenset(
    {"light", "switch", "fan", "cover", "lock", "binary_sensor", "media_player", "climate",
     "valve", "humidifier", "vacuum", "water_heater", "alarm_control_panel", "siren"}
)  # fmt: skip


def _is_outside(view: _View, state: dict[str, Any]) -> bool:
    """Named or placed outside ("Outdoor Temperature", the Garden area)."""
    client = view.client
    return bool(
        _OUTSIDE_WORDS & set(words(client.friendly_name(state["entity_id"])))
        or _OUTSIDE_WORDS & set(words(client.area_of(state["entity_id"]) or ""))
    )


def _outside(view: _View, pool: list[dict[str, Any]], q: Question) -> list[dict[str, Any]]:
    """Measurements outside: sensors named or placed outside, else the weather entity."""
    out = [s for s in pool if _is_outside(view, s)]
    if out:
        return out
    key = "temperature" if q.measure and "temperature" in q.measure else "humidity"
    if q.measure and not q.measure & {"temperature", "humidity"}:
        return []
    weather = [
        s
        for s in view.visible()
        if domain_of(s) == "weather" and (s.get("attributes") or {}).get(key) is not None
    ]
    return [_weather_reading(s, key, view.temp) for s in weather[:1]]


def _weather_reading(state: dict[str, Any], key: str, temp: str) -> dict[str, Any]:
    """A weather entity's current temperature/humidity as a sensor-like state."""
    attrs = state.get("attributes") or {}
    unit = str(attrs.get("temperature_unit") or temp) if key == "temperature" else "%"
    return {
        **state,
        "state": str(attrs.get(key)),
        "attributes": {
            "friendly_name": attrs.get("friendly_name"),
            "unit_of_measurement": unit,
            "device_class": key,
        },
        "entity_id": "sensor." + state["entity_id"].split(".", 1)[1] + "_weather",
        "_source_id": state["entity_id"],
    }


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


_YES_NO = re.compile(r"^(?:yes|no),\s*", re.IGNORECASE)
_SINCE = re.compile(r"\s*\(since ([^)]*)\)")


def _evidence_line(answer: str, entity_ids: list[str]) -> str:
    """An answer as a condition's reason: the fact and since when, with the entity ids."""
    text = _YES_NO.sub("", answer.strip()).removeprefix("I can't tell: ")
    text = _SINCE.sub(r", since \1", text).rstrip(". ")
    text = text[:1].upper() + text[1:]
    ids = ", ".join(entity_ids[:4]) + (", …" if len(entity_ids) > 4 else "")
    return f"{text} ({ids})" if ids else text


def _reading(state: dict[str, Any], q: Question) -> float | None:
    """The number a reading question is about: a sensor's state, a thermostat's temperature."""
    attrs = state.get("attributes") or {}
    domain = domain_of(state)
    raw: Any = state.get("state")
    if q.measure is not None and "battery" in q.measure and attrs.get("battery_level") is not None:
        raw = attrs["battery_level"]
    elif domain in ("climate", "water_heater"):
        if q.focus == "target":
            raw = attrs.get("temperature", attrs.get("target_temp_low"))
        elif q.measure is not None and "humidity" in q.measure:
            raw = attrs.get("current_humidity")
        else:
            raw = attrs.get("current_temperature", attrs.get("temperature"))
    elif domain == "humidifier":
        raw = attrs.get("current_humidity") if q.focus != "target" else attrs.get("humidity")
        raw = raw if raw is not None else attrs.get("humidity")
    elif domain == "weather":
        raw = attrs.get("humidity" if q.measure and "humidity" in q.measure else "temperature")
    elif domain in ("cover", "valve"):
        raw = attrs.get("current_position")
    elif domain == "fan":
        raw = attrs.get("percentage")
    elif domain == "light":
        bright = attrs.get("brightness")
        raw = round(bright / 2.55) if isinstance(bright, int | float) else None
    elif domain == "media_player":
        volume = attrs.get("volume_level")
        raw = volume * 100 if isinstance(volume, int | float) else None
    elif domain == "vacuum":
        raw = attrs.get("battery_level")
    if isinstance(raw, bool) or raw is None:
        return None
    try:
        return float(raw)
    except (TypeError, ValueError):
        return None
