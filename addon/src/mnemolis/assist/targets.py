"""Which entities an intent's slots name: HA's ``async_match_targets``, on websocket states.

The same order of filters and the same outcomes as Home Assistant's helper, so an
answer names the entities HA's Assist would: domain, state, name (or alias, or entity
id), device class, floor, area, then duplicate names told apart by the area or floor
the question was heard in.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from enum import Enum, auto
from typing import Any

from .home import Home, state_name


class Reason(Enum):
    """Why nothing matched (HA's ``MatchFailedReason``)."""

    NAME = auto()
    AREA = auto()
    FLOOR = auto()
    DOMAIN = auto()
    DEVICE_CLASS = auto()
    STATE = auto()
    INVALID_AREA = auto()
    INVALID_FLOOR = auto()
    DUPLICATE_NAME = auto()
    MULTIPLE_TARGETS = auto()

    @property
    def no_entities(self) -> bool:
        """True when the failure only means "none of them", which a question may answer."""
        return self not in (Reason.INVALID_AREA, Reason.INVALID_FLOOR, Reason.DUPLICATE_NAME)


@dataclass(slots=True)
class Constraints:
    """What the slots ask for."""

    name: str | None = None
    area_name: str | None = None
    floor_name: str | None = None
    domains: Collection[str] | None = None
    device_classes: Collection[str] | None = None
    states: Collection[str] | None = None
    single_target: bool = False
    #: Entities with no device class whose name has this word ("windows": "Hall Window").
    name_word: str | None = None


@dataclass(slots=True)
class Preferences:
    """Where the question was heard: tells duplicate names apart."""

    area_id: str | None = None
    floor_id: str | None = None


@dataclass(slots=True)
class Match:
    """The entities that match, or why none do."""

    ok: bool
    reason: Reason | None = None
    states: list[dict[str, Any]] = field(default_factory=list)
    areas: list[dict[str, Any]] = field(default_factory=list)
    floors: list[dict[str, Any]] = field(default_factory=list)
    no_match_name: str | None = None


@dataclass(slots=True)
class Candidate:
    """One entity under consideration."""

    state: dict[str, Any]
    entry: dict[str, Any] | None
    area: dict[str, Any] | None = None
    matched_name: str | None = None

    @property
    def entity_id(self) -> str:
        """The entity id."""
        return str(self.state["entity_id"])


AreaFilter = Callable[[Candidate, Collection[str]], bool]


def normalize(name: str) -> str:
    """HA's name comparison: trimmed and case-folded."""
    return name.strip().casefold()


def _in_areas(candidate: Candidate, area_ids: Collection[str]) -> bool:
    return candidate.area is not None and candidate.area.get("area_id") in area_ids


def find_areas(home: Home, name: str) -> list[dict[str, Any]]:
    """Areas a name (or alias, or id) names."""
    return _find(home.registries.areas.values(), "area_id", name)


def find_floors(home: Home, name: str) -> list[dict[str, Any]]:
    """Floors a name (or alias, or id) names."""
    return _find(home.registries.floors.values(), "floor_id", name)


def _find(entries: Iterable[dict[str, Any]], key: str, name: str) -> list[dict[str, Any]]:
    norm = normalize(name)
    out = []
    for entry in entries:
        names = [str(entry.get("name") or ""), *(str(a) for a in entry.get("aliases") or [])]
        if entry.get(key) == name or any(normalize(n) == norm for n in names if n):
            out.append(entry)
    return out


def device_class(candidate: Candidate) -> str | None:
    """The registry's device class (a user override), else the state's."""
    entry = candidate.entry or {}
    value = entry.get("device_class") or entry.get("original_device_class")
    if value:
        return str(value)
    attr = (candidate.state.get("attributes") or {}).get("device_class")
    return str(attr) if attr else None


def match_targets(
    home: Home,
    entity_ids: Iterable[str],
    constraints: Constraints,
    preferences: Preferences | None = None,
    area_filter: AreaFilter = _in_areas,
) -> Match:
    """The entities the constraints name, in HA's order of filters."""
    prefs = preferences or Preferences()
    entries = home.registries.entities
    states = home.states
    if constraints.domains:
        domains = constraints.domains
        entity_ids = [e for e in entity_ids if e.partition(".")[0] in domains]
        if not entity_ids:
            return Match(False, Reason.DOMAIN)
    cands = [Candidate(states[e], entries.get(e)) for e in entity_ids if e in states]
    if not cands:
        return Match(False, Reason.DOMAIN)
    if constraints.states:
        cands = [c for c in cands if c.state.get("state") in constraints.states]
        if not cands:
            return Match(False, Reason.STATE)
    if constraints.name:
        cands = list(_by_name(constraints.name, cands))
        if not cands:
            return Match(False, Reason.NAME)
    if constraints.device_classes:
        cands = [c for c in cands if device_class(c) in constraints.device_classes]
        if not cands:
            return Match(False, Reason.DEVICE_CLASS)
    if constraints.name_word:
        cands = [
            c
            for c in cands
            if device_class(c) is None
            and _has_word(state_name(c.state, c.entry), constraints.name_word)
        ]
        if not cands:
            return Match(False, Reason.NAME)
    for cand in cands:
        area_id = home.area_id_of(cand.entity_id)
        cand.area = home.registries.areas.get(area_id) if area_id else None
    floors: list[dict[str, Any]] = []
    areas: list[dict[str, Any]] = []
    if constraints.floor_name or constraints.area_name:
        possible = set(home.registries.areas)
        if constraints.floor_name:
            floors = find_floors(home, constraints.floor_name)
            if not floors:
                return Match(False, Reason.INVALID_FLOOR, no_match_name=constraints.floor_name)
            floor_ids = {f.get("floor_id") for f in floors}
            possible = {
                a for a, area in home.registries.areas.items() if area.get("floor_id") in floor_ids
            }
            cands = [c for c in cands if area_filter(c, possible)]
            if not cands:
                return Match(False, Reason.FLOOR, floors=floors)
        if constraints.area_name:
            areas = find_areas(home, constraints.area_name)
            if not areas:
                return Match(False, Reason.INVALID_AREA, no_match_name=constraints.area_name)
            possible &= {str(a.get("area_id")) for a in areas}
            cands = [c for c in cands if area_filter(c, possible)]
            if not cands:
                return Match(False, Reason.AREA, areas=areas)
    if constraints.name:
        picked = _told_apart(cands, prefs, area_filter)
        if isinstance(picked, Match):
            picked.areas, picked.floors = areas, floors
            return picked
        cands = picked
    if constraints.single_target and len(cands) > 1:
        one = _one_target(cands, prefs, area_filter)
        if one is None:
            return Match(False, Reason.MULTIPLE_TARGETS, states=[c.state for c in cands])
        cands = [one]
    return Match(True, None, [c.state for c in cands], areas, floors)


def _has_word(name: str, said: str) -> bool:
    """Whether a name has the said word, in any number ("windows" in "Hall Window")."""
    stem = normalize(said)
    stem = stem[: max(4, len(stem) - 2)]
    return any(w.startswith(stem) for w in normalize(name).split())


def _by_name(name: str, cands: Iterable[Candidate]) -> Iterable[Candidate]:
    norm = normalize(name)
    for cand in cands:
        entry = cand.entry or {}
        names = [state_name(cand.state, entry)]
        if entry.get("name"):
            names.append(str(entry["name"]))
        names += [str(a) for a in entry.get("aliases") or [] if a]
        if cand.entity_id == name or any(normalize(n) == norm for n in names):
            cand.matched_name = name
            yield cand


def _told_apart(
    cands: list[Candidate], prefs: Preferences, area_filter: AreaFilter
) -> list[Candidate] | Match:
    """Entities sharing the asked name, told apart by where the question was heard."""
    if len(cands) < 2:
        return cands
    group = cands
    if prefs.floor_id:
        group = [
            c for c in group if c.area is not None and c.area.get("floor_id") == prefs.floor_id
        ]
        if len(group) == 1:
            return group
    if prefs.area_id:
        group = [c for c in group if area_filter(c, {prefs.area_id})]
        if len(group) == 1:
            return group
    if not group:
        return Match(False, Reason.NAME)
    return Match(False, Reason.DUPLICATE_NAME, no_match_name=cands[0].matched_name)


def _one_target(
    cands: list[Candidate], prefs: Preferences, area_filter: AreaFilter
) -> Candidate | None:
    if not (prefs.area_id or prefs.floor_id):
        return None
    picked = cands
    if prefs.area_id:
        picked = [c for c in cands if area_filter(c, {prefs.area_id})]
    if len(picked) > 1 and prefs.floor_id:
        picked = [c for c in cands if c.area and c.area.get("floor_id") == prefs.floor_id]
    return picked[0] if len(picked) == 1 else None
