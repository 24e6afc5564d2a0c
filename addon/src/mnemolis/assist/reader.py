"""Read a question with Home Assistant's grammar and answer it from the home's states.

Recognition needs only the names (the slot lists are rebuilt when entities, names,
areas or floors change, never per question); the answer is computed from the live
states when it is asked, so a plan that was decided once stays right.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from hassil import Intents, RecognizeResult, SlotList, TextSlotList, recognize_ranked

from ..hass.describe import BINARY_WORDS, STATE_WORDS
from . import grammar, slots
from .handlers import Handled, IntentFailed, handle
from .home import Home, state_name
from .render import RenderError, render
from .targets import Preferences, find_areas

_LOGGER = logging.getLogger(__name__)

# The intents whose answer is the weather, not a device: the ``forecast`` source's.
WEATHER_INTENTS = frozenset({"HassGetWeather"})
MAX_TEXT = 300  # characters: a question for the grammar is one short sentence
BARE_STATE_WORDS = 2  # "No, update available": a yes/no that names no device


@dataclass(frozen=True, slots=True)
class Recognized:
    """A question part the grammar recognised, in a language, as an intent."""

    language: str
    intent: str
    result: RecognizeResult

    @property
    def source(self) -> str:
        """The source that answers it: the weather is ``forecast``'s, the rest ``ha``'s."""
        return "forecast" if self.intent in WEATHER_INTENTS else "ha"


@dataclass(frozen=True, slots=True)
class Reading:
    """A recognised question answered: the words, and the states they rest on."""

    recognized: Recognized
    text: str
    handled: Handled
    names: dict[str, str]

    @property
    def states(self) -> list[dict[str, Any]]:
        """The states the answer speaks of."""
        return self.handled.states


Fetch = Callable[[str], Awaitable[dict[str, str]]]


class AssistReader:
    """HA's grammar over one home: recognition, HA's semantics, HA's response templates."""

    def __init__(
        self,
        home: Home,
        *,
        version: Callable[[], object] = lambda: None,
        exposed: Callable[[], dict[str, bool] | None] | None = None,
        weather_entity: Callable[[], str | None] = lambda: None,
        fetch_translations: Fetch | None = None,
    ) -> None:
        self.home = home
        self._version = version
        self._exposed = exposed
        self._weather_entity = weather_entity
        self._fetch = fetch_translations
        self._lists: tuple[object, dict[str, SlotList], tuple[str, ...]] | None = None
        self._kinds: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset())
        self._pruned: dict[str, tuple[object, Intents]] = {}
        self._zone_list: tuple[object, SlotList] | None = None
        self._places: tuple[object, tuple[tuple[str, str | None], ...]] | None = None
        self._translations: dict[str, dict[str, str]] = {}
        self._fetched: dict[str, frozenset[str]] = {}  # language → the domains it was for

    # --- names -----------------------------------------------------------------------

    def _slot_lists(self) -> tuple[dict[str, SlotList], tuple[str, ...]]:
        """The lists and the entity ids they name, rebuilt only when names change."""
        exposure = self._exposed() if self._exposed is not None else None
        key = (self._version(), id(exposure), len(self.home.states))
        if self._lists is None or self._lists[0] != key:
            test = (lambda e: bool(exposure.get(e))) if exposure else None
            lists = slots.build(self.home, test)
            ids = tuple(slots.visible(self.home, test))
            self._lists = (key, lists, ids)
            self._kinds = slots.kinds(self.home, ids)
        return self._lists[1], self._lists[2]

    def zones(self) -> list[str]:
        """Where people can be now; the zones and people are found once per names version."""
        states = self.home.states
        key = (self._version(), id(states), len(states))
        if self._places is None or self._places[0] != key:
            self._places = (key, slots.places(self.home))
        return slots.where(self.home, self._places[1])

    def _zones(self, loaded: grammar.Grammar) -> SlotList:
        """Where people can be: the home's zones and places, and the language's words
        for home (HA leaves the list a wildcard, which reads any words as a place)."""
        # People move between places without any name changing: read them each time.
        key = (tuple(self.zones()), loaded.language)
        if self._zone_list is None or self._zone_list[0] != key:
            places = [(z, z) for z in key[0]]
            places += [(w, "home") for w in loaded.home_words]
            self._zone_list = (key, TextSlotList.from_tuples(places, allow_template=False))
        return self._zone_list[1]

    def _grammar(self, loaded: grammar.Grammar) -> Intents:
        """The language's grammar for the kinds of devices this home has."""
        kinds = self._kinds
        hit = self._pruned.get(loaded.language)
        if hit is None or hit[0] != kinds:
            hit = self._pruned[loaded.language] = (kinds, grammar.for_home(loaded, *kinds))
        return hit[1]

    def area_preferences(self, area: str | None) -> tuple[Preferences, dict[str, Any] | None]:
        """Where the question was heard (an area id, name or alias): "in here" and ties."""
        if not area:
            return Preferences(), None
        found = find_areas(self.home, area)
        if not found:
            return Preferences(), None
        entry = found[0]
        name = str(entry.get("name") or area)
        prefs = Preferences(area_id=str(entry.get("area_id")))
        return prefs, {"area": {"value": name, "text": name}}

    # --- recognising -----------------------------------------------------------------

    def recognize(
        self, text: str, languages: Iterable[str], area: str | None, now: datetime
    ) -> Recognized | None:
        """The first reading, in the first language that has one, that names real things.

        hassil ranks its parses; a parse whose handler finds nothing it may answer for
        (a temperature asked of a sensor the climate intent cannot read) gives way to
        the next, as HA's own ranking intends ("callers may look past the best").
        """
        if not text.strip() or len(text) > MAX_TEXT:
            return None
        lists, ids = self._slot_lists()
        prefs, context = self.area_preferences(area)
        for language in dict.fromkeys(languages):
            loaded = grammar.load(language)
            if loaded is None:
                continue
            ranked = self._ranked(text, self._grammar(loaded), loaded, lists, context)
            for result in ranked:
                if any(e.is_wildcard for e in result.entities_list):
                    continue  # a slot that takes any words ("who is {zone}") reads anything
                try:
                    handled = handle(result, self.home, ids, prefs, now, self._weather_entity())
                except IntentFailed:
                    continue
                if handled.of_nothing_here:
                    continue
                return Recognized(language, result.intent.name, result)
        return None

    def command(self, text: str, languages: Iterable[str], area: str | None) -> str | None:
        """The intent of a command for Home Assistant the text is ("HassTurnOff"), in the
        first language whose sentences read it; None for anything else."""
        if not text.strip() or len(text) > MAX_TEXT:
            return None
        lists, _ = self._slot_lists()
        _, context = self.area_preferences(area)
        for language in dict.fromkeys(languages):
            with grammar.LOCK:  # parsed once per language, by the first unanswered command
                intents = grammar.commands(language)
            loaded = grammar.load(language)
            if intents is None or loaded is None:
                continue
            for result in self._ranked(text, intents, loaded, lists, context):
                return result.intent.name
        return None

    def _ranked(
        self,
        text: str,
        intents: Intents,
        loaded: grammar.Grammar,
        lists: dict[str, SlotList],
        context: dict[str, Any] | None,
    ) -> Iterable[RecognizeResult]:
        """hassil's readings of the text by these sentences, over the home's names."""
        return recognize_ranked(
            text,
            intents,
            slot_lists={**lists, "zone": self._zones(loaded)},
            intent_context=context,
            language=loaded.language,
            best_slot_name="name",
        )

    # --- answering -------------------------------------------------------------------

    async def prepare(self, language: str) -> None:
        """Fetch HA's state words for a language (the UI's "Normal", "Erkannt"): once, and
        again when the home gains a kind of device."""
        kinds = self._kinds[0]
        if self._fetch is None or self._fetched.get(language) == kinds:
            return
        self._fetched[language] = kinds
        try:
            self._translations[language] = await self._fetch(language)
        except Exception as err:  # raw states are still right, only less natural
            _LOGGER.info("no state translations for %s from Home Assistant: %s", language, err)
            self._translations.setdefault(language, {})

    def answer(self, recognized: Recognized, area: str | None, now: datetime) -> Reading | None:
        """Answer a recognised intent from the states as they are now; None if it cannot."""
        loaded = grammar.load(recognized.language)
        if loaded is None:
            return None
        _, ids = self._slot_lists()
        prefs, _ = self.area_preferences(area)
        try:
            handled = handle(recognized.result, self.home, ids, prefs, now, self._weather_entity())
        except IntentFailed as err:
            _LOGGER.debug("%s recognised but not answerable: %s", recognized.intent, err)
            return None
        if handled.of_nothing_here:
            return None
        template = loaded.response(handled.intent, handled.response_key)
        if template is None:
            return None
        entries = self.home.registries.entities
        names = {s["entity_id"]: state_name(s, entries.get(s["entity_id"])) for s in handled.states}
        words = self._translations.get(recognized.language) or {}

        def say(text: str) -> str:
            return render(
                text,
                handled.slots,
                handled.matched,
                handled.unmatched,
                self.home.states,
                names=lambda s: names.get(s["entity_id"]) or state_name(s, None),
                translate=lambda s: translated(words, s) or _english(recognized.language, s),
            )

        if len(handled.states) == 1 and "name" in handled.slots:
            # The device as the home names it ("Living Room Temperature"), not as said.
            own = names.get(handled.states[0]["entity_id"])
            if own:
                handled.slots = {**handled.slots, "name": own}
        try:
            text = say(template)
            statement = _statement(loaded, recognized.result, handled)
            if statement is not None and text:
                # "No, closed" names nothing; say which device: "No, Garage Door is closed".
                # A longer answer ("No, su estado es normal") is said as HA says it.
                polarity, _, rest = text.partition(",")
                yes_no = grammar.YES_NO.get(recognized.language, frozenset())
                bare = len(rest.split()) <= BARE_STATE_WORDS and not any(
                    n.lower() in rest.lower() for n in names.values()
                )
                if polarity.strip().lower() in yes_no and bare:
                    one = handled.states[0]["entity_id"]
                    handled.slots = {**handled.slots, "name": names.get(one, one)}
                    text = f"{polarity.strip()}, {say(statement)}"
            text = _named(text, handled, names, recognized.language)
        except RenderError as err:
            _LOGGER.warning("%s response template failed: %s", recognized.language, err)
            return None
        if not text:
            return None
        return Reading(recognized, text, handled, names)


