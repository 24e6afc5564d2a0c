"""A fake but realistic home for router tests: HA states, monitors, feeds, databases.

Also loads the table of routing cases (routing_cases.yaml) used by the routing
suite and by bench/route_bench.py.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import yaml
from rapidfuzz import fuzz, process

from mnemolis.core import Mnemolis
from mnemolis.errors import SourceUnreachable
from mnemolis.models import Evidence, SourceAnswer
from mnemolis.settings import Settings, load_settings
from mnemolis.sources.base import QueryContext, Source, SourceDeps

CASES_FILE = Path(__file__).with_name("routing_cases.yaml")

AREAS = [
    "Kitchen",
    "Living Room",
    "Bedroom",
    "Bathroom",
    "Garage",
    "Hallway",
    "Office",
    "Garden",
    "Kids Room",
    "Basement",
    "Laundry",
    "Porch",
    "Attic",
    "Hall",
]

# entity_id -> (friendly name, state, area, extra attributes)
ENTITIES: dict[str, tuple[str, str, str | None, dict[str, Any]]] = {
    "light.kitchen": ("Kitchen Light", "on", "Kitchen", {}),
    "light.living_room_lamp": ("Living Room Lamp", "off", "Living Room", {}),
    "light.bedroom_ceiling": ("Bedroom Ceiling Light", "off", "Bedroom", {}),
    "light.porch": ("Porch Light", "on", "Porch", {}),
    "light.hall": ("Hall Light", "off", "Hall", {}),
    "cover.garage_door": ("Garage Door", "closed", "Garage", {"device_class": "garage"}),
    "lock.front_door": ("Front Door Lock", "locked", "Hallway", {}),
    "binary_sensor.back_door": ("Back Door", "off", "Kitchen", {"device_class": "door"}),
    "binary_sensor.bedroom_window": ("Bedroom Window", "on", "Bedroom", {"device_class": "window"}),
    "binary_sensor.bathroom_window": (
        "Bathroom Window",
        "off",
        "Bathroom",
        {"device_class": "window"},
    ),
    "sensor.living_room_temperature": (
        "Living Room Temperature",
        "21.5",
        "Living Room",
        {"unit_of_measurement": "°C"},
    ),
    "sensor.bedroom_humidity": ("Bedroom Humidity", "48", "Bedroom", {"unit_of_measurement": "%"}),
    "sensor.fridge_temperature": (
        "Fridge Temperature",
        "4.1",
        "Kitchen",
        {"unit_of_measurement": "°C"},
    ),
    "sensor.solar_power": ("Solar Production", "1830", None, {"unit_of_measurement": "W"}),
    "climate.hallway": ("Hallway Thermostat", "heat", "Hallway", {"current_temperature": 20.5}),
    "switch.office_plug": ("Office Plug", "off", "Office", {}),
    "switch.garden_sprinkler": ("Garden Sprinkler", "off", "Garden", {}),
    "sensor.washing_machine": ("Washing Machine", "running", "Laundry", {}),
    "vacuum.roomba": ("Roomba", "docked", "Living Room", {}),
    "media_player.living_room_tv": ("Living Room TV", "playing", "Living Room", {}),
    "person.anna": ("Anna", "home", None, {}),
    "person.ben": ("Ben", "not_home", None, {}),
    "input_boolean.guest_mode": ("Guest Mode", "off", None, {}),
    "zone.home": ("Home", "2", None, {}),
    "sensor.kids_room_co2": ("Kids Room CO2", "640", "Kids Room", {"unit_of_measurement": "ppm"}),
}

MONITORS = [
    ("NAS", "up"),
    ("Plex", "down"),
    ("Nextcloud", "up"),
    ("Pi-hole", "up"),
    ("Router", "up"),
]
FEEDS = ["BBC World", "Ars Technica", "Hacker News", "The Guardian"]
RAG_NAMES = ["mnemolis-docs", "recipes", "appliance-manuals"]
MEMORY_TAGS = ["kind:rule", "family", "garden", "car", "work"]


@dataclass(slots=True)
class EntityMatch:
    """What HAClient.match_entities returns."""

    entity_id: str
    name: str
    area: str | None
    score: float
    matched_on: str


class FakeHA:
    """The interface of the sources engineer's HAClient: states, vocabulary, matching."""

    def __init__(
        self, entities: dict[str, tuple[str, str, str | None, dict[str, Any]]] | None = None
    ) -> None:
        self.states: dict[str, dict[str, Any]] = {}
        self.areas: dict[str, str | None] = {}
        for entity_id, (name, state, area, attrs) in (entities or ENTITIES).items():
            self.set(entity_id, state, name=name, area=area, **attrs)
        self.config = {"time_zone": "Europe/Amsterdam", "unit_system": {"temperature": "°C"}}

    def set(
        self,
        entity_id: str,
        state: str,
        *,
        name: str | None = None,
        area: str | None = None,
        **attrs: Any,
    ) -> None:
        """Set or change one entity's state."""
        old = self.states.get(entity_id, {})
        attributes = dict(old.get("attributes", {}))
        attributes.update(attrs)
        if name is not None:
            attributes["friendly_name"] = name
        self.states[entity_id] = {"entity_id": entity_id, "state": state, "attributes": attributes}
        if area is not None or entity_id not in self.areas:
            self.areas[entity_id] = area

    def vocabulary(self) -> set[str]:
        """Entity names and areas."""
        names = {s["attributes"]["friendly_name"] for s in self.states.values()}
        return names | set(AREAS)

    def match_entities(
        self, text: str, domains: list[str] | None = None, limit: int = 5
    ) -> list[EntityMatch]:
        """Fuzzy match on friendly names, as the real client does."""
        choices = {
            eid: s["attributes"]["friendly_name"]
            for eid, s in self.states.items()
            if not domains or eid.split(".")[0] in domains
        }
        found = process.extract(text, choices, scorer=fuzz.WRatio, limit=limit, score_cutoff=75)
        return [EntityMatch(key, name, self.areas.get(key), sc, name) for name, sc, key in found]


