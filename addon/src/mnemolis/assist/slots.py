"""The ``name``, ``area`` and ``floor`` lists hassil fills, built from HA's registries.

As HA's default conversation agent builds them: every entity's name and aliases with
its domain and device class as context (the grammar's ``requires_context`` picks the
battery "Phone" for "is the phone battery low"), areas and floors with their aliases.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from hassil import SlotList, TextSlotList

from .home import Home, state_name

# Attributes HA passes as recognition context (conversation/const.py).
CONTEXT_ATTRIBUTES = ("device_class",)


def visible(home: Home, exposed: Callable[[str], bool] | None = None) -> Iterable[str]:
    """Entity ids a question may name: not hidden or disabled, and exposed when asked."""
    entries = home.registries.entities
    # A copy: questions are planned on a thread while the websocket updates the states.
    for entity_id in list(home.states):
        entry = entries.get(entity_id) or {}
        if entry.get("hidden_by") or entry.get("disabled_by"):
            continue
        if exposed is not None and not exposed(entity_id):
            continue
        state = home.states.get(entity_id) or {}
        if (state.get("attributes") or {}).get("mode") == "password":
            continue  # a password text helper is never read out
        yield entity_id


def build(home: Home, exposed: Callable[[str], bool] | None = None) -> dict[str, SlotList]:
    """The slot lists for one version of the home's names."""
    names: list[tuple[str, str, dict[str, Any]]] = []
    entries = home.registries.entities
    for entity_id in visible(home, exposed):
        state = home.states.get(entity_id)
        if state is None:
            continue
        entry = entries.get(entity_id)
        context: dict[str, Any] = {"domain": entity_id.split(".", 1)[0]}
        attrs = state.get("attributes") or {}
        for attr in CONTEXT_ATTRIBUTES:
            if attr in attrs:
                context[attr] = attrs[attr]
        for alias in (entry or {}).get("aliases") or []:
            if isinstance(alias, str) and alias.strip():
                names.append((alias.strip(), alias.strip(), context))
        name = state_name(state, entry)
        names.append((name, name, context))
    areas: list[tuple[str, str]] = []
    for area in home.registries.areas.values():
        area_name = str(area.get("name") or "")
        if area_name:
            areas.append((area_name, area_name))
        areas += [(a.strip(), a.strip()) for a in _aliases(area)]
    floors: list[tuple[str, str]] = []
    for floor in home.registries.floors.values():
        floor_name = str(floor.get("name") or "")
        if floor_name:
            floors.append((floor_name, floor_name))
            floors += [(a.strip(), floor_name) for a in _aliases(floor)]
    return {
        "name": TextSlotList.from_tuples(names, allow_template=False),
        "area": TextSlotList.from_tuples(areas, allow_template=False),
        "floor": TextSlotList.from_tuples(floors, allow_template=False),
    }


def zones(home: Home) -> list[str]:
    """Zone names and the places people's states name (not home/away/unknown)."""
    return where(home, places(home))


def places(home: Home) -> tuple[tuple[str, str | None], ...]:
    """Who can name a place, in state order: (entity id, its zone name or None for a person).

    Zones' names change only with the names; people move without any name changing,
    so a caller keeps this per names version and reads only these states per question.
    """
    out: list[tuple[str, str | None]] = []
    for entity_id, state in list(home.states.items()):
        domain = entity_id.split(".", 1)[0]
        if domain == "zone":
            name = (state.get("attributes") or {}).get("friendly_name")
            if name:
                out.append((entity_id, str(name)))
        elif domain in ("person", "device_tracker"):
            out.append((entity_id, None))
    return tuple(out)


def where(home: Home, known: tuple[tuple[str, str | None], ...]) -> list[str]:
    """The place names now: the zones' and those people's states name, first seen first."""
    out: dict[str, None] = {}
    states = home.states
    for entity_id, zone in known:
        if zone is not None:
            out[zone] = None
            continue
        value = str((states.get(entity_id) or {}).get("state") or "")
        if value and value not in ("home", "not_home", "unknown", "unavailable"):
            out[value] = None
    return list(out)


def _aliases(entry: dict[str, Any]) -> list[str]:
    return [a for a in entry.get("aliases") or [] if isinstance(a, str) and a.strip()]


# Kinds every home can be asked about even with none of their entities: the clock needs
# none, and "homeassistant" is the domain HA's grammar gives to questions about anything.
ALWAYS = frozenset({"homeassistant"})


def kinds(home: Home, entity_ids: Iterable[str]) -> tuple[frozenset[str], frozenset[str]]:
    """The domains and device classes of the entities a question may name."""
    domains: set[str] = set(ALWAYS)
    classes: set[str] = set()
    for entity_id in entity_ids:
        domains.add(entity_id.split(".", 1)[0])
        dclass = ((home.states.get(entity_id) or {}).get("attributes") or {}).get("device_class")
        if dclass:
            classes.add(str(dclass))
    return frozenset(domains), frozenset(classes)