MAX_COUNTED_NAMES = 6  # a count names what it counted up to this many


def _named(text: str, handled: Handled, names: dict[str, str], language: str) -> str:
    """Say what an answer is about where HA's template only gives a number: the names
    behind a count ("5: Ceiling Lights, …"), the device a temperature is read from."""
    if handled.intent == "HassClimateGetTemperature" and len(handled.matched) == 1:
        one = handled.matched[0]["entity_id"]
        return f"{names.get(one, one)}: {text}"
    matched = [names.get(s["entity_id"], s["entity_id"]) for s in handled.matched]
    if handled.intent != "HassGetState" or not text.isdigit() or int(text) != len(matched):
        return text
    if not 0 < len(matched) <= MAX_COUNTED_NAMES:
        return text
    joined = sorted(matched)
    word = (grammar.AND_WORDS.get(language) or (",",))[0]
    listed = joined[0] if len(joined) == 1 else f"{', '.join(joined[:-1])} {word} {joined[-1]}"
    return f"{text}: {listed}"


def _statement(loaded: grammar.Grammar, result: RecognizeResult, handled: Handled) -> str | None:
    """For a yes/no question about one device, the template that states its state
    ("{{ slots.name }} is {{ state.state_with_unit }}"), in the question's language."""
    if handled.intent != "HassGetState" or len(handled.states) != 1:
        return None
    if "state" not in result.entities:
        return None
    templates = loaded.responses.get(handled.intent) or {}
    if (handled.response_key or "default") not in templates:
        return None
    return _statement_template(loaded.language, templates)


