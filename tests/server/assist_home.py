"""An in-memory home built from one language's intents test fixture, for fast router tests.

The fixture is Home Assistant's own (``../shared/ha-intents-tests/<lang>/_fixtures.yaml``,
CC BY 4.0): floors, areas and entities with names, states and attributes. ``FixtureHA``
offers what the router reads of ``HAClient`` — states, registries, area lookup, the
home's language and time zone, the names version and HA's state words — without a
Home Assistant process (tests/server/intents_home builds the same home in a real HA
for the eval and the slower tests).
"""

from __future__ import annotations

from typing import Any
from zoneinfo import ZoneInfo

import yaml

from mnemolis.core import Mnemolis
from mnemolis.hass.client import Registries
from mnemolis.settings import load_settings

from .intents_home import tests_of
from .routing_cases import FakeSource, deps_for


class FixtureHA:
    """The fixture home as the websocket client would hold it."""

    def __init__(self, language: str, words: dict[str, str] | None = None) -> None:
        path = tests_of(language) / "_fixtures.yaml"
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        self.language = language
        self.time_zone = ZoneInfo("Europe/Amsterdam")
        self.names_version = 1
        self.registries = Registries()
        self.states: dict[str, dict[str, Any]] = {}
        self.config = {"language": language, "time_zone": "Europe/Amsterdam"}
        self._words = words or {}
        for floor in data.get("floors") or []:
            fid = str(floor["id"])
            self.registries.floors[fid] = {
                "floor_id": fid,
                "name": floor["name"],
                "aliases": list(floor.get("aliases") or []),
            }
        for area in data.get("areas") or []:
            aid = str(area["id"])
            self.registries.areas[aid] = {
                "area_id": aid,
                "name": area["name"],
                "floor_id": area.get("floor"),
                "aliases": list(area.get("aliases") or []),
            }
        for item in data.get("entities") or []:
            entity_id, n = str(item["id"]), 2
            while entity_id in self.states:
                entity_id, n = f"{item['id']}_{n}", n + 1
            state = item.get("state")
            raw = state.get("out") if isinstance(state, dict) else state
            self.set(entity_id, str(raw), str(item["name"]), item.get("area"), item)

    def set(
        self,
        entity_id: str,
        state: str,
        name: str,
        area: str | None = None,
        item: dict[str, Any] | None = None,
        **attributes: Any,
    ) -> None:
        """Add or change one entity, as HA's registries and state machine would."""
        attrs = {**((item or {}).get("attributes") or {}), **attributes, "friendly_name": name}
        self.states[entity_id] = {"entity_id": entity_id, "state": state, "attributes": attrs}
        self.registries.entities[entity_id] = {
            "entity_id": entity_id,
            "area_id": area,
            "aliases": list((item or {}).get("aliases") or []),
        }
        self.names_version += 1

    def area_id_of(self, entity_id: str) -> str | None:
        """The entity's area."""
        return self.registries.entities.get(entity_id, {}).get("area_id")

    def exposed_to_assist(self) -> dict[str, bool] | None:
        """Everything is exposed."""
        return None

    def vocabulary(self) -> set[str]:
        """Names and areas (the router's routing signals)."""
        names = {s["attributes"]["friendly_name"].lower() for s in self.states.values()}
        return names | {a["name"].lower() for a in self.registries.areas.values()}

    def match_entities(self, text: str, **_: Any) -> list[Any]:
        """The router's own rules are not what these tests exercise."""
        return []

    async def state_words(self, language: str) -> dict[str, str]:
        """HA's state words, as frontend/get_translations gives them."""
        return dict(self._words)


def make_assist_home(
    language: str, words: dict[str, str] | None = None
) -> tuple[Mnemolis, FixtureHA]:
    """A core (not started) whose ``ha`` is the fixture home; other sources are fakes."""
    settings = load_settings(environ={}, overrides={"data_dir": "/tmp/mnemolis-assist-tests"})
    core = Mnemolis(settings)
    deps = deps_for(settings)
    core.sources = {
        name: FakeSource(deps, name)
        for name in ("ha", "forecast", "web", "kiwix", "changes", "rag", "memory", "news", "uptime")
    }
    home = FixtureHA(language, words)
    core.services.ha = home  # type: ignore[assignment]
    return core, home
