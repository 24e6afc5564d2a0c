"""What the intent reader needs of a home: states and registries, as HA's websocket gives them."""

from __future__ import annotations

from typing import Any, Protocol


class Registries(Protocol):
    """Areas, devices, entities and floors by id (``config/*_registry/list`` entries)."""

    areas: dict[str, dict[str, Any]]
    devices: dict[str, dict[str, Any]]
    entities: dict[str, dict[str, Any]]
    floors: dict[str, dict[str, Any]]


class Home(Protocol):
    """The live home: ``HAClient`` in the server, a fixture in tests."""

    states: dict[str, dict[str, Any]]

    @property
    def registries(self) -> Registries:
        """The registries as last loaded."""

    def area_id_of(self, entity_id: str) -> str | None:
        """The entity's area: its own, else its device's."""


def state_name(state: dict[str, Any], entry: dict[str, Any] | None) -> str:
    """The name HA's ``State.name`` gives: friendly_name, else the object id."""
    name = (state.get("attributes") or {}).get("friendly_name")
    if name:
        return str(name)
    if entry and entry.get("name"):
        return str(entry["name"])
    return str(state["entity_id"]).split(".", 1)[-1].replace("_", " ")