def _statement_template(language: str, templates: dict[str, str]) -> str | None:
    key = _STATEMENTS.get(language)
    if key is None:
        key = _STATEMENTS[language] = next(
            (
                k
                for k, t in sorted(templates.items(), key=lambda kv: kv[0] != "one")
                if "slots.name" in t and "state_with_unit" in t and "query" not in t
            ),
            "",
        )
    return templates.get(key) if key else None


_STATEMENTS: dict[str, str] = {}


def _english(language: str, state: dict[str, Any]) -> str | None:
    """Without HA's words (no frontend loaded), the router's own English state words."""
    if language != "en":
        return None
    domain = str(state["entity_id"]).split(".", 1)[0]
    raw = str(state.get("state"))
    if domain == "binary_sensor" and raw in ("on", "off"):
        dclass = str((state.get("attributes") or {}).get("device_class") or "")
        on, off = BINARY_WORDS.get(dclass, ("on", "off"))
        return on if raw == "on" else off
    if domain in ("person", "device_tracker"):
        return STATE_WORDS.get(raw)
    return None


def translated(words: dict[str, str], state: dict[str, Any]) -> str | None:
    """HA's own word for a state in the UI's language (``entity_component`` translations)."""
    if not words:
        return None
    domain = str(state["entity_id"]).split(".", 1)[0]
    raw = str(state.get("state"))
    device_class = (state.get("attributes") or {}).get("device_class") or "_"
    prefix = f"component.{domain}.entity_component."
    return words.get(f"{prefix}{device_class}.state.{raw}") or words.get(f"{prefix}_.state.{raw}")


def candidates(
    requested: str | None, home_language: str | None, detected: Sequence[str]
) -> list[str]:
    """The grammar languages to try, most likely first: asked, detected, the home's, English."""
    if requested:
        code = grammar.resolve(requested)
        return [code] if code else []
    out = [grammar.resolve(c) for c in (*detected, home_language, "en")]
    return list(dict.fromkeys(c for c in out if c))
