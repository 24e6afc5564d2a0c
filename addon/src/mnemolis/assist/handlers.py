"""Answer a recognised question intent with Home Assistant's semantics.

Ports of HA's intent handlers for the question intents (``intent/__init__.py``'s
GetState, GetTemperature, GetCurrentTime/Date and ``weather/intent.py``), reading
websocket states: which entities match, which of them are in the asked state, and
the speech slots the response template needs. They read; they never call a service.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
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
    entity_ids: Iterable[str],
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
    if (not match.ok and match.reason in (Reason.DOMAIN, Reason.DEVICE_CLASS)) or (
        match.ok and match.states and all(s.get("state") in UNTRACKED for s in match.states)
    ):
        # The home models the thing otherwise: doors as contact sensors, people as
        # trackers. Asked of what it has, not answered "none" for what it lacks.
        widened = _as_the_home_has(constraints, wanted)
        if widened is not None:
            match = match_targets(home, entity_ids, widened[0], prefs)
            wanted = widened[1]
    handled = Handled(name, key, said, areas=match.areas, floors=match.floors)
    handled.reason = match.reason
    for state in match.states:
        if not wanted or state.get("state") in wanted:
            handled.matched.append(state)
        else:
            handled.unmatched.append(state)
    return handled


# Covers the grammar asks about, and the contact sensors homes have for them instead.
_SENSED_COVERS = {
    "door": "door",
    "garage": "garage_door",
    "window": "window",
    "gate": "opening",
}
_SENSED_STATES = {"open": "on", "opening": "on", "closed": "off", "closing": "off"}
# A person no tracker follows (the owner HA made at onboarding) says nothing of where.
UNTRACKED = frozenset({"unknown", "unavailable"})


def _as_the_home_has(
    constraints: Constraints, wanted: set[str] | None
) -> tuple[Constraints, set[str] | None] | None:
    """The same question of the entities a home uses instead of the ones it lacks."""
    if constraints.name:
        return None
    domains = set(constraints.domains or ())
    classes = set(constraints.device_classes or ())
    if domains == {"cover"} and classes and classes <= set(_SENSED_COVERS):
        sensed = Constraints(
            area_name=constraints.area_name,
            floor_name=constraints.floor_name,
            domains={"binary_sensor"},
            device_classes={_SENSED_COVERS[c] for c in classes},
        )
        states = {_SENSED_STATES.get(s, s) for s in wanted} if wanted else None
        return sensed, states
    if domains == {"person"} and not classes and not constraints.name:
        trackers = Constraints(
            area_name=constraints.area_name,
            floor_name=constraints.floor_name,
            domains={"device_tracker"},
        )
        return trackers, wanted
    return None


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
