"""Reading a home question: its shape (yes/no, which, how many, any, all, value), the
state it asks about, the kind of thing and the measurement it names."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Shape = Literal["yesno", "count", "list", "any", "all", "value"]


@dataclass(slots=True, frozen=True)
class Kind:
    """A word for a kind of entity: the domains and device classes it covers."""

    label: str
    domains: frozenset[str]
    classes: frozenset[str] | None = None  # None: any device class


def _k(label: str, domains: str, classes: str | None = None) -> Kind:
    return Kind(
        label,
        frozenset(domains.split()),
        frozenset(classes.split()) if classes is not None else None,
    )


_DOOR_CLASSES = "door garage_door garage gate opening"
# Kind words, longest phrases first; a plural "s"/"es" is accepted after each.
KIND_WORDS: list[tuple[str, Kind]] = [
    ("garage door", _k("garage doors", "binary_sensor cover", "garage_door garage")),
    ("smoke detector", _k("smoke detectors", "binary_sensor", "smoke")),
    ("smoke alarm", _k("smoke detectors", "binary_sensor", "smoke")),
    ("motion sensor", _k("motion sensors", "binary_sensor", "motion occupancy presence")),
    ("door sensor", _k("door sensors", "binary_sensor", _DOOR_CLASSES)),
    ("window sensor", _k("window sensors", "binary_sensor", "window")),
    ("leak sensor", _k("leak sensors", "binary_sensor", "moisture")),
    ("water heater", _k("water heaters", "water_heater")),
    ("media player", _k("media players", "media_player")),
    ("alarm panel", _k("alarms", "alarm_control_panel")),
    ("alarm system", _k("alarms", "alarm_control_panel")),
    ("security system", _k("alarms", "alarm_control_panel")),
    ("device tracker", _k("trackers", "device_tracker")),
    ("light", _k("lights", "light")),
    ("lamp", _k("lights", "light")),
    ("lighting", _k("lights", "light")),
    ("switch", _k("switches", "switch")),
    ("plug", _k("plugs", "switch")),
    ("outlet", _k("plugs", "switch")),
    ("socket", _k("plugs", "switch")),
    ("fan", _k("fans", "fan")),
    ("lock", _k("locks", "lock")),
    ("door", _k("doors", "binary_sensor cover", _DOOR_CLASSES)),
    ("gate", _k("gates", "cover binary_sensor", "gate")),
    ("window", _k("windows", "binary_sensor cover", "window")),
    ("blind", _k("blinds", "cover", "blind shade shutter curtain awning")),
    ("shade", _k("blinds", "cover", "blind shade shutter curtain awning")),
    ("shutter", _k("blinds", "cover", "blind shade shutter curtain awning")),
    ("curtain", _k("blinds", "cover", "blind shade shutter curtain awning")),
    ("cover", _k("covers", "cover")),
    ("tv", _k("TVs", "media_player", "tv")),
    ("television", _k("TVs", "media_player", "tv")),
    ("speaker", _k("speakers", "media_player", "speaker")),
    ("thermostat", _k("thermostats", "climate")),
    ("hvac", _k("thermostats", "climate")),
    ("air conditioning", _k("thermostats", "climate")),
    ("heating", _k("thermostats", "climate")),
    ("climate", _k("thermostats", "climate")),
    ("motion", _k("motion sensors", "binary_sensor", "motion occupancy presence")),
    ("movement", _k("motion sensors", "binary_sensor", "motion occupancy presence")),
    ("leak", _k("leak sensors", "binary_sensor", "moisture")),
    ("moisture", _k("leak sensors", "binary_sensor", "moisture")),
    ("flood", _k("leak sensors", "binary_sensor", "moisture")),
    ("smoke", _k("smoke detectors", "binary_sensor", "smoke")),
    ("alarm", _k("alarms", "alarm_control_panel")),
    ("vacuum", _k("vacuums", "vacuum")),
    ("robot", _k("vacuums", "vacuum lawn_mower")),
    ("roomba", _k("vacuums", "vacuum")),
    ("mower", _k("mowers", "lawn_mower")),
    ("valve", _k("valves", "valve")),
    ("tap", _k("valves", "valve")),
    ("sprinkler", _k("valves", "valve")),
    ("boiler", _k("water heaters", "water_heater")),
    ("humidifier", _k("humidifiers", "humidifier")),
    ("dehumidifier", _k("humidifiers", "humidifier")),
    ("siren", _k("sirens", "siren")),
    ("camera", _k("cameras", "camera")),
    ("automation", _k("automations", "automation")),
    ("update", _k("updates", "update")),
    ("tracker", _k("trackers", "device_tracker")),
    ("phone", _k("phones", "device_tracker")),
    ("music", _k("media players", "media_player")),
    ("sensor", _k("sensors", "sensor binary_sensor")),
    ("weather", _k("weather entities", "weather")),
]
# Measurement words and the sensor device classes they mean.
MEASURE_WORDS: list[tuple[str, frozenset[str]]] = [
    # A device's battery first: "the battery of the carbon dioxide sensor".
    ("battery", frozenset({"battery"})),
    ("batteries", frozenset({"battery"})),
    ("air quality", frozenset({"aqi", "pm25", "pm10", "air_quality"})),
    ("carbon dioxide", frozenset({"carbon_dioxide"})),
    ("carbon monoxide", frozenset({"carbon_monoxide"})),
    ("light level", frozenset({"illuminance"})),
    ("temperature", frozenset({"temperature"})),
    ("temp", frozenset({"temperature"})),
    ("thermometer", frozenset({"temperature"})),
    ("degrees", frozenset({"temperature"})),
    ("warm", frozenset({"temperature"})),
    ("hot", frozenset({"temperature"})),
    ("cold", frozenset({"temperature"})),
    ("humidity", frozenset({"humidity"})),
    ("humid", frozenset({"humidity"})),
    ("power", frozenset({"power"})),
    ("watts", frozenset({"power"})),
    ("consumption", frozenset({"power", "energy"})),
    ("energy", frozenset({"energy"})),
    ("kwh", frozenset({"energy"})),
    ("electricity", frozenset({"power", "energy"})),
    ("co2", frozenset({"carbon_dioxide"})),
    ("aqi", frozenset({"aqi"})),
    ("pm2.5", frozenset({"pm25"})),
    ("pm25", frozenset({"pm25"})),
    ("pm10", frozenset({"pm10"})),
    ("pressure", frozenset({"pressure", "atmospheric_pressure"})),
    ("illuminance", frozenset({"illuminance"})),
    ("lux", frozenset({"illuminance"})),
    ("noise", frozenset({"sound_pressure"})),
    ("loud", frozenset({"sound_pressure"})),
    ("voltage", frozenset({"voltage"})),
    ("gas", frozenset({"gas"})),
]
# Phrases a question uses for a state, and the predicate they mean. Longest first.
PREDICATES: list[tuple[str, str]] = [
    ("turned on", "on"),
    ("switched on", "on"),
    ("left on", "on"),
    ("turned off", "off"),
    ("switched off", "off"),
    ("above the horizon", "up"),
    ("below the horizon", "down"),
    ("not home", "away"),
    ("at home", "home"),
    ("going off", "triggered"),
    ("set off", "triggered"),
    ("armed away", "armed_away"),
    ("armed home", "armed_home"),
    ("armed at home", "armed_home"),
    ("armed night", "armed_night"),
    ("armed for the night", "armed_night"),
    ("armed vacation", "armed_vacation"),
    ("returning", "returning"),
    ("going back", "returning"),
    ("idle", "idle"),
    ("idling", "idle"),
    ("on", "on"),
    ("off", "off"),
    ("open", "open"),
    ("opened", "open"),
    ("ajar", "open"),
    ("closed", "closed"),
    ("shut", "closed"),
    ("locked", "locked"),
    ("unlocked", "unlocked"),
    ("jammed", "jammed"),
    ("stuck", "jammed"),
    ("home", "home"),
    ("here", "home"),
    ("away", "away"),
    ("out", "away"),
    ("gone", "away"),
    ("playing", "playing"),
    ("paused", "paused"),
    ("armed", "armed"),
    ("disarmed", "disarmed"),
    ("triggered", "triggered"),
    ("heating", "heating"),
    ("cooling", "cooling"),
    ("up", "up"),
    ("down", "down"),
    ("set", "down"),
    ("risen", "up"),
    ("detected", "detected"),
    ("detecting", "detected"),
    ("wet", "wet"),
    ("leaking", "wet"),
    ("dry", "dry"),
    ("running", "running"),
    ("cleaning", "cleaning"),
    ("docked", "docked"),
    ("charging", "charging"),
    ("raining", "raining"),
    ("available", "available"),
    ("unavailable", "unavailable"),
    ("offline", "unavailable"),
    ("online", "available"),
    ("low", "low"),
]
_PRED_RE = [(re.compile(rf"\b{re.escape(p)}\b"), p, v) for p, v in PREDICATES]
_KIND_RE = [(re.compile(rf"\b{re.escape(w)}(?:e?s)?\b"), w, k) for w, k in KIND_WORDS]
_MEASURE_RE = [(re.compile(rf"\b{re.escape(w)}\b"), c) for w, c in MEASURE_WORDS]
_LEAD = re.compile(
    r"^\s*(?:(?:hey|ok|okay|hi|so|and|please|quick question)[,!]?\s+)*"
    r"(?:(?:can|could|would) you\s+(?:please\s+)?)?"
    r"(?:(?:tell|show|let) me\s+|check\s+|find out\s+|i (?:want|need|would like) to know\s+|"
    r"do you know\s+|i wonder\s+)?"
    r"(?:if|whether)?\s*",
    re.IGNORECASE,
)
_YESNO = re.compile(
    r"^(?:is|are|was|were|has|have|does|do|did|isn't|aren't|is there|are there)\b", re.I
)
_COUNT = re.compile(r"\bhow many\b|\bnumber of\b|\bcount\b", re.I)
_ANY = re.compile(r"\b(?:any|anything|anyone|anybody|some|something|someone)\b", re.I)
_ALL = re.compile(r"\b(?:all|every|everything|each|both)\b", re.I)
OUTSIDE = re.compile(r"\b(?:outside|outdoors?|out there|exterior|garden|backyard)\b", re.I)
_CONTRACTED = re.compile(r"\b(what|who|where|how|which|that|it|there)'?s\b")
_WH = re.compile(
    r"^(?:(?:at|in|on|to|for|from|of|by)\s+)?(?:what|which|who|whom|whose|when|where|why|how)\b"
)
_FUZZY_MIN = 5  # words shorter than this are never taken for a misspelt kind word
_KIND_BASES = [(w, k) for w, k in KIND_WORDS if " " not in w and len(w) >= _FUZZY_MIN]
_MEASURE_BASES = [(w, c) for w, c in MEASURE_WORDS if " " not in w and len(w) >= _FUZZY_MIN]


def _fuzzy_words(
    lowered: str,
) -> tuple[tuple[str, Kind] | None, tuple[str, frozenset[str]] | None]:
    """A kind and a measurement word the question misspells, if any (ratio >= 85).

    A typo drops, doubles or swaps a letter: a word two letters shorter or longer is
    another word ("moment" is not "movement").
    """
    from rapidfuzz import fuzz

    kind: tuple[str, Kind] | None = None
    measure: tuple[str, frozenset[str]] | None = None
    for word in re.findall(r"[a-z]+", lowered):
        if len(word) < _FUZZY_MIN:
            continue
        stem = word[:-1] if word.endswith("s") else word
        if kind is None:
            for base, k in _KIND_BASES:
                if abs(len(stem) - len(base)) <= 1 and fuzz.ratio(stem, base) >= 85:
                    kind = (word, k)
                    break
        if measure is None:
            for base, c in _MEASURE_BASES:
                if abs(len(word) - len(base)) <= 1 and fuzz.ratio(word, base) >= 85:
                    measure = (word, c)
                    break
    return kind, measure


_DID = re.compile(r"^did (?:i|we|you|they|someone|somebody|anyone|anybody)\b")
_DID_VERBS = [
    ("unlock", "unlocked"), ("lock", "locked"), ("disarm", "disarmed"), ("arm", "armed"),
    ("close", "closed"), ("shut", "closed"), ("leave (?:\\w+ )*?open", "open"),
    ("open", "open"), ("(?:turn|switch) (?:\\w+ )*?off", "off"),
    ("(?:turn|switch|leave) (?:\\w+ )*?on", "on"),
]  # fmt: skip
_PLURAL_VERB = re.compile(r"\b(?:are|were|have|do)\b", re.I)


@dataclass(slots=True)
class Question:
    """What a home question asks."""

    text: str
    lowered: str
    shape: Shape
    predicate: str | None = None
    predicate_phrase: str | None = None
    negated: bool = False
    kind: Kind | None = None
    kind_word: str | None = None
    measure: frozenset[str] | None = None
    measure_word: str | None = None
    plural: bool = False
    focus: str = ""

    def without_predicate(self) -> str:
        """The question with the asked-about state word removed (for matching names)."""
        if not self.predicate_phrase:
            return self.text
        pattern = re.compile(rf"\b{re.escape(self.predicate_phrase)}\b", re.I)
        # Remove only the last occurrence: "is the garage door open" keeps "door".
        hits = list(pattern.finditer(self.text))
        if not hits:
            return self.text
        last = hits[-1]
        return (self.text[: last.start()] + self.text[last.end() :]).strip()


def core_text(text: str) -> str:
    """The question without courtesy lead-ins ("hey, can you tell me if …")."""
    stripped = _LEAD.sub("", text.strip(), count=1)
    return stripped or text.strip()


def parse(text: str) -> Question:
    """Read the shape, predicate, kind and measurement of a home question."""
    core = core_text(text)
    lead = text.strip()[: max(0, len(text.strip()) - len(core))]
    asks_if = bool(re.search(r"\b(?:if|whether)\b", lead, re.IGNORECASE))
    lowered = " " + core.lower().replace("\u2019", "'").rstrip(" ?!.") + " "
    lowered = _CONTRACTED.sub(lambda m: f"{m.group(1)} is", lowered)
    predicate = phrase = None
    best = -1
    for pattern, words_, value in _PRED_RE:
        for hit in pattern.finditer(lowered):
            # The last state word wins ("is the light on in the kitchen": on),
            # and a longer phrase wins over its last word ("turned on" over "on").
            pos = hit.end() * 100 + len(words_)
            if pos > best:
                best, predicate, phrase = pos, value, words_
    kind = kind_word = None
    plural = False
    best_key = (10**6, 0)
    for pattern, base, k in _KIND_RE:
        found = pattern.search(lowered)
        if found is None:
            continue
        key = (found.start(), -len(found.group(0)))
        if key < best_key:
            best_key, kind, kind_word = key, k, found.group(0)
            plural = found.group(0) != base
    measure = measure_word = None
    for pattern, classes in _MEASURE_RE:
        said = pattern.search(lowered)
        if said:
            measure, measure_word = classes, said.group(0)
            break
    if kind is None or measure is None:
        # A typo in the kind or measurement word ("temprature", "lihgts").
        fuzzy_kind, fuzzy_measure = _fuzzy_words(lowered)
        if kind is None and fuzzy_kind is not None:
            kind_word, kind = fuzzy_kind
        if measure is None and fuzzy_measure is not None:
            measure_word, measure = fuzzy_measure
    stripped = lowered.strip()
    did = _DID.match(stripped)
    if did:
        # "did I lock the front door": the state the action leaves, asked as a yes/no.
        for verb, state in _DID_VERBS:
            action = re.search(rf"\b{verb}\b", stripped[did.end() :])
            if action:
                predicate, phrase = state, action.group(0).split()[-1]  # "on" of "leave … on"
                break
    if phrase == "set":
        # "has the sun set" / "is the alarm set"; "set to 21" is a setpoint, not a state.
        if re.search(r"\bset (?:to|at)\b", stripped):
            predicate = phrase = None
        elif kind is not None and "alarm_control_panel" in kind.domains:
            predicate = "armed"
        elif "sun" not in stripped.split():
            predicate = phrase = None
    if _COUNT.search(stripped):
        shape: Shape = "count"
    elif _YESNO.match(stripped) or asks_if:
        asked = stripped[did.end() :] if did else stripped  # "did someone …" is not "any"
        if _ALL.search(asked):
            shape = "all"
        elif _ANY.search(asked) or re.match(r"^(?:is|are) there\b", stripped):
            shape = "any"
        else:
            shape = "yesno"
    elif re.match(r"^(?:which|list|show)\b", stripped) or re.match(
        r"^what\s+(?:\w+\s+){0,3}(?:are|is)\s+(?:on|off|open|closed|locked|unlocked)\b",
        stripped,
    ):
        shape = "list"
    elif re.match(r"^(?:anything|anyone|any)\b", stripped):
        shape = "any"
    elif phrase and not _WH.match(stripped) and re.search(rf"\b{re.escape(phrase)}$", stripped):
        shape = "yesno"  # "ceiling fan on?", "garage door open"
    elif core.rstrip().endswith("?") and not _WH.match(stripped):
        shape = "yesno"  # "holiday mode?", "motion in the backyard?"
    else:
        shape = "value"
    negated = bool(re.search(r"\b(?:not|n't|never)\b", stripped))
    if negated and predicate in ("home", "on", "open", "locked") and phrase not in ("not home",):
        from .facts import OPPOSITE

        predicate = OPPOSITE.get(predicate, predicate)
    focus = ""
    if re.search(
        r"\b(?:set to|set at|set for|target|setpoint|set point|thermostat set|keep|should)\b|"
        r"\bset$",
        stripped,
    ):
        focus = "target"
    elif re.search(r"\bmode\b", stripped):
        focus = "mode"
    elif re.search(r"\b(?:how far|position|how much open|percent open)\b", stripped):
        focus = "position"
        if re.search(r"\bhow (?:far|much)\b", stripped):
            predicate = None  # "how far open": a position to say, not a yes/no on "open"
    elif re.search(r"\b(?:brightness|bright|dim)\b", stripped):
        focus = "brightness"
    elif measure is not None:
        focus = "current"
    return Question(
        text=core,
        lowered=stripped,
        shape=shape,
        predicate=predicate,
        predicate_phrase=phrase,
        negated=negated,
        kind=kind,
        kind_word=kind_word,
        measure=measure,
        measure_word=measure_word,
        plural=plural or bool(_PLURAL_VERB.match(stripped)),
        focus=focus,
    )
