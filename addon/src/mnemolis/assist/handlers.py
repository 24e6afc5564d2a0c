"""Answer a recognised question intent with Home Assistant's semantics.

Ports of HA's intent handlers for the question intents (``intent/__init__.py``'s
GetState, GetTemperature, GetCurrentTime/Date and ``weather/intent.py``), reading
websocket states: which entities match, which of them are in the asked state, and
the speech slots the response template needs. They read; they never call a service.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from hassil import RecognizeResult

from .home import Home
from .targets import Candidate, Constraints, Match, Preferences, Reason, match_targets


class IntentFailed(Exception):
    """The intent was recognised but names nothing HA could answer for."""

    def __init__(self, reason: Reason | None, constraints: Constraints) -> None:
        super().__init__(reason.name if reason else "no match")
        self.reason = reason
        self.constraints = constraints


@dataclass(slots=True)
class Handled:
    """What the handler found: the states the response template speaks of."""

    intent: str
    response_key: str | None
    slots: dict[str, Any]
    matched: list[dict[str, Any]] = field(default_factory=list)
    unmatched: list[dict[str, Any]] = field(default_factory=list)
    areas: list[dict[str, Any]] = field(default_factory=list)
    floors: list[dict[str, Any]] = field(default_factory=list)
    #: Why nothing matched, when nothing did.
    reason: Reason | None = None

    @property
    def states(self) -> list[dict[str, Any]]:
        """Every state the answer rests on (matched first)."""
        return [*self.matched, *self.unmatched]

    @property
    def of_nothing_here(self) -> bool:
        """Asked about a kind of device the home has none of ("are any lights on?" in a
        home without lights): HA would say "No"; the router says there is none."""
        return not self.states and self.reason in (Reason.DOMAIN, Reason.DEVICE_CLASS)


def slot_values(result: RecognizeResult) -> dict[str, Any]:
    """Slot name → value, as HA's default agent passes them to a handler."""
    return {e.name: e.value for e in result.entities_list}


def speech_slots(result: RecognizeResult) -> dict[str, Any]:
    """Slot name → what was said (else the value), for the response template."""
    return {name: e.text or e.value for name, e in result.entities.items()}


def _listed(value: Any) -> set[str] | None:
    if value is None:
        return None
    if isinstance(value, list | tuple | set | frozenset):
        return {str(v) for v in value}
    return {str(value)}


def _text(value: Any) -> str | None:
    return str(value) if value not in (None, "") else None


def handle(
    result: RecognizeResult,
    home: Home,
    entity_ids: Collection[str],
    prefs: Preferences,
    now: datetime,
    weather_entity: str | None = None,
) -> Handled:
    """The states (or clock) a recognised question intent speaks of; raises IntentFailed."""
    name = result.intent.name
    slots = slot_values(result)
    said = speech_slots(result)
    key = result.response
    if name == "HassGetCurrentTime":
        return Handled(name, key, {**said, "time": now.time()})
    if name == "HassGetCurrentDate":
        return Handled(name, key, {**said, "date": now.date()})
    if name == "HassGetWeather":
        return _weather(name, key, said, slots, home, entity_ids, weather_entity)
    if name == "HassClimateGetTemperature":
        return _temperature(name, key, said, slots, home, entity_ids, prefs)
    return _state(name, key, said, slots, home, entity_ids, prefs)


def _state(
    name: str,
    key: str | None,
    said: dict[str, Any],
    slots: dict[str, Any],
    home: Home,
    entity_ids: Collection[str],
    prefs: Preferences,
) -> Handled:
    """HassGetState: match by name/area/floor/domain/device class, split by the asked state."""
    constraints = Constraints(
        name=_text(slots.get("name")),
        area_name=_text(slots.get("area")),
        floor_name=_text(slots.get("floor")),
        domains=_listed(slots.get("domain")),
        device_classes=_listed(slots.get("device_class")),
    )
    match = match_targets(home, entity_ids, constraints, prefs)
    if not match.ok and match.reason is not None and not match.reason.no_entities:
        raise IntentFailed(match.reason, constraints)
    wanted = _listed(slots.get("state"))
    groups: list[tuple[list[dict[str, Any]], set[str] | None]] = [
        (match.states, _as_said(constraints, wanted))
    ]
    # What a person asking means by the thing, where the home models it otherwise than
    # the grammar's one domain: a door is also a garage door and a door contact, a
    # window a cover named so or a window contact, people are tracked by their phones.
    for also, also_wanted in _also_asked(constraints, wanted, said.get("device_class")):
        more = match_targets(home, entity_ids, also, prefs)
        if more.ok:
            groups.append((more.states, also_wanted))
    untracked = all(s.get("state") in UNTRACKED for s in match.states)
    if constraints.domains == {"person"} and not constraints.name and untracked:
        trackers = Constraints(
            area_name=constraints.area_name,
            floor_name=constraints.floor_name,
            domains={"device_tracker"},
        )
        more = match_targets(home, entity_ids, trackers, prefs)
        if more.ok:
            groups = [(more.states, wanted)]
    handled = Handled(name, key, said, areas=match.areas, floors=match.floors)
    seen: set[str] = set()
    for states, wanted_here in groups:
        for state in states:
            if state["entity_id"] in seen:
                continue
            seen.add(state["entity_id"])
            if not wanted_here or state.get("state") in wanted_here:
                handled.matched.append(state)
            else:
                handled.unmatched.append(state)
    if not handled.states:
        handled.reason = match.reason
    return handled