@dataclass(slots=True)
class Monitor:
    """What the uptime source's monitors() returns."""

    name: str
    status: str
    uptime_24h: float = 1.0
    last_check: str | None = None
    msg: str = ""


class FakeSource(Source):
    """A configurable stand-in source: answers, fails, times out or returns nothing."""

    name = "fake"

    def __init__(
        self,
        deps: SourceDeps,
        name: str,
        *,
        answer: str | None = None,
        evidence: list[Evidence] | None = None,
        behaviour: str = "ok",
        delay: float = 0.0,
        configured: bool = True,
    ) -> None:
        super().__init__(deps)
        self.name = name  # type: ignore[misc]
        self.answer = answer if answer is not None else f"{name} answer"
        self.evidence = evidence or []
        self.behaviour = behaviour
        self.delay = delay
        self._configured = configured
        self.calls: list[str] = []

    @property
    def configured(self) -> bool:
        return self._configured

    async def query(self, question: str, ctx: QueryContext) -> SourceAnswer:
        self.calls.append(question)
        if self.delay:
            await asyncio.sleep(self.delay)
        if self.behaviour == "error":
            raise SourceUnreachable(f"{self.name} backend refused the connection")
        if self.behaviour == "hang":
            await asyncio.sleep(3600)
        if self.behaviour == "empty":
            return SourceAnswer(source=self.name, answer="")
        return SourceAnswer(source=self.name, answer=self.answer, evidence=list(self.evidence))


class FakeForecast(FakeSource):
    """A forecast source with known daily and hourly values."""

    def __init__(
        self,
        deps: SourceDeps,
        days: dict[date, dict[str, Any]],
        hours: list[dict[str, Any]] | None = None,
        tz: str = "Europe/Amsterdam",
    ) -> None:
        super().__init__(deps, "forecast", answer="forecast answer")
        self.days = days
        self.hours = hours or []
        self.timezone = tz

    async def daily(self) -> list[dict[str, Any]]:
        return list(self.days.values())

    async def hourly(self) -> list[dict[str, Any]]:
        return list(self.hours)

    async def for_day(self, day: date) -> dict[str, Any] | None:
        return self.days.get(day)


