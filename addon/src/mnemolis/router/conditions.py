"""Conditional questions: find the condition, then judge it against structured data.

The verdict is True, False or None; None always comes with the reason it could not
be decided (source not configured, no forecast for that day, no such entity...).
It is never a guess.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta, tzinfo
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from rapidfuzz import fuzz, process

from .text import STOPWORDS, content_words, normalize, tokens
from .vocabulary import WEEKDAYS

# --- parsing ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ConditionPlan:
    """A conditional question split into its condition and what to answer."""

    text: str
    consequent: str
    kind: str  # forecast | ha | uptime

    @property
    def source(self) -> str:
        """The source whose data decides the condition."""
        return self.kind


_AUX = frozenset(
    [
        "was",
        "were",
        "is",
        "are",
        "did",
        "does",
        "do",
        "will",
        "would",
        "can",
        "could",
        "should",
        "shall",
        "has",
        "have",
        "had",
        "am",
    ]
)
_LEADING = re.compile(
    r"^\s*(?P<kw>if|in case|should|when|whenever|once|provided that|assuming)\s+(?P<cond>[^,]+?)"
    r"\s*(?:,|\bthen\b)\s*(?P<rest>.+)$",
    re.IGNORECASE | re.DOTALL,
)
_LEADING_NO_COMMA = re.compile(r"^\s*(?P<kw>if|in case)\s+(?P<body>.+)$", re.IGNORECASE | re.DOTALL)
_TRAILING = re.compile(
    r"^(?P<rest>.+?)\s*,?\s+(?P<kw>if|in case|provided that|should(?=\s+(?:it|there)\b))\s+"
    r"(?P<cond>.+?)\s*[?.!]*\s*$",
    re.IGNORECASE | re.DOTALL,
)
# "check if", "do you know if", "what if", "even if": "if" meaning "whether", or no condition.
_NOT_CONDITIONAL_BEFORE = frozenset(
    [
        "know",
        "check",
        "see",
        "wonder",
        "ask",
        "asking",
        "find",
        "tell",
        "sure",
        "whether",
        "what",
        "even",
        "as",
        "ask",
    ]
)
_CONSEQUENT_STARTERS = frozenset(
    [
        "is",
        "are",
        "was",
        "were",
        "will",
        "would",
        "should",
        "do",
        "does",
        "did",
        "can",
        "could",
        "what",
        "which",
        "who",
        "how",
        "when",
        "where",
        "remind",
        "tell",
        "close",
        "open",
        "turn",
        "switch",
        "lock",
        "notify",
        "let",
        "give",
    ]
)
_VERBISH = re.compile(
    r"\b(?:is|are|was|were|be|gets?|goes|go|falls?|drops?|rises?|rains?|raining|snows?|snowing|"
    r"stays?|remains?|opens?|closes?|turns?|has|have|left|becomes?|reaches|exceeds?|hits?|"
    r"storms?|freezes?|blows?|shines?|pours?)\b",
    re.IGNORECASE,
)
_SUBJECT_START = re.compile(
    r"^(?:it|there|the|my|our|a|an|any|anyone|anybody|someone|somebody|nobody|no one|"
    r"everyone|everybody|[A-Z]\w*)\b"
)


# "If X, let me know": a condition with no consequent of its own asks about X itself.
_REPORT = (
    r"(?:please\s+)?(?:let me know|let us know|tell me|tell us|notify me|warn me|alert me|"
    r"inform me|ping me|say so|give me a shout)(?:\s+(?:please|about it|then|so))?"
)
_REPORT_ONLY = re.compile(rf"^\s*(?:then\s+)?{_REPORT}\s*[.!?]*\s*$", re.IGNORECASE)
_REPORT_TAIL = re.compile(
    rf"^\s*(?P<kw>if|in case|when|whenever|once)\s+(?P<cond>.+?)\s*,?\s*(?:then\s+)?{_REPORT}"
    r"\s*[.!?]*\s*$",
    re.IGNORECASE | re.DOTALL,
)


def parse_condition(question: str) -> ConditionPlan | None:
    """The condition and consequent of "if …, …" and "… if …" questions, else None."""
    q = question.strip()
    m = _REPORT_TAIL.match(q)
    if m and _leading_ok(m.group("kw"), m.group("cond")):
        return _report(m.group("cond"))
    m = _LEADING.match(q)
    if m and _REPORT_ONLY.match(m.group("rest")) and _leading_ok(m.group("kw"), m.group("cond")):
        return _report(m.group("cond"))
    if m and _leading_ok(m.group("kw"), m.group("cond")) and _has_content(m.group("rest")):
        return _plan(m.group("cond"), m.group("rest"))
    m = _LEADING_NO_COMMA.match(q)
    if m:
        split = _split_without_comma(m.group("body"))
        if split is not None:
            return _plan(*split)
    m = _TRAILING.match(q)
    if m and _has_content(m.group("rest")) and _has_content(m.group("cond")):
        before = tokens(normalize(m.group("rest")))
        if before and before[-1] not in _NOT_CONDITIONAL_BEFORE and not _asks_whether(before):
            return _plan(m.group("cond"), m.group("rest"))
    return None


_ASK_VERBS = frozenset(
    {"tell", "let", "notify", "alert", "warn", "ping", "remind", "message", "text", "email"}
)


def _asks_whether(before: list[str]) -> bool:
    """ "tell me if", "notify me if", "find out if": a request, not a condition."""
    if len(before) < 2:
        return False
    return (before[-1] in ("me", "us") and before[-2] in _ASK_VERBS) or before[-2:] == [
        "find",
        "out",
    ]


def _leading_ok(keyword: str, cond: str) -> bool:
    kw = keyword.lower()
    toks = tokens(normalize(cond))
    if not toks or not _has_content(cond):
        return False
    if kw in ("when", "whenever", "once") and toks[0] in _AUX | {"what", "which", "how"}:
        return False  # "when is the next bin day, ..." is a question, not a condition
    if kw == "should" and not _SUBJECT_START.match(cond.strip()):
        return False  # "should I bring a coat, ..." asks for advice
    return not (kw == "should" and toks[0] in ("i", "we", "you"))


def _split_without_comma(body: str) -> tuple[str, str] | None:
    words = body.split()
    for i in range(2, len(words)):
        head = normalize(words[i])
        if head.strip("?.!,") not in _CONSEQUENT_STARTERS:
            continue
        cond = " ".join(words[:i])
        rest = " ".join(words[i:])
        if _VERBISH.search(cond) and _has_content(rest):
            return cond, rest
    return None


def _has_content(text: str) -> bool:
    return bool(content_words(tokens(normalize(text))))


def _report(cond: str) -> ConditionPlan:
    """ "If the NAS is down, let me know": judge the condition and answer about it."""
    cond = cond.strip().strip(",").rstrip("?.!").strip()
    return ConditionPlan(text=cond, consequent=cond, kind=condition_kind(cond))


_COND_SUBJECT = re.compile(
    r"^(?P<subj>(?:the|my|our)\s+[\w' -]+?)\s+(?:is|are|was|were|gets?|goes|stays?|has)\b",
    re.IGNORECASE,
)
_IT = re.compile(r"\bit\b", re.IGNORECASE)


def _plan(cond: str, rest: str) -> ConditionPlan:
    cond = cond.strip().strip(",").rstrip("?.!").strip()
    rest = rest.strip().strip(",").strip()
    subject = _COND_SUBJECT.match(cond)
    if subject and _IT.search(rest):
        # "If the garage door is open, when did it open?": "it" is the garage door.
        rest = _IT.sub(subject.group("subj"), rest, count=1)
    return ConditionPlan(text=cond, consequent=rest, kind=condition_kind(cond))


# --- what kind of condition ---------------------------------------------------------

_WEATHER = frozenset(
    [
        "rain",
        "rains",
        "raining",
        "rainy",
        "rained",
        "wet",
        "dry",
        "drizzle",
        "showers",
        "pours",
        "pouring",
        "snow",
        "snows",
        "snowing",
        "snowy",
        "sleet",
        "hail",
        "hails",
        "storm",
        "storms",
        "stormy",
        "thunder",
        "thunderstorm",
        "lightning",
        "wind",
        "winds",
        "windy",
        "gusts",
        "gusty",
        "sunny",
        "sun",
        "cloudy",
        "overcast",
        "fog",
        "foggy",
        "frost",
        "freezes",
        "freezing",
        "hot",
        "cold",
        "warm",
        "chilly",
        "mild",
        "temperature",
        "degrees",
        "weather",
        "forecast",
        "umbrella",
        "precipitation",
        "heatwave",
    ]
)
_MONITOR_STATE = re.compile(
    r"\b(?:up|down|online|offline|reachable|unreachable|responding|unresponsive)\b", re.IGNORECASE
)
_HA_SUBJECT_HINT = re.compile(
    r"\b(?:in|of) the (?!weather|forecast)\w+|\b(?:sensor|thermostat|room|inside|indoor|"
    r"living|kitchen|bedroom|bathroom|office|garage|freezer|fridge|boiler|battery)\b",
    re.IGNORECASE,
)


_IMPERSONAL = re.compile(r"^\s*(?:it|it's|it is|there|there's|there is)\b", re.IGNORECASE)
_WHEN_WORDS = frozenset(
    ["today", "tonight", "tomorrow", "weekend", "morning", "afternoon", "evening", *WEEKDAYS]
)


def condition_kind(text: str) -> str:
    """Which structured source can judge a condition: forecast, uptime or ha."""
    toks = set(tokens(normalize(text)))
    if toks & _WEATHER and not _HA_SUBJECT_HINT.search(text):
        return "forecast"
    if _IMPERSONAL.match(text) and toks & _WHEN_WORDS and not _HA_SUBJECT_HINT.search(text):
        return "forecast"  # "it's below zero tomorrow morning": the weather, on a day
    if _MONITOR_STATE.search(text):
        return "uptime"
    return "ha"


# --- evaluation helpers -----------------------------------------------------------------


@dataclass(slots=True)
class Verdict:
    """A judged condition: True/False/None and the evidence (or the reason for None)."""

    verdict: bool | None
    evidence: str
    source: str


_NEGATION = re.compile(r"\b(?:not|no|never)\b")
_COMPARATOR = re.compile(
    r"(?P<op>above|over|more than|higher than|greater than|warmer than|hotter than|exceeds?|"
    r"at least|below|under|less than|lower than|colder than|cooler than|at most|>=|<=|>|<)"
    r"\s*(?P<num>-?\d+(?:[.,]\d+)?|zero|freezing)",
    re.IGNORECASE,
)
_GREATER = (
    "above",
    "over",
    "more than",
    "higher than",
    "greater than",
    "warmer than",
    "hotter than",
    "exceed",
    "exceeds",
    "at least",
    ">=",
    ">",
)


@dataclass(frozen=True, slots=True)
class Threshold:
    """A numeric comparison named in a condition ("above 25 degrees")."""

    greater: bool
    value: float
    inclusive: bool
    phrase: str

    def test(self, x: float) -> bool:
        """Whether x satisfies the comparison."""
        if self.greater:
            return x >= self.value if self.inclusive else x > self.value
        return x <= self.value if self.inclusive else x < self.value


def parse_threshold(text: str) -> Threshold | None:
    """The first numeric comparison in the text, if any."""
    m = _COMPARATOR.search(text)
    if not m:
        return None
    op = m.group("op").lower()
    raw = m.group("num").lower().replace(",", ".")
    value = 0.0 if raw in ("zero", "freezing") else float(raw)
    return Threshold(
        greater=op in _GREATER,
        value=value,
        inclusive=op in ("at least", "at most", ">=", "<="),
        phrase=m.group(0),
    )


def _fmt(x: float) -> str:
    return f"{x:g}"


# --- forecast ---------------------------------------------------------------------

RAIN_CONDITIONS = frozenset({"rainy", "pouring", "lightning-rainy", "snowy-rainy", "hail"})
SNOW_CONDITIONS = frozenset({"snowy", "snowy-rainy"})
STORM_CONDITIONS = frozenset({"lightning", "lightning-rainy", "exceptional", "hail"})
WIND_CONDITIONS = frozenset({"windy", "windy-variant"})
SUN_CONDITIONS = frozenset({"sunny", "clear-night"})
CLOUD_CONDITIONS = frozenset({"cloudy", "partlycloudy", "fog"})
RAIN_PROBABILITY = 50.0  # % at or above which rain counts as expected
WINDY_SPEED = 30.0  # wind speed (forecast unit, km/h by default) that counts as windy
HOT, WARM, COLD, FREEZING = 25.0, 20.0, 5.0, 0.0  # degrees, for hot/warm/cold/freezing

DAY_PARTS: dict[str, tuple[int, int]] = {
    "morning": (6, 12),
    "afternoon": (12, 18),
    "evening": (18, 23),
    "night": (22, 30),
    "tonight": (18, 30),
}


@dataclass(frozen=True, slots=True)
class When:
    """The day (and optional part of day) a condition talks about."""

    day: date
    label: str
    part: str | None = None


def resolve_when(text: str, now: datetime) -> When:
    """The day and part of day named in text (today when none is named)."""
    toks = tokens(normalize(text))
    today = now.date()
    day, label = today, "today"
    norm = " ".join(toks)
    ahead = re.search(r"\bin (\d{1,2}) days?\b", norm)
    if "day after tomorrow" in norm:
        day, label = today + timedelta(days=2), "the day after tomorrow"
    elif ahead:
        n = int(ahead.group(1))
        day, label = today + timedelta(days=n), f"in {n} days"
    elif "tomorrow" in toks:
        day, label = today + timedelta(days=1), "tomorrow"
    elif "weekend" in toks:
        delta = (5 - today.weekday()) % 7
        day, label = today + timedelta(days=delta), "Saturday"
    else:
        for i, name in enumerate(WEEKDAYS):
            if name in toks:
                delta = (i - today.weekday()) % 7
                if "next" in toks and delta == 0:
                    delta = 7
                day, label = today + timedelta(days=delta), name.capitalize()
                break
    part = None
    if day == today and ({"now", "currently"} & set(toks) or "at the moment" in norm):
        part = "now"
    elif "tonight" in toks:
        part = "tonight"
    else:
        for name in ("morning", "afternoon", "evening", "night"):
            if name in toks:
                part = name
                break
    return When(day=day, label=label, part=part)


def _as_datetime(value: Any, tz: tzinfo) -> datetime | None:
    if isinstance(value, datetime):
        dt = value
    elif isinstance(value, str):
        try:
            dt = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
    else:
        return None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=tz)
    return dt.astimezone(tz)


def _num(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None


def resolve_tz(*candidates: Any) -> tzinfo:
    """First usable time zone among tzinfo objects and IANA names; UTC otherwise."""
    for cand in candidates:
        if isinstance(cand, tzinfo):
            return cand
        if isinstance(cand, str) and cand:
            try:
                return ZoneInfo(cand)
            except (ZoneInfoNotFoundError, ValueError):
                continue
    return ZoneInfo("UTC")


def _slice(items: Iterable[object], when: When, tz: tzinfo) -> list[dict[str, Any]]:
    """Hourly entries inside the named part of the named day."""
    lo, hi = DAY_PARTS[when.part or "morning"]
    start = datetime(when.day.year, when.day.month, when.day.day, tzinfo=tz) + timedelta(hours=lo)
    end = datetime(when.day.year, when.day.month, when.day.day, tzinfo=tz) + timedelta(hours=hi)
    out = []
    for item in items:
        if not isinstance(item, dict):
            continue
        dt = _as_datetime(item.get("datetime"), tz)
        if dt is not None and start <= dt < end:
            out.append(item)
    return out


def _current_hour(items: Iterable[object], now: datetime, tz: tzinfo) -> list[dict[str, Any]]:
    """The hourly entry covering the present hour."""
    for item in items:
        if not isinstance(item, dict):
            continue
        dt = _as_datetime(item.get("datetime"), tz)
        if dt is not None and dt <= now < dt + timedelta(hours=1):
            return [item]
    return []


def describe_forecast(entries: list[dict[str, Any]], label: str) -> str:
    """One line of what the forecast says for a day or a part of one."""
    conditions = list(dict.fromkeys(str(e.get("condition")) for e in entries if e.get("condition")))
    bits = [", ".join(conditions)] if conditions else []
    probs = [
        p for p in (_num(e.get("precipitation_probability")) for e in entries) if p is not None
    ]
    if probs:
        bits.append(f"{_fmt(max(probs))}% chance of precipitation")
    amounts = [p for p in (_num(e.get("precipitation")) for e in entries) if p is not None]
    if amounts:
        bits.append(f"{_fmt(round(sum(amounts), 1))} mm")
    highs = [t for t in (_num(e.get("temperature")) for e in entries) if t is not None]
    lows = [t for t in (_num(e.get("templow")) for e in entries) if t is not None] or highs
    if highs:
        bits.append(f"high {_fmt(max(highs))}°")
    if lows:
        bits.append(f"low {_fmt(min(lows))}°")
    winds = [w for w in (_num(e.get("wind_speed")) for e in entries) if w is not None]
    if winds:
        bits.append(f"wind up to {_fmt(max(winds))}")
    return f"Forecast for {label}: " + ("; ".join(bits) if bits else "no details")


def judge_weather(text: str, entries: list[dict[str, Any]]) -> tuple[bool | None, str]:
    """Judge a weather condition against forecast entries; None names what is missing."""
    norm = normalize(text)
    toks = set(tokens(norm))
    negated = bool(_NEGATION.search(norm))
    conds = {str(e.get("condition")) for e in entries if e.get("condition")}
    probs = [
        p for p in (_num(e.get("precipitation_probability")) for e in entries) if p is not None
    ]
    amounts = [p for p in (_num(e.get("precipitation")) for e in entries) if p is not None]
    highs = [t for t in (_num(e.get("temperature")) for e in entries) if t is not None]
    lows = [t for t in (_num(e.get("templow")) for e in entries) if t is not None] or highs
    winds = [w for w in (_num(e.get("wind_speed")) for e in entries) if w is not None]
    threshold = parse_threshold(norm)
    verdict: bool | None
    rule: str
    if toks & {
        "rain",
        "rains",
        "raining",
        "rainy",
        "rained",
        "wet",
        "drizzle",
        "showers",
        "pours",
        "pouring",
        "umbrella",
        "precipitation",
        "dry",
    }:
        if not conds and not probs and not amounts:
            return None, "the forecast has no condition or precipitation for that time"
        verdict = (
            bool(conds & RAIN_CONDITIONS)
            or any(p >= RAIN_PROBABILITY for p in probs)
            or (not probs and any(a >= 0.5 for a in amounts))
        )
        rule = f"rain = a rainy condition or ≥ {_fmt(RAIN_PROBABILITY)}% chance"
        if "dry" in toks:
            verdict = not verdict
    elif toks & {"snow", "snows", "snowing", "snowy", "sleet"}:
        if not conds:
            return None, "the forecast has no condition for that time"
        verdict, rule = bool(conds & SNOW_CONDITIONS), "snow = a snowy condition"
    elif toks & {"storm", "storms", "stormy", "thunder", "thunderstorm", "lightning", "hail"}:
        if not conds:
            return None, "the forecast has no condition for that time"
        verdict, rule = bool(conds & STORM_CONDITIONS), "storm = lightning, hail or exceptional"
    elif toks & {"wind", "winds", "windy", "gusts", "gusty", "blows"}:
        if threshold is not None and winds:
            verdict = threshold.test(max(winds) if threshold.greater else min(winds))
            rule = f"wind {threshold.phrase}"
        elif winds or conds:
            limit = WINDY_SPEED
            verdict = bool(conds & WIND_CONDITIONS) or any(w >= limit for w in winds)
            rule = f"windy = a windy condition or wind ≥ {_fmt(limit)}"
        else:
            return None, "the forecast has no wind speed for that time"
    elif toks & {"sunny", "sun", "sunshine", "clear"}:
        if not conds:
            return None, "the forecast has no condition for that time"
        verdict, rule = bool(conds & SUN_CONDITIONS), "sunny = sunny or clear"
    elif toks & {"cloudy", "overcast", "fog", "foggy"}:
        if not conds:
            return None, "the forecast has no condition for that time"
        verdict, rule = bool(conds & CLOUD_CONDITIONS), "cloudy = cloudy, partly cloudy or fog"
    else:
        if not highs:
            return None, "the forecast has no temperature for that time"
        if threshold is not None:
            value = max(highs) if threshold.greater else min(lows)
            verdict, rule = threshold.test(value), f"temperature {threshold.phrase}"
        elif toks & {"freezing", "freezes", "frost"}:
            verdict, rule = min(lows) <= FREEZING, f"freezing = low ≤ {_fmt(FREEZING)}°"
        elif toks & {"hot", "heatwave"}:
            verdict, rule = max(highs) >= HOT, f"hot = high ≥ {_fmt(HOT)}°"
        elif toks & {"warm", "mild"}:
            verdict, rule = max(highs) >= WARM, f"warm = high ≥ {_fmt(WARM)}°"
        elif toks & {"cold", "chilly"}:
            verdict, rule = min(lows) <= COLD, f"cold = low ≤ {_fmt(COLD)}°"
        else:
            return None, "the condition names no weather the forecast can judge"
    if negated:
        verdict = not verdict
    return verdict, rule


# --- Home Assistant states -----------------------------------------------------------

_STATE_WORDS: dict[str, tuple[str, bool]] = {
    # word -> (family, desired truth)
    "open": ("open", True),
    "opened": ("open", True),
    "opens": ("open", True),
    "closed": ("open", False),
    "shut": ("open", False),
    "closes": ("open", False),
    "on": ("on", True),
    "off": ("on", False),
    "running": ("on", True),
    "playing": ("on", True),
    "locked": ("locked", True),
    "unlocked": ("locked", False),
    "home": ("home", True),
    "away": ("home", False),
    "out": ("home", False),
}
_DOMAINS: dict[str, list[str]] = {
    "open": ["cover", "binary_sensor", "input_boolean", "switch", "valve", "lock"],
    "on": [
        "light",
        "switch",
        "fan",
        "input_boolean",
        "binary_sensor",
        "media_player",
        "climate",
        "automation",
        "siren",
        "humidifier",
        "vacuum",
        "remote",
    ],
    "locked": ["lock", "input_boolean", "binary_sensor"],
    "home": ["person", "device_tracker", "binary_sensor", "input_boolean"],
    "numeric": ["sensor", "input_number", "number", "climate", "weather"],
}
_STATE_RE = re.compile(
    r"^(?P<subj>.+?)\s+(?:is|are|was|gets|get|goes|go|becomes|stays|remains|has been|"
    r"have been|is still|are still|is left|are left|was left|gets left)?\s*(?P<neg>not\s+)?"
    r"(?P<state>open|opened|opens|closed|shut|closes|on|off|locked|unlocked|running|playing|"
    r"home|at home|away|out)\b",
    re.IGNORECASE,
)
_NUMERIC_RE = re.compile(
    r"^(?P<subj>.+?)\s+(?:is|are|gets|goes|rises|drops|falls|reads)?\s*"
    r"(?:still\s+)?(?P<cmp>" + _COMPARATOR.pattern + ")",
    re.IGNORECASE,
)
_UNAVAILABLE = frozenset({"unavailable", "unknown", "none", ""})
_OPEN_STATES = frozenset({"open", "opening", "on", "unlocked"})
_ON_OFF_STATES = frozenset({"off", "idle", "standby", "paused", "closed", "docked", "not_home"})


def _personal(subject: str) -> bool:
    """ "I get", "we leave": the asker, not an entity of the home."""
    first = subject.split()[0].lower() if subject.split() else ""
    return first in ("i", "we", "you", "me", "us", "i'm", "we're")


def _subject(text: str) -> str:
    toks = [t for t in text.strip().split() if t.lower() not in ("the", "my", "our", "a", "an")]
    return " ".join(toks).strip(" ,?.!")


def _state_name(state: dict[str, Any]) -> str:
    attrs = state.get("attributes") or {}
    name = attrs.get("friendly_name") if isinstance(attrs, dict) else None
    return str(name or state.get("entity_id", "?"))


def _states_of(ha: Any) -> dict[str, dict[str, Any]]:
    states = getattr(ha, "states", None)
    if callable(states):
        states = states()
    return states if isinstance(states, dict) else {}


async def find_entity(ha: Any, subject: str, domains: list[str]) -> tuple[str | None, str]:
    """The entity a subject names: (entity_id, "") or (None, why not)."""
    states = _states_of(ha)
    matcher = getattr(ha, "match_entities", None)
    if callable(matcher):
        for doms in (domains, None):
            try:
                found = matcher(subject, domains=doms, limit=3)
                if inspect.isawaitable(found):
                    found = await found
            except Exception:  # the matcher is a convenience; fall back to our own
                found = []
            matches = [m for m in (found or []) if getattr(m, "entity_id", None)]
            if matches:
                best = matches[0]
                if len(matches) > 1 and _close(best, matches[1]):
                    return None, _ambiguous(subject, [best.entity_id, matches[1].entity_id], states)
                return str(best.entity_id), ""
    if not states:
        return None, "Home Assistant has no states loaded"
    return _fuzzy_entity(subject, states, domains)


def _close(a: Any, b: Any) -> bool:
    sa, sb = getattr(a, "score", None), getattr(b, "score", None)
    if not isinstance(sa, int | float) or not isinstance(sb, int | float):
        return False
    return abs(float(sa) - float(sb)) < 1.0 and a.entity_id != b.entity_id


def _ambiguous(subject: str, ids: list[str], states: dict[str, dict[str, Any]]) -> str:
    names = [_state_name(states.get(i, {"entity_id": i})) for i in ids]
    return f"“{subject}” could be {' or '.join(names)}; name it more precisely"


def _fuzzy_entity(
    subject: str, states: dict[str, dict[str, Any]], domains: list[str]
) -> tuple[str | None, str]:
    choices: dict[str, str] = {}
    for entity_id, state in states.items():
        if domains and entity_id.split(".", 1)[0] not in domains:
            continue
        choices[entity_id] = normalize(_state_name(state))
        choices[entity_id + "#id"] = entity_id.split(".", 1)[-1].replace("_", " ")
    if not choices:
        return None, f"no {'/'.join(domains)} entity in Home Assistant"
    found = process.extract(
        normalize(subject), choices, scorer=fuzz.WRatio, limit=4, score_cutoff=80
    )
    best: dict[str, float] = {}
    for _choice, sc, key in found:
        ent = key.removesuffix("#id")
        best[ent] = max(best.get(ent, 0.0), sc)
    ranked = sorted(best.items(), key=lambda kv: -kv[1])
    if not ranked:
        return None, f"no Home Assistant entity matches “{subject}”"
    if len(ranked) > 1 and ranked[0][1] - ranked[1][1] < 1.0:
        return None, _ambiguous(subject, [ranked[0][0], ranked[1][0]], states)
    return ranked[0][0], ""


def _is_open(state: dict[str, Any]) -> bool:
    return str(state.get("state", "")).lower() in _OPEN_STATES


def _is_on(state: dict[str, Any]) -> bool:
    return str(state.get("state", "")).lower() not in _ON_OFF_STATES


async def judge_ha(ha: Any, text: str) -> tuple[bool | None, str]:
    """Judge "the garage door is open", "nobody is home", "the lounge is above 25"."""
    states = _states_of(ha)
    norm = normalize(text)
    people = _people_condition(norm)
    if people is not None:
        return _judge_people(states, *people)
    m = _NUMERIC_RE.match(text.strip())
    if m:
        threshold = parse_threshold(m.group("cmp"))
        subject = _subject(m.group("subj"))
        if threshold is not None:
            return await _judge_numeric(ha, states, subject, threshold)
    m = _STATE_RE.match(text.strip())
    if not m:
        return (
            None,
            "the condition names no state Home Assistant can check "
            "(open/closed, on/off, locked/unlocked, home/away or a number)",
        )
    subject = _subject(m.group("subj"))
    if _personal(subject):
        return None, f"“{text}” is about you, and no data says that ahead of time"
    word = m.group("state").lower().replace("at home", "home")
    family, wanted = _STATE_WORDS[word]
    if m.group("neg"):
        wanted = not wanted
    entity_id, why = await find_entity(ha, subject, _DOMAINS[family])
    if entity_id is None:
        return None, why
    state = states.get(entity_id)
    if not isinstance(state, dict):
        return None, f"{entity_id} has no state yet"
    value = str(state.get("state", "")).lower()
    name = _state_name(state)
    if value in _UNAVAILABLE:
        return None, f"{name} ({entity_id}) is {value or 'unknown'}"
    if family == "open":
        actual = _is_open(state)
    elif family == "locked":
        if entity_id.startswith("lock."):
            if value not in ("locked", "unlocked"):
                return None, f"{name} is {value}"
            actual = value == "locked"
        else:
            actual = value == "on"
    elif family == "home":
        actual = value == "home" or (value == "on" and not entity_id.startswith("person."))
    else:
        actual = _is_on(state)
    return actual == wanted, f"{name} ({entity_id}) is {value}"


def _people_condition(norm: str) -> tuple[str, bool] | None:
    if re.search(r"\b(?:nobody|no one|noone|no-one)\b.*\b(?:is )?(?:home|at home|in)\b", norm):
        return "nobody", True
    if re.search(r"\b(?:everyone|everybody)\b.*\b(?:home|at home|out|away)\b", norm):
        return ("everyone_away" if re.search(r"\b(?:out|away|gone)\b", norm) else "everyone"), True
    if re.search(r"\b(?:anyone|anybody|someone|somebody)\b.*\b(?:home|at home|in)\b", norm):
        return "anyone", True
    return None


def _judge_people(states: dict[str, dict[str, Any]], who: str, _: bool) -> tuple[bool | None, str]:
    persons = {k: v for k, v in states.items() if k.startswith("person.") and isinstance(v, dict)}
    if not persons:
        return None, "Home Assistant has no person entities"
    home = [_state_name(v) for v in persons.values() if str(v.get("state")) == "home"]
    away = [_state_name(v) for v in persons.values() if str(v.get("state")) != "home"]
    evidence = f"home: {', '.join(home) or 'nobody'}; away: {', '.join(away) or 'nobody'}"
    if who == "nobody":
        return not home, evidence
    if who == "anyone":
        return bool(home), evidence
    if who == "everyone_away":
        return not home, evidence
    return not away, evidence


async def _judge_numeric(
    ha: Any, states: dict[str, dict[str, Any]], subject: str, threshold: Threshold
) -> tuple[bool | None, str]:
    entity_id, why = await find_entity(ha, subject, _DOMAINS["numeric"])
    if entity_id is None:
        return None, why
    state = states.get(entity_id) or {}
    attrs = state.get("attributes") or {}
    raw: Any = state.get("state")
    if entity_id.startswith(("climate.", "weather.")) and isinstance(attrs, dict):
        raw = attrs.get("current_temperature", attrs.get("temperature"))
    value = _num(raw)
    name = _state_name(state) if state else entity_id
    if value is None:
        return None, f"{name} ({entity_id}) is {raw!s}, not a number"
    unit = attrs.get("unit_of_measurement", "") if isinstance(attrs, dict) else ""
    return threshold.test(
        value
    ), f"{name} ({entity_id}) is {_fmt(value)}{unit}; condition: {threshold.phrase}"


# --- monitors ---------------------------------------------------------------------

_MONITOR_RE = re.compile(
    r"^(?P<subj>.+?)\s+(?:is|are|goes|go|went|gets|get)?\s*(?P<neg>not\s+)?(?:still\s+)?"
    r"(?P<state>up|down|online|offline|reachable|unreachable|responding|unresponsive)\b",
    re.IGNORECASE,
)


def _monitor_field(monitor: Any, name: str) -> Any:
    if isinstance(monitor, dict):
        return monitor.get(name)
    return getattr(monitor, name, None)


def judge_monitor(monitors: list[Any], text: str) -> tuple[bool | None, str]:
    """Judge "the NAS is down" against Uptime Kuma monitors."""
    m = _MONITOR_RE.match(text.strip())
    if not m:
        return None, "the condition names no monitor state (up/down)"
    subject = _subject(m.group("subj"))
    names = {
        str(_monitor_field(mon, "name")): mon for mon in monitors if _monitor_field(mon, "name")
    }
    if not names:
        return None, "Uptime Kuma reports no monitors"
    found = process.extract(subject, list(names), scorer=fuzz.WRatio, limit=2, score_cutoff=80)
    if not found:
        return None, f"no monitor matches “{subject}”"
    if len(found) > 1 and found[0][1] - found[1][1] < 1.0:
        return None, f"“{subject}” could be {found[0][0]} or {found[1][0]}"
    name = found[0][0]
    status = str(_monitor_field(names[name], "status") or "unknown").lower()
    if status not in ("up", "down"):
        return None, f"monitor {name} is {status}"
    wants_down = m.group("state").lower() in ("down", "offline", "unreachable", "unresponsive")
    if m.group("neg"):
        wants_down = not wants_down
    return (status == "down") == wants_down, f"monitor {name} is {status}"


def is_content_free(text: str) -> bool:
    """True when the text holds only stopwords."""
    return all(t in STOPWORDS for t in tokens(normalize(text)))


# --- the evaluator ------------------------------------------------------------------


def _configured(source: Any) -> bool:
    return source is not None and bool(getattr(source, "configured", False))


async def _maybe_await(value: Any) -> Any:
    if inspect.isawaitable(value):
        return await value
    return value


async def evaluate(
    plan: ConditionPlan,
    sources: dict[str, Any],
    services: dict[str, Any],
    now: datetime,
) -> Verdict:
    """Judge a condition against the source its kind names; never guesses."""
    if plan.kind == "forecast":
        return await _evaluate_forecast(plan, sources.get("forecast"), services, now)
    if plan.kind == "uptime":
        uptime = sources.get("uptime")
        if _configured(uptime) and callable(getattr(uptime, "monitors", None)):
            monitors = await _maybe_await(uptime.monitors())  # type: ignore[union-attr]
            verdict, evidence = judge_monitor(list(monitors or []), plan.text)
            if verdict is not None or "no monitor matches" not in evidence:
                return Verdict(verdict, evidence, "uptime")
        ha = services.get("ha")
        if ha is not None:
            verdict, evidence = await judge_ha(
                ha, plan.text.replace(" down", " off").replace(" up", " on")
            )
            if verdict is not None:
                return Verdict(verdict, evidence, "ha")
        if not _configured(uptime):
            return Verdict(
                None, "uptime is not configured, so monitor states are unknown", "uptime"
            )
        return Verdict(None, f"no monitor matches “{plan.text}”", "uptime")
    ha = services.get("ha")
    ha_source = sources.get("ha")
    if ha is None or (ha_source is not None and not _configured(ha_source)):
        return Verdict(None, "Home Assistant is not configured, so its states are unknown", "ha")
    verdict, evidence = await judge_ha(ha, plan.text)
    return Verdict(verdict, evidence, "ha")


async def _evaluate_forecast(
    plan: ConditionPlan, forecast: Any, services: dict[str, Any], now: datetime
) -> Verdict:
    if not _configured(forecast):
        return Verdict(None, "forecast is not configured, so the weather is unknown", "forecast")
    ha = services.get("ha")
    ha_config = getattr(ha, "config", None) if ha is not None else None
    ha_tz = ha_config.get("time_zone") if isinstance(ha_config, dict) else None
    tz = resolve_tz(getattr(forecast, "timezone", None), ha_tz)
    local_now = now.astimezone(tz)
    when = resolve_when(f"{plan.text} {plan.consequent}", local_now)
    label = when.label + (f" {when.part}" if when.part and when.part != "tonight" else "")
    if when.part == "tonight":
        label = "tonight" if when.label == "today" else f"{when.label} night"
    entries: list[dict[str, Any]] = []
    if when.part is not None and callable(getattr(forecast, "hourly", None)):
        hourly = await _maybe_await(forecast.hourly())
        if when.part == "now":
            entries = _current_hour(hourly or [], local_now, tz)
            label = "now"
        else:
            entries = _slice(hourly or [], when, tz)
    note = ""
    if not entries:
        day_entry = None
        if callable(getattr(forecast, "for_day", None)):
            day_entry = await _maybe_await(forecast.for_day(when.day))
        elif callable(getattr(forecast, "daily", None)):
            for item in await _maybe_await(forecast.daily()) or []:
                dt = _as_datetime(item.get("datetime") if isinstance(item, dict) else None, tz)
                if dt is not None and dt.date() == when.day:
                    day_entry = item
                    break
        if not isinstance(day_entry, dict):
            return Verdict(
                None,
                f"the forecast has no data for {when.label} ({when.day.isoformat()})",
                "forecast",
            )
        entries = [day_entry]
        if when.part is not None:
            span = "the current hour" if when.part == "now" else f"the {when.part}"
            note = f" (daily forecast; no hourly data for {span})"
    verdict, rule = judge_weather(plan.text, entries)
    described = describe_forecast(entries, f"{label}, {when.day.strftime('%a %d %b')}")
    if verdict is None:
        return Verdict(None, f"{described}{note}: {rule}", "forecast")
    return Verdict(verdict, f"{described}{note} ({rule})", "forecast")