# A state as people mean it: an open lock is not locked ("which locks are unlocked?").
_ALSO_STATES: dict[str, dict[str, set[str]]] = {
    "lock": {"unlocked": {"open", "opening", "unlocking"}},
    "cover": {"open": {"opening"}, "closed": {"closing"}},
}


def _as_said(constraints: Constraints, wanted: set[str] | None) -> set[str] | None:
    """The asked states with the ones people mean by them in the asked domains."""
    if not wanted:
        return wanted
    out = set(wanted)
    for domain in constraints.domains or ():
        for state in wanted:
            out |= _ALSO_STATES.get(domain, {}).get(state, set())
    return out


# Covers the grammar asks about by device class: the cover classes people mean by the
# same word, and the contact sensors homes have for them.
_OPENING_COVERS = {
    "door": {"door", "garage", "gate"},
    "garage": {"garage"},
    "window": {"window"},
    "gate": {"gate"},
}
_OPENING_SENSORS = {
    "door": {"door", "garage_door"},
    "garage": {"garage_door"},
    "window": {"window"},
    "gate": {"opening"},
}
_SENSED_STATES = {"open": "on", "opening": "on", "closed": "off", "closing": "off"}
# A person no tracker follows (the owner HA made at onboarding) says nothing of where.
UNTRACKED = frozenset({"unknown", "unavailable"})


def _also_asked(
    constraints: Constraints, wanted: set[str] | None, said_class: Any
) -> list[tuple[Constraints, set[str] | None]]:
    """The same question of the other entities a person means by the asked kind."""
    if constraints.name or constraints.domains != {"cover"}:
        return []
    classes = set(constraints.device_classes or ())
    if not classes or not classes <= set(_OPENING_COVERS):
        return []
    area, floor = constraints.area_name, constraints.floor_name
    out: list[tuple[Constraints, set[str] | None]] = []
    covers = set().union(*(_OPENING_COVERS[c] for c in classes)) - classes
    if covers:
        also = Constraints(area_name=area, floor_name=floor, domains={"cover"})
        also.device_classes = covers
        out.append((also, _as_said(also, wanted)))
    sensors = set().union(*(_OPENING_SENSORS[c] for c in classes))
    sensed = {_SENSED_STATES.get(s, s) for s in wanted} if wanted else None
    contacts = Constraints(area_name=area, floor_name=floor, domains={"binary_sensor"})
    contacts.device_classes = sensors
    out.append((contacts, sensed))
    if isinstance(said_class, str) and said_class.strip():
        # A cover with no device class, named for the thing ("Hall Window").
        named = Constraints(area_name=area, floor_name=floor, domains={"cover"})
        named.name_word = said_class.strip()
        out.append((named, _as_said(named, wanted)))
    return out


def _weather(
    name: str,
    key: str | None,
    said: dict[str, Any],
    slots: dict[str, Any],
    home: Home,
    entity_ids: Collection[str],
    weather_entity: str | None,
) -> Handled:
    """HassGetWeather: the named weather entity, else the configured one, else the first."""
    constraints = Constraints(name=_text(slots.get("name")), domains={"weather"})
    match = match_targets(home, entity_ids, constraints)
    if not match.ok:
        raise IntentFailed(match.reason, constraints)
    states = match.states
    if constraints.name is None and weather_entity:
        states = [s for s in states if s["entity_id"] == weather_entity] or states
    return Handled(name, key, said, matched=states[:1])


def _temperature(
    name: str,
    key: str | None,
    said: dict[str, Any],
    slots: dict[str, Any],
    home: Home,
    entity_ids: Collection[str],
    prefs: Preferences,
) -> Handled:
    """HassClimateGetTemperature: an area's temperature sensor, else one climate entity."""
    entity_name = _text(slots.get("name"))
    area = _text(slots.get("area"))
    floor = _text(slots.get("floor"))
    if not entity_name and (area or prefs.area_id):
        areas = home.registries.areas

        def area_sensor(cand: Candidate, possible: Collection[str]) -> bool:
            return any(
                (areas.get(a) or {}).get("temperature_entity_id") == cand.entity_id
                for a in possible
            )

        sensors = Constraints(
            area_name=area,
            floor_name=floor,
            domains={"sensor"},
            device_classes={"temperature"},
            single_target=True,
        )
        found = match_targets(home, entity_ids, sensors, prefs, area_filter=area_sensor)
        if found.ok:
            return Handled(name, key, said, matched=found.states)
    constraints = Constraints(
        name=entity_name, area_name=area, floor_name=floor, domains={"climate"}, single_target=True
    )
    match: Match = match_targets(home, entity_ids, constraints, prefs)
    if not match.ok:
        raise IntentFailed(match.reason, constraints)
    return Handled(name, key, said, matched=match.states)