class FakeUptime(FakeSource):
    """An uptime source with known monitors."""

    def __init__(self, deps: SourceDeps, monitors: list[tuple[str, str]] | None = None) -> None:
        super().__init__(deps, "uptime", answer="uptime answer")
        self._monitors = [Monitor(n, s) for n, s in (monitors or MONITORS)]

    async def monitors(self) -> list[Monitor]:
        return list(self._monitors)


class FakeNews(FakeSource):
    """A news source with feed titles."""

    def __init__(self, deps: SourceDeps) -> None:
        super().__init__(deps, "news", answer="news answer")

    def feed_titles(self) -> list[str]:
        return list(FEEDS)


@dataclass
class Home:
    """A core wired to the fake home, with handles on the fakes."""

    core: Mnemolis
    ha: FakeHA
    fakes: dict[str, FakeSource] = field(default_factory=dict)


def deps_for(settings: Settings) -> SourceDeps:
    """SourceDeps without a real HTTP session (fakes never use it)."""
    return SourceDeps(settings=settings, session=None)  # type: ignore[arg-type]


def make_home(
    settings: Settings | None = None,
    *,
    configured: bool = True,
    forecast_days: dict[date, dict[str, Any]] | None = None,
    forecast_hours: list[dict[str, Any]] | None = None,
    **settings_overrides: Any,
) -> Home:
    """A Mnemolis core (not started) with fake sources for every name and the fake home."""
    if settings is None:
        settings = load_settings(
            environ={}, overrides={"data_dir": "/tmp/mnemolis-router-tests", **settings_overrides}
        )
    core = Mnemolis(settings)
    deps = deps_for(settings)
    ha = FakeHA()
    fakes: dict[str, FakeSource] = {}
    for name in ("ha", "web", "kiwix", "changes", "rag", "memory"):
        fakes[name] = FakeSource(deps, name, configured=configured)
    fakes["forecast"] = FakeForecast(deps, forecast_days or {}, forecast_hours)
    fakes["uptime"] = FakeUptime(deps)
    fakes["news"] = FakeNews(deps)
    for name in ("forecast", "uptime", "news"):
        fakes[name]._configured = configured
    core.sources = dict(fakes)
    core.services.ha = ha
    core.services.rag_names = lambda: list(RAG_NAMES)
    core.services.memory_tags = lambda: list(MEMORY_TAGS)
    core.router.vocab.set_async_names("uptime", [n for n, _ in MONITORS])
    return Home(core, ha, fakes)


def make_core() -> Mnemolis:
    """Shortcut for scripts: the core of a fully configured fake home."""
    return make_home().core


def load_cases() -> dict[str, Any]:
    """The routing table: {"routing": [...], "decomposition": [...], "conditions": [...]}."""
    data = yaml.safe_load(CASES_FILE.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def day_entry(
    day: date, condition: str, high: float, low: float, prob: float, mm: float, wind: float = 10.0
) -> dict[str, Any]:
    """One HA daily forecast dict."""
    return {
        "datetime": datetime(day.year, day.month, day.day, 12, tzinfo=UTC).isoformat(),
        "condition": condition,
        "temperature": high,
        "templow": low,
        "precipitation_probability": prob,
        "precipitation": mm,
        "wind_speed": wind,
    }


def hour_entries(
    start: datetime, conditions: Callable[[int], tuple[str, float, float]], hours: int = 48
) -> list[dict[str, Any]]:
    """Hourly forecast dicts from ``start``: conditions(hour) -> (condition, temp, prob)."""
    out = []
    for i in range(hours):
        t = start + timedelta(hours=i)
        cond, temp, prob = conditions(t.hour)
        out.append(
            {
                "datetime": t.isoformat(),
                "condition": cond,
                "temperature": temp,
                "precipitation_probability": prob,
                "precipitation": 0.0 if prob < 50 else 1.2,
                "wind_speed": 12.0,
            }
        )
    return out
